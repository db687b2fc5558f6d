package apptest

import (
	"bufio"
	"bytes"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Process is a Sandbank binary (sandbankd, or the desktop app) running in
// a test.
type Process struct {
	Cmd  *exec.Cmd
	URLs []string // the base URLs it printed, one per listener

	mu     sync.Mutex
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan error
}

// startTimeout bounds how long a binary may take to print its URLs: it is
// generous, for a race-built binary on 2 busy cores can take a minute.
const startTimeout = 2 * time.Minute

// StartProcess runs a Sandbank binary with args and extra environment,
// waits until it has printed the URLs it serves, and stops it when the
// test ends.
func StartProcess(tb testing.TB, binary string, env []string, args ...string) *Process {
	tb.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(cmd.Environ(), env...)
	p := &Process{Cmd: cmd, done: make(chan error, 1)}
	pr, pw := io.Pipe()
	// Stdout holds a line before the reader below sees it, so that what
	// StartProcess returns after has it.
	cmd.Stdout = io.MultiWriter(lockedWriter{&p.mu, &p.stdout}, pw)
	cmd.Stderr = lockedWriter{&p.mu, &p.stderr}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() { p.done <- cmd.Wait(); _ = pw.Close() }()
	ready := make(chan []string, 1)
	go func() {
		var urls []string
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if u, ok := strings.CutSuffix(line, "/v1"); ok {
				urls = append(urls, u)
			}
			if strings.HasSuffix(line, "/healthz") {
				ready <- urls
			}
		}
		close(ready)
	}()
	select {
	case urls, ok := <-ready:
		if !ok {
			tb.Fatalf("%s exited before it served:\n%s\n%s", binary, p.Stdout(), p.Stderr())
		}
		p.URLs = urls
	case <-time.After(startTimeout):
		_ = cmd.Process.Kill()
		tb.Fatalf("%s printed no URLs in %v:\n%s\n%s", binary, startTimeout, p.Stdout(), p.Stderr())
	}
	tb.Cleanup(func() { _ = p.Stop(tb) })
	return p
}

// Stop sends SIGTERM and waits for the exit (at most 15 s); it returns the
// exit error. Stopping a stopped process returns nil.
func (p *Process) Stop(tb testing.TB) error {
	tb.Helper()
	if p.Cmd.ProcessState != nil {
		return nil
	}
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		return err
	case <-time.After(15 * time.Second):
		_ = p.Cmd.Process.Kill()
		tb.Fatalf("the process did not stop within 15 s of SIGTERM")
	}
	return nil
}

// Kill sends SIGKILL, as a crash or a power cut would end the process, and
// waits for the exit (at most 15 s).
func (p *Process) Kill(tb testing.TB) {
	tb.Helper()
	if err := p.Cmd.Process.Kill(); err != nil {
		tb.Fatalf("SIGKILL: %v", err)
	}
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		tb.Fatalf("the process did not end within 15 s of SIGKILL")
	}
}

// Stdout returns what the process wrote to standard output so far.
func (p *Process) Stdout() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdout.String()
}

// Stderr returns what the process wrote to standard error so far.
func (p *Process) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
