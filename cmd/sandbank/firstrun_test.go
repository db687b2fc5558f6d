package main

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
)

// bareEnv is the test's environment without a display, a home, or a
// locale, plus extra.
func bareEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "DISPLAY", "WAYLAND_DISPLAY", "HOME", "XDG_CONFIG_HOME", "LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE":
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// missingX11Display returns a display number with no X server on this
// machine.
func missingX11Display(t *testing.T) int {
	t.Helper()
	for n := 300; n < 400; n++ {
		path := fmt.Sprintf("/tmp/.X11-unix/X%d", n)
		if _, err := os.Stat(path); err == nil {
			continue
		}
		if c, err := net.Dial("unix", "@"+path); err == nil {
			_ = c.Close()
			continue
		}
		return n
	}
	t.Fatal("every display from :300 to :399 is taken")
	return 0
}

// closedTCPDisplay returns a DISPLAY host:number whose TCP port (6000 +
// number) nothing listens on.
func closedTCPDisplay(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	if port <= 6000 {
		t.Skipf("the kernel gave port %d, below the X11 ports", port)
	}
	return fmt.Sprintf("127.0.0.1:%d", port-6000)
}

// Without a display, the app says in one line what to run instead and
// exits before it creates the data file or binds a listener.
func TestApp_NoDisplayExitsBeforeTouchingAnything(t *testing.T) {
	// Holding the HTTP address shows whether the app tries to listen: it
	// would report the busy address on standard error.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busy.Close() }()
	for name, display := range map[string]string{
		"unset":          "",
		"no X server":    fmt.Sprintf(":%d", missingX11Display(t)),
		"a closed port":  closedTCPDisplay(t),
		"not a display":  "no-colon-here",
		"only a Wayland": "",
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			env := bareEnv("HOME="+home, "LANG=C.UTF-8")
			if display != "" {
				env = append(env, "DISPLAY="+display)
			}
			if name == "only a Wayland" {
				env = append(env, "WAYLAND_DISPLAY=wayland-0")
			}
			cmd := exec.Command(binary, "--addr", busy.Addr().String(), "--tls-addr", "127.0.0.1:0")
			cmd.Env, cmd.Dir = env, home
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("exit %v, want 1\n%s%s", err, stdout.String(), stderr.String())
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.HasSuffix(msg, "\n") {
				t.Fatalf("want one line on standard error, got:\n%s", msg)
			}
			for _, want := range []string{"no display", "make serve", "bin/sandbank --headless", "scripts/with-display make run"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the message does not name %q: %s", want, msg)
				}
			}
			if display != "" && !strings.Contains(msg, display) {
				t.Errorf("the message does not name the display %s: %s", display, msg)
			}
			if stdout.Len() != 0 {
				t.Errorf("standard output: %q", stdout.String())
			}
			// Nothing written: no data file, no preferences.
			_ = filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
				if path != home {
					t.Errorf("the app wrote %s", path)
				}
				return err
			})
		})
	}
}

// Under the C locale (Debian's default C.UTF-8) the app starts without a
// complaint from Fyne about the locale.
func TestApp_HeadlessUnderTheCLocaleIsQuiet(t *testing.T) {
	for _, locale := range []string{"C.UTF-8", "POSIX.UTF-8", "C"} {
		t.Run(locale, func(t *testing.T) {
			home := t.TempDir()
			p := apptest.StartProcess(t, binary, []string{"DISPLAY=", "HOME=" + home, "LC_ALL=", "LC_MESSAGES=", "LANGUAGE=", "LANG=" + locale},
				"--headless", "--data", filepath.Join(home, "sandbank.db"), "--addr", "127.0.0.1:0", "--tls-addr", "")
			resp, err := http.Get(p.URLs[0] + "/healthz")
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("healthz: %d", resp.StatusCode)
			}
			if err := p.Stop(t); err != nil {
				t.Fatalf("exit: %v\n%s", err, p.Stderr())
			}
			if strings.Contains(p.Stderr(), "Fyne error") || strings.Contains(p.Stderr(), "locale") {
				t.Fatalf("LANG=%s: standard error complains:\n%s", locale, p.Stderr())
			}
		})
	}
}

// busyAddr holds a loopback address until the test ends.
func busyAddr(t *testing.T) string {
	t.Helper()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = busy.Close() })
	return busy.Addr().String()
}

// Without a window (--headless) the app serves every listener asked for
// or none: a busy HTTP address makes it exit 4, naming the address.
func TestApp_HeadlessBusyAddressExits4(t *testing.T) {
	busy := busyAddr(t)
	cmd := exec.Command(binary, "--headless", "--data", filepath.Join(t.TempDir(), "sandbank.db"), "--addr", busy, "--tls-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "LANG=en_US.UTF-8")
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 4 || !strings.Contains(string(out), "HTTP listener did not start on "+busy) || strings.Contains(string(out), "/healthz") {
		t.Fatalf("--headless with a busy HTTP address: exit %d\n%s", cmd.ProcessState.ExitCode(), out)
	}
}

// A busy HTTP address: the window opens, HTTPS serves, and the error names
// the HTTP address.
func TestApp_WindowBusyHTTPAddressStartsHTTPS(t *testing.T) {
	needDisplay(t)
	busy := busyAddr(t)
	w := startAppOn(t, filepath.Join(t.TempDir(), "sandbank.db"), busy, "127.0.0.1:0")
	if len(w.URLs) != 1 || !strings.HasPrefix(w.URLs[0], "https://localhost:") {
		t.Fatalf("URLs %v\n%s", w.URLs, w.Stderr())
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := client.Get(w.URLs[0] + "/healthz")
	if err != nil {
		t.Fatalf("HTTPS: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("HTTPS healthz: %d", resp.StatusCode)
	}
	for _, want := range []string{"HTTP listener did not start on " + busy, "address already in use", "--addr"} {
		if !strings.Contains(w.Stderr(), want) {
			t.Errorf("standard error does not say %q:\n%s", want, w.Stderr())
		}
	}
	waitForWindow(t, time.Now(), 2*time.Minute)
}
