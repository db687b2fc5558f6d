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
// stored as, keyed by those bytes: a record read again, unchanged, is
// not decoded again. Every signed request of account information reads
// the PSU, customer, grant, session and account, and decoding their JSON
// was a tenth of the bank's CPU. The key is the stored value itself, so a
// memo holds no state of its own to keep up to date: a record written
// anew has other bytes, and the same bytes always decode to the same
// record, whichever data file or transaction they come from.
type memo[T any] struct {
	mu   sync.Mutex
	kept map[string]T
	// own makes the copy a caller gets its own: it copies what T shares
	// through slices (nil: T shares nothing a caller may change). A
	// decimal.Decimal's number and a time.Time's zone are shared; no code
	// changes them in place.
	own func(T) T
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
	v, ok := m.kept[string(raw)]
	m.mu.Unlock()
	if !ok {
		if err := json.Unmarshal(raw, &v); err != nil {
			var zero T
			return zero, fmt.Errorf("decode record %x: %w", k, err)
		}
		if !keep {
			return v, nil // decoded for this caller alone
		}
		m.mu.Lock()
		if len(m.kept) >= memoSize || m.kept == nil {
			m.kept = make(map[string]T) // grown as needed: most kinds hold a few records
		}
		m.kept[string(raw)] = v
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
