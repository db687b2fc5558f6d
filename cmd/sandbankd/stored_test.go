package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The flags whose value the data file keeps say so in the help, with no
// "(default ...)" that the data file may contradict, and the banner prints
// the value in force of each: a file started once with
// --response-signing off stays off without the flag, and says so.
func TestServe_StoredSettingsInHelpAndBanner(t *testing.T) {
	_, help, code := sandbankd(t, "", "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d\n%s", code, help)
	}
	for _, name := range []string{"trust", "require-signature", "strict", "response-signing", "operator-access"} {
		_, rest, found := strings.Cut(help, "\n  -"+name)
		text, _, _ := strings.Cut(rest, "\n  -")
		if !found || strings.Contains(text, "(default") || !strings.Contains(text, "without this flag the data file's value stands (a new data file: ") {
			t.Errorf("--help of --%s: %q", name, text)
		}
	}
	data := filepath.Join(t.TempDir(), "sandbank.db")
	banner := func(flags ...string) string {
		t.Helper()
		d := startDaemon(t, data, flags...)
		line, _, _ := strings.Cut(d.Stdout(), "\n")
		if err := d.Stop(t); err != nil {
			t.Fatal(err)
		}
		return line
	}
	if got, want := banner(), "Sandbank serves "+data+" (trust any, signatures required, strict mode off, responses signed with RSA, operator access operator)"; got != want {
		t.Errorf("a new data file's banner:\n%s\nwant\n%s", got, want)
	}
	banner("--response-signing", "off", "--strict", "--trust", "store", "--require-signature=false", "--operator-access", "any-tpp")
	if got, want := banner(), "Sandbank serves "+data+" (trust store, signatures optional, strict mode on, responses unsigned, operator access any-tpp: every TPP is the operator)"; got != want {
		t.Errorf("the banner of a data file started with other values, started again without the flags:\n%s\nwant\n%s", got, want)
	}
	if got, want := banner("--response-signing", "ecdsa", "--strict=false"), "Sandbank serves "+data+" (trust store, signatures optional, strict mode off, responses signed with ECDSA, operator access any-tpp: every TPP is the operator)"; got != want {
		t.Errorf("the banner with two flags given:\n%s\nwant\n%s", got, want)
	}
}
