package httpsig_test

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"sandbank/bank/httpsig"
)

func tppSigner(t *testing.T, f *fixture) *httpsig.Signer {
	t.Helper()
	s, err := httpsig.NewSigner(f.tpp, f.tppKey)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNewSigner(t *testing.T) {
	f := getFixture(t)
	if _, err := httpsig.NewSigner(f.ec, f.ecKey); err == nil || !strings.Contains(err.Error(), "RSA") {
		t.Errorf("NewSigner(ECDSA certificate): %v, want an error about RSA", err)
	}
	if _, err := httpsig.NewSigner(f.tpp, f.bankKey); err == nil || !strings.Contains(err.Error(), "does not belong") {
		t.Errorf("NewSigner(another key): %v, want an error", err)
	}
	if _, err := httpsig.NewSigner(f.tpp, f.ecKey); err == nil {
		t.Error("NewSigner(RSA certificate, ECDSA key): no error")
	}
	s := tppSigner(t, f)
	if want := fmt.Sprintf("SN=%X,CA=%s", f.tpp.SerialNumber, httpsig.FormatDN(f.ca.Cert.Subject)); s.KeyID() != want {
		t.Errorf("KeyID = %q, want %q", s.KeyID(), want)
	}
	k, err := httpsig.ParseKeyID(s.KeyID())
	if err != nil || k.Serial.Cmp(f.tpp.SerialNumber) != 0 {
		t.Errorf("ParseKeyID(KeyID()) = %+v, %v", k, err)
	}
	der, err := httpsig.DecodeCertificateHeader(s.CertificateHeader())
	if err != nil || !bytes.Equal(der, f.tpp.Raw) {
		t.Errorf("DecodeCertificateHeader(CertificateHeader()) = %d bytes, %v", len(der), err)
	}
}

// toServer turns a signed client request into the request a server
// handler sees.
func toServer(r *http.Request, body []byte) *http.Request {
	s := httptest.NewRequest(r.Method, r.URL.RequestURI(), bytes.NewReader(body))
	s.Header = r.Header.Clone()
	return s
}

// A body signed by its DigestReader, without being in memory, verifies as
// one signed with SignRequest(r, body); a different body does not.
func TestSignRequestDigestReader(t *testing.T) {
	f := getFixture(t)
	s := tppSigner(t, f)
	vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, time.Now)
	body := bytes.Repeat([]byte(`{"format": "sandbank-scenario/1"} `), 5000)
	digest, err := httpsig.DigestReader(bytes.NewReader(body))
	if err != nil || digest != httpsig.Digest(body) {
		t.Fatalf("DigestReader = %q, %v; Digest = %q", digest, err, httpsig.Digest(body))
	}
	r, err := http.NewRequest("PUT", "https://bank.example/v1/sandbox/scenario", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Digest", digest)
	if err := s.SignRequest(r, nil); err != nil {
		t.Fatal(err)
	}
	v := vf.Verify(toServer(r, body), body)
	assertPassed(t, v)
	if !slices.Contains(v.SignedHeaders, "digest") {
		t.Errorf("SignedHeaders = %q, want the digest signed", v.SignedHeaders)
	}
	other := append(bytes.Clone(body), ' ')
	if v := vf.Verify(toServer(r, other), other); v.Err == nil {
		t.Error("another body verified under the streamed digest")
	}
}

func TestSignRequestRoundTrip(t *testing.T) {
	f := getFixture(t)
	s := tppSigner(t, f)
	vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, time.Now)
	body := []byte(`{"instructedAmount":{"currency":"NOK","amount":"100.00"}}`)
	cases := []struct {
		name        string
		method, url string
		body        []byte
		headers     []string
		wantSigned  []string
	}{
		{name: "GET", method: "GET", url: "https://bank.example/v1/accounts?withBalance=true",
			wantSigned: []string{"(request-target)", "date", "x-request-id"}},
		{name: "GET with escaped path and query", method: "GET", url: "https://bank.example/v1/accounts/a%20b/transactions?dateFrom=2025-01-01&q=a%2Fb",
			wantSigned: []string{"(request-target)", "date", "x-request-id"}},
		{name: "GET with PSU-ID", method: "GET", url: "https://bank.example/v1/accounts", headers: []string{"PSU-ID", "PSU-1"},
			wantSigned: []string{"(request-target)", "date", "x-request-id", "psu-id"}},
		{name: "POST", method: "POST", url: "https://bank.example/v1/payments/sepa-credit-transfers", body: body,
			wantSigned: []string{"(request-target)", "date", "digest", "x-request-id"}},
		{name: "POST with PSU and redirect headers", method: "POST", url: "https://bank.example/v1/payments/sepa-credit-transfers", body: body,
			headers:    []string{"PSU-ID", "PSU-1", "PSU-Corporate-ID", "CORP-1", "TPP-Redirect-URI", "https://tpp.example/cb?state=x", "X-Request-ID", "my-id", "Date", "Mon, 06 Jan 2025 08:00:00 GMT"},
			wantSigned: []string{"(request-target)", "date", "digest", "x-request-id", "psu-id", "psu-corporate-id", "tpp-redirect-uri"}},
		{name: "PUT with an empty body", method: "PUT", url: "https://bank.example/v1/x", body: []byte{},
			wantSigned: []string{"(request-target)", "date", "x-request-id"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := http.NewRequest(tc.method, tc.url, bytes.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i+1 < len(tc.headers); i += 2 {
				r.Header.Set(tc.headers[i], tc.headers[i+1])
			}
			if err := s.SignRequest(r, tc.body); err != nil {
				t.Fatal(err)
			}
			for _, h := range []string{"X-Request-ID", "Date", "TPP-Signature-Certificate", "Signature"} {
				if r.Header.Get(h) == "" {
					t.Errorf("SignRequest did not set %s", h)
				}
			}
			if (r.Header.Get("Digest") != "") != (len(tc.body) > 0) {
				t.Errorf("Digest = %q with a %d-byte body", r.Header.Get("Digest"), len(tc.body))
			}
			for i := 0; i+1 < len(tc.headers); i += 2 {
				if got := r.Header.Get(tc.headers[i]); got != tc.headers[i+1] {
					t.Errorf("SignRequest changed %s to %q", tc.headers[i], got)
				}
			}
			for _, req := range []*http.Request{r, toServer(r, tc.body)} {
				v := vf.Verify(req, tc.body)
				assertPassed(t, v)
				if !slices.Equal(v.SignedHeaders, tc.wantSigned) {
					t.Errorf("SignedHeaders = %q, want %q", v.SignedHeaders, tc.wantSigned)
				}
			}
			p, err := httpsig.ParseSignature(r.Header.Get("Signature"))
			if err != nil || p.KeyID != s.KeyID() || p.Algorithm != "rsa-sha256" {
				t.Errorf("Signature header %+v, %v", p, err)
			}
		})
	}
}

// TestSignRequestOverHTTP sends signed requests through a real HTTP
// server and verifies them in its handler.
func TestSignRequestOverHTTP(t *testing.T) {
	f := getFixture(t)
	s := tppSigner(t, f)
	vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, time.Now)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		v := vf.Verify(r, body)
		if v.Err != nil {
			http.Error(w, v.Err.Error()+"\n"+v.SigningString, 400)
			return
		}
		fmt.Fprint(w, strings.Join(v.SignedHeaders, " "))
	}))
	defer srv.Close()
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/v1/accounts?withBalance=true", ""},
		{"GET", "/v1/accounts/NO9386011117947/transactions?bookingStatus=both&dateFrom=2025-01-01", ""},
		{"POST", "/v1/consents", `{"access":{"allPsd2":"allAccounts"}}`},
		{"DELETE", "/v1/consents/abc", ""},
	} {
		r, err := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("PSU-ID", "PSU-1")
		r.Header.Set("TPP-Redirect-URI", "https://tpp.example/cb")
		if err := s.SignRequest(r, []byte(c.body)); err != nil {
			t.Fatal(err)
		}
		resp, err := srv.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s %s: %d %s", c.method, c.path, resp.StatusCode, out)
		}
	}
}

// TestSignRequestEmptyHeader: SignRequest signs a PSU or redirect header
// whenever the request carries it, even empty, as Verify requires.
func TestSignRequestEmptyHeader(t *testing.T) {
	f := getFixture(t)
	s := tppSigner(t, f)
	vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, time.Now)
	r, err := http.NewRequest("GET", "https://bank.example/v1/accounts", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("PSU-ID", "")
	if err := s.SignRequest(r, nil); err != nil {
		t.Fatal(err)
	}
	if v := vf.Verify(toServer(r, nil), nil); v.Err != nil {
		t.Errorf("Verify of a request signed by SignRequest with an empty PSU-ID: %v", v.Err)
	}
}

// leafOf returns a certificate for the fixture's TPP key, issued by a CA
// named caName.
func leafOf(t *testing.T, f *fixture, caName pkix.Name) *x509.Certificate {
	t.Helper()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(77),
		Subject:               caName,
		NotBefore:             f.now.Add(-time.Hour),
		NotAfter:              f.now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, f.ecKey.Public(), f.ecKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	leafTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(78),
		Subject:      pkix.Name{CommonName: "TPP"},
		NotBefore:    f.now.Add(-time.Hour),
		NotAfter:     f.now.Add(24 * time.Hour),
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, f.tppKey.Public(), f.ecKey)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(leafDER)
	if err != nil {
		t.Fatal(err)
	}
	return leaf
}

// TestSignRequestPercentIssuer: a TPP certificate from a CA whose name
// holds "%41" verifies with the keyId Signer.KeyID writes.
func TestSignRequestPercentIssuer(t *testing.T) {
	f := getFixture(t)
	leaf := leafOf(t, f, pkix.Name{CommonName: "Test CA", Organization: []string{"Bank %41"}})
	s, err := httpsig.NewSigner(leaf, f.tppKey)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest("GET", "https://bank.example/v1/accounts", nil)
	if err := s.SignRequest(r, nil); err != nil {
		t.Fatal(err)
	}
	vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, f.clock(0))
	if v := vf.Verify(r, nil); v.Err != nil {
		t.Errorf("Verify with keyId %q: %v", s.KeyID(), v.Err)
	}
}

// TestSignRequestEscapedIssuer: the signer puts the keyId in the Signature
// header as it is, the DN's backslashes being its own (docs/TPP-GUIDE.md 2.4), for
// an issuer with every character RFC 4514 escapes; the verifier reads it
// back whole, in strict mode too. The keyId that Sandbank's signer wrote
// before, with those backslashes doubled and quotes escaped, still
// verifies with a note when it is no DN as written (strict mode refuses
// it); when it is one, it is read as written only, and names another
// issuer.
func TestSignRequestEscapedIssuer(t *testing.T) {
	f := getFixture(t)
	cases := []struct {
		name pkix.Name
		// oldNote: the doubled keyId is no DN as written, so it passes with
		// a note; else it reads as another issuer.
		oldNote bool
	}{
		{pkix.Name{CommonName: "Tromsø TPP", Organization: []string{"Eksempel, Holding AS"}}, true},
		{pkix.Name{CommonName: `a"b\c<d>e;f=g+h `, Organization: []string{"#lead"}, OrganizationalUnit: []string{`ends in \`}}, true},
		{pkix.Name{CommonName: `\"`, Organization: []string{`"quoted"`}, Locality: []string{"æøå ÆØÅ"}}, false},
		// A trailing space, escaped last in the DN: doubled, the escape
		// escapes nothing and the space is trimmed.
		{pkix.Name{Organization: []string{"trail "}}, false},
	}
	for _, tc := range cases {
		leaf := leafOf(t, f, tc.name)
		s, err := httpsig.NewSigner(leaf, f.tppKey)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := http.NewRequest("GET", "https://bank.example/v1/accounts", nil)
		if err := s.SignRequest(r, nil); err != nil {
			t.Fatal(err)
		}
		header := r.Header.Get("Signature")
		if !strings.Contains(header, `keyId="`+s.KeyID()+`"`) {
			t.Errorf("Signature %s does not hold the keyId %s as it is", header, s.KeyID())
		}
		p, err := httpsig.ParseSignature(header)
		if err != nil || p.KeyID != s.KeyID() {
			t.Errorf("keyId %q reads back as %q, %v", s.KeyID(), p.KeyID, err)
		}
		strict := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true, Strict: true}, f.clock(0))
		if v := strict.Verify(toServer(r, nil), nil); v.Err != nil || len(v.Notes) != 0 {
			t.Errorf("Verify with keyId %q: %v, notes %+v", s.KeyID(), v.Err, v.Notes)
		}

		old := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s.KeyID())
		r.Header.Set("Signature", strings.Replace(header, s.KeyID(), old, 1))
		lenient := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, f.clock(0))
		v := lenient.Verify(toServer(r, nil), nil)
		if !tc.oldNote {
			if v.Err == nil || !strings.Contains(v.Err.Message, "is not the certificate's issuer") {
				t.Errorf("doubled keyId %q that is a DN as written: %v, want it refused as another issuer", old, v.Err)
			}
			continue
		}
		if v.Err != nil || len(v.Notes) != 1 || !strings.Contains(v.Notes[0].Text, "quoted-string escapes") {
			t.Errorf("doubled keyId %q: %v, notes %+v", old, v.Err, v.Notes)
		}
		if v := strict.Verify(toServer(r, nil), nil); v.Err == nil || !strings.Contains(v.Err.Message, "strict mode") {
			t.Errorf("doubled keyId %q in strict mode: %v", old, v.Err)
		}
	}
}

func bankSigner(t *testing.T, f *fixture) *httpsig.Signer {
	t.Helper()
	s, err := httpsig.NewSigner(f.bank, f.bankKey)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSignResponseRoundTrip signs responses with the bank's RSA key and
// with an ECDSA P-256 key (responseSigning ecdsa), and checks them with
// VerifyResponse, tampered in every way.
func TestSignResponseRoundTrip(t *testing.T) {
	f := getFixture(t)
	ec, err := httpsig.NewResponseSigner(f.ec, f.ecKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		s         *httpsig.Signer
		algorithm string
	}{{"rsa", bankSigner(t, f), "rsa-sha256"}, {"ecdsa", ec, "ecdsa-sha256"}} {
		t.Run(c.name, func(t *testing.T) {
			if c.s.Algorithm() != c.algorithm {
				t.Fatalf("Algorithm() = %q, want %q", c.s.Algorithm(), c.algorithm)
			}
			signResponseRoundTrip(t, f, c.s)
		})
	}
}

func signResponseRoundTrip(t *testing.T, f *fixture, s *httpsig.Signer) {
	now := time.Date(2025, 1, 7, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	body := []byte(`{"transactionStatus":"RCVD"}`)
	signed := func(t *testing.T, body []byte) http.Header {
		t.Helper()
		h := http.Header{}
		h.Set("X-Request-ID", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721")
		h.Set("Content-Type", "application/json")
		if err := s.SignResponse(h, body, now); err != nil {
			t.Fatal(err)
		}
		return h
	}
	h := signed(t, body)
	if got, want := h.Get("Date"), "Tue, 07 Jan 2025 09:00:00 GMT"; got != want {
		t.Errorf("Date = %q, want %q", got, want)
	}
	if got, want := h.Get("Digest"), digestOf("SHA-256", body); got != want {
		t.Errorf("Digest = %q, want %q", got, want)
	}
	p, err := httpsig.ParseSignature(h.Get("Signature"))
	if err != nil || !slices.Equal(p.Headers, []string{"date", "digest", "x-request-id"}) || p.KeyID != s.KeyID() || p.Algorithm != s.Algorithm() {
		t.Errorf("Signature = %+v, %v", p, err)
	}
	if err := httpsig.VerifyResponse(h, body, s.Cert); err != nil {
		t.Fatalf("VerifyResponse: %v", err)
	}
	if err := httpsig.VerifyResponse(signed(t, nil), nil, s.Cert); err != nil {
		t.Errorf("VerifyResponse of an empty body: %v", err)
	}
	// Headers not signed may change.
	h2 := h.Clone()
	h2.Set("Content-Type", "text/plain")
	if err := httpsig.VerifyResponse(h2, body, s.Cert); err != nil {
		t.Errorf("VerifyResponse after changing an unsigned header: %v", err)
	}

	flip := func(s string) string {
		b := []byte(s)
		if b[10] == 'A' {
			b[10] = 'B'
		} else {
			b[10] = 'A'
		}
		return string(b)
	}
	tampered := []struct {
		name    string
		change  func(h http.Header) []byte // returns the body
		mention string
	}{
		{"body", func(h http.Header) []byte { return []byte(`{"transactionStatus":"ACSC"}`) }, "Digest"},
		{"body truncated", func(h http.Header) []byte { return body[:len(body)-1] }, "Digest"},
		{"digest", func(h http.Header) []byte { h.Set("Digest", flip(h.Get("Digest"))); return body }, "Digest"},
		{"digest missing", func(h http.Header) []byte { h.Del("Digest"); return body }, "Digest"},
		{"body and digest", func(h http.Header) []byte {
			b := []byte(`{"transactionStatus":"ACSC"}`)
			h.Set("Digest", httpsig.Digest(b))
			return b
		}, "does not verify"},
		{"date", func(h http.Header) []byte { h.Set("Date", "Tue, 07 Jan 2025 09:00:01 GMT"); return body }, "does not verify"},
		{"date missing", func(h http.Header) []byte { h.Del("Date"); return body }, "date"},
		{"x-request-id", func(h http.Header) []byte { h.Set("X-Request-ID", "other"); return body }, "does not verify"},
		{"signature value", func(h http.Header) []byte {
			sig := h.Get("Signature")
			i := strings.Index(sig, `signature="`) + len(`signature="`)
			h.Set("Signature", sig[:i]+flip(sig[i:]))
			return body
		}, "does not verify"},
		{"signature not base64", func(h http.Header) []byte {
			sig := h.Get("Signature")
			i := strings.Index(sig, `signature="`)
			h.Set("Signature", sig[:i]+`signature="!!!"`)
			return body
		}, "base64"},
		{"signature missing", func(h http.Header) []byte { h.Del("Signature"); return body }, "Signature"},
		{"signature headers reordered", func(h http.Header) []byte {
			h.Set("Signature", strings.Replace(h.Get("Signature"), `headers="date digest x-request-id"`, `headers="digest date x-request-id"`, 1))
			return body
		}, "does not verify"},
		{"algorithm of the other key type", func(h http.Header) []byte {
			other := map[string]string{"rsa-sha256": "ecdsa-sha256", "ecdsa-sha256": "rsa-sha256"}[s.Algorithm()]
			h.Set("Signature", strings.Replace(h.Get("Signature"), `algorithm="`+s.Algorithm()+`"`, `algorithm="`+other+`"`, 1))
			return body
		}, "algorithm"},
		{"keyId of another certificate", func(h http.Header) []byte {
			h.Set("Signature", strings.Replace(h.Get("Signature"), s.KeyID(), keyID(f.tpp), 1))
			return body
		}, "keyId"},
	}
	for _, tc := range tampered {
		t.Run(tc.name, func(t *testing.T) {
			h := signed(t, body)
			b := tc.change(h)
			err := httpsig.VerifyResponse(h, b, s.Cert)
			if err == nil {
				t.Fatal("VerifyResponse passed")
			}
			if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.mention)) {
				t.Errorf("error %q does not mention %q", err, tc.mention)
			}
		})
	}

	// A response checked against another certificate fails.
	if err := httpsig.VerifyResponse(signed(t, body), body, f.tpp); err == nil {
		t.Error("VerifyResponse with the TPP certificate passed")
	}
	// Signed by another key with the bank's keyId.
	other := signed(t, body)
	r := &http.Request{Header: other}
	handSign(t, r, f.tppKey, crypto.SHA256, s.KeyID(), "rsa-sha256", []string{"date", "digest", "x-request-id"})
	if err := httpsig.VerifyResponse(other, body, s.Cert); err == nil {
		t.Error("VerifyResponse of a signature by another key passed")
	}

	// SignResponse needs X-Request-ID.
	if err := s.SignResponse(http.Header{}, body, now); err == nil {
		t.Error("SignResponse without X-Request-ID: no error")
	}
}

// TestVerifyResponseRequiresHeaders: VerifyResponse refuses a bank
// signature that does not cover all of date, digest and x-request-id.
func TestVerifyResponseRequiresHeaders(t *testing.T) {
	f := getFixture(t)
	s := bankSigner(t, f)
	body := []byte(`{"transactionStatus":"RCVD"}`)
	h := http.Header{}
	h.Set("X-Request-ID", "id-1")
	h.Set("Date", "Tue, 07 Jan 2025 09:00:00 GMT")
	h.Set("Digest", httpsig.Digest(body))
	handSign(t, &http.Request{Header: h}, f.bankKey, crypto.SHA256, s.KeyID(), "rsa-sha256", []string{"x-request-id"})
	if err := httpsig.VerifyResponse(h, body, f.bank); err == nil {
		t.Error("VerifyResponse accepted a signature that covers neither date nor digest")
	}
}

// TestNewResponseSigner: the bank's response signer takes an RSA or an
// ECDSA P-256 key that belongs to the certificate; an ECDSA signer does
// not sign requests, which the bank verifies with RSA only.
func TestNewResponseSigner(t *testing.T) {
	f := getFixture(t)
	if s, err := httpsig.NewResponseSigner(f.bank, f.bankKey); err != nil || s.Algorithm() != httpsig.AlgorithmRSA {
		t.Errorf("RSA: %v", err)
	}
	if _, err := httpsig.NewResponseSigner(f.ec, f.tppKey); err == nil || !strings.Contains(err.Error(), "does not belong") {
		t.Errorf("ECDSA certificate, RSA key: %v", err)
	}
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := httpsig.NewResponseSigner(f.ec, other); err == nil || !strings.Contains(err.Error(), "does not belong") {
		t.Errorf("another ECDSA key: %v", err)
	}
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := f.ca.IssueBank(p384, f.now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := httpsig.NewResponseSigner(cert, p384); err == nil || !strings.Contains(err.Error(), "P-256") {
		t.Errorf("P-384: %v", err)
	}
	ec, err := httpsig.NewResponseSigner(f.ec, f.ecKey)
	if err != nil {
		t.Fatal(err)
	}
	if ec.KeyID() != keyID(f.ec) {
		t.Errorf("KeyID = %q, want %q", ec.KeyID(), keyID(f.ec))
	}
	r, _ := http.NewRequest("GET", "https://bank.example/v1/x", nil)
	if err := ec.SignRequest(r, nil); err == nil || !strings.Contains(err.Error(), "RSA") {
		t.Errorf("SignRequest with ECDSA: %v, want an error about RSA", err)
	}
	// A Signer built by hand works its keyId and algorithm out.
	byHand := &httpsig.Signer{Cert: f.ec, Key: f.ecKey}
	h := http.Header{"X-Request-Id": {"by-hand"}}
	if err := byHand.SignResponse(h, []byte("{}"), f.now); err != nil {
		t.Fatal(err)
	}
	if err := httpsig.VerifyResponse(h, []byte("{}"), f.ec); err != nil || byHand.Algorithm() != httpsig.AlgorithmECDSA {
		t.Errorf("by hand: %s, %v", byHand.Algorithm(), err)
	}
}

func TestSignedValuesAreBase64(t *testing.T) {
	f := getFixture(t)
	s := tppSigner(t, f)
	r, _ := http.NewRequest("POST", "https://bank.example/v1/x", nil)
	if err := s.SignRequest(r, []byte("x")); err != nil {
		t.Fatal(err)
	}
	p, err := httpsig.ParseSignature(r.Header.Get("Signature"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(p.Signature)
	if err != nil || len(raw) != 256 {
		t.Errorf("signature is %d bytes (%v), want 256 for RSA 2048", len(raw), err)
	}
}
