package storage

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"sandbank/bank"
)

// SchemaVersion is the version of the bucket layout this code reads and
// writes. A data file with a higher version was made by a newer Sandbank.
const SchemaVersion = 1

// ErrInUse is returned by Open when another process holds the data file.
var ErrInUse = errors.New("the data file is in use by another Sandbank; stop that one first, or start this one with another --data file")

// DB is an open data file.
type DB struct {
	bolt    *bolt.DB
	path    string
	created bool
}

// Open opens the data file at path, creating it and its folder when they do
// not exist. It waits at most lockWait for another process's lock and then
// fails with an error wrapping ErrInUse.
func Open(path string, lockWait time.Duration) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data folder: %w", err)
	}
	if lockWait <= 0 {
		lockWait = 100 * time.Millisecond
	}
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockWait, FreelistType: bolt.FreelistMapType})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("open %s: %w", path, ErrInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("open data file %s: %w", path, err)
	}
	db := &DB{bolt: b, path: path}
	if err := b.Update(db.prepare); err != nil {
		_ = b.Close()
		return nil, fmt.Errorf("prepare data file %s: %w", path, err)
	}
	return db, nil
}

// prepare checks the schema version and makes every top-level bucket.
func (db *DB) prepare(tx *bolt.Tx) error {
	meta, err := tx.CreateBucketIfNotExists(bktMeta)
	if err != nil {
		return err
	}
	switch v := meta.Get(keySchema); {
	case v == nil:
		foreign := false
		_ = tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			foreign = foreign || string(name) != string(bktMeta)
			return nil
		})
		if foreign {
			return errors.New("the file is a bbolt database of another program, not a Sandbank data file; choose another --data file")
		}
		db.created = true
		if err := meta.Put(keySchema, u64(SchemaVersion)); err != nil {
			return err
		}
	case len(v) != 8:
		return errors.New("the file is not a Sandbank data file (bad schema record)")
	case binary.BigEndian.Uint64(v) > SchemaVersion:
		return fmt.Errorf("the file has schema version %d, made by a newer Sandbank; this one reads version %d", binary.BigEndian.Uint64(v), SchemaVersion)
	}
	for _, name := range allBuckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	return nil
}

// Created reports whether Open made a new, empty data file.
func (db *DB) Created() bool { return db.created }

// Path returns the data file's path.
func (db *DB) Path() string { return db.path }

// Close closes the data file.
func (db *DB) Close() error { return db.bolt.Close() }

// SetNoSync turns the fsync after each commit off (or on again). Without
// it a crash can lose the last commits; tests and benchmarks that build
// large data sets use it, the bank never does.
func (db *DB) SetNoSync(off bool) { db.bolt.NoSync = off }

// View runs fn in a read-only transaction.
func (db *DB) View(fn func(bank.Tx) error) error {
	return db.bolt.View(func(tx *bolt.Tx) error { return fn(&txn{tx: tx}) })
}

// Update runs fn in a read-write transaction, committed only when fn
// returns nil.
func (db *DB) Update(fn func(bank.Tx) error) error {
	return db.bolt.Update(func(tx *bolt.Tx) error { return fn(&txn{tx: tx}) })
}

// Check runs bbolt's consistency check and returns the first problem found.
func (db *DB) Check() error {
	return db.bolt.View(func(tx *bolt.Tx) error {
		var first error
		for err := range tx.Check() { // drain it: the checker stops only at the end
			if first == nil {
				first = err
			}
		}
		return first
	})
}

// Bucket names. See doc.go.
var (
	bktMeta              = []byte("meta")
	bktSettings          = []byte("settings")
	bktTPPContacts       = []byte("tppContacts")
	bktCustomers         = []byte("customers")
	bktCustomersByNumber = []byte("customersByNumber")
	bktAgreements        = []byte("agreements")
	bktAgreementsByOwner = []byte("agreementsByOwner")
	bktEngagements       = []byte("engagements")
	bktEngByCustomer     = []byte("engagementsByCustomer")
	bktEngByAccount      = []byte("engagementsByAccount")
	bktAccounts          = []byte("accounts")
	bktAccountsByIBAN    = []byte("accountsByIban")
	bktAccountsByBBAN    = []byte("accountsByBban")
	bktAccountsByOwner   = []byte("accountsByOwner")
	bktCards             = []byte("cardAccounts")
	bktCardsByOwner      = []byte("cardAccountsByOwner")
	bktTransactions      = []byte("transactions")
	bktCardTransactions  = []byte("cardTransactions")
	bktAuthorisations    = []byte("authorisations")
	bktConsents          = []byte("consents")
	bktGrants            = []byte("grants")
	bktSessions          = []byte("sessions")
	bktPSUs              = []byte("psus")
	bktUsage             = []byte("usage")
	bktPayments          = []byte("payments")
	bktPaymentRequests   = []byte("paymentRequests")
	bktPaymentStatus     = []byte("paymentStatus")
	bktPaymentsByStatus  = []byte("paymentsByStatus")
	bktPaymentDupes      = []byte("paymentDuplicates")
	bktBaskets           = []byte("baskets")
	bktBatchRuns         = []byte("batchRuns")

	// sub-buckets of one account's (or card account's) transactions
	subBooked  = []byte("b")
	subBySeq   = []byte("s")
	subDays    = []byte("d")
	subPending = []byte("p")
	subByCTID  = []byte("i")

	keySchema = []byte("schema")
)

// sandboxBuckets hold the sandbox data that Reset clears.
var sandboxBuckets = [][]byte{
	bktCustomers, bktCustomersByNumber, bktAgreements, bktAgreementsByOwner,
	bktEngagements, bktEngByCustomer, bktEngByAccount,
	bktAccounts, bktAccountsByIBAN, bktAccountsByBBAN, bktAccountsByOwner,
	bktCards, bktCardsByOwner, bktTransactions, bktCardTransactions,
	bktAuthorisations, bktConsents, bktGrants, bktSessions, bktPSUs, bktUsage,
	bktPayments, bktPaymentRequests, bktPaymentStatus, bktPaymentsByStatus, bktPaymentDupes, bktBaskets, bktBatchRuns,
}

var allBuckets = append([][]byte{bktSettings, bktTPPContacts}, sandboxBuckets...)

// txn implements bank.Tx on one bbolt transaction.
type txn struct {
	tx *bolt.Tx
}

var _ bank.Tx = (*txn)(nil)

func (t *txn) b(name []byte) *bolt.Bucket { return t.tx.Bucket(name) }

// u64 encodes v as 8 big-endian bytes, so keys sort like numbers.
func u64(v uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return b[:]
}

// cat joins key parts.
func cat(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// getJSON reads and decodes the record at k, or returns bank.ErrNotFound.
func getJSON[T any](b *bolt.Bucket, k []byte) (T, error) {
	var v T
	raw := b.Get(k)
	if raw == nil {
		return v, bank.ErrNotFound
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("decode record %x: %w", k, err)
	}
	return v, nil
}

func putJSON(b *bolt.Bucket, k []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	return b.Put(k, raw)
}

// listJSON decodes every record of a bucket, in key order.
func listJSON[T any](b *bolt.Bucket) ([]T, error) {
	out := []T{}
	err := b.ForEach(func(k, raw []byte) error {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("decode record %x: %w", k, err)
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// listByPrefix visits the index keys that start with prefix and loads the
// record each names through load, which gets the key without the prefix.
func listByPrefix[T any](idx *bolt.Bucket, prefix []byte, load func(rest []byte) (T, error)) ([]T, error) {
	out := []T{}
	c := idx.Cursor()
	for k, _ := c.Seek(prefix); k != nil && hasPrefix(k, prefix); k, _ = c.Next() {
		v, err := load(k[len(prefix):])
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func hasPrefix(k, prefix []byte) bool {
	return len(k) >= len(prefix) && string(k[:len(prefix)]) == string(prefix)
}

// seqKey returns the 8-byte key of a top-level record id, ok false when the
// id is not of that kind.
func seqKey(kind bank.Kind, id string) ([]byte, bool) {
	seq, ok := bank.SeqOf(kind, id)
	if !ok {
		return nil, false
	}
	return u64(seq), true
}

func (t *txn) NextSeq(kind bank.Kind) (uint64, error) {
	meta := t.b(bktMeta)
	k := []byte{'s', 'e', 'q', byte(kind)}
	next := uint64(bank.FirstUserSeq)
	if v := meta.Get(k); len(v) == 8 {
		last := binary.BigEndian.Uint64(v)
		if last == math.MaxUint64 {
			return 0, fmt.Errorf("every sequence number of kind %d is used", kind)
		}
		next = max(next, last+1)
	}
	return next, meta.Put(k, u64(next))
}

func (t *txn) ReserveSeq(kind bank.Kind, seq uint64) error {
	meta := t.b(bktMeta)
	k := []byte{'s', 'e', 'q', byte(kind)}
	if v := meta.Get(k); len(v) == 8 && binary.BigEndian.Uint64(v) >= seq {
		return nil
	}
	return meta.Put(k, u64(seq))
}

func (t *txn) Setting(name string, v any) error {
	raw := t.b(bktSettings).Get([]byte(name))
	if raw == nil {
		return bank.ErrNotFound
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decode setting %s: %w", name, err)
	}
	return nil
}

func (t *txn) PutSetting(name string, v any) error {
	return putJSON(t.b(bktSettings), []byte(name), v)
}

func (t *txn) TPPContact(tppID string) (bank.TPPContact, error) {
	return getJSON[bank.TPPContact](t.b(bktTPPContacts), []byte(tppID))
}

func (t *txn) TPPContacts() ([]bank.TPPContact, error) {
	return listJSON[bank.TPPContact](t.b(bktTPPContacts))
}

func (t *txn) PutTPPContact(c bank.TPPContact) error {
	return putJSON(t.b(bktTPPContacts), []byte(c.TPPID), c)
}

func (t *txn) Reset() error {
	for _, name := range sandboxBuckets {
		if err := t.tx.DeleteBucket(name); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return fmt.Errorf("clear %s: %w", name, err)
		}
		if _, err := t.tx.CreateBucket(name); err != nil {
			return fmt.Errorf("clear %s: %w", name, err)
		}
	}
	return nil
}
