package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sandbank/app/apptest"
	"sandbank/bank/scenario"
)

// TestScenarioSave_DataStreamsInFlatMemoryAtScale saves the scenario of a data
// file with 200,000 transactions more than the known state
// (apptest.Records) with `scenario save FILE --data`, the bank running in
// this process: the heap never grows by a quarter of the file
// (apptest.HeapBudget), the file holds every
// transaction, and no temporary file is left behind.
func TestScenarioSave_DataStreamsInFlatMemoryAtScale(t *testing.T) {
	apptest.AtScale(t)
	n := apptest.Records(t, "SANDBANK_EXPORT_TRANSACTIONS", 200_000)
	dir, spills := t.TempDir(), t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"scenario", "save", "-", "--data", empty}, strings.NewReader(""), &out, &errOut); err != nil {
		t.Fatalf("save the known state: %v %s", err, errOut.String())
	}
	known, err := scenario.Summarise(bytes.NewReader(out.Bytes()))
	if err != nil || known.Err != nil {
		t.Fatalf("the known state: %v %v", err, known.Err)
	}
	data := apptest.BigFixture(t, n)
	t.Setenv("TMPDIR", spills) // where the bank spools its answer
	file := filepath.Join(dir, "saved.json")
	out.Reset()
	errOut.Reset()
	watch := apptest.WatchHeap()
	err = run(context.Background(), []string{"scenario", "save", file, "--data", data, "--note", "in process"}, strings.NewReader(""), &out, &errOut)
	base, peak := watch.Stop()
	if err != nil {
		t.Fatalf("scenario save --data: %v %s", err, errOut.String())
	}
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	size := info.Size()
	t.Logf("%d bytes saved; heap %d MiB before, at most %d MiB during", size, base>>20, peak>>20)
	if !strings.Contains(out.String(), strconv.FormatInt(size, 10)+" bytes") {
		t.Errorf("the command says %q for a file of %d bytes", out.String(), size)
	}
	if grew := int64(peak) - int64(base); grew > apptest.HeapBudget(size) {
		t.Errorf("the heap grew by %d MiB while the command saved %d MiB: it holds the scenario", grew>>20, size>>20)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	summary, err := scenario.Summarise(f)
	_ = f.Close()
	if err != nil || summary.Err != nil || summary.Note != "in process" {
		t.Fatalf("the saved file does not read back: %v %v %+v", err, summary.Err, summary)
	}
	if got, want := summary.Counts.Transactions, n+known.Counts.Transactions; got != want {
		t.Errorf("the saved file holds %d transactions, want %d", got, want)
	}
	if left, _ := os.ReadDir(spills); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}
