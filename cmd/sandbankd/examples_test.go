package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// exampleLanguages are the folders of examples/, each with a run.sh.
var exampleLanguages = []string{"python", "node", "java"}

// exitRuntimeMissing is what an example's run.sh exits with when its
// language runtime (or a module it needs) is not installed.
const exitRuntimeMissing = 3

// exampleSkipped begins the line a walkthrough prints when it has no
// operator certificate and so skips the batch run.
const exampleSkipped = "skipped: steps 6 (batch run) and 7 (settled payment): a batch run and the sandbox clock are the operator's"

// exampleSettled is in a walkthrough's output when its payment settled.
const exampleSettled = ": ACSC; closingBooked "

// exampleSetup is one documented way to run the bank, as an example meets
// it, and what the example must say of it.
type exampleSetup struct {
	name string
	// settings are KEY=VALUE of sandbankd settings set, put in force on
	// the running bank before the run and back to their defaults after.
	settings []string
	// tls: the HTTPS listener, verified against the CA the bank serves
	// (CA_CERT_PEM, from sandbankd cert ca).
	tls bool
	// env is what else the setup tells the example: RESPONSE_SIGNING=off.
	env []string
	// selfSigned: the self-signed certificate whose issuer DN holds "ø",
	// so that the keyId travels RFC 2047 encoded; else cert new's.
	selfSigned bool
	// startOperator: the operator certificate the bank wrote at start
	// (--operator-cert-out); else the one cert new --operator issued while
	// it runs.
	startOperator bool
	// says is a line the output holds.
	says string
}

// settingDefaults are the values a setup's settings go back to.
var settingDefaults = map[string]string{"strict": "false", "trustMode": "any", "responseSigning": "rsa", "batchMode": "schedule"}

// exampleMatrix is every documented setting, each on its own: both kinds
// of certificate, strict mode, trust mode store, response signing ecdsa
// and off, the HTTPS listener, and batch mode immediate.
var exampleMatrix = []exampleSetup{
	{name: "a certificate from cert new"},
	{name: "a self-signed certificate with a non-ASCII issuer", selfSigned: true},
	{name: "strict mode", settings: []string{"strict=true"}},
	{name: "trust mode store", settings: []string{"trustMode=store"}},
	{name: "response signing ecdsa", settings: []string{"responseSigning=ecdsa"}, startOperator: true},
	{name: "response signing off", settings: []string{"responseSigning=off"}, env: []string{"RESPONSE_SIGNING=off"},
		says: "unsigned responses checked (Digest, X-Request-ID)"},
	{name: "TLS", tls: true, says: "HTTPS verified against the CA certificate"},
	{name: "batch mode immediate", settings: []string{"batchMode=immediate"}},
}

// exampleCrossSection is every documented setting too, in four runs: the
// settings that do not interact combined.
var exampleCrossSection = []exampleSetup{
	{name: "a certificate from cert new"},
	{name: "a self-signed certificate with a non-ASCII issuer", selfSigned: true},
	{name: "TLS, strict mode, trust mode store and response signing ecdsa", tls: true,
		settings: []string{"strict=true", "trustMode=store", "responseSigning=ecdsa"}, startOperator: true,
		says: "HTTPS verified against the CA certificate"},
	{name: "response signing off and batch mode immediate", settings: []string{"responseSigning=off", "batchMode=immediate"},
		env: []string{"RESPONSE_SIGNING=off"}, says: "unsigned responses checked (Digest, X-Request-ID)"},
}

// exampleSetups says which setups each language runs. Python and Node.js
// take under a second a run, so they run the whole matrix, each setting
// on its own, where a failure names the setting. Java compiles with javac
// on every run (run.sh is the entry point a TPP uses), 4 to 7 s on two busy
// cores, so it runs the cross-section: every setting still, in four runs
// instead of eight. The languages run at once, each against its own bank.
var exampleSetups = map[string][]exampleSetup{"python": exampleMatrix, "node": exampleMatrix, "java": exampleCrossSection}

// TestExamples_Walkthrough runs each TPP client of examples/ (Python,
// Node.js, Java) against a real sandbankd of its own, in every documented
// setup of the bank (exampleSetups): a consent with automated SCA, accounts
// and paged transactions, a payment with its SCA, the operator's batch run
// and the settled payment, every request signed and every response
// signature verified by the client's own code (with response signing off,
// every response's Digest). The TPP's requests sign with the TPP's
// certificate, the batch run and the clock with an operator certificate
// (OPERATOR_CERT_PEM and OPERATOR_KEY_PEM): cert new --operator's, issued
// while the bank runs, or the one --operator-cert-out wrote at start. The
// certificate is one from cert new, whose issuer is the bank's test CA, or
// a self-signed one whose issuer DN is not ASCII, so the keyId travels RFC
// 2047 encoded. Python runs three times more: without an operator
// certificate, when it says what it skips, stops with the payment approved
// and exits 0; and twice where the setup is not told to it, which must
// fail: response signing off without RESPONSE_SIGNING=off, and the HTTPS
// listener without CA_CERT_PEM. A missing runtime skips the language, or
// fails it when SANDBANK_REQUIRE_EXAMPLES=1 (make test sets it).
func TestExamples_Walkthrough(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is not installed")
	}
	own := t.TempDir()
	ownCert, ownKey := selfSignedTPP(t, own)
	for _, lang := range exampleLanguages {
		t.Run(lang, func(t *testing.T) {
			// Each language has its own bank: the walkthroughs move the
			// sandbox clock on days that are not banking days.
			t.Parallel()
			dir := t.TempDir()
			data := filepath.Join(dir, "sandbank.db")
			cert, key := newTPP(t, dir, data, "Example TPP", "--roles", "PSP_AI,PSP_PI")
			startOp := filepath.Join(dir, "start-operator")
			d := startDaemon(t, data, "--operator-cert-out", startOp)
			if len(d.URLs) < 2 || !strings.HasPrefix(d.URLs[1], "https://localhost:") {
				t.Fatalf("the bank serves %q; want an HTTPS listener too", d.URLs)
			}
			// The operator's certificate, issued while the bank runs.
			op := filepath.Join(dir, "operator")
			if out, stderr, code := sandbankd(t, "", "cert", "new", "--operator", "--name", "Example operator", "--out", op, "--data", data); code != 0 {
				t.Fatalf("cert new --operator: %d %s %s", code, out, stderr)
			}
			// The CA of the HTTPS listener, as a TPP fetches it.
			ca := filepath.Join(dir, "ca.pem")
			caPEM, stderr, code := sandbankd(t, "", "cert", "ca", "--data", data)
			if code != 0 || !strings.Contains(caPEM, "BEGIN CERTIFICATE") {
				t.Fatalf("cert ca: %d %s %s", code, caPEM, stderr)
			}
			if err := os.WriteFile(ca, []byte(caPEM), 0o600); err != nil {
				t.Fatal(err)
			}
			run := func(s exampleSetup, extra ...string) (string, int) {
				t.Helper()
				setSettings(t, data, s.settings, false)
				defer setSettings(t, data, s.settings, true)
				r := exampleRun{lang: lang, what: s.name, base: d.URLs[0], cert: cert, key: key, op: op}
				if s.tls {
					r.base = d.URLs[1]
					r.env = []string{"CA_CERT_PEM=" + ca}
				}
				r.env = append(append(r.env, s.env...), extra...)
				if s.selfSigned {
					r.cert, r.key = ownCert, ownKey
				}
				if s.startOperator {
					r.op = startOp
				}
				return r.run(t)
			}
			if lang == "python" {
				out, _ := run(exampleSetup{name: "no operator certificate"}, "OPERATOR_CERT_PEM=", "OPERATOR_KEY_PEM=")
				if !strings.Contains(out, exampleSkipped) || strings.Contains(out, "ACSC") {
					t.Fatalf("python without an operator certificate: want the line %q and no ACSC:\n%s", exampleSkipped, out)
				}
				// The setups below are in force: told nothing of them, the
				// walkthrough fails.
				for _, s := range []exampleSetup{
					{name: "response signing off, not told", settings: []string{"responseSigning=off"}, says: "the response has no Signature header"},
					{name: "TLS without the bank's CA", tls: true, env: []string{"CA_CERT_PEM="}, says: "CERTIFICATE_VERIFY_FAILED"},
				} {
					if out, code := run(s); code != 1 || !strings.Contains(out, s.says) {
						t.Fatalf("python with %s: exit %d, want 1 and %q:\n%s", s.name, code, s.says, out)
					}
				}
			}
			for _, s := range exampleSetups[lang] {
				out, code := run(s)
				if code != 0 {
					t.Fatalf("examples/%s with %s: exit %d\n%s", lang, s.name, code, out)
				}
				if !strings.Contains(out, exampleSettled) || strings.Contains(out, "skipped:") {
					t.Fatalf("examples/%s with %s: the payment did not settle (want %q):\n%s", lang, s.name, exampleSettled, out)
				}
				if !strings.Contains(out, s.says) {
					t.Fatalf("examples/%s with %s: the output lacks %q:\n%s", lang, s.name, s.says, out)
				}
				// batchMode immediate settles the payment at its approval on
				// a banking day: then there is no batch run.
				if slices.Contains(s.settings, "batchMode=immediate") && strings.Contains(out, "SCA FINALISED, ACSC") != strings.Contains(out, "6. no batch run needed") {
					t.Fatalf("examples/%s with %s: a payment ACSC at its approval needs no batch run, and says so:\n%s", lang, s.name, out)
				}
			}
		})
	}
}

// setSettings puts settings (KEY=VALUE) in force on the bank of the data
// file with sandbankd settings set, or, when undo is set, their keys back
// to settingDefaults.
func setSettings(t *testing.T, data string, settings []string, undo bool) {
	t.Helper()
	if len(settings) == 0 {
		return
	}
	args := []string{"settings", "set"}
	for _, kv := range settings {
		k, v, _ := strings.Cut(kv, "=")
		if undo {
			v = settingDefaults[k]
		}
		args = append(args, k+"="+v)
	}
	out, stderr, code := sandbankd(t, "", append(args, "--data", data)...)
	if code != 0 {
		t.Fatalf("sandbankd %s: %d %s %s", strings.Join(args, " "), code, out, stderr)
	}
	// The bank answers with the settings in force.
	for _, kv := range args[2:] {
		k, v, _ := strings.Cut(kv, "=")
		if !regexp.MustCompile(`(?m)^` + k + ` +` + v + `$`).MatchString(out) {
			t.Fatalf("sandbankd %s: %s is not %s in\n%s", strings.Join(args, " "), k, v, out)
		}
	}
}

// exampleRun is one run of examples/<lang>/run.sh BASE_URL CERT KEY: what
// names the setup, op is the folder of the operator's cert.pem and key.pem,
// given as OPERATOR_CERT_PEM and OPERATOR_KEY_PEM, and env is set after
// them (it may empty them).
type exampleRun struct {
	lang, what, base, cert, key, op string
	env                             []string
}

// run runs the example and returns its output and exit code: 0 or 1, the
// walkthrough's. It skips the test when the language's runtime is missing,
// or fails it then with SANDBANK_REQUIRE_EXAMPLES=1, and fails it for any
// other exit code.
func (r exampleRun) run(t *testing.T) (string, int) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "..", "examples", r.lang, "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// Generous: a run takes a few seconds, javac included, but the suite
	// may share two busy cores.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, r.base, r.cert, r.key)
	cmd.Env = append(os.Environ(), "OPERATOR_CERT_PEM="+filepath.Join(r.op, "cert.pem"), "OPERATOR_KEY_PEM="+filepath.Join(r.op, "key.pem"),
		"CA_CERT_PEM=", "RESPONSE_SIGNING=")
	cmd.Env = append(cmd.Env, r.env...)
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	out, err := cmd.CombinedOutput()
	elapsed := time.Since(start).Round(10 * time.Millisecond)
	var exit *exec.ExitError
	switch {
	case err == nil:
		t.Logf("%s with %s (%s):\n%s", script, r.what, elapsed, out)
		return string(out), 0
	case errors.As(err, &exit) && exit.ExitCode() == exitRuntimeMissing:
		if os.Getenv("SANDBANK_REQUIRE_EXAMPLES") == "1" {
			t.Fatalf("%s: the runtime is missing (SANDBANK_REQUIRE_EXAMPLES=1; run scripts/install-deps):\n%s", script, out)
		}
		t.Skipf("%s: the runtime is missing; skipped (scripts/install-deps installs it):\n%s", script, out)
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		t.Logf("%s with %s: exit 1 after %s:\n%s", script, r.what, elapsed, out)
		return string(out), 1
	}
	t.Fatalf("%s %s %s %s (%s, env %q): %v after %s\n%s", script, r.base, r.cert, r.key, r.what, r.env, err, elapsed, out)
	return "", 0
}

// oidOrganizationIdentifier is the X.520 organizationIdentifier attribute.
var oidOrganizationIdentifier = asn1.ObjectIdentifier{2, 5, 4, 97}

// selfSignedTPP writes dir/cert.pem and dir/key.pem: an RSA certificate,
// self-signed, whose subject and issuer DN hold "ø" (trust mode any takes
// it, with every role).
func selfSignedTPP(t *testing.T, dir string) (cert, key string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	name := pkix.Name{
		Country:      []string{"NO"},
		Organization: []string{"Tromsø TPP AS"},
		CommonName:   "Tromsø TPP",
		ExtraNames:   []pkix.AttributeTypeAndValue{{Type: oidOrganizationIdentifier, Value: "PSDNO-FSA-912345678"}},
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      name,
		Issuer:       name,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key
}
