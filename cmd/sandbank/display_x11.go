//go:build (linux || freebsd || openbsd || netbsd || dragonfly) && !wayland

package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// x11Addrs returns where the X server named by display (the DISPLAY
// variable, "[protocol/][host]:number[.screen]") listens, in the order
// Xlib tries them: a Unix socket for a local display, TCP port
// 6000+number on host otherwise.
func x11Addrs(display string) ([]netAddr, error) {
	if strings.HasPrefix(display, "/") { // a socket path, with or without ":number"
		addrs := []netAddr{{"unix", display}}
		if i := strings.LastIndex(display, ":"); i > 0 {
			addrs = append(addrs, netAddr{"unix", display[:i]})
		}
		return addrs, nil
	}
	protocol, rest, ok := strings.Cut(display, "/")
	if !ok {
		protocol, rest = "", display
	}
	i := strings.LastIndex(rest, ":")
	if i < 0 {
		return nil, fmt.Errorf("DISPLAY %q is not [host]:number, e.g. :0", display)
	}
	host, number := rest[:i], rest[i+1:]
	number, _, _ = strings.Cut(number, ".")
	n, err := strconv.Atoi(number)
	if err != nil || n < 0 || n > 59535 {
		return nil, fmt.Errorf("DISPLAY %q is not [host]:number, e.g. :0", display)
	}
	if strings.HasSuffix(host, ":") {
		return nil, fmt.Errorf("DISPLAY %q names a DECnet display, which this app cannot use", display)
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	switch {
	case protocol == "unix" || protocol == "" && (host == "" || host == "unix"):
		path := fmt.Sprintf("/tmp/.X11-unix/X%d", n)
		// Linux X servers listen on an abstract socket of the same name too.
		return []netAddr{{"unix", path}, {"unix", "@" + path}}, nil
	case protocol == "" || protocol == "tcp" || protocol == "inet" || protocol == "inet6":
		if host == "" || host == "unix" {
			host = "localhost"
		}
		return []netAddr{{"tcp", net.JoinHostPort(host, strconv.Itoa(6000+n))}}, nil
	}
	return nil, fmt.Errorf("DISPLAY %q names protocol %q; use unix or tcp", display, protocol)
}

// checkDisplay reports why the window cannot open, before the app touches
// anything: the X display in DISPLAY is missing or its server does not
// accept a connection.
func checkDisplay() error {
	display := os.Getenv("DISPLAY")
	if display == "" {
		if w := os.Getenv("WAYLAND_DISPLAY"); w != "" {
			return fmt.Errorf("%w: DISPLAY is not set (WAYLAND_DISPLAY=%s is, but this build draws through X11, and XWayland would set DISPLAY)", errNoDisplay, w)
		}
		return fmt.Errorf("%w: DISPLAY is not set", errNoDisplay)
	}
	addrs, err := x11Addrs(display)
	if err != nil {
		return fmt.Errorf("%w: %v", errNoDisplay, err)
	}
	if err := dialAny(addrs); err != nil {
		return fmt.Errorf("%w: the X display %s does not answer (%v)", errNoDisplay, display, err)
	}
	return nil
}
