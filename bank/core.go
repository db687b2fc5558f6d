// Package bank is Sandbank's domain: the sandbox bank's records, its rules
// and the services that apply them. The HTTP API and the desktop screens
// call these services, so every rule has one implementation. The package
// imports no HTTP, storage or GUI code; storage is behind the Store
// interface.
//
// The bank has three doors, one per kind of caller, over one shared core:
// PSD2 is what a TPP may do (always scoped to that TPP and its PSU's
// consent), Sandbox edits the test data, and Ops is what the operator may
// do. A caller holds only the doors it needs: the PSD2 handlers hold PSD2
// alone, so an unscoped read does not compile there.
package bank

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"sandbank/bank/apierr"
	"sandbank/bank/hub"
)

// Clock tells the bank what time it is. Every rule that reads "now" asks it.
type Clock interface {
	Now() time.Time
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }

// Bank is the bank's three doors over one core. They are safe for
// concurrent use; the store serialises writes.
type Bank struct {
	// PSD2 is what a TPP may do: account information, SCA, payment
	// initiation, status and cancellation, authorisations, signing baskets
	// and its contact information. Every method is scoped to the calling
	// TPP and, for account information, its PSU's consent.
	PSD2 *PSD2
	// Sandbox edits the sandbox data: customers, agreements, engagements,
	// accounts, card accounts, transactions, generation and scenarios.
	Sandbox *Sandbox
	// Ops is what the operator may do: settings, the clock, faults, batch
	// runs, every TPP's payments and baskets, forced statuses, grants and
	// their revocation, and the change events.
	Ops *Ops
}

// PSD2 is the bank as a TPP sees it. See Bank.PSD2.
type PSD2 struct{ *core }

// Sandbox is the bank's test data. See Bank.Sandbox.
type Sandbox struct{ *core }

// Ops is the bank as its operator sees it. See Bank.Ops.
type Ops struct{ *core }

// core is the machinery the three doors share: the store, the clock, the
// change events and the settings that hot paths read from memory.
type core struct {
	store  Store
	clock  Clock
	events hub.Hub[Event]
	offset atomic.Int64  // the sandbox clock's offset, in seconds
	legacy atomic.Uint32 // the legacy date's Key, 0 when none
	// strictMode is the strict setting: oddities are refused.
	strictMode atomic.Bool
	// anyTPPOperator is operatorAccess any-tpp: every caller is the
	// operator.
	anyTPPOperator atomic.Bool
	// importing is the scenario import that runs, if one does: every other
	// write is refused as busy until it ends.
	importing atomic.Pointer[ImportProgress]
	faults    atomic.Pointer[Faults]
	// settingsSeq numbers settings updates in the order they commit: it
	// is taken inside the write transaction, which the store serialises
	// (a run that is rolled back and run again takes a new number).
	// appliedSeq is the number of the update whose settings are in force,
	// guarded by applyMu.
	settingsSeq atomic.Uint64
	applyMu     sync.Mutex
	appliedSeq  uint64
	// batch serialises batch runs: the scheduler, run-now and clock moves.
	batch sync.Mutex
	// lastRun is the last scheduled batch run made (guarded by batch).
	lastRun time.Time
	// subjects are what each kind of authorisation is for (see
	// scaSubject).
	subjects map[string]scaSubject
}

// New returns the bank over a store. Its sandbox clock runs at clock's
// pace, moved by the offset stored in the settings.
func New(store Store, clock Clock) *Bank {
	c := &core{store: store, clock: clock}
	c.subjects = map[string]scaSubject{
		AuthConsent: consent{c}, AuthUsers: identification{},
		AuthPayment: payments{c}, AuthBasket: payments{c},
	}
	if st, err := c.settings(); err == nil {
		c.apply(st)
	}
	return &Bank{PSD2: &PSD2{c}, Sandbox: &Sandbox{c}, Ops: &Ops{c}}
}

// Now returns the sandbox clock's time: the real time moved by the clock
// offset. Every rule that reads "now" uses it.
func (s *core) Now() time.Time {
	return s.clock.Now().Add(time.Duration(s.offset.Load()) * time.Second)
}

// Today returns the bank's current calendar date on the sandbox clock.
func (s *core) Today() Date { return DateOf(s.Now()) }

// view runs fn in a read transaction and turns storage failures into errors
// that say what failed.
func (s *core) view(what string, fn func(Tx) error) error {
	return wrapStorage(what, s.store.View(fn))
}

// read runs fn in a read transaction and returns what it found.
func read[T any](s *core, what string, fn func(Tx) (T, error)) (T, error) {
	var out T
	err := s.view(what, func(tx Tx) error {
		var err error
		out, err = fn(tx)
		return err
	})
	return out, err
}

// update runs fn in a write transaction; fn's errors roll everything back.
// Concurrent updates share a transaction and its commit (Store.Batch), so
// fn may run more than once: it must keep its effects in the transaction,
// and assign (not append to) what it hands out, so that the last run's
// results are the ones returned. Events, counters and settings in memory
// change after update returned. While a scenario import runs, it refuses
// at once as busy rather than wait behind the import (an Error with
// RetryAfter set).
func (s *core) update(what string, fn func(Tx) error) error {
	if p := s.importing.Load(); p != nil {
		return p.busy()
	}
	return wrapStorage(what, s.store.Batch(fn))
}

// wrapStorage leaves bank errors as they are and gives any other error the
// context of the operation, so logs say what failed. Such errors reach a
// client only as SYSTEM_ERROR.
func wrapStorage(what string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := apierr.AsError(err); ok {
		return err
	}
	if errors.Is(err, ErrNotFound) {
		return fmt.Errorf("%s: a record it needs is missing: %w", what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// unknown is the RESOURCE_UNKNOWN error for a missing record.
func unknown(what, id string) *apierr.Error {
	return apierr.Errorf(apierr.CodeResourceUnknown, "%s %s does not exist", what, apierr.Clip(id))
}

// found turns ErrNotFound from a lookup into RESOURCE_UNKNOWN for what/id.
func found(err error, what, id string) error {
	if errors.Is(err, ErrNotFound) {
		return unknown(what, id)
	}
	return err
}
