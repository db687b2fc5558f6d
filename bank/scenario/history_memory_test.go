package scenario_test

import (
	"bytes"
	"context"
	"strconv"
	"testing"

	"sandbank/app/apptest"
	"sandbank/assets"
	"sandbank/bank"
	"sandbank/bank/scenario"
)

// historyBytes is what a generated transaction takes at least in a
// scenario export (about 460 bytes), the measure the heap is held to
// (apptest.HeapBudget): a history held whole takes above 1 KiB a
// transaction.
const historyBytes = 400

// TestHistory_ScenarioGeneratesInFlatMemoryAtScale loads the example scenario
// whose account asks for a generated history, with 200,000 transactions
// instead of 100,000 (apptest.Records): they are generated and stored a chunk at a time,
// and the heap never grows by a quarter of what they take in an export
// (apptest.HeapBudget), with the garbage a load's GOGC allows.
func TestHistory_ScenarioGeneratesInFlatMemoryAtScale(t *testing.T) {
	apptest.AtScale(t)
	n := apptest.Records(t, "SANDBANK_HISTORY_TRANSACTIONS", 200_000)
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
	// A load collects at LoadGCPercent, so its garbage takes that much more.
	if grew := int64(peak) - int64(base); grew > apptest.HeapBudget(int64(n)*historyBytes)*scenario.LoadGCPercent/100 {
		t.Errorf("the heap grew by %d MiB for a history of %d transactions: it holds the history", grew>>20, n)
	}
}

// TestHistory_GenerateInFlatMemoryAtScale generates transactions on an account
// as the window's Generate does (Sandbox.GenerateTransactions), with the
// same bound on the heap.
func TestHistory_GenerateInFlatMemoryAtScale(t *testing.T) {
	apptest.AtScale(t)
	n := apptest.Records(t, "SANDBANK_HISTORY_TRANSACTIONS", 200_000)
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
	if grew := int64(peak) - int64(base); grew > apptest.HeapBudget(int64(n)*historyBytes) {
		t.Errorf("the heap grew by %d MiB for %d generated transactions: it holds them", grew>>20, n)
	}
	page, err := s.Sandbox.Transactions(accounts[0].ID, bank.TxQuery{Limit: 1})
	if err != nil || page.Total < n {
		t.Fatalf("the account holds %d transactions after generating %d: %v", page.Total, n, err)
	}
}
