//go:build (linux || freebsd || openbsd || netbsd || dragonfly) && !wayland

package main

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
)

func TestX11Addrs(t *testing.T) {
	for display, want := range map[string][]netAddr{
		":0":               {{"unix", "/tmp/.X11-unix/X0"}, {"unix", "@/tmp/.X11-unix/X0"}},
		":1.0":             {{"unix", "/tmp/.X11-unix/X1"}, {"unix", "@/tmp/.X11-unix/X1"}},
		"unix:12":          {{"unix", "/tmp/.X11-unix/X12"}, {"unix", "@/tmp/.X11-unix/X12"}},
		"unix/:3":          {{"unix", "/tmp/.X11-unix/X3"}, {"unix", "@/tmp/.X11-unix/X3"}},
		"localhost:10.0":   {{"tcp", "localhost:6010"}},
		"tcp/host.lan:2":   {{"tcp", "host.lan:6002"}},
		"tcp/:1":           {{"tcp", "localhost:6001"}},
		"[::1]:4":          {{"tcp", "[::1]:6004"}},
		"/tmp/launchd/x:0": {{"unix", "/tmp/launchd/x:0"}, {"unix", "/tmp/launchd/x"}},
	} {
		got, err := x11Addrs(display)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("x11Addrs(%q) = %v, %v; want %v", display, got, err, want)
		}
	}
	for display, want := range map[string]string{
		"nocolon":   "not [host]:number",
		":":         "not [host]:number",
		":x":        "not [host]:number",
		":-1":       "not [host]:number",
		"host::0":   "DECnet",
		"decnet/:0": "protocol",
	} {
		if _, err := x11Addrs(display); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("x11Addrs(%q): %v; want an error naming %q", display, err, want)
		}
	}
}

// A display whose server accepts a connection passes; one that does not,
// or none, fails with errNoDisplay.
func TestCheckDisplay(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if port <= 6000 {
		t.Skipf("the kernel gave port %d, below the X11 ports", port)
	}
	display := fmt.Sprintf("127.0.0.1:%d", port-6000)
	t.Setenv("DISPLAY", display)
	if err := checkDisplay(); err != nil {
		t.Fatalf("a listening display: %v", err)
	}
	_ = ln.Close()
	if err := checkDisplay(); !errors.Is(err, errNoDisplay) || !strings.Contains(err.Error(), display) {
		t.Fatalf("a closed display: %v", err)
	}
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	if err := checkDisplay(); !errors.Is(err, errNoDisplay) || !strings.Contains(err.Error(), "DISPLAY is not set") {
		t.Fatalf("no DISPLAY: %v", err)
	}
}
