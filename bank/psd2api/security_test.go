package psd2api_test

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/pki"
	"sandbank/bank/psd2api"
	"sandbank/bank/scenario"
)

// The security tests of docs/SECURITY.md. TestSCA_Security (ais_test.go)
// covers the first ones: a markup customer name, the page's headers, a form
// of one authorisation posted to another, and a redirect that query, form
// or a changed signed header cannot move.

// markup is what an attacker would like the SCA page to run.
const markup = `"'><script>alert(1)</script><img src=x onerror=alert(1)>`

// formToken returns the token field of a page's only form.
func formToken(t *testing.T, p apptest.Page) string {
	t.Helper()
	if len(p.Forms) != 1 {
		t.Fatalf("page %s has %d forms: %s", p.URL, len(p.Forms), p.Text)
	}
	for _, f := range p.Forms[0].Fields {
		if f.Name == "token" && f.Type == "hidden" {
			return f.Value
		}
	}
	t.Fatalf("the form of %s carries no token", p.URL)
	return ""
}

var returnLink = regexp.MustCompile(`<a class="button" href="([^"]*)"`)

// safeLocation checks that a redirect is one printable ASCII header on the
// signed URI's scheme, host and path, and returns its query.
func safeLocation(t *testing.T, loc, signed string) url.Values {
	t.Helper()
	for i := 0; i < len(loc); i++ {
		if loc[i] <= ' ' || loc[i] >= 0x7f {
			t.Fatalf("Location %q has byte %#x at %d", loc, loc[i], i)
		}
	}
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatalf("Location %q: %v", loc, err)
	}
	want, _ := url.Parse(signed)
	if u.Scheme != want.Scheme || u.Host != want.Host || u.Path != want.Path {
		t.Fatalf("Location %q left the signed URI %q", loc, signed)
	}
	return u.Query()
}

func TestSecurity_SCAPageEscapesEveryValue(t *testing.T) {
	b, tpp := setup(t)
	br := b.Browser()

	// A value in the URL: an unknown authorisation id is printed escaped.
	for _, id := range []string{markup, "enc!!" + markup} {
		p := br.Open(b.URL + "/sca/" + url.PathEscape(id) + "/" + url.PathEscape(markup) + "?q=" + url.QueryEscape(markup))
		if p.Status != 404 || !strings.Contains(p.Text, "does not exist") {
			t.Fatalf("unknown id: %d %s", p.Status, p.Text)
		}
		checkEscaped(t, p, "<script>")
		checkEscaped(t, p, "<img")
		if !strings.Contains(p.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Errorf("the error page has no Content-Security-Policy")
		}
	}

	// The TPP's name from its certificate, and the PSU's typo in the failure
	// message.
	evilTPP := b.NewTPPWith(pki.TPPRequestFor("<img src=x onerror=alert(1)>", "987654321", []string{pki.RoleAI, pki.RolePI}, 30, time.Now()), 1)
	p := br.Open(b.StartSCA(evilTPP, "POST", "/v1/consents", tppRedirect, "e-1"))
	checkEscaped(t, p, "<img")
	if !strings.Contains(p.Text, "<img src=x onerror=alert(1)>") {
		t.Fatalf("the TPP's name is not shown as text: %s", p.Text)
	}
	p = br.Submit(p, url.Values{"nationalId": {markup}})
	if p.Status != 200 || !strings.Contains(p.Text, "No sandbox customer") {
		t.Fatalf("unknown national id: %d %s", p.Status, p.Text)
	}
	checkEscaped(t, p, "<script>")
	checkEscaped(t, p, "<img")

	// The payment summary: creditor name and remittance information.
	onBankingMorning(t, b)
	body := ndct("10", ibanT1Bruk, ibanT2Bruk)
	body["creditorName"] = "<script>alert(1)</script>"
	body["remittanceInformationUnstructured"] = `"><img src=x onerror=alert(1)>`
	c := createPayment(t, b, tpp, ndctPath, body)
	p = br.Open(c.Links["scaRedirect"].Href)
	p = br.Submit(p, url.Values{"nationalId": {t1Number}})
	if !strings.Contains(p.Text, "<script>alert(1)</script>") || !strings.Contains(p.Text, `"><img src=x onerror=alert(1)>`) {
		t.Fatalf("the payment summary does not show the values as text: %s", p.Text)
	}
	checkEscaped(t, p, "<script>")
	checkEscaped(t, p, "<img")

	// The failure message and the redirect parameters: a PSU whose name is
	// markup may not pay from the account, so the payment fails with a
	// message that names them; the redirect carries it and the finished page
	// shows it with a link back to the TPP.
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": "55555555555", "name": markup, "type": "private"}), 201, "")
	redirect := "https://tpp.example/cb?state=" + url.QueryEscape(markup)
	c = createPayment(t, b, tpp, ndctPath, ndct("11", ibanT1Bruk, ibanT2Bruk), "TPP-Redirect-URI: "+redirect, "TPP-Session-ID: e-2")
	p = br.Open(c.Links["scaRedirect"].Href)
	p = br.Submit(p, url.Values{"nationalId": {"55555555555"}})
	if p.Status != 303 {
		t.Fatalf("a PSU who may not pay: %d %s", p.Status, p.Text)
	}
	q := safeLocation(t, p.Location, redirect)
	if q.Get("code") != "PAYMENT_FAILED" || !strings.Contains(q.Get("message"), markup) || q.Get("state") != markup {
		t.Fatalf("failure redirect %s", p.Location)
	}
	done := br.Open(c.Links["scaRedirect"].Href)
	checkEscaped(t, done, "<script>")
	checkEscaped(t, done, "<img")
	if !strings.Contains(done.Text, "not approved: "+markup) {
		t.Fatalf("the failure message is not shown as text: %s", done.Text)
	}
	m := returnLink.FindStringSubmatch(done.Body)
	if m == nil {
		t.Fatalf("the finished page has no link back: %s", done.Body)
	}
	safeLocation(t, html.UnescapeString(m[1]), redirect)
}

// changedFirst returns token with another first character.
func changedFirst(token string) string {
	if token[0] == 'x' {
		return "y" + token[1:]
	}
	return "x" + token[1:]
}

func TestSecurity_SCAFormNeedsItsToken(t *testing.T) {
	b, tpp := setup(t)
	br := b.Browser()
	p := br.Open(b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "t-1"))
	token := formToken(t, p)
	other := formToken(t, br.Open(b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "t-2")))
	if len(token) < 24 || token == other {
		t.Fatalf("tokens %q and %q: want distinct and at least 128 random bits", token, other)
	}

	// Posts without the token, with a wrong one, with the other
	// authorisation's, or with the token in the query are refused and
	// change nothing; they do not even use up an identification attempt.
	before := b.FileSum()
	for _, form := range []url.Values{
		{"nationalId": {t1Number}},
		{"nationalId": {t1Number}, "token": {""}},
		{"nationalId": {t1Number}, "token": {changedFirst(token)}},
		{"nationalId": {t1Number}, "token": {token + "x"}},
		{"nationalId": {t1Number}, "token": {other}},
		{"nationalId": {t1Number}, "token": {other, token}},
	} {
		got := br.Post(p.URL, form)
		if got.Status != 400 || !strings.Contains(got.Text, "does not belong") || len(got.Forms) != 0 {
			t.Errorf("form %v: %d %s", form, got.Status, got.Text)
		}
	}
	if got := br.Post(p.URL+"?token="+url.QueryEscape(token), url.Values{"nationalId": {t1Number}}); got.Status != 400 {
		t.Errorf("a token in the query: %d %s", got.Status, got.Text)
	}
	if b.FileSum() != before {
		t.Fatal("a refused form changed the data file")
	}
	// A GET never acts, whatever its query says.
	got := br.Open(p.URL + "?token=" + url.QueryEscape(token) + "&nationalId=" + t1Number + "&decision=approve")
	if got.Status != 200 || formToken(t, got) != token || !strings.Contains(got.Text, "National identity number") {
		t.Fatalf("a GET with form values: %d %s", got.Status, got.Text)
	}

	// Three wrong national ids with the token still end the SCA: the refused
	// posts above were not counted.
	for i := range 2 {
		p = br.Submit(p, url.Values{"nationalId": {fmt.Sprint(i)}})
		if p.Status != 200 || !strings.Contains(p.Text, fmt.Sprintf("%d attempt", 2-i)) {
			t.Fatalf("attempt %d: %d %s", i+1, p.Status, p.Text)
		}
	}

	// Every step's form carries the same token; a replayed final post after
	// the end changes nothing and sends nobody anywhere.
	p = br.Open(b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "t-3"))
	token = formToken(t, p)
	p = br.Submit(p, url.Values{"nationalId": {t1Number}})
	if formToken(t, p) != token {
		t.Fatal("the consent step's token differs from the first step's")
	}
	final := url.Values{"token": {token}, "decision": {"approve"}, "accounts": {t1Brukskonto}}
	p = br.Post(p.URL, final)
	if p.Status != 303 {
		t.Fatalf("approve: %d %s", p.Status, p.Text)
	}
	again := br.Post(p.URL, final)
	if again.Status != 200 || again.Location != "" || len(again.Forms) != 0 || !strings.Contains(again.Text, "status FINALISED") {
		t.Fatalf("a replayed post: %d %q %s", again.Status, again.Location, again.Text)
	}
}

func TestSecurity_RedirectURIIsCheckedWhenSigned(t *testing.T) {
	b, tpp := setup(t)
	onBankingMorning(t, b)
	for _, uri := range []string{
		"javascript:alert(1)",
		"JaVaScRiPt:alert(document.cookie)",
		"javascript://tpp.example/%0aalert(1)",
		"data:text/html,<script>alert(1)</script>",
		"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
		"vbscript:msgbox(1)",
		"file:///etc/passwd",
		"blob:https://tpp.example/0b5c",
		"ms-msdt:/id PCWDiagnostic",
		"search-ms:query=x",
		"myapp://callback",
		"about:blank",
		"/callback",
		"callback",
		"//evil.example/callback",
		`\\evil.example\callback`,
		"https:///callback",
		"http:evil.example",
		"https://tpp.example/cb#frag",
		"https://tpp.example/a\tb",
		"https://tpp.example/" + strings.Repeat("a", 2048),
	} {
		headers := []string{"TPP-Redirect-URI: " + uri, "TPP-Session-ID: r-1"}
		rejectsWith(t, b, tpp, "POST", "/v1/consents", nil, headers, 400, "FORMAT_ERROR", "TPP-Redirect-URI")
		rejectsWith(t, b, tpp, "POST", ndctPath, ndct("10", ibanT1Bruk, ibanT2Bruk), headers, 400, "FORMAT_ERROR", "TPP-Redirect-URI")
	}
	// A control character in TPP-Session-ID, which goes into the redirect.
	rejectsWith(t, b, tpp, "POST", "/v1/consents", nil, []string{"TPP-Redirect-URI: " + tppRedirect, "TPP-Session-ID: a\tb"}, 400, "FORMAT_ERROR", "TPP-Session-ID")

	// An account-information 401 offers no SCA to such a URI.
	before := b.FileSum()
	r := b.Do(tpp, "GET", "/v1/accounts", nil, "PSU-ID: "+uuid.NewString(), "TPP-Session-ID: r-2", "TPP-Redirect-URI: javascript:alert(1)")
	expect(t, r, 401, "CONSENT_INVALID")
	if strings.Contains(string(r.Body), "scaRedirect") || b.FileSum() != before {
		t.Fatalf("a 401 started SCA for a javascript: URI: %s", r.Body)
	}
}

func TestSecurity_RedirectStaysOnTheSignedURI(t *testing.T) {
	b, tpp := setup(t)
	// Parameters the TPP's URI or session id carry cannot pose as the
	// bank's: the bank's psu-id, context and tpp-session-id replace them.
	signed := "https://tpp.example/cb?psu-id=forged&context=CORPORATE&psu-corporate-id=forged&state=s1"
	session := "s&psu-id=forged2&x=%0d%0a"
	q := b.CompleteSCA(b.StartSCA(tpp, "POST", "/v1/consents", signed, session), t1Number, "", nil, "approve").Query
	if len(q["psu-id"]) != 1 || q.Get("psu-id") == "forged" || len(q["context"]) != 1 || q.Get("context") != "PRIVATE" {
		t.Fatalf("redirect query %v", q)
	}
	if len(q["tpp-session-id"]) != 1 || q.Get("tpp-session-id") != session || q.Get("state") != "s1" {
		t.Fatalf("redirect query %v", q)
	}

	// Encoded line breaks and other odd characters in the signed URI stay
	// encoded: the Location is one line of printable ASCII on the signed
	// URI. Tampered headers on the SCA page's requests change nothing (a
	// forged Host is refused outright: host_test.go).
	for _, uri := range []string{
		"https://tpp.example/cb%0d%0aSet-Cookie:%20a=b?x=%0d%0aSet-Cookie:%20c=d",
		"https://tpp.example/cb\u2028x?y=\u0085z&w=\u00e6",
		`https://tpp.example/cb?"><script>alert(1)</script>`,
		"no.tpp.app://sca-done/x%0aLocation:%20https://evil.example/",
	} {
		br := b.Browser()
		p := br.Open(b.StartSCA(tpp, "POST", "/v1/consents", uri, "l-1"))
		p = br.Submit(p, url.Values{"nationalId": {t1Number}})
		form := url.Values{"token": {formToken(t, p)}, "decision": {"approve"}, "accounts": {t1Brukskonto}}
		req, err := http.NewRequest("POST", p.URL, strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for _, c := range br.Cookies(p.URL) {
			req.AddCookie(c)
		}
		req.Header.Set("TPP-Redirect-URI", "https://evil.example/")
		req.Header.Set("X-Forwarded-Host", "evil.example")
		req.Header.Set("Referer", "https://evil.example/")
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != 303 || len(resp.Header.Values("Location")) != 1 || resp.Header.Get("Set-Cookie") != "" {
			t.Fatalf("%q: %d %v", uri, resp.StatusCode, resp.Header)
		}
		safeLocation(t, resp.Header.Get("Location"), uri)
	}
}

// rawExchange sends request text on a new connection to the bank and reads
// the answer, so that a test can send what Go's client refuses to.
func rawExchange(t *testing.T, b *apptest.Bank, request string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(b.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	data, _ := io.ReadAll(resp.Body)
	return resp, data
}

// rawSigned writes a request signed by tpp as HTTP/1.1 text, header values
// as they are, control characters included.
func rawSigned(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, method, path string, headers map[string]string) string {
	t.Helper()
	req := b.Request(method, path, nil)
	for k, v := range headers {
		req.Header[http.CanonicalHeaderKey(k)] = []string{v} // as is: Set would not check either
	}
	if err := tpp.Signer.SignRequest(req, nil); err != nil {
		t.Fatal(err)
	}
	var s strings.Builder
	fmt.Fprintf(&s, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, path, req.URL.Host)
	for k, vs := range req.Header {
		for _, v := range vs {
			fmt.Fprintf(&s, "%s: %s\r\n", k, v)
		}
	}
	s.WriteString("Connection: close\r\n\r\n")
	return s.String()
}

// A line feed ends a header line, so a value with one arrives cut there,
// and the rest is another request header: the signature covers
// TPP-Redirect-URI, so the cut URI fails it; TPP-Session-ID, not signed,
// arrives as the part before the break. Other control characters are
// refused whole. No answer ever carries the injected header.
func TestSecurity_ControlCharactersInRedirectHeaders(t *testing.T) {
	b, tpp := setup(t)
	for _, c := range []string{"\r", "\n", "\r\n", "\x00", "\x01", "\x0b", "\x1b", "\x7f"} {
		for _, h := range []string{"TPP-Redirect-URI", "TPP-Session-ID"} {
			headers := map[string]string{"TPP-Redirect-URI": tppRedirect, "TPP-Session-ID": "c-1"}
			headers[h] += c + "Set-Cookie: a=b"
			cut := strings.HasSuffix(c, "\n") && h == "TPP-Session-ID"
			before := b.FileSum()
			resp, body := rawExchange(t, b, rawSigned(t, b, tpp, "POST", "/v1/consents", headers))
			if resp.Header.Get("Set-Cookie") != "" || (resp.StatusCode != 400 && !cut) {
				t.Errorf("%s with %q: %d %v %s", h, c, resp.StatusCode, resp.Header, body)
			}
			if !cut && b.FileSum() != before {
				t.Errorf("%s with %q changed the data file", h, c)
			}
			if cut {
				href := scaRedirect201(t, resp, body)
				q := b.CompleteSCA(href, t1Number, "", nil, "approve").Query
				if q.Get("tpp-session-id") != "c-1" {
					t.Errorf("%s with %q: session %q", h, c, q.Get("tpp-session-id"))
				}
			}
		}
	}
	// The same request without them works.
	resp, body := rawExchange(t, b, rawSigned(t, b, tpp, "POST", "/v1/consents", map[string]string{"TPP-Redirect-URI": tppRedirect, "TPP-Session-ID": "c-2"}))
	scaRedirect201(t, resp, body)
}

// scaRedirect201 checks that a raw answer started SCA and returns its
// page.
func scaRedirect201(t *testing.T, resp *http.Response, body []byte) string {
	t.Helper()
	var started struct {
		Links map[string]struct {
			Href string `json:"href"`
		} `json:"_links"`
	}
	if err := json.Unmarshal(body, &started); resp.StatusCode != 201 || err != nil || started.Links["scaRedirect"].Href == "" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	return started.Links["scaRedirect"].Href
}

// within runs f and fails when it takes longer than a request should.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	start := time.Now()
	f()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("%s took %v", what, d)
	}
}

func TestSecurity_OversizedBodies(t *testing.T) {
	b, tpp := setup(t)
	over := []byte(`{"name":"` + strings.Repeat("x", psd2api.MaxBody) + `"}`)
	for _, path := range []string{"/v1/sandbox/customers", "/v1/sandbox/sca/enc!!x"} {
		rejects(t, b, tpp, "POST", path, over, 413, "BAD_REQUEST")
	}

	// Without a Content-Length (chunked), the limit holds as well.
	before := b.FileSum()
	req := b.Request("POST", "/v1/sandbox/customers", nil, "Content-Type: application/json")
	if err := tpp.Signer.SignRequest(req, over); err != nil {
		t.Fatal(err)
	}
	req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(over)), -1
	expect(t, b.Send(req), 413, "BAD_REQUEST")

	// A declared length over the limit is refused before the body is read:
	// the bank answers though only a few bytes of it ever come. The scenario
	// import has its own, larger limit.
	for _, c := range []struct {
		method, path string
		limit        int
	}{
		{"POST", "/v1/sandbox/customers", psd2api.MaxBody},
		{"PUT", "/v1/sandbox/scenario", psd2api.MaxScenarioBody},
	} {
		within(t, c.path+" with a huge Content-Length", func() {
			resp, body := rawExchange(t, b, fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nX-Request-ID: big\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"a\":\"", c.method, c.path, strings.TrimPrefix(b.URL, "http://"), c.limit+1))
			if resp.StatusCode != 413 || !bytes.Contains(body, []byte(`"code":"BAD_REQUEST"`)) {
				t.Errorf("%s: %d %s", c.path, resp.StatusCode, body)
			}
		})
	}
	// Over 1 MiB is fine for a scenario: this one is refused for what it
	// holds, not its size: a field the bank does not use, whose value is
	// over the 64 KiB it reads to ignore one.
	rejects(t, b, b.Operator(), "PUT", "/v1/sandbox/scenario", over, 400, "BAD_REQUEST", "name")
	if b.FileSum() != before {
		t.Fatal("an oversized body changed the data file")
	}
}

func TestSecurity_DeeplyNestedAndHugeJSON(t *testing.T) {
	b, tpp := setup(t)
	deep := map[string][]byte{
		"100,000 [":              []byte(strings.Repeat("[", 100_000)),
		"100,000 balanced [ ]":   []byte(strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)),
		`100,000 {"a":`:          []byte(strings.Repeat(`{"a":`, 100_000)),
		"a field 100,000 deep":   []byte(`{"customerNumber":"1","name":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `,"type":"private"}`),
		"1,000,000 [ (scenario)": []byte(strings.Repeat("[", 1_000_000)),
	}
	for name, body := range deep {
		for _, c := range []struct {
			who          *apptest.TPP
			method, path string
		}{{tpp, "POST", "/v1/sandbox/customers"}, {b.Operator(), "PUT", "/v1/sandbox/scenario"}, {b.Operator(), "PUT", "/v1/sandbox/clock"}} {
			within(t, name+" to "+c.path, func() {
				rejects(t, b, c.who, c.method, c.path, body, 400, "BAD_REQUEST")
			})
		}
	}
	// A scenario of 4 MiB of brackets, within its own limit.
	within(t, "4 MiB of [ to the scenario import", func() {
		rejects(t, b, b.Operator(), "PUT", "/v1/sandbox/scenario", []byte(strings.Repeat("[", 4<<20)), 400, "BAD_REQUEST")
	})

	// Huge numbers: as an amount (kept exact, never a float), as an int and
	// where a string belongs.
	digits := "1" + strings.Repeat("0", psd2api.MaxBody-400)
	account := func(amount string) []byte {
		a := newAccount(t1Number, "15030123406", "NOK")
		a["balances"] = []map[string]any{{"balanceType": "EXPECTED", "balanceAmount": map[string]any{"amount": json.RawMessage(amount), "currency": "NOK"}}}
		raw, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	for _, amount := range []string{digits, "-" + digits, "0." + digits, "1e9999999999", "1e-9999999999", "1e10000", "1e400"} {
		within(t, fmt.Sprintf("amount %.20s", amount), func() {
			e := rejects(t, b, tpp, "POST", "/v1/sandbox/accounts", account(amount), 400, "FORMAT_ERROR")
			if !slices.ContainsFunc(paths(e), func(p string) bool { return strings.HasSuffix(p, "amount") }) {
				t.Errorf("amount %.20s: paths %v", amount, paths(e))
			}
		})
	}
	within(t, "a huge offsetSeconds", func() {
		rejects(t, b, b.Operator(), "PUT", "/v1/sandbox/clock", []byte(`{"offsetSeconds":`+digits+`}`), 400, "BAD_REQUEST")
		rejects(t, b, b.Operator(), "PUT", "/v1/sandbox/clock", []byte(`{"offsetSeconds":1e400}`), 400, "BAD_REQUEST")
	})
	within(t, "a number for a string", func() {
		rejects(t, b, tpp, "POST", "/v1/sandbox/customers", []byte(`{"customerNumber":`+digits+`,"name":"x","type":"private"}`), 400, "BAD_REQUEST", "customerNumber")
	})

	// A huge string is refused by its rule, and the answer does not echo it.
	within(t, "a huge name", func() {
		name := strings.Repeat("x", psd2api.MaxBody-100)
		r := b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": "5", "name": name, "type": "private"})
		e := expect(t, r, 400, "FORMAT_ERROR")
		if !slices.Contains(paths(e), "name") || len(r.Body) > 4096 {
			t.Errorf("a huge name: %d bytes: %.300s", len(r.Body), r.Body)
		}
	})
}

func TestSecurity_CrossSiteRequestsToTheAPI(t *testing.T) {
	// With signatures off, a web page could post to the bank from the
	// tester's browser. A post it can make without a CORS preflight carries
	// no X-Request-ID, so the bank refuses it; and the bank answers no
	// preflight, so the browser sends nothing else.
	off := false
	b := apptest.Start(t, apptest.Options{RequireSignature: &off})
	before := b.FileSum()
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/sandbox/initialize", ""},
		{"POST", "/v1/sandbox/customers", `{"customerNumber":"9","name":"x","type":"private"}`},
		{"PUT", "/v1/sandbox/faults", `{"outage":true}`},
		{"DELETE", "/v1/sandbox/customers/enc!!ez0o0ybl1y-3Lw6w4_m29Q", ""},
	} {
		req := b.Request(c.method, c.path, []byte(c.body), "Content-Type: text/plain", "Origin: https://evil.example")
		req.Header.Del("X-Request-ID")
		r := b.Send(req)
		if c.method == "POST" {
			expect(t, r, 400, "HTTP_HEADER_REQUIRED")
		} else if r.Status < 400 {
			t.Errorf("%s %s: %d", c.method, c.path, r.Status)
		}
		if r.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s %s allows another origin", c.method, c.path)
		}
		preflight := b.Request("OPTIONS", c.path, nil, "Origin: https://evil.example", "Access-Control-Request-Method: "+c.method, "Access-Control-Request-Headers: x-request-id, content-type")
		p := b.Send(preflight)
		for _, h := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Headers", "Access-Control-Allow-Methods"} {
			if p.Header.Get(h) != "" {
				t.Errorf("OPTIONS %s answers %s", c.path, h)
			}
		}
	}
	if b.FileSum() != before {
		t.Fatal("a cross-site request changed the data file")
	}
}

func TestSecurity_TrustFolderTakesNoSymlinks(t *testing.T) {
	b := apptest.Start(t, apptest.Options{Trust: "store"})
	key := apptest.Key(t, 1)
	linked := apptest.TPPFor(t, selfSigned(t, key, pkix.Name{CommonName: "Linked CA TPP"}), key)
	plain := apptest.TPPFor(t, selfSigned(t, key, pkix.Name{CommonName: "Plain CA TPP"}), key)
	outside := filepath.Join(t.TempDir(), "linked.pem")
	if err := os.WriteFile(outside, pki.EncodeCert(linked.Cert), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(b.TrustDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(b.TrustDir(), "linked.pem")); err != nil {
		t.Fatal(err)
	}
	// The plain file comes after the link: once it is trusted, the folder
	// was read with the link in it.
	if err := os.WriteFile(filepath.Join(b.TrustDir(), "plain.pem"), pki.EncodeCert(plain.Cert), 0o600); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for b.Do(plain, "GET", "/v1/sandbox/customers", nil).Status != 200 {
		if time.Now().After(deadline) {
			t.Fatal("the CA file in trust/ is not trusted")
		}
		time.Sleep(50 * time.Millisecond)
	}
	expect(t, b.Do(linked, "GET", "/v1/sandbox/customers", nil), 400, "CERTIFICATE_INVALID")
}

// An attacker on the same machine scans SCA page addresses the way ids are
// made (a fixed key encrypts a sequence number, so they are guessable):
// with no secret, or a guessed one, no page of another TPP's
// authorisation opens, an existing id answers exactly as an unknown one,
// and a form posted without the page's cookie approves nothing.
func TestSecurity_SCAPagesCannotBeFoundByScanningIds(t *testing.T) {
	// 3,500 answers, none of them a signature this test checks: ECDSA
	// signs them in a fraction of RSA's time.
	b := apptest.Start(t, apptest.Options{ResponseSigning: bank.SigningECDSA})
	tpp := b.NewTPP("933012867", 0, pki.RoleAI, pki.RolePI)
	onBankingMorning(t, b)
	var waiting []string
	for i := range 3 {
		waiting = append(waiting, b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, fmt.Sprint("scan-", i)))
	}
	pay := createPayment(t, b, tpp, ndctPath, ndct("99", ibanT1Bruk, ibanT2Bruk))
	waiting = append(waiting, pay.Links["scaRedirect"].Href)
	before := b.FileSum()

	br := b.Browser() // the attacker's, with no certificate
	guess := "AAAAAAAAAAAAAAAAAAAAAAAA"
	var bodies = map[int]int{} // status → how many
	for seq := uint64(bank.FirstUserSeq); seq < bank.FirstUserSeq+3000; seq++ {
		id := bank.FormatID(bank.KindAuthorisation, 0, seq)
		paths := []string{"/sca/" + id + "/" + guess}
		if seq < bank.FirstUserSeq+500 {
			paths = append(paths, "/sca/"+id)
		}
		for _, path := range paths {
			p := br.Open(b.URL + path)
			bodies[p.Status]++
			if p.Status != 404 || len(p.Forms) != 0 {
				t.Fatalf("%s: %d with %d forms: %s", path, p.Status, len(p.Forms), p.Text)
			}
			if strings.HasSuffix(path, guess) && !strings.Contains(p.Text, "does not exist") {
				t.Fatalf("%s tells more than an unknown id: %s", path, p.Text)
			}
		}
		// Posting a decision without the secret approves nothing.
		if seq < bank.FirstUserSeq+20 {
			p := br.Post(b.URL+"/sca/"+id+"/"+guess, url.Values{"nationalId": {t1Number}, "decision": {"approve"}})
			if p.Status != 404 {
				t.Fatalf("a post to a guessed address: %d %s", p.Status, p.Text)
			}
		}
	}
	if bodies[404] != 3500 {
		t.Fatalf("answers by status %v", bodies)
	}
	if b.FileSum() != before {
		t.Fatal("the scan changed the data file")
	}

	// With the secret (the TPP's scaRedirect) but without the page's
	// cookie, as a form posted from another site would be: refused.
	psu := b.Browser()
	real := psu.Open(pay.Links["scaRedirect"].Href)
	token := formToken(t, real)
	stranger := b.Browser()
	p := stranger.Post(real.URL, url.Values{"token": {token}, "nationalId": {t1Number}})
	if p.Status != 400 || !strings.Contains(p.Text, "cookie") {
		t.Fatalf("a form without the page's cookie: %d %s", p.Status, p.Text)
	}
	if st := storedStatus(t, b, pay.PaymentID); st != "RCVD" {
		t.Fatalf("the payment is %s", st)
	}
	// The cookie is HttpOnly, SameSite=Strict and scoped to the SCA pages.
	c := real.Header.Get("Set-Cookie")
	for _, want := range []string{"HttpOnly", "SameSite=Strict", "Path=/sca/"} {
		if !strings.Contains(c, want) {
			t.Fatalf("Set-Cookie %q has no %s", c, want)
		}
	}
	// The PSU's own browser, with the cookie, goes on.
	q := psu.CompleteSCA(pay.Links["scaRedirect"].Href, t1Number, "", nil, "approve").Query
	if q.Get("psu-id") == "" {
		t.Fatalf("the PSU's approval: %v", q)
	}
	for _, href := range waiting[:3] {
		if p := br.Open(href); p.Status != 200 {
			t.Fatalf("the TPP's own link %s: %d", href, p.Status)
		}
	}
}

// Every answer of the bank, success or error, signed API or landing page,
// tells caches not to keep it: account data and consents must not outlive
// the request in a browser or proxy cache. Only the SCA page's style sheet
// may be cached.
func TestSecurity_AnswersAreNotCached(t *testing.T) {
	b, tpp := setup(t)
	get := func(path string) apptest.Response {
		req, err := http.NewRequest("GET", b.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return b.Send(req)
	}
	answers := map[string]apptest.Response{
		"accounts (200)":     b.Do(tpp, "GET", "/v1/sandbox/accounts", nil),
		"unsigned (400)":     get("/v1/sandbox/accounts"),
		"unknown path (404)": b.Do(tpp, "GET", "/v1/no-such-thing", nil),
		"landing page (200)": get("/"),
		"unknown SCA (404)":  get("/sca/" + uuid.NewString() + "/x"),
		"created (201)":      b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": "55555555555", "name": "Cache", "type": "private"}),
		"deleted (204)":      b.Do(tpp, "DELETE", "/v1/sandbox/customers/55555555555", nil),
		"wrong method (405)": b.Do(tpp, "PATCH", "/v1/sandbox/accounts", nil),
	}
	for name, r := range answers {
		if got := r.Header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("%s: status %d, Cache-Control %q, want no-store", name, r.Status, got)
		}
		if got := r.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q, want nosniff", name, got)
		}
	}
	if got := get("/sca/static/sandbank.css").Header.Get("Cache-Control"); !strings.HasPrefix(got, "public") {
		t.Errorf("style sheet: Cache-Control %q, want it cacheable", got)
	}
}

// rlo is U+202E RIGHT-TO-LEFT OVERRIDE. A browser shows the rest of its
// line backwards, so a creditorName "Mottaker AS" + rlo would make the SCA
// page show the creditor's IBAN reversed: another account.
const rlo = "\u202E"

// refusesText checks that a request fails with FORMAT_ERROR at path, with
// the text text, and changes nothing.
func refusesText(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, method, path string, body any, headers []string, at, text string) {
	t.Helper()
	e := rejectsWith(t, b, tpp, method, path, body, headers, 400, "FORMAT_ERROR", at)
	if got := textAt(e, at); got != text {
		t.Errorf("%s %s: %s says %q, want %q", method, path, at, got, text)
	}
}

// Every name and text the bank takes refuses bidi controls, zero-width and
// other format characters, naming the character and where it is, in
// strict and lenient mode alike; letters of every script and emoji pass.
func TestSecurity_BidiControlsAndInvisibleCharactersAreRefused(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)
	base := ndct("10", ibanT1Bruk, ibanT2Bruk)
	const bulkPath = "/v1/bulk-payments/norwegian-domestic-credit-transfers"
	item := map[string]any{"instructedAmount": map[string]string{"amount": "1", "currency": "NOK"}, "creditorAccount": map[string]string{"iban": ibanT2Bruk}, "creditorName": "Mottaker AS" + rlo}
	bulk := map[string]any{"debtorAccount": map[string]string{"iban": ibanT1Bruk}, "requestedExecutionDate": day.String(), "paymentInformationId": "B1", "payments": []any{item}}
	ref := []any{map[string]string{"reference": "Faktura 7", "referenceType": "INV\u200B"}}
	account := knownAccount(t, b, tpp, ibanT1Bruk)
	own, ext := map[string]string{"iban": ibanT1Bruk}, map[string]string{"bban": "86011117947"}
	yesterday := bank.DateOf(time.Now()).AddDays(-1).String()
	cases := []struct {
		name, method, path string
		body               any
		headers            []string
		at, text           string
	}{
		{"creditorName", "POST", ndctPath, with(base, "creditorName", "Mottaker AS"+rlo), payHeaders,
			"creditorName", "contains U+202E RIGHT-TO-LEFT OVERRIDE at character 12; remove it"},
		{"remittance", "POST", ndctPath, with(base, "remittanceInformationUnstructured", "Faktura\u200B 1"), payHeaders,
			"remittanceInformationUnstructured", "contains U+200B ZERO WIDTH SPACE at character 8; remove it"},
		{"creditorAddress", "POST", ndctPath, with(base, "creditorAddress", map[string]string{"street": "\u2067Storgata 1", "country": "NO"}), payHeaders,
			"creditorAddress.street", "contains U+2067 RIGHT-TO-LEFT ISOLATE at character 1; remove it"},
		{"ultimateCreditor", "POST", ndctPath, with(base, "ultimateCreditor", "Ola\u200FNordmann"), payHeaders,
			"ultimateCreditor", "contains U+200F RIGHT-TO-LEFT MARK at character 4; remove it"},
		{"ultimateDebtor", "POST", ndctPath, with(base, "ultimateDebtor", "Kari\u061C"), payHeaders,
			"ultimateDebtor", "contains U+061C ARABIC LETTER MARK at character 5; remove it"},
		{"endToEndIdentification", "POST", ndctPath, with(base, "endToEndIdentification", "\uFEFFE2E-1"), payHeaders,
			"endToEndIdentification", "contains U+FEFF ZERO WIDTH NO-BREAK SPACE at character 1; remove it"},
		{"referenceType", "POST", ndctPath, with(base, "remittanceInformationUnstructured", nil, "remittanceInformationStructuredArray", ref), payHeaders,
			"remittanceInformationStructuredArray[0].referenceType", "contains U+200B ZERO WIDTH SPACE at character 4; remove it"},
		{"bulk item", "POST", bulkPath, bulk, payHeaders,
			"payments[0].creditorName", "contains U+202E RIGHT-TO-LEFT OVERRIDE at character 12; remove it"},
		{"a zero width joiner between letters", "POST", ndctPath, with(base, "creditorName", "Ola\u200DNordmann"), payHeaders,
			"creditorName", "contains U+200D ZERO WIDTH JOINER at character 4; remove it"},
		{"TPP-Session-ID", "POST", "/v1/consents", nil, []string{"TPP-Redirect-URI: " + tppRedirect, "TPP-Session-ID: s-1" + rlo},
			"TPP-Session-ID", "contains U+202E RIGHT-TO-LEFT OVERRIDE at character 4; remove it"},
		{"customer name", "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": "55555555555", "name": "Ola\u202DNordmann", "type": "private"}, nil,
			"name", "contains U+202D LEFT-TO-RIGHT OVERRIDE at character 4; remove it"},
		{"account name", "POST", "/v1/sandbox/accounts", with(newAccount(t1Number, "15030567894", "NOK"), "accountName", "Brukskonto\u2066"), nil,
			"accountName", "contains U+2066 LEFT-TO-RIGHT ISOLATE at character 11; remove it"},
		{"transaction text", "POST", "/v1/sandbox/accounts/" + account.ID + "/transactions", []any{with(tx(-100, yesterday, yesterday, own, ext), "creditorName", "Kreditor"+rlo+" AS")}, nil,
			"[0].creditorName", "contains U+202E RIGHT-TO-LEFT OVERRIDE at character 9; remove it"},
		{"bank transaction code", "POST", "/v1/sandbox/accounts/" + account.ID + "/transactions", []any{with(tx(-100, yesterday, yesterday, own, ext), "bankTransactionCode", "PMNT\u00AD-ICDT")}, nil,
			"[0].bankTransactionCode", "contains U+00AD SOFT HYPHEN at character 5; remove it"},
		{"card account name", "POST", "/v1/sandbox/card-accounts", cardAccount("name", "Visa\u2060Gull"), nil,
			"name", "contains U+2060 WORD JOINER at character 5; remove it"},
		{"card transaction text", "POST", "/v1/sandbox/card-accounts/" + t1Card + "/transactions", []any{with(cardTx("C1"), "transactionDetails", "Super"+rlo+"markt")}, nil,
			"[0].transactionDetails", "contains U+202E RIGHT-TO-LEFT OVERRIDE at character 6; remove it"},
		{"agreement name", "POST", "/v1/sandbox/agreements", map[string]any{"owner": f1Number, "name": "Regnskap\u202A"}, nil,
			"name", "contains U+202A LEFT-TO-RIGHT EMBEDDING at character 9; remove it"},
		{"TPP contact", "PUT", "/v1/tpps/" + tpp.ID + "/contact-information", map[string]string{"email": "ops" + rlo + "@example.com"}, nil,
			"email", "contains U+202E RIGHT-TO-LEFT OVERRIDE at character 4; remove it"},
	}
	for _, strict := range []bool{false, true} {
		setStrict(t, b, strict)
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s strict=%v", c.name, strict), func(t *testing.T) {
				refusesText(t, b, tpp, c.method, c.path, c.body, c.headers, c.at, c.text)
			})
		}
	}
	setStrict(t, b, false)

	// A scenario brings its texts through the same rules.
	var sc scenario.Scenario
	b.Do(b.Operator(), "GET", "/v1/sandbox/scenario", nil).JSON(t, &sc)
	sc.Customers[1].Name += rlo
	refusesText(t, b, b.Operator(), "PUT", "/v1/sandbox/scenario", sc, nil, "customers[1].name", "contains U+202E RIGHT-TO-LEFT OVERRIDE at character 18; remove it")

	// The TPP's name from its certificate is shown on the SCA page too.
	key := apptest.Key(t, 2)
	self, err := pki.SelfSigned(key, "Fjord Pay"+rlo, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	e := rejectsWith(t, b, apptest.TPPFor(t, self, key), "POST", "/v1/consents", nil, []string{"TPP-Redirect-URI: " + tppRedirect, "TPP-Session-ID: s-2"}, 400, "CERTIFICATE_INVALID", "TPP-Signature-Certificate")
	if got := textAt(e, "TPP-Signature-Certificate"); !strings.HasSuffix(got, "contains U+202E RIGHT-TO-LEFT OVERRIDE at character 10; remove it") {
		t.Errorf("the certificate's name: %q", got)
	}

	// Letters of every script, emoji and emoji joined with U+200D pass.
	for i, name := range []string{"Blåbær Ørsta AS", "Ánde Ŋuorra Čáhppes", "株式会社テスト", "Kaffe ☕ 👋🏽", "Koding 👩\u200D💻 🏳\uFE0F\u200D🌈"} {
		expect(t, b.Do(tpp, "POST", ndctPath, with(base, "creditorName", name, "remittanceInformationUnstructured", name), payHeaders...), 201, "")
		r := b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": fmt.Sprint(900 + i), "name": name, "type": "private"})
		expect(t, r, 201, "")
		var c customer
		r.JSON(t, &c)
		if c.CustomerName != name {
			t.Errorf("customer name %q stored as %q", name, c.CustomerName)
		}
	}
}

// storedBeforeTheRule changes a payment's creditor name and its debtor
// account's name in the data file to end in U+202E, as data stored before
// the bank refused bidi controls may.
func storedBeforeTheRule(t *testing.T, b *apptest.Bank, paymentID string) {
	t.Helper()
	if err := b.DB.Update(func(tx bank.Tx) error {
		p, err := tx.Payment(paymentID)
		if err != nil {
			return err
		}
		p.Items[0].CreditorName += rlo
		a, err := tx.Account(p.DebtorAccountID)
		if err != nil {
			return err
		}
		a.Name += rlo
		if err := tx.PutAccount(a); err != nil {
			return err
		}
		return tx.PutPayment(p)
	}); err != nil {
		t.Fatal(err)
	}
}

// The SCA page shows every name in its own <bdi>, apart from the account
// number beside it, so that a bidi control that slipped into the data (as
// data stored before the rule may hold) cannot reorder the number.
func TestSecurity_SCAPageIsolatesNamesFromNumbers(t *testing.T) {
	b, tpp := setup(t)
	br := b.Browser()
	onBankingMorning(t, b)
	c := createPayment(t, b, tpp, ndctPath, ndct("10", ibanT1Bruk, ibanT2Bruk))
	storedBeforeTheRule(t, b, c.PaymentID)
	p := br.Submit(br.Open(c.Links["scaRedirect"].Href), url.Values{"nationalId": {t1Number}})
	for _, want := range []string{
		"<strong><bdi>Test TPP 933012867</bdi></strong>",
		"<dt>To</dt><dd><bdi>Mottaker AS" + rlo + "</bdi> <bdi>" + ibanT2Bruk + "</bdi></dd>",
		"<dt>From</dt><dd><bdi>Brukskonto" + rlo + "</bdi> <bdi>" + ibanT1Bruk + "</bdi></dd>",
		"<dt>Message</dt><dd><bdi>Faktura 10</bdi></dd>",
		"<p><bdi>Test Testperson 1</bdi>, check this payment",
	} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the payment page lacks %q:\n%s", want, p.Body)
		}
	}

	// The consent page: each account's name, number and currency, and the
	// mobile app's list of customers.
	p = br.Submit(br.Open(b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "bdi-1")), url.Values{"nationalId": {t1Number}})
	if want := "<bdi>Brukskonto" + rlo + "</bdi> <bdi>" + ibanT1Bruk + "</bdi> <bdi>(NOK)</bdi>"; !strings.Contains(p.Body, want) {
		t.Errorf("the consent page lacks %q:\n%s", want, p.Body)
	}
	p = br.Open(b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "bdi-2", "TPP-Redirect-Preferred: false"))
	if want := "<bdi>Test Testperson 1</bdi> <bdi class=\"muted\">" + t1Number + "</bdi>"; !strings.Contains(p.Body, want) {
		t.Errorf("the app page lacks %q:\n%s", want, p.Body)
	}
}

// publicKeyPEM writes an RSA public key as a PEM "PUBLIC KEY" block.
func publicKeyPEM(t *testing.T, key *rsa.PublicKey) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// The test CA issues no certificate whose name holds a control or format
// character, none for a request without roles and none for an RSA key
// under 2048 bits; each finding has its field's path.
func TestSecurity_CertificateRequestsAreChecked(t *testing.T) {
	b, tpp := setup(t)
	const path = "/v1/sandbox/tpp-certificates"
	short, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	good := map[string]any{"name": "Fjord Pay AS", "organisationNumber": "933012867", "roles": []string{"PSP_AI"}, "publicKey": publicKeyPEM(t, &apptest.Key(t, 3).PublicKey)}
	for _, c := range []struct {
		body     map[string]any
		at, text string
	}{
		{with(good, "name", "Fjord\x00Pay"), "name", "contains U+0000 NULL at character 6; remove it"},
		{with(good, "name", "Fjord\nPay"), "name", "contains U+000A LINE FEED at character 6; remove it"},
		{with(good, "name", "Fjord Pay"+rlo), "name", "contains U+202E RIGHT-TO-LEFT OVERRIDE at character 10; remove it"},
		{with(good, "roles", nil), "roles", `is required: the PSD2 roles, e.g. ["PSP_AI", "PSP_PI"], or [] for none`},
		{with(good, "organisationNumber", "93301286x"), "organisationNumber", "must be 1 to 20 digits, e.g. 933012867"},
		{with(good, "roles", []string{"PSP_AI", "PSP_XX"}), "roles[1]", `"PSP_XX" is not a PSD2 role; use PSP_AS, PSP_PI, PSP_AI, PSP_IC`},
		{with(good, "publicKey", publicKeyPEM(t, &short.PublicKey)), "publicKey", "the RSA public key has 1024 bits; use at least 2048"},
	} {
		refusesText(t, b, tpp, "POST", path, c.body, nil, c.at, c.text)
	}
	// "roles": null is no list either, and every finding comes at once.
	raw := []byte(`{"name": "Fjord\nPay", "organisationNumber": "933012867", "roles": null, "publicKey": ` + strconv.Quote(publicKeyPEM(t, &short.PublicKey)) + `}`)
	rejects(t, b, tpp, "POST", path, json.RawMessage(raw), 400, "FORMAT_ERROR", "name", "roles", "publicKey")

	// An empty list is a certificate with no PSD2 role, as documented.
	r := b.Do(tpp, "POST", path, with(good, "roles", []string{}))
	expect(t, r, 201, "")
	var issued struct {
		Certificate string `json:"certificate"`
	}
	r.JSON(t, &issued)
	cert, err := pki.DecodeCert([]byte(issued.Certificate))
	if err != nil {
		t.Fatal(err)
	}
	if roles, named, err := pki.PSD2Roles(cert); err != nil || !named || len(roles) != 0 || cert.Subject.CommonName != "Fjord Pay AS" {
		t.Fatalf("issued %q with roles %v %v %v", cert.Subject.CommonName, roles, named, err)
	}
}

// A request signed with a certificate whose RSA key has fewer than 2048
// bits is refused, whoever issued the certificate.
func TestSecurity_ShortRSAKeysAreRefused(t *testing.T) {
	b, _ := setup(t)
	short, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	self, err := pki.SelfSigned(short, "Short Key TPP", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tpp := apptest.TPPFor(t, self, short)
	for _, req := range []struct {
		method, path string
		body         any
	}{{"GET", "/v1/sandbox/customers", nil}, {"POST", "/v1/sandbox/customers", map[string]string{"customerNumber": "55555555555", "name": "Ola", "type": "private"}}} {
		e := rejects(t, b, tpp, req.method, req.path, req.body, 400, "CERTIFICATE_INVALID")
		if !strings.HasPrefix(e.Message, "the certificate's RSA key has 1024 bits; use at least 2048 (") {
			t.Errorf("%s %s: %q", req.method, req.path, e.Message)
		}
	}
}
