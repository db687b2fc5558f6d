package psd2api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/pki"
)

// send sends a request and fails unless it answers want; body is re-sent
// as is, so a request signed once can be sent many times (the bank does not
// refuse replays). It drains the body so the connection is reused.
func send(b *testing.B, client *http.Client, req *http.Request, body []byte, want int) {
	r := req.Clone(req.Context())
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := client.Do(r)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != want {
		b.Fatalf("status %d, want %d", resp.StatusCode, want)
	}
}

// helloServer is the ceiling: Go's net/http answering a fixed body on
// loopback, measured in the same run as the bank.
func helloServer(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("hello, world\n"))
	})}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

// BenchmarkSandboxAPI measures the sandbox API over loopback on a data
// file whose account holds 1,000,000 transactions. Requests are signed
// once and re-sent, so the figures are the bank's work plus loopback, not
// the client's RSA signing.
func BenchmarkSandboxAPI(b *testing.B) {
	path := apptest.BigFixture(b, 1_000_000)
	bk := apptest.Start(b, apptest.Options{DataPath: path})
	tpp := bk.NewTPP("933012867", 0, pki.RoleAI, pki.RolePI)
	var accounts []struct {
		ID   string `json:"id"`
		IBAN string `json:"iban"`
	}
	bk.Do(tpp, "GET", "/v1/sandbox/accounts", nil).JSON(b, &accounts)
	var big, small string
	for _, a := range accounts {
		switch a.IBAN {
		case apptest.FixtureIBAN:
			big = a.ID
		case "NO1615030123465":
			small = a.ID
		}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	signed := func(method, path string, body []byte) *http.Request {
		req := bk.Request(method, path, body)
		if err := tpp.Signer.SignRequest(req, body); err != nil {
			b.Fatal(err)
		}
		return req
	}

	b.Run("hello-world-ceiling", func(b *testing.B) {
		req, _ := http.NewRequest("GET", helloServer(b)+"/", nil)
		for b.Loop() {
			send(b, client, req, nil, 200)
		}
	})
	b.Run("GET-transactions-limit200-of-1M", func(b *testing.B) {
		req := signed("GET", "/v1/sandbox/accounts/"+big+"/transactions?limit=200", nil)
		for b.Loop() {
			send(b, client, req, nil, 200)
		}
	})
	b.Run("GET-transactions-limit200-offset900000-of-1M", func(b *testing.B) {
		req := signed("GET", "/v1/sandbox/accounts/"+big+"/transactions?limit=200&offset=900000", nil)
		for b.Loop() {
			send(b, client, req, nil, 200)
		}
	})
	b.Run("GET-transaction-by-id-of-1M", func(b *testing.B) {
		var page []struct{ ID string }
		bk.Do(tpp, "GET", "/v1/sandbox/accounts/"+big+"/transactions?limit=1&offset=500000", nil).JSON(b, &page)
		req := signed("GET", "/v1/sandbox/accounts/"+big+"/transactions/"+page[0].ID, nil)
		for b.Loop() {
			send(b, client, req, nil, 200)
		}
	})
	b.Run("POST-100-transactions", func(b *testing.B) {
		day := bank.DateOf(time.Now()).AddDays(-3).String()
		items := make([]any, 100)
		for i := range items {
			items[i] = tx(float64(100+i), day, day, map[string]string{"iban": "NO1615030123465"}, map[string]string{"bban": "86011117947"})
		}
		body, _ := json.Marshal(items)
		req := signed("POST", "/v1/sandbox/accounts/"+small+"/transactions", body)
		for b.Loop() {
			send(b, client, req, body, 201)
		}
	})
	b.Run("GET-customers", func(b *testing.B) {
		req := signed("GET", "/v1/sandbox/customers?withAccounts=true", nil)
		for b.Loop() {
			send(b, client, req, nil, 200)
		}
	})
}
