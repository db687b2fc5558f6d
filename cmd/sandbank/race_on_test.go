//go:build race

package main

// raceFlag builds the app the way this test binary was built, so the
// build shares its cache (the GLFW C code is compiled once).
var raceFlag = []string{"-race"}
