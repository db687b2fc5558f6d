package bank_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"sandbank/bank"
)

// whole takes every transaction of a history stream, n at a time (n
// cycling through sizes from 1 up to most), and checks that their count is
// the stream's Len.
func whole[T any](t *testing.T, s *bank.HistoryStream[T], n func(i int) int) []T {
	t.Helper()
	var out []T
	for i := 0; ; i++ {
		chunk := s.Next(n(i))
		if len(chunk) == 0 {
			break
		}
		out = append(out, chunk...)
	}
	if len(out) != s.Len() {
		t.Fatalf("the stream handed out %d transactions, its Len is %d", len(out), s.Len())
	}
	if more := s.Next(10); len(more) != 0 {
		t.Fatalf("%d more transactions after the end", len(more))
	}
	return out
}

// TestHistory_ChunksMakeTheSameHistory: a generated history handed out in
// chunks of any size is the one handed out at once, transaction for
// transaction, with the same card transaction ids; generated again for
// the same account, day and history, it is the same.
func TestHistory_ChunksMakeTheSameHistory(t *testing.T) {
	t.Parallel()
	today := bank.Date{Year: 2026, Month: time.November, Day: 20}
	a := bank.Account{ID: "enc!!acct", IBAN: "NO3815030123457", BBAN: "15030123457", Currency: "NOK", Name: "Brukskonto"}
	c := bank.CardAccount{ID: "enc!!card", Currency: "NOK", MaskedPan: "545762******7810"}
	all := func(int) int { return 1 << 30 }
	sizes := func(i int) int { return i*37%997 + 1 }
	for _, h := range []bank.History{
		{Profile: "everyday", Months: 6}, {Profile: "business", Months: 12}, {Profile: "tax", Months: 6},
		{Profile: "everyday", Months: 6, Count: 1234}, {Profile: "savings", Months: 30, Count: 20_000},
	} {
		once := whole(t, bank.AccountHistory(h, a, today), all)
		chunked := whole(t, bank.AccountHistory(h, a, today), sizes)
		if len(once) == 0 || (h.Count > 0 && len(once) != h.Count) || !reflect.DeepEqual(once, chunked) {
			t.Errorf("%+v: %d transactions at once, %d in chunks, or they differ", h, len(once), len(chunked))
		}
		if data, _ := json.Marshal(once); len(data) == 0 {
			t.Fatal("the history does not encode")
		}
	}
	for _, h := range []bank.History{{Profile: "card", Months: 4}, {Profile: "card", Months: 6, Count: 5555}} {
		once := whole(t, bank.CardHistory(h, c, today), all)
		chunked := whole(t, bank.CardHistory(h, c, today), sizes)
		if len(once) == 0 || !reflect.DeepEqual(once, chunked) {
			t.Errorf("%+v: %d card transactions at once, %d in chunks, or they differ", h, len(once), len(chunked))
		}
		ids := map[string]bool{}
		for _, ct := range chunked {
			ids[ct.CardTransactionID] = true
		}
		if len(ids) != len(chunked) {
			t.Errorf("%+v: %d card transaction ids for %d transactions", h, len(ids), len(chunked))
		}
	}
}
