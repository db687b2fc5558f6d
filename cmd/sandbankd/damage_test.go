package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
)

// TestServe_RefusesADamagedFileWritingNothing runs sandbankd on damaged
// copies of a real data file: it exits with status 1 and one line on
// stderr that names the file and says what to do, prints no stack trace,
// and leaves every byte of the file as it was.
func TestServe_RefusesADamagedFileWritingNothing(t *testing.T) {
	for _, f := range apptest.DamagedFiles(t) {
		t.Run(f.Name, func(t *testing.T) {
			before := apptest.Sum(t, f.Path)
			out, stderr, code := refusedStart(t, f.Path)
			if code != 1 {
				t.Errorf("exit status %d, want 1; stdout %q", code, out)
			}
			line, ok := strings.CutPrefix(strings.TrimSuffix(stderr, "\n"), "sandbankd: ")
			if !ok || strings.Contains(line, "\n") {
				t.Errorf("stderr is not one line starting with \"sandbankd: \":\n%s", stderr)
			}
			apptest.CheckRefusal(t, f.Path, errors.New(line))
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stderr shows a Go panic:\n%s", stderr)
			}
			if apptest.Sum(t, f.Path) != before {
				t.Error("the refused start changed the file")
			}
		})
	}
}

// refusedStart runs sandbankd serve on data, which it should refuse at
// once. A sandbankd that serves instead is stopped after a minute.
func refusedStart(t *testing.T, data string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "--data", data, "--addr", "127.0.0.1:0", "--tls-addr", "")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Errorf("sandbankd served the damaged file for a minute:\n%s", out.String())
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}
