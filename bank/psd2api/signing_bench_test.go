package psd2api_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// cryptoServer is the comparison of the signed balances read: a Go
// server that verifies the request's signature with httpsig, as the bank
// does, and RSA-signs a response body of size bytes with the bank's
// signer, and does nothing else. With no signer it only verifies: the
// ceiling of a bank that verifies the TPP's signature and signs nothing.
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
		if signer == nil {
			h.Set("Digest", httpsig.Digest(body))
		} else if err := signer.SignResponse(h, body, time.Now()); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = w.Write(body)
	})}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

// target is one server the throughput comparison sends a request to;
// before, when set, runs before each of its turns (a change of the
// bank's responseSigning setting).
type target struct {
	name   string
	req    *http.Request
	before func()
}

// compared is what compare measured of one target: requests per second,
// and CPU time per request (servers and clients together).
type compared struct {
	rate float64
	cpu  time.Duration
}

// compare measures each target with clients concurrent clients, d each in
// all. The targets take turns in rounds of a quarter second, after a
// warm-up each, so that the load of a shared machine falls on all of them
// alike.
func compare(b *testing.B, targets []target, clients int, d time.Duration) map[string]compared {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	const turn = 250 * time.Millisecond
	count := map[string]float64{}
	cpu := map[string]time.Duration{}
	run := func(t target, d time.Duration) (float64, time.Duration) {
		if t.before != nil {
			t.before()
		}
		start := cpuTime(b)
		rate, err := load(client, t.req, nil, 200, clients, d)
		if err != nil {
			b.Fatalf("%s: %v", t.name, err)
		}
		return rate * d.Seconds(), cpuTime(b) - start
	}
	for _, t := range targets {
		run(t, turn)
	}
	for range int(d / turn) {
		for _, t := range targets {
			n, c := run(t, turn)
			count[t.name] += n
			cpu[t.name] += c
		}
	}
	out := map[string]compared{}
	for name, n := range count {
		out[name] = compared{rate: n / d.Seconds(), cpu: cpu[name] / time.Duration(n)}
	}
	return out
}

// report reports each target's requests per second and CPU time per
// request.
func report(b *testing.B, rates map[string]compared, names ...string) {
	for _, name := range names {
		b.ReportMetric(rates[name].rate, name+"-req/s")
		b.ReportMetric(float64(rates[name].cpu.Nanoseconds())/1000, name+"-cpu-µs/req")
	}
}

// BenchmarkSignedBalances measures the throughput of a signed balances
// read (GET /v1/accounts/{id}/balances with a consent, the PSU present)
// over loopback with 8 and 32 clients, in each responseSigning mode,
// against a Go hello-world server and against cryptoServer (with the
// bank's RSA signer, and verifying only), all in the same run. The request is signed once and re-sent, so the client's own
// RSA signing is not in the loop. With SANDBANK_PRISM_URL set (the
// address of a Prism mock server on Sandbank's own OpenAPI document, as
// scripts/bench-prism starts it) it also compares the bank in the modes
// rsa and ecdsa with Prism, same client, same request.
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
			name, value, _ := strings.Cut(h, ":")
			req.Header.Set(name, strings.TrimSpace(value))
		}
		if err := tpp.Signer.SignRequest(req, nil); err != nil {
			b.Fatal(err)
		}
		return req
	}
	size := len(get(bk, tpp, user, path).Body)
	mode := func(m string) func() {
		return func() {
			if _, err := bk.Ops().UpdateSettings(func(s *bank.Settings) { s.ResponseSigning = m }); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Cleanup(mode(bank.SigningRSA))
	helloReq, err := http.NewRequest("GET", helloServer(b)+"/", nil)
	if err != nil {
		b.Fatal(err)
	}
	crypto := signed(cryptoServer(b, bk.BankCert, size))
	verifyOnly := signed(cryptoServer(b, nil, size))
	bankReq := signed(bk.URL)
	const d = 3 * time.Second
	for _, clients := range []int{8, 32} {
		b.Run(fmt.Sprintf("clients-%d", clients), func(b *testing.B) {
			var rates map[string]compared
			for b.Loop() {
				rates = compare(b, []target{
					{name: "hello", req: helloReq},
					{name: "crypto-only", req: crypto},
					{name: "verify-only", req: verifyOnly},
					{name: "rsa", req: bankReq, before: mode(bank.SigningRSA)},
					{name: "ecdsa", req: bankReq, before: mode(bank.SigningECDSA)},
					{name: "off", req: bankReq, before: mode(bank.SigningOff)},
				}, clients, d)
			}
			report(b, rates, "hello", "crypto-only", "verify-only", "rsa", "ecdsa", "off")
			rate := func(name string) float64 { return rates[name].rate }
			b.ReportMetric(100*rate("rsa")/rate("crypto-only"), "rsa-%-of-crypto-only")
			b.ReportMetric(rate("ecdsa")/rate("rsa"), "ecdsa-x-rsa")
			b.ReportMetric(100*rate("ecdsa")/rate("hello"), "ecdsa-%-of-hello")
			b.ReportMetric(100*rate("off")/rate("hello"), "off-%-of-hello")
			b.ReportMetric(100*rate("verify-only")/rate("hello"), "verify-only-%-of-hello")
		})
	}
	prism := os.Getenv("SANDBANK_PRISM_URL")
	if prism == "" {
		return
	}
	prismReq := signed(strings.TrimSuffix(prism, "/"))
	for _, clients := range []int{8, 32} {
		b.Run(fmt.Sprintf("prism-clients-%d", clients), func(b *testing.B) {
			var rates map[string]compared
			for b.Loop() {
				rates = compare(b, []target{
					{name: "rsa", req: bankReq, before: mode(bank.SigningRSA)},
					{name: "ecdsa", req: bankReq, before: mode(bank.SigningECDSA)},
					{name: "prism", req: prismReq},
				}, clients, d)
			}
			// Prism's CPU is another process's: only the rates compare.
			for _, name := range []string{"rsa", "ecdsa", "prism"} {
				b.ReportMetric(rates[name].rate, name+"-req/s")
			}
			b.ReportMetric(rates["rsa"].rate/rates["prism"].rate, "rsa-x-prism")
			b.ReportMetric(rates["ecdsa"].rate/rates["prism"].rate, "ecdsa-x-prism")
		})
	}
}

// BenchmarkBalancesHandler is the signed balances read of
// BenchmarkSignedBalances through the bank's handler in process, without
// network or client (see BenchmarkHandler), in each responseSigning
// mode: the bank's own work per signed read, the verification of the
// TPP's signature included, as CPU time and allocations per request. Its
// verify-only case is the same request through httpsig's verifier alone.
func BenchmarkBalancesHandler(b *testing.B) {
	bk := apptest.Start(b, apptest.Options{})
	tpp := bk.NewTPP("933012867", 0, pki.RoleAI)
	user := psuOf(bk.Consent(tpp, t1Number, "", nil))
	req := httptest.NewRequest("GET", bk.URL+"/v1/accounts/"+t1Brukskonto+"/balances", nil)
	req.Header.Set("X-Request-ID", "bench")
	for _, h := range user.headers() {
		name, value, _ := strings.Cut(h, ":")
		req.Header.Set(name, strings.TrimSpace(value))
	}
	if err := tpp.Signer.SignRequest(req, nil); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if _, err := bk.Ops().UpdateSettings(func(s *bank.Settings) { s.ResponseSigning = bank.SigningRSA }); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("verify-only", func(b *testing.B) {
		vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, time.Now)
		b.ReportAllocs()
		cpu := cpuTime(b)
		for b.Loop() {
			if v := vf.Verify(req.Clone(req.Context()), nil); v.Err != nil {
				b.Fatal(v.Err)
			}
		}
		b.ReportMetric(float64((cpuTime(b)-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
	})
	handler := bk.Handler()
	for _, mode := range []string{bank.SigningOff, bank.SigningECDSA, bank.SigningRSA} {
		b.Run(mode, func(b *testing.B) {
			if _, err := bk.Ops().UpdateSettings(func(s *bank.Settings) { s.ResponseSigning = mode }); err != nil {
				b.Fatal(err)
			}
			var w discard
			b.ReportAllocs()
			cpu := cpuTime(b)
			for b.Loop() {
				w = discard{header: http.Header{}}
				handler.ServeHTTP(&w, req.Clone(req.Context()))
				if w.status != http.StatusOK {
					b.Fatalf("status %d", w.status)
				}
			}
			b.ReportMetric(float64((cpuTime(b)-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}
