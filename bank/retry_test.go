package bank_test

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/shopspring/decimal"

	"sandbank/bank"
	"sandbank/bank/apierr"
	"sandbank/storage"
)

// errRehearsal rolls back a rehearsal's transaction.
var errRehearsal = errors.New("rehearsal")

// rehearsingStore runs every grouped write twice: first in a transaction
// that is rolled back, then for real. That is what a group commit does to
// the writes of a group in which another write failed (storage.DB.Batch),
// here for every write, so that a write that changes anything outside its
// transaction shows it.
type rehearsingStore struct {
	*storage.DB
	rehearsed atomic.Int64
}

func (r *rehearsingStore) Batch(fn func(bank.Tx) error) error {
	var first error
	err := r.DB.Batch(func(tx bank.Tx) error {
		if first = fn(tx); first != nil {
			return first // a failed write is not run again
		}
		return errRehearsal
	})
	if !errors.Is(err, errRehearsal) {
		return err
	}
	r.rehearsed.Add(1)
	return r.DB.Batch(fn)
}

// recorder keeps the events a bank announces.
type recorder struct {
	mu     sync.Mutex
	events []bank.Event
}

func record(s *bank.Bank) *recorder {
	r := &recorder{}
	s.Ops.Subscribe(func(e bank.Event) {
		r.mu.Lock()
		r.events = append(r.events, e)
		r.mu.Unlock()
	})
	return r
}

// TestRetriedWrites_TakeEffectOnce runs the same operations on two banks
// over fresh data files in the known state: one whose writes each run
// once, and one whose writes each run twice, the first time rolled back
// (rehearsingStore). A random walk of payments (created, approved,
// rejected, cancelled, settled by batch runs and days passing, with the
// money rule checked after every step), settings, sandbox data, consents
// with counted account reads, and baskets must give the same answers, the
// same events and the same stored state on both: no money moves twice, no
// event, outcome or count is doubled, no id is skipped.
func TestRetriedWrites_TakeEffectOnce(t *testing.T) {
	type outcome struct {
		summary []string
		events  []bank.Event
	}
	run := func(t *testing.T, rehearse bool) (outcome, int64) {
		s, db := newBank(t)
		db.SetNoSync(true) // hundreds of commits; a crash here loses nothing that matters
		store := &rehearsingStore{DB: db}
		if rehearse {
			s = bank.New(store, fixedClock{testNow})
		}
		rec := record(s)
		m := newMoneyRun(t, s, db, 5)
		m.run(150)
		summary := []string{fmt.Sprint("steps ", m.counts)}
		summary = append(summary, retryScript(t, s)...)
		summary = append(summary, state(t, s, m.payments)...)
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return outcome{summary, rec.events}, store.rehearsed.Load()
	}
	once, _ := run(t, false)
	twice, rehearsed := run(t, true)
	if rehearsed < 100 {
		t.Fatalf("only %d writes were rehearsed", rehearsed)
	}
	for i := range max(len(once.summary), len(twice.summary)) {
		a, b := at(once.summary, i), at(twice.summary, i)
		if a != b {
			t.Fatalf("line %d differs:\nwrites run once:  %s\nwrites run twice: %s", i, a, b)
		}
	}
	// The accounts a step moved are announced in no set order: compare
	// the events as a multiset.
	byKind := func(a, b bank.Event) int { return strings.Compare(string(a.Kind)+a.ID, string(b.Kind)+b.ID) }
	slices.SortFunc(once.events, byKind)
	slices.SortFunc(twice.events, byKind)
	if !slices.Equal(once.events, twice.events) {
		t.Fatalf("events differ: %d announced with writes run once, %d with writes run twice\n%v\n%v", len(once.events), len(twice.events), once.events, twice.events)
	}
	t.Logf("%d writes rehearsed; %d lines and %d events agree", rehearsed, len(once.summary), len(once.events))
}

func at(list []string, i int) string {
	if i < len(list) {
		return list[i]
	}
	return "(none)"
}

// retryScript runs writes the payment walk does not: settings, sandbox
// data, a consent and the daily limit of counted reads, a signing basket.
// It returns what they answered, without random tokens.
func retryScript(t *testing.T, s *bank.Bank) []string {
	t.Helper()
	var out []string
	note := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	f, err := s.Ops.SetFaults(bank.Faults{LatencyMs: 7})
	must(err)
	_, err = s.Ops.JumpClock(2)
	must(err)
	note("faults %+v in force %+v, clock %+v", f, s.Ops.Faults(), s.Ops.Clock())

	c, err := s.Sandbox.CreateCustomer(bank.NewCustomer{CustomerNumber: "24117000000", Name: "Retry Testperson", Type: "private"})
	must(err)
	note("customer %+v", c)
	accounts, err := s.Sandbox.Accounts()
	must(err)
	var bruk bank.AccountDetail
	for _, a := range accounts {
		if a.IBAN == "NO3815030123457" {
			bruk = a
		}
	}
	day := s.Ops.Today().AddDays(-1).String()
	tx := func(amount int64) bank.NewTransaction {
		text, empty := fmt.Sprint("Retry ", amount), ""
		return bank.NewTransaction{
			Amount: bank.NumberOf(decimal.NewFromInt(amount)), Currency: "NOK", BookingDate: day, ValueDate: day,
			RemittanceInformationUnstructured: &text, BankTransactionCode: "PMNT-RCDT-ESCT",
			CreditorID: &empty, CreditorName: &empty, UltimateCreditor: &empty, DebtorName: &empty, UltimateDebtor: &empty, PurposeCode: &empty,
			CreditorAccount: &bank.AccountRef{IBAN: bruk.IBAN}, DebtorAccount: &bank.AccountRef{BBAN: "86011117947"},
		}
	}
	posted, err := s.Sandbox.AddTransactions(bruk.ID, []bank.NewTransaction{tx(10), tx(20), tx(30)})
	must(err)
	for _, p := range posted.Transactions {
		note("posted %s %s", p.ID, p.Amount)
	}
	page, err := s.Sandbox.Transactions(bruk.ID, bank.TxQuery{Limit: 1})
	must(err)
	note("%d booked transactions", page.Total)

	// A consent, then the daily limit of reads without the PSU: four
	// answered, the fifth refused. A use counted twice would refuse the
	// third.
	sca := bank.SCARequest{TPPID: moneyTPP, TPPName: "Retry TPP", RedirectURI: "https://tpp.example/cb", SessionID: "retry", RedirectPreferred: true}
	cn, a, err := s.PSD2.StartConsent(sca)
	must(err)
	redirect, err := s.PSD2.AutomatedSCA(moneyTPP, a.ID, bank.AutoSCA{NationalID: "13039319955", Decision: "approve"})
	must(err)
	u, err := url.Parse(redirect)
	must(err)
	note("consent %s authorisation %s psu-id %s", cn.ID, a.ID, u.Query().Get("psu-id"))
	r := bank.AISRequest{TPPID: moneyTPP, PSUID: u.Query().Get("psu-id"), SessionID: "retry"}
	for i := range bank.DailyUses + 1 {
		_, _, err := s.PSD2.Balances(r, bruk.ID)
		code := "ok"
		if e, ok := apierr.AsError(err); ok {
			code = e.Code
		} else if err != nil {
			t.Fatal(err)
		}
		note("balances read %d without the PSU: %s", i+1, code)
	}
	txs, _, err := s.PSD2.Transactions(r, bruk.ID, bank.AISQuery{})
	must(err)
	note("transactions page from %s: %d booked of %d, %d pending", txs.From, len(txs.Booked.Transactions), txs.Booked.Total, len(txs.Pending))

	// A signing basket of two payments and its authorisation.
	var ids []string
	for i := range 2 {
		text := fmt.Sprint("Basket ", i)
		created, err := s.PSD2.CreatePayment(bank.PaymentInit{
			TPPID: moneyTPP, Service: bank.ServiceSingle, Product: bank.ProductNDCT, RedirectURI: "https://tpp.example/cb", SessionID: "retry",
			Body: bank.PaymentRequest{
				InstructedAmount: &bank.AmountIn{Amount: bank.AmountText{Text: "12.50"}, Currency: "NOK"},
				CreditorAccount:  &bank.AccountIn{IBAN: "NO3015030234569"}, CreditorName: "Mottaker",
				DebtorAccount: &bank.AccountIn{IBAN: bruk.IBAN}, RemittanceInformationUnstructured: &text,
			},
		})
		must(err)
		ids = append(ids, created.Payment.ID)
	}
	basket, err := s.PSD2.CreateBasket(moneyTPP, "", ids)
	must(err)
	ba, err := s.PSD2.StartBasketAuthorisation(sca, basket.ID)
	must(err)
	note("basket %s of %v: authorisation %s for %v", basket.ID, basket.PaymentIDs, ba.ID, ba.PaymentIDs)
	return out
}

// state describes what the bank holds at the end: every account's
// balances and transactions, every payment, the batch run reports and the
// settings.
func state(t *testing.T, s *bank.Bank, payments []string) []string {
	t.Helper()
	var out []string
	accounts, err := s.Sandbox.Accounts()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range accounts {
		page, err := s.Sandbox.Transactions(a.ID, bank.TxQuery{})
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, len(page.Transactions))
		for i, t := range page.Transactions {
			ids[i] = t.ID + " " + t.Amount.String()
		}
		out = append(out, fmt.Sprintf("account %s: booked %s expected %s, %d transactions %v", a.IBAN, a.Balances.ClosingBooked, a.Balances.Expected, page.Total, ids))
	}
	for _, id := range payments {
		p, err := s.Ops.Payment(id)
		if err != nil {
			t.Fatal(err)
		}
		var history []string
		for _, h := range p.History {
			history = append(history, h.From+">"+h.To)
		}
		var items []string
		for _, it := range p.Items {
			items = append(items, fmt.Sprint(it.Status, " ", it.Reserved, " ", it.PendingTxID, " ", it.PendingFeeTxID, " ", it.CreditorTxID))
		}
		out = append(out, fmt.Sprintf("payment %s: %s, history %v, items %v, authorisations %v", p.ID, p.Status, history, items, p.Authorisations))
	}
	runs, err := s.Ops.BatchRuns(0, bank.MaxBatchRunsKept)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs.Runs {
		out = append(out, fmt.Sprintf("batch run %s at %s (%s): counts %v, %d outcomes, errors %v", r.ID, r.Time, r.Trigger, r.Counts, len(r.Outcomes), r.Errors))
	}
	st, err := s.Ops.Settings()
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, fmt.Sprintf("settings %+v", st))
	return out
}
