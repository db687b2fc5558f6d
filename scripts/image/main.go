// Command image builds Sandbank's container image without a container
// engine: one layer over nothing (scratch) with the static sandbankd, the
// build machine's CA certificates and a user that is not root, written as
// a tarball that docker load and podman load read. make image runs it;
// the Dockerfile builds the same image with an engine.
//
//	go run ./scripts/image --binary dist/sandbankd-v1.0.0-linux-amd64 --version v1.0.0 --out dist/sandbankd-image.tar
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/google/go-containerregistry/pkg/name"
)

// What the image holds and how it runs.
const (
	// Repository is the name the image is tagged with, by version and as
	// latest.
	Repository = "sandbank/sandbankd"
	// UID is the user and group id sandbankd runs as, owner of /data.
	UID = 65532
	// Binary is where sandbankd is in the image.
	Binary = "/usr/local/bin/sandbankd"
	// CAFile is where the CA certificates are, where Go looks first.
	CAFile = "/etc/ssl/certs/ca-certificates.crt"
)

// Entrypoint runs the bank on every address of the container, over a data
// file in /data.
var Entrypoint = []string{Binary, "--data", "/data/sandbank.db", "--addr", "0.0.0.0:7380", "--tls-addr", "0.0.0.0:7443"}

// Options say what goes into the image.
type Options struct {
	Binary  []byte    // sandbankd, static, for linux/amd64
	CA      []byte    // the CA certificates, PEM
	Version string    // the version sandbankd was built as
	Created time.Time // the time of the image and of its files
}

func main() {
	binary := flag.String("binary", "", "sandbankd built for linux/amd64 with CGO_ENABLED=0 (required)")
	version := flag.String("version", "", "the version the binary was built as (required)")
	created := flag.String("created", "", "the image's time, RFC 3339, e.g. the commit's (default: now)")
	ca := flag.String("ca", CAFile, "the CA certificates (PEM) to put in the image")
	out := flag.String("out", "dist/sandbankd-image.tar", "the tarball to write")
	flag.Parse()
	if err := run(*binary, *version, *created, *ca, *out); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(binary, version, created, ca, out string) error {
	if binary == "" || version == "" || flag.NArg() > 0 {
		return errors.New("give --binary and --version, and no arguments; see -h")
	}
	opts := Options{Version: version, Created: time.Now().UTC().Truncate(time.Second)}
	if created != "" {
		t, err := time.Parse(time.RFC3339, created)
		if err != nil {
			return fmt.Errorf("--created must be RFC 3339, like 2026-01-31T12:00:00Z: %w", err)
		}
		opts.Created = t.UTC()
	}
	var err error
	if opts.Binary, err = os.ReadFile(binary); err != nil {
		return fmt.Errorf("read the binary (make dist builds it): %w", err)
	}
	if opts.CA, err = os.ReadFile(ca); err != nil {
		return fmt.Errorf("read the CA certificates (install ca-certificates, or give --ca): %w", err)
	}
	img, err := Build(opts)
	if err != nil {
		return err
	}
	if err := Write(out, img, opts.Version); err != nil {
		return err
	}
	fmt.Printf("%s: %s:%s and :latest\n", out, Repository, Tag(opts.Version))
	return nil
}

// Build makes the image.
func Build(o Options) (v1.Image, error) {
	if !bytes.HasPrefix(o.Binary, []byte("\x7fELF")) {
		return nil, errors.New("the binary is not an ELF file; build sandbankd with GOOS=linux GOARCH=amd64 CGO_ENABLED=0")
	}
	if !bytes.Contains(o.CA, []byte("-----BEGIN CERTIFICATE-----")) {
		return nil, errors.New("the CA file holds no PEM certificate")
	}
	root, err := rootFS(o)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(root)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	created := v1.Time{Time: o.Created}
	img, err := mutate.Append(base, mutate.Addendum{Layer: layer, History: v1.History{
		Created: created, CreatedBy: "scripts/image: sandbankd, CA certificates, user sandbank (" + fmt.Sprint(UID) + "), /data",
	}})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Created = "linux", "amd64", created
	cfg.Config = v1.Config{
		Entrypoint:   Entrypoint,
		User:         fmt.Sprintf("%d:%d", UID, UID),
		WorkingDir:   "/data",
		Env:          []string{"PATH=/usr/local/bin", "HOME=/data"},
		ExposedPorts: map[string]struct{}{"7380/tcp": {}, "7443/tcp": {}},
		StopSignal:   "SIGTERM",
		Healthcheck: &v1.HealthConfig{
			Test:     []string{"CMD", Binary, "health"},
			Interval: 10 * time.Second, Timeout: 5 * time.Second, StartPeriod: 5 * time.Second, Retries: 3,
		},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "Sandbank",
			"org.opencontainers.image.description": "A Norwegian bank's PSD2 interface (Berlin Group NextGenPSD2 1.3) for tests: sandbankd, the headless bank. Health: GET /healthz on port 7380.",
			"org.opencontainers.image.version":     o.Version,
			"org.opencontainers.image.created":     o.Created.Format(time.RFC3339),
		},
	}
	return mutate.ConfigFile(img, cfg)
}

// rootFS is the layer: the folders, /etc/passwd and /etc/group, the CA
// certificates, sandbankd, and /data owned by the user.
func rootFS(o Options) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(h *tar.Header, body []byte) error {
		h.ModTime, h.Format = o.Created, tar.FormatPAX
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(body))
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err := tw.Write(body)
		return err
	}
	dir := func(name string, mode int64, id int) *tar.Header {
		return &tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, Uid: id, Gid: id}
	}
	file := func(name string, mode int64) *tar.Header {
		return &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode}
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nsandbank:x:%d:%d:Sandbank:/data:/sbin/nologin\n", UID, UID)
	group := fmt.Sprintf("root:x:0:\nsandbank:x:%d:\n", UID)
	for _, e := range []struct {
		h    *tar.Header
		body []byte
	}{
		{dir("etc/", 0o755, 0), nil},
		{file("etc/passwd", 0o644), []byte(passwd)},
		{file("etc/group", 0o644), []byte(group)},
		{dir("etc/ssl/", 0o755, 0), nil},
		{dir("etc/ssl/certs/", 0o755, 0), nil},
		{file(CAFile[1:], 0o644), o.CA},
		{dir("usr/", 0o755, 0), nil},
		{dir("usr/local/", 0o755, 0), nil},
		{dir("usr/local/bin/", 0o755, 0), nil},
		{file(Binary[1:], 0o755), o.Binary},
		{dir("data/", 0o700, UID), nil},
		{dir("tmp/", 0o1777, 0), nil},
	} {
		if err := add(e.h, e.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// badTagChars are the characters a version may have and an image tag may
// not.
var badTagChars = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// Tag is the image tag of a version: its characters that a tag may not
// have become "-".
func Tag(version string) string {
	t := badTagChars.ReplaceAllString(version, "-")
	if len(t) > 128 {
		t = t[:128]
	}
	return t
}

// Write writes the image as a tarball that docker load and podman load
// read, tagged Repository:Tag(version) and Repository:latest.
func Write(path string, img v1.Image, version string) error {
	refs := map[name.Reference]v1.Image{}
	for _, tag := range []string{Tag(version), "latest"} {
		t, err := name.NewTag(Repository + ":" + tag)
		if err != nil {
			return fmt.Errorf("tag %q: %w", tag, err)
		}
		refs[t] = img
	}
	return tarball.MultiRefWriteToFile(path, refs)
}
