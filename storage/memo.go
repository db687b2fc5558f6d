package storage

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"

	"sandbank/bank"
)

// memoSize bounds the records a memo keeps; a full memo starts again.
const memoSize = 1024

// memo remembers the records of one kind decoded from the bytes they are
// stored as: a record read again, unchanged, is not decoded again. Every
// signed request of account information reads the PSU, customer, grant,
// session and account, and decoding their JSON was a tenth of the bank's
// CPU. A memo keeps one entry per record key, with the bytes it was
// decoded from, and answers from it only when the stored bytes are the
// same; so it holds no state of its own to keep up to date: a record
// written anew has other bytes and is decoded again, and the same bytes
// always decode to the same record, whichever data file or transaction
// they come from. An account written at every payment takes one entry,
// not one per version.
type memo[T any] struct {
	mu   sync.Mutex
	kept map[string]memoEntry[T] // by record key
	// own makes the copy a caller gets its own: it copies what T shares
	// through slices (nil: T shares nothing a caller may change). A
	// decimal.Decimal's number and a time.Time's zone are shared; no code
	// changes them in place.
	own func(T) T
}

// memoEntry is a record a memo keeps and the bytes it was decoded from.
type memoEntry[T any] struct {
	raw    string
	record T
}

// The memos of the records every request of account information or a
// payment reads.
var (
	customerMemo   = &memo[bank.Customer]{}
	agreementMemo  = &memo[bank.Agreement]{}
	engagementMemo = &memo[bank.Engagement]{own: func(e bank.Engagement) bank.Engagement {
		e.Roles = slices.Clone(e.Roles)
		return e
	}}
	accountMemo = &memo[bank.Account]{}
	grantMemo   = &memo[bank.Grant]{own: func(g bank.Grant) bank.Grant {
		g.Accounts = slices.Clone(g.Accounts)
		return g
	}}
	sessionMemo = &memo[bank.Session]{}
	psuMemo     = &memo[bank.PSU]{}
	consentMemo = &memo[bank.Consent]{own: func(c bank.Consent) bank.Consent {
		c.AuthorisationIDs, c.Accounts = slices.Clone(c.AuthorisationIDs), slices.Clone(c.Accounts)
		return c
	}}
)

// get reads the record at k of b, as getJSON does.
func (m *memo[T]) get(b *bolt.Bucket, k []byte) (T, error) {
	raw := b.Get(k)
	if raw == nil {
		var zero T
		return zero, bank.ErrNotFound
	}
	return m.decode(k, raw, true)
}

// decode returns the record stored as raw at key k: the memo's, or
// decoded, and kept when keep is set.
func (m *memo[T]) decode(k, raw []byte, keep bool) (T, error) {
	m.mu.Lock()
	e, ok := m.kept[string(k)]
	m.mu.Unlock()
	v := e.record
	if !ok || e.raw != string(raw) {
		var fresh T
		if err := json.Unmarshal(raw, &fresh); err != nil {
			var zero T
			return zero, fmt.Errorf("decode record %x: %w", k, err)
		}
		if !keep {
			return fresh, nil // decoded for this caller alone
		}
		v = fresh
		m.mu.Lock()
		if _, known := m.kept[string(k)]; m.kept == nil || (len(m.kept) >= memoSize && !known) {
			m.kept = make(map[string]memoEntry[T]) // grown as needed: most kinds hold a few records
		}
		m.kept[string(k)] = memoEntry[T]{raw: string(raw), record: v}
		m.mu.Unlock()
	}
	if m.own != nil {
		v = m.own(v)
	}
	return v, nil
}

// list decodes every record of b, in key order, as listJSON does. It
// takes what the memo has, but keeps nothing: a list of many records
// would push out the few every request reads.
func (m *memo[T]) list(b *bolt.Bucket) ([]T, error) {
	out := []T{}
	err := b.ForEach(func(k, raw []byte) error {
		v, err := m.decode(k, raw, false)
		out = append(out, v)
		return err
	})
	return out, err
}
