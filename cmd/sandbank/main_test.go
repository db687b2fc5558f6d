package main

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// The tests in this file run the real desktop app, built with cgo. Those
// that open its window need the X display named by DISPLAY
// (scripts/with-display starts Xvfb); without one they are skipped, and
// the tests of what the app does without a display still run.
//
// The virtual screen is larger than the window so that the pointer, which
// starts in the middle of the screen, is not over the window: a cursor
// event while the window is being created can crash Fyne
// (fyne-io/fyne#5981).

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sandbank-app-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "sandbank")
	args := append(append([]string{"build"}, raceFlag...), "-o", binary, ".")
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build cmd/sandbank (it needs gcc and the X11/GL headers: scripts/install-deps desktop): %v\n%s", err, out)
		os.Exit(1)
	}
	if os.Getenv("DISPLAY") == "" {
		fmt.Println("DISPLAY is not set: the tests that open the window are skipped (make test starts Xvfb when it is installed)")
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// needDisplay skips a test that opens the window when there is no display.
func needDisplay(t testing.TB) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no X display: set DISPLAY (e.g. Xvfb :99 & DISPLAY=:99), or run under scripts/with-display")
	}
}

// startApp runs the desktop app on a data file and waits for the URL it
// prints.
func startApp(t testing.TB, data string) *apptest.Process {
	t.Helper()
	return startAppOn(t, data, "127.0.0.1:0", "")
}

// startAppOn runs the desktop app on a data file and listen addresses and
// waits for the URLs it prints.
func startAppOn(t testing.TB, data, addr, tlsAddr string) *apptest.Process {
	t.Helper()
	needDisplay(t)
	if out, _ := exec.Command("xwininfo", "-name", "Sandbank").CombinedOutput(); bytes.Contains(out, []byte("IsViewable")) {
		t.Fatal("another Sandbank window is on the display; close it first")
	}
	return apptest.StartProcess(t, binary, []string{"LANG=en_US.UTF-8", "HOME=" + t.TempDir()}, "--data", data, "--addr", addr, "--tls-addr", tlsAddr)
}

// waitForWindow waits until a viewable window titled Sandbank is on the
// display and returns how long that took from since.
func waitForWindow(t testing.TB, since time.Time, limit time.Duration) time.Duration {
	t.Helper()
	for time.Since(since) < limit {
		out, _ := exec.Command("xwininfo", "-name", "Sandbank").CombinedOutput()
		if bytes.Contains(out, []byte("Map State: IsViewable")) {
			return time.Since(since)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no Sandbank window within %s", limit)
	return 0
}

// signedGet sends a GET signed with a self-signed certificate (trust mode
// any accepts it).
func signedGet(t testing.TB, base, path string) (int, []byte) {
	t.Helper()
	key := apptest.Key(t, 0)
	cert, err := pki.SelfSigned(key, "Window Test TPP", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := httpsig.NewSigner(cert, key)
	req, _ := http.NewRequest("GET", base+path, nil)
	req.Header.Set("X-Request-ID", "window-test")
	if err := signer.SignRequest(req, nil); err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

// screenshot takes a PNG of the whole display.
func screenshot(t testing.TB, path string) image.Image {
	t.Helper()
	cmd := exec.Command("sh", "-c", "xwd -root -silent | convert xwd:- png:"+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("screenshot: %v %s (install x11-apps and imagemagick)", err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// colours counts the distinct colours of an image, sampling every other
// pixel.
func colours(img image.Image) int {
	seen := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[(r>>8)<<16|(g>>8)<<8|bl>>8] = true
		}
	}
	return len(seen)
}

func TestApp_WindowServesSignedRequests(t *testing.T) {
	data := filepath.Join(t.TempDir(), "sandbank.db")
	start := time.Now()
	w := startApp(t, data)
	took := waitForWindow(t, start, 2*time.Minute)
	t.Logf("window up %s after exec (new data file)", took.Round(time.Millisecond))
	status, body := signedGet(t, w.URLs[0], "/v1/sandbox/customers")
	if status != 200 || !bytes.Contains(body, []byte("Test Testperson 1")) {
		t.Fatalf("a signed request while the window is up: %d %s", status, body)
	}
	time.Sleep(500 * time.Millisecond) // let the first frames draw
	img := screenshot(t, filepath.Join(t.TempDir(), "window.png"))
	if n := colours(img); n < 50 {
		t.Fatalf("the screenshot is blank: %d colours", n)
	}
	if err := w.Stop(t); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, w.Stderr())
	}
	if !strings.Contains(w.Stdout(), "stopped") {
		t.Fatalf("stdout %s", w.Stdout())
	}
	// The data file is closed: a second run opens it.
	w = startApp(t, data)
	if status, _ := signedGet(t, w.URLs[0], "/healthz"); status != 200 {
		t.Fatalf("second run: %d", status)
	}
}

func TestApp_SecondInstanceIsRefused(t *testing.T) {
	data := filepath.Join(t.TempDir(), "sandbank.db")
	startApp(t, data)
	cmd := exec.Command(binary, "--headless", "--data", data, "--addr", "127.0.0.1:0", "--tls-addr", "")
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 3 || !strings.Contains(string(out), "in use") {
		t.Fatalf("second instance: %v %s", err, out)
	}
}

// BenchmarkWindowStartup measures exec to a viewable window on a data file
// holding 1,000,000 transactions.
func BenchmarkWindowStartup(b *testing.B) {
	needDisplay(b)
	data := apptest.BigFixture(b, 1_000_000)
	b.Run("exec-to-window-1M", func(b *testing.B) {
		for b.Loop() {
			start := time.Now()
			w := startApp(b, data)
			waitForWindow(b, start, 20*time.Second)
			b.StopTimer()
			if err := w.Stop(b); err != nil {
				b.Fatalf("%v\n%s", err, w.Stderr())
			}
			b.StartTimer()
		}
	})
}
