package httpsig

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Signer signs HTTP messages with a certificate's RSA key. It is what
// `sandbankd call` and the tests use to sign requests the way a TPP must.
type Signer struct {
	Cert *x509.Certificate
	Key  crypto.Signer
}

// NewSigner returns a signer for cert and key, checking that the key is
// an RSA key and belongs to the certificate.
func NewSigner(cert *x509.Certificate, key crypto.Signer) (*Signer, error) {
	pub, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("the certificate's key is %s; signatures need RSA", keyType(cert))
	}
	if kp, ok := key.Public().(*rsa.PublicKey); !ok || !kp.Equal(pub) {
		return nil, errors.New("the private key does not belong to the certificate")
	}
	return &Signer{Cert: cert, Key: key}, nil
}

// KeyID returns the keyId of the signer's certificate:
// SN=<serial in upper-case hex>,CA=<issuer DN>.
func (s *Signer) KeyID() string {
	return fmt.Sprintf("SN=%X,CA=%s", s.Cert.SerialNumber, FormatDN(s.Cert.Issuer))
}

// CertificateHeader returns the TPP-Signature-Certificate value: the
// certificate as base64 DER.
func (s *Signer) CertificateHeader() string {
	return base64.StdEncoding.EncodeToString(s.Cert.Raw)
}

// Digest returns the Digest header value of a body: SHA-256=<base64>.
func Digest(body []byte) string {
	sum := sha256.Sum256(body)
	return "SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
}

// DigestReader returns the Digest header value of the body read from r to
// its end, for a body too large to hold in memory: set it as the request's
// Digest header and sign with SignRequest(r, nil).
func DigestReader(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return "SHA-256=" + base64.StdEncoding.EncodeToString(h.Sum(nil)), nil
}

// requestHeaders are signed, in this order, whenever a request has them.
var requestHeaders = []string{"(request-target)", "date", "digest", "x-request-id", "psu-id", "psu-corporate-id", "tpp-redirect-uri"}

// SignRequest signs r, whose body is body: it sets X-Request-ID (when
// missing), Date, Digest (when there is a body), TPP-Signature-Certificate
// and Signature over (request-target), date, digest, x-request-id and the
// PSU and redirect headers that r carries. With no body, a Digest that r
// carries already (DigestReader) is signed as it is.
func (s *Signer) SignRequest(r *http.Request, body []byte) error {
	if r.Header.Get("X-Request-ID") == "" {
		r.Header.Set("X-Request-ID", uuid.NewString())
	}
	if r.Header.Get("Date") == "" {
		r.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	if len(body) > 0 {
		r.Header.Set("Digest", Digest(body))
	}
	r.Header.Set("TPP-Signature-Certificate", s.CertificateHeader())
	var names []string
	for _, name := range requestHeaders {
		if name == "(request-target)" || len(r.Header.Values(name)) > 0 {
			names = append(names, name)
		}
	}
	sig, err := s.sign(r, names)
	if err != nil {
		return err
	}
	r.Header.Set("Signature", sig)
	return nil
}

// sign returns a Signature header value over the listed headers of r.
func (s *Signer) sign(r *http.Request, names []string) (string, error) {
	signing, err := SigningString(r, names)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(signing))
	sig, err := s.Key.Sign(rand.Reader, sum[:], crypto.SHA256)
	if err != nil {
		return "", fmt.Errorf("sign: %w", err)
	}
	// The keyId goes in as it is, its DN's backslashes being its own
	// (docs/TPP-GUIDE.md 2.4): FormatDN escapes every '"' and '\' of a value, so no
	// quote in it ends the parameter early.
	return fmt.Sprintf(`keyId="%s",algorithm="rsa-sha256",headers="%s",signature="%s"`,
		s.KeyID(), strings.Join(names, " "), base64.StdEncoding.EncodeToString(sig)), nil
}

// responseHeaders are the headers a response signature covers.
var responseHeaders = []string{"date", "digest", "x-request-id"}

// SignResponse sets Date, Digest and Signature on response headers h for
// body (README, "Point your TPP at Sandbank"). h must hold X-Request-ID.
func (s *Signer) SignResponse(h http.Header, body []byte, now time.Time) error {
	h.Set("Date", now.UTC().Format(http.TimeFormat))
	h.Set("Digest", Digest(body))
	sig, err := s.sign(&http.Request{Header: h}, responseHeaders)
	if err != nil {
		return err
	}
	h.Set("Signature", sig)
	return nil
}

// VerifyResponse checks a response signed by the bank with bankCert: the
// Digest of body and the Signature over date, digest and x-request-id.
func VerifyResponse(h http.Header, body []byte, bankCert *x509.Certificate) error {
	if want := Digest(body); h.Get("Digest") != want {
		return fmt.Errorf("response Digest %q does not match the body (%s)", h.Get("Digest"), want)
	}
	p, err := ParseSignature(h.Get("Signature"))
	if err != nil {
		return fmt.Errorf("response Signature: %w", err)
	}
	for _, name := range responseHeaders {
		if !slices.Contains(p.Headers, name) {
			return fmt.Errorf("the response signature does not cover %s; it must cover %s", name, strings.Join(responseHeaders, " "))
		}
	}
	v := &Verdict{}
	if !checkKeyID(v, p.KeyID, bankCert, false) {
		return v.Err
	}
	signing, err := SigningString(&http.Request{Header: h}, p.Headers)
	if err != nil {
		return err
	}
	sig, err := decodeBase64(p.Signature)
	if err != nil {
		return errors.New("response signature is not base64")
	}
	pub, ok := bankCert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return errors.New("the bank certificate holds no RSA key")
	}
	sum := sha256.Sum256([]byte(signing))
	if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig); err != nil {
		return errors.New("the response signature does not verify with the bank certificate")
	}
	return nil
}
