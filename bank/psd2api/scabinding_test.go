package psd2api_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"sandbank/app/apptest"
)

// scaStatusOf reads an authorisation's scaStatus as the TPP, at its
// scaStatus link.
func scaStatusOf(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, href string) string {
	t.Helper()
	r := b.Do(tpp, "GET", href, nil)
	expect(t, r, 200, "")
	var s struct {
		ScaStatus string `json:"scaStatus"`
	}
	r.JSON(t, &s)
	return s.ScaStatus
}

// elsewherePage checks that a page is the one a browser without the
// page's cookie gets: 409, the approval is open in another browser, start
// again from the TPP; no form, no token, no cookie, nothing of the PSU.
func elsewherePage(t *testing.T, br *apptest.Browser, p apptest.Page, token string) {
	t.Helper()
	if p.Status != http.StatusConflict || len(p.Forms) != 0 || !strings.Contains(p.Text, "This approval is open in another browser") || !strings.Contains(p.Text, "return to Test TPP 933012867 and start again") {
		t.Fatalf("a browser without the page's cookie: %d, %d forms: %s", p.Status, len(p.Forms), p.Text)
	}
	if strings.Contains(p.Body, token) || p.Header.Get("Set-Cookie") != "" || len(br.Cookies(p.URL)) != 0 {
		t.Fatalf("the page gave a browser without its cookie the token or a cookie: %v\n%s", p.Header, p.Body)
	}
	if strings.Contains(p.Body, t1Number) || strings.Contains(p.Body, "Testperson") || strings.Contains(p.Body, ibanT2Bruk) {
		t.Fatalf("the page shows a browser without its cookie the PSU or the payment: %s", p.Text)
	}
}

// The SCA page binds to the first browser that opens it (issue 19 §3): a
// browser that opens the link later, without that browser's cookie, gets
// a page that says the approval is open in another browser, with no form
// token and no cookie, and its posts, even with the token scraped from
// the first browser's page, change nothing and use up no identification
// attempt. The first browser reloads, goes back and finishes as before.
func TestSecurity_SCAPageIsBoundToTheFirstBrowser(t *testing.T) {
	b, tpp := setup(t)
	onBankingMorning(t, b)
	c := createPayment(t, b, tpp, ndctPath, ndct("10", ibanT1Bruk, ibanT2Bruk))
	href, scaStatus := c.Links["scaRedirect"].Href, c.Links["scaStatus"].Href

	psu := b.Browser()
	p := psu.Open(href)
	token := formToken(t, p)
	if p.Status != 200 || !strings.Contains(p.Text, "National identity number") || len(psu.Cookies(href)) != 1 {
		t.Fatalf("the first browser: %d, cookies %v: %s", p.Status, psu.Cookies(href), p.Text)
	}
	before := b.FileSum()

	other := b.Browser()
	elsewherePage(t, other, other.Open(href), token)
	for _, id := range []string{t1Number, "1", "2", "3"} {
		r := other.Post(href, url.Values{"token": {token}, "nationalId": {id}})
		if r.Status != 400 || len(r.Forms) != 0 || !strings.Contains(r.Text, "cookie") || r.Header.Get("Set-Cookie") != "" {
			t.Fatalf("a post without the page's cookie: %d %s", r.Status, r.Text)
		}
	}
	elsewherePage(t, other, other.Open(href), token) // its posts bound nothing either
	if b.FileSum() != before {
		t.Fatal("a browser without the page's cookie changed the data file")
	}
	if st := scaStatusOf(t, b, tpp, scaStatus); st != "RECEIVED" {
		t.Fatalf("scaStatus %s after the other browser's posts", st)
	}

	// The PSU's own browser reloads (a read that writes nothing), and its
	// first wrong national id leaves two attempts: the other browser's
	// posts were not counted.
	p = psu.Open(href)
	if p.Status != 200 || formToken(t, p) != token || !strings.Contains(p.Text, "National identity number") {
		t.Fatalf("the PSU's reload: %d %s", p.Status, p.Text)
	}
	if b.FileSum() != before {
		t.Fatal("the bound browser's reload wrote to the data file")
	}
	p = psu.Submit(p, url.Values{"nationalId": {"0"}})
	if p.Status != 200 || !strings.Contains(p.Text, "2 attempts left") {
		t.Fatalf("a wrong national id: %d %s", p.Status, p.Text)
	}
	p = psu.Submit(p, url.Values{"nationalId": {t1Number}})
	if p.Status != 200 || !strings.Contains(p.Text, "check this payment") {
		t.Fatalf("identified: %d %s", p.Status, p.Text)
	}
	elsewherePage(t, other, other.Open(href), token)

	// Back, then on: the payment step again, then approval.
	p = psu.Open(href)
	if p.Status != 200 || !strings.Contains(p.Text, "check this payment") {
		t.Fatalf("the PSU goes back: %d %s", p.Status, p.Text)
	}
	p = psu.Submit(p, url.Values{"decision": {"approve"}})
	if p.Status != 303 {
		t.Fatalf("approve: %d %s", p.Status, p.Text)
	}
	if q := safeLocation(t, p.Location, tppRedirect); q.Get("psu-id") == "" {
		t.Fatalf("the redirect after approval: %s", p.Location)
	}
	if st := scaStatusOf(t, b, tpp, scaStatus); st != "FINALISED" {
		t.Fatalf("scaStatus %s after approval", st)
	}
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, "ACTC")
}

// TestSCA_BrowserBindsThePageToTheFirstBrowser opens an SCA page in
// chromium, then in a second browser context of the same chromium (its own
// cookies, as a private window or another device has): the second sees
// that the approval is open in another browser and gets no form; the
// first reloads and completes the consent.
func TestSCA_BrowserBindsThePageToTheFirstBrowser(t *testing.T) {
	browser := chromium(t)
	b, tpp := setup(t)
	var mu sync.Mutex
	var landed url.Values
	callback := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/cb" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		landed = r.URL.Query()
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!doctype html><title>TPP</title><h1 id=done>Back at the TPP</h1>"))
	}))
	defer callback.Close()
	href := b.StartSCA(tpp, "POST", "/v1/consents", callback.URL+"/cb", "bind-1")

	first := browserContext(t, browser)
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	if err := chromedp.Do(first, chromedp.Navigate(href), chromedp.WaitVisible(css("#nationalId"))); err != nil {
		t.Fatalf("the first browser opens the page: %v", err)
	}
	second, cancel := chromedp.NewContext(first, chromedp.WithNewBrowserContext())
	defer cancel()
	if err := chromedp.Do(second, chromedp.Navigate(href), chromedp.WaitVisible(css("main"))); err != nil {
		t.Fatalf("the second browser opens the page: %v", err)
	}
	text, err := chromedp.Run(second, chromedp.Text(css("main")))
	if err != nil {
		t.Fatalf("read the second browser's page: %v", err)
	}
	forms, err := chromedp.Run(second, chromedp.Evaluate[int](`document.forms.length`))
	if err != nil {
		t.Fatalf("count the second browser's forms: %v", err)
	}
	if !strings.Contains(text, "This approval is open in another browser") || forms != 0 {
		t.Fatalf("the second browser sees %d forms: %q", forms, text)
	}

	if err := chromedp.Do(first,
		chromedp.Reload(), chromedp.WaitVisible(css("#nationalId")),
		chromedp.SendKeys(css("#nationalId"), t1Number), chromedp.Click(css("button[type=submit]")),
		chromedp.WaitVisible(css("input[name=accounts]")),
		chromedp.Click(css("button[value=approve]")),
		chromedp.WaitVisible(css("#done")),
	); err != nil {
		t.Fatalf("the first browser completes the consent: %v", err)
	}
	mu.Lock()
	q := landed
	mu.Unlock()
	if q.Get("psu-id") == "" || q.Get("tpp-session-id") != "bind-1" {
		t.Fatalf("the TPP got %v", q)
	}
}
