package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// profilerURL is the URL of the Go profiler a running sandbankd printed
// in its banner.
func profilerURL(t *testing.T, stdout string) string {
	t.Helper()
	for _, line := range strings.Split(stdout, "\n") {
		if u, ok := strings.CutPrefix(strings.TrimSpace(line), "the Go profiler (--pprof): "); ok {
			return u
		}
	}
	t.Fatalf("no profiler line in the banner:\n%s", stdout)
	return ""
}

// getProfile fetches a profile and checks it is one: gzip-compressed
// protocol buffers, as go tool pprof reads them.
func getProfile(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("GET %s: not a gzip-compressed profile: %v (%d bytes)", url, err, len(body))
	}
	raw, err := io.ReadAll(zr)
	if err != nil || len(raw) == 0 {
		t.Fatalf("GET %s: the profile does not decompress: %v", url, err)
	}
	return raw
}

func TestServe_PprofServesTheProfilerOnItsOwnLoopbackListener(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "sandbank.db")
	d := startDaemon(t, data, "--pprof", "127.0.0.1:0", "--tls-addr", "")
	base := profilerURL(t, d.Stdout())
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/debug/pprof/") {
		t.Fatalf("profiler URL %q", base)
	}
	if strings.HasPrefix(base, d.URLs[0]+"/") {
		t.Fatalf("the profiler shares the bank's listener: %q and %q", base, d.URLs[0])
	}

	// The index names the profiles; a heap and a CPU profile of the
	// running bank, after it answered a signed request.
	resp, err := http.Get(base)
	if err != nil {
		t.Fatal(err)
	}
	index, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(index, []byte("heap")) || !bytes.Contains(index, []byte("profile")) {
		t.Fatalf("index: %d %s", resp.StatusCode, index)
	}
	c := newAPIClient(d.URLs[0], newSigner(t, dir, data, "Profiled TPP"))
	c.must(t, 200, "GET", "/v1/sandbox/customers", nil, nil)
	getProfile(t, base+"heap")
	getProfile(t, base+"profile?seconds=1")
	resp, err = http.Get(base + "goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	goroutines, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if !bytes.Contains(goroutines, []byte("net/http.(*Server).Serve")) {
		t.Fatalf("goroutine dump holds no server: %.500s", goroutines)
	}

	// The bank's own listener does not serve the profiler.
	resp, err = http.Get(d.URLs[0] + "/debug/pprof/heap")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("the bank's listener answered /debug/pprof/heap with %d", resp.StatusCode)
	}

	// A web page that rebound its DNS name to 127.0.0.1 comes with its
	// own name as Host: refused.
	req, _ := http.NewRequest("GET", base+"heap", nil)
	req.Host = "attacker.example"
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 403 || !strings.Contains(string(body), "loopback") {
		t.Fatalf("Host attacker.example: %d %s", resp.StatusCode, body)
	}

	// The profiler stops with the bank.
	if err := d.Stop(t); err != nil {
		t.Fatalf("stop: %v\n%s", err, d.Stderr())
	}
	host := strings.TrimSuffix(strings.TrimPrefix(base, "http://"), "/debug/pprof/")
	if conn, err := net.Dial("tcp", host); err == nil {
		_ = conn.Close()
		t.Fatalf("the profiler still listens on %s after the bank stopped", host)
	}
}

func TestServe_PprofRefusesEveryAddressButLoopback(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:6060", ":6060", "[::]:6060", "192.0.2.1:6060", "example.com:6060", "127.0.0.1", "localhost", "127.0.0.1:x"} {
		t.Run(addr, func(t *testing.T) {
			t.Parallel()
			data := filepath.Join(t.TempDir(), "new", "sandbank.db")
			stdout, stderr, code := sandbankd(t, "", "--data", data, "--addr", "127.0.0.1:0", "--tls-addr", "", "--pprof", addr)
			if code != 2 || !strings.Contains(stderr, "--pprof") || !strings.Contains(stderr, "loopback") || !strings.Contains(stderr, "127.0.0.1:") {
				t.Fatalf("--pprof %s: exit %d\n%s\n%s", addr, code, stdout, stderr)
			}
			if _, err := os.Stat(filepath.Dir(data)); !os.IsNotExist(err) {
				t.Fatalf("--pprof %s created %s: %v", addr, filepath.Dir(data), err)
			}
		})
	}
}

func TestServe_PprofOnABusyPortExits4AndLeavesNothing(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	data := filepath.Join(t.TempDir(), "new", "sandbank.db")
	stdout, stderr, code := sandbankd(t, "", "--data", data, "--addr", "127.0.0.1:0", "--tls-addr", "", "--pprof", ln.Addr().String())
	if code != 4 || !strings.Contains(stderr, "profiler listener did not start on "+ln.Addr().String()) || !strings.Contains(stderr, "(--pprof)") {
		t.Fatalf("busy --pprof: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Dir(data)); !os.IsNotExist(err) {
		t.Fatalf("a start that failed left %s: %v", filepath.Dir(data), err)
	}
}
