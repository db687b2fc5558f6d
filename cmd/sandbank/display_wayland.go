//go:build (linux || freebsd || openbsd || netbsd || dragonfly) && wayland

package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// checkDisplay reports why the window cannot open, before the app touches
// anything: the Wayland compositor in WAYLAND_DISPLAY (default wayland-0
// in XDG_RUNTIME_DIR) does not answer.
func checkDisplay() error {
	name := os.Getenv("WAYLAND_DISPLAY")
	if name == "" {
		name = "wayland-0"
	}
	path := name
	if !filepath.IsAbs(path) {
		dir := os.Getenv("XDG_RUNTIME_DIR")
		if dir == "" {
			return fmt.Errorf("%w: XDG_RUNTIME_DIR is not set, so the Wayland display %s cannot be found", errNoDisplay, name)
		}
		path = filepath.Join(dir, name)
	}
	if err := dialAny([]netAddr{{"unix", path}}); err != nil {
		return fmt.Errorf("%w: the Wayland display %s does not answer (%v)", errNoDisplay, name, err)
	}
	return nil
}
