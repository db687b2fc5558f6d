package httpsig

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"sandbank/bank/apierr"
	"sandbank/bank/pki"
)

// Step is one check of a signature verification and its outcome, in words
// a TPP developer can act on.
type Step struct {
	Check  string `json:"check"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// Verdict is the outcome of verifying one request: every step taken, what
// was signed, and the error when a step failed (nil when the request
// passed).
type Verdict struct {
	Signed        bool              `json:"signed"`
	Steps         []Step            `json:"steps"`
	SignedHeaders []string          `json:"signedHeaders,omitempty"`
	SigningString string            `json:"signingString,omitempty"`
	Digest        string            `json:"digest,omitempty"`
	Cert          *x509.Certificate `json:"-"`
	TPPID         string            `json:"tppId,omitempty"`
	// Roles are the PSD2 roles the request may use.
	Roles []string `json:"roles,omitempty"`
	// Operator is set when the request is signed with an operator
	// certificate of the bank's own CA (Policy.Operator) and the signature
	// verified: it may do what concerns every TPP.
	Operator bool `json:"operator,omitempty"`
	// Notes are the client notes of the request: what was odd about its
	// signature that the bank accepted as the real bank does, with what to
	// change (bank.Oddity warnings, docs/TPP-GUIDE.md 9). Strict mode refuses them
	// instead.
	Notes []apierr.Message `json:"notes,omitempty"`
	Err   *apierr.Error    `json:"-"`
}

// pass records a step that passed. Its detail is built without fmt on
// the steps every signed request takes.
func (v *Verdict) pass(check, detail string) {
	v.Steps = append(v.Steps, Step{Check: check, OK: true, Detail: detail})
}

// fail records a failed step and the error the request gets.
func (v *Verdict) fail(check, code, format string, args ...any) *Verdict {
	detail := fmt.Sprintf(format, args...)
	v.Steps = append(v.Steps, Step{Check: check, OK: false, Detail: detail})
	v.Err = apierr.Errorf(code, "%s", detail)
	return v
}

// Policy is what a Verifier accepts. It can change while the bank runs.
type Policy struct {
	// RequireSignature refuses unsigned requests; when false they pass,
	// marked unsigned. Signed requests are verified either way.
	RequireSignature bool
	// Trust checks a certificate's chain in trust mode store; nil is trust
	// mode any, which accepts any certificate whose signature verifies.
	Trust func(*x509.Certificate) error
	// Strict refuses what the bank otherwise accepts with a client note
	// (Verdict.Notes), as SIGNATURE_INVALID.
	Strict bool
	// Operator reports whether a certificate is the bank's operator
	// certificate (pki.Authority.IsOperator); nil: none is.
	Operator func(*x509.Certificate) bool
}

// Verifier checks signed requests. It is safe for concurrent use.
type Verifier struct {
	policy atomic.Pointer[Policy]
	now    func() time.Time // the real clock; certificate validity uses it

	mu    sync.Mutex
	certs map[string]parsedCert
	// keyIDs holds the keyIds that passed checkKeyID for a certificate of
	// certs: the same TPP sends the same keyId with every request.
	keyIDs map[keyIDKey]keyIDResult
}

// keyIDKey is one keyId checked against one certificate.
type keyIDKey struct {
	cert   *x509.Certificate
	keyID  string
	strict bool
}

// keyIDResult is what checkKeyID made of a keyId that passed: its step and
// its notes.
type keyIDResult struct {
	step  Step
	notes []apierr.Message
}

// NewVerifier returns a verifier with a policy, checking certificate
// validity against now.
func NewVerifier(p Policy, now func() time.Time) *Verifier {
	v := &Verifier{now: now}
	v.SetPolicy(p)
	return v
}

// SetPolicy changes what the verifier accepts from the next request on.
func (vf *Verifier) SetPolicy(p Policy) { vf.policy.Store(&p) }

// parsedCert caches what a TPP-Signature-Certificate header value gives.
type parsedCert struct {
	cert    *x509.Certificate
	err     string
	roles   []string
	named   bool
	roleErr string
	decoded string
	tppID   string
	// validity is the validity step's text.
	validity string
	// note is the client note on a value that carries more than the
	// base64 DER (certificateNote), nil for none.
	note *apierr.Message
}

const certCacheSize = 1024

// UnsignedTPP is the TPP identity of unsigned requests when requireSignature
// is off and no certificate came with them.
const UnsignedTPP = "UNSIGNED"

// Verify checks a request against docs/TPP-GUIDE.md 2 and explains every
// step. body is the exact request body.
func (vf *Verifier) Verify(r *http.Request, body []byte) *Verdict {
	v := vf.VerifyHeaders(r, len(body) > 0)
	if v.Err == nil {
		vf.VerifyBody(v, r, body)
	}
	return v
}

// VerifyBody checks the Digest of a request whose headers verified
// (VerifyHeaders) against its body, the last step of Verify; a mismatch
// fails the verdict.
func (vf *Verifier) VerifyBody(v *Verdict, r *http.Request, body []byte) {
	if v.Signed {
		vf.checkDigest(v, r, int64(len(body)), func(h crypto.Hash) []byte { return hashOf(h, body) })
	}
}

// BodyDigest hashes a request body as it is read, for a body too large
// to hold in memory: write the body to it, then VerifyBodyDigest checks
// it as VerifyBody would. It computes the digests the request's Digest
// header names (SHA-256, SHA-512).
type BodyDigest struct {
	n      int64
	hashes map[crypto.Hash]hash.Hash
}

// NewBodyDigest returns a BodyDigest for a request whose Digest header
// is header.
func NewBodyDigest(header string) *BodyDigest {
	d := &BodyDigest{hashes: map[crypto.Hash]hash.Hash{}}
	for _, item := range strings.Split(header, ",") {
		alg, _, _ := strings.Cut(strings.TrimSpace(item), "=")
		if h, ok := digestHash(alg); ok && d.hashes[h] == nil {
			d.hashes[h] = h.New()
		}
	}
	return d
}

// Write hashes p, the next bytes of the body.
func (d *BodyDigest) Write(p []byte) (int, error) {
	d.n += int64(len(p))
	for _, h := range d.hashes {
		h.Write(p)
	}
	return len(p), nil
}

// VerifyBodyDigest is VerifyBody for a body hashed as it was read (d).
func (vf *Verifier) VerifyBodyDigest(v *Verdict, r *http.Request, d *BodyDigest) {
	if v.Signed {
		vf.checkDigest(v, r, d.n, func(h crypto.Hash) []byte { return d.hashes[h].Sum(nil) })
	}
}

// VerifyHeaders checks everything of a request but its body: the
// certificate, its validity, trust and roles, the keyId, the signed
// headers and the signature over them (which covers the Digest header).
// hasBody says whether the request announces a body. A server calls it
// before it reads the body, so that a request that fails is answered at
// once, and checks the body with VerifyBody.
func (vf *Verifier) VerifyHeaders(r *http.Request, hasBody bool) *Verdict {
	v := &Verdict{}
	policy := vf.policy.Load()
	sigValue := r.Header.Get("Signature")
	certValue := r.Header.Get("TPP-Signature-Certificate")
	if sigValue == "" {
		if policy.RequireSignature {
			return v.fail("signature", apierr.CodeSignatureMissing, "the request has no Signature header; sign it (see sandbankd call) or turn requireSignature off while you start")
		}
		v.pass("signature", "unsigned request let through: requireSignature is off")
		v.TPPID, v.Roles = UnsignedTPP, slices.Clone(pki.Roles)
		if certValue != "" {
			if pc := vf.parse(certValue); pc.cert != nil {
				v.TPPID, v.Cert = pc.tppID, pc.cert
			}
		}
		return v
	}
	v.Signed = true
	cert, ok := vf.checkCertificate(v, policy, certValue)
	if !ok {
		return v
	}
	if hasBody && r.Header.Get("Digest") == "" {
		return v.fail("digest", apierr.CodeHeaderRequired, "the request has a body but no Digest header; send Digest: SHA-256=<base64 of the SHA-256 of the exact body bytes>")
	}
	vf.checkSignature(v, r, hasBody, sigValue, cert, policy.Strict)
	if v.Err == nil && policy.Operator != nil && policy.Operator(cert) {
		v.Operator = true
		v.pass("operator", "the bank's own CA issued this operator certificate: the request may do what concerns every TPP")
	}
	return v
}

// checkCertificate makes the certificate's steps: it decodes, is valid
// now, is trusted, has a key long enough, and names roles. It returns the
// certificate, and false when a step failed.
func (vf *Verifier) checkCertificate(v *Verdict, policy *Policy, certValue string) (*x509.Certificate, bool) {
	if certValue == "" {
		v.fail("certificate", apierr.CodeHeaderRequired, "TPP-Signature-Certificate is missing; send the signing certificate as base64 DER")
		return nil, false
	}
	pc := vf.parse(certValue)
	if pc.cert == nil {
		v.fail("certificate", apierr.CodeCertificateInvalid, "TPP-Signature-Certificate %s", pc.err)
		return nil, false
	}
	cert := pc.cert
	v.Cert, v.TPPID = cert, pc.tppID
	switch {
	case pc.note == nil:
		v.Steps = append(v.Steps, Step{Check: "certificate", OK: true, Detail: pc.decoded})
	case policy.Strict:
		refusal, _ := apierr.AsError(apierr.Refusal([]apierr.Message{*pc.note}))
		v.fail("certificate", apierr.CodeCertificateInvalid, "%s", joinTexts(refusal.Messages))
		return nil, false
	default:
		v.Notes = append(v.Notes, *pc.note)
		v.Steps = append(v.Steps, Step{Check: "certificate", OK: true, Detail: pc.decoded + ", with a warning: " + pc.note.Text})
	}
	now := vf.now()
	if now.Before(cert.NotBefore) {
		v.fail("validity", apierr.CodeCertificateExpired, "the certificate is valid from %s, which is in the future", cert.NotBefore.UTC().Format(time.RFC3339))
		return nil, false
	}
	if now.After(cert.NotAfter) {
		v.fail("validity", apierr.CodeCertificateExpired, "the certificate expired at %s; issue a new one (sandbankd cert new)", cert.NotAfter.UTC().Format(time.RFC3339))
		return nil, false
	}
	v.Steps = append(v.Steps, Step{Check: "validity", OK: true, Detail: pc.validity})
	if policy.Trust == nil {
		v.pass("trust", "trust mode any: any certificate is accepted when its signature verifies")
	} else if err := policy.Trust(cert); err != nil {
		v.fail("trust", apierr.CodeCertificateInvalid, "trust mode store: %v", err)
		return nil, false
	} else {
		v.pass("trust", "trust mode store: the certificate chains to a trusted CA")
	}
	if pub, ok := cert.PublicKey.(*rsa.PublicKey); !ok {
		v.pass("key", "a "+keyType(cert)+" key")
	} else if err := pki.CheckRSAKeySize("the certificate's RSA key", pub); err != nil {
		v.fail("key", apierr.CodeCertificateInvalid, "%v", err)
		return nil, false
	} else {
		v.pass("key", "an RSA key of "+strconv.Itoa(pub.N.BitLen())+" bits")
	}
	if pc.roleErr != "" {
		v.fail("roles", apierr.CodeCertificateInvalid, "%s", pc.roleErr)
		return nil, false
	}
	switch {
	case pc.named:
		v.Roles = slices.Clone(pc.roles)
		v.pass("roles", "the PSD2 QCStatement names the roles "+listOrNone(pc.roles))
	case policy.Trust == nil:
		v.Roles = slices.Clone(pki.Roles)
		v.pass("roles", "no PSD2 QCStatement: every role in trust mode any")
	default:
		v.Roles = []string{}
		v.pass("roles", "no PSD2 QCStatement: no role in trust mode store")
	}
	return cert, true
}

// checkSignature makes the signature's steps: the Signature header parses,
// its keyId names cert, the algorithm and the signed headers are
// acceptable, and the signature verifies over the signing string.
func (vf *Verifier) checkSignature(v *Verdict, r *http.Request, hasBody bool, sigValue string, cert *x509.Certificate, strict bool) {
	p, err := ParseSignature(sigValue)
	if err != nil {
		v.fail("signature header", apierr.CodeSignatureInvalid, "%v", err)
		return
	}
	v.pass("signature header", "keyId="+strconv.Quote(p.KeyID)+" algorithm="+strconv.Quote(p.Algorithm)+" headers="+strconv.Quote(strings.Join(p.Headers, " ")))
	if !vf.checkKeyID(v, p.KeyID, cert, strict) {
		return
	}
	h, ok := hashFor(p.Algorithm)
	if !ok {
		v.fail("algorithm", apierr.CodeSignatureInvalid, "algorithm %q is not supported; use rsa-sha256 (or rsa-sha512)", p.Algorithm)
		return
	}
	pub, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		v.fail("algorithm", apierr.CodeSignatureInvalid, "algorithm %s needs an RSA key, but the certificate's key is %s", strings.ToLower(p.Algorithm), keyType(cert))
		return
	}
	v.pass("algorithm", strings.ToLower(p.Algorithm)+" with a "+strconv.Itoa(pub.N.BitLen())+"-bit RSA key")
	if !checkHeaderList(v, r, hasBody, p.Headers) {
		return
	}
	lines, err := signingLines(r, p.Headers)
	if err != nil {
		v.fail("signed headers", apierr.CodeSignatureInvalid, "%v", err)
		return
	}
	signing := joinLines(lines, "\n")
	v.SigningString = signing
	sig, err := decodeBase64(p.Signature)
	if err != nil {
		v.fail("signature", apierr.CodeSignatureInvalid, "the signature value is not base64")
		return
	}
	if err := rsa.VerifyPKCS1v15(pub, h, hashOf(h, []byte(signing)), sig); err != nil {
		v.fail("signature", apierr.CodeSignatureInvalid, "%s", diagnose(r, lines, signing, pub, h, sig))
		return
	}
	v.pass("signature", "RSA PKCS#1 v1.5 "+strings.ToLower(p.Algorithm)+" signature verifies over the signing string")
}

func listOrNone(list []string) string {
	if len(list) == 0 {
		return "(none)"
	}
	return strings.Join(list, ", ")
}

func keyType(cert *x509.Certificate) string {
	switch cert.PublicKeyAlgorithm {
	case x509.ECDSA:
		return "ECDSA"
	case x509.Ed25519:
		return "Ed25519"
	}
	return cert.PublicKeyAlgorithm.String()
}

// parse decodes and caches a TPP-Signature-Certificate value.
func (vf *Verifier) parse(value string) parsedCert {
	vf.mu.Lock()
	pc, ok := vf.certs[value]
	vf.mu.Unlock()
	if ok {
		return pc
	}
	pc = parseCertHeader(value)
	vf.mu.Lock()
	if vf.certs == nil || len(vf.certs) >= certCacheSize {
		vf.certs = map[string]parsedCert{}
	}
	vf.certs[value] = pc
	vf.mu.Unlock()
	return pc
}

func parseCertHeader(value string) parsedCert {
	der, extra, err := decodeCertificateHeader(value)
	if err != nil {
		return parsedCert{err: err.Error()}
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return parsedCert{err: "is not an X.509 certificate: " + strings.TrimPrefix(err.Error(), "x509: ")}
	}
	pc := parsedCert{cert: cert, tppID: pki.TPPID(cert)}
	pc.roles, pc.named, err = pki.PSD2Roles(cert)
	if err != nil {
		pc.roleErr = err.Error()
	}
	pc.decoded = fmt.Sprintf("subject %s, issuer %s, serial %X, TPP %s", FormatDN(cert.Subject), FormatDN(cert.Issuer), cert.SerialNumber, pc.tppID)
	pc.validity = fmt.Sprintf("valid from %s to %s", cert.NotBefore.UTC().Format(time.RFC3339), cert.NotAfter.UTC().Format(time.RFC3339))
	if len(extra) > 0 {
		note := certificateNote(extra)
		pc.note = &note
	}
	return pc
}

// certificateNote is the client note on a TPP-Signature-Certificate value
// that carries extra, what else than the base64 DER it holds: accepted, as
// the real bank may, with what to send instead; strict mode refuses it.
func certificateNote(extra []string) apierr.Message {
	list := extra[0]
	if n := len(extra); n > 1 {
		list = strings.Join(extra[:n-1], ", ") + " and " + extra[n-1]
	}
	return apierr.Oddity(apierr.CodeCertificateInvalid, "TPP-Signature-Certificate",
		"TPP-Signature-Certificate holds the certificate with "+list+"; the bank accepts it, but the header takes the base64 DER alone, without the armour, on one line: openssl x509 -in cert.pem -outform DER | openssl base64 -A")
}

// DecodeCertificateHeader decodes a TPP-Signature-Certificate value: base64
// DER, with PEM armour, white space and escaped line breaks tolerated (the
// verifier accepts them with a client note).
func DecodeCertificateHeader(value string) ([]byte, error) {
	der, _, err := decodeCertificateHeader(value)
	return der, err
}

// decodeCertificateHeader is DecodeCertificateHeader, also returning what
// it took away around and within the base64: the PEM armour, escaped line
// breaks, white space.
func decodeCertificateHeader(value string) (der []byte, extra []string, err error) {
	s := value
	if strings.Contains(s, "-----BEGIN CERTIFICATE-----") || strings.Contains(s, "-----END CERTIFICATE-----") {
		s = strings.ReplaceAll(s, "-----BEGIN CERTIFICATE-----", "")
		s = strings.ReplaceAll(s, "-----END CERTIFICATE-----", "")
		extra = append(extra, "PEM armour (-----BEGIN CERTIFICATE-----)")
	}
	if strings.Contains(s, `\n`) {
		s = strings.ReplaceAll(s, `\n`, "")
		extra = append(extra, `escaped line breaks (\n)`)
	}
	if joined := strings.Join(strings.Fields(s), ""); joined != s {
		s = joined
		extra = append(extra, "white space")
	}
	if s == "" {
		return nil, nil, fmt.Errorf("is empty")
	}
	der, err = decodeBase64(s)
	if err != nil {
		return nil, nil, fmt.Errorf("is not base64-encoded DER")
	}
	return der, extra, nil
}

func decodeBase64(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("not base64")
}

// checkDigest checks the Digest header against the body of size bytes,
// whose digest with a hash sum returns.
func (vf *Verifier) checkDigest(v *Verdict, r *http.Request, size int64, sum func(crypto.Hash) []byte) bool {
	header := r.Header.Get("Digest")
	if header == "" {
		if size > 0 {
			v.fail("digest", apierr.CodeHeaderRequired, "the request has a body but no Digest header; send Digest: SHA-256=<base64 of the SHA-256 of the exact body bytes>")
			return false
		}
		v.pass("digest", "no body and no Digest header")
		return true
	}
	checked := false
	for _, item := range strings.Split(header, ",") {
		alg, want, found := strings.Cut(strings.TrimSpace(item), "=")
		if !found {
			continue
		}
		h, ok := digestHash(alg)
		if !ok {
			continue
		}
		got := base64.StdEncoding.EncodeToString(sum(h))
		name := strings.ToUpper(alg)
		v.Digest = name + "=" + got
		if want != got {
			v.fail("digest", apierr.CodeSignatureInvalid, "Digest %s=%s does not match the body (%d bytes), whose %s is %s; compute it over the exact bytes sent", name, clip(want), size, name, got)
			return false
		}
		checked = true
	}
	if !checked {
		v.fail("digest", apierr.CodeSignatureInvalid, "the Digest header %q has no SHA-256 or SHA-512 value; write SHA-256=<base64>", clip(header))
		return false
	}
	v.pass("digest", v.Digest+" matches the "+strconv.FormatInt(size, 10)+"-byte body")
	return true
}

// digestHash is the hash a Digest header's algorithm names: SHA-256 or
// SHA-512, in any letter case.
func digestHash(alg string) (crypto.Hash, bool) {
	switch strings.ToUpper(alg) {
	case "SHA-256":
		return crypto.SHA256, true
	case "SHA-512":
		return crypto.SHA512, true
	}
	return 0, false
}

// checkKeyID is the package's checkKeyID, remembering a keyId that passed
// for its certificate: the outcome depends on nothing else, and working
// out the issuer's DN again for every request of a TPP is wasted work.
func (vf *Verifier) checkKeyID(v *Verdict, keyID string, cert *x509.Certificate, strict bool) bool {
	key := keyIDKey{cert: cert, keyID: keyID, strict: strict}
	vf.mu.Lock()
	known, ok := vf.keyIDs[key]
	vf.mu.Unlock()
	if ok {
		v.Steps = append(v.Steps, known.step)
		v.Notes = append(v.Notes, known.notes...)
		return true
	}
	var fresh Verdict
	passed := checkKeyID(&fresh, keyID, cert, strict)
	v.Steps = append(v.Steps, fresh.Steps...)
	v.Notes = append(v.Notes, fresh.Notes...)
	if !passed {
		v.Err = fresh.Err
		return false
	}
	vf.mu.Lock()
	if vf.keyIDs == nil || len(vf.keyIDs) >= certCacheSize {
		vf.keyIDs = map[keyIDKey]keyIDResult{}
	}
	vf.keyIDs[key] = keyIDResult{step: fresh.Steps[len(fresh.Steps)-1], notes: fresh.Notes}
	vf.mu.Unlock()
	return true
}

// checkKeyID matches the keyId against the certificate. A CA that names
// the issuer only in part, or only with its backslashes read as
// quoted-string escapes, passes with a note; in strict mode it fails.
func checkKeyID(v *Verdict, keyID string, cert *x509.Certificate, strict bool) bool {
	k, err := ParseKeyID(keyID)
	if err != nil {
		v.fail("keyId", apierr.CodeSignatureInvalid, "%v", err)
		return false
	}
	if k.Serial.Cmp(cert.SerialNumber) != 0 {
		hint := ""
		if dec, ok := decimalSerial(k.SerialHex); ok && dec == cert.SerialNumber.String() {
			hint = " (keyId has it in decimal; write it in hexadecimal)"
		}
		v.fail("keyId", apierr.CodeSignatureInvalid, "keyId serial %s is not the certificate's serial %X%s", k.SerialHex, cert.SerialNumber, hint)
		return false
	}
	issuer := FormatDN(cert.Issuer)
	m, err := matchIssuer(k.Issuer, nameAttributes(cert.Issuer))
	if mismatch := (*notIssuerError)(nil); errors.As(err, &mismatch) {
		v.fail("keyId", apierr.CodeSignatureInvalid, "keyId CA %q is not the certificate's issuer %q: %s", clip(k.Issuer), issuer, mismatch.reason)
		return false
	} else if err != nil {
		v.fail("keyId", apierr.CodeSignatureInvalid, "keyId CA %q cannot be read: %v", clip(k.Issuer), err)
		return false
	}
	var notes []apierr.Message
	if m.unquoted {
		notes = append(notes, apierr.Oddity(apierr.CodeSignatureInvalid, "keyId",
			`keyId CA reads as the issuer only with its backslashes taken as quoted-string escapes (\\ for \, \" for "); they are the DN's own: write the DN as openssl -nameopt RFC2253 prints it, e.g. `+issuer))
	}
	if len(m.leftOut) > 0 {
		left := make([]string, len(m.leftOut))
		for i, j := range m.leftOut {
			left[i] = formatATV(cert.Issuer.Names[j])
		}
		notes = append(notes, apierr.Oddity(apierr.CodeSignatureInvalid, "keyId",
			fmt.Sprintf("keyId CA leaves out the issuer's %s; the bank accepts it, but write the issuer whole: %s", strings.Join(left, ", "), issuer)))
	}
	if len(notes) == 0 {
		v.pass("keyId", fmt.Sprintf("serial %X and issuer %s match the certificate", cert.SerialNumber, issuer))
		return true
	}
	if strict {
		refusal, _ := apierr.AsError(apierr.Refusal(notes))
		v.fail("keyId", apierr.CodeSignatureInvalid, "%s", joinTexts(refusal.Messages))
		return false
	}
	v.Notes = append(v.Notes, notes...)
	v.pass("keyId", fmt.Sprintf("serial %X and issuer %s match the certificate, with a warning: %s", cert.SerialNumber, issuer, joinTexts(notes)))
	return true
}

// joinTexts joins the texts of messages with "; ".
func joinTexts(msgs []apierr.Message) string {
	texts := make([]string, len(msgs))
	for i, m := range msgs {
		texts[i] = m.Text
	}
	return strings.Join(texts, "; ")
}

func decimalSerial(s string) (string, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return "", false
	}
	return strings.TrimLeft(s, "0"), true
}

// mustSign are the headers that must be signed whenever the request has
// them (docs/TPP-GUIDE.md 2.4).
var mustSign = []string{"psu-id", "psu-corporate-id", "tpp-redirect-uri", "date"}

// checkHeaderList applies the rules on the headers parameter.
func checkHeaderList(v *Verdict, r *http.Request, hasBody bool, headers []string) bool {
	seen := map[string]bool{}
	for _, h := range headers {
		name := strings.ToLower(h)
		if seen[name] {
			v.fail("signed headers", apierr.CodeSignatureInvalid, "headers lists %s twice", name)
			return false
		}
		seen[name] = true
		if name != "(request-target)" && headerValue(r, name) == nil {
			v.fail("signed headers", apierr.CodeSignatureInvalid, "headers lists %s, but the request has no %s header", name, name)
			return false
		}
	}
	if !seen["x-request-id"] {
		v.fail("signed headers", apierr.CodeSignatureInvalid, "headers must include x-request-id")
		return false
	}
	if hasBody && !seen["digest"] {
		v.fail("signed headers", apierr.CodeSignatureInvalid, "the request has a body, so headers must include digest")
		return false
	}
	for _, name := range mustSign {
		if headerValue(r, name) != nil && !seen[name] {
			v.fail("signed headers", apierr.CodeSignatureInvalid, "the request carries %s, so headers must include %s", name, name)
			return false
		}
	}
	v.SignedHeaders = make([]string, len(headers))
	for i, h := range headers {
		v.SignedHeaders[i] = strings.ToLower(h)
	}
	v.pass("signed headers", strings.Join(v.SignedHeaders, " "))
	return true
}

// headerValue returns the values of a header, nil when absent. Host lives
// outside the header map in Go's server requests.
func headerValue(r *http.Request, name string) []string {
	if name == "host" {
		if r.Host == "" {
			return nil
		}
		return []string{r.Host}
	}
	return r.Header.Values(name)
}

// SigningString builds the string that is signed: "name: value" per listed
// header, in list order, joined by "\n".
func SigningString(r *http.Request, headers []string) (string, error) {
	lines, err := signingLines(r, headers)
	if err != nil {
		return "", err
	}
	return joinLines(lines, "\n"), nil
}

// requestTarget returns the path and query as sent on the request line.
func requestTarget(r *http.Request) string {
	if strings.HasPrefix(r.RequestURI, "/") {
		return r.RequestURI
	}
	return r.URL.RequestURI()
}

func hashFor(algorithm string) (crypto.Hash, bool) {
	switch strings.ToLower(algorithm) {
	case "rsa-sha256":
		return crypto.SHA256, true
	case "rsa-sha512":
		return crypto.SHA512, true
	}
	return 0, false
}

func hashOf(h crypto.Hash, data []byte) []byte {
	var hh hash.Hash
	if h == crypto.SHA512 {
		hh = sha512.New()
	} else {
		hh = sha256.New()
	}
	hh.Write(data)
	return hh.Sum(nil)
}
