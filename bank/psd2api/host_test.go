package psd2api_test

import (
	"net/http"
	"strings"
	"testing"
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
