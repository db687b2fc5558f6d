//go:build race

package apptest

// raceDetector is set in a build with the race detector.
const raceDetector = true
