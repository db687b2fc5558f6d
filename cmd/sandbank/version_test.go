package main

import (
	"bytes"
	"testing"

	"sandbank/app"
)

// --version prints the version and exits without opening a window or the
// data file.
func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version", "--data", "/nonexistent/dir/sandbank.db"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 || stdout.String() != "sandbank "+app.Version()+"\n" || stderr.Len() != 0 {
			t.Errorf("sandbank %v: exit %d, stdout %q, stderr %q", args, code, stdout.String(), stderr.String())
		}
	}
}
