package main

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A start that fails on a busy port exits 4 and leaves nothing it made: no
// new data file, nor its folders, the trust and scenarios folders, or the
// operator's certificate; a data file that was there stays.
func TestServe_FailedStartLeavesNothingBehind(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busy.Close() }()
	dir := t.TempDir()
	listing := func() []string {
		var paths []string
		_ = filepath.WalkDir(dir, func(path string, _ os.DirEntry, err error) error {
			paths = append(paths, path)
			return err
		})
		return paths
	}
	for _, addrs := range [][]string{
		{"--addr", busy.Addr().String(), "--tls-addr", ""},
		{"--addr", "127.0.0.1:0", "--tls-addr", busy.Addr().String()}, // the HTTP listener had started
	} {
		args := append([]string{"--data", filepath.Join(dir, "new", "folder", "sandbank.db"), "--watch-scenarios",
			"--operator-cert-out", filepath.Join(dir, "op", "out")}, addrs...)
		if _, stderr, code := sandbankd(t, "", args...); code != 4 {
			t.Fatalf("sandbankd %q: exit %d, want 4\n%s", args, code, stderr)
		}
		if left := listing(); len(left) != 1 {
			t.Fatalf("sandbankd %q left %q behind", args, left[1:])
		}
	}
	// A data file that was there stays, and so does all that was beside
	// it.
	data := filepath.Join(dir, "sandbank.db")
	if _, stderr, code := sandbankd(t, "", "cert", "ca", "--data", data); code != 0 {
		t.Fatalf("cert ca: exit %d\n%s", code, stderr)
	}
	before := listing()
	if _, stderr, code := sandbankd(t, "", "--data", data, "--addr", busy.Addr().String(), "--tls-addr", ""); code != 4 {
		t.Fatalf("a start on the existing data file: exit %d, want 4\n%s", code, stderr)
	}
	if after := listing(); !slices.Equal(after, before) {
		t.Fatalf("the failed start changed the folder: %q, was %q", after, before)
	}
	if out, stderr, code := sandbankd(t, "", "settings", "get", "trustMode", "--data", data); code != 0 || out != "any\n" {
		t.Fatalf("the data file after the failed start: exit %d %q\n%s", code, out, stderr)
	}
}
