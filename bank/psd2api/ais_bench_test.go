package psd2api_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
	"sandbank/bank/psd2api"
)

// timed runs a request for every b.Loop and reports the median and the
// 99th percentile besides the mean.
func timed(b *testing.B, client *http.Client, req *http.Request, body []byte, want int) {
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		send(b, client, req, body, want)
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	ms := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))].Microseconds()) / 1000 }
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}

// load sends req (with body, when not nil) from clients goroutines for d
// and returns the answered requests per second. Any answer but want is an
// error.
func load(client *http.Client, req *http.Request, body []byte, want, clients int, d time.Duration) (float64, error) {
	var n atomic.Int64
	var failure atomic.Value
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				r := req.Clone(req.Context())
				if body != nil {
					r.Body = io.NopCloser(bytes.NewReader(body))
				}
				resp, err := client.Do(r)
				if err != nil {
					failure.Store(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != want {
					failure.Store(fmt.Errorf("status %d, want %d", resp.StatusCode, want))
					return
				}
				n.Add(1)
			}
		})
	}
	wg.Wait()
	if err, ok := failure.Load().(error); ok {
		return 0, err
	}
	return float64(n.Load()) / d.Seconds(), nil
}

// BenchmarkAIS measures account information over loopback on a data file
// whose Brukskonto holds 1,000,000 transactions, for a PSU who granted it
// and has an SCA session: every request runs the access rules (PSU, grant,
// age, account in grant, session, daily limit). Requests are signed once
// and re-sent.
func BenchmarkAIS(b *testing.B) {
	path := apptest.BigFixture(b, 1_000_000)
	bk := apptest.Start(b, apptest.Options{DataPath: path})
	tpp := bk.NewTPP("933012867", 0, pki.RoleAI)
	user := psuOf(bk.Consent(tpp, t1Number, "", nil))
	signed := func(base, path string) *http.Request {
		req, err := http.NewRequest("GET", base+path, nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("X-Request-ID", "bench")
		for _, h := range user.headers("x-accept-fix: longer-names") {
			name, value, _ := bytes.Cut([]byte(h), []byte(":"))
			req.Header.Set(string(name), string(bytes.TrimSpace(value)))
		}
		if err := tpp.Signer.SignRequest(req, nil); err != nil {
			b.Fatal(err)
		}
		return req
	}
	page := "/v1/accounts/" + t1Brukskonto + "/transactions"
	var txs aisTxList
	get(bk, tpp, user, page+"?limit=1&offset=500000").JSON(b, &txs)
	if len(txs.Transactions.Booked) != 1 {
		b.Fatalf("the fixture's history is not readable: %+v", txs)
	}
	details := txs.Transactions.Booked[0].Links["transactionDetails"].Href
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

	b.Run("transactions-limit200-of-1M", func(b *testing.B) {
		timed(b, client, signed(bk.URL, page+"?limit=200"), nil, 200)
	})
	b.Run("transactions-limit200-offset900000-of-1M", func(b *testing.B) {
		timed(b, client, signed(bk.URL, page+"?limit=200&offset=900000"), nil, 200)
	})
	b.Run("transaction-details-of-1M", func(b *testing.B) {
		timed(b, client, signed(bk.URL, details), nil, 200)
	})
	b.Run("hello-world-latency", func(b *testing.B) {
		req, _ := http.NewRequest("GET", helloServer(b)+"/", nil)
		timed(b, client, req, nil, 200)
	})

	// The same bank without its response signature, for the breakdown of
	// the throughput: everything else (verification, access rules, log)
	// as above.
	unsigned := func(b *testing.B) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		srv := &http.Server{Handler: psd2api.NewServer(psd2api.Config{
			Bank: bk.Bank, Verifier: httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, time.Now),
			Authority: bk.Authority, RequestLog: bk.RequestLog(),
		})}
		go func() { _ = srv.Serve(ln) }()
		b.Cleanup(func() { _ = srv.Close() })
		return "http://" + ln.Addr().String()
	}
	b.Run("throughput-32-clients", func(b *testing.B) {
		const clients, d = 32, 3 * time.Second
		hello := helloServer(b)
		plain := unsigned(b)
		helloReq, _ := http.NewRequest("GET", hello+"/", nil)
		cases := []struct {
			metric string
			req    *http.Request
		}{
			{"hello-req/s", helloReq},
			{"balances-req/s", signed(bk.URL, "/v1/accounts/"+t1Brukskonto+"/balances")},
			{"page200-req/s", signed(bk.URL, page+"?limit=200")},
			{"balances-unsigned-response-req/s", signed(plain, "/v1/accounts/"+t1Brukskonto+"/balances")},
		}
		rates := make([]float64, len(cases))
		for b.Loop() {
			for i, c := range cases {
				rate, err := load(client, c.req, nil, 200, clients, d)
				if err != nil {
					b.Fatalf("%s: %v", c.metric, err)
				}
				rates[i] = rate
			}
		}
		for i, c := range cases {
			b.ReportMetric(rates[i], c.metric)
		}
		b.ReportMetric(100*rates[1]/rates[0], "balances-%-of-hello")
		b.ReportMetric(100*rates[2]/rates[0], "page200-%-of-hello")
		b.ReportMetric(100*rates[3]/rates[0], "unsigned-response-%-of-hello")
	})
}
