package bank_test

import (
	"testing"

	"github.com/shopspring/decimal"

	"sandbank/bank"
)

// pausingStore runs a hook once after a write transaction has committed
// and before the bank goes on, as if the writer's goroutine were paused
// there while another one writes.
type pausingStore struct {
	bank.Store
	after func()
}

func (p *pausingStore) Batch(fn func(bank.Tx) error) error {
	err := p.Store.Batch(fn)
	if hook := p.after; hook != nil {
		p.after = nil
		hook()
	}
	return err
}

func TestConcurrentSettings_TheLastCommitStaysInForce(t *testing.T) {
	_, db := newBank(t)
	store := &pausingStore{Store: db}
	s := bank.New(store, fixedClock{testNow})
	faults := bank.Faults{LatencyMs: 7}
	// The GUI saves the NCBCT fee; before its call returns, a TPP sets the
	// faults through the API. The fee's settings were read before the
	// faults changed, so they must not be put in force after them.
	store.after = func() {
		if _, err := s.Ops.SetFaults(faults); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Ops.UpdateSettings(func(st *bank.Settings) { st.NCBCTFee = decimal.NewFromInt(99) }); err != nil {
		t.Fatal(err)
	}
	st, err := s.Ops.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if st.Faults != faults || !st.NCBCTFee.Equal(decimal.NewFromInt(99)) {
		t.Fatalf("stored settings %+v", st)
	}
	if s.Ops.Faults() != faults {
		t.Fatalf("faults in force %+v, stored %+v: an older update overwrote a newer one", s.Ops.Faults(), st.Faults)
	}
}

func TestConcurrentSettings_AnnouncedWhenInForce(t *testing.T) {
	s, _ := newBank(t)
	var seen []int64
	cancel := s.Ops.Subscribe(func(e bank.Event) {
		if e.Kind == bank.EventSettings {
			seen = append(seen, s.Ops.Clock().OffsetSeconds)
		}
	})
	defer cancel()
	offset := int64(3600)
	if _, err := s.Ops.SetClock(bank.ClockChange{OffsetSeconds: &offset}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0] != offset {
		t.Fatalf("a subscriber woken by the clock change saw the offsets %v, want [%d]", seen, offset)
	}
}
