package scenario_test

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"testing"

	"sandbank/app/apptest"
	"sandbank/assets"
	"sandbank/bank"
	"sandbank/bank/scenario"
)

// historyCount is how many transactions the generated-history tests ask
// for: 200,000, or SANDBANK_HISTORY_TRANSACTIONS (1000000 for the run of
// docs/BENCHMARKS.md).
func historyCount(t *testing.T) int {
	t.Helper()
	n := 200_000
	if v := os.Getenv("SANDBANK_HISTORY_TRANSACTIONS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > bank.MaxHistoryCount {
			t.Fatalf("SANDBANK_HISTORY_TRANSACTIONS=%q: give a number of transactions up to %d", v, bank.MaxHistoryCount)
		}
	}
	return n
}

// historyBytes is what a generated transaction takes at least in a
// scenario export (about 460 bytes), the measure the heap is held to: the
// heap may grow by half of what the history takes in that form, which
// leaves room for the batch being stored (about 22 MiB at any count) and
// none for the history held whole (above 1 KiB a transaction).
const historyBytes = 400

// TestHistory_ScenarioGeneratesInFlatMemory loads the example scenario
// whose account asks for a generated history, with 200,000 transactions
// instead of 100,000: they are generated and stored a chunk at a time,
// and the heap never grows by half of what they take in an export.
func TestHistory_ScenarioGeneratesInFlatMemory(t *testing.T) {
	n := historyCount(t)
	doc, err := assets.Scenarios.ReadFile("scenarios/account-100k-transactions.json")
	if err != nil {
		t.Fatal(err)
	}
	doc = bytes.Replace(doc, []byte(`"count": 100000`), []byte(`"count": `+strconv.Itoa(n)), 1)
	s, _ := newBank(t)
	watch := apptest.WatchHeap()
	counts, err := scenario.Import(s.Sandbox, bytes.NewReader(doc))
	base, peak := watch.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if counts.Transactions != n {
		t.Fatalf("%d transactions generated, want %d", counts.Transactions, n)
	}
	t.Logf("%d transactions generated; heap %d MiB before, at most %d MiB during", n, base>>20, peak>>20)
	if grew := int64(peak) - int64(base); grew > int64(n)*historyBytes/2 {
		t.Errorf("the heap grew by %d MiB for a history of %d transactions: it holds the history", grew>>20, n)
	}
}

// TestHistory_GenerateInFlatMemory generates transactions on an account
// as the window's Generate does (Sandbox.GenerateTransactions), with the
// same bound on the heap.
func TestHistory_GenerateInFlatMemory(t *testing.T) {
	n := historyCount(t)
	s, _ := newBank(t)
	accounts, err := s.Sandbox.Accounts()
	if err != nil {
		t.Fatal(err)
	}
	watch := apptest.WatchHeap()
	var reported []int
	done, err := s.Sandbox.GenerateTransactions(context.Background(), accounts[0].ID, "business", n, func(done int) { reported = append(reported, done) })
	base, peak := watch.Stop()
	if err != nil || done != n || len(reported) == 0 || reported[len(reported)-1] != n {
		t.Fatalf("generated %d of %d (progress %v): %v", done, n, reported, err)
	}
	t.Logf("%d transactions generated; heap %d MiB before, at most %d MiB during", n, base>>20, peak>>20)
	if grew := int64(peak) - int64(base); grew > int64(n)*historyBytes/2 {
		t.Errorf("the heap grew by %d MiB for %d generated transactions: it holds them", grew>>20, n)
	}
	page, err := s.Sandbox.Transactions(accounts[0].ID, bank.TxQuery{Limit: 1})
	if err != nil || page.Total < n {
		t.Fatalf("the account holds %d transactions after generating %d: %v", page.Total, n, err)
	}
}
