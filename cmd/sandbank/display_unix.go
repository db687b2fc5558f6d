//go:build linux || freebsd || openbsd || netbsd || dragonfly

package main

import (
	"errors"
	"net"
	"time"
)

// errNoDisplay reports a display that is missing or does not answer.
var errNoDisplay = errors.New("no display for the window")

// dialTimeout bounds each connection attempt to a display.
const dialTimeout = 2 * time.Second

// dialAny connects to the first of addrs that accepts a connection and
// closes it again; it returns the first attempt's error when none does.
func dialAny(addrs []netAddr) error {
	var first error
	for _, a := range addrs {
		c, err := net.DialTimeout(a.network, a.addr, dialTimeout)
		if err == nil {
			return c.Close()
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// netAddr is one address to dial.
type netAddr struct{ network, addr string }
