package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A command that asks the running bank holding its data file says so on
// standard error only when asked (-v, --verbose): in a pipeline's log,
// each command adds no line.
func TestRunningBank_NoteOnlyWhenVerbose(t *testing.T) {
	data := filepath.Join(t.TempDir(), "sandbank.db")
	d := startDaemon(t, data)
	const note = "The data file is in use by a running bank; asking it at "
	for _, c := range []struct {
		flags []string
		note  bool
	}{
		{nil, false},
		{[]string{"-v"}, true},
		{[]string{"--verbose"}, true},
		{[]string{"--verbose=false"}, false},
	} {
		out, stderr, code := sandbankd(t, "", append([]string{"settings", "get", "trustMode", "--data", data}, c.flags...)...)
		if code != 0 || out != "any\n" || strings.Contains(stderr, note) != c.note {
			t.Errorf("settings get %v: exit %d %q, stderr %q; want the note: %v", c.flags, code, out, stderr, c.note)
		}
		if c.note && !strings.Contains(stderr, note+d.URLs[0]+".\n") {
			t.Errorf("settings get %v: the note does not name %s: %q", c.flags, d.URLs[0], stderr)
		}
	}
	// call takes the same flag.
	_, stderr, code := sandbankd(t, "", "call", "GET", "/v1/sandbox/clock", "--data", data, "-v", "--body-only")
	if code != 0 || !strings.HasPrefix(stderr, note+d.URLs[0]+".\n") {
		t.Errorf("call -v: exit %d, stderr %q", code, stderr)
	}
}
