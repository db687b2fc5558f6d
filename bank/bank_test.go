package bank_test

import (
	"bytes"
	"encoding/json"
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

// testNow is the moment the bank tests run at.
var testNow = time.Date(2026, 11, 20, 10, 30, 0, 0, bank.Oslo)

// exportScenario exports the sandbox as a scenario, through its JSON.
func exportScenario(t testing.TB, sb *bank.Sandbox) scenario.Scenario {
	t.Helper()
	var b bytes.Buffer
	if err := scenario.Write(sb, &b, "", ""); err != nil {
		t.Fatal(err)
	}
	var sc scenario.Scenario
	if err := json.Unmarshal(b.Bytes(), &sc); err != nil {
		t.Fatal(err)
	}
	return sc
}

// importScenario imports a scenario built in Go, through its JSON.
func importScenario(t testing.TB, sb *bank.Sandbox, sc scenario.Scenario) (scenario.Counts, error) {
	t.Helper()
	data, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	return scenario.Import(sb, bytes.NewReader(data))
}

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

func TestInitialize_KnownState(t *testing.T) {
	s, _ := newBank(t)
	n, err := scenario.Initialize(s.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	if n.Customers != 4 || n.Accounts != 8 || n.CardAccounts != 2 || n.Agreements != 2 || n.Engagements != 4 {
		t.Fatalf("counts = %+v", n)
	}
	if n.Transactions < 300 || n.CardTransactions < 50 {
		t.Fatalf("too little history: %+v", n)
	}
	t.Logf("counts %+v", n)
}

// A data file written before operatorAccess existed has none stored: its
// bank keeps what concerns every TPP to the operator.
func TestSettings_OldDataFileKeepsTheOperatorBoundary(t *testing.T) {
	_, db := newBank(t)
	old := map[string]any{"trustMode": "any", "requireSignature": true, "responseSigning": "rsa", "batchTimes": []string{"06:00"}, "coverRetryDays": 3,
		"ncbctFee": "250", "exemptionPolicy": "never", "batchMode": "schedule", "requestLog": map[string]int{"maxCount": 2000, "maxBytes": 32 << 20}}
	if err := db.Update(func(tx bank.Tx) error { return tx.PutSetting("settings", old) }); err != nil {
		t.Fatal(err)
	}
	b := bank.New(db, fixedClock{testNow})
	st, err := b.Ops.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if st.OperatorAccess != bank.OperatorOnly || b.Ops.AnyTPPIsOperator() || st.Check() != nil {
		t.Fatalf("an old data file's settings read as operatorAccess %q (any TPP the operator: %v; check: %v)", st.OperatorAccess, b.Ops.AnyTPPIsOperator(), st.Check())
	}
}
