package app_test

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"sandbank/app"
	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/httpsig"
)

// storedKeys reads the certificate material the data file keeps.
func storedKeys(t *testing.T, a *app.App) map[string]string {
	t.Helper()
	var k map[string]string
	if err := a.DB.View(func(tx bank.Tx) error { return tx.Setting("pki", &k) }); err != nil {
		t.Fatal(err)
	}
	return k
}

// signerOf returns the response signer in force and checks its mode.
func signerOf(t *testing.T, a *app.App, algorithm string, signs bool) *httpsig.Signer {
	t.Helper()
	s, sign := a.ResponseSigner()
	if s.Algorithm() != algorithm || sign != signs {
		t.Fatalf("the response signer is %s (signs: %v), want %s (signs: %v)", s.Algorithm(), sign, algorithm, signs)
	}
	return s
}

// TestApp_ResponseSigningModes: a data file gets its ECDSA bank
// certificate only when the mode ecdsa is asked for, from the flag at
// start or from a settings change while the bank runs, keeps it, and a
// flag given overrides the stored mode as --strict does.
func TestApp_ResponseSigningModes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbank.db")
	a := open(t, app.Config{DataPath: path})
	if k := storedKeys(t, a); k["bankEcdsaCert"] != "" || k["bankCert"] == "" {
		t.Fatalf("a new data file in mode rsa has an ECDSA certificate (%d bytes) or no RSA one", len(k["bankEcdsaCert"]))
	}
	if s := signerOf(t, a, httpsig.AlgorithmRSA, true); s != a.BankCert {
		t.Fatal("mode rsa does not sign with the RSA bank certificate")
	}
	_ = a.Close()

	// --response-signing ecdsa on a data file that has no ECDSA
	// certificate yet: made, stored, issued by the file's CA.
	a = open(t, app.Config{DataPath: path, ResponseSigning: bank.SigningECDSA})
	if st, _ := a.Bank.Ops.Settings(); st.ResponseSigning != bank.SigningECDSA {
		t.Fatalf("the flag was not stored: %q", st.ResponseSigning)
	}
	ec := signerOf(t, a, httpsig.AlgorithmECDSA, true)
	if _, ok := ec.Cert.PublicKey.(*ecdsa.PublicKey); !ok {
		t.Fatalf("the ECDSA bank certificate holds a %T", ec.Cert.PublicKey)
	}
	if err := ec.Cert.CheckSignatureFrom(a.Authority.Cert); err != nil {
		t.Fatalf("the ECDSA bank certificate is not issued by the data file's CA: %v", err)
	}
	if storedKeys(t, a)["bankEcdsaCert"] == "" {
		t.Fatal("the ECDSA certificate is not in the data file")
	}
	var banner bytes.Buffer
	if err := a.Banner(&banner); err != nil || !strings.Contains(banner.String(), "responses signed with ECDSA") {
		t.Fatalf("banner %q, %v", banner.String(), err)
	}
	_ = a.Close()

	// Without the flag the stored mode stands, with the same certificate.
	a = open(t, app.Config{DataPath: path})
	if again := signerOf(t, a, httpsig.AlgorithmECDSA, true); !again.Cert.Equal(ec.Cert) {
		t.Fatal("a restart made another ECDSA certificate")
	}
	// A settings change applies at once.
	if _, _, err := a.Bank.Ops.ChangeSettings(bank.SettingsDoc{ResponseSigning: ptr(bank.SigningOff)}); err != nil {
		t.Fatal(err)
	}
	if s := signerOf(t, a, httpsig.AlgorithmRSA, false); s != a.BankCert {
		t.Fatal("mode off does not keep the RSA certificate for GET /v1/sandbox/bank-certificate")
	}
	banner.Reset()
	if err := a.Banner(&banner); err != nil || !strings.Contains(banner.String(), "responses unsigned") {
		t.Fatalf("banner %q, %v", banner.String(), err)
	}
	_ = a.Close()

	a = open(t, app.Config{DataPath: path, ResponseSigning: bank.SigningRSA})
	signerOf(t, a, httpsig.AlgorithmRSA, true)
	_ = a.Close()

	// A data file without an ECDSA certificate gets one at the first
	// switch while the bank runs.
	a = open(t, app.Config{DataPath: filepath.Join(t.TempDir(), "other.db")})
	if _, err := a.Bank.Ops.UpdateSettings(func(s *bank.Settings) { s.ResponseSigning = bank.SigningECDSA }); err != nil {
		t.Fatal(err)
	}
	ec2 := signerOf(t, a, httpsig.AlgorithmECDSA, true)
	if ec2.Cert.Equal(ec.Cert) || storedKeys(t, a)["bankEcdsaCert"] == "" {
		t.Fatal("the switch did not make and store this file's own ECDSA certificate")
	}
	// A value out of range is refused and changes nothing.
	if _, err := a.Bank.Ops.UpdateSettings(func(s *bank.Settings) { s.ResponseSigning = "ed25519" }); err == nil || !strings.Contains(err.Error(), "responseSigning") {
		t.Fatalf("responseSigning ed25519: %v", err)
	}
	signerOf(t, a, httpsig.AlgorithmECDSA, true)
	if _, err := app.Open(app.Config{DataPath: filepath.Join(t.TempDir(), "third.db"), ResponseSigning: "ed25519"}); err == nil {
		t.Fatal("Open with responseSigning ed25519 succeeded")
	}
}

func ptr[T any](v T) *T { return &v }

// TestOpen_BadStoredECDSACertificateWritesNothing: an ECDSA bank
// certificate in the data file that cannot be read stops the start, as a
// bad CA certificate does, and the file stays as it was.
func TestOpen_BadStoredECDSACertificateWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbank.db")
	a := open(t, app.Config{DataPath: path, ResponseSigning: bank.SigningECDSA})
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		settings := tx.Bucket([]byte("settings"))
		var keys map[string]string
		if err := json.Unmarshal(settings.Get([]byte("pki")), &keys); err != nil {
			return err
		}
		// The RSA key where the ECDSA key belongs.
		keys["bankEcdsaKey"] = keys["bankKey"]
		raw, err := json.Marshal(keys)
		if err != nil {
			return err
		}
		return settings.Put([]byte("pki"), raw)
	})
	if err := errors.Join(err, b.Close()); err != nil {
		t.Fatal(err)
	}
	before := apptest.Sum(t, path)
	a, err = openNoPanic(t, app.Config{DataPath: path, Addr: "127.0.0.1:0"})
	if err == nil {
		_ = a.Close()
		t.Fatal("the bank started with an ECDSA certificate whose key is not its own")
	}
	apptest.CheckRefusal(t, path, err)
	if !strings.Contains(err.Error(), "ECDSA bank certificate") {
		t.Errorf("the refusal does not say what is wrong: %v", err)
	}
	if apptest.Sum(t, path) != before {
		t.Error("the failed start changed the file")
	}
}
