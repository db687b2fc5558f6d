package psd2api_test

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
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// sig describes a hand-made signature, to send what a faulty client sends.
type sig struct {
	headers []string // the headers parameter; default x-request-id (+ digest)
	keyID   string   // default the signer's keyId
	alg     string   // default rsa-sha256
	hash    crypto.Hash
	key     crypto.Signer
	cert    *x509.Certificate
	// wrap changes the final Signature header value.
	wrap func(string) string
	// digest overrides the Digest header ("-" leaves it out).
	digest string
}

// handSigned builds a request signed the way s describes.
func handSigned(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, method, path string, body []byte, s sig, headers ...string) *http.Request {
	t.Helper()
	req := b.Request(method, path, body, headers...)
	if s.cert == nil {
		s.cert, s.key = tpp.Cert, tpp.Key
	}
	req.Header.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(s.cert.Raw))
	switch s.digest {
	case "":
		if len(body) > 0 {
			req.Header.Set("Digest", httpsig.Digest(body))
		}
	case "-":
	default:
		req.Header.Set("Digest", s.digest)
	}
	if s.headers == nil {
		s.headers = []string{"(request-target)", "x-request-id"}
		for _, h := range []string{"digest", "date"} {
			if req.Header.Get(h) != "" {
				s.headers = append(s.headers, h)
			}
		}
	}
	if s.keyID == "" {
		s.keyID = fmt.Sprintf("SN=%X,CA=%s", s.cert.SerialNumber, httpsig.FormatDN(s.cert.Issuer))
	}
	if s.alg == "" {
		s.alg, s.hash = "rsa-sha256", crypto.SHA256
	}
	signing, err := httpsig.SigningString(req, s.headers)
	if err != nil {
		signing = "x-request-id: " + req.Header.Get("X-Request-ID")
	}
	var digest []byte
	if s.hash == crypto.SHA512 {
		d := sha512.Sum512([]byte(signing))
		digest = d[:]
	} else {
		d := sha256.Sum256([]byte(signing))
		digest = d[:]
	}
	raw, err := s.key.Sign(rand.Reader, digest, s.hash)
	if err != nil {
		t.Fatal(err)
	}
	value := fmt.Sprintf(`keyId="%s",algorithm="%s",headers="%s",signature="%s"`, s.keyID, s.alg, strings.Join(s.headers, " "), base64.StdEncoding.EncodeToString(raw))
	if s.wrap != nil {
		value = s.wrap(value)
	}
	req.Header.Set("Signature", value)
	return req
}

func TestSignature_Failures(t *testing.T) {
	b, tpp := setup(t)
	body := []byte(`{"customerNumber":"4242","name":"Sig Test","type":"private"}`)
	post := "/v1/sandbox/customers"

	expired := b.NewTPPWith(pki.TPPRequest{Name: "Old TPP", OrgNumber: "1", Roles: []string{pki.RoleAI}, NotBefore: time.Now().AddDate(-2, 0, 0), NotAfter: time.Now().AddDate(0, 0, -1)}, 1)
	future := b.NewTPPWith(pki.TPPRequest{Name: "New TPP", OrgNumber: "2", Roles: []string{pki.RoleAI}, NotBefore: time.Now().Add(24 * time.Hour), NotAfter: time.Now().AddDate(1, 0, 0)}, 1)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecCert, err := b.Authority.IssueTPP(pki.TPPRequestFor("EC TPP", "3", []string{pki.RoleAI}, 10, time.Now()), ecKey.Public())
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name    string
		req     func() *http.Request
		status  int
		code    string
		mention string
	}{
		{"no X-Request-ID", func() *http.Request {
			r := b.Request("GET", post, nil)
			_ = tpp.Signer.SignRequest(r, nil)
			r.Header.Del("X-Request-ID")
			return r
		}, 400, "HTTP_HEADER_REQUIRED", "X-Request-ID"},
		{"no signature", func() *http.Request { return b.Request("GET", post, nil) }, 400, "SIGNATURE_MISSING", "Signature"},
		{"no certificate", func() *http.Request {
			r := handSigned(t, b, tpp, "GET", post, nil, sig{})
			r.Header.Del("TPP-Signature-Certificate")
			return r
		}, 400, "HTTP_HEADER_REQUIRED", "TPP-Signature-Certificate"},
		{"certificate not base64", func() *http.Request {
			r := handSigned(t, b, tpp, "GET", post, nil, sig{})
			r.Header.Set("TPP-Signature-Certificate", "not base64 at all!")
			return r
		}, 400, "CERTIFICATE_INVALID", "base64"},
		{"certificate not X.509", func() *http.Request {
			r := handSigned(t, b, tpp, "GET", post, nil, sig{})
			r.Header.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString([]byte("hello")))
			return r
		}, 400, "CERTIFICATE_INVALID", "X.509"},
		{"expired certificate", func() *http.Request {
			return handSigned(t, b, expired, "GET", post, nil, sig{})
		}, 400, "CERTIFICATE_EXPIRED", "expired"},
		{"certificate not yet valid", func() *http.Request {
			return handSigned(t, b, future, "GET", post, nil, sig{})
		}, 400, "CERTIFICATE_EXPIRED", "future"},
		{"body without digest", func() *http.Request {
			return handSigned(t, b, tpp, "POST", post, body, sig{digest: "-", headers: []string{"x-request-id"}})
		}, 400, "HTTP_HEADER_REQUIRED", "Digest"},
		{"digest of another body", func() *http.Request {
			return handSigned(t, b, tpp, "POST", post, body, sig{digest: httpsig.Digest([]byte("{}"))})
		}, 400, "SIGNATURE_INVALID", "does not match"},
		{"digest without a known algorithm", func() *http.Request {
			return handSigned(t, b, tpp, "POST", post, body, sig{digest: "MD5=abcd"})
		}, 400, "SIGNATURE_INVALID", "SHA-256"},
		{"x-request-id not signed", func() *http.Request {
			return handSigned(t, b, tpp, "GET", post, nil, sig{headers: []string{"date"}}, "Date: "+time.Now().UTC().Format(http.TimeFormat))
		}, 400, "SIGNATURE_INVALID", "x-request-id"},
		{"digest not signed", func() *http.Request {
			return handSigned(t, b, tpp, "POST", post, body, sig{headers: []string{"x-request-id"}})
		}, 400, "SIGNATURE_INVALID", "digest"},
		{"psu-id present but not signed", func() *http.Request {
			return handSigned(t, b, tpp, "GET", post, nil, sig{}, "PSU-ID: 3f1e2d3c-0000-4000-8000-000000000001")
		}, 400, "SIGNATURE_INVALID", "psu-id"},
		{"tpp-redirect-uri present but not signed", func() *http.Request {
			return handSigned(t, b, tpp, "GET", post, nil, sig{}, "TPP-Redirect-URI: https://tpp.example/cb")
		}, 400, "SIGNATURE_INVALID", "tpp-redirect-uri"},
		{"date present but not signed", func() *http.Request {
			return handSigned(t, b, tpp, "GET", post, nil, sig{headers: []string{"x-request-id"}}, "Date: "+time.Now().UTC().Format(http.TimeFormat))
		}, 400, "SIGNATURE_INVALID", "date"},
		{"listed header missing", func() *http.Request {
			return handSigned(t, b, tpp, "GET", post, nil, sig{headers: []string{"x-request-id", "psu-corporate-id"}})
		}, 400, "SIGNATURE_INVALID", "psu-corporate-id"},
		{"serial of another certificate", func() *http.Request {
			return handSigned(t, b, tpp, "GET", post, nil, sig{keyID: "SN=1234ABCD,CA=" + httpsig.FormatDN(tpp.Cert.Issuer)})
		}, 400, "SIGNATURE_INVALID", "serial"},
		{"serial in decimal", func() *http.Request {
			return handSigned(t, b, tpp, "GET", post, nil, sig{keyID: "SN=" + tpp.Cert.SerialNumber.String() + ",CA=" + httpsig.FormatDN(tpp.Cert.Issuer)})
		}, 400, "SIGNATURE_INVALID", "decimal"},
		{"issuer of another CA", func() *http.Request {
			return handSigned(t, b, tpp, "GET", post, nil, sig{keyID: fmt.Sprintf("SN=%X,CA=CN=Other CA,O=Other,C=NO", tpp.Cert.SerialNumber)})
		}, 400, "SIGNATURE_INVALID", "issuer"},
		{"keyId without CA", func() *http.Request {
			return handSigned(t, b, tpp, "GET", post, nil, sig{keyID: fmt.Sprintf("SN=%X", tpp.Cert.SerialNumber)})
		}, 400, "SIGNATURE_INVALID", "CA="},
		{"unsupported algorithm", func() *http.Request {
			return handSigned(t, b, tpp, "GET", post, nil, sig{alg: "hmac-sha256", hash: crypto.SHA256})
		}, 400, "SIGNATURE_INVALID", "hmac-sha256"},
		{"ECDSA certificate", func() *http.Request {
			return handSigned(t, b, tpp, "GET", post, nil, sig{cert: ecCert, key: ecKey})
		}, 400, "SIGNATURE_INVALID", "ECDSA"},
		{"signature made with another key", func() *http.Request {
			return handSigned(t, b, tpp, "GET", post, nil, sig{key: apptest.Key(t, 1), cert: tpp.Cert})
		}, 400, "SIGNATURE_INVALID", "does not verify"},
		{"signed for another path", func() *http.Request {
			r := handSigned(t, b, tpp, "GET", "/v1/sandbox/accounts", nil, sig{headers: []string{"(request-target)", "x-request-id"}})
			r.URL.Path = "/v1/sandbox/customers"
			return r
		}, 400, "SIGNATURE_INVALID", "does not verify"},
		{"malformed Signature header", func() *http.Request {
			return handSigned(t, b, tpp, "GET", post, nil, sig{wrap: func(string) string { return `keyId="SN=1` }})
		}, 400, "SIGNATURE_INVALID", "quote"},
		{"Signature header missing parameters", func() *http.Request {
			return handSigned(t, b, tpp, "GET", post, nil, sig{wrap: func(v string) string { return v[:strings.Index(v, ",headers")] }})
		}, 400, "SIGNATURE_INVALID", "headers"},
		{"broken RFC 2047 word", func() *http.Request {
			return handSigned(t, b, tpp, "GET", post, nil, sig{wrap: func(string) string { return "=?koi8-r?B?AAAA?=" }})
		}, 400, "SIGNATURE_INVALID", "RFC 2047"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := b.FileSum()
			e := expect(t, b.Send(c.req()), c.status, c.code)
			if !strings.Contains(e.Message, c.mention) {
				t.Errorf("message %q does not mention %q", e.Message, c.mention)
			}
			if b.FileSum() != before {
				t.Error("a refused request changed the data file")
			}
		})
	}
}

func TestSignature_AcceptedForms(t *testing.T) {
	b, tpp := setup(t)
	issuer := tpp.Cert.Issuer
	serial := fmt.Sprintf("%X", tpp.Cert.SerialNumber)
	goForm := issuer.String() // 2.5.4.97=#13... for organizationIdentifier
	rdns := strings.Split(httpsig.FormatDN(issuer), ",")
	reversed := make([]string, len(rdns))
	for i, r := range rdns {
		reversed[len(rdns)-1-i] = r
	}
	b64 := func(v string) string { return mime.BEncoding.Encode("utf-8", v) }
	q := func(v string) string { return mime.QEncoding.Encode("iso-8859-1", v) }
	cases := []struct {
		name string
		s    sig
	}{
		{"as our signer writes it", sig{}},
		{"issuer as Go writes it", sig{keyID: "SN=" + serial + ",CA=" + goForm}},
		{"issuer with OID.2.5.4.97", sig{keyID: "SN=" + serial + ",CA=" + strings.Replace(httpsig.FormatDN(issuer), "organizationIdentifier", "OID.2.5.4.97", 1)}},
		{"issuer in reverse RDN order", sig{keyID: "SN=" + serial + ",CA=" + strings.Join(reversed, ",")}},
		{"issuer percent-encoded", sig{keyID: "SN=" + serial + ",CA=" + url.PathEscape(httpsig.FormatDN(issuer))}},
		{"issuer with spaces and other case", sig{keyID: "SN=" + serial + ", CA=" + strings.ToUpper(strings.ReplaceAll(httpsig.FormatDN(issuer), ",", ",  "))}},
		{"serial lower case with leading zeros", sig{keyID: "SN=000" + strings.ToLower(serial) + ",CA=" + httpsig.FormatDN(issuer)}},
		{"rsa-sha512", sig{alg: "rsa-sha512", hash: crypto.SHA512}},
		{"leading Signature token and other order", sig{wrap: func(v string) string {
			parts := strings.Split(strings.TrimSuffix(v, `"`), `",`)
			return "Signature " + parts[3] + `", ` + parts[2] + `",` + parts[0] + `",` + parts[1] + `"`
		}}},
		{"RFC 2047 B encoding", sig{wrap: b64}},
		{"RFC 2047 Q encoding", sig{wrap: q}},
		{"request-target and date", sig{headers: []string{"(request-target)", "date", "x-request-id"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := handSigned(t, b, tpp, "GET", "/v1/sandbox/customers", nil, c.s, "Date: "+time.Now().UTC().Format(http.TimeFormat))
			expect(t, b.Send(req), 200, "")
		})
	}
	// Digest variants.
	body := []byte(`[{"balanceType":"expected","balanceAmount":{"amount":5,"currency":"NOK"}}]`)
	acct := knownAccount(t, b, tpp, "NO3815030123457")
	sum512 := sha512.Sum512(body)
	for _, d := range []string{
		"sha-256=" + strings.TrimPrefix(httpsig.Digest(body), "SHA-256="),
		"SHA-512=" + base64.StdEncoding.EncodeToString(sum512[:]),
		"MD5=xyz, " + httpsig.Digest(body),
	} {
		req := handSigned(t, b, tpp, "PUT", "/v1/sandbox/accounts/"+acct.ID+"/balances", body, sig{digest: d})
		expect(t, b.Send(req), 200, "")
	}
	// The certificate header as PEM, with white space.
	req := b.Request("GET", "/v1/sandbox/customers", nil)
	if err := tpp.Signer.SignRequest(req, nil); err != nil {
		t.Fatal(err)
	}
	pemText := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tpp.Cert.Raw}))
	req.Header.Set("TPP-Signature-Certificate", strings.ReplaceAll(pemText, "\n", " "))
	expect(t, b.Send(req), 200, "")
	// The /api/v1 alias with (request-target) signed as sent.
	expect(t, b.Do(tpp, "GET", "/api-sandbox/v1/sandbox/accounts", nil), 200, "")
}

func TestSignature_RequireSignatureOff(t *testing.T) {
	off := false
	b := apptest.Start(t, apptest.Options{RequireSignature: &off})
	tpp := b.NewTPP("933012867", 0, pki.RoleAI)
	expect(t, b.Send(b.Request("GET", "/v1/sandbox/customers", nil)), 200, "")
	req := handSigned(t, b, tpp, "GET", "/v1/sandbox/customers", nil, sig{key: apptest.Key(t, 1), cert: tpp.Cert})
	expect(t, b.Send(req), 400, "SIGNATURE_INVALID")
	st, err := b.Bank.Ops.Settings()
	if err != nil || st.RequireSignature {
		t.Fatalf("settings %+v %v", st, err)
	}
}

// selfSigned makes a self-signed RSA certificate with the given subject.
func selfSigned(t *testing.T, key *rsa.PrivateKey, subject pkix.Name) *x509.Certificate {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: subject, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

func TestSignature_TrustStore(t *testing.T) {
	b := apptest.Start(t, apptest.Options{Trust: "store"})
	issued := b.NewTPP("933012867", 0, pki.RoleAI)
	expect(t, b.Do(issued, "GET", "/v1/sandbox/customers", nil), 200, "")
	key := apptest.Key(t, 1)
	self := apptest.TPPFor(t, selfSigned(t, key, pkix.Name{CommonName: "Own CA TPP"}), key)
	e := expect(t, b.Do(self, "GET", "/v1/sandbox/customers", nil), 400, "CERTIFICATE_INVALID")
	if !strings.Contains(e.Message, "trust") {
		t.Errorf("message %q", e.Message)
	}
	// A file that is not a certificate is skipped; the CA file is picked up
	// without a restart.
	if err := os.WriteFile(filepath.Join(b.TrustDir(), "junk.pem"), []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.TrustDir(), "own-ca.pem"), pki.EncodeCert(self.Cert), 0o600); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := b.Do(self, "GET", "/v1/sandbox/customers", nil)
		if r.Status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the CA put into trust/ is still not trusted: %s", r.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestSignature_TPPIdentity(t *testing.T) {
	b, _ := setup(t)
	key := apptest.Key(t, 1)
	cases := []struct {
		subject pkix.Name
		want    func(*x509.Certificate) string
	}{
		{pkix.Name{CommonName: "Acme Payments"}, func(*x509.Certificate) string { return "Acme Payments" }},
		{pkix.Name{Organization: []string{"No CN"}}, func(c *x509.Certificate) string {
			sum := sha256.Sum256(c.Raw)
			return fmt.Sprintf("SHA256:%x", sum[:8])
		}},
		{pkix.Name{CommonName: "X", ExtraNames: []pkix.AttributeTypeAndValue{{Type: pki.OrganizationIdentifierOID, Value: "PSDSE-FINA-44059"}}}, func(*x509.Certificate) string { return "SE-FINA-44059" }},
	}
	for _, c := range cases {
		tpp := apptest.TPPFor(t, selfSigned(t, key, c.subject), key)
		want := c.want(tpp.Cert)
		r := b.Do(tpp, "PUT", "/v1/tpps/"+url.PathEscape(want)+"/contact-information", map[string]string{"email": "ops@example.com"})
		expect(t, r, 200, "")
	}
}

func TestTransport_Negotiation(t *testing.T) {
	b, tpp := setup(t)
	post := "/v1/sandbox/customers"
	expect(t, b.Do(tpp, "GET", post, nil, "Accept: application/xml"), 406, "BAD_REQUEST")
	expect(t, b.Do(tpp, "GET", post, nil, "Accept: text/html, application/json;q=0.9"), 200, "")
	expect(t, b.Do(tpp, "GET", post, nil, "Accept: */*"), 200, "")
	expect(t, b.Do(tpp, "GET", post, nil, "Accept: application/json;q=0"), 406, "BAD_REQUEST")
	expect(t, b.Do(tpp, "GET", "/v1/sandbox/bank-certificate", nil, "Accept: application/json"), 406, "BAD_REQUEST")
	rejects(t, b, tpp, "POST", post, `<customer/>`, 415, "BAD_REQUEST")
	r := b.Do(tpp, "POST", post, `{"customerNumber":"1","name":"A","type":"private"}`, "Content-Type: application/xml")
	expect(t, r, 415, "BAD_REQUEST")
	r = b.Do(tpp, "POST", post, `{"customerNumber":"1","name":"A","type":"private"}`, "Content-Type: application/json; charset=iso-8859-1")
	expect(t, r, 415, "BAD_REQUEST")
	big := bytes.Repeat([]byte(" "), 1<<20)
	big = append(append([]byte(`{"customerNumber":"1","name":"A","type":"private"}`), big...), ' ')
	before := b.FileSum()
	expect(t, b.Do(tpp, "POST", post, big), 413, "BAD_REQUEST")
	if b.FileSum() != before {
		t.Error("a refused body changed the data file")
	}
	r = b.Do(tpp, "PATCH", post, nil)
	expect(t, r, 405, "BAD_REQUEST")
	if !strings.Contains(r.Header.Get("Allow"), "POST") {
		t.Errorf("Allow %q", r.Header.Get("Allow"))
	}
	expect(t, b.Do(tpp, "GET", "/v1/no-such-thing", nil), 404, "NOT_FOUND")
	r = b.Do(tpp, "GET", post, nil, "X-Request-ID: my-own-id-42")
	if r.Header.Get("X-Request-ID") != "my-own-id-42" {
		t.Errorf("X-Request-ID echoed as %q", r.Header.Get("X-Request-ID"))
	}
	if r.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", r.Header.Get("Content-Type"))
	}
}
