package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// call takes the bank flags of every other command: with --data it signs
// as the data file's operator, on the free data file (opened by the
// command itself) and through the running bank that holds it, wherever it
// serves; with --url alone, as a TPP of its own certificate, and with
// --cert and --key as theirs.
func TestCall_DataSignsAsTheOperator(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sandbank.db")
	cert, key := newTPP(t, dir, data, "Call TPP", "--roles", "PSP_AI")
	settings := func(stdout string) map[string]any {
		t.Helper()
		var doc map[string]any
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("not the settings document: %v\n%s", err, stdout)
		}
		return doc
	}

	// The free data file: GET and PATCH the operator's settings.
	out, stderr, code := sandbankd(t, "", "call", "GET", "/v1/sandbox/settings", "--data", data, "--body-only", "--fail")
	if code != 0 || settings(out)["trustMode"] != "any" {
		t.Fatalf("call --data on the free data file: exit %d\n%s\n%s", code, out, stderr)
	}
	out, stderr, code = sandbankd(t, `{"coverRetryDays": 5}`, "call", "PATCH", "/v1/sandbox/settings", "--body", "-", "--data", data, "--body-only", "--fail")
	if code != 0 || settings(out)["coverRetryDays"] != 5.0 {
		t.Fatalf("call PATCH --data: exit %d\n%s\n%s", code, out, stderr)
	}

	// The running bank that holds it, on ports of the kernel's choosing,
	// over HTTP and over HTTPS (its running file's CA trusted).
	d := startDaemon(t, data)
	for _, extra := range [][]string{nil, {"--url", d.URLs[1]}} {
		out, stderr, code = sandbankd(t, "", append([]string{"call", "GET", "/v1/sandbox/settings", "--data", data, "--body-only", "--fail"}, extra...)...)
		if code != 0 || settings(out)["coverRetryDays"] != 5.0 || !strings.HasPrefix(stderr, "HTTP/1.1 200 OK\n") || strings.Contains(stderr, "in use") {
			t.Fatalf("call --data %v on the running bank: exit %d\n%s\n%s", extra, code, out, stderr)
		}
	}

	// --url alone: a TPP of the command's own certificate, whom the
	// operator's routes refuse; the refusal says how to be the operator.
	out, stderr, code = sandbankd(t, "", "call", "GET", "/v1/sandbox/settings", "--url", d.URLs[0])
	if code != 0 || !strings.HasPrefix(out, "HTTP/1.1 403 Forbidden\n") || !strings.Contains(stderr, "self-signed certificate, a TPP's: give --data") {
		t.Fatalf("call --url alone: exit %d\n%s\n%s", code, out, stderr)
	}
	// --cert and --key sign as that TPP, --data or not.
	out, _, code = sandbankd(t, "", "call", "GET", "/v1/sandbox/settings", "--data", data, "--cert", cert, "--key", key)
	if code != 0 || !strings.HasPrefix(out, "HTTP/1.1 403 Forbidden\n") {
		t.Fatalf("call --data --cert --key: exit %d\n%s", code, out)
	}
	out, _, code = sandbankd(t, "", "call", "GET", "/v1/sandbox/customers", "--data", data, "--cert", cert, "--key", key, "--body-only")
	if code != 0 || !strings.Contains(out, "Test Testperson 1") {
		t.Fatalf("call --data --cert --key, a TPP's route: exit %d\n%s", code, out)
	}
}

// A mistake in call's arguments exits 2 with its usage line before
// anything reaches a bank: the data file named is not even made.
func TestCall_MistakesExit2BeforeTheBank(t *testing.T) {
	data := filepath.Join(t.TempDir(), "never.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"call", "", "/v1/sandbox/customers"}, `METHOD "" is not a method`},
		{[]string{"call", "G T", "/v1/sandbox/customers"}, `METHOD "G T" is not a method`},
		{[]string{"call", "GET", "v1/sandbox/customers"}, `PATH must start with /`},
		{[]string{"call", "GET", "/v1/sandbox/customers/a b"}, `PATH "/v1/sandbox/customers/a b" is not a path and query`},
		{[]string{"call", "GET", "/v1/sandbox/customers", "extra"}, "give METHOD and PATH"},
		{[]string{"call", "GET", "/v1/x", "-H", "X-Request-ID x"}, `-H "X-Request-ID x" is not 'Name: value'`},
	} {
		out, stderr, code := sandbankd(t, "", append(c.args, "--data", data)...)
		if code != 2 || out != "" || !strings.HasPrefix(stderr, "sandbankd: usage: ") || !strings.Contains(stderr, c.want) ||
			!strings.Contains(stderr, "\n  sandbankd call METHOD PATH ") {
			t.Errorf("sandbankd %q: exit %d, stdout %q, stderr %q; want exit 2 and a usage error that says %q", c.args, code, out, stderr, c.want)
		}
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Fatalf("a mistaken call reached the bank: it made the data file (%v)", err)
	}
}
