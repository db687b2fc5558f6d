package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sandbank/app"
	"sandbank/bank/pki"
)

// TestServe_CommandsFindTheirBankByTheDataFile: a bank on ports no one
// told the command, even HTTPS only, is found by its data file alone, and
// the command signs as its operator; the running file is the owner's only,
// and goes when the bank stops. A stale running file, of a bank that is
// gone, is ignored.
func TestServe_CommandsFindTheirBankByTheDataFile(t *testing.T) {
	data := filepath.Join(t.TempDir(), "sandbank.db")
	d := startDaemon(t, data, "--addr", "")
	if len(d.URLs) != 1 || !strings.HasPrefix(d.URLs[0], "https://localhost:") {
		t.Fatalf("an HTTPS-only bank serves %v", d.URLs)
	}
	out, stderr, code := sandbankd(t, "", "settings", "get", "trustMode", "--data", data, "-v")
	if code != 0 || out != "any\n" || !strings.Contains(stderr, d.URLs[0]) {
		t.Fatalf("settings get --data on an HTTPS-only bank: exit %d %q %s", code, out, stderr)
	}
	if out, stderr, code := sandbankd(t, "", "batch", "run", "--data", data); code != 0 {
		t.Fatalf("batch run --data, the operator's: exit %d %q %s", code, out, stderr)
	}
	running := app.RunningPath(data)
	info, err := os.Stat(running)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the running file: %v %v", info, err)
	}
	var run app.Running
	raw, _ := os.ReadFile(running)
	if err := json.Unmarshal(raw, &run); err != nil || run.PID != d.Cmd.Process.Pid || len(run.URLs) != 1 || run.URLs[0] != d.URLs[0] {
		t.Fatalf("the running file says %+v (%v)", run, err)
	}
	if err := d.Stop(t); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(running); !os.IsNotExist(err) {
		t.Fatalf("the running file is there after a clean stop: %v", err)
	}
	// A running file no bank stands behind (killed, say) is not read: the
	// command opens the free data file itself.
	if err := os.WriteFile(running, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = sandbankd(t, "", "settings", "get", "trustMode", "--data", data)
	if code != 0 || out != "any\n" || strings.Contains(stderr, "in use") {
		t.Fatalf("with a stale running file: exit %d %q %s", code, out, stderr)
	}
}

// TestServe_OperatorCertOut: --operator-cert-out writes an operator
// certificate of the bank's CA, its key (the owner's only) and the CA, which
// a client signs with to do what a TPP may not; a TPP certificate of the
// same bank may not.
func TestServe_OperatorCertOut(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sandbank.db")
	out := filepath.Join(dir, "operator")
	d := startDaemon(t, data, "--operator-cert-out", out)
	for _, name := range []string{"cert.pem", "key.pem", "ca.pem"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Fatal(err)
		}
	}
	if info, _ := os.Stat(filepath.Join(out, "key.pem")); info.Mode().Perm() != 0o600 {
		t.Errorf("key.pem has mode %v", info.Mode().Perm())
	}
	signer, err := loadSigner(filepath.Join(out, "cert.pem"), filepath.Join(out, "key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	caPEM, _ := os.ReadFile(filepath.Join(out, "ca.pem"))
	ca, err := pki.DecodeCert(caPEM)
	if err != nil || signer.Cert.CheckSignatureFrom(ca) != nil {
		t.Fatalf("the operator certificate does not chain to ca.pem: %v", err)
	}
	op := newAPIClient(d.URLs[0], signer)
	op.must(t, 200, "GET", "/v1/sandbox/settings", nil, nil)
	op.must(t, 200, "POST", "/v1/sandbox/batch-runs", nil, nil)
	// The same flags on the command line: sandbankd call signs with it.
	if got, stderr, code := sandbankd(t, "", "call", "GET", "/v1/sandbox/settings", "--url", d.URLs[0], "--cert", filepath.Join(out, "cert.pem"), "--key", filepath.Join(out, "key.pem")); code != 0 || !strings.Contains(got, "200 OK") {
		t.Errorf("sandbankd call as the operator: exit %d %s %s", code, got, stderr)
	}
	cert, key := newTPP(t, dir, data, "Plain TPP")
	tpp, err := loadSigner(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newAPIClient(d.URLs[0], tpp).do("GET", "/v1/sandbox/settings", nil)
	if err != nil || a.status != 403 || !strings.Contains(string(a.body), "operator") {
		t.Fatalf("a TPP's GET /v1/sandbox/settings: %v %d %s", err, a.status, a.body)
	}
	// cert new --operator needs the data file, and refuses without it.
	if _, stderr, code := sandbankd(t, "", "cert", "new", "--operator", "--name", "X", "--out", filepath.Join(dir, "x"), "--url", d.URLs[0]); code != 2 || !strings.Contains(stderr, "--operator needs --data") {
		t.Errorf("cert new --operator without --data: exit %d %s", code, stderr)
	}
}
