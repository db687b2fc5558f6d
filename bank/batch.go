package bank

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
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
	run, _, err := s.runBatch(s.Now(), TriggerManual, nil, nil)
	return run, err
}

// RunDueBatches makes every scheduled run between the last one and now, in
// order: one at a time as the clock passes the batch times, or many after
// the sandbox clock jumped ahead (or the bank was not running). When the
// clock moved back, the schedule restarts from now. Its work is in
// proportion to the payments that come due, not to the runs passed: a run
// at which no payment is due is passed over without a transaction, and a
// scheduled run that changed nothing leaves no report. After a catch-up
// over more than a day, where the schedule stands is saved, so a restart
// does not pass over the same runs again. RunDueBatches returns the runs
// that were recorded.
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
	s.resume(now, state.LastRun)
	due, err := read(s.core, "list due payments", dueSetOf)
	if err != nil {
		return nil, err
	}
	var runs []BatchRun
	from := s.lastRun
	for at := nextRun(st.BatchTimes, s.lastRun); !at.IsZero() && !at.After(now); at = nextRun(st.BatchTimes, at) {
		var ids []string
		if at, ids = due.firstRun(st.BatchTimes, at, now); at.IsZero() {
			break
		}
		trigger := TriggerSchedule
		if now.Sub(at) > time.Minute {
			trigger = TriggerCatchUp
		}
		run, recorded, err := s.runBatch(at, trigger, &batchState{LastRun: at}, ids)
		if err != nil {
			return runs, err
		}
		s.lastRun = at
		if recorded {
			runs = append(runs, run)
		}
		if err := s.view("read settled payments", func(tx Tx) error { return due.refresh(tx, ids) }); err != nil {
			return runs, err
		}
	}
	if last := lastRun(st.BatchTimes, now); last.After(s.lastRun) {
		s.lastRun = last // the runs passed over had nothing due
	}
	// An idle bank writes nothing as the clock passes a batch time; a jump
	// over days saves where the schedule stands.
	if s.lastRun.Sub(from) > 24*time.Hour && !state.LastRun.Equal(s.lastRun) {
		err := s.update("save the batch schedule", func(tx Tx) error { return tx.PutSetting(batchStateKey, batchState{LastRun: s.lastRun}) })
		return runs, err
	}
	return runs, nil
}

// resume sets where the schedule stands: at the last run of this
// process, else at the run recorded before a restart, else, on a new data
// file, now. A clock moved back restarts the schedule from now.
func (s *core) resume(now, recorded time.Time) {
	switch {
	case s.lastRun.IsZero() && recorded.IsZero():
		s.lastRun = now
	case s.lastRun.IsZero():
		s.lastRun = recorded
	}
	if now.Before(s.lastRun) {
		s.lastRun = now
	}
}

// firstRun returns the first scheduled run from at (at itself included)
// until now at which a payment is due, with the payments due then,
// passing over the runs before it without a word; a zero time when no
// payment comes due until now.
func (d dueSet) firstRun(times []string, at, now time.Time) (time.Time, []string) {
	if ids := d.ready(at); len(ids) > 0 {
		return at, ids
	}
	next := d.earliest()
	if next.IsZero() || next.After(now) {
		return time.Time{}, nil
	}
	at = nextRun(times, next.Add(-time.Nanosecond))
	if at.IsZero() || at.After(now) {
		return time.Time{}, nil
	}
	return at, d.ready(at)
}

// NextBatchRun is the first scheduled run after now on the sandbox clock.
func (s *Ops) NextBatchRun() (time.Time, error) {
	st, err := s.Settings()
	if err != nil {
		return time.Time{}, err
	}
	return nextRun(st.BatchTimes, s.Now()), nil
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

// nextRun is the first scheduled run after t; the zero time when the
// schedule has no time.
func nextRun(times []string, t time.Time) time.Time {
	for d, n := DateOf(t), 0; n < 400; d, n = d.AddDays(1), n+1 { // a year has banking days
		if !IsBankingDay(d) {
			continue
		}
		for _, at := range runTimes(times, d) {
			if at.After(t) {
				return at
			}
		}
	}
	return time.Time{}
}

// lastRun is the last scheduled run at or before t; the zero time when
// the schedule has no time.
func lastRun(times []string, t time.Time) time.Time {
	for d, n := DateOf(t), 0; n < 400; d, n = d.AddDays(-1), n+1 {
		if !IsBankingDay(d) {
			continue
		}
		day := runTimes(times, d)
		for i := len(day) - 1; i >= 0; i-- {
			if !day[i].After(t) {
				return day[i]
			}
		}
	}
	return time.Time{}
}

// dueSet holds when each payment that is not final next needs a batch
// run, so that a catch-up visits only the runs at which something is due.
type dueSet map[string]time.Time

// dueSetOf reads when each payment a run looks at is next due.
func dueSetOf(tx Tx) (dueSet, error) {
	ids, err := duePayments(tx)
	if err != nil {
		return nil, err
	}
	due := dueSet{}
	return due, due.refresh(tx, ids)
}

// refresh reads again when the given payments are due.
func (due dueSet) refresh(tx Tx, ids []string) error {
	for _, id := range ids {
		p, err := tx.Payment(id)
		if errors.Is(err, ErrNotFound) {
			delete(due, id)
			continue
		} else if err != nil {
			return err
		}
		at, err := dueAt(tx, p)
		if err != nil {
			return err
		}
		if at.IsZero() {
			delete(due, id)
		} else {
			due[id] = at
		}
	}
	return nil
}

// ready lists the payments due at a run at moment at, in creation order.
func (due dueSet) ready(at time.Time) []string {
	var ids []string
	for id, t := range due {
		if !t.After(at) {
			ids = append(ids, id)
		}
	}
	sortPayments(ids)
	return ids
}

// earliest is when the first payment is due; the zero time for none.
func (due dueSet) earliest() time.Time {
	var first time.Time
	for _, t := range due {
		if first.IsZero() || t.Before(first) {
			first = t
		}
	}
	return first
}

// dueAt is when a payment next needs a batch run (the first run at or
// after the moment handles it), or the zero time for never: a standing
// order (the sandbox batch skips them), a final status, or one that awaits
// approval with no authorisation that can expire.
func dueAt(tx Tx, p Payment) (time.Time, error) {
	switch {
	case p.Periodic() || Final(p.Status) || p.Status == StatusPATC:
		return time.Time{}, nil
	case p.Status == StatusRCVD: // when its first open authorisation expires
		var first time.Time
		for _, id := range p.Authorisations {
			a, err := tx.Authorisation(id)
			if errors.Is(err, ErrNotFound) {
				continue
			} else if err != nil {
				return first, err
			}
			if a.Open() && (first.IsZero() || a.Expires().Before(first)) {
				first = a.Expires()
			}
		}
		return first, nil
	case p.Status == StatusACCP || p.Status == StatusACWC: // on its execution date
		d := p.ExecutionDate
		return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, Oslo), nil
	}
	return p.Created, nil // ACTC, ACSP and PDNG: at the next run
}

// duePayments lists the payments a batch run looks at, in creation order:
// those that await approval (their authorisations may expire) and those
// that are authorised and not settled.
func duePayments(tx Tx) ([]string, error) {
	var ids []string
	for _, status := range []string{StatusRCVD, StatusACCP, StatusACTC, StatusACWC, StatusACSP, StatusPDNG} {
		list, err := tx.PaymentIDs(status)
		if err != nil {
			return nil, err
		}
		ids = append(ids, list...)
	}
	sortPayments(ids)
	return ids, nil
}

// sortPayments sorts payment ids in creation order.
func sortPayments(ids []string) {
	slices.SortFunc(ids, func(a, b string) int {
		sa, _ := SeqOf(KindPayment, a)
		sb, _ := SeqOf(KindPayment, b)
		return cmp.Compare(sa, sb)
	})
}

// runBatch runs one batch at a moment of the sandbox clock over the given
// payments (nil: every payment a run looks at): authorisations past their
// hour fail, then due payments settle in creation order. state, when
// given, is stored with the report (a scheduled run). A scheduled run that
// changed nothing is not recorded; recorded says whether it was.
func (s *core) runBatch(at time.Time, trigger string, state *batchState, ids []string) (run BatchRun, recorded bool, err error) {
	started := time.Now()
	run = BatchRun{Time: at, Trigger: trigger, Counts: map[string]int{}}
	if ids == nil {
		if ids, err = read(s, "list due payments", duePayments); err != nil {
			return run, false, err
		}
	}
	touched := map[string]bool{} // accounts whose balances moved
	// process runs payments in one storage transaction. The transaction
	// may run more than once (see core.update): what it found is kept
	// from its last run only.
	process := func(ids []string) ([]BatchOutcome, error) {
		var outcomes []BatchOutcome
		var moved []string
		err := s.update("batch run", func(tx Tx) error {
			outcomes, moved = nil, nil
			l := newLedger(tx)
			for _, id := range ids {
				o, err := s.processPayment(l, id, at)
				if err != nil {
					return fmt.Errorf("payment %s: %w", id, err)
				}
				outcomes = append(outcomes, o...)
			}
			var err error
			moved, err = l.flush()
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, id := range moved {
			touched[id] = true
		}
		return outcomes, nil
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
	var was []byte
	if from == StatusPDNG {
		if was, err = json.Marshal(p); err != nil {
			return nil, err
		}
	}
	if p.Status == StatusRCVD {
		if err := s.expireAuthorisations(tx, &p); err != nil {
			return nil, err
		}
	} else if err := settle(l, &p, at, "batch run "+at.In(Oslo).Format("2006-01-02 15:04")); err != nil {
		return nil, err
	}
	if p.Status == from {
		if from != StatusPDNG {
			return nil, nil
		}
		if now, err := json.Marshal(p); err != nil || bytes.Equal(now, was) {
			return nil, err // still waiting for cover, and nothing moved
		}
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

// BatchRunPage is a page of batch run reports, newest first, and how many
// reports the data file keeps in all (at most MaxBatchRunsKept).
type BatchRunPage struct {
	Runs  []BatchRun
	Total int
}

// BatchRuns returns a page of the batch run reports, newest first: from
// offset, at most limit (0: DefaultPageSize; at most MaxSandboxPageSize).
func (s *Ops) BatchRuns(offset, limit int) (BatchRunPage, error) {
	if limit == 0 {
		limit = DefaultPageSize
	}
	if err := checkQuery(TxQuery{Offset: offset, Limit: limit}, MaxSandboxPageSize); err != nil {
		return BatchRunPage{}, err
	}
	return read(s.core, "list batch runs", func(tx Tx) (p BatchRunPage, err error) {
		p.Runs, p.Total, err = tx.BatchRuns(offset, limit)
		return p, err
	})
}

// BatchRun returns one batch run report; one that is no longer kept is
// RESOURCE_UNKNOWN.
func (s *Ops) BatchRun(id string) (BatchRun, error) {
	return read(s.core, "read batch run", func(tx Tx) (BatchRun, error) {
		r, err := tx.BatchRun(id)
		return r, found(err, "batch run", id)
	})
}

// CountsText writes a batch run's counts in the order of the statuses:
// "ACSC 3, PDNG 1"; "no payment moved" when there are none.
func CountsText(counts map[string]int) string {
	var parts []string
	for _, st := range PaymentStatuses {
		if n := counts[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", st, n))
		}
	}
	if len(parts) == 0 {
		return "no payment moved"
	}
	return strings.Join(parts, ", ")
}
