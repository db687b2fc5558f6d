package app_test

import (
	"os"
	"testing"

	"sandbank/app"
	"sandbank/app/apptest"
	"sandbank/bank/scenario"
)

// TestSaveScenario_StreamsInFlatMemoryAtScale saves, as the window's Save does,
// a bank whose account holds 200,000 transactions more than the known
// state (apptest.Records): the heap never grows by a quarter of the file
// (apptest.HeapBudget), and the file holds every transaction.
func TestSaveScenario_StreamsInFlatMemoryAtScale(t *testing.T) {
	apptest.AtScale(t)
	n := apptest.Records(t, "SANDBANK_EXPORT_TRANSACTIONS", 200_000)
	a := open(t, app.Config{})
	path, err := a.SaveScenario("known", "")
	if err != nil {
		t.Fatal(err)
	}
	known := summarise(t, path)
	_ = a.Close()

	a = open(t, app.Config{DataPath: apptest.BigFixture(t, n)})
	watch := apptest.WatchHeap()
	path, err = a.SaveScenario("big", "saved by the window")
	base, peak := watch.Stop()
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes saved; heap %d MiB before, at most %d MiB during", info.Size(), base>>20, peak>>20)
	if grew := int64(peak) - int64(base); grew > apptest.HeapBudget(info.Size()) {
		t.Errorf("the heap grew by %d MiB while the window saved %d MiB: it holds the scenario", grew>>20, info.Size()>>20)
	}
	saved := summarise(t, path)
	if saved.Note != "saved by the window" || saved.Counts.Transactions != n+known.Counts.Transactions {
		t.Errorf("the saved file: note %q, %d transactions, want %d", saved.Note, saved.Counts.Transactions, n+known.Counts.Transactions)
	}
}

// summarise reads the scenario file at path as a stream.
func summarise(t *testing.T, path string) scenario.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	s, err := scenario.Summarise(f)
	if err != nil || s.Err != nil {
		t.Fatalf("%s does not read back: %v %v", path, err, s.Err)
	}
	return s
}
