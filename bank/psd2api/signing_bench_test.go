package psd2api_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// cryptoServer is the comparison of the signed balances read: a Go
// server that verifies the request's signature with httpsig, as the bank
// does, and RSA-signs a response body of size bytes with the bank's
// signer, and does nothing else.
func cryptoServer(b *testing.B, signer *httpsig.Signer, size int) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, time.Now)
	body := bytes.Repeat([]byte("x"), size)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if v := vf.Verify(r, in); v.Err != nil {
			http.Error(w, v.Err.Error(), http.StatusUnauthorized)
			return
		}
		h := w.Header()
		h.Set("X-Request-ID", r.Header.Get("X-Request-ID"))
		if err := signer.SignResponse(h, body, time.Now()); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = w.Write(body)
	})}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

// BenchmarkSignedBalances measures the throughput of a signed balances
// read (GET /v1/accounts/{id}/balances with a consent, the PSU present)
// over loopback, 8 and 32 clients, against a Go hello-world server and
// against cryptoServer, all in the same run. The request is signed once
// and re-sent, so the client's own RSA signing is not in the loop.
func BenchmarkSignedBalances(b *testing.B) {
	bk := apptest.Start(b, apptest.Options{})
	tpp := bk.NewTPP("933012867", 0, pki.RoleAI)
	user := psuOf(bk.Consent(tpp, t1Number, "", nil))
	path := "/v1/accounts/" + t1Brukskonto + "/balances"
	signed := func(base string) *http.Request {
		req, err := http.NewRequest("GET", base+path, nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("X-Request-ID", "bench")
		for _, h := range user.headers() {
			name, value, _ := bytes.Cut([]byte(h), []byte(":"))
			req.Header.Set(string(name), string(bytes.TrimSpace(value)))
		}
		if err := tpp.Signer.SignRequest(req, nil); err != nil {
			b.Fatal(err)
		}
		return req
	}
	size := len(get(bk, tpp, user, path).Body)
	hello := helloServer(b)
	crypto := cryptoServer(b, bk.BankCert, size)
	helloReq, _ := http.NewRequest("GET", hello+"/", nil)
	for _, clients := range []int{8, 32} {
		b.Run(fmt.Sprintf("clients-%d", clients), func(b *testing.B) {
			const d = 3 * time.Second
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			cases := []struct {
				metric string
				req    *http.Request
			}{
				{"hello", helloReq},
				{"crypto-only", signed(crypto)},
				{"rsa", signed(bk.URL)},
			}
			rates := map[string]float64{}
			for b.Loop() {
				for _, c := range cases {
					rate, err := load(client, c.req, nil, 200, clients, d)
					if err != nil {
						b.Fatalf("%s: %v", c.metric, err)
					}
					rates[c.metric] = rate
				}
			}
			for _, c := range cases {
				b.ReportMetric(rates[c.metric], c.metric+"-req/s")
			}
			b.ReportMetric(100*rates["rsa"]/rates["crypto-only"], "rsa-%-of-crypto-only")
			b.ReportMetric(100*rates["rsa"]/rates["hello"], "rsa-%-of-hello")
		})
	}
}
