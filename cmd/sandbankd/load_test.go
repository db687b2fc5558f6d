package main

import (
	"encoding/json"
	"fmt"
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
// one: zero errors. On a run of 30 s or more, the process's resident
// memory at the end may be at most 20% above what it was once the load
// had run for a tenth of the time.
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
	d := startDaemon(t, data)
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
	idle, err := residentKB(pid)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	deadline := start.Add(duration)
	var warm int64
	var warmErr error
	warmDone := make(chan struct{})
	go func() {
		time.Sleep(duration / 10)
		warm, warmErr = residentKB(pid)
		close(warmDone)
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
			t0 := time.Now()
			a, err := op.do("POST", "/v1/sandbox/batch-runs", nil)
			batch.latency["batch run"] = append(batch.latency["batch run"], time.Since(t0))
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
				t0 := time.Now()
				a, err := c.do(method, path, body, headers...)
				r.latency[kind] = append(r.latency[kind], time.Since(t0))
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
	end, err := residentKB(pid)
	t.Logf("resident memory at the end, by kind: %s", residentKinds(pid))
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
	growth := float64(end-warm) / float64(warm) * 100
	t.Logf("resident memory: %d MiB idle, %d MiB after %s of load, %d MiB at the end (%+.1f%%)", idle>>10, warm>>10, (duration / 10).Round(time.Second), end>>10, growth)
	for i, e := range errs {
		if i == 10 {
			t.Errorf("… and %d more errors", len(errs)-10)
			break
		}
		t.Errorf("error: %s", e)
	}
	if duration >= 30*time.Second && growth > 20 {
		t.Errorf("resident memory grew %.1f%% under steady load, more than 20%%", growth)
	}
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

// residentKB reads a process's resident set size (VmRSS) in KiB.
func residentKB(pid int) (int64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read the process's memory: %w", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// residentKinds tells the parts of a process's resident set: anonymous
// memory (the Go heap and stacks) and file pages (the mapped data file).
func residentKinds(pid int) string {
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	var parts []string
	for _, line := range strings.Split(string(status), "\n") {
		for _, kind := range []string{"RssAnon:", "RssFile:"} {
			if v, ok := strings.CutPrefix(line, kind); ok {
				parts = append(parts, kind+" "+strings.TrimSpace(v))
			}
		}
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
