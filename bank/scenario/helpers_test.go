package scenario_test

import (
	"path/filepath"
	"testing"
	"time"

	"sandbank/bank"
	"sandbank/bank/scenario"
	"sandbank/storage"
)

// fixedClock is a clock that stands still.
type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// testNow is the moment the scenario tests run at.
var testNow = time.Date(2026, 11, 20, 10, 30, 0, 0, bank.Oslo)

// newBank returns a bank over a fresh data file in the known state.
func newBank(t testing.TB) (*bank.Bank, *storage.DB) {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "sandbank.db"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	s := bank.New(db, fixedClock{testNow})
	if _, err := scenario.Initialize(s.Sandbox); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return s, db
}
