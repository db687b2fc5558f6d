package httpsig_test

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"net/http"
	"testing"
	"time"

	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// BenchmarkVerify measures signature verification alone: digest, keyId,
// header rules and the RSA-2048 check, for the same certificate each time
// (its parse is cached, as it is for a TPP that sends many requests) and
// for a certificate seen for the first time; and the refusal of a
// signature over other values.
func BenchmarkVerify(b *testing.B) {
	ca, err := pki.NewAuthority(time.Now())
	if err != nil {
		b.Fatal(err)
	}
	cert, key, err := ca.NewTPP(pki.TPPRequestFor("Bench TPP", "933012867", []string{pki.RoleAI, pki.RolePI}, 10, time.Now()), false)
	if err != nil {
		b.Fatal(err)
	}
	signer, err := httpsig.NewSigner(cert, key)
	if err != nil {
		b.Fatal(err)
	}
	body := bytes.Repeat([]byte(`{"a":1}`), 100)
	req, _ := http.NewRequest("POST", "http://bank/v1/sandbox/customers?x=1", bytes.NewReader(body))
	req.Header.Set("X-Request-ID", "bench")
	req.Header.Set("PSU-ID", "0f6c5b1e-5a7e-4c3e-9e1e-2b1c3d4e5f60")
	if err := signer.SignRequest(req, body); err != nil {
		b.Fatal(err)
	}
	b.Run("cached-certificate", func(b *testing.B) {
		vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, time.Now)
		for b.Loop() {
			if v := vf.Verify(req, body); v.Err != nil {
				b.Fatal(v.Err)
			}
		}
	})
	b.Run("new-certificate", func(b *testing.B) {
		for b.Loop() {
			vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, time.Now)
			if v := vf.Verify(req, body); v.Err != nil {
				b.Fatal(v.Err)
			}
		}
	})
	// A signature over another X-Request-ID: the refusal tries every
	// signing mistake (diagnose.go) before it gives the generic message,
	// the most work a refused signature costs.
	b.Run("refused-signature", func(b *testing.B) {
		changed := req.Clone(req.Context())
		changed.Header = req.Header.Clone()
		changed.Header.Set("X-Request-ID", "changed")
		vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, time.Now)
		for b.Loop() {
			if v := vf.Verify(changed, body); v.Err == nil {
				b.Fatal("a signature over another X-Request-ID verified")
			}
		}
	})
	b.Run("trust-store-chain", func(b *testing.B) {
		roots := x509.NewCertPool()
		roots.AddCert(ca.Cert)
		trust := func(c *x509.Certificate) error {
			_, err := c.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
			return err
		}
		vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true, Trust: trust}, time.Now)
		for b.Loop() {
			if v := vf.Verify(req, body); v.Err != nil {
				b.Fatal(v.Err)
			}
		}
	})
}

// BenchmarkSignResponse measures the bank's signature on a response (Date,
// Digest of a 4 KiB body, the signature over date digest x-request-id):
// work every signed response of the bank does. The keys go through PEM
// and back, as the bank's keys do in the data file; rsa is RSA-2048, ecdsa
// P-256 (the responseSigning setting).
func BenchmarkSignResponse(b *testing.B) {
	ca, err := pki.NewAuthority(time.Now())
	if err != nil {
		b.Fatal(err)
	}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		b.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	body := bytes.Repeat([]byte("x"), 4096)
	for _, c := range []struct {
		name string
		key  crypto.Signer
	}{{"rsa", rsaKey}, {"ecdsa", ecKey}} {
		b.Run(c.name, func(b *testing.B) {
			pemKey, err := pki.EncodeKey(c.key)
			if err != nil {
				b.Fatal(err)
			}
			key, err := pki.DecodeKey(pemKey)
			if err != nil {
				b.Fatal(err)
			}
			cert, err := ca.IssueBank(key, time.Now())
			if err != nil {
				b.Fatal(err)
			}
			signer, err := httpsig.NewResponseSigner(cert, key)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				h := http.Header{"X-Request-Id": {"bench"}}
				if err := signer.SignResponse(h, body, time.Now()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
