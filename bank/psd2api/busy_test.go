package psd2api_test

import (
	"strconv"
	"testing"
	"time"

	"sandbank/bank"
)

// historyScenario is a scenario of one account with count generated
// transactions: an import that takes a while.
func historyScenario(count int) map[string]any {
	return map[string]any{
		"format":    "sandbank-scenario/1",
		"customers": []any{map[string]any{"customerNumber": "01017012345", "name": "Busy Person", "type": "private"}},
		"accounts": []any{map[string]any{
			"customerNumber": "01017012345", "accountName": "Busy", "bban": "86011117947", "currency": "NOK",
			"product": "Brukskonto", "cashAccountType": "CACC", "creditLine": 0, "balances": []any{},
			"history": map[string]any{"profile": "everyday", "count": count},
		}},
	}
}

// While a scenario import runs, writes are refused at once with 503 and a
// Retry-After the client can follow, reads answer from the data as it was,
// and the write changed nothing; once the import ends, writes go through.
func TestBusy_WritesDuringAnImportAreRefusedWithRetryAfter(t *testing.T) {
	b, tpp := setup(t)
	customer := map[string]string{"customerNumber": "55555555555", "name": "Late Writer", "type": "private"}
	for count := 20_000; ; count *= 2 {
		if count > bank.MaxHistoryCount {
			t.Fatal("every import ended before a write reached the bank: no write was refused as busy")
		}
		done := make(chan int)
		go func() { done <- b.Do(b.Operator(), "PUT", "/v1/sandbox/scenario", historyScenario(count)).Status }()
		deadline := time.Now().Add(60 * time.Second)
		for _, on := b.App.Bank.Ops.Importing(); !on && time.Now().Before(deadline); _, on = b.App.Bank.Ops.Importing() {
			time.Sleep(time.Millisecond)
		}
		r := b.Do(tpp, "POST", "/v1/sandbox/customers", customer)
		read := b.Do(tpp, "GET", "/v1/sandbox/customers", nil)
		if status := <-done; status != 200 {
			t.Fatalf("import of %d transactions: status %d", count, status)
		}
		if r.Status == 201 {
			t.Logf("the import of %d transactions ended before the write: again, larger", count)
			expect(t, b.Do(tpp, "DELETE", "/v1/sandbox/customers/55555555555", nil), 204, "")
			continue
		}
		e := expect(t, r, 503, "SYSTEM_ERROR")
		secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
		if err != nil || secs < 1 || secs > 300 {
			t.Fatalf("Retry-After %q, want whole seconds in 1..300", r.Header.Get("Retry-After"))
		}
		t.Logf("refused: %s (Retry-After %d)", e.Message, secs)
		expect(t, read, 200, "")
		break
	}
	var customers []map[string]any
	b.Do(tpp, "GET", "/v1/sandbox/customers", nil).JSON(t, &customers)
	if len(customers) != 1 || customers[0]["customerNumber"] != "01017012345" {
		t.Fatalf("after the import: customers %v, want only the scenario's", customers)
	}
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/customers", customer), 201, "")
}
