package storage_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	bolt "go.etcd.io/bbolt"

	"sandbank/bank"
	"sandbank/storage"
)

// --- helpers ---

// openDB opens a fresh data file in a temporary folder. When the test ends
// it runs the consistency check and closes the file.
func openDB(t testing.TB) *storage.DB {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "sandbank.db"))
}

// openAt opens the data file at path and checks and closes it when the test
// ends.
func openAt(t testing.TB, path string) *storage.DB {
	t.Helper()
	db, err := storage.Open(path, time.Second)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() {
		if err := db.Check(); err != nil {
			t.Errorf("consistency check of %s: %v", path, err)
		}
		_ = db.Close()
	})
	return db
}

func update(t testing.TB, db *storage.DB, fn func(bank.Tx) error) {
	t.Helper()
	if err := db.Update(fn); err != nil {
		t.Fatalf("update: %v", err)
	}
}

func view(t testing.TB, db *storage.DB, fn func(bank.Tx) error) {
	t.Helper()
	if err := db.View(fn); err != nil {
		t.Fatalf("view: %v", err)
	}
}

func customerID(seq uint64) string    { return bank.FormatID(bank.KindCustomer, 0, seq) }
func agreementID(seq uint64) string   { return bank.FormatID(bank.KindAgreement, 0, seq) }
func accountID(seq uint64) string     { return bank.FormatID(bank.KindAccount, 0, seq) }
func cardAccountID(seq uint64) string { return bank.FormatID(bank.KindCardAccount, 0, seq) }
func engagementID(agreementSeq, seq uint64) string {
	return bank.FormatID(bank.KindEngagement, agreementSeq, seq)
}
func txID(accountSeq, seq uint64) string {
	return bank.FormatID(bank.KindTransaction, accountSeq, seq)
}

// date returns a calendar date.
func date(y int, m time.Month, d int) bank.Date { return bank.Date{Year: y, Month: m, Day: d} }

// mkTx returns a booked transaction whose remittance text names its seq
// and booking date, so a decoded record can be checked against its key.
func mkTx(accountSeq, seq uint64, d bank.Date) bank.Transaction {
	return bank.Transaction{
		ID:                                txID(accountSeq, seq),
		Amount:                            decimal.New(-int64(seq%100000), -2),
		Currency:                          "NOK",
		BookingDate:                       d,
		ValueDate:                         d,
		RemittanceInformationUnstructured: fmt.Sprintf("tx %d on %s", seq, d),
		CreditorName:                      "Butikk AS",
		CreditorAccount:                   bank.AccountRef{BBAN: "12345678903"},
		BankTransactionCode:               "PMNT",
	}
}

// sameJSON fails the test when a and b do not encode to the same JSON
// (decimal.Decimal values cannot be compared with ==).
func sameJSON(t testing.TB, what string, got, want any) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

func wantNotFound(t testing.TB, what string, err error) {
	t.Helper()
	if !errors.Is(err, bank.ErrNotFound) {
		t.Errorf("%s: err = %v, want bank.ErrNotFound", what, err)
	}
}

func ids[T any](list []T, id func(T) string) []string {
	out := make([]string, 0, len(list))
	for _, v := range list {
		out = append(out, id(v))
	}
	return out
}

func customerIDs(l []bank.Customer) []string {
	return ids(l, func(c bank.Customer) string { return c.ID })
}
func accountIDs(l []bank.Account) []string {
	return ids(l, func(a bank.Account) string { return a.ID })
}
func agreementIDs(l []bank.Agreement) []string {
	return ids(l, func(a bank.Agreement) string { return a.ID })
}
func engagementIDs(l []bank.Engagement) []string {
	return ids(l, func(e bank.Engagement) string { return e.ID })
}
func cardAccountIDs(l []bank.CardAccount) []string {
	return ids(l, func(c bank.CardAccount) string { return c.ID })
}
func transactionIDs(l []bank.Transaction) []string {
	return ids(l, func(t bank.Transaction) string { return t.ID })
}

// sorted returns a sorted copy, for comparing lists as sets.
func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// --- a brute-force model of an account's booked transactions ---

type modelTx struct {
	seq  uint64
	date bank.Date
}

// txModel maps a transaction seq to its booking date.
type txModel map[uint64]bank.Date

// sorted returns the model's transactions in the store's order: newest
// booking date first, then higher seq first.
func (m txModel) sorted() []modelTx {
	out := make([]modelTx, 0, len(m))
	for seq, d := range m {
		out = append(out, modelTx{seq, d})
	}
	slices.SortFunc(out, func(a, b modelTx) int {
		if c := b.date.Compare(a.date); c != 0 {
			return c
		}
		return cmp.Compare(b.seq, a.seq)
	})
	return out
}

// modelPage returns the ids and total the store should return for q, given
// the model's transactions in store order.
func modelPage(all []modelTx, accountSeq uint64, q bank.TxQuery) ([]string, int) {
	var match []modelTx
	for _, e := range all {
		if !q.From.IsZero() && e.date.Before(q.From) {
			continue
		}
		if !q.To.IsZero() && e.date.After(q.To) {
			continue
		}
		match = append(match, e)
	}
	total := len(match)
	lo := min(q.Offset, total)
	hi := total
	if q.Limit > 0 {
		hi = min(lo+q.Limit, total)
	}
	out := []string{}
	for _, e := range match[lo:hi] {
		out = append(out, txID(accountSeq, e.seq))
	}
	return out, total
}

// pagingStart and pagingDays give the booking dates of the paging tests: about 60
// days across a month and a year boundary.
var pagingStart = date(2025, time.November, 20)

const pagingDays = 62

// randomDate returns a booking date in the paging span; a third of the
// transactions fall on a few busy days, so many share a date.
func randomDate(r *rand.Rand) bank.Date {
	busy := []int{0, 11, 41, 42, 43, pagingDays - 1} // Nov 20, Dec 1, Dec 31, Jan 1, Jan 2, last day
	if r.IntN(3) == 0 {
		return pagingStart.AddDays(busy[r.IntN(len(busy))])
	}
	return pagingStart.AddDays(r.IntN(pagingDays))
}

// randomQuery returns a query whose ends are open, inside or just outside
// the span, and whose offset runs up to a little past the matching total.
func randomQuery(r *rand.Rand, all []modelTx) bank.TxQuery {
	end := func() bank.Date {
		switch r.IntN(5) {
		case 0:
			return bank.Date{}
		case 1:
			return pagingStart.AddDays(r.IntN(6) - 8) // before the first day
		case 2:
			return pagingStart.AddDays(pagingDays + r.IntN(6)) // after the last day
		}
		return pagingStart.AddDays(r.IntN(pagingDays))
	}
	q := bank.TxQuery{From: end(), To: end()}
	_, total := modelPage(all, 0, q)
	q.Offset = r.IntN(total + 6)
	if r.IntN(4) == 0 {
		q.Offset = 0
	}
	q.Limit = r.IntN(301)
	return q
}

// checkPaging runs n random queries (and a few fixed ones) against the
// store and the model.
func checkPaging(t *testing.T, db *storage.DB, r *rand.Rand, m txModel, accountID string, accountSeq uint64, n int) {
	t.Helper()
	ordered := m.sorted()
	all, allTotal := modelPage(ordered, accountSeq, bank.TxQuery{})
	queries := []bank.TxQuery{
		{},
		{Limit: 1},
		{Offset: allTotal - 1, Limit: 10},
		{Offset: allTotal},
		{Offset: allTotal + 1, Limit: 5},
		{From: date(2025, time.December, 31), To: date(2026, time.January, 1)},
		{From: date(2026, time.January, 1), To: date(2025, time.December, 31)}, // From > To
		{From: date(2025, time.December, 1), To: date(2025, time.December, 1), Offset: 3, Limit: 7},
		{To: date(2025, time.November, 30), Offset: 10, Limit: 50},
		{From: date(2026, time.January, 2), Offset: 5},
	}
	for range n {
		queries = append(queries, randomQuery(r, ordered))
	}
	view(t, db, func(tx bank.Tx) error {
		for _, q := range queries {
			page, err := tx.Transactions(accountID, q)
			if err != nil {
				return fmt.Errorf("query %+v: %w", q, err)
			}
			wantIDs, wantTotal := modelPage(ordered, accountSeq, q)
			gotIDs := transactionIDs(page.Transactions)
			if page.Total != wantTotal || !slices.Equal(gotIDs, wantIDs) {
				t.Errorf("query from=%s to=%s offset=%d limit=%d: got %d ids (total %d), want %d ids (total %d); first difference at %d",
					q.From, q.To, q.Offset, q.Limit, len(gotIDs), page.Total, len(wantIDs), wantTotal, firstDiff(gotIDs, wantIDs))
				continue
			}
			// The records must be the ones their keys say.
			for _, got := range page.Transactions {
				_, seq, ok := bank.ParseID(bank.KindTransaction, got.ID)
				if !ok {
					t.Fatalf("returned id %q does not parse", got.ID)
				}
				want := m[seq]
				if got.BookingDate != want || got.RemittanceInformationUnstructured != fmt.Sprintf("tx %d on %s", seq, want) {
					t.Errorf("transaction %d: booking date %s, text %q; want date %s", seq, got.BookingDate, got.RemittanceInformationUnstructured, want)
				}
			}
		}
		return nil
	})
	if len(all) != len(m) || allTotal != len(m) {
		t.Fatalf("model self-check: %d ids, total %d, %d entries", len(all), allTotal, len(m))
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// putRandom puts n new transactions with fresh random seqs in several
// Update calls of random size and records them in m.
func putRandom(t *testing.T, db *storage.DB, r *rand.Rand, m txModel, accountID string, accountSeq uint64, n int) {
	t.Helper()
	for n > 0 {
		batch := min(n, 1+r.IntN(400))
		n -= batch
		var txs []bank.Transaction
		for range batch {
			// Mostly seqs below 2^40; some anywhere in the uint64 range,
			// so the order within a day covers every byte of the key.
			randSeq := func() uint64 {
				if r.IntN(20) == 0 {
					return max(1, r.Uint64())
				}
				return 1 + r.Uint64N(1<<40)
			}
			seq := randSeq()
			for m[seq] != (bank.Date{}) {
				seq = randSeq()
			}
			d := randomDate(r)
			m[seq] = d
			txs = append(txs, mkTx(accountSeq, seq, d))
		}
		update(t, db, func(tx bank.Tx) error {
			// Several PutTransactions calls per transaction.
			for len(txs) > 0 {
				k := min(len(txs), 1+r.IntN(100))
				if err := tx.PutTransactions(accountID, txs[:k]); err != nil {
					return err
				}
				txs = txs[k:]
			}
			return nil
		})
	}
}

// --- 1. paging ---

func TestTransactions_PagingMatchesModel(t *testing.T) {
	for _, seed := range []uint64{1, 2, 20251231} {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 0x5eed))
			db := openDB(t)
			const acctSeq = bank.FirstUserSeq + 7
			acct := accountID(acctSeq)
			m := txModel{}

			putRandom(t, db, r, m, acct, acctSeq, 2000)
			checkPaging(t, db, r, m, acct, acctSeq, 200)

			// Replace about 300 transactions: most with a new booking
			// date, some with the same one; a few twice in one call.
			seqs := make([]uint64, 0, len(m))
			for seq := range m {
				seqs = append(seqs, seq)
			}
			slices.Sort(seqs)
			r.Shuffle(len(seqs), func(i, j int) { seqs[i], seqs[j] = seqs[j], seqs[i] })
			var repl []bank.Transaction
			for i, seq := range seqs[:300] {
				d := m[seq]
				if i%5 != 0 {
					d = randomDate(r)
				}
				m[seq] = d
				repl = append(repl, mkTx(acctSeq, seq, d))
				if i%50 == 0 { // the same id again in the same call, moved once more
					d = randomDate(r)
					m[seq] = d
					repl = append(repl, mkTx(acctSeq, seq, d))
				}
			}
			update(t, db, func(tx bank.Tx) error {
				if err := tx.PutTransactions(acct, repl[:150]); err != nil {
					return err
				}
				return tx.PutTransactions(acct, repl[150:])
			})
			checkPaging(t, db, r, m, acct, acctSeq, 200)

			// Each replaced transaction is found by id with its new date.
			view(t, db, func(tx bank.Tx) error {
				for _, seq := range seqs[:300] {
					got, err := tx.Transaction(acct, txID(acctSeq, seq))
					if err != nil {
						return fmt.Errorf("transaction %d: %w", seq, err)
					}
					if got.BookingDate != m[seq] || got.ID != txID(acctSeq, seq) {
						t.Errorf("transaction %d: date %s id %s, want %s", seq, got.BookingDate, got.ID, m[seq])
					}
				}
				return nil
			})

			// Delete all, then add a new, smaller set.
			update(t, db, func(tx bank.Tx) error { return tx.DeleteTransactions(acct) })
			view(t, db, func(tx bank.Tx) error {
				page, err := tx.Transactions(acct, bank.TxQuery{})
				if err != nil {
					return err
				}
				if page.Total != 0 || len(page.Transactions) != 0 {
					t.Errorf("after DeleteTransactions: %d transactions, total %d", len(page.Transactions), page.Total)
				}
				_, err = tx.Transaction(acct, txID(acctSeq, seqs[0]))
				wantNotFound(t, "deleted transaction", err)
				return nil
			})
			m = txModel{}
			putRandom(t, db, r, m, acct, acctSeq, 700)
			checkPaging(t, db, r, m, acct, acctSeq, 120)
		})
	}
}

// TestTransactions_SameDayOrder pins the order within a day and the
// skipping of whole days by offset with a small hand-made example.
func TestTransactions_SameDayOrder(t *testing.T) {
	db := openDB(t)
	const acctSeq = 42
	acct := accountID(acctSeq)
	d1, d2, d3 := date(2025, time.December, 31), date(2026, time.January, 1), date(2026, time.February, 1)
	update(t, db, func(tx bank.Tx) error {
		return tx.PutTransactions(acct, []bank.Transaction{
			mkTx(acctSeq, 5, d2), mkTx(acctSeq, 1, d2), mkTx(acctSeq, 300, d2),
			mkTx(acctSeq, 2, d1), mkTx(acctSeq, 1<<40, d1),
			mkTx(acctSeq, 7, d3),
		})
	})
	want := []uint64{7, 300, 5, 1, 1 << 40, 2}
	tests := []struct {
		q    bank.TxQuery
		want []uint64
		tot  int
	}{
		{bank.TxQuery{}, want, 6},
		{bank.TxQuery{Offset: 1, Limit: 2}, want[1:3], 6},
		{bank.TxQuery{Offset: 4}, want[4:], 6},
		{bank.TxQuery{Offset: 6}, nil, 6},
		{bank.TxQuery{From: d2, To: d2}, want[1:4], 3},
		{bank.TxQuery{From: d2, To: d2, Offset: 2}, want[3:4], 3},
		{bank.TxQuery{To: d2, Offset: 3, Limit: 1}, want[4:5], 5},
		{bank.TxQuery{From: d3.AddDays(1)}, nil, 0},
		{bank.TxQuery{To: d1.AddDays(-1)}, nil, 0},
		{bank.TxQuery{From: d3, To: d1}, nil, 0},
		{bank.TxQuery{From: d1.AddDays(1), To: d3.AddDays(-1)}, want[1:4], 3},
	}
	view(t, db, func(tx bank.Tx) error {
		for _, tc := range tests {
			page, err := tx.Transactions(acct, tc.q)
			if err != nil {
				return err
			}
			var wantIDs []string
			for _, seq := range tc.want {
				wantIDs = append(wantIDs, txID(acctSeq, seq))
			}
			if got := transactionIDs(page.Transactions); !slices.Equal(got, wantIDs) || page.Total != tc.tot {
				t.Errorf("%+v: got %d ids %v total %d, want %v total %d", tc.q, len(got), got, page.Total, tc.want, tc.tot)
			}
			if page.Transactions == nil {
				t.Errorf("%+v: nil slice, want empty", tc.q)
			}
		}
		return nil
	})
}

// --- 2. accounts' transactions do not mix ---

func TestTransactions_AccountsDoNotMix(t *testing.T) {
	db := openDB(t)
	const seqA, seqB = bank.FirstUserSeq, bank.FirstUserSeq + 1
	a, b := accountID(seqA), accountID(seqB)
	d := date(2026, time.March, 3)
	// Both accounts use the transaction seqs 1..10.
	update(t, db, func(tx bank.Tx) error {
		for seq := uint64(1); seq <= 10; seq++ {
			if err := tx.PutTransactions(a, []bank.Transaction{mkTx(seqA, seq, d.AddDays(int(seq)))}); err != nil {
				return err
			}
			if err := tx.PutTransactions(b, []bank.Transaction{mkTx(seqB, seq, d.AddDays(-int(seq)))}); err != nil {
				return err
			}
		}
		return nil
	})

	// A transaction id of another account cannot be put on this one.
	err := db.Update(func(tx bank.Tx) error { return tx.PutTransactions(a, []bank.Transaction{mkTx(seqB, 99, d)}) })
	if err == nil {
		t.Error("PutTransactions of account B's id on account A succeeded")
	}
	err = db.Update(func(tx bank.Tx) error {
		return tx.PutTransactions(a, []bank.Transaction{{ID: accountID(seqA), BookingDate: d}})
	})
	if err == nil {
		t.Error("PutTransactions with an account id as transaction id succeeded")
	}
	err = db.Update(func(tx bank.Tx) error {
		return tx.PutTransactions(customerID(seqA), []bank.Transaction{mkTx(seqA, 1, d)})
	})
	if err == nil {
		t.Error("PutTransactions on a customer id succeeded")
	}

	view(t, db, func(tx bank.Tx) error {
		for _, acct := range []struct {
			id  string
			seq uint64
		}{{a, seqA}, {b, seqB}} {
			page, err := tx.Transactions(acct.id, bank.TxQuery{})
			if err != nil {
				return err
			}
			if page.Total != 10 || len(page.Transactions) != 10 {
				t.Errorf("account %d: %d transactions, total %d; want 10", acct.seq, len(page.Transactions), page.Total)
			}
			for _, got := range page.Transactions {
				if p, _, ok := bank.ParseID(bank.KindTransaction, got.ID); !ok || p != acct.seq {
					t.Errorf("account %d lists transaction %s of account %d", acct.seq, got.ID, p)
				}
			}
		}
		got, err := tx.Transaction(a, txID(seqA, 3))
		if err != nil || got.BookingDate != d.AddDays(3) {
			t.Errorf("A's transaction 3: %v, %v", got.BookingDate, err)
		}
		got, err = tx.Transaction(b, txID(seqB, 3))
		if err != nil || got.BookingDate != d.AddDays(-3) {
			t.Errorf("B's transaction 3: %v, %v", got.BookingDate, err)
		}

		notFound := []struct{ name, account, id string }{
			{"B's id on A", a, txID(seqB, 3)},
			{"A's id on B", b, txID(seqA, 3)},
			{"unknown seq", a, txID(seqA, 11)},
			{"account id", a, a},
			{"customer id", a, customerID(3)},
			{"engagement id with the account as parent", a, engagementID(seqA, 3)},
			{"top-level transaction id", a, txID(0, 3)},
			{"empty", a, ""},
			{"garbage", a, "garbage"},
			{"prefix only", a, bank.IDPrefix},
			{"bad base64", a, bank.IDPrefix + strings.Repeat("!", 22)},
			{"too long", a, txID(seqA, 3) + "A"},
			{"seq 0", a, txID(seqA, 0)},
			{"unknown account", accountID(seqB + 1), txID(seqB+1, 3)},
			{"account is a customer id", customerID(seqA), txID(seqA, 3)},
			{"account is garbage", "x", txID(seqA, 3)},
		}
		for _, tc := range notFound {
			_, err := tx.Transaction(tc.account, tc.id)
			wantNotFound(t, tc.name, err)
		}
		for _, acct := range []string{accountID(seqB + 1), customerID(seqA), "", "garbage"} {
			page, err := tx.Transactions(acct, bank.TxQuery{})
			if err != nil || page.Total != 0 || page.Transactions == nil || len(page.Transactions) != 0 {
				t.Errorf("Transactions(%q) = %d, total %d, nil %v, err %v; want an empty page", acct, len(page.Transactions), page.Total, page.Transactions == nil, err)
			}
		}
		return nil
	})

	// Deleting A's transactions leaves B's alone.
	update(t, db, func(tx bank.Tx) error { return tx.DeleteTransactions(a) })
	view(t, db, func(tx bank.Tx) error {
		_, err := tx.Transaction(a, txID(seqA, 3))
		wantNotFound(t, "deleted transaction", err)
		if _, err := tx.Transaction(b, txID(seqB, 3)); err != nil {
			t.Errorf("B's transaction after deleting A's: %v", err)
		}
		page, err := tx.Transactions(b, bank.TxQuery{})
		if err != nil || page.Total != 10 {
			t.Errorf("B after deleting A's: total %d, err %v", page.Total, err)
		}
		return nil
	})
	if err := db.Update(func(tx bank.Tx) error { return tx.DeleteTransactions("garbage") }); !errors.Is(err, bank.ErrNotFound) {
		t.Errorf("DeleteTransactions(garbage) = %v, want ErrNotFound", err)
	}
}

// --- 3. indexes ---

func TestIndexes_CustomersByNumber(t *testing.T) {
	db := openDB(t)
	c1 := bank.Customer{ID: customerID(1), Number: "11111111111", Name: "Ola", Type: bank.Private}
	c2 := bank.Customer{ID: customerID(2), Number: "22222222222", Name: "Kari", Type: bank.Private}
	update(t, db, func(tx bank.Tx) error {
		if err := tx.PutCustomer(c2); err != nil {
			return err
		}
		return tx.PutCustomer(c1)
	})
	// Change c1's number and name.
	c1.Number, c1.Name = "33333333333", "Ola Nordmann"
	update(t, db, func(tx bank.Tx) error { return tx.PutCustomer(c1) })
	view(t, db, func(tx bank.Tx) error {
		_, err := tx.CustomerByNumber("11111111111")
		wantNotFound(t, "old number", err)
		got, err := tx.CustomerByNumber("33333333333")
		if err != nil || got != c1 {
			t.Errorf("new number: %+v, %v", got, err)
		}
		if got, err := tx.Customer(c1.ID); err != nil || got != c1 {
			t.Errorf("Customer: %+v, %v", got, err)
		}
		list, err := tx.Customers()
		if err != nil {
			return err
		}
		if got, want := customerIDs(list), []string{c1.ID, c2.ID}; !slices.Equal(got, want) {
			t.Errorf("Customers = %v, want %v (creation order)", got, want)
		}
		return nil
	})
	update(t, db, func(tx bank.Tx) error { return tx.DeleteCustomer(c2.ID) })
	view(t, db, func(tx bank.Tx) error {
		_, err := tx.CustomerByNumber(c2.Number)
		wantNotFound(t, "deleted customer's number", err)
		_, err = tx.Customer(c2.ID)
		wantNotFound(t, "deleted customer", err)
		_, err = tx.Customer(accountID(1))
		wantNotFound(t, "account id as customer id", err)
		_, err = tx.CustomerByNumber("")
		wantNotFound(t, "empty number", err)
		return nil
	})
	if err := db.Update(func(tx bank.Tx) error { return tx.DeleteCustomer(c2.ID) }); !errors.Is(err, bank.ErrNotFound) {
		t.Errorf("deleting twice: %v", err)
	}
	if err := db.Update(func(tx bank.Tx) error { return tx.PutCustomer(bank.Customer{ID: "nope", Number: "1"}) }); err == nil {
		t.Error("PutCustomer with a bad id succeeded")
	}
}

func TestIndexes_Accounts(t *testing.T) {
	db := openDB(t)
	own1, own2 := customerID(1), customerID(2)
	a1 := bank.Account{ID: accountID(10), OwnerID: own1, Name: "Brukskonto", IBAN: "NO9386011117947", BBAN: "86011117947", Currency: "NOK", CreditLine: decimal.New(5000, 0)}
	a2 := bank.Account{ID: accountID(11), OwnerID: own1, Name: "Sparekonto", IBAN: "NO0512345678903", BBAN: "12345678903", Currency: "NOK"}
	update(t, db, func(tx bank.Tx) error {
		if err := tx.PutAccount(a1); err != nil {
			return err
		}
		return tx.PutAccount(a2)
	})
	// Move a1 to another owner with another IBAN, same BBAN.
	oldIBAN := a1.IBAN
	a1.IBAN, a1.OwnerID = "NO1111111111111", own2
	update(t, db, func(tx bank.Tx) error { return tx.PutAccount(a1) })
	view(t, db, func(tx bank.Tx) error {
		_, err := tx.AccountByIBAN(oldIBAN)
		wantNotFound(t, "old IBAN", err)
		got, err := tx.AccountByIBAN(a1.IBAN)
		sameJSON(t, "by new IBAN", got, a1)
		if err != nil {
			t.Error(err)
		}
		got, err = tx.AccountByBBAN(a1.BBAN)
		sameJSON(t, "by BBAN", got, a1)
		if err != nil {
			t.Error(err)
		}
		l1, err := tx.AccountsByOwner(own1)
		if err != nil {
			return err
		}
		if got := accountIDs(l1); !slices.Equal(got, []string{a2.ID}) {
			t.Errorf("old owner's accounts = %v, want only a2", got)
		}
		l2, err := tx.AccountsByOwner(own2)
		if err != nil {
			return err
		}
		if got := accountIDs(l2); !slices.Equal(got, []string{a1.ID}) {
			t.Errorf("new owner's accounts = %v, want only a1", got)
		}
		return nil
	})
	// Drop a1's BBAN.
	oldBBAN := a1.BBAN
	a1.BBAN = ""
	update(t, db, func(tx bank.Tx) error { return tx.PutAccount(a1) })
	view(t, db, func(tx bank.Tx) error {
		_, err := tx.AccountByBBAN(oldBBAN)
		wantNotFound(t, "dropped BBAN", err)
		_, err = tx.AccountByBBAN("")
		wantNotFound(t, "empty BBAN", err)
		_, err = tx.AccountByIBAN("")
		wantNotFound(t, "empty IBAN", err)
		return nil
	})

	// DeleteAccount removes the record, its indexes and its transactions.
	update(t, db, func(tx bank.Tx) error {
		return tx.PutTransactions(a1.ID, []bank.Transaction{mkTx(10, 1, date(2026, 1, 1)), mkTx(10, 2, date(2026, 1, 2))})
	})
	update(t, db, func(tx bank.Tx) error { return tx.DeleteAccount(a1.ID) })
	view(t, db, func(tx bank.Tx) error {
		_, err := tx.Account(a1.ID)
		wantNotFound(t, "deleted account", err)
		_, err = tx.AccountByIBAN(a1.IBAN)
		wantNotFound(t, "deleted account's IBAN", err)
		l, err := tx.AccountsByOwner(own2)
		if err != nil || len(l) != 0 || l == nil {
			t.Errorf("deleted account's owner lists %v (nil %v), %v", accountIDs(l), l == nil, err)
		}
		page, err := tx.Transactions(a1.ID, bank.TxQuery{})
		if err != nil || page.Total != 0 || len(page.Transactions) != 0 {
			t.Errorf("deleted account's transactions: %d, total %d, %v", len(page.Transactions), page.Total, err)
		}
		_, err = tx.Transaction(a1.ID, txID(10, 1))
		wantNotFound(t, "deleted account's transaction", err)
		all, err := tx.Accounts()
		if err != nil {
			return err
		}
		if got := accountIDs(all); !slices.Equal(got, []string{a2.ID}) {
			t.Errorf("Accounts = %v", got)
		}
		return nil
	})
	// An account made again with the same id starts without transactions.
	update(t, db, func(tx bank.Tx) error { return tx.PutAccount(a1) })
	view(t, db, func(tx bank.Tx) error {
		page, err := tx.Transactions(a1.ID, bank.TxQuery{})
		if err != nil || page.Total != 0 {
			t.Errorf("re-made account has %d transactions, %v", page.Total, err)
		}
		return nil
	})
	if err := db.Update(func(tx bank.Tx) error { return tx.DeleteAccount(accountID(99)) }); !errors.Is(err, bank.ErrNotFound) {
		t.Errorf("DeleteAccount of a missing account: %v", err)
	}
	if err := db.Update(func(tx bank.Tx) error {
		return tx.PutAccount(bank.Account{ID: accountID(12), OwnerID: "not a customer"})
	}); err == nil {
		t.Error("PutAccount with a bad owner id succeeded")
	}
}

// TestIndexes_DeleteAccountDropsTransactionBucket looks into the file with
// bbolt to check that no bucket of the deleted account's transactions is
// left behind.
func TestIndexes_DeleteAccountDropsTransactionBucket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbank.db")
	db, err := storage.Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	a := bank.Account{ID: accountID(5), OwnerID: customerID(1), IBAN: "NO9386011117947"}
	c := bank.CardAccount{ID: cardAccountID(6), OwnerID: customerID(1)}
	update(t, db, func(tx bank.Tx) error {
		if err := tx.PutAccount(a); err != nil {
			return err
		}
		if err := tx.PutCardAccount(c); err != nil {
			return err
		}
		if err := tx.PutTransactions(a.ID, []bank.Transaction{mkTx(5, 1, date(2026, 1, 1))}); err != nil {
			return err
		}
		return tx.PutCardTransactions(c.ID, []bank.CardTransaction{mkCard("c1", date(2026, 1, 1)), mkCard("c2", bank.Date{})})
	})
	update(t, db, func(tx bank.Tx) error {
		if err := tx.DeleteAccount(a.ID); err != nil {
			return err
		}
		return tx.DeleteCardAccount(c.ID)
	})
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	err = b.View(func(tx *bolt.Tx) error {
		for _, name := range []string{"transactions", "cardTransactions"} {
			bkt := tx.Bucket([]byte(name))
			if bkt == nil {
				t.Errorf("bucket %s is missing", name)
				continue
			}
			if n := bkt.Stats().KeyN; n != 0 {
				t.Errorf("bucket %s still holds %d keys after the delete", name, n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestIndexes_AgreementsAndCardAccountsByOwner(t *testing.T) {
	db := openDB(t)
	own1, own2 := customerID(1), customerID(2)
	g1 := bank.Agreement{ID: agreementID(1), OwnerID: own1, Name: "A"}
	g2 := bank.Agreement{ID: agreementID(2), OwnerID: own1, Name: "B"}
	k1 := bank.CardAccount{ID: cardAccountID(1), OwnerID: own1, MaskedPan: "1234 **** **** 5678"}
	k2 := bank.CardAccount{ID: cardAccountID(2), OwnerID: own2}
	update(t, db, func(tx bank.Tx) error {
		return errors.Join(tx.PutAgreement(g2), tx.PutAgreement(g1), tx.PutCardAccount(k1), tx.PutCardAccount(k2))
	})
	g1.OwnerID = own2
	k1.OwnerID = own2
	update(t, db, func(tx bank.Tx) error { return errors.Join(tx.PutAgreement(g1), tx.PutCardAccount(k1)) })
	check := func(stage string, agr1, agr2, card1, card2 []string) {
		t.Helper()
		view(t, db, func(tx bank.Tx) error {
			for _, c := range []struct {
				owner      string
				agr, cards []string
			}{{own1, agr1, card1}, {own2, agr2, card2}} {
				al, err := tx.AgreementsByOwner(c.owner)
				if err != nil {
					return err
				}
				if got := agreementIDs(al); !slices.Equal(got, c.agr) {
					t.Errorf("%s: agreements of %s = %v, want %v", stage, c.owner, got, c.agr)
				}
				cl, err := tx.CardAccountsByOwner(c.owner)
				if err != nil {
					return err
				}
				if got := cardAccountIDs(cl); !slices.Equal(got, c.cards) {
					t.Errorf("%s: card accounts of %s = %v, want %v", stage, c.owner, got, c.cards)
				}
			}
			return nil
		})
	}
	check("after owner change", []string{g2.ID}, []string{g1.ID}, []string{}, []string{k1.ID, k2.ID})
	update(t, db, func(tx bank.Tx) error { return errors.Join(tx.DeleteAgreement(g1.ID), tx.DeleteCardAccount(k2.ID)) })
	check("after delete", []string{g2.ID}, []string{}, []string{}, []string{k1.ID})
	view(t, db, func(tx bank.Tx) error {
		_, err := tx.Agreement(g1.ID)
		wantNotFound(t, "deleted agreement", err)
		_, err = tx.CardAccount(k2.ID)
		wantNotFound(t, "deleted card account", err)
		got, err := tx.CardAccount(k1.ID)
		sameJSON(t, "card account", got, k1)
		return err
	})
}

func TestIndexes_Engagements(t *testing.T) {
	db := openDB(t)
	cust1, cust2 := customerID(1), customerID(2)
	acc1, acc2 := accountID(1), accountID(2)
	mk := func(agr, seq uint64, cust, acct string) bank.Engagement {
		return bank.Engagement{
			ID: engagementID(agr, seq), AgreementID: agreementID(agr), CustomerID: cust, AccountID: acct,
			Roles: []string{bank.RoleView}, RegisterLimit: decimal.New(1000, 0), ApprovalLimit: decimal.Zero,
		}
	}
	e1 := mk(1, 1, cust1, acc1)
	e2 := mk(1, 2, cust2, acc1)
	e3 := mk(2, 1, cust1, acc2) // same seq as e1, another agreement
	update(t, db, func(tx bank.Tx) error {
		return errors.Join(tx.PutEngagement(e1), tx.PutEngagement(e2), tx.PutEngagement(e3))
	})
	type want struct{ byCust1, byCust2, byAcc1, byAcc2, byAgr1, byAgr2 []string }
	check := func(stage string, w want) {
		t.Helper()
		view(t, db, func(tx bank.Tx) error {
			for _, c := range []struct {
				name string
				list func() ([]bank.Engagement, error)
				want []string
			}{
				{"by customer 1", func() ([]bank.Engagement, error) { return tx.EngagementsByCustomer(cust1) }, w.byCust1},
				{"by customer 2", func() ([]bank.Engagement, error) { return tx.EngagementsByCustomer(cust2) }, w.byCust2},
				{"by account 1", func() ([]bank.Engagement, error) { return tx.EngagementsByAccount(acc1) }, w.byAcc1},
				{"by account 2", func() ([]bank.Engagement, error) { return tx.EngagementsByAccount(acc2) }, w.byAcc2},
				{"by agreement 1", func() ([]bank.Engagement, error) { return tx.EngagementsByAgreement(agreementID(1)) }, w.byAgr1},
				{"by agreement 2", func() ([]bank.Engagement, error) { return tx.EngagementsByAgreement(agreementID(2)) }, w.byAgr2},
			} {
				l, err := c.list()
				if err != nil {
					return err
				}
				if l == nil {
					t.Errorf("%s: %s: nil list", stage, c.name)
				}
				if got := engagementIDs(l); !slices.Equal(sorted(got), sorted(c.want)) {
					t.Errorf("%s: %s = %v, want %v", stage, c.name, got, c.want)
				}
			}
			return nil
		})
	}
	check("after put", want{
		byCust1: []string{e1.ID, e3.ID}, byCust2: []string{e2.ID},
		byAcc1: []string{e1.ID, e2.ID}, byAcc2: []string{e3.ID},
		byAgr1: []string{e1.ID, e2.ID}, byAgr2: []string{e3.ID},
	})
	// Move e1 to customer 2 and account 2.
	e1.CustomerID, e1.AccountID = cust2, acc2
	update(t, db, func(tx bank.Tx) error { return tx.PutEngagement(e1) })
	check("after change", want{
		byCust1: []string{e3.ID}, byCust2: []string{e1.ID, e2.ID},
		byAcc1: []string{e2.ID}, byAcc2: []string{e1.ID, e3.ID},
		byAgr1: []string{e1.ID, e2.ID}, byAgr2: []string{e3.ID},
	})
	update(t, db, func(tx bank.Tx) error { return errors.Join(tx.DeleteEngagement(e3.ID), tx.DeleteEngagement(e2.ID)) })
	check("after delete", want{
		byCust1: []string{}, byCust2: []string{e1.ID},
		byAcc1: []string{}, byAcc2: []string{e1.ID},
		byAgr1: []string{e1.ID}, byAgr2: []string{},
	})
	view(t, db, func(tx bank.Tx) error {
		got, err := tx.Engagement(e1.ID)
		sameJSON(t, "engagement", got, e1)
		if err != nil {
			t.Error(err)
		}
		_, err = tx.Engagement(e3.ID)
		wantNotFound(t, "deleted engagement", err)
		_, err = tx.Engagement(engagementID(0, 1))
		wantNotFound(t, "engagement id without agreement", err)
		_, err = tx.Engagement(engagementID(bank.PrivateFlag|1, 1))
		wantNotFound(t, "private engagement id", err)
		_, err = tx.Engagement(accountID(1))
		wantNotFound(t, "account id as engagement id", err)
		return nil
	})
	if err := db.Update(func(tx bank.Tx) error { return tx.PutEngagement(mk(bank.PrivateFlag|1, 1, cust1, acc1)) }); err == nil {
		t.Error("PutEngagement with a private engagement id succeeded")
	}
	if err := db.Update(func(tx bank.Tx) error { return tx.PutEngagement(mk(3, 1, cust1, "bad")) }); err == nil {
		t.Error("PutEngagement with a bad account id succeeded")
	}
}

// TestIndexes_FollowRandomPutsAndDeletes applies random puts (changing
// owner, IBAN, BBAN and customer numbers) and deletes, and after each
// Update compares every index lookup with a model.
func TestIndexes_FollowRandomPutsAndDeletes(t *testing.T) {
	for _, seed := range []uint64{7, 8, 9} {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 1))
			db := openDB(t)
			customers := map[string]bank.Customer{}
			accounts := map[string]bank.Account{}
			usedNumbers, usedIBANs, usedBBANs := map[string]bool{}, map[string]bool{}, map[string]bool{}
			serial := 0
			fresh := func(prefix string, used map[string]bool) string {
				serial++
				s := fmt.Sprintf("%s%09d", prefix, serial)
				used[s] = true
				return s
			}
			for round := range 40 {
				update(t, db, func(tx bank.Tx) error {
					for range 1 + r.IntN(8) {
						switch op := r.IntN(10); {
						case op < 3: // put a customer, maybe with a new number
							c := bank.Customer{ID: customerID(1 + r.Uint64N(8)), Name: "C", Type: bank.Private}
							if old, ok := customers[c.ID]; ok && r.IntN(2) == 0 {
								c.Number = old.Number
							} else {
								c.Number = fresh("1", usedNumbers)
							}
							if err := tx.PutCustomer(c); err != nil {
								return err
							}
							customers[c.ID] = c
						case op < 7: // put an account, maybe changing owner, IBAN, BBAN
							a := bank.Account{ID: accountID(1 + r.Uint64N(12)), OwnerID: customerID(1 + r.Uint64N(8)), Currency: "NOK"}
							old, ok := accounts[a.ID]
							if ok && r.IntN(2) == 0 {
								a.IBAN = old.IBAN
							} else if r.IntN(5) > 0 {
								a.IBAN = fresh("NO", usedIBANs)
							}
							if ok && r.IntN(2) == 0 {
								a.BBAN = old.BBAN
							} else if r.IntN(5) > 0 {
								a.BBAN = fresh("", usedBBANs)
							}
							if err := tx.PutAccount(a); err != nil {
								return err
							}
							accounts[a.ID] = a
						case op < 8: // delete a customer
							id := customerID(1 + r.Uint64N(8))
							err := tx.DeleteCustomer(id)
							if _, ok := customers[id]; ok != (err == nil) {
								return fmt.Errorf("DeleteCustomer(%d present %v) = %v", round, ok, err)
							}
							delete(customers, id)
						default: // delete an account
							id := accountID(1 + r.Uint64N(12))
							err := tx.DeleteAccount(id)
							if _, ok := accounts[id]; ok != (err == nil) {
								return fmt.Errorf("DeleteAccount(present %v) = %v", ok, err)
							}
							delete(accounts, id)
						}
					}
					return nil
				})
				view(t, db, func(tx bank.Tx) error {
					wantByNumber := map[string]string{}
					for _, c := range customers {
						wantByNumber[c.Number] = c.ID
					}
					for n := range usedNumbers {
						got, err := tx.CustomerByNumber(n)
						if want, ok := wantByNumber[n]; ok {
							if err != nil || got.ID != want {
								t.Errorf("round %d: customer by number %s = %s, %v; want %s", round, n, got.ID, err, want)
							}
						} else if !errors.Is(err, bank.ErrNotFound) {
							t.Errorf("round %d: customer by stale number %s = %s, %v", round, n, got.ID, err)
						}
					}
					wantIBAN, wantBBAN, wantOwner := map[string]string{}, map[string]string{}, map[string][]string{}
					for _, a := range accounts {
						if a.IBAN != "" {
							wantIBAN[a.IBAN] = a.ID
						}
						if a.BBAN != "" {
							wantBBAN[a.BBAN] = a.ID
						}
						wantOwner[a.OwnerID] = append(wantOwner[a.OwnerID], a.ID)
					}
					for _, c := range []struct {
						name   string
						used   map[string]bool
						want   map[string]string
						lookup func(string) (bank.Account, error)
					}{{"IBAN", usedIBANs, wantIBAN, tx.AccountByIBAN}, {"BBAN", usedBBANs, wantBBAN, tx.AccountByBBAN}} {
						for v := range c.used {
							got, err := c.lookup(v)
							if want, ok := c.want[v]; ok {
								if err != nil || got.ID != want {
									t.Errorf("round %d: account by %s %s = %s, %v; want %s", round, c.name, v, got.ID, err, want)
								}
							} else if !errors.Is(err, bank.ErrNotFound) {
								t.Errorf("round %d: account by stale %s %s = %s, %v", round, c.name, v, got.ID, err)
							}
						}
					}
					for seq := uint64(1); seq <= 8; seq++ {
						l, err := tx.AccountsByOwner(customerID(seq))
						if err != nil {
							return err
						}
						if got, want := accountIDs(l), wantOwner[customerID(seq)]; !slices.Equal(sorted(got), sorted(want)) {
							t.Errorf("round %d: accounts of customer %d = %d, want %d", round, seq, len(got), len(want))
						}
					}
					all, err := tx.Accounts()
					if err != nil {
						return err
					}
					if len(all) != len(accounts) {
						t.Errorf("round %d: %d accounts, want %d", round, len(all), len(accounts))
					}
					for _, a := range all {
						sameJSON(t, "account", a, accounts[a.ID])
					}
					return nil
				})
			}
		})
	}
}

// --- 4. card transactions ---

func mkCard(id string, booked bank.Date) bank.CardTransaction {
	return bank.CardTransaction{
		CardTransactionID:  id,
		TerminalID:         "T1",
		BookingDate:        booked,
		TransactionDate:    booked,
		TransactionAmount:  bank.Money{Amount: decimal.New(-12345, -2), Currency: "NOK"},
		OriginalAmount:     bank.Money{Amount: decimal.New(-1099, -2), Currency: "EUR"},
		CardAcceptorID:     "ACC",
		MaskedPan:          "1234 **** **** 5678",
		TransactionDetails: "card " + id,
	}
}

func cardIDs(l []bank.CardTransaction) []string {
	return ids(l, func(c bank.CardTransaction) string { return c.CardTransactionID })
}

func TestCardTransactions_BookedPendingAndDelete(t *testing.T) {
	db := openDB(t)
	card, other := cardAccountID(bank.FirstUserSeq), cardAccountID(bank.FirstUserSeq+1)
	d1, d2, d3 := date(2025, time.December, 31), date(2026, time.January, 1), date(2026, time.January, 15)
	update(t, db, func(tx bank.Tx) error {
		return tx.PutCardTransactions(card, []bank.CardTransaction{
			mkCard("b1", d2), mkCard("p1", bank.Date{}), mkCard("b2", d1), mkCard("b3", d2),
		})
	})
	update(t, db, func(tx bank.Tx) error {
		if err := tx.PutCardTransactions(card, []bank.CardTransaction{mkCard("p2", bank.Date{}), mkCard("b4", d3), mkCard("b5", d2)}); err != nil {
			return err
		}
		return tx.PutCardTransactions(other, []bank.CardTransaction{mkCard("x1", d2), mkCard("xp", bank.Date{})})
	})
	pending := []string{"p2", "p1"}
	tests := []struct {
		q     bank.TxQuery
		want  []string
		total int
	}{
		{bank.TxQuery{}, []string{"b4", "b5", "b3", "b1", "b2"}, 5},
		{bank.TxQuery{Limit: 2}, []string{"b4", "b5"}, 5},
		{bank.TxQuery{Offset: 2, Limit: 2}, []string{"b3", "b1"}, 5},
		{bank.TxQuery{Offset: 5}, []string{}, 5},
		{bank.TxQuery{From: d2, To: d2}, []string{"b5", "b3", "b1"}, 3},
		{bank.TxQuery{To: d1}, []string{"b2"}, 1},
		{bank.TxQuery{From: d3, To: d1}, []string{}, 0},
	}
	view(t, db, func(tx bank.Tx) error {
		for _, tc := range tests {
			page, err := tx.CardTransactions(card, tc.q)
			if err != nil {
				return err
			}
			if got := cardIDs(page.Booked); !slices.Equal(got, tc.want) || page.Total != tc.total {
				t.Errorf("%+v: booked %v total %d, want %v total %d", tc.q, got, page.Total, tc.want, tc.total)
			}
			if got := cardIDs(page.Pending); !slices.Equal(got, pending) {
				t.Errorf("%+v: pending %v, want %v", tc.q, got, pending)
			}
		}
		page, err := tx.CardTransactions(card, bank.TxQuery{Limit: 1})
		if err != nil {
			return err
		}
		sameJSON(t, "booked record", page.Booked[0], mkCard("b4", d3))
		sameJSON(t, "pending record", page.Pending[1], mkCard("p1", bank.Date{}))

		for _, c := range []struct {
			card, id string
			want     bool
		}{
			{card, "b1", true}, {card, "p1", true}, {card, "b5", true}, {card, "x1", false},
			{card, "nope", false}, {other, "x1", true}, {other, "b1", false},
			{cardAccountID(5), "b1", false}, {"garbage", "b1", false}, {accountID(bank.FirstUserSeq), "b1", false},
		} {
			if got, err := tx.HasCardTransaction(c.card, c.id); err != nil || got != c.want {
				t.Errorf("HasCardTransaction(%s, %s) = %v, %v; want %v", c.card, c.id, got, err, c.want)
			}
		}
		for _, acct := range []string{cardAccountID(5), "garbage"} {
			page, err := tx.CardTransactions(acct, bank.TxQuery{})
			if err != nil || page.Total != 0 || page.Booked == nil || page.Pending == nil || len(page.Booked)+len(page.Pending) != 0 {
				t.Errorf("CardTransactions(%s) = %+v, %v; want an empty page", acct, page, err)
			}
		}
		return nil
	})

	update(t, db, func(tx bank.Tx) error { return tx.DeleteCardTransactions(card) })
	view(t, db, func(tx bank.Tx) error {
		page, err := tx.CardTransactions(card, bank.TxQuery{})
		if err != nil || page.Total != 0 || len(page.Booked) != 0 || len(page.Pending) != 0 {
			t.Errorf("after delete: %+v, %v", page, err)
		}
		for _, id := range []string{"b1", "p1"} {
			if got, _ := tx.HasCardTransaction(card, id); got {
				t.Errorf("HasCardTransaction(%s) after delete", id)
			}
		}
		if got, _ := tx.HasCardTransaction(other, "x1"); !got {
			t.Error("the other card account lost its transaction")
		}
		return nil
	})
	// After the delete the same ids can be put again.
	update(t, db, func(tx bank.Tx) error {
		return tx.PutCardTransactions(card, []bank.CardTransaction{mkCard("b1", d1), mkCard("p1", bank.Date{})})
	})
	view(t, db, func(tx bank.Tx) error {
		page, err := tx.CardTransactions(card, bank.TxQuery{})
		if err != nil || page.Total != 1 || !slices.Equal(cardIDs(page.Booked), []string{"b1"}) || !slices.Equal(cardIDs(page.Pending), []string{"p1"}) {
			t.Errorf("after re-adding: %v %v total %d, %v", cardIDs(page.Booked), cardIDs(page.Pending), page.Total, err)
		}
		return nil
	})
	// Deleting the card account deletes its transactions.
	update(t, db, func(tx bank.Tx) error {
		if err := tx.PutCardAccount(bank.CardAccount{ID: other, OwnerID: customerID(1)}); err != nil {
			return err
		}
		return tx.DeleteCardAccount(other)
	})
	view(t, db, func(tx bank.Tx) error {
		if got, _ := tx.HasCardTransaction(other, "x1"); got {
			t.Error("HasCardTransaction after DeleteCardAccount")
		}
		page, err := tx.CardTransactions(other, bank.TxQuery{})
		if err != nil || page.Total != 0 || len(page.Pending) != 0 {
			t.Errorf("card transactions after DeleteCardAccount: %+v, %v", page, err)
		}
		return nil
	})
	if err := db.Update(func(tx bank.Tx) error { return tx.PutCardTransactions("garbage", nil) }); err == nil {
		t.Error("PutCardTransactions on a garbage id succeeded")
	}
	if err := db.Update(func(tx bank.Tx) error { return tx.DeleteCardTransactions("garbage") }); !errors.Is(err, bank.ErrNotFound) {
		t.Errorf("DeleteCardTransactions(garbage) = %v", err)
	}
}

// TestCardTransactions_PagingMatchesModel checks booked card paging
// against a model: order is booking date, then the order of the puts.
func TestCardTransactions_PagingMatchesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(99, 2))
	db := openDB(t)
	card := cardAccountID(77)
	type entry struct {
		n    int // put order
		id   string
		date bank.Date
	}
	var booked []entry
	var pending []string
	n := 0
	for range 6 {
		var list []bank.CardTransaction
		for range 100 {
			n++
			id := fmt.Sprintf("ct%05d", n)
			if r.IntN(10) == 0 {
				pending = append(pending, id)
				list = append(list, mkCard(id, bank.Date{}))
				continue
			}
			d := randomDate(r)
			booked = append(booked, entry{n, id, d})
			list = append(list, mkCard(id, d))
		}
		update(t, db, func(tx bank.Tx) error { return tx.PutCardTransactions(card, list) })
	}
	slices.SortFunc(booked, func(a, b entry) int {
		if c := b.date.Compare(a.date); c != 0 {
			return c
		}
		return cmp.Compare(b.n, a.n)
	})
	slices.Reverse(pending)
	m := txModel{} // only for randomQuery's totals; seq = put order
	for _, e := range booked {
		m[uint64(e.n)] = e.date
	}
	ordered := m.sorted()
	view(t, db, func(tx bank.Tx) error {
		for range 150 {
			q := randomQuery(r, ordered)
			var want []string
			for _, e := range booked {
				if (q.From.IsZero() || !e.date.Before(q.From)) && (q.To.IsZero() || !e.date.After(q.To)) {
					want = append(want, e.id)
				}
			}
			total := len(want)
			want = want[min(q.Offset, total):]
			if q.Limit > 0 {
				want = want[:min(q.Limit, len(want))]
			}
			page, err := tx.CardTransactions(card, q)
			if err != nil {
				return err
			}
			if got := cardIDs(page.Booked); !slices.Equal(got, want) || page.Total != total {
				t.Errorf("%+v: %d booked (total %d), want %d (total %d)", q, len(got), page.Total, len(want), total)
			}
			if got := cardIDs(page.Pending); !slices.Equal(got, pending) {
				t.Errorf("%+v: %d pending, want %d", q, len(got), len(pending))
			}
		}
		return nil
	})
}

// --- 5. sequences and Reset ---

func nextSeq(t *testing.T, db *storage.DB, kind bank.Kind) uint64 {
	t.Helper()
	var seq uint64
	update(t, db, func(tx bank.Tx) error {
		var err error
		seq, err = tx.NextSeq(kind)
		return err
	})
	return seq
}

func TestNextSeq_ReserveAndReset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbank.db")
	db, err := storage.Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	seen := map[bank.Kind]map[uint64]bool{}
	take := func(kind bank.Kind) uint64 {
		t.Helper()
		seq := nextSeq(t, db, kind)
		if seq < bank.FirstUserSeq {
			t.Errorf("kind %d: NextSeq = %d, below FirstUserSeq", kind, seq)
		}
		if seen[kind] == nil {
			seen[kind] = map[uint64]bool{}
		}
		if seen[kind][seq] {
			t.Errorf("kind %d: NextSeq handed out %d twice", kind, seq)
		}
		seen[kind][seq] = true
		return seq
	}
	if got := take(bank.KindCustomer); got != bank.FirstUserSeq {
		t.Errorf("first customer seq = %d, want %d", got, bank.FirstUserSeq)
	}
	if got := take(bank.KindCustomer); got != bank.FirstUserSeq+1 {
		t.Errorf("second customer seq = %d", got)
	}
	// Kinds count separately.
	if got := take(bank.KindAccount); got != bank.FirstUserSeq {
		t.Errorf("first account seq = %d", got)
	}
	// Several in one transaction.
	update(t, db, func(tx bank.Tx) error {
		var prev uint64
		for range 5 {
			seq, err := tx.NextSeq(bank.KindTransaction)
			if err != nil {
				return err
			}
			if seq <= prev {
				t.Errorf("NextSeq in one transaction: %d after %d", seq, prev)
			}
			prev = seq
		}
		return nil
	})
	// Reserving below the counter (the known state's numbers) changes nothing.
	update(t, db, func(tx bank.Tx) error {
		return errors.Join(tx.ReserveSeq(bank.KindCustomer, 5), tx.ReserveSeq(bank.KindCustomer, bank.FirstUserSeq))
	})
	if got := take(bank.KindCustomer); got != bank.FirstUserSeq+2 {
		t.Errorf("after reserving low numbers: %d, want %d", got, bank.FirstUserSeq+2)
	}
	// Reserving above makes NextSeq go past it.
	update(t, db, func(tx bank.Tx) error { return tx.ReserveSeq(bank.KindCustomer, 5_000_000) })
	if got := take(bank.KindCustomer); got != 5_000_001 {
		t.Errorf("after ReserveSeq(5000000): %d", got)
	}
	update(t, db, func(tx bank.Tx) error { return tx.ReserveSeq(bank.KindCustomer, 4_000_000) })
	if got := take(bank.KindCustomer); got != 5_000_002 {
		t.Errorf("after ReserveSeq(4000000): %d", got)
	}
	// A fresh kind with a reservation below FirstUserSeq still starts there.
	update(t, db, func(tx bank.Tx) error { return tx.ReserveSeq(bank.KindCardAccount, 17) })
	if got := take(bank.KindCardAccount); got != bank.FirstUserSeq {
		t.Errorf("card account after ReserveSeq(17): %d", got)
	}
	// Reserve and take in one transaction.
	update(t, db, func(tx bank.Tx) error {
		if err := tx.ReserveSeq(bank.KindAgreement, 2_000_000); err != nil {
			return err
		}
		seq, err := tx.NextSeq(bank.KindAgreement)
		if seq != 2_000_001 {
			t.Errorf("NextSeq after ReserveSeq in the same transaction = %d", seq)
		}
		return err
	})

	// Reset keeps the counters, settings and TPP contacts.
	type setting struct {
		Name  string
		Count int
	}
	update(t, db, func(tx bank.Tx) error {
		return errors.Join(
			tx.PutSetting("clock", setting{"fixed", 3}),
			tx.PutTPPContact(bank.TPPContact{TPPID: "PSDNO-FSA-123", Email: "ops@tpp.example"}),
			tx.PutCustomer(bank.Customer{ID: customerID(1), Number: "1"}),
			tx.PutAccount(bank.Account{ID: accountID(1), OwnerID: customerID(1), IBAN: "NO1", BBAN: "1"}),
			tx.PutAgreement(bank.Agreement{ID: agreementID(1), OwnerID: customerID(1)}),
			tx.PutEngagement(bank.Engagement{ID: engagementID(1, 1), AgreementID: agreementID(1), CustomerID: customerID(1), AccountID: accountID(1)}),
			tx.PutCardAccount(bank.CardAccount{ID: cardAccountID(1), OwnerID: customerID(1)}),
			tx.PutTransactions(accountID(1), []bank.Transaction{mkTx(1, 1, date(2026, 1, 1))}),
			tx.PutCardTransactions(cardAccountID(1), []bank.CardTransaction{mkCard("c", date(2026, 1, 1)), mkCard("p", bank.Date{})}),
		)
	})
	update(t, db, func(tx bank.Tx) error { return tx.Reset() })
	view(t, db, func(tx bank.Tx) error {
		var s setting
		if err := tx.Setting("clock", &s); err != nil || s != (setting{"fixed", 3}) {
			t.Errorf("setting after Reset: %+v, %v", s, err)
		}
		if c, err := tx.TPPContact("PSDNO-FSA-123"); err != nil || c.Email != "ops@tpp.example" {
			t.Errorf("TPP contact after Reset: %+v, %v", c, err)
		}
		wantNotFound(t, "missing setting", tx.Setting("nope", &s))
		_, err := tx.TPPContact("nope")
		wantNotFound(t, "missing TPP contact", err)

		_, err = tx.Customer(customerID(1))
		wantNotFound(t, "customer after Reset", err)
		_, err = tx.CustomerByNumber("1")
		wantNotFound(t, "customer by number after Reset", err)
		_, err = tx.Account(accountID(1))
		wantNotFound(t, "account after Reset", err)
		_, err = tx.AccountByIBAN("NO1")
		wantNotFound(t, "account by IBAN after Reset", err)
		_, err = tx.AccountByBBAN("1")
		wantNotFound(t, "account by BBAN after Reset", err)
		_, err = tx.Agreement(agreementID(1))
		wantNotFound(t, "agreement after Reset", err)
		_, err = tx.Engagement(engagementID(1, 1))
		wantNotFound(t, "engagement after Reset", err)
		_, err = tx.CardAccount(cardAccountID(1))
		wantNotFound(t, "card account after Reset", err)
		_, err = tx.Transaction(accountID(1), txID(1, 1))
		wantNotFound(t, "transaction after Reset", err)
		lists := []struct {
			name string
			n    func() (int, error)
		}{
			{"customers", func() (int, error) { l, err := tx.Customers(); return len(l), err }},
			{"accounts", func() (int, error) { l, err := tx.Accounts(); return len(l), err }},
			{"agreements", func() (int, error) { l, err := tx.Agreements(); return len(l), err }},
			{"card accounts", func() (int, error) { l, err := tx.CardAccounts(); return len(l), err }},
			{"accounts by owner", func() (int, error) { l, err := tx.AccountsByOwner(customerID(1)); return len(l), err }},
			{"agreements by owner", func() (int, error) { l, err := tx.AgreementsByOwner(customerID(1)); return len(l), err }},
			{"card accounts by owner", func() (int, error) { l, err := tx.CardAccountsByOwner(customerID(1)); return len(l), err }},
			{"engagements by customer", func() (int, error) { l, err := tx.EngagementsByCustomer(customerID(1)); return len(l), err }},
			{"engagements by account", func() (int, error) { l, err := tx.EngagementsByAccount(accountID(1)); return len(l), err }},
			{"engagements by agreement", func() (int, error) { l, err := tx.EngagementsByAgreement(agreementID(1)); return len(l), err }},
			{"transactions", func() (int, error) {
				p, err := tx.Transactions(accountID(1), bank.TxQuery{})
				return p.Total + len(p.Transactions), err
			}},
			{"card transactions", func() (int, error) {
				p, err := tx.CardTransactions(cardAccountID(1), bank.TxQuery{})
				return p.Total + len(p.Booked) + len(p.Pending), err
			}},
		}
		for _, l := range lists {
			if n, err := l.n(); err != nil || n != 0 {
				t.Errorf("%s after Reset: %d, %v", l.name, n, err)
			}
		}
		if has, _ := tx.HasCardTransaction(cardAccountID(1), "c"); has {
			t.Error("HasCardTransaction after Reset")
		}
		return nil
	})
	if got := take(bank.KindCustomer); got != 5_000_003 {
		t.Errorf("customer seq after Reset = %d, want 5000003", got)
	}
	if got := take(bank.KindAccount); got != bank.FirstUserSeq+1 {
		t.Errorf("account seq after Reset = %d", got)
	}
	// The counters survive a reopen too.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = storage.Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got := take(bank.KindCustomer); got != 5_000_004 {
		t.Errorf("customer seq after reopen = %d", got)
	}
	if err := db.Check(); err != nil {
		t.Error(err)
	}
}

// TestNextSeq_NeverRepeatsAfterReserveMax: an id may carry any seq (a
// scenario can bring its own ids, and newID reserves their seq), so
// ReserveSeq(kind, MaxUint64) is reachable. NextSeq must then never hand
// out a number it handed out before; failing is fine, repeating is not.
func TestNextSeq_NeverRepeatsAfterReserveMax(t *testing.T) {
	db := openDB(t)
	first := nextSeq(t, db, bank.KindCustomer)
	update(t, db, func(tx bank.Tx) error { return tx.ReserveSeq(bank.KindCustomer, math.MaxUint64) })
	var seq uint64
	err := db.Update(func(tx bank.Tx) error {
		var err error
		seq, err = tx.NextSeq(bank.KindCustomer)
		return err
	})
	// Every number up to MaxUint64 is reserved: there is none left to give.
	if err == nil {
		t.Errorf("after ReserveSeq(kind, MaxUint64) NextSeq = %d with no error (repeats the earlier %d: %v); the counter wrapped around", seq, first, seq == first)
	}
}

// --- 6. persistence ---

func TestOpen_PersistsAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "folder", "sandbank.db") // Open makes the folders
	db, err := storage.Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !db.Created() {
		t.Error("Created() = false for a new file")
	}
	if db.Path() != path {
		t.Errorf("Path() = %q", db.Path())
	}
	cust := bank.Customer{ID: customerID(bank.FirstUserSeq), Number: "01017012345", Name: "Æsa Øvre-Ås", Type: bank.Corporate}
	acct := bank.Account{
		ID: accountID(bank.FirstUserSeq), OwnerID: cust.ID, Name: "Drift", BBAN: "12345678903", IBAN: "NO0512345678903",
		Currency: "NOK", Product: "Bedriftskonto", CashAccountType: "CACC", CreditLine: decimal.RequireFromString("10000.50"),
		Balances:    bank.Balances{ClosingBooked: decimal.RequireFromString("-12.34"), Expected: decimal.RequireFromString("99.99")},
		KIDRequired: true, Status: bank.StatusEnabled,
	}
	agr := bank.Agreement{ID: agreementID(3), OwnerID: cust.ID, Name: "Avtale"}
	eng := bank.Engagement{ID: engagementID(3, 9), AgreementID: agr.ID, CustomerID: cust.ID, AccountID: acct.ID, Roles: []string{bank.RoleOwner, bank.RoleApprove}, RegisterLimit: decimal.New(5, 3), ApprovalLimit: decimal.New(7, 2)}
	card := bank.CardAccount{ID: cardAccountID(4), OwnerID: cust.ID, MaskedPan: "5555 **** **** 4444", Currency: "NOK", CreditLimit: decimal.New(20000, 0)}
	txs := []bank.Transaction{mkTx(bank.FirstUserSeq, 1, date(2026, 2, 28)), mkTx(bank.FirstUserSeq, 2, date(2026, 3, 1))}
	ctxs := []bank.CardTransaction{mkCard("a", date(2026, 3, 1)), mkCard("b", bank.Date{})}
	ctxs[0].CurrencyExchange = &bank.CurrencyExchange{SourceCurrency: "EUR", TargetCurrency: "NOK", ExchangeRate: "11.5", QuotationDate: date(2026, 2, 27), MarkupFee: &bank.Money{Amount: decimal.New(3, 0), Currency: "NOK"}}
	var seq uint64
	update(t, db, func(tx bank.Tx) error {
		var err error
		seq, err = tx.NextSeq(bank.KindTransaction)
		return errors.Join(err,
			tx.PutCustomer(cust), tx.PutAccount(acct), tx.PutAgreement(agr), tx.PutEngagement(eng), tx.PutCardAccount(card),
			tx.PutTransactions(acct.ID, txs), tx.PutCardTransactions(card.ID, ctxs),
			tx.PutSetting("today", date(2026, 3, 2)), tx.PutTPPContact(bank.TPPContact{TPPID: "t", Email: "e@x"}))
	})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = openAt(t, path)
	if db.Created() {
		t.Error("Created() = true for an existing file")
	}
	view(t, db, func(tx bank.Tx) error {
		c, err := tx.CustomerByNumber(cust.Number)
		if err != nil || c != cust {
			t.Errorf("customer: %+v, %v", c, err)
		}
		a, err := tx.AccountByIBAN(acct.IBAN)
		sameJSON(t, "account", a, acct)
		g, err2 := tx.Agreement(agr.ID)
		sameJSON(t, "agreement", g, agr)
		e, err3 := tx.Engagement(eng.ID)
		sameJSON(t, "engagement", e, eng)
		k, err4 := tx.CardAccount(card.ID)
		sameJSON(t, "card account", k, card)
		p, err5 := tx.Transactions(acct.ID, bank.TxQuery{})
		sameJSON(t, "transactions", p.Transactions, []bank.Transaction{txs[1], txs[0]})
		if got := transactionIDs(p.Transactions); !slices.Equal(got, []string{txs[1].ID, txs[0].ID}) {
			t.Errorf("transaction ids %v", got)
		}
		cp, err6 := tx.CardTransactions(card.ID, bank.TxQuery{})
		sameJSON(t, "card transactions", [][]bank.CardTransaction{cp.Booked, cp.Pending}, [][]bank.CardTransaction{ctxs[:1], ctxs[1:]})
		var today bank.Date
		err7 := tx.Setting("today", &today)
		if today != date(2026, 3, 2) {
			t.Errorf("setting: %v", today)
		}
		_, err8 := tx.TPPContact("t")
		return errors.Join(err, err2, err3, err4, err5, err6, err7, err8)
	})
	if got := nextSeq(t, db, bank.KindTransaction); got != seq+1 {
		t.Errorf("NextSeq after reopen = %d, want %d", got, seq+1)
	}
}

// --- 7. lock ---

func TestOpen_SecondOpenFailsWithErrInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbank.db")
	db, err := storage.Open(path, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	db2, err := storage.Open(path, 100*time.Millisecond)
	elapsed := time.Since(start)
	if err == nil {
		_ = db2.Close()
		t.Fatal("second Open of a file in use succeeded")
	}
	if !errors.Is(err, storage.ErrInUse) {
		t.Errorf("second Open: %v, want an error wrapping ErrInUse", err)
	}
	if elapsed >= time.Second {
		t.Errorf("second Open took %v with a lock wait of 100ms", elapsed)
	}
	t.Logf("second Open failed after %v", elapsed)
	if elapsed < 40*time.Millisecond {
		t.Errorf("second Open gave up after %v, before the lock wait", elapsed)
	}
	// The first one still works, and once it is closed the file opens.
	update(t, db, func(tx bank.Tx) error { return tx.PutSetting("x", 1) })
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openAt(t, path)
	var x int
	view(t, db, func(tx bank.Tx) error { return tx.Setting("x", &x) })
	if x != 1 {
		t.Errorf("setting = %d", x)
	}
}

// --- 8. foreign and newer files ---

// writeBolt makes a bbolt file at path and runs fn in an Update on it.
func writeBolt(t *testing.T, path string, fn func(*bolt.Tx) error) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Update(fn); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

func schemaRecord(v uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return b[:]
}

// openNoPanic calls storage.Open and turns a panic into a test error.
func openNoPanic(t *testing.T, path string) (db *storage.DB, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("Open(%s) panicked: %v", filepath.Base(path), r)
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return storage.Open(path, 100*time.Millisecond)
}

func TestOpen_RefusesNewerAndForeignFiles(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		make    func(t *testing.T, path string)
		wantErr string // a part of the error message
	}{
		{"newer schema", func(t *testing.T, path string) {
			writeBolt(t, path, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("meta"))
				if err != nil {
					return err
				}
				return b.Put([]byte("schema"), schemaRecord(storage.SchemaVersion+1))
			})
		}, "newer Sandbank"},
		{"much newer schema", func(t *testing.T, path string) {
			writeBolt(t, path, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("meta"))
				if err != nil {
					return err
				}
				return b.Put([]byte("schema"), schemaRecord(math.MaxUint64))
			})
		}, "newer Sandbank"},
		{"short schema record", func(t *testing.T, path string) {
			writeBolt(t, path, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("meta"))
				if err != nil {
					return err
				}
				return b.Put([]byte("schema"), []byte{1})
			})
		}, "not a Sandbank data file"},
		// A bbolt file of another program has no schema record but
		// buckets of its own: Open refuses it rather than adopt it.
		{"foreign bbolt file", func(t *testing.T, path string) {
			writeBolt(t, path, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("x"))
				if err != nil {
					return err
				}
				return b.Put([]byte("y"), []byte("z"))
			})
		}, "not a Sandbank data file"},
		{"text file", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte("hello, this is not a database\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "move it aside"},
		{"one byte", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte{0}, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "move it aside"},
		{"random 64 KiB", func(t *testing.T, path string) {
			r := rand.New(rand.NewPCG(1, 2))
			b := make([]byte, 64<<10)
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "move it aside"},
		{"zeros 16 KiB", func(t *testing.T, path string) {
			if err := os.WriteFile(path, make([]byte, 16<<10), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "move it aside"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("f%d.db", i))
			tc.make(t, path)
			db, err := openNoPanic(t, path)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				if !db.Created() {
					t.Error("a bbolt file without a schema record is not reported as created")
				}
				if err := db.Check(); err != nil {
					t.Error(err)
				}
				_ = db.Close()
				return
			}
			if err == nil {
				_ = db.Close()
				t.Fatalf("Open succeeded, want an error containing %q", tc.wantErr)
			}
			if db != nil {
				t.Error("Open returned a DB with its error")
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Open: %v; want it to say %q", err, tc.wantErr)
			}
			if errors.Is(err, storage.ErrInUse) {
				t.Errorf("Open: %v wraps ErrInUse", err)
			}
		})
	}

	// The refused newer file is left as it was and is not locked.
	path := filepath.Join(dir, "f0.db")
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 100 * time.Millisecond, ReadOnly: true})
	if err != nil {
		t.Fatalf("the refused file stays locked or broken: %v", err)
	}
	defer b.Close()
	err = b.View(func(tx *bolt.Tx) error {
		if got := tx.Bucket([]byte("meta")).Get([]byte("schema")); !bytes.Equal(got, schemaRecord(storage.SchemaVersion+1)) {
			t.Errorf("schema record of the refused file = %x", got)
		}
		if tx.Bucket([]byte("customers")) != nil {
			t.Error("Open made buckets in a file it refused")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpen_CurrentSchema: a file written with the current schema version
// opens and is not reported as created.
func TestOpen_CurrentSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbank.db")
	writeBolt(t, path, func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("meta"))
		if err != nil {
			return err
		}
		return b.Put([]byte("schema"), schemaRecord(storage.SchemaVersion))
	})
	db := openAt(t, path)
	if db.Created() {
		t.Error("Created() = true for a file that has a schema record")
	}
	update(t, db, func(tx bank.Tx) error { return tx.PutCustomer(bank.Customer{ID: customerID(1), Number: "1"}) })
}

// --- 9. rollback ---

func TestUpdate_ErrorRollsBack(t *testing.T) {
	db := openDB(t)
	acct := accountID(1)
	base := mkTx(1, 1, date(2026, 1, 10))
	update(t, db, func(tx bank.Tx) error {
		return errors.Join(
			tx.PutCustomer(bank.Customer{ID: customerID(1), Number: "111"}),
			tx.PutAccount(bank.Account{ID: acct, OwnerID: customerID(1), IBAN: "NO1"}),
			tx.PutTransactions(acct, []bank.Transaction{base}),
			tx.PutSetting("s", "before"),
		)
	})
	before := nextSeq(t, db, bank.KindCustomer)

	boom := errors.New("boom")
	err := db.Update(func(tx bank.Tx) error {
		if _, err := tx.NextSeq(bank.KindCustomer); err != nil {
			return err
		}
		if err := tx.ReserveSeq(bank.KindAccount, 9_000_000); err != nil {
			return err
		}
		if err := tx.PutCustomer(bank.Customer{ID: customerID(1), Number: "222"}); err != nil {
			return err
		}
		if err := tx.PutCustomer(bank.Customer{ID: customerID(2), Number: "333"}); err != nil {
			return err
		}
		if err := tx.PutAccount(bank.Account{ID: acct, OwnerID: customerID(2), IBAN: "NO2"}); err != nil {
			return err
		}
		moved := base
		moved.BookingDate = date(2026, 2, 1)
		if err := tx.PutTransactions(acct, []bank.Transaction{moved, mkTx(1, 2, date(2026, 1, 10))}); err != nil {
			return err
		}
		if err := tx.PutSetting("s", "after"); err != nil {
			return err
		}
		if err := tx.DeleteCustomer(customerID(1)); err != nil {
			return err
		}
		if err := tx.Reset(); err != nil {
			return err
		}
		return fmt.Errorf("wrapped: %w", boom)
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}
	view(t, db, func(tx bank.Tx) error {
		if c, err := tx.CustomerByNumber("111"); err != nil || c.ID != customerID(1) {
			t.Errorf("customer by old number: %+v, %v", c, err)
		}
		for _, n := range []string{"222", "333"} {
			_, err := tx.CustomerByNumber(n)
			wantNotFound(t, "number "+n+" of a rolled-back put", err)
		}
		_, err := tx.Customer(customerID(2))
		wantNotFound(t, "customer of a rolled-back put", err)
		if a, err := tx.AccountByIBAN("NO1"); err != nil || a.OwnerID != customerID(1) {
			t.Errorf("account by IBAN: %+v, %v", a, err)
		}
		_, err = tx.AccountByIBAN("NO2")
		wantNotFound(t, "IBAN of a rolled-back put", err)
		if l, _ := tx.AccountsByOwner(customerID(2)); len(l) != 0 {
			t.Errorf("owner index of a rolled-back put: %v", accountIDs(l))
		}
		page, err := tx.Transactions(acct, bank.TxQuery{})
		if err != nil || page.Total != 1 || page.Transactions[0].BookingDate != base.BookingDate {
			t.Errorf("transactions after rollback: %+v, %v", page, err)
		}
		page, _ = tx.Transactions(acct, bank.TxQuery{From: date(2026, 2, 1)})
		if page.Total != 0 {
			t.Errorf("day count of a rolled-back move: total %d", page.Total)
		}
		var s string
		if err := tx.Setting("s", &s); err != nil || s != "before" {
			t.Errorf("setting after rollback: %q, %v", s, err)
		}
		return nil
	})
	if got := nextSeq(t, db, bank.KindCustomer); got != before+1 {
		t.Errorf("NextSeq after a rolled-back NextSeq = %d, want %d", got, before+1)
	}
	if got := nextSeq(t, db, bank.KindAccount); got != bank.FirstUserSeq {
		t.Errorf("NextSeq after a rolled-back ReserveSeq = %d, want %d", got, bank.FirstUserSeq)
	}

	// A failing Put in the middle of a batch leaves nothing of the batch.
	err = db.Update(func(tx bank.Tx) error {
		return tx.PutTransactions(acct, []bank.Transaction{mkTx(1, 5, date(2026, 1, 11)), mkTx(2, 6, date(2026, 1, 11))})
	})
	if err == nil {
		t.Fatal("PutTransactions with another account's id succeeded")
	}
	view(t, db, func(tx bank.Tx) error {
		_, err := tx.Transaction(acct, txID(1, 5))
		wantNotFound(t, "transaction of a failed batch", err)
		page, err := tx.Transactions(acct, bank.TxQuery{})
		if page.Total != 1 {
			t.Errorf("total after a failed batch = %d", page.Total)
		}
		return err
	})
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
}

// --- 10. benchmark ---

// BenchmarkTransactions_Page pages through one account with 200,000
// booked transactions over two years.
func BenchmarkTransactions_Page(b *testing.B) {
	const (
		n       = 200_000
		batch   = 20_000
		acctSeq = bank.FirstUserSeq
	)
	db, err := storage.Open(filepath.Join(b.TempDir(), "bench.db"), time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	acct := accountID(acctSeq)
	start := date(2024, time.January, 1)
	r := rand.New(rand.NewPCG(3, 4))
	setup := time.Now()
	for i := 0; i < n; i += batch {
		txs := make([]bank.Transaction, 0, batch)
		for j := range batch {
			txs = append(txs, mkTx(acctSeq, uint64(i+j+1), start.AddDays(r.IntN(730))))
		}
		if err := db.Update(func(tx bank.Tx) error { return tx.PutTransactions(acct, txs) }); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("setup: %d transactions in %v", n, time.Since(setup))

	cases := []struct {
		name string
		q    bank.TxQuery
		want int
	}{
		{"first", bank.TxQuery{Limit: 200}, n},
		{"offset150000", bank.TxQuery{Offset: 150_000, Limit: 200}, n},
		{"lastPage", bank.TxQuery{Offset: n - 200, Limit: 200}, n},
		{"dateRange", bank.TxQuery{From: date(2025, time.March, 1), To: date(2025, time.March, 31), Offset: 1000, Limit: 200}, -1},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var total int
			for b.Loop() {
				err := db.View(func(tx bank.Tx) error {
					page, err := tx.Transactions(acct, c.q)
					if err != nil {
						return err
					}
					if len(page.Transactions) != 200 || (c.want >= 0 && page.Total != c.want) {
						return fmt.Errorf("%d transactions, total %d", len(page.Transactions), page.Total)
					}
					total = page.Total
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/200, "ns/tx")
			b.ReportMetric(float64(total), "total")
		})
	}
}
