package main

// noDisplayHint is what to do instead when there is no display to open
// the window on.
const noDisplayHint = "run the bank without a window (make serve, or bin/sandbank --headless), or in a virtual display (scripts/with-display make run)"
