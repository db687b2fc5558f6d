package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sandbank/bank"
)

// The bounded load test: 64 clients on loopback send mixed traffic
// (account information, payments with their SCA, sandbox writes) to a real
// sandbankd for SANDBANK_LOAD_SECONDS (3 by default, so that every test
// run has it; `make load` runs 60). Every answer must be the expected
// one: zero errors. On a run of 30 s or more, the live heap at the end
// (see sampleMemory) may be at most 20% above what it was at the warm
// point, once the load has run for a tenth of the time; the resident set
// is logged beside it.
// SANDBANK_LOAD_PROFILES=DIR writes the bank's heap profiles at the warm
// point and the end to DIR.
const (
	loadClients  = 64
	loadPSU      = "13039319955"     // Test Testperson 1
	loadAccount  = "NO3815030123457" // their Brukskonto
	loadCreditor = "NO3015030234569" // Test Testperson 2's Brukskonto
)

// loadKinds are the operations of the mix, in the order a client cycles
// through them.
var loadKinds = []string{"accounts", "balances", "transactions", "create payment", "payment SCA", "payment status", "sandbox write"}

// loadResult is what one client measured.
type loadResult struct {
	latency map[string][]time.Duration
	errors  []string
}

func TestLoad_MixedTrafficFrom64Clients(t *testing.T) {
	seconds := 3
	if v := os.Getenv("SANDBANK_LOAD_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("SANDBANK_LOAD_SECONDS=%q: give a whole number of seconds", v)
		}
		seconds = n
	}
	duration := time.Duration(seconds) * time.Second
	dir := t.TempDir()
	data := filepath.Join(dir, "sandbank.db")
	signer := newSigner(t, dir, data, "Load TPP", "--roles", "PSP_AI,PSP_PI")
	// The profiler tells the live heap, which the growth test compares.
	d := startDaemon(t, data, "--pprof", "127.0.0.1:0")
	profiler := profilerURL(t, d.Stdout())
	profDir := os.Getenv("SANDBANK_LOAD_PROFILES")
	c := newAPIClient(d.URLs[0], signer)
	c.http.Transport = &http.Transport{MaxIdleConnsPerHost: loadClients}

	// The sandbox clock stands at 10:30 on a banking day, so that the
	// payments are due today and the batch runs settle them, whatever day
	// the test runs on.
	day := bank.NextBankingDay(bank.DateOf(time.Now()).AddDays(1))
	morning := time.Date(day.Year, day.Month, day.Day, 10, 30, 0, 0, bank.Oslo)
	op := newAPIClient(d.URLs[0], runningOperator(t, data))
	op.must(t, 200, "PUT", "/v1/sandbox/clock", map[string]string{"now": morning.Format(time.RFC3339)}, nil)

	// The PSU grants every account; the same PSU-ID pays.
	psuID := approvedPSU(t, c, "POST", "/v1/consents", loadPSU)
	var accounts struct {
		Accounts []struct {
			ResourceID string `json:"resourceId"`
			IBAN       string `json:"iban"`
		} `json:"accounts"`
	}
	psu := []string{"PSU-ID: " + psuID, "PSU-IP-Address: 192.0.2.10", "TPP-Session-ID: load", "TPP-Redirect-URI: https://tpp.example/cb"}
	c.must(t, 200, "GET", "/v1/accounts", nil, &accounts, psu...)
	var aisID string
	for _, a := range accounts.Accounts {
		if a.IBAN == loadAccount {
			aisID = a.ResourceID
		}
	}
	var sandboxAccounts []struct {
		ID   string `json:"id"`
		IBAN string `json:"iban"`
	}
	c.must(t, 200, "GET", "/v1/sandbox/accounts", nil, &sandboxAccounts)
	var mockID string
	for _, a := range sandboxAccounts {
		if a.IBAN == loadCreditor {
			mockID = a.ID
		}
	}
	if aisID == "" || mockID == "" {
		t.Fatalf("known-state accounts not found: %+v %+v", accounts, sandboxAccounts)
	}
	yesterday := day.AddDays(-1).String()

	pid := d.Cmd.Process.Pid
	idle, err := sampleMemory(pid, profiler, op, "", "")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	deadline := start.Add(duration)
	// gate lets the warm point stop the load: each request holds it for
	// reading, the warm point for writing, so that the bank's memory is
	// read with no request in flight.
	var gate sync.RWMutex
	var warm memorySample
	var warmErr error
	warmDone := make(chan struct{})
	go func() {
		defer close(warmDone)
		time.Sleep(duration / 10)
		gate.Lock()
		defer gate.Unlock()
		warm, warmErr = sampleMemory(pid, profiler, op, profDir, "warm")
		warm.at = time.Since(start)
	}()

	results := make([]loadResult, loadClients)
	var wg sync.WaitGroup
	// The operator settles the approved payments every two seconds, as a
	// test suite's "run now" would; without it the unsettled payments
	// pile up as pending items that every transactions read returns.
	var batch loadResult
	wg.Go(func() {
		batch.latency = map[string][]time.Duration{}
		for time.Now().Add(2 * time.Second).Before(deadline) {
			time.Sleep(2 * time.Second)
			gate.RLock()
			t0 := time.Now()
			a, err := op.do("POST", "/v1/sandbox/batch-runs", nil)
			batch.latency["batch run"] = append(batch.latency["batch run"], time.Since(t0))
			gate.RUnlock()
			if err != nil || a.status != 200 {
				batch.errors = append(batch.errors, fmt.Sprintf("POST /v1/sandbox/batch-runs: %v %d %s", err, a.status, a.body))
			}
		}
	})
	for i := range loadClients {
		wg.Go(func() {
			r := loadResult{latency: map[string][]time.Duration{}}
			var payment, auth string
			timed := func(kind string, want int, method, path string, body any, headers ...string) answer {
				gate.RLock()
				t0 := time.Now()
				a, err := c.do(method, path, body, headers...)
				r.latency[kind] = append(r.latency[kind], time.Since(t0))
				gate.RUnlock()
				switch {
				case err != nil:
					r.errors = append(r.errors, fmt.Sprintf("%s %s: %v", method, path, err))
				case a.status != want:
					r.errors = append(r.errors, fmt.Sprintf("%s %s: %d %s", method, path, a.status, a.body))
				}
				return a
			}
			for n := 0; time.Now().Before(deadline); n++ {
				tag := fmt.Sprintf("load c%02d n%05d", i, n)
				switch loadKinds[n%len(loadKinds)] {
				case "accounts":
					timed("accounts", 200, "GET", "/v1/accounts?withBalance=true", nil, psu...)
				case "balances":
					timed("balances", 200, "GET", "/v1/accounts/"+aisID+"/balances", nil, psu...)
				case "transactions":
					timed("transactions", 200, "GET", "/v1/accounts/"+aisID+"/transactions?bookingStatus=both", nil, psu...)
				case "create payment":
					a := timed("create payment", 201, "POST", "/v1/payments/norwegian-domestic-credit-transfers", map[string]any{
						"instructedAmount": map[string]string{"amount": "1.25", "currency": "NOK"},
						"debtorAccount":    map[string]string{"iban": loadAccount}, "creditorAccount": map[string]string{"iban": loadCreditor},
						"creditorName": "Mottaker AS", "remittanceInformationUnstructured": tag,
					}, psu...)
					payment, auth = paymentIDs(a.body)
				case "payment SCA":
					if auth != "" {
						timed("payment SCA", 200, "POST", "/v1/sandbox/sca/"+auth, map[string]string{"nationalId": loadPSU, "decision": "approve"})
					}
				case "payment status":
					if payment != "" {
						timed("payment status", 200, "GET", "/v1/payments/norwegian-domestic-credit-transfers/"+payment+"/status", nil, psu...)
					}
				case "sandbox write":
					timed("sandbox write", 201, "POST", "/v1/sandbox/accounts/"+mockID+"/transactions", []any{map[string]any{
						"amount": 10.5, "currency": "NOK", "valueDate": yesterday, "bookingDate": yesterday,
						"remittanceInformationUnstructured": tag, "creditorId": "", "creditorName": "Load Test",
						"creditorAccount": map[string]string{"iban": loadCreditor}, "ultimateCreditor": "", "debtorName": "Outside Payer",
						"debtorAccount": map[string]string{"bban": "86011117947"}, "ultimateDebtor": "", "purposeCode": "OTHR",
						"bankTransactionCode": "PMNT-RCDT-ESCT",
					}})
				}
			}
			results[i] = r
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	<-warmDone
	end, err := sampleMemory(pid, profiler, op, profDir, "end")
	if err != nil || warmErr != nil {
		t.Fatal(err, warmErr)
	}

	all := map[string][]time.Duration{}
	var errs []string
	total := 0
	for _, r := range append(results, batch) {
		for kind, l := range r.latency {
			all[kind] = append(all[kind], l...)
			all["all"] = append(all["all"], l...)
			total += len(l)
		}
		errs = append(errs, r.errors...)
	}
	t.Logf("%d clients, %s: %d requests, %.0f req/s, %d errors", loadClients, elapsed.Round(time.Millisecond), total, float64(total)/elapsed.Seconds(), len(errs))
	for _, kind := range append(append([]string{"all"}, loadKinds...), "batch run") {
		l := all[kind]
		slices.Sort(l)
		if len(l) == 0 {
			continue
		}
		t.Logf("  %-15s %7d requests  p50 %7.2f ms  p99 %7.2f ms", kind, len(l), ms(l[len(l)/2]), ms(l[len(l)*99/100]))
	}
	growth := float64(end.heap-warm.heap) / float64(warm.heap) * 100
	t.Logf("resident memory: idle %s; after %s of load (the warm point) %s; at the end %s", idle, warm.at.Round(time.Second), warm, end)
	t.Logf("live heap: %+.1f%% from the warm point to the end", growth)
	for i, e := range errs {
		if i == 10 {
			t.Errorf("… and %d more errors", len(errs)-10)
			break
		}
		t.Errorf("error: %s", e)
	}
	if duration >= 30*time.Second && growth > 20 {
		t.Errorf("the live heap grew %.1f%% under steady load, more than 20%%", growth)
	}
}

// memorySample is a bank process's memory at one moment.
type memorySample struct {
	at time.Duration // since the load started
	// rssKB is the resident set, anonKB its anonymous part (the Go heap,
	// stacks and runtime) and fileKB its file pages (the mapped data
	// file), from /proc.
	rssKB, anonKB, fileKB int64
	// heap is the live heap, in bytes, the request log emptied: what the
	// Go runtime holds in use right after a collection (HeapAlloc after
	// the profiler's gc=1).
	heap int64
}

func (m memorySample) String() string {
	return fmt.Sprintf("%d MiB resident (anonymous %d MiB, file %d MiB), live heap %.1f MiB", m.rssKB>>10, m.anonKB>>10, m.fileKB>>10, float64(m.heap)/(1<<20))
}

// sampleMemory reads a bank's resident set, clears its request log (as
// the operator op) and reads the live heap through the profiler at
// profiler (the heap profile with gc=1, whose text form ends with the
// runtime's MemStats); with dir set, it writes that heap profile there as
// NAME-heap.pb.gz, for go tool pprof. Call it with no request in flight.
//
// The resident set follows the collector's cycle: it climbs towards twice
// the live heap (GOGC=100) and falls only as the runtime returns pages,
// so two readings of it differ by half the heap without a byte leaking.
// The live heap right after a collection does not, once the requests in
// flight (64 answers being built, some of them pages of transactions) are
// done and the request log, which fills towards its bound as the load
// runs, is emptied: what remains is what a leak would grow.
func sampleMemory(pid int, profiler string, op apiClient, dir, name string) (memorySample, error) {
	var m memorySample
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m, fmt.Errorf("read the process's memory: %w", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		for field, into := range map[string]*int64{"VmRSS:": &m.rssKB, "RssAnon:": &m.anonKB, "RssFile:": &m.fileKB} {
			if v, ok := strings.CutPrefix(line, field); ok {
				*into, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			}
		}
	}
	if a, err := op.do("DELETE", "/v1/sandbox/requests", nil); err != nil || a.status != http.StatusNoContent {
		return m, fmt.Errorf("DELETE /v1/sandbox/requests: %v %d %s", err, a.status, a.body)
	}
	if dir != "" {
		raw, err := fetch(profiler + "heap?gc=1")
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name+"-heap.pb.gz"), raw, 0o644)
		}
		if err != nil {
			return m, err
		}
	}
	text, err := fetch(profiler + "heap?gc=1&debug=1")
	if err != nil {
		return m, err
	}
	i := strings.Index(string(text), "\n# HeapAlloc = ")
	if i < 0 {
		return m, fmt.Errorf("the heap profile has no HeapAlloc:\n%s", text)
	}
	heap, _, _ := strings.Cut(string(text[i+len("\n# HeapAlloc = "):]), "\n")
	if m.heap, err = strconv.ParseInt(heap, 10, 64); err != nil {
		return m, fmt.Errorf("the heap profile's HeapAlloc %q: %w", heap, err)
	}
	return m, nil
}

// fetch GETs url and returns the body of its 200 answer.
func fetch(url string) ([]byte, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	return body, err
}

// approvedPSU starts an SCA with a signed request and approves it as the
// given customer with the automated-SCA endpoint; it returns the PSU-ID of
// the redirect.
func approvedPSU(t *testing.T, c apiClient, method, path, nationalID string) string {
	t.Helper()
	var started struct {
		Links map[string]struct {
			Href string `json:"href"`
		} `json:"_links"`
	}
	c.must(t, 201, method, path, nil, &started, "TPP-Redirect-URI: https://tpp.example/cb", "TPP-Session-ID: setup")
	href := started.Links["scaRedirect"].Href
	var redirect struct {
		Redirect string `json:"redirect"`
	}
	_, rest, _ := strings.Cut(href, "/sca/")
	id, _, _ := strings.Cut(rest, "/") // the SCA page is /sca/{id}/{secret}
	c.must(t, 200, "POST", "/v1/sandbox/sca/"+id, map[string]string{"nationalId": nationalID, "decision": "approve"}, &redirect)
	u, err := url.Parse(redirect.Redirect)
	if err != nil || u.Query().Get("psu-id") == "" {
		t.Fatalf("no psu-id in %q", redirect.Redirect)
	}
	return u.Query().Get("psu-id")
}

// paymentIDs reads the paymentId and the authorisation id of a payment
// creation's answer.
func paymentIDs(body []byte) (payment, auth string) {
	var c struct {
		PaymentID string `json:"paymentId"`
		Links     map[string]struct {
			Href string `json:"href"`
		} `json:"_links"`
	}
	if json.Unmarshal(body, &c) != nil {
		return "", ""
	}
	h := c.Links["scaStatus"].Href
	return c.PaymentID, h[strings.LastIndex(h, "/")+1:]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
