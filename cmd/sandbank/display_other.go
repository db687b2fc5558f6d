//go:build !(linux || freebsd || openbsd || netbsd || dragonfly)

package main

// checkDisplay finds no problem: macOS and Windows always have a desktop
// to open the window on.
func checkDisplay() error { return nil }
