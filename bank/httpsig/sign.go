package httpsig

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
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

	"sandbank/bank/apierr"
)

// Signature algorithms. Requests are signed with RSA (rsa-sha256; the
// bank also takes rsa-sha512); the bank signs its responses with RSA or,
// with the responseSigning setting ecdsa, with ECDSA P-256
// (ecdsa-sha256).
const (
	AlgorithmRSA   = "rsa-sha256"
	AlgorithmECDSA = "ecdsa-sha256"
)

// Signer signs HTTP messages with a certificate's key. It is what
// `sandbankd call` and the tests use to sign requests the way a TPP must,
// and what the bank signs its responses with.
type Signer struct {
	Cert *x509.Certificate
	Key  crypto.Signer
	// keyID and algorithm are worked out once, by NewSigner and
	// NewResponseSigner; a Signer built by hand works them out each time.
	keyID     string
	algorithm string
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
	return newSigner(cert, key, AlgorithmRSA), nil
}

// NewResponseSigner returns a signer of the bank's responses for cert
// and key: an RSA key (rsa-sha256) or an ECDSA P-256 key (ecdsa-sha256,
// the signature value being the ASN.1 DER of the ECDSA signature, as
// openssl dgst -sha256 -sign writes it). Its SignRequest works with an
// RSA key only.
func NewResponseSigner(cert *x509.Certificate, key crypto.Signer) (*Signer, error) {
	pub, ok := cert.PublicKey.(*ecdsa.PublicKey)
	if !ok {
		return NewSigner(cert, key)
	}
	if pub.Curve != elliptic.P256() {
		return nil, fmt.Errorf("the certificate's key is on %s; ECDSA signatures need P-256", pub.Curve.Params().Name)
	}
	if kp, ok := key.Public().(*ecdsa.PublicKey); !ok || !kp.Equal(pub) {
		return nil, errors.New("the private key does not belong to the certificate")
	}
	return newSigner(cert, key, AlgorithmECDSA), nil
}

func newSigner(cert *x509.Certificate, key crypto.Signer, algorithm string) *Signer {
	s := &Signer{Cert: cert, Key: key, algorithm: algorithm}
	s.keyID = s.KeyID()
	return s
}

// Algorithm is the algorithm parameter of the signer's signatures:
// AlgorithmRSA or AlgorithmECDSA.
func (s *Signer) Algorithm() string {
	if s.algorithm != "" {
		return s.algorithm
	}
	if _, ok := s.Key.Public().(*ecdsa.PublicKey); ok {
		return AlgorithmECDSA
	}
	return AlgorithmRSA
}

// KeyID returns the keyId of the signer's certificate:
// SN=<serial in upper-case hex>,CA=<issuer DN>.
func (s *Signer) KeyID() string {
	if s.keyID != "" {
		return s.keyID
	}
	return fmt.Sprintf("SN=%X,CA=%s", s.Cert.SerialNumber, FormatDN(s.Cert.Issuer))
}

// CertificateHeader returns the TPP-Signature-Certificate value: the
// certificate as base64 DER.
func (s *Signer) CertificateHeader() string {
	return base64.StdEncoding.EncodeToString(s.Cert.Raw)
}

// Digest returns the Digest header value of a body: SHA-256=<base64>.
func Digest(body []byte) string {
	return string(appendDigest(make([]byte, 0, 52), body))
}

// appendDigest appends the Digest header value of body to b.
func appendDigest(b, body []byte) []byte {
	sum := sha256.Sum256(body)
	return base64.StdEncoding.AppendEncode(append(b, "SHA-256="...), sum[:])
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
	if alg := s.Algorithm(); alg != AlgorithmRSA {
		return fmt.Errorf("request signatures need an RSA key; the bank refuses %s on a request", alg)
	}
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

// SignRequestOver signs r as a recorded request was signed: over the
// headers a recorded Signature listed, in that order (ParseSignature's
// Headers), which r must carry, (request-target) aside. It sets Digest
// when there is a body, in the algorithm of the Digest r carries
// (DigestAs), TPP-Signature-Certificate and Signature, and leaves
// X-Request-ID and Date as r has them: what the recorded request left
// out stays out, so the bank sees what it saw then, signed anew.
func (s *Signer) SignRequestOver(r *http.Request, body []byte, headers []string) error {
	if alg := s.Algorithm(); alg != AlgorithmRSA {
		return fmt.Errorf("request signatures need an RSA key; the bank refuses %s on a request", alg)
	}
	if len(body) > 0 {
		r.Header.Set("Digest", DigestAs(r.Header.Get("Digest"), body))
	}
	r.Header.Set("TPP-Signature-Certificate", s.CertificateHeader())
	names := make([]string, len(headers))
	for i, h := range headers {
		names[i] = strings.ToLower(h)
	}
	sig, err := s.sign(r, names)
	if err != nil {
		return err
	}
	r.Header.Set("Signature", sig)
	return nil
}

// DigestAs returns the Digest header value of body in the algorithm a
// recorded Digest value names: SHA-512=<base64> when it starts with
// SHA-512 (in any case), else SHA-256=<base64> as Digest writes it.
func DigestAs(recorded string, body []byte) string {
	alg, _, _ := strings.Cut(strings.TrimSpace(recorded), "=")
	if h, ok := digestHash(alg); ok && h == crypto.SHA512 {
		sum := sha512.Sum512(body)
		return "SHA-512=" + base64.StdEncoding.EncodeToString(sum[:])
	}
	return Digest(body)
}

// sign returns a Signature header value over the listed headers of r.
func (s *Signer) sign(r *http.Request, names []string) (string, error) {
	signing, err := SigningString(r, names)
	if err != nil {
		return "", err
	}
	return s.signatureHeader([]byte(signing), strings.Join(names, " "))
}

// signatureHeader signs a signing string and returns the Signature
// header value naming headers.
func (s *Signer) signatureHeader(signing []byte, headers string) (string, error) {
	sum := sha256.Sum256(signing)
	sig, err := s.Key.Sign(rand.Reader, sum[:], crypto.SHA256)
	if err != nil {
		return "", fmt.Errorf("sign: %w", err)
	}
	// The keyId goes in as it is, its DN's backslashes being its own
	// (docs/TPP-GUIDE.md 2.4): FormatDN escapes every '"' and '\' of a value, so no
	// quote in it ends the parameter early.
	keyID, alg := s.KeyID(), s.Algorithm()
	out := make([]byte, 0, len(keyID)+len(alg)+len(headers)+base64.StdEncoding.EncodedLen(len(sig))+50)
	out = append(out, `keyId="`...)
	out = append(out, keyID...)
	out = append(out, `",algorithm="`...)
	out = append(out, alg...)
	out = append(out, `",headers="`...)
	out = append(out, headers...)
	out = append(out, `",signature="`...)
	out = base64.StdEncoding.AppendEncode(out, sig)
	out = append(out, '"')
	return string(out), nil
}

// responseHeaders are the headers every response signature covers.
var responseHeaders = []string{"date", "digest", "x-request-id"}

// responseHeaderList is the headers parameter of a response signature.
const responseHeaderList = "date digest x-request-id"

// notesHeader is apierr.NotesHeader as a signature's headers list names
// it: a response signature covers it too, after the others, when the
// response carries it.
var notesHeader = strings.ToLower(apierr.NotesHeader)

// SignResponse sets Date, Digest and Signature on response headers h for
// body (README, "Point your TPP at Sandbank"). h must hold X-Request-ID.
func (s *Signer) SignResponse(h http.Header, body []byte, now time.Time) error {
	return s.SignResponseDigest(h, Digest(body), now)
}

// SignResponseDigest is SignResponse for a body whose Digest header value
// (Digest, DigestReader) is digest: a body too large to hold in memory is
// digested where it is kept, and signed without being read again. The
// signature covers date, digest and x-request-id, and sandbank-notes when
// h holds it. It builds the signing string in one buffer, as
// SigningString would over h.
func (s *Signer) SignResponseDigest(h http.Header, digest string, now time.Time) error {
	ids := h.Values("X-Request-Id")
	if ids == nil {
		return errors.New("headers lists x-request-id, but the response has no x-request-id header")
	}
	b := make([]byte, 0, 128+len(ids[0]))
	b = append(b, "date: "...)
	start := len(b)
	b = now.UTC().AppendFormat(b, http.TimeFormat)
	date := string(b[start:])
	b = append(b, "\ndigest: "...)
	b = append(b, digest...)
	b = append(b, "\nx-request-id: "...)
	for i, id := range ids {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, id...)
	}
	list := responseHeaderList
	if notes := h.Values(apierr.NotesHeader); notes != nil {
		b = append(b, '\n')
		b = append(b, notesHeader...)
		b = append(b, ": "...)
		b = append(b, strings.Join(notes, ", ")...)
		list += " " + notesHeader
	}
	sig, err := s.signatureHeader(b, list)
	if err != nil {
		return err
	}
	h["Date"] = []string{date}
	h["Digest"] = []string{digest}
	h["Signature"] = []string{sig}
	return nil
}

// VerifyResponse checks a response signed by the bank with bankCert: the
// Digest of body and the Signature over date, digest and x-request-id
// (and sandbank-notes, when the response carries it), with the algorithm
// of the certificate's key: rsa-sha256 for an RSA key, ecdsa-sha256 (an
// ASN.1 DER signature) for an ECDSA P-256 key.
func VerifyResponse(h http.Header, body []byte, bankCert *x509.Certificate) error {
	return VerifyResponseDigest(h, Digest(body), bankCert)
}

// VerifyResponseDigest is VerifyResponse for a body whose Digest header
// value is digest: a body too large to hold in memory (a scenario export)
// is digested as it is read, with DigestReader.
func VerifyResponseDigest(h http.Header, digest string, bankCert *x509.Certificate) error {
	if h.Get("Digest") != digest {
		return fmt.Errorf("response Digest %q does not match the body (%s)", h.Get("Digest"), digest)
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
	if h.Values(apierr.NotesHeader) != nil && !slices.Contains(p.Headers, notesHeader) {
		return fmt.Errorf("the response carries %s, but its signature does not cover %s", apierr.NotesHeader, notesHeader)
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
	sum := sha256.Sum256([]byte(signing))
	var ok bool
	switch pub := bankCert.PublicKey.(type) {
	case *rsa.PublicKey:
		if !strings.EqualFold(p.Algorithm, AlgorithmRSA) {
			return fmt.Errorf("the response signature's algorithm is %q, but the bank certificate holds an RSA key (%s); fetch the certificate of the responseSigning mode in force", p.Algorithm, AlgorithmRSA)
		}
		ok = rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig) == nil
	case *ecdsa.PublicKey:
		if !strings.EqualFold(p.Algorithm, AlgorithmECDSA) {
			return fmt.Errorf("the response signature's algorithm is %q, but the bank certificate holds an ECDSA key (%s); fetch the certificate of the responseSigning mode in force", p.Algorithm, AlgorithmECDSA)
		}
		ok = ecdsa.VerifyASN1(pub, sum[:], sig)
	default:
		return fmt.Errorf("the bank certificate holds a %s key; responses are signed with RSA or ECDSA", keyType(bankCert))
	}
	if !ok {
		return errors.New("the response signature does not verify with the bank certificate")
	}
	return nil
}
