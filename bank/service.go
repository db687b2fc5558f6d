// Package bank is Sandbank's domain: the sandbox bank's records, its rules
// and the services that apply them. The HTTP API and the desktop screens
// call these services, so every rule has one implementation. The package
// imports no HTTP, storage or GUI code; storage is behind the Store
// interface.
package bank

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Clock tells the bank what time it is. Every rule that reads "now" asks it.
type Clock interface {
	Now() time.Time
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }

// Service is the bank. It is safe for concurrent use; the store serialises
// writes.
type Service struct {
	store  Store
	clock  Clock
	events hub
	offset atomic.Int64  // the sandbox clock's offset, in seconds
	legacy atomic.Uint32 // the legacy date's Key, 0 when none
	faults atomic.Pointer[Faults]
	// settingsSeq numbers settings updates in the order they commit (the
	// store serialises writes); appliedSeq is the number of the update
	// whose settings are in force, guarded by applyMu.
	settingsSeq atomic.Uint64
	applyMu     sync.Mutex
	appliedSeq  uint64
	// batch serialises batch runs: the scheduler, run-now and clock moves.
	batch sync.Mutex
	// lastRun is the last scheduled batch run made (guarded by batch).
	lastRun time.Time
}

// New returns the bank over a store. Its sandbox clock runs at clock's
// pace, moved by the offset stored in the settings.
func New(store Store, clock Clock) *Service {
	s := &Service{store: store, clock: clock}
	if st, err := s.Settings(); err == nil {
		s.apply(st)
	}
	return s
}

// Now returns the sandbox clock's time: the real time moved by the clock
// offset. Every rule that reads "now" uses it.
func (s *Service) Now() time.Time {
	return s.clock.Now().Add(time.Duration(s.offset.Load()) * time.Second)
}

// Today returns the bank's current calendar date on the sandbox clock.
func (s *Service) Today() Date { return DateOf(s.Now()) }

// view runs fn in a read transaction and turns storage failures into errors
// that say what failed.
func (s *Service) view(what string, fn func(Tx) error) error {
	return wrapStorage(what, s.store.View(fn))
}

// update runs fn in a write transaction; fn's errors roll everything back.
func (s *Service) update(what string, fn func(Tx) error) error {
	return wrapStorage(what, s.store.Update(fn))
}

// wrapStorage leaves bank errors as they are and gives any other error the
// context of the operation, so logs say what failed. Such errors reach a
// client only as SYSTEM_ERROR.
func wrapStorage(what string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := AsError(err); ok {
		return err
	}
	if errors.Is(err, ErrNotFound) {
		return fmt.Errorf("%s: a record it needs is missing: %w", what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// unknown is the RESOURCE_UNKNOWN error for a missing record.
func unknown(what, id string) *Error {
	return Errorf(CodeResourceUnknown, "%s %s does not exist", what, clip(id))
}

// found turns ErrNotFound from a lookup into RESOURCE_UNKNOWN for what/id.
func found(err error, what, id string) error {
	if errors.Is(err, ErrNotFound) {
		return unknown(what, id)
	}
	return err
}
