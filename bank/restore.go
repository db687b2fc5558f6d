package bank

import (
	"errors"
	"time"

	"sandbank/bank/apierr"
)

// The door of a scenario (bank/scenario) into the bank: what an import and
// an export must do inside the bank's locks. An import makes the sandbox
// anew in new data beside the live ones (Rebuild), restores the settings
// and the clock there (RestoreState), and the bank swaps the data and puts
// the settings and the batch schedule in force under its locks, in the
// order settings writes commit. An export reads one moment's data while no
// batch run moves it (Export). The records themselves are made and read
// through the store (Tx) and the rules the sandbox API uses.

// ScenarioClock is the sandbox clock as a scenario keeps it. Import sets
// the clock so that the sandbox's "now" is Now, and the batch schedule so
// that the next scheduled run is the first after LastBatchRun: the batch
// runs a restored sandbox makes are the ones the exported one would have
// made.
type ScenarioClock struct {
	// Now is the sandbox time at the export.
	Now time.Time `json:"now"`
	// LastBatchRun is the last scheduled batch run made before the export.
	LastBatchRun time.Time `json:"lastBatchRun,omitzero"`
}

// ErrRebuildAgain is what the build function of Rebuild returns to drop
// the data it made and be called once more on new data, still holding the
// import's place: for a scenario that cannot be read as it comes and is
// read whole the second time.
var ErrRebuildAgain = errors.New("rebuild the data again")

// Restored is what an import sets besides records (RestoreState): the
// settings in force after it (none when they stay) and the batch schedule
// (zero when it stays).
type Restored struct {
	settings *Settings
	seq      uint64
	lastRun  time.Time
}

// Rebuild replaces the sandbox data with the data build makes (what names
// the work, for a storage failure): build
// writes them into new data beside the live ones (Store.Rebuild,
// committing as it goes), and when it ends without an error they replace
// the live data whole, and the settings and schedule it restored
// (RestoreState) come in force; else the live data stay as they were.
// While it runs every other write is refused as busy, saying how far p is;
// reads answer from the live data. The change is announced as a reset.
func (s *Sandbox) Rebuild(what string, p *ImportProgress, build func(next Staging) (Restored, error)) error {
	if !s.importing.CompareAndSwap(nil, p) {
		return s.importing.Load().busy()
	}
	defer s.importing.Store(nil)
	var kept Restored
	run := func() error {
		return s.store.Rebuild(func(next Staging) error {
			var err error
			kept, err = build(next)
			return err
		})
	}
	err := run()
	if errors.Is(err, ErrRebuildAgain) {
		p.done.Store(0)
		err = run()
	}
	if err != nil {
		return wrapStorage(what, err)
	}
	events := []Event{{Kind: EventReset}}
	if kept.settings != nil {
		s.applyRestored(kept)
		events = append(events, Event{Kind: EventSettings})
	}
	s.publish(events...)
	return nil
}

// RestoreState works out and stores, in the import's transaction tx, the
// settings and the clock of a scenario: the settings are taken whole from
// settings, but for the clock offset: with a clock, the offset that puts
// the sandbox's now at clock.Now; without one, the offset in force. A
// scenario with neither leaves both as they are. What breaks a rule is a
// finding at its path (clock.now, settings.…).
func (s *Sandbox) RestoreState(tx Tx, clock *ScenarioClock, settings *Settings) (Restored, error) {
	var r Restored
	if clock == nil && settings == nil {
		return r, nil
	}
	st, err := settingsIn(tx)
	if err != nil {
		return r, err
	}
	offset := st.ClockOffsetSeconds
	var v apierr.Violations
	if c := clock; c != nil {
		offset = s.offsetTo(c.Now)
		switch {
		case c.Now.IsZero():
			v.Format("clock.now", "is required: the sandbox time the scenario was exported at (RFC 3339)")
		case offset > maxClockOffset || offset < -maxClockOffset:
			v.Format("clock.now", "%s is more than 100 years away; the sandbox clock may be moved at most 100 years either way", c.Now.Format(time.RFC3339))
		case c.LastBatchRun.After(c.Now):
			v.Format("clock.lastBatchRun", "is after clock.now; the last batch run was made before the export")
		}
		r.lastRun = c.LastBatchRun
		if r.lastRun.IsZero() {
			r.lastRun = c.Now // the schedule starts at the restored now
		}
	}
	if settings != nil {
		st = *settings
	}
	st.ClockOffsetSeconds = offset
	if err := st.Check(); err != nil {
		e, _ := apierr.AsError(err)
		v.Merge("settings", e)
	}
	if err := v.Err(); err != nil {
		return r, err
	}
	if err := tx.PutSetting(settingsKey, st); err != nil {
		return r, err
	}
	if !r.lastRun.IsZero() {
		if err := tx.PutSetting(batchStateKey, batchState{LastRun: r.lastRun}); err != nil {
			return r, err
		}
	}
	r.settings, r.seq = &st, s.nextSettings()
	return r, nil
}

// applyRestored puts the settings and the schedule of an import in force,
// once it committed. Holding the batch lock, no batch run sees the new
// clock with the old schedule.
func (s *core) applyRestored(r Restored) {
	s.batch.Lock()
	defer s.batch.Unlock()
	s.inForce(r.seq, *r.settings)
	if !r.lastRun.IsZero() {
		s.lastRun = r.lastRun
	}
}

// Export calls read with one storage transaction of the live data and the
// settings and clock they are at, while no batch run moves them: what an
// export writes is one moment's data and no half of a run. The clock is
// the sandbox's now and the last scheduled batch run made, in Oslo time.
func (s *Sandbox) Export(read func(tx Tx, clock ScenarioClock, settings Settings) error) error {
	s.batch.Lock()
	defer s.batch.Unlock()
	return s.view("export scenario", func(tx Tx) error {
		st, err := settingsIn(tx)
		if err != nil {
			return err
		}
		last, err := s.scheduleAt(tx)
		if err != nil {
			return err
		}
		return read(tx, ScenarioClock{Now: s.Now().In(Oslo), LastBatchRun: last.In(Oslo)}, st)
	})
}

// scheduleAt is where the batch schedule stands: the last scheduled run
// made, or the one the data file remembers, or, on a new data file whose
// schedule the scheduler has yet to start, now, where it starts it (see
// resume). The caller holds the batch lock.
func (s *core) scheduleAt(tx Tx) (time.Time, error) {
	if !s.lastRun.IsZero() {
		return s.lastRun, nil
	}
	var state batchState
	if err := tx.Setting(batchStateKey, &state); err != nil && !errors.Is(err, ErrNotFound) {
		return time.Time{}, err
	}
	if state.LastRun.IsZero() {
		return s.Now(), nil
	}
	return state.LastRun, nil
}
