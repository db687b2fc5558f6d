package bank

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"
)

// Triggers of a batch run.
const (
	TriggerSchedule = "schedule" // a run at one of the batch times
	TriggerCatchUp  = "catch-up" // a scheduled run made up after the clock jumped
	TriggerManual   = "run now"  // the GUI's "Run batch now" or POST /v1/sandbox/batch-runs
)

// BatchOutcome is what a batch run did to one payment.
type BatchOutcome struct {
	PaymentID string `json:"paymentId"`
	From      string `json:"from"`
	To        string `json:"to"`
	Reason    string `json:"reason,omitempty"`
}

// BatchRun is the report of one batch run.
type BatchRun struct {
	ID string `json:"id"`
	// Time is the run's moment on the sandbox clock; its date is the
	// booking date of what it settles.
	Time    time.Time `json:"time"`
	Trigger string    `json:"trigger"`
	// Duration is how long the run took, on the real clock.
	Duration time.Duration `json:"duration"`
	// Counts are the payments that ended the run in each status.
	Counts   map[string]int `json:"counts"`
	Outcomes []BatchOutcome `json:"outcomes,omitempty"`
	// Errors are payments the run could not process, with why; the next
	// run tries them again.
	Errors []string `json:"errors,omitempty"`
}

// MaxBatchOutcomes bounds the outcomes a run report keeps; Counts cover
// every payment.
const MaxBatchOutcomes = 1000

// MaxBatchRunsKept is how many batch run reports the data file keeps.
const MaxBatchRunsKept = 500

// batchChunk is how many payments share one storage transaction. A
// payment whose processing fails unexpectedly rolls back its chunk, and
// the chunk is then redone one payment per transaction, so one bad
// payment never holds back the others.
const batchChunk = 256

// batchState is what the data file remembers of the schedule: the last
// recorded scheduled run.
type batchState struct {
	LastRun time.Time `json:"lastRun"`
}

const batchStateKey = "batchState"

// RunBatch runs a batch now ("run now").
func (s *Ops) RunBatch() (BatchRun, error) {
	s.batch.Lock()
	defer s.batch.Unlock()
	run, _, err := s.runBatch(s.Now(), TriggerManual, nil)
	return run, err
}

// RunDueBatches makes every scheduled run between the last one and now, in
// order: one at a time as the clock passes the batch times, or many after
// the sandbox clock jumped ahead (or the bank was not running). When the
// clock moved back, the schedule restarts from now. A run that changed
// nothing leaves no report and writes nothing, so an idle bank leaves its
// data file alone and a jump of years stays quick; RunDueBatches returns
// the runs that were recorded.
func (s *Ops) RunDueBatches() ([]BatchRun, error) {
	s.batch.Lock()
	defer s.batch.Unlock()
	now := s.Now()
	var state batchState
	var st Settings
	err := s.view("read batch state", func(tx Tx) error {
		var err error
		if st, err = settingsIn(tx); err != nil {
			return err
		}
		if err := tx.Setting(batchStateKey, &state); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	switch {
	case s.lastRun.IsZero() && state.LastRun.IsZero():
		s.lastRun = now // a new data file: the schedule starts now
	case s.lastRun.IsZero():
		s.lastRun = state.LastRun // the last recorded run, before a restart
	}
	if now.Before(s.lastRun) {
		s.lastRun = now
	}
	var runs []BatchRun
	for _, at := range dueRuns(st.BatchTimes, s.lastRun, now) {
		trigger := TriggerSchedule
		if now.Sub(at) > time.Minute {
			trigger = TriggerCatchUp
		}
		run, recorded, err := s.runBatch(at, trigger, &batchState{LastRun: at})
		if err != nil {
			return runs, err
		}
		s.lastRun = at
		if recorded {
			runs = append(runs, run)
		}
	}
	return runs, nil
}

// NextBatchRun is the first scheduled run after now on the sandbox clock.
func (s *Ops) NextBatchRun() (time.Time, error) {
	st, err := s.Settings()
	if err != nil {
		return time.Time{}, err
	}
	now := s.Now()
	for d := DateOf(now); ; d = d.AddDays(1) {
		if !IsBankingDay(d) {
			continue
		}
		for _, at := range runTimes(st.BatchTimes, d) {
			if at.After(now) {
				return at, nil
			}
		}
	}
}

// runTimes are a day's batch times, in order.
func runTimes(times []string, d Date) []time.Time {
	var out []time.Time
	for _, t := range times {
		if m, ok := parseTimeOfDay(t); ok {
			out = append(out, time.Date(d.Year, d.Month, d.Day, m/60, m%60, 0, 0, Oslo))
		}
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return out
}

// dueRuns are the scheduled runs after last and at or before now.
func dueRuns(times []string, last, now time.Time) []time.Time {
	var out []time.Time
	for d := DateOf(last); !d.After(DateOf(now)); d = d.AddDays(1) {
		if !IsBankingDay(d) {
			continue
		}
		for _, at := range runTimes(times, d) {
			if at.After(last) && !at.After(now) {
				out = append(out, at)
			}
		}
	}
	return out
}

// runBatch runs one batch at a moment of the sandbox clock: authorisations
// past their hour fail, then due payments settle in creation order.
// state, when given, is stored with the report (a scheduled run). A
// scheduled run that changed nothing is not recorded; recorded says
// whether it was.
func (s *core) runBatch(at time.Time, trigger string, state *batchState) (run BatchRun, recorded bool, err error) {
	started := time.Now()
	run = BatchRun{Time: at, Trigger: trigger, Counts: map[string]int{}}
	var ids []string
	err = s.view("list due payments", func(tx Tx) error {
		for _, status := range []string{StatusRCVD, StatusACCP, StatusACTC, StatusACSP, StatusPDNG} {
			list, err := tx.PaymentIDs(status)
			if err != nil {
				return err
			}
			ids = append(ids, list...)
		}
		return nil
	})
	if err != nil {
		return run, false, err
	}
	slices.SortFunc(ids, func(a, b string) int {
		sa, _ := SeqOf(KindPayment, a)
		sb, _ := SeqOf(KindPayment, b)
		switch {
		case sa < sb:
			return -1
		case sa > sb:
			return 1
		}
		return 0
	})
	touched := map[string]bool{} // accounts whose balances moved
	// process runs payments in one storage transaction.
	process := func(ids []string) ([]BatchOutcome, error) {
		var outcomes []BatchOutcome
		err := s.update("batch run", func(tx Tx) error {
			c, err := newBatchCache(tx)
			if err != nil {
				return err
			}
			for _, id := range ids {
				o, err := s.processPayment(tx, c, id, at)
				if err != nil {
					return fmt.Errorf("payment %s: %w", id, err)
				}
				outcomes = append(outcomes, o...)
			}
			return c.flush(tx, touched)
		})
		return outcomes, err
	}
	for start := 0; start < len(ids); start += batchChunk {
		chunk := ids[start:min(len(ids), start+batchChunk)]
		outcomes, err := process(chunk)
		if err != nil { // redo the chunk one payment at a time
			outcomes = outcomes[:0]
			for _, id := range chunk {
				o, err := process([]string{id})
				if err != nil {
					run.Errors = append(run.Errors, fmt.Sprintf("payment %s: %v", id, err))
					continue
				}
				outcomes = append(outcomes, o...)
			}
		}
		for _, o := range outcomes {
			run.Counts[o.To]++
			if len(run.Outcomes) < MaxBatchOutcomes {
				run.Outcomes = append(run.Outcomes, o)
			}
		}
	}
	run.Duration = time.Since(started)
	if trigger != TriggerManual && len(run.Outcomes) == 0 && len(run.Errors) == 0 {
		return run, false, nil
	}
	err = s.update("record batch run", func(tx Tx) error {
		seq, err := tx.NextSeq(KindBatchRun)
		if err != nil {
			return err
		}
		run.ID = FormatID(KindBatchRun, 0, seq)
		if state != nil {
			if err := tx.PutSetting(batchStateKey, *state); err != nil {
				return err
			}
		}
		return tx.PutBatchRun(run)
	})
	events := []Event{{Kind: EventBatchRuns}}
	if len(run.Outcomes) > 0 {
		events = append(events, Event{Kind: EventPayments}, Event{Kind: EventConsents})
		for id := range touched {
			events = append(events, Event{Kind: EventTransactions, ID: id})
		}
		events = append(events, Event{Kind: EventAccounts})
	}
	s.publish(events...)
	return run, err == nil, err
}

// batchCache holds, for one storage transaction of a batch run, the
// settings, the customers' names and the accounts it reads, so that an
// account that many payments move is read and written once.
type batchCache struct {
	st        Settings
	customers map[string]Customer
	accounts  map[string]*Account
	dirty     map[string]bool
}

func newBatchCache(tx Tx) (*batchCache, error) {
	st, err := settingsIn(tx)
	return &batchCache{st: st, customers: map[string]Customer{}, accounts: map[string]*Account{}, dirty: map[string]bool{}}, err
}

// account returns the cached account, reading it on first use.
func (c *batchCache) account(tx Tx, id string) (*Account, error) {
	if a, ok := c.accounts[id]; ok {
		return a, nil
	}
	a, err := tx.Account(id)
	if err != nil {
		return nil, err
	}
	c.accounts[id] = &a
	return &a, nil
}

func (c *batchCache) customer(tx Tx, id string) Customer {
	if cu, ok := c.customers[id]; ok {
		return cu
	}
	cu, _ := tx.Customer(id)
	c.customers[id] = cu
	return cu
}

// flush writes the accounts whose balances moved and adds them to touched.
func (c *batchCache) flush(tx Tx, touched map[string]bool) error {
	for id := range c.dirty {
		if err := tx.PutAccount(*c.accounts[id]); err != nil {
			return err
		}
		touched[id] = true
	}
	return nil
}

// processPayment moves one payment as a batch run at moment at would, and
// says what changed.
func (s *core) processPayment(tx Tx, c *batchCache, id string, at time.Time) ([]BatchOutcome, error) {
	p, err := tx.Payment(id)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	from := p.Status
	if p.Periodic() || Final(p.Status) {
		return nil, nil // the sandbox batch skips standing orders
	}
	if p.Status == StatusRCVD {
		if err := s.expireAuthorisations(tx, &p); err != nil {
			return nil, err
		}
	} else if err := s.settle(tx, c, &p, at); err != nil {
		return nil, err
	}
	if p.Status == from && p.Status != StatusPDNG {
		return nil, nil
	}
	if err := tx.PutPayment(p); err != nil {
		return nil, err
	}
	if p.Status == from {
		return nil, nil // still without cover; the retry is in the history only when it ends
	}
	reason := ""
	if n := len(p.History); n > 0 {
		reason = p.History[n-1].Reason
	}
	return []BatchOutcome{{PaymentID: p.ID, From: from, To: p.Status, Reason: reason}}, nil
}

// expireAuthorisations fails the payment's authorisations that are past
// their hour; the payment is rejected when the last one fails.
func (s *core) expireAuthorisations(tx Tx, p *Payment) error {
	for _, id := range p.Authorisations {
		a, err := tx.Authorisation(id)
		if err != nil || !a.Open() {
			continue
		}
		if _, _, err := s.loadAuthorisation(tx, id, true); err != nil { // fails it when its hour is over
			return err
		}
	}
	fresh, err := tx.Payment(p.ID)
	if err != nil {
		return err
	}
	*p = fresh
	return nil
}

// settle moves an authorised payment at a batch run: a due payment with
// cover settles (a cross-border transfer is first picked up, ACSP, and
// settles at the next run); without cover it waits (PDNG) for
// CoverRetryDays banking days, then is rejected.
func (s *core) settle(tx Tx, c *batchCache, p *Payment, at time.Time) error {
	day := DateOf(at)
	if p.Status == StatusACCP && p.ExecutionDate.After(day) {
		return nil // not due yet
	}
	st := c.st
	by := "batch run " + at.In(Oslo).Format("2006-01-02 15:04")
	debtor, err := c.account(tx, p.DebtorAccountID)
	if errors.Is(err, ErrNotFound) {
		return reject(tx, p, by, "the debtor account no longer exists", at, false)
	} else if err != nil {
		return err
	}
	if p.Product == ProductNCBCT && (p.Status == StatusACTC || p.Status == StatusACCP) {
		if ok, why, err := covered(st, *debtor, p.Items[0], p.Fee); err != nil {
			return err
		} else if !ok {
			return s.noCover(tx, p, by, why, day, at, st)
		}
		yes := true
		p.FundsAvailable = &yes
		setStatus(p, StatusACSP, by, "picked up; settles at the next batch run", at)
		return nil
	}
	waiting := false
	var why string
	for i := range p.Items {
		it := &p.Items[i]
		if it.Status != "" {
			continue
		}
		ok, reason, err := covered(st, *debtor, *it, p.Fee)
		if err != nil {
			return err
		}
		if !ok {
			waiting, why = true, reason
			continue
		}
		if err := book(tx, c, p, it, debtor, day); err != nil {
			return err
		}
	}
	if waiting {
		return s.noCover(tx, p, by, why, day, at, st)
	}
	yes := true
	p.FundsAvailable = &yes
	to, reason := StatusACSC, "settled"
	if p.Service == ServiceBulk {
		rejected := 0
		for _, it := range p.Items {
			if it.Status == StatusRJCT {
				rejected++
			}
		}
		switch {
		case rejected == len(p.Items):
			to, reason = StatusRJCT, "no item had cover in time"
		case rejected > 0:
			to, reason = StatusPART, fmt.Sprintf("%d of %d items settled; %d had no cover in time", len(p.Items)-rejected, len(p.Items), rejected)
		}
	}
	setStatus(p, to, by, reason, at)
	return nil
}

// noCover handles a run that found no cover: the payment waits (PDNG)
// until its retry days are over, then it (or a bulk payment's waiting
// items) is rejected.
func (s *core) noCover(tx Tx, p *Payment, by, why string, day Date, at time.Time, st Settings) error {
	no := false
	p.FundsAvailable = &no
	if p.Status != StatusPDNG {
		p.RetryUntil = AddBankingDays(day, st.CoverRetryDays)
		setStatus(p, StatusPDNG, by, why+"; retried at every batch run until "+p.RetryUntil.String(), at)
		return nil
	}
	if !day.After(p.RetryUntil) {
		return nil
	}
	if p.Service != ServiceBulk {
		return reject(tx, p, by, why+"; no cover within the retry days", at, true)
	}
	settled := 0
	for i := range p.Items {
		switch p.Items[i].Status {
		case "":
			p.Items[i].Status = StatusRJCT
		case StatusACSC:
			settled++
		}
	}
	if err := removePending(tx, p); err != nil {
		return err
	}
	to := StatusRJCT
	if settled > 0 {
		to = StatusPART
	}
	setStatus(p, to, by, fmt.Sprintf("%d of %d items settled; the rest had no cover within the retry days", settled, len(p.Items)), at)
	return nil
}

// covered checks cover for an item (and a fee): the debtor account's
// expected balance plus its credit line must reach the amount in the
// account's currency.
func covered(st Settings, debtor Account, it PaymentItem, fee decimal.Decimal) (bool, string, error) {
	need, err := convert(st.FX, it.Amount, it.Currency, debtor.Currency)
	if err != nil {
		return false, err.Error(), nil
	}
	if fee.IsPositive() {
		f, err := convert(st.FX, fee, "NOK", debtor.Currency)
		if err != nil {
			return false, err.Error(), nil
		}
		need = need.Add(f)
	}
	available := debtor.Balances.Expected.Add(debtor.CreditLine)
	if available.LessThan(need) {
		return false, fmt.Sprintf("no cover: %s available (expected balance and credit line), %s needed", FormatAmount(available, debtor.Currency), FormatAmount(need, debtor.Currency)), nil
	}
	return true, "", nil
}

// book settles one item: the debit (and a cross-border fee) is booked on
// the debtor account, replacing its pending entry, and the credit on the
// creditor account when it is a sandbox account; both balances move.
func book(tx Tx, c *batchCache, p *Payment, it *PaymentItem, debtor *Account, day Date) error {
	st := c.st
	debit, err := convert(st.FX, it.Amount, it.Currency, debtor.Currency)
	if err != nil {
		return err
	}
	owner := c.customer(tx, debtor.OwnerID)
	debtorSeq, _ := SeqOf(KindAccount, debtor.ID)
	newID := func(accountSeq uint64) (string, error) {
		seq, err := tx.NextSeq(KindTransaction)
		return FormatID(KindTransaction, accountSeq, seq), err
	}
	t := debitTransaction(*p, *it, *debtor, owner, debit.Neg(), day)
	if t.ID = it.PendingTxID; t.ID == "" {
		if t.ID, err = newID(debtorSeq); err != nil {
			return err
		}
	}
	txs := []Transaction{t}
	total := debit
	if p.Fee.IsPositive() {
		fee, err := convert(st.FX, p.Fee, "NOK", debtor.Currency)
		if err != nil {
			return err
		}
		feeTx := Transaction{
			Amount: fee.Neg(), Currency: debtor.Currency, BookingDate: day, ValueDate: day,
			RemittanceInformationUnstructured: "Gebyr utenlandsbetaling " + p.ID, CreditorName: "Sandbank",
			DebtorName: owner.Name, DebtorAccount: AccountRef{IBAN: debtor.IBAN, BBAN: debtor.BBAN},
			BankTransactionCode: "ACMT-MDOP-CHRG", ProprietaryBankTransactionCode: "Gebyr",
		}
		if feeTx.ID, err = newID(debtorSeq); err != nil {
			return err
		}
		txs = append(txs, feeTx)
		total = total.Add(fee)
	}
	if err := tx.PutTransactions(debtor.ID, txs); err != nil {
		return err
	}
	debtor.Balances.ClosingBooked = debtor.Balances.ClosingBooked.Sub(total)
	debtor.Balances.Expected = debtor.Balances.Expected.Sub(total)
	c.dirty[debtor.ID] = true
	it.Status = StatusACSC
	if it.CreditorAccountID == "" || it.CreditorAccountID == debtor.ID {
		return nil
	}
	creditor, err := c.account(tx, it.CreditorAccountID)
	if errors.Is(err, ErrNotFound) {
		return nil // deleted since: the money leaves the sandbox
	} else if err != nil {
		return err
	}
	credit, err := convert(st.FX, it.Amount, it.Currency, creditor.Currency)
	if err != nil {
		return err
	}
	creditorSeq, _ := SeqOf(KindAccount, creditor.ID)
	ct := Transaction{
		Amount: credit, Currency: creditor.Currency, BookingDate: day, ValueDate: day,
		RemittanceInformationUnstructured: t.RemittanceInformationUnstructured, CreditorName: it.CreditorName,
		CreditorAccount: AccountRef{IBAN: creditor.IBAN, BBAN: creditor.BBAN}, DebtorName: owner.Name,
		DebtorAccount: AccountRef{IBAN: debtor.IBAN, BBAN: debtor.BBAN}, EndToEndID: it.EndToEndID,
		BankTransactionCode: "PMNT-RCDT-DMCT", ProprietaryBankTransactionCode: "Innbetaling",
	}
	if ct.ID, err = newID(creditorSeq); err != nil {
		return err
	}
	it.CreditorTxID = ct.ID
	if err := tx.PutTransactions(creditor.ID, []Transaction{ct}); err != nil {
		return err
	}
	creditor.Balances.ClosingBooked = creditor.Balances.ClosingBooked.Add(credit)
	creditor.Balances.Expected = creditor.Balances.Expected.Add(credit)
	c.dirty[creditor.ID] = true
	return nil
}

// BatchRuns returns the newest batch run reports, newest first.
func (s *Ops) BatchRuns(limit int) ([]BatchRun, error) {
	var out []BatchRun
	err := s.view("list batch runs", func(tx Tx) error {
		var err error
		out, err = tx.BatchRuns(limit)
		return err
	})
	return out, err
}
