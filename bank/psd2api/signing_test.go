package psd2api_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/rsa"
	"net/http"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sandbank/app/apptest"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// setSigning sets the responseSigning setting through the operator API
// and checks that its own answer is already in the new mode.
func setSigning(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, mode string) {
	t.Helper()
	d, r := settingsOf(t, b, b.Operator(), "PATCH", []byte(`{"responseSigning": "`+mode+`"}`), "Content-Type: application/merge-patch+json")
	if d.ResponseSigning != mode {
		t.Fatalf("responseSigning reads %q after setting %q", d.ResponseSigning, mode)
	}
	want := map[string]string{"rsa": httpsig.AlgorithmRSA, "ecdsa": httpsig.AlgorithmECDSA, "off": ""}[mode]
	if got := algorithmOf(t, r.Header); got != want {
		t.Fatalf("the answer that set %s is signed with %q, want %q", mode, got, want)
	}
}

// algorithmOf is the algorithm of a response's Signature; "" without one.
func algorithmOf(t *testing.T, h http.Header) string {
	t.Helper()
	if h.Get("Signature") == "" {
		return ""
	}
	p, err := httpsig.ParseSignature(h.Get("Signature"))
	if err != nil {
		t.Fatal(err)
	}
	return p.Algorithm
}

// opensslVerifies runs openssl dgst -sha256 -verify over a response's
// signing string with the public key in pub, as docs/TPP-GUIDE.md 2.6
// shows, and reports whether openssl says Verified OK.
func opensslVerifies(t *testing.T, dir, pub string, h http.Header) bool {
	t.Helper()
	p, err := httpsig.ParseSignature(h.Get("Signature"))
	if err != nil {
		t.Fatal(err)
	}
	var signing []string
	for _, name := range p.Headers {
		signing = append(signing, name+": "+h.Get(textproto.CanonicalMIMEHeaderKey(name)))
	}
	if err := os.WriteFile(filepath.Join(dir, "signing.txt"), []byte(strings.Join(signing, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sig.b64"), []byte(p.Signature+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, dir, nil, "openssl", "base64", "-d", "-A", "-in", "sig.b64", "-out", "sig.bin")
	cmd := exec.Command("openssl", "dgst", "-sha256", "-verify", pub, "-signature", "sig.bin", "signing.txt")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	ok := err == nil && bytes.Contains(out, []byte("Verified OK"))
	if !ok && !bytes.Contains(out, []byte("Verification failure")) {
		t.Fatalf("openssl dgst -verify: %v\n%s", err, out)
	}
	return ok
}

// TestResponseSigning_OpenSSL checks the bank's response signatures in
// the rsa and ecdsa modes with the openssl command line only: the
// certificate from GET /v1/sandbox/bank-certificate, its public key, the
// Digest of the body and the signature over the signing string. With off,
// the answer has no Signature and a Digest openssl agrees with.
func TestResponseSigning_OpenSSL(t *testing.T) {
	b, tpp := setup(t)
	dir := t.TempDir()
	opensslDigest := func(body []byte) string {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "body"), body, 0o600); err != nil {
			t.Fatal(err)
		}
		return "SHA-256=" + strings.TrimSpace(string(run(t, dir, nil, "sh", "-c", "openssl dgst -sha256 -binary body | openssl base64 -A")))
	}
	keys := map[string]string{}
	for _, c := range []struct {
		mode, algorithm, keyText string
	}{
		{"rsa", "rsa-sha256", "rsaEncryption"},
		{"ecdsa", "ecdsa-sha256", "id-ecPublicKey"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			setSigning(t, b, tpp, c.mode)
			r := b.Do(tpp, "GET", "/v1/sandbox/bank-certificate", nil)
			expect(t, r, 200, "")
			certFile := filepath.Join(dir, c.mode+".pem")
			if err := os.WriteFile(certFile, r.Body, 0o600); err != nil {
				t.Fatal(err)
			}
			text := run(t, dir, nil, "openssl", "x509", "-in", certFile, "-noout", "-text")
			if !bytes.Contains(text, []byte(c.keyText)) || !bytes.Contains(text, []byte("Sandbank Sandbox CA")) {
				t.Fatalf("the %s bank certificate is not a %s key issued by the test CA:\n%s", c.mode, c.keyText, text)
			}
			keys[c.mode] = filepath.Join(dir, c.mode+"-pub.pem")
			if err := os.WriteFile(keys[c.mode], run(t, dir, nil, "openssl", "x509", "-in", certFile, "-pubkey", "-noout"), 0o600); err != nil {
				t.Fatal(err)
			}

			r = b.Do(tpp, "GET", "/v1/sandbox/accounts", nil)
			expect(t, r, 200, "")
			if got := algorithmOf(t, r.Header); got != c.algorithm {
				t.Fatalf("algorithm %q, want %q", got, c.algorithm)
			}
			if r.Header.Get("Digest") != opensslDigest(r.Body) {
				t.Fatalf("Digest %q, openssl computes %q", r.Header.Get("Digest"), opensslDigest(r.Body))
			}
			if !opensslVerifies(t, dir, keys[c.mode], r.Header) {
				t.Fatal("openssl does not verify the response signature")
			}
			// A changed signed header no longer verifies.
			changed := r.Header.Clone()
			changed.Set("X-Request-ID", "another")
			if opensslVerifies(t, dir, keys[c.mode], changed) {
				t.Fatal("openssl verifies the signature over another X-Request-ID")
			}
		})
	}
	if len(keys) != 2 {
		t.FailNow()
	}
	// Each mode's signature verifies with its own key only.
	setSigning(t, b, tpp, "ecdsa")
	r := b.Do(tpp, "GET", "/v1/sandbox/accounts", nil)
	if opensslVerifies(t, dir, keys["rsa"], r.Header) {
		t.Fatal("an ECDSA response signature verifies with the RSA key")
	}

	t.Run("off", func(t *testing.T) {
		setSigning(t, b, tpp, "off")
		r := b.Do(tpp, "GET", "/v1/sandbox/accounts", nil)
		expect(t, r, 200, "")
		if r.Header.Get("Signature") != "" {
			t.Fatalf("Signature %q with responseSigning off", r.Header.Get("Signature"))
		}
		if r.Header.Get("Digest") != opensslDigest(r.Body) || r.Header.Get("Date") == "" {
			t.Fatalf("Digest %q (openssl: %q), Date %q", r.Header.Get("Digest"), opensslDigest(r.Body), r.Header.Get("Date"))
		}
	})
}

// TestResponseSigning_Modes: a change of the setting applies to the next
// answer, the bank certificate is the one of the mode in force (RSA while
// off), the ECDSA certificate is made once and kept in the data file,
// errors and the request log follow the mode, and PUT {} restores rsa.
func TestResponseSigning_Modes(t *testing.T) {
	b, tpp := setup(t)
	cert := func() []byte {
		t.Helper()
		r := b.Do(tpp, "GET", "/v1/sandbox/bank-certificate", nil)
		expect(t, r, 200, "")
		return r.Body
	}
	rsaPEM := cert()
	if !bytes.Equal(rsaPEM, pki.EncodeCert(b.BankCert.Cert)) {
		t.Fatal("the bank certificate in mode rsa is not the bank's RSA certificate")
	}

	setSigning(t, b, tpp, "ecdsa")
	ecPEM := cert()
	ecCert, err := pki.DecodeCert(ecPEM)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ecCert.PublicKey.(*ecdsa.PublicKey); !ok {
		t.Fatalf("the bank certificate in mode ecdsa holds a %T", ecCert.PublicKey)
	}
	if err := ecCert.CheckSignatureFrom(b.Authority.Cert); err != nil {
		t.Fatalf("the ECDSA bank certificate is not issued by the test CA: %v", err)
	}
	// An error answer is signed the same way.
	r := b.Do(tpp, "GET", "/v1/sandbox/accounts/enc!!nosuchaccount", nil)
	if r.Status != 404 || algorithmOf(t, r.Header) != httpsig.AlgorithmECDSA {
		t.Fatalf("error answer: %d, algorithm %q", r.Status, algorithmOf(t, r.Header))
	}
	if err := httpsig.VerifyResponse(r.Header, r.Body, ecCert); err != nil {
		t.Fatal(err)
	}
	// The ECDSA answer does not verify with the RSA certificate.
	if err := httpsig.VerifyResponse(r.Header, r.Body, b.BankCert.Cert); err == nil {
		t.Fatal("an ECDSA answer verifies with the RSA certificate")
	}

	// Back and forth: the same ECDSA certificate again.
	setSigning(t, b, tpp, "rsa")
	if !bytes.Equal(cert(), rsaPEM) {
		t.Fatal("the RSA bank certificate changed")
	}
	setSigning(t, b, tpp, "ecdsa")
	if !bytes.Equal(cert(), ecPEM) {
		t.Fatal("a second switch to ecdsa made another certificate")
	}

	setSigning(t, b, tpp, "off")
	if !bytes.Equal(cert(), rsaPEM) {
		t.Fatal("with off, the bank certificate is not the RSA one")
	}
	r = b.Do(b.Operator(), "GET", "/v1/sandbox/settings", nil)
	logged := b.Logged(r.Header.Get("X-Request-ID"))
	if logged.ResponseHeader.Get("Signature") != "" || logged.ResponseHeader.Get("Digest") != httpsig.Digest(r.Body) {
		t.Fatalf("the request log shows Signature %q, Digest %q", logged.ResponseHeader.Get("Signature"), logged.ResponseHeader.Get("Digest"))
	}
	// A HEAD answer has the Digest of no body.
	req := b.Request("HEAD", "/v1/sandbox/customers", nil)
	if err := tpp.Signer.SignRequest(req, nil); err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.Header.Get("Signature") != "" || resp.Header.Get("Digest") != httpsig.Digest(nil) {
		t.Fatalf("HEAD with off: Signature %q, Digest %q", resp.Header.Get("Signature"), resp.Header.Get("Digest"))
	}

	// PUT {} restores every default, rsa included.
	d, r := settingsOf(t, b, b.Operator(), "PUT", []byte(`{}`))
	if d.ResponseSigning != "rsa" || algorithmOf(t, r.Header) != httpsig.AlgorithmRSA {
		t.Fatalf("after PUT {}: %q, answer signed with %q", d.ResponseSigning, algorithmOf(t, r.Header))
	}
	if _, ok := b.BankCert.Cert.PublicKey.(*rsa.PublicKey); !ok {
		t.Fatal("the RSA bank certificate holds no RSA key")
	}
}
