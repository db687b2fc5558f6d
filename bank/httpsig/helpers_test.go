package httpsig_test

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// fixture holds the certificates and keys the tests share. RSA key
// generation is slow under -race, so there are only two RSA keys, made once.
type fixture struct {
	now time.Time

	ca *pki.Authority

	// tpp is a TPP certificate with the PSD2 QCStatement naming PSP_AI and
	// PSP_PI, issued by ca, and its RSA key.
	tpp    *x509.Certificate
	tppKey *rsa.PrivateKey

	// self is a self-signed certificate for tppKey without QCStatement.
	self *x509.Certificate

	// short is a self-signed certificate for an RSA key of 1024 bits.
	short    *x509.Certificate
	shortKey *rsa.PrivateKey

	// ec is a certificate for an ECDSA key, issued by ca.
	ec    *x509.Certificate
	ecKey *ecdsa.PrivateKey

	// badQC is a certificate for tppKey whose QCStatements extension is not
	// valid DER.
	badQC *x509.Certificate

	// bank is the bank's response-signing certificate and RSA key.
	bank    *x509.Certificate
	bankKey *rsa.PrivateKey
}

var (
	fixtureOnce sync.Once
	fixtureVal  *fixture
	fixtureErr  error
)

const tppOrg = "123456789"

var tppRoles = []string{pki.RoleAI, pki.RolePI}

func getFixture(tb testing.TB) *fixture {
	tb.Helper()
	fixtureOnce.Do(func() { fixtureVal, fixtureErr = newFixture() })
	if fixtureErr != nil {
		tb.Fatalf("fixture: %v", fixtureErr)
	}
	return fixtureVal
}

func newFixture() (*fixture, error) {
	f := &fixture{now: time.Now().UTC().Truncate(time.Second)}
	var err error
	if f.ca, err = pki.NewAuthority(f.now); err != nil {
		return nil, err
	}
	if f.tpp, f.tppKey, err = f.ca.NewTPP(pki.TPPRequestFor("Test TPP AS", tppOrg, tppRoles, 30, f.now), false); err != nil {
		return nil, err
	}
	if f.self, err = pki.SelfSigned(f.tppKey, "Self TPP", f.now); err != nil {
		return nil, err
	}
	if f.shortKey, err = rsa.GenerateKey(rand.Reader, 1024); err != nil {
		return nil, err
	}
	if f.short, err = pki.SelfSigned(f.shortKey, "Short Key TPP", f.now); err != nil {
		return nil, err
	}
	if f.ecKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		return nil, err
	}
	if f.ec, err = f.ca.IssueTPP(pki.TPPRequestFor("EC TPP", "42", []string{pki.RoleAI}, 30, f.now), f.ecKey.Public()); err != nil {
		return nil, err
	}
	badQCTmpl := &x509.Certificate{
		SerialNumber:    big.NewInt(0xBADC),
		Subject:         pkix.Name{CommonName: "Bad QC TPP"},
		NotBefore:       f.now.Add(-time.Hour),
		NotAfter:        f.now.Add(24 * time.Hour),
		KeyUsage:        x509.KeyUsageDigitalSignature,
		ExtraExtensions: []pkix.Extension{{Id: asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 1, 3}, Value: []byte{0x01, 0x02, 0x03}}},
	}
	der, err := x509.CreateCertificate(rand.Reader, badQCTmpl, f.ca.Cert, f.tppKey.Public(), f.ca.Key)
	if err != nil {
		return nil, err
	}
	if f.badQC, err = x509.ParseCertificate(der); err != nil {
		return nil, err
	}
	if f.bankKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		return nil, err
	}
	if f.bank, err = f.ca.IssueBank(f.bankKey, f.now); err != nil {
		return nil, err
	}
	return f, nil
}

// clock returns a fixed clock at the fixture's now plus d.
func (f *fixture) clock(d time.Duration) func() time.Time {
	t := f.now.Add(d)
	return func() time.Time { return t }
}

// keyID returns the keyId a conforming client writes for cert.
func keyID(cert *x509.Certificate) string {
	return fmt.Sprintf("SN=%X,CA=%s", cert.SerialNumber, httpsig.FormatDN(cert.Issuer))
}

func certHeader(cert *x509.Certificate) string {
	return base64.StdEncoding.EncodeToString(cert.Raw)
}

// serverRequest returns a request as an HTTP server hands it to a handler
// (RequestURI set), with headers given as name, value pairs.
func serverRequest(method, target string, body []byte, headers ...string) *http.Request {
	r := httptest.NewRequest(method, target, bytes.NewReader(body))
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Add(headers[i], headers[i+1])
	}
	return r
}

// handSign sets the Signature header of r the way a client does by hand:
// over the signing string of names, with key, hash h and the given keyId
// (as it is, its backslashes being the DN's own) and algorithm parameters.
// It returns the signing string.
func handSign(tb testing.TB, r *http.Request, key crypto.Signer, h crypto.Hash, kid, alg string, names []string) string {
	tb.Helper()
	signing, err := httpsig.SigningString(r, names)
	if err != nil {
		tb.Fatalf("SigningString: %v", err)
	}
	raw, err := key.Sign(rand.Reader, sum(h, []byte(signing)), h)
	if err != nil {
		tb.Fatalf("sign: %v", err)
	}
	r.Header.Set("Signature", fmt.Sprintf(`keyId="%s",algorithm="%s",headers="%s",signature="%s"`,
		kid, alg, strings.Join(names, " "), base64.StdEncoding.EncodeToString(raw)))
	return signing
}

func sum(h crypto.Hash, data []byte) []byte {
	if h == crypto.SHA512 {
		s := sha512.Sum512(data)
		return s[:]
	}
	s := sha256.Sum256(data)
	return s[:]
}

// digestOf computes a Digest header value independently of the package.
func digestOf(alg string, body []byte) string {
	h := crypto.SHA256
	if strings.EqualFold(alg, "SHA-512") {
		h = crypto.SHA512
	}
	return alg + "=" + base64.StdEncoding.EncodeToString(sum(h, body))
}

// signedTPPRequest returns a server request from the fixture's TPP signed
// over (request-target), date, digest (with a body), x-request-id and the
// extra headers given as name, value pairs (which are also signed).
func signedTPPRequest(tb testing.TB, f *fixture, method, target string, body []byte, extra ...string) *http.Request {
	tb.Helper()
	headers := []string{"Date", "Tue, 07 Jan 2025 10:00:00 GMT", "X-Request-ID", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721",
		"TPP-Signature-Certificate", certHeader(f.tpp)}
	names := []string{"(request-target)", "date"}
	if len(body) > 0 {
		headers = append(headers, "Digest", digestOf("SHA-256", body))
		names = append(names, "digest")
	}
	names = append(names, "x-request-id")
	headers = append(headers, extra...)
	for i := 0; i+1 < len(extra); i += 2 {
		names = append(names, strings.ToLower(extra[i]))
	}
	r := serverRequest(method, target, body, headers...)
	handSign(tb, r, f.tppKey, crypto.SHA256, keyID(f.tpp), "rsa-sha256", names)
	return r
}

// cloneRequest returns a fresh server request with r's method, target and
// a copy of its headers.
func cloneRequest(r *http.Request, body []byte) *http.Request {
	c := httptest.NewRequest(r.Method, r.RequestURI, bytes.NewReader(body))
	c.Header = r.Header.Clone()
	return c
}
