package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sandbank/app/apptest"
)

// On a free data file the commands hand their requests to the bank's
// handler in this process; here in the test's own process, so that the
// race detector watches the transport: a scenario goes out and back in
// (from a file and from standard input) and comes out the same, and a
// refusal is the bank's.
func TestRun_OnTheDataFileInProcess(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sandbank.db")
	ctx := context.Background()
	call := func(stdin string, args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(ctx, append(args, "--data", data), strings.NewReader(stdin), &out, &errOut)
		return out.String(), err
	}
	saved, err := call("", "scenario", "save", "-")
	if err != nil || !strings.HasPrefix(saved, `{"format":"sandbank-scenario/`) {
		t.Fatalf("scenario save -: %v %.80s", err, saved)
	}
	file := filepath.Join(dir, "s.json")
	if err := os.WriteFile(file, []byte(saved), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := call("", "scenario", "load", file); err != nil || !strings.Contains(out, "customers         4\n") {
		t.Fatalf("scenario load FILE: %v\n%s", err, out)
	}
	if out, err := call(saved, "scenario", "load", "-", "--json"); err != nil || !strings.Contains(out, `"customers": 4`) {
		t.Fatalf("scenario load -: %v\n%s", err, out)
	}
	if again, err := call("", "scenario", "save", "-"); err != nil || !sameScenario(t, again, saved) {
		t.Errorf("the scenario came back different: %v (%d and %d bytes)", err, len(again), len(saved))
	}
	before := apptest.Sum(t, data)
	_, err = call("", "settings", "set", "coverRetryDays=99")
	var refused *apiError
	if !errors.As(err, &refused) || exitCode(err) != 1 || refused.body.Code != "FORMAT_ERROR" || !strings.Contains(err.Error(), "\n  coverRetryDays: ") {
		t.Errorf("settings set coverRetryDays=99: %v", err)
	}
	if apptest.Sum(t, data) != before {
		t.Error("a refused settings change changed the data file")
	}
}
