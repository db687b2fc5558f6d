package psd2api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/http/httpguts"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
	"sandbank/bank/psd2api"
	"sandbank/bank/scenario"
)

// fuzzTimeout bounds one request: a request that takes longer hangs.
const fuzzTimeout = time.Minute

// documentedCodes lists, per HTTP status, the error codes of
// docs/SANDBOX-API.md 1.4 (and RESOURCE_UNKNOWN in a 400, for a record a
// body names that does not exist).
var documentedCodes = map[int][]string{
	400: {apierr.CodeBadRequest, apierr.CodeFormatError, apierr.CodeHeaderRequired, apierr.CodeQueryParamRequired, apierr.CodePeriodInvalid,
		apierr.CodeExecutionDateInvalid, apierr.CodeKIDMissing, apierr.CodeKIDInvalid, apierr.CodeReferenceMixInvalid, apierr.CodeProductInvalid,
		apierr.CodeSignatureMissing, apierr.CodeSignatureInvalid, apierr.CodeCertificateInvalid, apierr.CodeCertificateExpired,
		apierr.CodeCorporateIDRequired, apierr.CodeResourceUnknown},
	401: {apierr.CodePSUCredentialsInvalid, apierr.CodeConsentInvalid, apierr.CodeConsentExpired, apierr.CodeSCAInvalid, apierr.CodeSCAExpired},
	403: {apierr.CodeForbidden, apierr.CodeConsentUnknown},
	404: {apierr.CodeNotFound, apierr.CodeResourceUnknown, apierr.CodeProductUnknown, apierr.CodeSCANotFound},
	405: {apierr.CodeBadRequest, apierr.CodeServiceInvalid},
	406: {apierr.CodeBadRequest},
	409: {apierr.CodeConflict},
	413: {apierr.CodeBadRequest},
	415: {apierr.CodeBadRequest},
	429: {apierr.CodeAccessExceeded},
}

// fuzzBank is a running bank that does not require signatures, and a TPP
// with every role that signs when asked.
type fuzzBank struct {
	*apptest.Bank
	tpp    *apptest.TPP
	client *http.Client
}

func startFuzzBank(f *testing.F) *fuzzBank {
	off := false
	b := apptest.Start(f, apptest.Options{RequireSignature: &off})
	return &fuzzBank{
		Bank: b,
		tpp:  b.NewTPP("933012867", 0, pki.RoleAI, pki.RolePI),
		client: &http.Client{
			Timeout:       fuzzTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// answer is a response to a fuzzed request.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// send sends req, whose body is body, signed when sign is set, and checks the
// answer: a documented status (never 5xx), the request id echoed, a
// response signature that verifies, and for an error the JSON error body
// of docs/SANDBOX-API.md 1.4.
func (fb *fuzzBank) send(t *testing.T, req *http.Request, body []byte, sign bool) answer {
	t.Helper()
	if sign {
		if err := fb.tpp.Signer.SignRequest(req, body); err != nil {
			t.Fatalf("sign: %v", err)
		}
	}
	what := req.Method + " " + req.URL.RequestURI()
	resp, err := fb.client.Do(req)
	if err != nil {
		t.Fatalf("%s: no answer within %v: %v", what, fuzzTimeout, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: read the answer: %v", what, err)
	}
	a := answer{resp.StatusCode, resp.Header, data}
	// The SCA page is /sca/{id}/{secret} (and its style sheet); /sca/{id}
	// alone is no route.
	rest, scaPage := strings.CutPrefix(req.URL.Path, "/sca/")
	if id, secret, ok := strings.Cut(rest, "/"); scaPage && (!ok || id == "" || secret == "" || strings.Contains(secret, "/")) {
		scaPage = false
	}
	switch {
	case a.status == 200 || a.status == 201 || a.status == 204 || (a.status == 303 && scaPage):
	case documentedCodes[a.status] != nil:
	default:
		t.Fatalf("%s: status %d is not documented: %s", what, a.status, data)
	}
	if id := req.Header.Get("X-Request-ID"); id != "" && a.header.Get("X-Request-ID") != id {
		t.Fatalf("%s: X-Request-ID %q answered with %q", what, id, a.header.Get("X-Request-ID"))
	}
	if req.Method == http.MethodHead {
		return a // no body to check
	}
	if err := httpsig.VerifyResponse(a.header, data, fb.BankCert.Cert); err != nil {
		t.Fatalf("%s: the response signature does not verify: %v", what, err)
	}
	ct, _, _ := mime.ParseMediaType(a.header.Get("Content-Type"))
	switch {
	case scaPage && a.status != 204:
		if ct != "text/html" && ct != "text/css" {
			t.Fatalf("%s: SCA page answers %q", what, a.header.Get("Content-Type"))
		}
	case a.status >= 400:
		checkErrorBody(t, what, a)
	case a.status != 204 && ct != "application/x-pem-file":
		if ct != "application/json" || !json.Valid(data) {
			t.Fatalf("%s: %d answer of type %q is not JSON: %s", what, a.status, ct, data)
		}
	}
	return a
}

// checkErrorBody checks the error body of docs/SANDBOX-API.md 1.4: exactly its
// fields, the status and a documented code, a message, one tppMessage per
// finding with a text of at most 512 bytes, no Go internals, and _links on
// a 401.
func checkErrorBody(t *testing.T, what string, a answer) {
	t.Helper()
	var e apptest.ErrorBody
	dec := json.NewDecoder(bytes.NewReader(a.body))
	dec.DisallowUnknownFields()
	if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s: error of type %q: %s", what, ct, a.body)
	}
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("%s: error body %s: %v", what, a.body, err)
	}
	if e.ID == "" || e.System != "sandbank" || e.Status != a.status || !slices.Contains(documentedCodes[a.status], e.Code) {
		t.Fatalf("%s: status %d with error body %s", what, a.status, a.body)
	}
	if (a.status == 401) != (e.Links != nil) {
		t.Fatalf("%s: status %d with _links %s", what, a.status, e.Links)
	}
	checkClientText(t, what+": message", e.Message)
	if len(e.TPPMessages) == 0 {
		t.Fatalf("%s: no tppMessages: %s", what, a.body)
	}
	for _, m := range e.TPPMessages {
		if m.Category != "ERROR" || psd2api.StatusOf(&apierr.Error{Code: m.Code}) == 500 {
			t.Fatalf("%s: tppMessage %+v", what, m)
		}
		checkClientText(t, what+": tppMessage", m.Text)
	}
}

// checkClientText checks a text a client reads: not empty, at most 512
// bytes of UTF-8, and no Go error, stack trace or file path.
func checkClientText(t *testing.T, what, s string) {
	t.Helper()
	if s == "" || len(s) > apierr.MaxMessageText || !utf8.ValidString(s) {
		t.Fatalf("%s %q: empty, too long or not UTF-8", what, s)
	}
	for _, leak := range []string{".go:", "goroutine ", "json: ", "strconv.", "runtime error", "panic"} {
		if strings.Contains(s, leak) {
			t.Fatalf("%s %q leaks %q", what, s, leak)
		}
	}
}

// restore undoes what a fuzzed request may have changed that would make
// later requests fail for reasons of their own: simulated faults, the
// sandbox clock, the settings and, after a request that replaced or
// deleted data, the known state whose fixed ids the corpus uses.
func (fb *fuzzBank) restore(t *testing.T, method, path string, a answer) {
	t.Helper()
	if fb.Bank.Bank.Ops.Faults() != (bank.Faults{}) {
		if _, err := fb.Bank.Bank.Ops.SetFaults(bank.Faults{}); err != nil {
			t.Fatal(err)
		}
	}
	if fb.Bank.Bank.Ops.Clock().OffsetSeconds != 0 {
		zero := int64(0)
		if _, err := fb.Bank.Bank.Ops.SetClock(bank.ClockChange{OffsetSeconds: &zero}); err != nil {
			t.Fatal(err)
		}
	}
	if a.status < 300 && strings.HasSuffix(strings.TrimRight(path, "/"), "/sandbox/settings") && method != http.MethodGet {
		if _, _, err := fb.Bank.Bank.Ops.PutSettings(bank.SettingsDoc{}); err != nil {
			t.Fatal(err)
		}
	}
	replaced := method == http.MethodPut && strings.HasSuffix(strings.TrimRight(path, "/"), "/sandbox/scenario")
	if a.status < 300 && (method == http.MethodDelete || replaced) {
		if _, err := scenario.Initialize(fb.Bank.Bank.Sandbox); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzServer sends the real bank fuzzed requests: any method, path,
// headers ("Name: value" lines) and body, signed or not. Every answer has
// a documented status, never 5xx, within the timeout, and an error answers
// with the error body of docs/SANDBOX-API.md 1.4.
func FuzzServer(f *testing.F) {
	fb := startFuzzBank(f)
	f.Fuzz(func(t *testing.T, method, path, headers string, body []byte, sign bool) {
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		ctx, cancel := context.WithTimeout(context.Background(), fuzzTimeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, method, fb.URL+path, bytes.NewReader(body))
		if err != nil || req.URL.Host != strings.TrimPrefix(fb.URL, "http://") || method == http.MethodConnect || !validTarget(req.URL.RequestURI()) {
			return // not a request a client can send to this bank
		}
		req.Header.Set("X-Request-ID", "fuzz")
		for line := range strings.SplitSeq(headers, "\n") {
			name, value, ok := strings.Cut(line, ":")
			name, value = strings.TrimSpace(name), strings.TrimSpace(value)
			if !ok || !httpguts.ValidHeaderFieldName(name) || !httpguts.ValidHeaderFieldValue(value) || !utf8.ValidString(value) {
				continue
			}
			req.Header.Set(name, value)
		}
		if slices.ContainsFunc([]string{"Host", "Content-Length", "Transfer-Encoding", "Connection", "Expect", "Trailer", "Upgrade", "Te"}, func(h string) bool { return req.Header.Get(h) != "" }) {
			return // a header the client sends its own way
		}
		a := fb.send(t, req, body, sign)
		fb.restore(t, method, path, a)
	})
}

// validTarget reports whether uri may stand in an HTTP/1.1 request line
// (RFC 9112 3.2): Go's client writes a query as given, so "/? " would
// reach the wire as a malformed request line, which Go's server refuses
// with a 400 of its own before the bank sees it.
func validTarget(uri string) bool {
	return !strings.ContainsFunc(uri, func(r rune) bool { return r <= ' ' || r == 0x7f })
}

// bodyRoute is an operation that takes a body: its method and path, the
// headers it needs, and whether a refusal may still change data.
type bodyRoute struct {
	method, path string
	headers      []string
	mayChange    bool
	prepare      func(t *testing.T, fb *fuzzBank) string // the path's {id}, made fresh for each request
	// success is the status of success when it is not the method's usual
	// one (201 for POST, 200 for the rest).
	success int
}

// Known-state ids (the same after every initialize).
const (
	knownAccountID   = "enc!!BMqoT2eLQOgt-DAQsuGXRQ" // NO3815030123457
	knownCardID      = "enc!!jfGNdTso5Ie-_lpxLB3lqA"
	knownAgreementID = "enc!!NDPURJLx3L9QIegVAF9UMA" // Testfirma 1 AS
)

var scaHeaders = []string{"TPP-Redirect-URI: https://tpp.example/cb", "TPP-Session-ID: fuzz", "X-PSU-IDENTITY: 13039319955"}

// bodyRoutes are every operation of the API that reads a body.
func bodyRoutes() []bodyRoute {
	ncbct := append(slices.Clone(scaHeaders), "x-accept-fix: longer-names", "PSU-Context: PRIVATE", "PSU-IP-Address: 192.0.2.1")
	return []bodyRoute{
		{method: "POST", path: "/v1/sandbox/customers"},
		{method: "POST", path: "/v1/sandbox/accounts"},
		{method: "PUT", path: "/v1/sandbox/accounts/" + knownAccountID + "/balances"},
		{method: "POST", path: "/v1/sandbox/accounts/" + knownAccountID + "/transactions"},
		{method: "POST", path: "/v1/sandbox/card-accounts"},
		{method: "PUT", path: "/v1/sandbox/card-accounts/" + knownCardID + "/balances"},
		{method: "POST", path: "/v1/sandbox/card-accounts/" + knownCardID + "/transactions"},
		{method: "POST", path: "/v1/sandbox/agreements"},
		{method: "POST", path: "/v1/sandbox/agreements/" + knownAgreementID + "/engagements"},
		{method: "PUT", path: "/v1/tpps/NO-FSA-933012867/contact-information"},
		{method: "PUT", path: "/v1/sandbox/clock"},
		{method: "PUT", path: "/v1/sandbox/faults"},
		{method: "POST", path: "/v1/sandbox/sca/{id}", mayChange: true, prepare: startConsent},
		{method: "PUT", path: "/v1/sandbox/scenario"},
		{method: "POST", path: "/v1/sandbox/tpp-certificates"},
		{method: "POST", path: "/v1/consents", headers: scaHeaders, mayChange: true},
		{method: "POST", path: "/v1/signing-baskets", prepare: newBasketPayment},
		{method: "POST", path: "/v1/payments/norwegian-domestic-credit-transfers", headers: scaHeaders},
		{method: "POST", path: "/v1/periodic-payments/norwegian-domestic-credit-transfers", headers: scaHeaders},
		{method: "POST", path: "/v1/bulk-payments/norwegian-domestic-credit-transfers", headers: scaHeaders},
		{method: "POST", path: "/v1/payments/norwegian-cross-border-credit-transfers", headers: ncbct},
		// New operations go last: a seed names its route by index.
		{method: "PUT", path: "/v1/sandbox/settings"},
		{method: "PATCH", path: "/v1/sandbox/settings"},
		{method: "POST", path: "/v1/sandbox/payments/{id}/status", prepare: newBasketPayment, success: http.StatusOK},
	}
}

// startConsent starts a consent SCA and returns its authorisation id.
func startConsent(t *testing.T, fb *fuzzBank) string {
	a, err := fb.Bank.Bank.PSD2.StartSCA(bank.SCARequest{TPPID: fb.tpp.ID, Kind: bank.AuthConsent, RedirectURI: "https://tpp.example/cb", SessionID: "fuzz"})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// newBasketPayment creates an NDCT payment and returns its id, for a basket.
func newBasketPayment(t *testing.T, fb *fuzzBank) string {
	amount := "1.00"
	c, err := fb.Bank.Bank.PSD2.CreatePayment(bank.PaymentInit{
		TPPID: fb.tpp.ID, Service: bank.ServiceSingle, Product: bank.ProductNDCT, NationalID: "13039319955",
		RedirectURI: "https://tpp.example/cb", SessionID: "fuzz", AllowDuplicate: true,
		Body: bank.PaymentRequest{
			InstructedAmount: &bank.AmountIn{Amount: bank.AmountText{Text: amount}, Currency: "NOK"},
			DebtorAccount:    &bank.AccountIn{IBAN: "NO3815030123457"}, CreditorAccount: &bank.AccountIn{IBAN: "NO3015030234569"},
			CreditorName: "Mottaker", RemittanceInformationUnstructured: &amount,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c.Payment.ID
}

// FuzzRequestBody sends fuzzed bodies, signed, to every operation of the
// API that reads one (route picks the operation). In a body, $ID stands for
// the id the operation's preparation made (a payment for a basket) and
// $NEXT for the next banking day. Every answer has a documented status,
// success answers the operation's status with JSON, an error has the error
// body of docs/SANDBOX-API.md 1.4, and a refused write changes no data.
func FuzzRequestBody(f *testing.F) {
	fb := startFuzzBank(f)
	routes := bodyRoutes()
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		rt := routes[int(route)%len(routes)]
		path, id := rt.path, ""
		if rt.prepare != nil {
			id = rt.prepare(t, fb)
			path = strings.ReplaceAll(path, "{id}", id)
		}
		next := bank.NextBankingDay(fb.Bank.Bank.Ops.Today().AddDays(1)).String()
		body = bytes.ReplaceAll(bytes.ReplaceAll(body, []byte("$ID"), []byte(id)), []byte("$NEXT"), []byte(next))
		ctx, cancel := context.WithTimeout(context.Background(), fuzzTimeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, rt.method, fb.URL+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Request-ID", "fuzz")
		req.Header.Set("Content-Type", "application/json")
		for _, h := range rt.headers {
			name, value, _ := strings.Cut(h, ":")
			req.Header.Set(name, strings.TrimSpace(value))
		}
		before := apptest.MetaPages(t, fb.Path)
		a := fb.send(t, req, body, true)
		switch {
		case a.status < 300:
			want := http.StatusOK
			if rt.method == http.MethodPost && !strings.HasPrefix(rt.path, "/v1/sandbox/sca/") {
				want = http.StatusCreated
			}
			if rt.success != 0 {
				want = rt.success
			}
			if a.status != want {
				t.Fatalf("%s %s answered %d, want %d: %s", rt.method, rt.path, a.status, want, a.body)
			}
		case !rt.mayChange && !bytes.Equal(before, apptest.MetaPages(t, fb.Path)):
			t.Fatalf("%s %s was refused (%d %s) but changed the data file", rt.method, rt.path, a.status, a.body)
		}
		fb.restore(t, rt.method, rt.path, a)
	})
}
