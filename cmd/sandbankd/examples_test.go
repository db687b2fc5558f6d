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
	"testing"
	"time"
)

// exampleLanguages are the folders of examples/, each with a run.sh.
var exampleLanguages = []string{"python", "node", "java"}

// exitRuntimeMissing is what an example's run.sh exits with when its
// language runtime (or a module it needs) is not installed.
const exitRuntimeMissing = 3

// TestExamples_Walkthrough runs each TPP client of examples/ (Python,
// Node.js, Java) against a real sandbankd of its own: a consent with
// automated SCA, accounts and paged transactions, a payment with its SCA,
// a batch run and the settled payment, every request signed and every
// response signature verified by the client's own code. Each runs twice:
// with a certificate from cert new, whose issuer is the bank's test CA,
// and with a self-signed one whose issuer DN is not ASCII, so the keyId
// travels RFC 2047 encoded; then once more against a bank that signs its
// responses with ECDSA (--response-signing ecdsa). A missing runtime
// skips the language, or fails it when SANDBANK_REQUIRE_EXAMPLES=1 (make
// test sets it).
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
			runExample(t, lang, "a certificate from cert new", d.URLs[0], cert, key)
			runExample(t, lang, "a self-signed certificate with a non-ASCII issuer", d.URLs[0], ownCert, ownKey)
			// A bank that signs its responses with ECDSA P-256.
			ecData := filepath.Join(dir, "ecdsa.db")
			ec := startDaemon(t, ecData, "--response-signing", "ecdsa")
			runExample(t, lang, "a bank with --response-signing ecdsa", ec.URLs[0], cert, key)
		})
	}
}

// runExample runs examples/<lang>/run.sh BASE_URL CERT KEY and fails the
// test, with the output, unless it exits 0. what names the certificate.
func runExample(t *testing.T, lang, what, base, cert, key string) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "..", "examples", lang, "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// Generous: a run takes a few seconds, javac included.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, base, cert, key)
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
		t.Fatalf("%s %s %s %s (%s): %v after %s\n%s", script, base, cert, key, what, err, elapsed, out)
	}
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
