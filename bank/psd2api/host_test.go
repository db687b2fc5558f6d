package psd2api_test

import (
	"net/http"
	"strings"
	"testing"

	"sandbank/app/apptest"
	"sandbank/bank/pki"
)

// A loopback listener answers only to loopback names, so that a web page
// that rebinds its DNS name to 127.0.0.1 cannot use the bank from the
// tester's browser.
func TestHost_LoopbackListenerAnswersOnlyToLoopbackNames(t *testing.T) {
	b, tpp := setup(t)
	port := b.URL[strings.LastIndex(b.URL, ":"):]
	for _, host := range []string{"127.0.0.1" + port, "localhost" + port, "LOCALHOST", "app.localhost" + port, "127.0.0.2", "[::1]" + port, "localhost."} {
		req := b.Request("GET", "/v1/sandbox/customers", nil)
		req.Host = host
		if err := tpp.Signer.SignRequest(req, nil); err != nil {
			t.Fatal(err)
		}
		expect(t, b.Send(req), 200, "")
	}
	for _, host := range []string{"evil.example" + port, "evil.example", "127.0.0.1.nip.io" + port, "localhost.evil.example", "0.0.0.0" + port, "192.168.1.10"} {
		for _, path := range []string{"/v1/sandbox/customers", "/healthz", "/v1/openapi.json"} {
			req := b.Request("GET", path, nil)
			req.Host = host
			if err := tpp.Signer.SignRequest(req, nil); err != nil {
				t.Fatal(err)
			}
			e := expect(t, b.Send(req), http.StatusForbidden, "FORBIDDEN")
			if !strings.Contains(e.Message, "loopback") {
				t.Errorf("Host %s: %s", host, e.Message)
			}
		}
	}
}

// With a public URL (--public-url), SCA links point there, and a loopback
// listener also answers to its host name, as it does behind a proxy or a
// container's published port; other names are still refused.
func TestHost_PublicURL(t *testing.T) {
	const public = "https://bank.example:8443"
	b := apptest.Start(t, apptest.Options{PublicURL: public})
	tpp := b.NewTPP("933012867", 0, pki.RoleAI, pki.RolePI)
	href := b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "public-1")
	if !strings.HasPrefix(href, public+"/sca/enc!!") {
		t.Fatalf("scaRedirect %q is not on %s", href, public)
	}
	// The proxy forwards the path to the bank: the PSU completes SCA there.
	r := b.CompleteSCA(b.URL+strings.TrimPrefix(href, public), t1Number, "", nil, "approve")
	if r.Query.Get("psu-id") == "" {
		t.Fatalf("SCA through the public URL's path: %s", r.URL)
	}
	// A payment's scaRedirect, and the fresh SCA of a 401, too.
	c := createPayment(t, b, tpp, ndctPath, ndct("100.00", ibanT1Bruk, ibanT2Bruk))
	if href := c.Links["scaRedirect"].Href; !strings.HasPrefix(href, public+"/sca/enc!!") {
		t.Fatalf("payment scaRedirect %q", href)
	}
	stranger := psuOf(r.Query)
	stranger.id = "6f1c0a77-2f0e-4c55-9a7b-3d1b0c1e2f3a"
	resp := get(b, tpp, stranger, "/v1/accounts")
	expect(t, resp, 401, "CONSENT_INVALID")
	var body struct {
		Links map[string]struct {
			Href string `json:"href"`
		} `json:"_links"`
	}
	resp.JSON(t, &body)
	if href := body.Links["scaRedirect"].Href; !strings.HasPrefix(href, public+"/sca/enc!!") {
		t.Fatalf("401 scaRedirect %q: %s", href, resp.Body)
	}

	port := b.URL[strings.LastIndex(b.URL, ":"):]
	for _, host := range []string{"bank.example:8443", "bank.example", "BANK.Example.", "bank.example" + port, "localhost" + port} {
		req := b.Request("GET", "/v1/sandbox/customers", nil)
		req.Host = host
		if err := tpp.Signer.SignRequest(req, nil); err != nil {
			t.Fatal(err)
		}
		expect(t, b.Send(req), 200, "")
	}
	for _, host := range []string{"evil.example", "bank.example.evil.example", "sub.bank.example:8443", "bankexample"} {
		req := b.Request("GET", "/healthz", nil)
		req.Host = host
		e := expect(t, b.Send(req), http.StatusForbidden, "FORBIDDEN")
		if !strings.Contains(e.Message, "bank.example (--public-url)") {
			t.Errorf("Host %s: %s", host, e.Message)
		}
	}
}
