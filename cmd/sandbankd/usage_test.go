package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A mistake in the arguments exits 2 with the command's usage line before
// anything reaches a bank: the data file named is not even made.
func TestUsage_MistakesExit2BeforeTheBank(t *testing.T) {
	data := filepath.Join(t.TempDir(), "never.db")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"payments", "show", ""}, []string{"the payment ID is empty", "\n  sandbankd payments show ID [--json]\n"}},
		{[]string{"payments", "show", "enc!!a b"}, []string{`the payment ID "enc!!a b" holds ' '`, "\n  sandbankd payments show ID [--json]\n"}},
		{[]string{"payments", "show", "a/b"}, []string{`holds '/'`}},
		{[]string{"payments", "show", ".."}, []string{`the payment ID ".." is not an id`}},
		{[]string{"payments", "show", "a", "b"}, []string{"payments show takes one payment ID, not 2 arguments"}},
		{[]string{"payments", "list", "extra"}, []string{`payments list takes no arguments, not "extra"`}},
		{[]string{"payments", ""}, []string{"unknown command payments ; use payments, payments show ID or payments force ID STATUS"}},
		{[]string{"payments", "force", "", "RJCT"}, []string{"the payment ID is empty", "\n  sandbankd payments force ID STATUS"}},
		{[]string{"payments", "force", "enc!!x", "done"}, []string{`"done" is not a payment status; give one of RCVD,`}},
		{[]string{"payments", "force", "enc!!x"}, []string{"payments force takes a payment ID and a STATUS, not 1 argument"}},
		{[]string{"batch", "show", ""}, []string{"the RUNID is empty", "\n  sandbankd batch show RUNID [--json]\n"}},
		{[]string{"batch", "show"}, []string{"batch show takes one RUNID, not 0 arguments"}},
		{[]string{"batch", "show", "a\tb"}, []string{`holds '\t'`}},
		{[]string{"batch", "run", "now"}, []string{`batch run takes no arguments, not "now"`}},
		{[]string{"batch", "list", "x"}, []string{`batch list takes no arguments`}},
		{[]string{"grants", "revoke", " "}, []string{`the GRANT_ID " " holds ' '`, "\n  sandbankd grants revoke GRANT_ID\n"}},
		{[]string{"grants", "revoke", "a", "b"}, []string{"give grants [--tpp ID] [--psu ID] or grants revoke GRANT_ID"}},
		{[]string{"log", ""}, []string{"the request ID is empty", "\n  sandbankd log ID [--json]\n"}},
		{[]string{"log", "a", "b"}, []string{"give one request ID at most, not 2 arguments"}},
		{[]string{"clock", "set", "tomorrow"}, []string{`clock set "tomorrow": write an RFC 3339 date-time`, "\n  sandbankd clock set 2027-01-15T09:00:00+01:00\n"}},
		{[]string{"clock", "ahead", ""}, []string{"clock ahead : give a span longer than 0", "\n  sandbankd clock ahead 3d "}},
		{[]string{"clock", "real", "now"}, []string{"give clock, clock set RFC3339"}},
		{[]string{"scenario", "save", ""}, []string{"the FILE is empty; give a file name, or - for standard output", "\n  sandbankd scenario save FILE [--note TEXT]\n"}},
		{[]string{"scenario", "load", "a.json", "b.json"}, []string{"scenario load takes one FILE (- for standard input), not 2 arguments"}},
		{[]string{"settings", "get", ""}, []string{"the KEY is empty"}},
		{[]string{"settings", "get", "a", "b"}, []string{"settings get takes one KEY at most, not 2 arguments"}},
		{[]string{"settings", "set", "=1"}, []string{`"=1" is not KEY=VALUE`, "\n  sandbankd settings set KEY=VALUE... [--json]\n"}},
		{[]string{"cert", "ca", "extra"}, []string{`cert ca takes no arguments, not "extra"`}},
		{[]string{"cert", "new", "--org", "1", "--name", "X", "--out", "x", "extra"}, []string{`cert new takes no arguments, not "extra"`}},
	} {
		out, stderr, code := sandbankd(t, "", append(c.args, "--data", data)...)
		if code != 2 || out != "" || !strings.HasPrefix(stderr, "sandbankd: usage: ") {
			t.Errorf("sandbankd %q: exit %d, stdout %q, stderr %q; want exit 2 and a usage error", c.args, code, out, stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("sandbankd %q: stderr does not say %q:\n%s", c.args, w, stderr)
			}
		}
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Fatalf("a mistaken command reached the bank: it made the data file (%v)", err)
	}
}
