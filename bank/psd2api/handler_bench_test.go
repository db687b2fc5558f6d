package psd2api_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank/pki"
)

// discard is a ResponseWriter that keeps the status and drops the body, so
// that a benchmark measures the server's work only.
type discard struct {
	header http.Header
	status int
	n      int
}

func (d *discard) Header() http.Header { return d.header }
func (d *discard) Write(b []byte) (int, error) {
	d.n += len(b)
	return len(b), nil
}
func (d *discard) WriteHeader(status int) { d.status = status }

// cpuTime is the CPU time the process has used, user and system, on
// every thread (in a benchmark with a client in process, the servers' and
// the clients' together).
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// BenchmarkHandler measures the server's work for one request, in
// process: the bank's handler (request log, signature check, access
// rules, storage read, JSON, the bank's RSA signature on the response)
// called directly, without a network, a client or HTTP parsing, over the
// 1,000,000-transaction data file. Besides time per request it reports
// the process's CPU time per request (all threads, the garbage collector
// too), allocations and the size of the answer.
func BenchmarkHandler(b *testing.B) {
	path := apptest.BigFixture(b, 1_000_000)
	bk := apptest.Start(b, apptest.Options{DataPath: path})
	tpp := bk.NewTPP("933012867", 0, pki.RoleAI)
	user := psuOf(bk.Consent(tpp, t1Number, "", nil))
	handler := bk.Handler()
	signed := func(path string, extra ...string) *http.Request {
		req := httptest.NewRequest("GET", bk.URL+path, nil)
		req.Header.Set("X-Request-ID", "bench")
		for _, h := range user.headers(extra...) {
			name, value, _ := bytes.Cut([]byte(h), []byte(":"))
			req.Header.Set(string(name), string(bytes.TrimSpace(value)))
		}
		if err := tpp.Signer.SignRequest(req, nil); err != nil {
			b.Fatal(err)
		}
		return req
	}
	page := "/v1/accounts/" + t1Brukskonto + "/transactions"
	cases := []struct {
		name string
		req  *http.Request
	}{
		{"ais-transactions-limit200-of-1M", signed(page+"?limit=200", "x-accept-fix: longer-names")},
		{"ais-transactions-limit200-amount-as-string", signed(page+"?limit=200&withBalance=true", "x-accept-fix: longer-names,amount-as-string")},
		{"ais-balances", signed("/v1/accounts/" + t1Brukskonto + "/balances")},
		{"ais-accounts-withBalance", signed("/v1/accounts?withBalance=true")},
		{"sandbox-transactions-limit200-of-1M", signed("/v1/sandbox/accounts/" + t1Brukskonto + "/transactions?limit=200")},
		{"sandbox-accounts", signed("/v1/sandbox/accounts")},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var w discard
			b.ReportAllocs()
			cpu := cpuTime(b)
			for b.Loop() {
				w = discard{header: http.Header{}}
				handler.ServeHTTP(&w, c.req.Clone(c.req.Context()))
				if w.status != http.StatusOK {
					b.Fatalf("status %d", w.status)
				}
			}
			b.ReportMetric(float64((cpuTime(b)-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(w.n), "body-bytes")
		})
	}
}
