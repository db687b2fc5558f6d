package psd2api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank/pki"
)

// BenchmarkPaymentCreation measures signed NDCT payment initiations over
// loopback: validation, the duplicate check, the payment and its
// authorisation stored in one fsynced transaction, and the signed answer.
// The same signed request is re-sent with allowLogicalDuplicate=true.
func BenchmarkPaymentCreation(b *testing.B) {
	bk := apptest.Start(b, apptest.Options{})
	tpp := bk.NewTPP("933012867", 0, pki.RolePI)
	body, _ := json.Marshal(ndct("100.00", ibanT1Bruk, ibanT2Bruk))
	req := bk.Request("POST", ndctPath+"?allowLogicalDuplicate=true", body, payHeaders...)
	if err := tpp.Signer.SignRequest(req, body); err != nil {
		b.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.Run("one-client", func(b *testing.B) {
		timed(b, client, req, body, 201)
	})
	// The process's CPU time per creation (server and clients) tells
	// what a run on a machine shared with other work cannot: how much
	// of two vCPUs a creation takes, whatever was left to this process.
	b.Run("throughput-32-clients", func(b *testing.B) {
		const clients, d = 32, 3 * time.Second
		helloReq, _ := http.NewRequest("GET", helloServer(b)+"/", nil)
		var hello, create, cpu float64
		for b.Loop() {
			var err error
			if hello, err = load(client, helloReq, nil, 200, clients, d); err != nil {
				b.Fatal(err)
			}
			before := cpuTime(b)
			if create, err = load(client, req, body, 201, clients, d); err != nil {
				b.Fatal(err)
			}
			cpu = float64((cpuTime(b) - before).Microseconds()) / (create * d.Seconds())
		}
		b.ReportMetric(hello, "hello-req/s")
		b.ReportMetric(create, "create-req/s")
		b.ReportMetric(100*create/hello, "create-%-of-hello")
		b.ReportMetric(cpu, "create-cpu-µs/req")
	})
}

// BenchmarkPaymentHandler measures the server's work for one signed NDCT
// payment initiation, in process (see BenchmarkHandler): time, the
// process's CPU time and allocations per request. The time includes the
// wait for the commit's fsync; the CPU time does not.
func BenchmarkPaymentHandler(b *testing.B) {
	bk := apptest.Start(b, apptest.Options{})
	tpp := bk.NewTPP("933012867", 0, pki.RolePI)
	body, _ := json.Marshal(ndct("100.00", ibanT1Bruk, ibanT2Bruk))
	req := httptest.NewRequest("POST", bk.URL+ndctPath+"?allowLogicalDuplicate=true", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-ID", "bench")
	for _, h := range payHeaders {
		name, value, _ := strings.Cut(h, ":")
		req.Header.Set(name, strings.TrimSpace(value))
	}
	if err := tpp.Signer.SignRequest(req, body); err != nil {
		b.Fatal(err)
	}
	handler := bk.Handler()
	var w discard
	b.ReportAllocs()
	cpu := cpuTime(b)
	for b.Loop() {
		w = discard{header: http.Header{}}
		r := req.Clone(req.Context())
		r.Body = io.NopCloser(bytes.NewReader(body))
		handler.ServeHTTP(&w, r)
		if w.status != http.StatusCreated {
			b.Fatalf("status %d", w.status)
		}
	}
	b.ReportMetric(float64((cpuTime(b)-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
}
