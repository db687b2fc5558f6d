package bank

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Triggers of a batch run.
const (
	TriggerSchedule = "schedule" // a run at one of the batch times
	TriggerCatchUp  = "catch-up" // a scheduled run made up after the clock jumped
	TriggerManual   = "run now"  // the GUI's "Run batch now" or POST /v1/sandbox/batch-runs
)

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

// duePayments lists the payments a batch run looks at, in creation order:
// those that await approval (their authorisations may expire) and those
// that are authorised and not settled.
func duePayments(tx Tx) ([]string, error) {
	var ids []string
	for _, status := range []string{StatusRCVD, StatusACCP, StatusACTC, StatusACSP, StatusPDNG} {
		list, err := tx.PaymentIDs(status)
		if err != nil {
			return nil, err
		}
		ids = append(ids, list...)
	}
	slices.SortFunc(ids, func(a, b string) int {
		sa, _ := SeqOf(KindPayment, a)
		sb, _ := SeqOf(KindPayment, b)
		return cmp.Compare(sa, sb)
	})
	return ids, nil
}

// runBatch runs one batch at a moment of the sandbox clock: authorisations
// past their hour fail, then due payments settle in creation order.
// state, when given, is stored with the report (a scheduled run). A
// scheduled run that changed nothing is not recorded; recorded says
// whether it was.
func (s *core) runBatch(at time.Time, trigger string, state *batchState) (run BatchRun, recorded bool, err error) {
	started := time.Now()
	run = BatchRun{Time: at, Trigger: trigger, Counts: map[string]int{}}
	ids, err := read(s, "list due payments", duePayments)
	if err != nil {
		return run, false, err
	}
	touched := map[string]bool{} // accounts whose balances moved
	// process runs payments in one storage transaction.
	process := func(ids []string) ([]BatchOutcome, error) {
		var outcomes []BatchOutcome
		err := s.update("batch run", func(tx Tx) error {
			l := newLedger(tx)
			for _, id := range ids {
				o, err := s.processPayment(l, id, at)
				if err != nil {
					return fmt.Errorf("payment %s: %w", id, err)
				}
				outcomes = append(outcomes, o...)
			}
			moved, err := l.flush()
			for _, id := range moved {
				touched[id] = true
			}
			return err
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
	err = s.update("record batch run", func(tx Tx) error { return recordRun(tx, &run, state) })
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

// recordRun stores a run's report under a new id and, for a scheduled
// run, the schedule's state.
func recordRun(tx Tx, run *BatchRun, state *batchState) error {
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
	return tx.PutBatchRun(*run)
}

// processPayment moves one payment as a batch run at moment at would, and
// says what changed.
func (s *core) processPayment(l *ledger, id string, at time.Time) ([]BatchOutcome, error) {
	tx := l.tx
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
	} else if err := settle(l, &p, at); err != nil {
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

// BatchRuns returns the newest batch run reports, newest first.
func (s *Ops) BatchRuns(limit int) ([]BatchRun, error) {
	return read(s.core, "list batch runs", func(tx Tx) ([]BatchRun, error) { return tx.BatchRuns(limit) })
}
