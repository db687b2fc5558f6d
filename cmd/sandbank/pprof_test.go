package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sandbank/app/apptest"
)

// The window's binary takes --pprof as sandbankd does: the profiler on a
// loopback listener of its own, any other address refused before anything
// is created.
func TestApp_PprofOnLoopbackOnly(t *testing.T) {
	home := t.TempDir()
	p := apptest.StartProcess(t, binary, []string{"DISPLAY=", "HOME=" + home, "LANG=en_US.UTF-8"},
		"--headless", "--data", filepath.Join(home, "sandbank.db"), "--addr", "127.0.0.1:0", "--tls-addr", "", "--pprof", "127.0.0.1:0")
	var base string
	for _, line := range strings.Split(p.Stdout(), "\n") {
		if u, ok := strings.CutPrefix(strings.TrimSpace(line), "the Go profiler (--pprof): "); ok {
			base = u
		}
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("no profiler URL in the banner:\n%s", p.Stdout())
	}
	resp, err := http.Get(base + "heap?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "heap profile") {
		t.Fatalf("heap: %d %.300s", resp.StatusCode, body)
	}
	if err := p.Stop(t); err != nil {
		t.Fatalf("exit: %v\n%s", err, p.Stderr())
	}

	data := filepath.Join(t.TempDir(), "new", "sandbank.db")
	cmd := exec.Command(binary, "--headless", "--data", data, "--addr", "127.0.0.1:0", "--tls-addr", "", "--pprof", "0.0.0.0:6060")
	cmd.Env = append(os.Environ(), "LANG=en_US.UTF-8")
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "loopback only") {
		t.Fatalf("--pprof 0.0.0.0:6060: exit %d\n%s", cmd.ProcessState.ExitCode(), out)
	}
	if _, err := os.Stat(filepath.Dir(data)); !os.IsNotExist(err) {
		t.Fatalf("a refused start created %s", filepath.Dir(data))
	}
}
