package psd2api_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"sandbank/app/apptest"
	"sandbank/bank/pki"
)

// syncBuffer is a log's output, written by the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSecurity_TheLogHoldsNoSCASecret replays the hijack through the
// request log: TPP A starts a payment, whose 201 carries the SCA page's
// secret; the PSU opens the page (a cookie and a form token) and logs in.
// A stranger with a self-signed certificate finds none of A's requests in
// the log or the HAR; and wherever the log is read, by the operator too (the
// list, each entry, the HAR, the Traffic screen's entries, the debug log),
// neither the secret, the form token nor the cookie's value stands, while
// the path still names the authorisation. With what it can read, the
// stranger opens no page.
func TestSecurity_TheLogHoldsNoSCASecret(t *testing.T) {
	var debug syncBuffer
	b := apptest.Start(t, apptest.Options{Logger: slog.New(slog.NewTextHandler(&debug, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	a := b.NewTPP("933012867", 0, pki.RoleAI, pki.RolePI)
	op := b.Operator()
	onBankingMorning(t, b)
	pay := createPayment(t, b, a, ndctPath, ndct("100", ibanT1Bruk, ibanT2Bruk))
	scaURL := pay.Links["scaRedirect"].Href
	u, err := url.Parse(scaURL)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/") // sca, id, secret
	if len(parts) != 3 || len(parts[2]) < 20 {
		t.Fatalf("scaRedirect %s has no secret", scaURL)
	}
	authID, secret := parts[1], parts[2]

	// The PSU opens the page and logs in; a signed request of A's carries a
	// cookie too, which it signs.
	br := b.Browser()
	page := br.Open(scaURL)
	if page.Status != 200 || len(page.Forms) != 1 {
		t.Fatalf("the SCA page: %d %s", page.Status, page.Text)
	}
	var token string
	for _, f := range page.Forms[0].Fields {
		if f.Name == "token" {
			token = f.Value
		}
	}
	cookies := br.Cookies(scaURL)
	if token == "" || len(cookies) != 1 || cookies[0].Value == "" {
		t.Fatalf("the page gave token %q and cookies %v", token, cookies)
	}
	cookie := cookies[0].Value
	br.Submit(page, url.Values{"nationalId": {t1Number}})
	b.Do(a, "GET", "/v1/sandbox/customers", nil, "Cookie: tracker=sandbank-secret-cookie-value")

	secrets := map[string]string{"the page's secret": secret, "the form token": token, "the cookie": cookie, "a TPP's cookie": "sandbank-secret-cookie-value"}
	check := func(where, text string) {
		t.Helper()
		for what, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s holds %s", where, what)
			}
		}
	}

	// The stranger finds none of A's traffic, and nothing to open a page with.
	s := stranger(t, "Stranger")
	for _, path := range []string{"/v1/sandbox/requests?limit=1000", "/v1/sandbox/requests.har"} {
		r := b.Do(s, "GET", path, nil)
		expect(t, r, 200, "")
		check("the stranger's "+path, string(r.Body))
		if strings.Contains(string(r.Body), authID) {
			t.Errorf("the stranger's %s names A's authorisation", path)
		}
	}
	if p := b.Browser().Open(b.URL + "/sca/" + authID + "/" + "[redacted]"); p.Status != http.StatusNotFound {
		t.Errorf("the page opens with the redacted address: %d", p.Status)
	}

	// The operator reads everything, with every secret redacted.
	var list struct {
		Requests []struct {
			ID   string `json:"id"`
			Path string `json:"path"`
		} `json:"requests"`
	}
	r := b.Do(op, "GET", "/v1/sandbox/requests?limit=1000", nil)
	check("the operator's request list", string(r.Body))
	r.JSON(t, &list)
	named := false
	for _, e := range list.Requests {
		if strings.HasPrefix(e.Path, "/sca/"+authID+"/[redacted]") {
			named = true
		}
		check("GET /v1/sandbox/requests/"+e.ID, string(b.Do(op, "GET", "/v1/sandbox/requests/"+e.ID, nil).Body))
	}
	if !named {
		t.Errorf("no logged path names the authorisation %s with its secret redacted: %+v", authID, list.Requests)
	}
	check("the operator's HAR", string(b.Do(op, "GET", "/v1/sandbox/requests.har", nil).Body))
	traffic, err := json.Marshal(b.RequestLog().Entries())
	if err != nil {
		t.Fatal(err)
	}
	check("the Traffic screen's entries", string(traffic))
	if !strings.Contains(string(traffic), "tracker=[redacted]") {
		t.Error("the logged Cookie header lost its name")
	}
	// The form post is logged as the PSU sent it, its token redacted: a
	// replay of the traffic completes the SCA with what the PSU posted.
	posted := false
	for _, e := range b.RequestLog().Entries() {
		if e.Method == "POST" && strings.HasPrefix(e.Path, "/sca/") {
			check("the logged form post", string(e.RequestBody))
			posted = string(e.RequestBody) == "nationalId="+t1Number+"&token=[redacted]"
		}
	}
	if !posted {
		t.Error("the request log does not hold the SCA page's form post, its token redacted")
	}
	check("the debug log", debug.String())
	if !strings.Contains(debug.String(), "/sca/"+authID+"/[redacted]") {
		t.Error("the log names no SCA page")
	}
	// The client's own answers keep what they carry.
	if !strings.Contains(scaURL, secret) || !strings.Contains(page.Body, token) {
		t.Error("the answers to the TPP and the PSU lost their secrets")
	}
}
