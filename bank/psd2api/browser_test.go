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

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(390, 844),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

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
