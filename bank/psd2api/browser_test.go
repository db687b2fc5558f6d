package psd2api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium finds the browser: $SANDBANK_CHROMIUM, else Debian's chromium.
// Without one the test is skipped, unless SANDBANK_REQUIRE_BROWSER is set
// (CI sets it, so a missing browser fails there).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("SANDBANK_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("SANDBANK_REQUIRE_BROWSER") != "" {
		t.Fatal("no chromium found; install it (apt-get install chromium) or set SANDBANK_CHROMIUM")
	}
	t.Skip("no chromium found; install it (apt-get install chromium) to run the browser test")
	return ""
}

// TestSCA_Browser completes the SCA page in a real browser, by clicking as
// a PSU would, and checks where the browser lands.
func TestSCA_Browser(t *testing.T) {
	browser := chromium(t)
	b, tpp := setup(t)

	// The TPP's redirect endpoint.
	var mu sync.Mutex
	var landed url.Values
	callback := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/cb" {
			http.NotFound(w, r) // the browser asks for /favicon.ico too
			return
		}
		mu.Lock()
		landed = r.URL.Query()
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!doctype html><title>TPP</title><h1 id=done>Back at the TPP</h1>"))
	}))
	defer callback.Close()

	href := b.StartSCA(tpp, "POST", "/v1/consents", callback.URL+"/cb?state=browser", "browser-1")

	ctx := browserContext(t, browser)

	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("browser: %s: %v", what, err)
		}
	}
	step("open the SCA page", chromedp.Do(ctx, chromedp.Navigate(href), chromedp.WaitVisible(css("#nationalId"))))
	title, err := chromedp.Run(ctx, chromedp.Title())
	step("read the title", err)
	step("identify", chromedp.Do(ctx,
		chromedp.SendKeys(css("#nationalId"), t1Number),
		chromedp.Click(css("button[type=submit]")),
		chromedp.WaitVisible(css("input[name=accounts]")),
	))
	consentText, err := chromedp.Run(ctx, chromedp.Text(css("main")))
	step("read the consent page", err)
	// Untick the savings account and the card; keep the Brukskonto.
	step("choose and approve", chromedp.Do(ctx,
		chromedp.Click(css(`input[value="`+t1Sparekonto+`"]`)),
		chromedp.Click(css(`input[value="`+t1Card+`"]`)),
		chromedp.Click(css("button[value=approve]")),
		chromedp.WaitVisible(css("#done")),
	))
	url, err := chromedp.Run(ctx, chromedp.Location())
	step("read the location", err)
	if !strings.Contains(title, "Sandbank") || !strings.Contains(consentText, "Test Testperson 1") {
		t.Errorf("title %q, consent page %q", title, consentText)
	}
	if !strings.HasPrefix(url, callback.URL+"/cb?") {
		t.Fatalf("the browser landed on %s, want the TPP's redirect URI", url)
	}
	mu.Lock()
	q := landed
	mu.Unlock()
	if q.Get("state") != "browser" || q.Get("tpp-session-id") != "browser-1" || q.Get("context") != "PRIVATE" || q.Get("psu-id") == "" {
		t.Fatalf("the TPP got %v", q)
	}
	var list struct {
		Accounts []aisAccount `json:"accounts"`
	}
	get(b, tpp, psuOf(q), "/v1/accounts").JSON(t, &list)
	if got := ids(list.Accounts, func(a aisAccount) string { return a.ResourceID }); !slices.Equal(got, []string{t1Brukskonto}) {
		t.Fatalf("accounts after the browser SCA: %v", got)
	}
}

// browserContext starts chromium for a test, as a phone-sized window.
func browserContext(t *testing.T, browser string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(390, 844),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() {
		cancelTimeout()
		cancelBrowser()
		cancelAlloc()
	})
	return ctx
}

// creditorLine is what the browser shows of the payment's "To" line: the
// text of each <bdi> in it, and where the creditor IBAN's first and last
// characters are drawn.
type creditorLine struct {
	Bdis        []string `json:"bdis"`
	First, Last float64
}

// TestSCA_BrowserShowsCreditorNameAndIBANApart opens the approval page of a
// payment whose stored creditor name ends in U+202E RIGHT-TO-LEFT OVERRIDE
// (data stored before the bank refused it) in chromium: the name and the
// IBAN are each in their own <bdi>, and the IBAN reads left to right, as
// stored, not backwards.
func TestSCA_BrowserShowsCreditorNameAndIBANApart(t *testing.T) {
	browser := chromium(t)
	b, tpp := setup(t)
	onBankingMorning(t, b)
	c := createPayment(t, b, tpp, ndctPath, ndct("10", ibanT1Bruk, ibanT2Bruk))
	storedBeforeTheRule(t, b, c.PaymentID)
	ctx := browserContext(t, browser)

	if err := chromedp.Do(ctx,
		chromedp.Navigate(c.Links["scaRedirect"].Href), chromedp.WaitVisible(chromedp.CSS("#nationalId")),
		chromedp.SendKeys(chromedp.CSS("#nationalId"), t1Number), chromedp.Click(chromedp.CSS("button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("section.payment")),
	); err != nil {
		t.Fatalf("browser: %v", err)
	}
	line, err := chromedp.Run(ctx, chromedp.Evaluate[creditorLine](`(() => {
		const dd = document.querySelector("section.payment dd");
		const out = {bdis: [...dd.querySelectorAll("bdi")].map(b => b.textContent), first: -1, last: -1};
		const iban = "`+ibanT2Bruk+`";
		const walk = document.createTreeWalker(dd, NodeFilter.SHOW_TEXT);
		for (let n = walk.nextNode(); n; n = walk.nextNode()) {
			const at = n.data.indexOf(iban);
			if (at < 0) continue;
			const r = document.createRange();
			r.setStart(n, at); r.setEnd(n, at + 1);
			out.first = r.getBoundingClientRect().left;
			r.setStart(n, at + iban.length - 1); r.setEnd(n, at + iban.length);
			out.last = r.getBoundingClientRect().left;
		}
		return out;
	})()`))
	if err != nil {
		t.Fatalf("browser: read the creditor line: %v", err)
	}
	if !slices.Equal(line.Bdis, []string{"Mottaker AS" + rlo, ibanT2Bruk}) {
		t.Errorf("the creditor line's <bdi> elements hold %q, want the name and the IBAN apart", line.Bdis)
	}
	if line.First < 0 || line.First >= line.Last {
		t.Errorf("the IBAN's first character is drawn at x=%v, its last at x=%v: the IBAN reads backwards", line.First, line.Last)
	}
}
