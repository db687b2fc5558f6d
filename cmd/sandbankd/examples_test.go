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

// TestExamples_Walkthrough runs each TPP client of examples/ (Python,
// Node.js, Java) against a real sandbankd of its own: a consent with
// automated SCA, accounts and paged transactions, a payment with its SCA,
// the operator's batch run and the settled payment, every request signed
// and every response signature verified by the client's own code. The
// TPP's requests sign with the TPP's certificate, the batch run and the
// clock with an operator certificate (OPERATOR_CERT_PEM and
// OPERATOR_KEY_PEM). Each runs twice: with a certificate from cert new,
// whose issuer is the bank's test CA, and with a self-signed one whose
// issuer DN is not ASCII, so the keyId travels RFC 2047 encoded, the
// operator's from cert new --operator on the running bank; then once more
// against a bank that signs its responses with ECDSA (--response-signing
// ecdsa), the operator's from its --operator-cert-out. Python runs twice
// more: without an operator certificate, when it says what it skips, stops
// with the payment approved and exits 0; and against a bank in batchMode
// immediate, which settles the payment at its approval on a banking day,
// when it needs no batch run. A missing runtime skips the language,
// or fails it when SANDBANK_REQUIRE_EXAMPLES=1 (make test sets it).
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
			d := startDaemon(t, data)
			// The operator's certificate, issued while the bank runs.
			op := filepath.Join(dir, "operator")
			if out, stderr, code := sandbankd(t, "", "cert", "new", "--operator", "--name", "Example operator", "--out", op, "--data", data); code != 0 {
				t.Fatalf("cert new --operator: %d %s %s", code, out, stderr)
			}
			if lang == "python" {
				out := runExample(t, lang, "no operator certificate", d.URLs[0], cert, key, "")
				if !strings.Contains(out, exampleSkipped) || strings.Contains(out, "ACSC") {
					t.Fatalf("python without an operator certificate: want the line %q and no ACSC:\n%s", exampleSkipped, out)
				}
			}
			runSettles(t, lang, "a certificate from cert new", d.URLs[0], cert, key, op)
			runSettles(t, lang, "a self-signed certificate with a non-ASCII issuer", d.URLs[0], ownCert, ownKey, op)
			// A bank that signs its responses with ECDSA P-256, and writes
			// an operator certificate at start.
			ecData := filepath.Join(dir, "ecdsa.db")
			ecOp := filepath.Join(dir, "ecdsa-operator")
			ec := startDaemon(t, ecData, "--response-signing", "ecdsa", "--operator-cert-out", ecOp)
			runSettles(t, lang, "a bank with --response-signing ecdsa", ec.URLs[0], cert, key, ecOp)
			if lang == "python" {
				// batchMode immediate settles the payment at its approval on
				// a banking day: then there is no batch run.
				if out, stderr, code := sandbankd(t, "", "settings", "set", "batchMode=immediate", "--data", ecData); code != 0 {
					t.Fatalf("settings set batchMode=immediate: %d %s %s", code, out, stderr)
				}
				out := runSettles(t, lang, "a bank with batchMode immediate", ec.URLs[0], cert, key, ecOp)
				if strings.Contains(out, "SCA FINALISED, ACSC") != strings.Contains(out, "6. no batch run needed") {
					t.Fatalf("python with batchMode immediate: a payment ACSC at its approval needs no batch run, and says so:\n%s", out)
				}
			}
		})
	}
}

// runSettles runs an example as runExample does, with the operator
// certificate in the folder op, and fails the test unless the payment
// settled; it returns the output.
func runSettles(t *testing.T, lang, what, base, cert, key, op string) string {
	t.Helper()
	out := runExample(t, lang, what, base, cert, key, op)
	if !strings.Contains(out, exampleSettled) || strings.Contains(out, "skipped:") {
		t.Fatalf("examples/%s with %s: the payment did not settle (want %q):\n%s", lang, what, exampleSettled, out)
	}
	return out
}

// runExample runs examples/<lang>/run.sh BASE_URL CERT KEY, with
// OPERATOR_CERT_PEM and OPERATOR_KEY_PEM set to op/cert.pem and
// op/key.pem (empty when op is ""), and returns its output; it fails the
// test, with the output, unless the script exits 0. what names the
// certificate.
func runExample(t *testing.T, lang, what, base, cert, key, op string) string {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "..", "examples", lang, "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	opCert, opKey := "", ""
	if op != "" {
		opCert, opKey = filepath.Join(op, "cert.pem"), filepath.Join(op, "key.pem")
	}
	// Generous: a run takes a few seconds, javac included, but the suite
	// may share two busy cores.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, base, cert, key)
	cmd.Env = append(os.Environ(), "OPERATOR_CERT_PEM="+opCert, "OPERATOR_KEY_PEM="+opKey)
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	out, err := cmd.CombinedOutput()
	elapsed := time.Since(start).Round(10 * time.Millisecond)
	var exit *exec.ExitError
	switch {
	case err == nil:
		t.Logf("%s with %s (%s):\n%s", script, what, elapsed, out)
	case errors.As(err, &exit) && exit.ExitCode() == exitRuntimeMissing:
		if os.Getenv("SANDBANK_REQUIRE_EXAMPLES") == "1" {
			t.Fatalf("%s: the runtime is missing (SANDBANK_REQUIRE_EXAMPLES=1; run scripts/install-deps):\n%s", script, out)
		}
		t.Skipf("%s: the runtime is missing; skipped (scripts/install-deps installs it):\n%s", script, out)
	default:
		t.Fatalf("%s %s %s %s (%s, OPERATOR_CERT_PEM=%q): %v after %s\n%s", script, base, cert, key, what, opCert, err, elapsed, out)
	}
	return string(out)
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
