package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"sandbank/bank"
)

// SchemaVersion is the version of the bucket layout this code reads and
// writes. A data file with a higher version was made by a newer Sandbank;
// one with a lower version is brought up to this one by Writable (see
// migrate).
const SchemaVersion = 2

// ErrInUse is returned by Open when another process holds the data file.
var ErrInUse = errors.New("the data file is in use by another Sandbank; stop that one first, or start this one with another --data file")

// DB is an open data file.
type DB struct {
	// cur is the open bbolt file; Rebuild swaps it for the new one.
	cur      atomic.Pointer[bolt.DB]
	path     string
	lockWait time.Duration
	created  bool
	// readOnly is true from OpenReadOnly until Writable.
	readOnly bool
	// needPrepare is true when the file lacks its schema record or a
	// bucket: Writable makes them.
	needPrepare bool
	// txID and size are the last committed transaction and the size of
	// the pages that OpenReadOnly checked.
	txID int
	size int64
	// damage is set once a transaction found the file damaged; writes are
	// refused from then on.
	damage atomic.Pointer[error]
	// group runs the functions given to Batch.
	group group
	// writing is held (shared) by every write transaction and exclusively
	// by Rebuild's swap, so that no write goes to the file swapped out.
	writing sync.RWMutex
	// rebuilding is held while a Rebuild runs: one at a time.
	rebuilding sync.Mutex
	// noSync is what SetNoSync set, for the file a Rebuild swaps in.
	noSync atomic.Bool
	// reopening is set while Rebuild's swap has the data file closed: it
	// is closed when the file is open again.
	reopening atomic.Pointer[chan struct{}]
}

// bolt returns the open bbolt file.
func (db *DB) bolt() *bolt.DB { return db.cur.Load() }

// Open opens the data file at path for reading and writing, creating it
// and its folder when the file does not exist. It is OpenReadOnly followed
// by Writable: a file that is refused is not written to.
func Open(path string, lockWait time.Duration) (*DB, error) {
	db, err := OpenReadOnly(path, lockWait)
	if err != nil {
		return nil, err
	}
	if err := db.Writable(); err != nil {
		return nil, err
	}
	return db, nil
}

// OpenReadOnly opens the data file at path read-only and checks it, so
// that a caller can read what it needs before anything is written; Writable
// then reopens it for writing. A file that does not exist is created
// first, with its folder: a new file. It refuses, writing nothing:
//
//   - an empty (0-byte) file: more likely a damaged file than a new one;
//   - a file that fails the structure check (see checkStructure), or that
//     bbolt cannot open: its error wraps ErrDamaged;
//   - a file with a newer schema version, or a bbolt file of another
//     program.
//
// It waits at most lockWait for another process's lock and then fails
// with an error wrapping ErrInUse. While it is open read-only, other
// processes can read the file but not write it.
func OpenReadOnly(path string, lockWait time.Duration) (*DB, error) {
	if lockWait <= 0 {
		lockWait = 100 * time.Millisecond
	}
	db := &DB{path: path, lockWait: lockWait, readOnly: true}
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := db.create(); err != nil {
			return nil, err
		}
		if info, err = os.Stat(path); err != nil {
			return nil, fmt.Errorf("open data file %s: %w", path, err)
		}
	case err != nil:
		return nil, fmt.Errorf("open data file %s: %w", path, err)
	case !info.Mode().IsRegular():
		return nil, fmt.Errorf("the data file %s is not a regular file; choose another --data file", path)
	case info.Size() == 0:
		return nil, Damaged(path, "it is empty, 0 bytes: a new data file is one that does not exist, and an empty one is more likely damaged")
	}
	b, err := db.openBolt(true)
	if err != nil {
		return nil, err
	}
	db.cur.Store(b)
	err = guard(func() error {
		return b.View(func(tx *bolt.Tx) error {
			db.txID, db.size = tx.ID(), tx.Size()
			if err := checkSize(tx, info.Size()); err != nil {
				return err
			}
			if err := db.inspect(tx); err != nil {
				return err
			}
			err := checkStructure(tx, time.Now().Add(checkBudget))
			releasePages(tx) // the walk read much of the file
			return err
		})
	})
	if err != nil {
		_ = b.Close()
		return nil, db.refusal(err)
	}
	return db, nil
}

// create makes a new data file and its folder, with the schema record and
// every bucket, and closes it again.
func (db *DB) create() error {
	if err := os.MkdirAll(filepath.Dir(db.path), 0o700); err != nil {
		return fmt.Errorf("create data folder: %w", err)
	}
	b, err := db.openBolt(false)
	if err != nil {
		return err
	}
	if err := b.Update(db.prepare); err != nil {
		_ = b.Close()
		return db.refusal(err)
	}
	return b.Close()
}

// openBolt opens the file with bbolt, read-only or for writing.
func (db *DB) openBolt(readOnly bool) (*bolt.DB, error) {
	var b *bolt.DB
	err := guard(func() error {
		var err error
		b, err = bolt.Open(db.path, 0o600, &bolt.Options{Timeout: db.lockWait, ReadOnly: readOnly, FreelistType: bolt.FreelistMapType})
		return err
	})
	switch {
	case err == nil:
		return b, nil
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("open %s: %w", db.path, ErrInUse)
	case errors.Is(err, ErrDamaged):
		return nil, db.refusal(err)
	case errors.As(err, new(*fs.PathError)):
		return nil, fmt.Errorf("open data file %s: %w", db.path, err)
	}
	return nil, Damaged(db.path, "bbolt cannot open it: "+err.Error())
}

// Writable reopens a file opened by OpenReadOnly for writing, and makes
// its schema record and buckets when it lacks them. It fails with an
// error wrapping ErrInUse when another process took the file, or wrote to
// it, in between. Call it before the DB is used concurrently.
func (db *DB) Writable() error {
	if !db.readOnly {
		return nil
	}
	if err := db.bolt().Close(); err != nil {
		return fmt.Errorf("close data file %s: %w", db.path, err)
	}
	b, err := db.openBolt(false)
	if err != nil {
		return err
	}
	var txID int
	var size int64
	_ = b.View(func(tx *bolt.Tx) error {
		txID, size = tx.ID(), tx.Size()
		return nil
	})
	if txID != db.txID || size != db.size {
		_ = b.Close()
		return fmt.Errorf("open %s: another program wrote to the data file while Sandbank checked it: %w", db.path, ErrInUse)
	}
	if db.needPrepare {
		if err := b.Update(db.prepare); err != nil {
			_ = b.Close()
			return db.refusal(err)
		}
	}
	db.cur.Store(b)
	db.readOnly = false
	return removeLeftover(db.path)
}

// refusal gives an error from opening the file its path, unless it names
// the file already.
func (db *DB) refusal(err error) error {
	var d *damageError
	if errors.As(err, &d) {
		return &damageError{path: db.path, problem: d.problem}
	}
	return fmt.Errorf("data file %s: %w", db.path, err)
}

// inspect reads the schema record and notes what prepare has to make.
func (db *DB) inspect(tx *bolt.Tx) error {
	var v []byte
	if meta := tx.Bucket(bktMeta); meta != nil {
		v = meta.Get(keySchema)
	}
	if err := checkSchema(tx, v); err != nil {
		return err
	}
	if v == nil {
		db.created, db.needPrepare = true, true
	} else if binary.BigEndian.Uint64(v) < SchemaVersion {
		db.needPrepare = true
	}
	for _, name := range allBuckets {
		if tx.Bucket(name) == nil {
			db.needPrepare = true
		}
	}
	return nil
}

// checkSchema refuses a schema record v that this code cannot read, and a
// file without one that holds buckets of another program.
func checkSchema(tx *bolt.Tx, v []byte) error {
	switch {
	case v == nil:
		foreign := false
		_ = tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			foreign = foreign || string(name) != string(bktMeta)
			return nil
		})
		if foreign {
			return errors.New("the file is a bbolt database of another program, not a Sandbank data file; choose another --data file")
		}
	case len(v) != 8:
		return errors.New("the file is not a Sandbank data file (bad schema record)")
	case binary.BigEndian.Uint64(v) > SchemaVersion:
		return fmt.Errorf("the file has schema version %d, made by a newer Sandbank; this one reads version %d", binary.BigEndian.Uint64(v), SchemaVersion)
	}
	return nil
}

// prepare writes the schema record of a new file, migrates a file of an
// earlier schema version, and makes every top-level bucket.
func (db *DB) prepare(tx *bolt.Tx) error {
	meta, err := tx.CreateBucketIfNotExists(bktMeta)
	if err != nil {
		return err
	}
	v := meta.Get(keySchema)
	if err := checkSchema(tx, v); err != nil {
		return err
	}
	for _, name := range allBuckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	switch {
	case v == nil:
		db.created = true
	case binary.BigEndian.Uint64(v) < SchemaVersion:
		if err := migrate(tx); err != nil {
			return fmt.Errorf("bring the data file to schema version %d: %w", SchemaVersion, err)
		}
	default:
		return nil
	}
	return meta.Put(keySchema, u64(SchemaVersion))
}

// migrate brings a file of schema version 1 to the current layout: the
// request bodies of payments move from their own bucket into the payments
// bucket beside their payment (key <seq>r), and the paymentStatus bucket,
// which the status index made redundant, goes. Both save page writes on
// every payment written (see doc.go). It runs in the transaction of
// prepare: a file is migrated whole or not at all.
func migrate(tx *bolt.Tx) error {
	if old := tx.Bucket(bktPaymentRequestsV1); old != nil {
		payments := tx.Bucket(bktPayments)
		err := old.ForEach(func(k, v []byte) error {
			return payments.Put(requestKey(k), bytes.Clone(v))
		})
		if err != nil {
			return err
		}
		if err := tx.DeleteBucket(bktPaymentRequestsV1); err != nil {
			return err
		}
	}
	if tx.Bucket(bktPaymentStatusV1) != nil {
		return tx.DeleteBucket(bktPaymentStatusV1)
	}
	return nil
}

// Created reports whether Open made a new, empty data file.
func (db *DB) Created() bool { return db.created }

// Path returns the data file's path.
func (db *DB) Path() string { return db.path }

// Close closes the data file.
func (db *DB) Close() error { return db.bolt().Close() }

// SetNoSync turns the fsync after each commit off (or on again). Without
// it a crash can lose the last commits; tests and benchmarks that build
// large data sets use it, the bank never does.
func (db *DB) SetNoSync(off bool) {
	db.noSync.Store(off)
	db.bolt().NoSync = off
}

// View runs fn in a read-only transaction. When reading the file shows
// that it is damaged, View returns an error wrapping ErrDamaged.
func (db *DB) View(fn func(bank.Tx) error) error {
	for {
		b := db.bolt()
		err := db.run(func() error {
			return b.View(func(tx *bolt.Tx) error { return fn(&txn{tx: tx}) })
		})
		// A read that began as Rebuild closed the file it swapped out
		// waits for the data file to be open again, and reads it.
		if !errors.Is(err, berrors.ErrDatabaseNotOpen) {
			return err
		}
		if ch := db.reopening.Load(); ch != nil {
			<-*ch
		} else if db.bolt() == b {
			return err
		}
	}
}

// Update runs fn alone in a read-write transaction, once, committed only
// when fn returns nil. Once a transaction has found the file damaged,
// Update refuses to write with an error wrapping ErrDamaged. Batch lets
// concurrent writes share a commit.
func (db *DB) Update(fn func(bank.Tx) error) error {
	if err := db.damage.Load(); err != nil {
		return *err
	}
	db.writing.RLock()
	defer db.writing.RUnlock()
	return db.run(func() error {
		return db.bolt().Update(func(tx *bolt.Tx) error { return fn(&txn{tx: tx}) })
	})
}

// run runs a transaction, turning what bbolt does on a damaged page (a
// panic, or a fault reading the mapped file) into an error; the
// transaction is rolled back by then. Other panics go on.
func (db *DB) run(fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		r := recover()
		if r == nil {
			return
		}
		if !isDamage(r) {
			panic(r)
		}
		e := Damaged(db.path, fmt.Sprintf("reading its pages: %v", r))
		db.damage.CompareAndSwap(nil, &e)
		err = e
	}()
	return fn()
}

// Check runs bbolt's consistency check and returns the first problem found.
func (db *DB) Check() error {
	return db.bolt().View(func(tx *bolt.Tx) error {
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

	// buckets of schema version 1 that migrate empties and deletes
	bktPaymentRequestsV1 = []byte("paymentRequests")
	bktPaymentStatusV1   = []byte("paymentStatus")
)

// sandboxBuckets hold the sandbox data that Reset clears.
var sandboxBuckets = [][]byte{
	bktCustomers, bktCustomersByNumber, bktAgreements, bktAgreementsByOwner,
	bktEngagements, bktEngByCustomer, bktEngByAccount,
	bktAccounts, bktAccountsByIBAN, bktAccountsByBBAN, bktAccountsByOwner,
	bktCards, bktCardsByOwner, bktTransactions, bktCardTransactions,
	bktAuthorisations, bktConsents, bktGrants, bktSessions, bktPSUs, bktUsage,
	bktPayments, bktPaymentsByStatus, bktPaymentDupes, bktBaskets, bktBatchRuns,
}

var allBuckets = append([][]byte{bktSettings, bktTPPContacts}, sandboxBuckets...)

// txn implements bank.Tx on one bbolt transaction.
type txn struct {
	tx *bolt.Tx
	// opened are the buckets a read-only transaction has opened, by name
	// (bbolt keeps those of a writable one itself): a request of account
	// information opens six or seven, some more than once, and each
	// opening is a search of the root.
	opened [8]openedBucket
}

// openedBucket is a bucket a read-only transaction opened.
type openedBucket struct {
	name   []byte
	bucket *bolt.Bucket
}

var _ bank.Tx = (*txn)(nil)

// b opens the top-level bucket name, one of the bkt names.
func (t *txn) b(name []byte) *bolt.Bucket {
	if t.tx.Writable() {
		return t.tx.Bucket(name)
	}
	for i := range t.opened {
		o := &t.opened[i]
		if o.name == nil {
			o.name, o.bucket = name, t.tx.Bucket(name)
			return o.bucket
		}
		if string(o.name) == string(name) {
			return o.bucket
		}
	}
	return t.tx.Bucket(name)
}

// ReleasePages lets go of the memory the transaction's reads of the
// mapped data file took (releasePages).
func (t *txn) ReleasePages() { releasePages(t.tx) }

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
	b := t.b(bktSettings)
	if b == nil { // a file that Writable has yet to prepare
		return bank.ErrNotFound
	}
	raw := b.Get([]byte(name))
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
