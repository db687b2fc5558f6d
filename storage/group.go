package storage

import (
	"errors"
	"sync"

	bolt "go.etcd.io/bbolt"

	"sandbank/bank"
)

// maxGroup bounds how many write functions share one transaction.
const maxGroup = 256

// group runs the write functions given to Batch: concurrent writes share
// one transaction and one commit (group commit). It has no goroutine of
// its own: the caller that finds it idle leads, running one group after
// another while more are queued, and hands the lead to the first caller
// still waiting once its own function has been answered.
type group struct {
	mu      sync.Mutex
	queue   []*write
	leading bool // a caller is running groups
}

// write is one call of Batch.
type write struct {
	fn func(bank.Tx) error
	// wake says true when this caller is to lead, false when it has been
	// answered: err, or the value of a panic in fn.
	wake     chan bool
	err      error
	panicked any
}

// errRedo rolls back a group's transaction to run it again without the
// function that failed.
var errRedo = errors.New("a function of the group failed")

// Batch runs fn in a read-write transaction that it may share with other
// Batch calls made at the same time, and returns once that transaction has
// been committed (and, as for Update, synced to disk), or has failed.
//
// When the file is idle, fn starts at once, alone, as with Update. Calls
// that come while a transaction is being written wait for it and then run
// together, in the order they came, in one transaction with one commit.
// Each sees what the ones before it in the group wrote. Its semantics are
// those of running the functions one after another, each in its own
// transaction:
//
//   - When fn returns an error (or panics), the group's transaction is
//     rolled back and the others are run again, in order, in a new one;
//     fn is not run again, and its error (or panic) is its answer. So fn
//     changed nothing, and the others do not depend on what it wrote.
//   - fn may therefore run more than once, each time in a transaction that
//     is rolled back but for the last. It must leave nothing changed but
//     the transaction, or change only what the next run sets again: assign
//     its results rather than append to them, and announce, count or keep
//     in memory only after Batch returned nil.
//   - When the commit fails, every function of the group gets the error.
//
// Once a transaction has found the file damaged, Batch refuses to write
// with an error wrapping ErrDamaged, like Update.
func (db *DB) Batch(fn func(bank.Tx) error) error {
	if err := db.damage.Load(); err != nil {
		return *err
	}
	w := &write{fn: fn, wake: make(chan bool, 1)}
	g := &db.group
	g.mu.Lock()
	g.queue = append(g.queue, w)
	lead := !g.leading
	g.leading = true
	g.mu.Unlock()
	if !lead {
		lead = <-w.wake
	}
	if lead {
		db.lead(w)
	}
	if w.panicked != nil {
		panic(w.panicked)
	}
	return w.err
}

// lead runs the queued functions, a group at a time, until me has been
// answered, then hands the lead on to the first caller still queued, or
// leaves the group idle.
func (db *DB) lead(me *write) {
	g := &db.group
	for {
		g.mu.Lock()
		n := min(len(g.queue), maxGroup)
		calls := g.queue[:n:n]
		g.queue = g.queue[n:]
		g.mu.Unlock()
		db.runGroup(calls)
		answered := false
		for _, w := range calls {
			if w == me {
				answered = true
			} else {
				w.wake <- false
			}
		}
		g.mu.Lock()
		if len(g.queue) == 0 {
			g.queue, g.leading = nil, false
			g.mu.Unlock()
			return
		}
		if answered {
			g.queue[0].wake <- true
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
	}
}

// runGroup runs calls in one transaction and sets each one's answer. A
// function that fails is answered with its error and taken out; the
// others run again in a new transaction.
func (db *DB) runGroup(calls []*write) {
	db.writing.RLock()
	defer db.writing.RUnlock()
	for len(calls) > 0 {
		failed := -1
		err := db.run(func() error {
			return db.bolt().Update(func(tx *bolt.Tx) error {
				t := &txn{tx: tx}
				for i, w := range calls {
					if w.panicked, w.err = call(w.fn, t); w.err != nil || w.panicked != nil {
						failed = i
						return errRedo
					}
				}
				return nil
			})
		})
		if failed < 0 || !errors.Is(err, errRedo) {
			// Committed, or the commit (or the file) failed: the same
			// answer for every function that had not failed on its own.
			for _, w := range calls {
				if w.panicked == nil && (failed < 0 || w.err == nil) {
					w.err = err
				}
			}
			return
		}
		calls = append(calls[:failed:failed], calls[failed+1:]...)
	}
}

// call runs fn, turning a panic into a value for its caller to raise,
// unless it is damage of the file: that goes on to DB.run.
func call(fn func(bank.Tx) error, t *txn) (panicked any, err error) {
	defer func() {
		if r := recover(); r != nil {
			if isDamage(r) {
				panic(r)
			}
			panicked = r
		}
	}()
	return nil, fn(t)
}
