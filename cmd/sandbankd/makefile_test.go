package main

import (
	"os/exec"
	"strings"
	"testing"
)

// make run and make serve pass DATA=, ADDR= and TLS_ADDR= on to the
// bank; an empty one given turns that listener off (an empty --addr), and one
// not given leaves the bank's default.
func TestMakefile_RunAndServeTakeTheAddresses(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make is not installed: run scripts/install-deps")
	}
	last := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("make", append([]string{"-s", "-n", "-C", "../.."}, args...)...).Output()
		if err != nil {
			t.Fatalf("make -n %q: %v\n%s", args, err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		return strings.TrimSpace(lines[len(lines)-1])
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "bin/sandbankd"},
		{[]string{"serve", "ADDR=0.0.0.0:7380", "TLS_ADDR="}, "bin/sandbankd --addr '0.0.0.0:7380' --tls-addr ''"},
		{[]string{"serve", "ADDR=", "TLS_ADDR=127.0.0.1:8443", "DATA=/tmp/my bank.db"}, "bin/sandbankd --data '/tmp/my bank.db' --addr '' --tls-addr '127.0.0.1:8443'"},
		{[]string{"run", "TLS_ADDR="}, "bin/sandbank --tls-addr ''"},
	} {
		if got := last(c.args...); got != c.want {
			t.Errorf("make %q runs %q, want %q", c.args, got, c.want)
		}
	}
}

// The locale the Makefile gives its commands (apt's perl among them) is
// one this machine has, so nothing warns of a missing locale.
func TestMakefile_LocaleIsInstalled(t *testing.T) {
	out, err := exec.Command("make", "-s", "-C", "../..", "--eval", "print-lang: ; @echo \"$$LANG\"", "print-lang").Output()
	if err != nil {
		t.Fatalf("make print-lang: %v\n%s", err, out)
	}
	lang := strings.TrimSpace(string(out))
	locales, err := exec.Command("locale", "-a").Output()
	if err != nil {
		t.Fatalf("locale -a: %v", err)
	}
	// locale -a writes C.UTF-8 as C.utf8.
	norm := func(s string) string {
		return strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(s, "-", ""), "_", ""))
	}
	for _, l := range strings.Fields(string(locales)) {
		if norm(l) == norm(lang) {
			return
		}
	}
	t.Fatalf("the Makefile's LANG %q is not installed here; locale -a lists:\n%s", lang, locales)
}
