package httpsig_test

import (
	"crypto"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// stepOrder is the order of the checks of a signed request.
// The digest comes last: a server checks the signature over the headers
// before it reads the body.
var stepOrder = []string{"certificate", "validity", "trust", "key", "roles", "signature header", "keyId", "algorithm", "signed headers", "signature", "digest"}

func stepNames(v *httpsig.Verdict) []string {
	out := make([]string, len(v.Steps))
	for i, s := range v.Steps {
		out[i] = s.Check
	}
	return out
}

// assertPassed checks that every step of a signed request was taken and
// passed.
func assertPassed(t *testing.T, v *httpsig.Verdict) {
	t.Helper()
	if v.Err != nil {
		t.Fatalf("Verify failed: %v\nsteps %+v", v.Err, v.Steps)
	}
	if !v.Signed {
		t.Error("Verdict.Signed = false")
	}
	if got := stepNames(v); !slices.Equal(got, stepOrder) {
		t.Errorf("steps %q, want %q", got, stepOrder)
	}
	for _, s := range v.Steps {
		if !s.OK || s.Detail == "" {
			t.Errorf("step %+v: want OK with a detail", s)
		}
	}
}

// assertFailed checks that v failed with code at step, that the steps
// before it are the ones of stepOrder and passed, and that the failed
// step's detail (which is the error message) mentions mention.
func assertFailed(t *testing.T, v *httpsig.Verdict, code, step, mention string) {
	t.Helper()
	if v.Err == nil {
		t.Fatalf("Verify passed, want %s at step %q\nsteps %+v", code, step, v.Steps)
	}
	if v.Err.Code != code {
		t.Errorf("error code %s (%v), want %s", v.Err.Code, v.Err, code)
	}
	order := stepOrder
	switch {
	case !v.Signed:
		order = []string{"signature"}
	case step == "digest" && code == apierr.CodeHeaderRequired: // a body without Digest, before the signature
		order = append(slices.Clone(stepOrder[:slices.Index(stepOrder, "roles")+1]), "digest")
	}
	idx := slices.Index(order, step)
	if idx < 0 {
		t.Fatalf("bad test: step %q", step)
	}
	if got := stepNames(v); !slices.Equal(got, order[:idx+1]) {
		t.Fatalf("steps %q, want %q", got, order[:idx+1])
	}
	for i, s := range v.Steps {
		if last := i == len(v.Steps)-1; s.OK == last {
			t.Errorf("step %d %+v: OK = %v, want %v", i, s, s.OK, !last)
		}
	}
	failed := v.Steps[len(v.Steps)-1]
	if failed.Detail != v.Err.Message {
		t.Errorf("failed step detail %q differs from the error message %q", failed.Detail, v.Err.Message)
	}
	if !strings.Contains(strings.ToLower(failed.Detail), strings.ToLower(mention)) {
		t.Errorf("failed step detail %q does not mention %q", failed.Detail, mention)
	}
	if !slices.Contains([]string{apierr.CodeSignatureMissing, apierr.CodeSignatureInvalid, apierr.CodeCertificateInvalid, apierr.CodeCertificateExpired, apierr.CodeHeaderRequired}, v.Err.Code) {
		t.Errorf("error code %s, want one of the 400 codes of a signature", v.Err.Code)
	}
}

func TestVerifyPasses(t *testing.T) {
	f := getFixture(t)
	body := []byte(`{"instructedAmount":{"currency":"NOK","amount":"12.50"}}`)
	r := signedTPPRequest(t, f, "POST", "/v1/payments/sepa-credit-transfers?dryRun=true&x=%2F", body,
		"PSU-ID", "PSU-4242", "TPP-Redirect-URI", "https://tpp.example/cb?state=1")
	vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, f.clock(0))
	v := vf.Verify(r, body)
	assertPassed(t, v)

	digest := digestOf("SHA-256", body)
	wantSigning := "(request-target): post /v1/payments/sepa-credit-transfers?dryRun=true&x=%2F\n" +
		"date: Tue, 07 Jan 2025 10:00:00 GMT\n" +
		"digest: " + digest + "\n" +
		"x-request-id: 99391c7e-ad88-49ec-a2ad-99ddcb1f7721\n" +
		"psu-id: PSU-4242\n" +
		"tpp-redirect-uri: https://tpp.example/cb?state=1"
	if v.SigningString != wantSigning {
		t.Errorf("SigningString =\n%s\nwant\n%s", v.SigningString, wantSigning)
	}
	wantHeaders := []string{"(request-target)", "date", "digest", "x-request-id", "psu-id", "tpp-redirect-uri"}
	if !slices.Equal(v.SignedHeaders, wantHeaders) {
		t.Errorf("SignedHeaders = %q, want %q", v.SignedHeaders, wantHeaders)
	}
	if v.Digest != digest {
		t.Errorf("Digest = %q, want %q", v.Digest, digest)
	}
	if v.TPPID != "NO-FSA-"+tppOrg {
		t.Errorf("TPPID = %q, want NO-FSA-%s", v.TPPID, tppOrg)
	}
	if !slices.Equal(v.Roles, []string{pki.RoleAI, pki.RolePI}) {
		t.Errorf("Roles = %q, want the certificate's PSP_AI, PSP_PI", v.Roles)
	}
	if v.Cert == nil || v.Cert.SerialNumber.Cmp(f.tpp.SerialNumber) != 0 {
		t.Errorf("Cert = %v, want the TPP certificate", v.Cert)
	}
	if v.Steps[2].Detail == "" || !strings.Contains(v.Steps[2].Detail, "trust mode any") {
		t.Errorf("trust step %+v: want trust mode any", v.Steps[2])
	}
}

func TestVerifyPassingVariants(t *testing.T) {
	f := getFixture(t)
	body := []byte(`{"a":1}`)
	serial := fmt.Sprintf("%X", f.tpp.SerialNumber)
	issuer := httpsig.FormatDN(f.tpp.Issuer)
	// sign returns a request signed over names with the given Signature
	// parameters, after setting the given headers.
	sign := func(method, target string, body []byte, h crypto.Hash, kid, alg string, names []string, headers ...string) *http.Request {
		base := []string{"Date", "Tue, 07 Jan 2025 10:00:00 GMT", "X-Request-ID", "id-1", "TPP-Signature-Certificate", certHeader(f.tpp)}
		r := serverRequest(method, target, body, append(base, headers...)...)
		handSign(t, r, f.tppKey, h, kid, alg, names)
		return r
	}
	std := []string{"(request-target)", "date", "digest", "x-request-id"}
	get := []string{"(request-target)", "date", "x-request-id"}
	cases := []struct {
		name   string
		req    func() *http.Request
		body   []byte
		policy *httpsig.Policy
		check  func(t *testing.T, v *httpsig.Verdict)
	}{
		{name: "GET without body", req: func() *http.Request {
			return sign("GET", "/v1/accounts?withBalance=true", nil, crypto.SHA256, keyID(f.tpp), "rsa-sha256", get)
		}},
		{name: "GET with a Digest of the empty body", req: func() *http.Request {
			return sign("GET", "/v1/accounts", nil, crypto.SHA256, keyID(f.tpp), "rsa-sha256", std, "Digest", httpsig.Digest(nil))
		}},
		{name: "rsa-sha512", body: body, req: func() *http.Request {
			return sign("POST", "/v1/x", body, crypto.SHA512, keyID(f.tpp), "rsa-sha512", std, "Digest", httpsig.Digest(body))
		}},
		{name: "algorithm in upper case", body: body, req: func() *http.Request {
			return sign("POST", "/v1/x", body, crypto.SHA256, keyID(f.tpp), "RSA-SHA256", std, "Digest", httpsig.Digest(body))
		}},
		{name: "digest algorithm in lower case", body: body, req: func() *http.Request {
			return sign("POST", "/v1/x", body, crypto.SHA256, keyID(f.tpp), "rsa-sha256", std, "Digest", digestOf("sha-256", body))
		}},
		{name: "SHA-512 digest", body: body, req: func() *http.Request {
			return sign("POST", "/v1/x", body, crypto.SHA256, keyID(f.tpp), "rsa-sha256", std, "Digest", digestOf("SHA-512", body))
		}},
		{name: "digest list", body: body, req: func() *http.Request {
			return sign("POST", "/v1/x", body, crypto.SHA256, keyID(f.tpp), "rsa-sha256", std,
				"Digest", digestOf("SHA-512", body)+", "+digestOf("SHA-256", body))
		}},
		{name: "digest list with an unknown algorithm", body: body, req: func() *http.Request {
			return sign("POST", "/v1/x", body, crypto.SHA256, keyID(f.tpp), "rsa-sha256", std, "Digest", "MD5=abc,"+digestOf("SHA-256", body))
		}},
		{name: "header names in mixed case", body: body, req: func() *http.Request {
			return sign("POST", "/v1/x", body, crypto.SHA256, keyID(f.tpp), "rsa-sha256", []string{"(Request-Target)", "Date", "DIGEST", "X-Request-ID"}, "Digest", httpsig.Digest(body))
		}},
		{name: "host and other headers signed", req: func() *http.Request {
			return sign("GET", "/v1/x", nil, crypto.SHA256, keyID(f.tpp), "rsa-sha256", []string{"host", "x-request-id", "date", "consent-id"}, "Consent-ID", "c-1")
		}},
		{name: "all PSU and redirect headers", req: func() *http.Request {
			return sign("GET", "/v1/x", nil, crypto.SHA256, keyID(f.tpp), "rsa-sha256",
				[]string{"x-request-id", "date", "psu-id", "psu-corporate-id", "tpp-redirect-uri"},
				"PSU-ID", "p", "PSU-Corporate-ID", "c", "TPP-Redirect-URI", "https://tpp.example/")
		}},
		{name: "keyId lower case with leading zeros", req: func() *http.Request {
			return sign("GET", "/v1/x", nil, crypto.SHA256, "sn=000"+strings.ToLower(serial)+", ca="+issuer, "rsa-sha256", get)
		}},
		{name: "keyId with 0x", req: func() *http.Request {
			return sign("GET", "/v1/x", nil, crypto.SHA256, "SN=0x"+serial+",CA="+issuer, "rsa-sha256", get)
		}},
		{name: "keyId CA in Go's form", req: func() *http.Request {
			return sign("GET", "/v1/x", nil, crypto.SHA256, "SN="+serial+",CA="+f.tpp.Issuer.String(), "rsa-sha256", get)
		}},
		{name: "keyId CA with OID. and reversed", req: func() *http.Request {
			return sign("GET", "/v1/x", nil, crypto.SHA256, "SN="+serial+",CA=C=NO,O=Sandbank Sandbox,CN=Sandbank Sandbox CA,OID.2.5.4.97=NTRNO-999999999", "rsa-sha256", get)
		}},
		{name: "keyId CA percent-encoded", req: func() *http.Request {
			return sign("GET", "/v1/x", nil, crypto.SHA256, "SN="+serial+",CA="+strings.ReplaceAll(strings.ReplaceAll(issuer, " ", "%20"), ",", "%2C"), "rsa-sha256", get)
		}},
		{name: "self-signed certificate without QCStatement", req: func() *http.Request {
			r := serverRequest("GET", "/v1/x", nil, "X-Request-ID", "id", "TPP-Signature-Certificate", certHeader(f.self))
			handSign(t, r, f.tppKey, crypto.SHA256, keyID(f.self), "rsa-sha256", []string{"x-request-id"})
			return r
		}, check: func(t *testing.T, v *httpsig.Verdict) {
			if !slices.Equal(v.Roles, pki.Roles) || v.TPPID != "Self TPP" {
				t.Errorf("Roles %q TPPID %q, want every role and Self TPP", v.Roles, v.TPPID)
			}
		}},
		{name: "trust store accepts", policy: &httpsig.Policy{RequireSignature: true, Trust: func(*x509.Certificate) error { return nil }},
			req: func() *http.Request {
				return sign("GET", "/v1/x", nil, crypto.SHA256, keyID(f.tpp), "rsa-sha256", get)
			}, check: func(t *testing.T, v *httpsig.Verdict) {
				if !strings.Contains(v.Steps[2].Detail, "trust mode store") || !slices.Equal(v.Roles, tppRoles) {
					t.Errorf("trust step %+v roles %q", v.Steps[2], v.Roles)
				}
			}},
		{name: "trust store and no QCStatement: no role", policy: &httpsig.Policy{RequireSignature: true, Trust: func(*x509.Certificate) error { return nil }},
			req: func() *http.Request {
				r := serverRequest("GET", "/v1/x", nil, "X-Request-ID", "id", "TPP-Signature-Certificate", certHeader(f.self))
				handSign(t, r, f.tppKey, crypto.SHA256, keyID(f.self), "rsa-sha256", []string{"x-request-id"})
				return r
			}, check: func(t *testing.T, v *httpsig.Verdict) {
				if v.Roles == nil || len(v.Roles) != 0 {
					t.Errorf("Roles = %#v, want an empty list", v.Roles)
				}
			}},
		{name: "leading Signature token", req: func() *http.Request {
			r := sign("GET", "/v1/x", nil, crypto.SHA256, keyID(f.tpp), "rsa-sha256", get)
			r.Header.Set("Signature", "Signature "+r.Header.Get("Signature"))
			return r
		}},
		{name: "RFC 2047 encoded Signature", req: func() *http.Request {
			r := sign("GET", "/v1/x", nil, crypto.SHA256, keyID(f.tpp), "rsa-sha256", get)
			r.Header.Set("Signature", "=?utf-8?B?"+base64.StdEncoding.EncodeToString([]byte(r.Header.Get("Signature")))+"?=")
			return r
		}},
		{name: "certificate as PEM", req: func() *http.Request {
			r := sign("GET", "/v1/x", nil, crypto.SHA256, keyID(f.tpp), "rsa-sha256", get)
			r.Header.Set("TPP-Signature-Certificate", `-----BEGIN CERTIFICATE-----\n`+certHeader(f.tpp)+`\n-----END CERTIFICATE-----`)
			return r
		}},
		{name: "signed request with requireSignature off", policy: &httpsig.Policy{}, req: func() *http.Request {
			return sign("GET", "/v1/x", nil, crypto.SHA256, keyID(f.tpp), "rsa-sha256", get)
		}, check: func(t *testing.T, v *httpsig.Verdict) {
			if v.TPPID != "NO-FSA-"+tppOrg {
				t.Errorf("TPPID %q", v.TPPID)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			policy := httpsig.Policy{RequireSignature: true}
			if tc.policy != nil {
				policy = *tc.policy
			}
			vf := httpsig.NewVerifier(policy, f.clock(0))
			v := vf.Verify(tc.req(), tc.body)
			assertPassed(t, v)
			if tc.check != nil {
				tc.check(t, v)
			}
		})
	}
}

func TestVerifyFailures(t *testing.T) {
	f := getFixture(t)
	body := []byte(`{"a":1}`)
	serial := fmt.Sprintf("%X", f.tpp.SerialNumber)
	issuer := httpsig.FormatDN(f.tpp.Issuer)
	post := func() *http.Request { return signedTPPRequest(t, f, "POST", "/v1/payments/x", body) }
	get := func() *http.Request { return signedTPPRequest(t, f, "GET", "/v1/accounts", nil) }
	// custom signs a GET (or POST with body) over names after setting headers.
	custom := func(withBody bool, cert *x509.Certificate, key crypto.Signer, kid, alg string, names []string, headers ...string) *http.Request {
		base := []string{"Date", "Tue, 07 Jan 2025 10:00:00 GMT", "X-Request-ID", "id-1", "TPP-Signature-Certificate", certHeader(cert)}
		method, b := "GET", []byte(nil)
		if withBody {
			method, b = "POST", body
			base = append(base, "Digest", httpsig.Digest(body))
		}
		r := serverRequest(method, "/v1/x", b, append(base, headers...)...)
		handSign(t, r, key, crypto.SHA256, kid, alg, names)
		return r
	}
	// digested is a POST signed over a Digest header of the given value:
	// the signature holds, so the digest step judges the value.
	postNames := []string{"(request-target)", "date", "digest", "x-request-id"}
	digested := func(value string) *http.Request {
		r := serverRequest("POST", "/v1/x", body, "Date", "Tue, 07 Jan 2025 10:00:00 GMT", "X-Request-ID", "id-1",
			"TPP-Signature-Certificate", certHeader(f.tpp), "Digest", value)
		handSign(t, r, f.tppKey, crypto.SHA256, keyID(f.tpp), "rsa-sha256", postNames)
		return r
	}
	with := func(r *http.Request, name, value string) *http.Request {
		if value == "" {
			r.Header.Del(name)
		} else {
			r.Header.Set(name, value)
		}
		return r
	}
	replaceParam := func(r *http.Request, old, new string) *http.Request {
		r.Header.Set("Signature", strings.Replace(r.Header.Get("Signature"), old, new, 1))
		return r
	}
	getNames := []string{"(request-target)", "date", "x-request-id"}
	cases := []struct {
		name    string
		req     func() *http.Request
		body    []byte // defaults to nil
		policy  *httpsig.Policy
		clock   time.Duration
		code    string
		step    string
		mention string
	}{
		{name: "signature missing", req: func() *http.Request {
			return serverRequest("GET", "/v1/accounts", nil, "X-Request-ID", "1")
		}, code: apierr.CodeSignatureMissing, step: "signature", mention: "no Signature header"},
		{name: "signature missing with a certificate", req: func() *http.Request {
			return with(get(), "Signature", "")
		}, code: apierr.CodeSignatureMissing, step: "signature", mention: "no Signature header"},
		{name: "certificate missing", req: func() *http.Request {
			return with(get(), "TPP-Signature-Certificate", "")
		}, code: apierr.CodeHeaderRequired, step: "certificate", mention: "TPP-Signature-Certificate is missing"},
		{name: "certificate missing with requireSignature off", policy: &httpsig.Policy{},
			req:  func() *http.Request { return with(get(), "TPP-Signature-Certificate", "") },
			code: apierr.CodeHeaderRequired, step: "certificate", mention: "TPP-Signature-Certificate is missing"},
		{name: "certificate not base64", req: func() *http.Request {
			return with(get(), "TPP-Signature-Certificate", "%%%not base64%%%")
		}, code: apierr.CodeCertificateInvalid, step: "certificate", mention: "base64"},
		{name: "certificate not X.509", req: func() *http.Request {
			return with(get(), "TPP-Signature-Certificate", base64.StdEncoding.EncodeToString([]byte("hello, world")))
		}, code: apierr.CodeCertificateInvalid, step: "certificate", mention: "X.509"},
		{name: "certificate expired", clock: 31 * 24 * time.Hour, req: get,
			code: apierr.CodeCertificateExpired, step: "validity", mention: "expired"},
		{name: "certificate not yet valid", clock: -2 * time.Hour, req: get,
			code: apierr.CodeCertificateExpired, step: "validity", mention: "future"},
		{name: "trust store rejects", policy: &httpsig.Policy{RequireSignature: true, Trust: func(*x509.Certificate) error { return errors.New("no chain to a trusted CA") }},
			req: get, code: apierr.CodeCertificateInvalid, step: "trust", mention: "no chain to a trusted CA"},
		{name: "QCStatement unreadable", req: func() *http.Request {
			return custom(false, f.badQC, f.tppKey, keyID(f.badQC), "rsa-sha256", getNames)
		}, code: apierr.CodeCertificateInvalid, step: "roles", mention: "QCStatements"},
		{name: "digest missing", body: body, req: func() *http.Request {
			return with(post(), "Digest", "")
		}, code: apierr.CodeHeaderRequired, step: "digest", mention: "no Digest header"},
		{name: "digest of another body", body: []byte(`{"a":2}`), req: post,
			code: apierr.CodeSignatureInvalid, step: "digest", mention: "does not match"},
		{name: "digest with a body but none sent", body: nil, req: post,
			code: apierr.CodeSignatureInvalid, step: "digest", mention: "does not match"},
		{name: "digest of another algorithm only", body: body, req: func() *http.Request {
			return digested("MD5=abc")
		}, code: apierr.CodeSignatureInvalid, step: "digest", mention: "no SHA-256"},
		{name: "digest without equals", body: body, req: func() *http.Request {
			return digested("SHA-256")
		}, code: apierr.CodeSignatureInvalid, step: "digest", mention: "no SHA-256"},
		{name: "digest list with one wrong value", body: body, req: func() *http.Request {
			return digested(digestOf("SHA-256", body) + "," + digestOf("SHA-512", []byte("x")))
		}, code: apierr.CodeSignatureInvalid, step: "digest", mention: "SHA-512"},
		{name: "digest in hex", body: body, req: func() *http.Request {
			return digested("SHA-256=0123456789abcdef")
		}, code: apierr.CodeSignatureInvalid, step: "digest", mention: "does not match"},
		{name: "signature header garbage", req: func() *http.Request {
			return with(get(), "Signature", "garbage")
		}, code: apierr.CodeSignatureInvalid, step: "signature header", mention: "malformed"},
		{name: "signature header without algorithm", req: func() *http.Request {
			return replaceParam(get(), `algorithm="rsa-sha256",`, "")
		}, code: apierr.CodeSignatureInvalid, step: "signature header", mention: "lacks algorithm"},
		{name: "keyId not SN=,CA=", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, "CN=Test", "rsa-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "keyId", mention: "SN="},
		{name: "keyId other serial", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, "SN=1234ABCD,CA="+issuer, "rsa-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "keyId", mention: "not the certificate's serial"},
		{name: "keyId serial in decimal", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, "SN="+f.tpp.SerialNumber.String()+",CA="+issuer, "rsa-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "keyId", mention: "decimal"},
		{name: "keyId other CA", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, "SN="+serial+",CA=CN=Other CA", "rsa-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "keyId", mention: "not the certificate's issuer"},
		{name: "keyId CA missing an attribute in strict mode", policy: &httpsig.Policy{RequireSignature: true, Strict: true}, req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, "SN="+serial+",CA="+strings.Replace(issuer, ",C=NO", "", 1), "rsa-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "keyId", mention: "leaves out the issuer's C=NO"},
		{name: "keyId CA without organizationIdentifier in strict mode", policy: &httpsig.Policy{RequireSignature: true, Strict: true}, req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, "SN="+serial+",CA=CN=Sandbank Sandbox CA,O=Sandbank Sandbox,C=NO", "rsa-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "keyId", mention: "strict mode refuses"},
		{name: "keyId CA in part with a value that differs", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, "SN="+serial+",CA=CN=Sandbank Sandbox CA,O=Sandbank Sandbox AS,C=NO", "rsa-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "keyId", mention: "its O differs"},
		{name: "keyId CA in part with a type the issuer lacks", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, "SN="+serial+",CA=CN=Sandbank Sandbox CA,OU=Sandbank Sandbox,C=NO", "rsa-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "keyId", mention: "the issuer has no OU"},
		{name: "keyId CA with an attribute twice", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, "SN="+serial+",CA="+issuer+",C=NO", "rsa-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "keyId", mention: "C=NO more often"},
		{name: "keyId CA in part, other serial", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, "SN=1234ABCD,CA=CN=Sandbank Sandbox CA,O=Sandbank Sandbox,C=NO", "rsa-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "keyId", mention: "not the certificate's serial"},
		{name: "keyId CA in part, signature by another key", req: func() *http.Request {
			return custom(false, f.tpp, f.bankKey, "SN="+serial+",CA=CN=Sandbank Sandbox CA,O=Sandbank Sandbox,C=NO", "rsa-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "signature", mention: "does not verify"},
		{name: "keyId CA unreadable", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, "SN="+serial+",CA=XYZ=1", "rsa-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "keyId", mention: "cannot be read"},
		{name: "keyId CA empty", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, "SN="+serial+",CA=", "rsa-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "keyId", mention: "empty"},
		{name: "keyId of another certificate", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, keyID(f.self), "rsa-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "keyId", mention: "keyId"},
		{name: "algorithm unsupported", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, keyID(f.tpp), "hmac-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "algorithm", mention: "not supported"},
		{name: "algorithm hs2019", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, keyID(f.tpp), "hs2019", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "algorithm", mention: "rsa-sha256"},
		{name: "RSA key of 1024 bits", req: func() *http.Request {
			return custom(false, f.short, f.shortKey, keyID(f.short), "rsa-sha256", getNames)
		}, code: apierr.CodeCertificateInvalid, step: "key", mention: "the certificate's RSA key has 1024 bits; use at least 2048"},
		{name: "ECDSA certificate", req: func() *http.Request {
			return custom(false, f.ec, f.ecKey, keyID(f.ec), "rsa-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "algorithm", mention: "ECDSA"},
		{name: "x-request-id not signed", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, keyID(f.tpp), "rsa-sha256", []string{"(request-target)", "date"})
		}, code: apierr.CodeSignatureInvalid, step: "signed headers", mention: "x-request-id"},
		{name: "digest not signed", body: body, req: func() *http.Request {
			return custom(true, f.tpp, f.tppKey, keyID(f.tpp), "rsa-sha256", []string{"(request-target)", "date", "x-request-id"})
		}, code: apierr.CodeSignatureInvalid, step: "signed headers", mention: "must include digest"},
		{name: "psu-id not signed", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, keyID(f.tpp), "rsa-sha256", getNames, "PSU-ID", "p")
		}, code: apierr.CodeSignatureInvalid, step: "signed headers", mention: "must include psu-id"},
		{name: "psu-corporate-id not signed", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, keyID(f.tpp), "rsa-sha256", getNames, "PSU-Corporate-ID", "c")
		}, code: apierr.CodeSignatureInvalid, step: "signed headers", mention: "must include psu-corporate-id"},
		{name: "tpp-redirect-uri not signed", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, keyID(f.tpp), "rsa-sha256", getNames, "TPP-Redirect-URI", "https://tpp.example/")
		}, code: apierr.CodeSignatureInvalid, step: "signed headers", mention: "must include tpp-redirect-uri"},
		{name: "date not signed", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, keyID(f.tpp), "rsa-sha256", []string{"(request-target)", "x-request-id"})
		}, code: apierr.CodeSignatureInvalid, step: "signed headers", mention: "must include date"},
		{name: "empty PSU-ID not signed", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, keyID(f.tpp), "rsa-sha256", getNames, "PSU-ID", "")
		}, code: apierr.CodeSignatureInvalid, step: "signed headers", mention: "must include psu-id"},
		{name: "listed header absent", req: func() *http.Request {
			r := custom(false, f.tpp, f.tppKey, keyID(f.tpp), "rsa-sha256", append(getNames, "psu-id"), "PSU-ID", "p")
			r.Header.Del("PSU-ID")
			return r
		}, code: apierr.CodeSignatureInvalid, step: "signed headers", mention: "request has no psu-id header"},
		{name: "header listed twice", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, keyID(f.tpp), "rsa-sha256", []string{"date", "x-request-id", "X-Request-ID"})
		}, code: apierr.CodeSignatureInvalid, step: "signed headers", mention: "twice"},
		{name: "empty headers list", req: func() *http.Request {
			return custom(false, f.tpp, f.tppKey, keyID(f.tpp), "rsa-sha256", nil)
		}, code: apierr.CodeSignatureInvalid, step: "signed headers", mention: "x-request-id"},
		{name: "signature not base64", req: func() *http.Request {
			r := get()
			sig := r.Header.Get("Signature")
			i := strings.Index(sig, `signature="`)
			r.Header.Set("Signature", sig[:i]+`signature="!!not base64!!"`)
			return r
		}, code: apierr.CodeSignatureInvalid, step: "signature", mention: "not base64"},
		{name: "signature by another key", req: func() *http.Request {
			return custom(false, f.tpp, f.bankKey, keyID(f.tpp), "rsa-sha256", getNames)
		}, code: apierr.CodeSignatureInvalid, step: "signature", mention: "does not verify"},
		{name: "signed header changed", req: func() *http.Request {
			return with(get(), "X-Request-ID", "other")
		}, code: apierr.CodeSignatureInvalid, step: "signature", mention: "does not verify"},
		{name: "date changed", req: func() *http.Request {
			return with(get(), "Date", "Wed, 08 Jan 2025 10:00:00 GMT")
		}, code: apierr.CodeSignatureInvalid, step: "signature", mention: "does not verify"},
		{name: "body and digest changed", body: []byte(`{"a":2}`), req: func() *http.Request {
			return with(post(), "Digest", httpsig.Digest([]byte(`{"a":2}`)))
		}, code: apierr.CodeSignatureInvalid, step: "signature", mention: "does not verify"},
		{name: "path changed", req: func() *http.Request {
			r := get()
			c := serverRequest("GET", "/v1/accounts/1", nil)
			c.Header = r.Header
			return c
		}, code: apierr.CodeSignatureInvalid, step: "signature", mention: "does not verify"},
		{name: "query changed", req: func() *http.Request {
			r := get()
			c := serverRequest("GET", "/v1/accounts?withBalance=true", nil)
			c.Header = r.Header
			return c
		}, code: apierr.CodeSignatureInvalid, step: "signature", mention: "does not verify"},
		{name: "method changed", req: func() *http.Request {
			r := get()
			c := serverRequest("DELETE", "/v1/accounts", nil)
			c.Header = r.Header
			return c
		}, code: apierr.CodeSignatureInvalid, step: "signature", mention: "does not verify"},
		{name: "algorithm claims sha512 over a sha256 signature", req: func() *http.Request {
			return replaceParam(get(), "rsa-sha256", "rsa-sha512")
		}, code: apierr.CodeSignatureInvalid, step: "signature", mention: "does not verify"},
		{name: "signed request fails with requireSignature off", policy: &httpsig.Policy{},
			req:  func() *http.Request { return with(get(), "X-Request-ID", "other") },
			code: apierr.CodeSignatureInvalid, step: "signature", mention: "does not verify"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			policy := httpsig.Policy{RequireSignature: true}
			if tc.policy != nil {
				policy = *tc.policy
			}
			vf := httpsig.NewVerifier(policy, f.clock(tc.clock))
			v := vf.Verify(tc.req(), tc.body)
			assertFailed(t, v, tc.code, tc.step, tc.mention)
		})
	}
}

// TestVerifyKeyIDNotes: a keyId CA that writes the issuer in part (here
// without its organizationIdentifier, as signers with a fixed list of
// attributes write it) passes with a client note that names what was left
// out; the keyId step says so. The whole issuer gives no note.
func TestVerifyKeyIDNotes(t *testing.T) {
	f := getFixture(t)
	serial := fmt.Sprintf("%X", f.tpp.SerialNumber)
	names := []string{"(request-target)", "date", "x-request-id"}
	request := func(kid string) *http.Request {
		r := serverRequest("GET", "/v1/accounts", nil, "Date", "Tue, 07 Jan 2025 10:00:00 GMT", "X-Request-ID", "id-1",
			"TPP-Signature-Certificate", certHeader(f.tpp))
		handSign(t, r, f.tppKey, crypto.SHA256, kid, "rsa-sha256", names)
		return r
	}
	vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, f.clock(0))

	whole := vf.Verify(request(keyID(f.tpp)), nil)
	assertPassed(t, whole)
	if len(whole.Notes) != 0 || strings.Contains(whole.Steps[slices.Index(stepOrder, "keyId")].Detail, "warning") {
		t.Errorf("whole issuer: notes %+v, keyId step %q", whole.Notes, whole.Steps[slices.Index(stepOrder, "keyId")].Detail)
	}

	for _, ca := range []string{
		"CN=Sandbank Sandbox CA,O=Sandbank Sandbox,C=NO",
		"C=NO,O=Sandbank Sandbox,CN=Sandbank Sandbox CA",
		"cn=sandbank sandbox ca, o=SANDBANK SANDBOX, c=no",
		"CN=Sandbank%20Sandbox%20CA,O=Sandbank%20Sandbox,C=NO",
	} {
		v := vf.Verify(request("SN="+serial+",CA="+ca), nil)
		assertPassed(t, v)
		if len(v.Notes) != 1 {
			t.Fatalf("%s: notes %+v, want one", ca, v.Notes)
		}
		n := v.Notes[0]
		if n.Category != "WARNING" || n.Path != "keyId" || n.Refuse != apierr.CodeSignatureInvalid ||
			!strings.Contains(n.Text, "leaves out the issuer's organizationIdentifier=NTRNO-999999999") ||
			!strings.Contains(n.Text, httpsig.FormatDN(f.tpp.Issuer)) || strings.Contains(strings.SplitN(n.Text, ";", 2)[0], "CN=") {
			t.Errorf("%s: note %+v", ca, n)
		}
		if step := v.Steps[slices.Index(stepOrder, "keyId")]; step.Check != "keyId" || !strings.Contains(step.Detail, "with a warning: "+n.Text) {
			t.Errorf("%s: keyId step %+v does not show the note", ca, step)
		}
		data, err := json.Marshal(v)
		if err != nil || !strings.Contains(string(data), `"notes":[{"category":"WARNING","code":"WARNING","path":"keyId","text":"keyId CA leaves out`) {
			t.Errorf("%s: verdict JSON %s, %v", ca, data, err)
		}
	}

	// The CA is still refused when nothing is in common, or when it is empty.
	for ca, mention := range map[string]string{"C=SE": "its C differs", "OU=x": "the issuer has no OU", "": "empty"} {
		v := vf.Verify(request("SN="+serial+",CA="+ca), nil)
		assertFailed(t, v, apierr.CodeSignatureInvalid, "keyId", mention)
		if len(v.Notes) != 0 {
			t.Errorf("CA %q refused with notes %+v", ca, v.Notes)
		}
	}

	// Strict mode refuses the CA written in part, with the note's text.
	vf.SetPolicy(httpsig.Policy{RequireSignature: true, Strict: true})
	v := vf.Verify(request("SN="+serial+",CA=CN=Sandbank Sandbox CA,O=Sandbank Sandbox,C=NO"), nil)
	assertFailed(t, v, apierr.CodeSignatureInvalid, "keyId", "keyId CA leaves out the issuer's organizationIdentifier=NTRNO-999999999")
	if !strings.HasSuffix(v.Err.Message, "(strict mode refuses what the bank accepts with a warning)") || len(v.Notes) != 0 {
		t.Errorf("strict refusal %q, notes %+v", v.Err.Message, v.Notes)
	}
	assertPassed(t, vf.Verify(request(keyID(f.tpp)), nil))
}

// TestVerifyCertificateNotes: a TPP-Signature-Certificate with PEM
// armour, escaped line breaks or white space around and within its base64
// passes with a client note that names what it carries besides the
// base64 DER; the certificate step says so. Strict mode refuses it at the
// certificate step with the note's text. Base64 alone gives no note.
func TestVerifyCertificateNotes(t *testing.T) {
	f := getFixture(t)
	std := certHeader(f.tpp)
	request := func(value string) *http.Request {
		r := serverRequest("GET", "/v1/accounts", nil, "Date", "Tue, 07 Jan 2025 10:00:00 GMT", "X-Request-ID", "id-1",
			"TPP-Signature-Certificate", value)
		handSign(t, r, f.tppKey, crypto.SHA256, keyID(f.tpp), "rsa-sha256", []string{"(request-target)", "date", "x-request-id"})
		return r
	}
	const fix = "; the bank accepts it, but the header takes the base64 DER alone, without the armour, on one line: openssl x509 -in cert.pem -outform DER | openssl base64 -A"
	cases := []struct{ name, value, note string }{
		{"PEM with escaped line breaks", `-----BEGIN CERTIFICATE-----\n` + std[:64] + `\n` + std[64:] + `\n-----END CERTIFICATE-----`,
			`TPP-Signature-Certificate holds the certificate with PEM armour (-----BEGIN CERTIFICATE-----) and escaped line breaks (\n)` + fix},
		{"PEM with its line breaks removed", "-----BEGIN CERTIFICATE-----" + std + "-----END CERTIFICATE-----",
			"TPP-Signature-Certificate holds the certificate with PEM armour (-----BEGIN CERTIFICATE-----)" + fix},
		{"PEM with its line breaks as spaces", "-----BEGIN CERTIFICATE----- " + std[:64] + " " + std[64:] + " -----END CERTIFICATE-----",
			"TPP-Signature-Certificate holds the certificate with PEM armour (-----BEGIN CERTIFICATE-----) and white space" + fix},
		{"base64 with escaped line breaks and spaces", std[:64] + `\n` + std[64:128] + " " + std[128:],
			`TPP-Signature-Certificate holds the certificate with escaped line breaks (\n) and white space` + fix},
	}
	lenient := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, f.clock(0))
	strict := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true, Strict: true}, f.clock(0))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := lenient.Verify(request(tc.value), nil)
			assertPassed(t, v)
			if len(v.Notes) != 1 {
				t.Fatalf("notes %+v, want one", v.Notes)
			}
			n := v.Notes[0]
			if n.Category != "WARNING" || n.Path != "TPP-Signature-Certificate" || n.Refuse != apierr.CodeCertificateInvalid || n.Text != tc.note {
				t.Errorf("note %+v\nwant the text %s", n, tc.note)
			}
			if step := v.Steps[0]; !strings.HasSuffix(step.Detail, ", with a warning: "+tc.note) {
				t.Errorf("certificate step %+v does not show the note", step)
			}
			v = strict.Verify(request(tc.value), nil)
			assertFailed(t, v, apierr.CodeCertificateInvalid, "certificate", tc.note+" (strict mode refuses what the bank accepts with a warning)")
			if len(v.Notes) != 0 {
				t.Errorf("strict refusal with notes %+v", v.Notes)
			}
		})
	}
	for _, v := range []*httpsig.Verdict{lenient.Verify(request(std), nil), strict.Verify(request(std), nil)} {
		assertPassed(t, v)
		if len(v.Notes) != 0 || strings.Contains(v.Steps[0].Detail, "warning") {
			t.Errorf("base64 DER alone: notes %+v, certificate step %+v", v.Notes, v.Steps[0])
		}
	}
}

// TestVerifyKeyIDRemembered: the verifier remembers a keyId that passed
// for its certificate; the same request verified again gives the same
// steps and notes, and a note of one verdict is not shared with the next.
func TestVerifyKeyIDRemembered(t *testing.T) {
	f := getFixture(t)
	serial := fmt.Sprintf("%X", f.tpp.SerialNumber)
	names := []string{"(request-target)", "date", "x-request-id"}
	request := func(kid string) *http.Request {
		r := serverRequest("GET", "/v1/accounts", nil, "Date", "Tue, 07 Jan 2025 10:00:00 GMT", "X-Request-ID", "id-1",
			"TPP-Signature-Certificate", certHeader(f.tpp))
		handSign(t, r, f.tppKey, crypto.SHA256, kid, "rsa-sha256", names)
		return r
	}
	vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, f.clock(0))
	for _, kid := range []string{keyID(f.tpp), "SN=" + serial + ",CA=CN=Sandbank Sandbox CA,O=Sandbank Sandbox,C=NO"} {
		first := vf.Verify(request(kid), nil)
		assertPassed(t, first)
		second := vf.Verify(request(kid), nil)
		assertPassed(t, second)
		if !reflect.DeepEqual(first.Steps, second.Steps) || !reflect.DeepEqual(first.Notes, second.Notes) {
			t.Fatalf("%s verified twice:\n%+v %+v\n%+v %+v", kid, first.Steps, first.Notes, second.Steps, second.Notes)
		}
		if len(first.Notes) > 0 {
			first.Notes[0].Text = "changed"
			if third := vf.Verify(request(kid), nil); third.Notes[0].Text == "changed" {
				t.Fatal("a verdict's notes are shared with the next one")
			}
		}
	}
	// Another serial under a keyId seen before is refused.
	assertFailed(t, vf.Verify(request("SN=1"+serial+",CA="+httpsig.FormatDN(f.tpp.Issuer)), nil), apierr.CodeSignatureInvalid, "keyId", "serial")
}

func TestVerifyUnsignedAllowed(t *testing.T) {
	f := getFixture(t)
	vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: false}, f.clock(0))
	check := func(name string, r *http.Request, tppID string, cert bool) {
		t.Helper()
		v := vf.Verify(r, nil)
		if v.Err != nil {
			t.Fatalf("%s: %v", name, v.Err)
		}
		if v.Signed {
			t.Errorf("%s: Signed = true", name)
		}
		if len(v.Steps) != 1 || v.Steps[0].Check != "signature" || !v.Steps[0].OK || !strings.Contains(v.Steps[0].Detail, "requireSignature is off") {
			t.Errorf("%s: steps %+v", name, v.Steps)
		}
		if v.TPPID != tppID {
			t.Errorf("%s: TPPID = %q, want %q", name, v.TPPID, tppID)
		}
		if !slices.Equal(v.Roles, pki.Roles) {
			t.Errorf("%s: Roles = %q, want every role", name, v.Roles)
		}
		if (v.Cert != nil) != cert {
			t.Errorf("%s: Cert = %v, want set %v", name, v.Cert, cert)
		}
		if v.SigningString != "" || v.SignedHeaders != nil {
			t.Errorf("%s: unsigned verdict has signing data", name)
		}
	}
	check("bare", serverRequest("GET", "/v1/accounts", nil), httpsig.UnsignedTPP, false)
	check("with body and no digest", serverRequest("POST", "/v1/x", []byte("{}")), httpsig.UnsignedTPP, false)
	check("with a certificate", serverRequest("GET", "/v1/accounts", nil, "TPP-Signature-Certificate", certHeader(f.tpp)), "NO-FSA-"+tppOrg, true)
	check("with an invalid certificate", serverRequest("GET", "/v1/accounts", nil, "TPP-Signature-Certificate", "garbage"), httpsig.UnsignedTPP, false)

	// The verdict's roles are its own.
	v := vf.Verify(serverRequest("GET", "/", nil), nil)
	v.Roles[0] = "CHANGED"
	if slices.Contains(pki.Roles, "CHANGED") {
		t.Fatal("changing an unsigned verdict's roles changed pki.Roles")
	}

	// The policy can change while the verifier runs.
	vf.SetPolicy(httpsig.Policy{RequireSignature: true})
	v = vf.Verify(serverRequest("GET", "/v1/accounts", nil), nil)
	assertFailed(t, v, apierr.CodeSignatureMissing, "signature", "no Signature header")
	vf.SetPolicy(httpsig.Policy{})
	if v := vf.Verify(serverRequest("GET", "/v1/accounts", nil), nil); v.Err != nil {
		t.Errorf("after SetPolicy(off): %v", v.Err)
	}
}

func TestVerifyCertCache(t *testing.T) {
	f := getFixture(t)
	vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, f.clock(0))
	r := signedTPPRequest(t, f, "GET", "/v1/accounts", nil)
	first := vf.Verify(cloneRequest(r, nil), nil)
	second := vf.Verify(cloneRequest(r, nil), nil)
	assertPassed(t, first)
	assertPassed(t, second)
	if !reflect.DeepEqual(first.Steps, second.Steps) || first.TPPID != second.TPPID || !slices.Equal(first.Roles, second.Roles) ||
		first.SigningString != second.SigningString || !first.Cert.Equal(second.Cert) {
		t.Errorf("the same request verified twice differs:\n%+v\n%+v", first, second)
	}

	// Validity is checked per request, not cached with the certificate.
	var offset atomic.Int64
	clocked := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, func() time.Time { return f.now.Add(time.Duration(offset.Load())) })
	assertPassed(t, clocked.Verify(cloneRequest(r, nil), nil))
	offset.Store(int64(60 * 24 * time.Hour))
	assertFailed(t, clocked.Verify(cloneRequest(r, nil), nil), apierr.CodeCertificateExpired, "validity", "expired")
	offset.Store(0)
	assertPassed(t, clocked.Verify(cloneRequest(r, nil), nil))

	// An invalid certificate value gives the same answer twice.
	bad := cloneRequest(r, nil)
	bad.Header.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString([]byte("not a certificate")))
	b1, b2 := vf.Verify(bad, nil), vf.Verify(cloneRequest(bad, nil), nil)
	assertFailed(t, b1, apierr.CodeCertificateInvalid, "certificate", "X.509")
	if !reflect.DeepEqual(b1.Steps, b2.Steps) || b1.Err.Message != b2.Err.Message {
		t.Errorf("an invalid certificate verified twice differs: %+v / %+v", b1.Steps, b2.Steps)
	}

	// More distinct certificate values than the cache holds.
	for i := range 1100 {
		c := cloneRequest(r, nil)
		c.Header.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "junk %d", i)))
		if v := vf.Verify(c, nil); v.Err == nil || v.Err.Code != apierr.CodeCertificateInvalid {
			t.Fatalf("junk certificate %d: %v", i, v.Err)
		}
	}
	third := vf.Verify(cloneRequest(r, nil), nil)
	assertPassed(t, third)
	if !reflect.DeepEqual(first.Steps, third.Steps) {
		t.Errorf("after the cache filled up: %+v, want %+v", third.Steps, first.Steps)
	}
}

// TestVerifyRolesNotShared: Verdict.Roles is the verdict's own copy, so a
// caller that changes it does not change the roles of later requests with
// the same certificate.
func TestVerifyRolesNotShared(t *testing.T) {
	f := getFixture(t)
	vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, f.clock(0))
	r := signedTPPRequest(t, f, "GET", "/v1/accounts", nil)
	first := vf.Verify(cloneRequest(r, nil), nil)
	assertPassed(t, first)
	first.Roles[0] = "TAMPERED"
	second := vf.Verify(cloneRequest(r, nil), nil)
	if !slices.Equal(second.Roles, tppRoles) {
		t.Errorf("after changing an earlier verdict's roles, Roles = %q, want %q", second.Roles, tppRoles)
	}
}

func TestVerifyConcurrent(t *testing.T) {
	f := getFixture(t)
	body := []byte(`{"amount":"1.00"}`)
	type job struct {
		r    *http.Request
		body []byte
		code string // "" when it passes
	}
	badDigest := signedTPPRequest(t, f, "POST", "/v1/payments/x", body)
	badSig := signedTPPRequest(t, f, "GET", "/v1/accounts", nil)
	badSig.Header.Set("X-Request-ID", "changed")
	badCert := signedTPPRequest(t, f, "GET", "/v1/accounts", nil)
	badCert.Header.Set("TPP-Signature-Certificate", "Zm9v")
	selfSigned := serverRequest("GET", "/v1/x", nil, "X-Request-ID", "id", "TPP-Signature-Certificate", certHeader(f.self))
	handSign(t, selfSigned, f.tppKey, crypto.SHA256, keyID(f.self), "rsa-sha256", []string{"x-request-id"})
	jobs := []job{
		{signedTPPRequest(t, f, "GET", "/v1/accounts", nil), nil, ""},
		{signedTPPRequest(t, f, "POST", "/v1/payments/x", body, "PSU-ID", "p1"), body, ""},
		{signedTPPRequest(t, f, "GET", "/v1/accounts/1/transactions?bookingStatus=booked", nil, "Consent-ID", "c1"), nil, ""},
		{selfSigned, nil, ""},
		{badDigest, []byte("other"), apierr.CodeSignatureInvalid},
		{badSig, nil, apierr.CodeSignatureInvalid},
		{badCert, nil, apierr.CodeCertificateInvalid},
	}
	vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, f.clock(0))
	const workers, perWorker = 8, 50
	var wg sync.WaitGroup
	errs := make(chan string, workers*perWorker)
	stop := make(chan struct{})
	var flipper sync.WaitGroup
	flipper.Add(1)
	go func() { // changes the policy while requests run; signed requests do not care
		defer flipper.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			vf.SetPolicy(httpsig.Policy{RequireSignature: i%2 == 0})
			time.Sleep(100 * time.Microsecond)
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				j := jobs[(w+i)%len(jobs)]
				v := vf.Verify(cloneRequest(j.r, j.body), j.body)
				switch {
				case j.code == "" && v.Err != nil:
					errs <- fmt.Sprintf("worker %d request %d: %v", w, i, v.Err)
				case j.code != "" && (v.Err == nil || v.Err.Code != j.code):
					errs <- fmt.Sprintf("worker %d request %d: got %v, want %s", w, i, v.Err, j.code)
				case j.code == "" && len(v.Steps) != len(stepOrder):
					errs <- fmt.Sprintf("worker %d request %d: %d steps", w, i, len(v.Steps))
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	flipper.Wait()
	close(errs)
	n := 0
	for e := range errs {
		if n++; n <= 10 {
			t.Error(e)
		}
	}
}

// FuzzVerifyDigest verifies requests with a valid certificate, a random
// body and a random Digest header: Verify never panics, the digest step is
// always taken, it passes only when the header holds a correct digest (or
// there is neither body nor header), and a correct Digest always passes.
func FuzzVerifyDigest(f *testing.F) {
	fx := getFixture(f)
	body := []byte(`{"a":1}`)
	for _, seed := range []struct {
		body   []byte
		digest string
	}{
		{body, httpsig.Digest(body)},
		{body, digestOf("SHA-512", body)},
		{body, digestOf("sha-256", body) + ", " + digestOf("SHA-512", body)},
		{body, "MD5=abc, " + httpsig.Digest(body)},
		{body, "SHA-256="},
		{body, "SHA-256"},
		{body, ",,,="},
		{body, ""},
		{nil, ""},
		{nil, httpsig.Digest(nil)},
		{[]byte{0, 0xff}, "SHA-256=" + strings.Repeat("A", 1000)},
	} {
		f.Add(seed.body, seed.digest)
	}
	vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, fx.clock(0))
	cert := certHeader(fx.tpp)
	digestStep := slices.Index(stepOrder, "digest")
	verify := func(t *testing.T, body []byte, digest string) httpsig.Step {
		r := serverRequest("POST", "/v1/payments/x", body, "X-Request-ID", "1", "TPP-Signature-Certificate", cert)
		names := []string{"x-request-id"}
		if digest != "" {
			r.Header.Set("Digest", digest)
			names = append(names, "digest")
		}
		handSign(t, r, fx.tppKey, crypto.SHA256, keyID(fx.tpp), "rsa-sha256", names)
		v := vf.Verify(r, body)
		// The digest is the last step: after the signature, or, for a body
		// without a Digest header, right after the certificate's steps.
		at := slices.IndexFunc(v.Steps, func(s httpsig.Step) bool { return s.Check == "digest" })
		if at < 0 || (at != digestStep && at != slices.Index(stepOrder, "roles")+1) || at != len(v.Steps)-1 {
			t.Fatalf("Digest %q: steps %+v", digest, v.Steps)
		}
		step := v.Steps[at]
		if step.OK == (v.Err != nil) {
			t.Fatalf("Digest %q: step %+v but error %v", digest, step, v.Err)
		}
		return step
	}
	f.Fuzz(func(t *testing.T, body []byte, digest string) {
		step := verify(t, body, digest)
		if step.OK {
			if digest == "" && len(body) > 0 {
				t.Fatalf("a %d-byte body without Digest passed", len(body))
			}
			if digest != "" {
				correct := false
				for item := range strings.SplitSeq(digest, ",") {
					item = strings.TrimSpace(item)
					for _, alg := range []string{"SHA-256", "SHA-512"} {
						if strings.EqualFold(item, digestOf(alg, body)) && item[len(alg):] == digestOf(alg, body)[len(alg):] {
							correct = true
						}
					}
				}
				if !correct {
					t.Fatalf("Digest %q passed for body %q", digest, body)
				}
			}
		}
		for _, good := range []string{httpsig.Digest(body), digestOf("sha-512", body), "X-1=y, " + httpsig.Digest(body) + " "} {
			if step := verify(t, body, good); !step.OK {
				t.Fatalf("correct Digest %q failed: %+v", good, step)
			}
		}
	})
}
