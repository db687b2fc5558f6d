package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
)

// image is what a container engine reads from an image tarball: the
// manifest.json of docker load, the config and the layers' files. It is
// read with archive/tar and encoding/json only, not with the library that
// wrote it.
type image struct {
	Tags   []string
	Config struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
		Created      time.Time
		Config       struct {
			Entrypoint   []string
			Cmd          []string
			User         string
			WorkingDir   string
			Env          []string
			ExposedPorts map[string]struct{}
			Labels       map[string]string
			Healthcheck  struct{ Test []string }
		} `json:"config"`
		RootFS struct {
			Type    string   `json:"type"`
			DiffIDs []string `json:"diff_ids"`
		} `json:"rootfs"`
	}
	// Files are the layer's entries by path, and their contents.
	Files    map[string]*tar.Header
	Contents map[string][]byte
}

// readImage reads an image tarball as docker load would, checking that
// every layer is the one the config names.
func readImage(t *testing.T, path string) *image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	entries := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		entries[h.Name] = body
	}
	var manifest []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	if err := json.Unmarshal(entries["manifest.json"], &manifest); err != nil || len(manifest) != 1 {
		t.Fatalf("manifest.json: %v %s", err, entries["manifest.json"])
	}
	m := manifest[0]
	img := &image{Tags: m.RepoTags, Files: map[string]*tar.Header{}, Contents: map[string][]byte{}}
	cfg := entries[m.Config]
	if sum := sha256.Sum256(cfg); m.Config != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Fatalf("the config %s has the digest %x", m.Config, sum)
	}
	if err := json.Unmarshal(cfg, &img.Config); err != nil {
		t.Fatalf("config: %v", err)
	}
	if len(m.Layers) != 1 || len(img.Config.RootFS.DiffIDs) != 1 || img.Config.RootFS.Type != "layers" {
		t.Fatalf("layers %v, rootfs %+v; want one", m.Layers, img.Config.RootFS)
	}
	zr, err := gzip.NewReader(bytes.NewReader(entries[m.Layers[0]]))
	if err != nil {
		t.Fatalf("layer %s: %v", m.Layers[0], err)
	}
	layer, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(layer); img.Config.RootFS.DiffIDs[0] != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Fatalf("the layer is not the config's diff_id %s", img.Config.RootFS.DiffIDs[0])
	}
	lr := tar.NewReader(bytes.NewReader(layer))
	for {
		h, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if img.Files[h.Name] != nil {
			t.Fatalf("%s twice in the layer", h.Name)
		}
		img.Files[h.Name] = h
		if img.Contents[h.Name], err = io.ReadAll(lr); err != nil {
			t.Fatal(err)
		}
	}
	return img
}

// checkImage checks what every build of the image must be: its tags,
// how it runs, its user and its files.
func checkImage(t *testing.T, img *image, version string) {
	t.Helper()
	want := []string{"sandbank/sandbankd:" + Tag(version), "sandbank/sandbankd:latest"}
	if !slices.Equal(slices.Sorted(slices.Values(img.Tags)), slices.Sorted(slices.Values(want))) {
		t.Errorf("tags %v, want %v", img.Tags, want)
	}
	c := img.Config
	if c.OS != "linux" || c.Architecture != "amd64" || c.Created.IsZero() {
		t.Errorf("platform %s/%s, created %s", c.OS, c.Architecture, c.Created)
	}
	wantEntry := []string{"/usr/local/bin/sandbankd", "--data", "/data/sandbank.db", "--addr", "0.0.0.0:7380", "--tls-addr", "0.0.0.0:7443"}
	if !slices.Equal(c.Config.Entrypoint, wantEntry) || len(c.Config.Cmd) != 0 {
		t.Errorf("entrypoint %q cmd %q", c.Config.Entrypoint, c.Config.Cmd)
	}
	if c.Config.User != "65532:65532" || c.Config.WorkingDir != "/data" {
		t.Errorf("user %q, working dir %q", c.Config.User, c.Config.WorkingDir)
	}
	if _, ok := c.Config.ExposedPorts["7380/tcp"]; !ok || len(c.Config.ExposedPorts) != 2 {
		t.Errorf("exposed ports %v", c.Config.ExposedPorts)
	}
	if _, ok := c.Config.ExposedPorts["7443/tcp"]; !ok {
		t.Errorf("exposed ports %v", c.Config.ExposedPorts)
	}
	if c.Config.Labels["org.opencontainers.image.version"] != version || c.Config.Labels["org.opencontainers.image.title"] != "Sandbank" {
		t.Errorf("labels %v", c.Config.Labels)
	}
	if !slices.Equal(c.Config.Healthcheck.Test, []string{"CMD", "/usr/local/bin/sandbankd", "health"}) {
		t.Errorf("health check %q", c.Config.Healthcheck.Test)
	}
	bin := img.Files["usr/local/bin/sandbankd"]
	if bin == nil || bin.Typeflag != tar.TypeReg || bin.Mode&0o777 != 0o755 || bin.Uid != 0 {
		t.Fatalf("sandbankd in the layer: %+v", bin)
	}
	data := img.Files["data/"]
	if data == nil || data.Typeflag != tar.TypeDir || data.Uid != 65532 || data.Gid != 65532 || data.Mode&0o777 != 0o700 {
		t.Errorf("/data: %+v", data)
	}
	if !strings.Contains(string(img.Contents["etc/passwd"]), "\nsandbank:x:65532:65532:") || !strings.Contains(string(img.Contents["etc/group"]), "\nsandbank:x:65532:") {
		t.Errorf("passwd %q group %q", img.Contents["etc/passwd"], img.Contents["etc/group"])
	}
	if !x509.NewCertPool().AppendCertsFromPEM(img.Contents["etc/ssl/certs/ca-certificates.crt"]) {
		t.Error("the CA certificates hold no certificate")
	}
	for name := range img.Files {
		for p := filepath.Dir(strings.TrimSuffix(name, "/")); p != "."; p = filepath.Dir(p) {
			if img.Files[p+"/"] == nil {
				t.Errorf("%s comes before or without its folder %s", name, p)
			}
		}
	}
}

// The layout of the image, built here from a stand-in binary and CA file.
func TestBuild_Layout(t *testing.T) {
	ca, err := os.ReadFile("testdata/ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	img, err := Build(Options{Binary: []byte("\x7fELF stand-in"), CA: ca, Version: "v1.2.3+local", Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "image.tar")
	if err := Write(path, img, "v1.2.3+local"); err != nil {
		t.Fatal(err)
	}
	got := readImage(t, path)
	checkImage(t, got, "v1.2.3+local")
	if !slices.Contains(got.Tags, "sandbank/sandbankd:v1.2.3-local") {
		t.Errorf("tags %v: a tag may not hold +", got.Tags)
	}
	if string(got.Contents["usr/local/bin/sandbankd"]) != "\x7fELF stand-in" || !got.Config.Created.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("binary %q created %s", got.Contents["usr/local/bin/sandbankd"], got.Config.Created)
	}
	for _, bad := range []Options{{Binary: []byte("MZ"), CA: ca}, {Binary: []byte("\x7fELF"), CA: []byte("no pem")}} {
		if _, err := Build(bad); err == nil {
			t.Errorf("built from %q and %q", bad.Binary, bad.CA)
		}
	}
}

// The image make image built (SANDBANK_IMAGE names its tarball): its
// layout, and its sandbankd, run from the layer as the entrypoint says on
// free loopback ports, serves and shows its version.
func TestImage_Built(t *testing.T) {
	path := os.Getenv("SANDBANK_IMAGE")
	if path == "" {
		t.Skip("SANDBANK_IMAGE is not set: make image builds dist/sandbankd-image.tar; .ci/run sets it")
	}
	img := readImage(t, path)
	version := img.Config.Config.Labels["org.opencontainers.image.version"]
	if version == "" {
		t.Fatal("no version label")
	}
	checkImage(t, img, version)

	dir := t.TempDir()
	bin := filepath.Join(dir, "sandbankd")
	if err := os.WriteFile(bin, img.Contents["usr/local/bin/sandbankd"], 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || string(out) != "sandbankd "+version+"\n" {
		t.Fatalf("sandbankd --version: %q %v", out, err)
	}
	// The entrypoint's flags, then free loopback ports and a temp data
	// file in place of the container's.
	args := append(slices.Clone(img.Config.Config.Entrypoint[1:]), "--data", filepath.Join(dir, "data", "sandbank.db"), "--addr", "127.0.0.1:0", "--tls-addr", "127.0.0.1:0")
	d := apptest.StartProcess(t, bin, nil, args...)
	if len(d.URLs) != 2 {
		t.Fatalf("URLs %v", d.URLs)
	}
	resp, err := http.Get(d.URLs[0] + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /healthz: %v %v", resp, err)
	}
	_ = resp.Body.Close()
	resp, err = http.Get(d.URLs[0] + "/")
	if err != nil {
		t.Fatal(err)
	}
	var landing struct{ Version string }
	err = json.NewDecoder(resp.Body).Decode(&landing)
	_ = resp.Body.Close()
	if err != nil || landing.Version != version {
		t.Fatalf("GET / version %q, %v; want %q", landing.Version, err, version)
	}
	// The image's health check, pointed at this port.
	hc := img.Config.Config.Healthcheck.Test
	if out, err := exec.Command(bin, append(slices.Clone(hc[2:]), "--url", d.URLs[0])...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", strings.Join(hc[1:], " "), err, out)
	}
	if err := d.Stop(t); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, d.Stderr())
	}
	if !strings.Contains(d.Stdout(), "the data file is closed") {
		t.Fatalf("no clean stop:\n%s", d.Stdout())
	}
}

// The Dockerfile builds the same image: its entrypoint, user, ports,
// health check and /etc/passwd are the ones above.
func TestDockerfile_MatchesImage(t *testing.T) {
	data, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	instruction := func(name string) string {
		t.Helper()
		for _, line := range strings.Split(text, "\n") {
			if rest, ok := strings.CutPrefix(line, name+" "); ok {
				return rest
			}
		}
		t.Fatalf("no %s in the Dockerfile", name)
		return ""
	}
	var entry []string
	if err := json.Unmarshal([]byte(instruction("ENTRYPOINT")), &entry); err != nil || !slices.Equal(entry, Entrypoint) {
		t.Errorf("ENTRYPOINT %q, the image's %q (%v)", entry, Entrypoint, err)
	}
	if user := instruction("USER"); user != fmt.Sprintf("%d:%d", UID, UID) {
		t.Errorf("USER %s", user)
	}
	if ports := strings.Fields(instruction("EXPOSE")); !slices.Equal(ports, []string{"7380/tcp", "7443/tcp"}) {
		t.Errorf("EXPOSE %v", ports)
	}
	_, cmd, _ := strings.Cut(instruction("HEALTHCHECK"), " CMD ")
	var hc []string
	if err := json.Unmarshal([]byte(cmd), &hc); err != nil || !slices.Equal(hc, []string{Binary, "health"}) {
		t.Errorf("HEALTHCHECK CMD %q (%v)", hc, err)
	}
	for _, want := range []string{fmt.Sprintf(`sandbank:x:%d:%d:Sandbank:/data:`, UID, UID), "--chown=65532:65532 /rootfs/data /data", "/rootfs" + CAFile, "FROM scratch", "CGO_ENABLED=0 GOOS=linux GOARCH=amd64"} {
		if !strings.Contains(text, want) {
			t.Errorf("the Dockerfile lacks %q", want)
		}
	}
}
