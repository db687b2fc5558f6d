package psd2api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"sandbank/app/apptest"
	"sandbank/bank/pki"
)

// BenchmarkPaymentCreationFresh measures signed NDCT payment initiations
// as a TPP sends them: every request carries an X-Request-ID of its own
// and a signature of its own, so the bank verifies each one afresh and
// notes no replay. The requests of a phase are signed before the phase
// is timed, so the figures are the bank's work and loopback, not the
// client's RSA signing. Each phase is one b.Loop iteration; run it with
// -benchtime 1x and repeat it with -count, or take turns with another
// build (docs/BENCHMARKS.md, "Payments").
//
// one-client sends 300 creations one after the other and reports the
// median and the 99th percentile of their round trips, and the requests
// per second of the phase; clients-32 sends 3,000 from 32 goroutines and
// reports the requests per second, with a hello-world server's rate over
// the same loopback and client measured just before. Both report the
// process's CPU time per creation (server and clients, the signing
// before the phase left out), which a busy machine blurs less than it
// blurs the rates.
func BenchmarkPaymentCreationFresh(b *testing.B) {
	bk := apptest.Start(b, apptest.Options{})
	tpp := bk.NewTPP("933012867", 0, pki.RolePI)
	body, _ := json.Marshal(ndct("100.00", ibanT1Bruk, ibanT2Bruk))
	signed := func(count int) []*http.Request {
		reqs := make([]*http.Request, count)
		var next atomic.Int64
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for i := int(next.Add(1)) - 1; i < count; i = int(next.Add(1)) - 1 {
					req := bk.Request("POST", ndctPath+"?allowLogicalDuplicate=true", body, payHeaders...)
					req.Header.Set("X-Request-ID", uuid.NewString())
					if err := tpp.Signer.SignRequest(req, body); err != nil {
						panic(err)
					}
					reqs[i] = req
				}
			})
		}
		wg.Wait()
		return reqs
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	do := func(req *http.Request) error {
		req.Body = io.NopCloser(bytes.NewReader(body))
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("status %d, want 201", resp.StatusCode)
		}
		return nil
	}
	for _, req := range signed(20) { // warm-up: connections, caches
		if err := do(req); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("one-client", func(b *testing.B) {
		var took []time.Duration
		var elapsed, cpu time.Duration
		for b.Loop() {
			b.StopTimer()
			reqs := signed(300)
			b.StartTimer()
			start, before := time.Now(), cpuTime(b)
			for _, req := range reqs {
				t0 := time.Now()
				if err := do(req); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(t0))
			}
			elapsed += time.Since(start)
			cpu += cpuTime(b) - before
		}
		slices.Sort(took)
		ms := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))].Microseconds()) / 1000 }
		b.ReportMetric(ms(0.5), "p50-ms")
		b.ReportMetric(ms(0.99), "p99-ms")
		b.ReportMetric(float64(len(took))/elapsed.Seconds(), "req/s")
		b.ReportMetric(float64(cpu.Microseconds())/float64(len(took)), "cpu-µs/req")
	})
	b.Run("clients-32", func(b *testing.B) {
		const clients, count = 32, 3000
		helloReq, _ := http.NewRequest("GET", helloServer(b)+"/", nil)
		var hello, create, cpu float64
		for b.Loop() {
			b.StopTimer()
			reqs := signed(count)
			b.StartTimer()
			var err error
			if hello, err = load(client, helloReq, nil, 200, clients, time.Second); err != nil {
				b.Fatal(err)
			}
			var next atomic.Int64
			var failure atomic.Value
			start, before := time.Now(), cpuTime(b)
			var wg sync.WaitGroup
			for range clients {
				wg.Go(func() {
					for i := next.Add(1) - 1; i < count; i = next.Add(1) - 1 {
						if err := do(reqs[i]); err != nil {
							failure.Store(err)
							return
						}
					}
				})
			}
			wg.Wait()
			if err, ok := failure.Load().(error); ok {
				b.Fatal(err)
			}
			create = count / time.Since(start).Seconds()
			cpu = float64((cpuTime(b) - before).Microseconds()) / count
		}
		b.ReportMetric(hello, "hello-req/s")
		b.ReportMetric(create, "create-req/s")
		b.ReportMetric(100*create/hello, "create-%-of-hello")
		b.ReportMetric(cpu, "cpu-µs/req")
	})
}
