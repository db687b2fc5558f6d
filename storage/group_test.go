package storage

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sandbank/bank"
)

// openGroupDB opens a fresh data file for the group commit tests.
func openGroupDB(t *testing.T) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "sandbank.db"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Check(); err != nil {
			t.Errorf("consistency check: %v", err)
		}
		_ = db.Close()
	})
	return db
}

// queued waits until n calls wait in the group's queue.
func queued(t *testing.T, db *DB, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		db.group.mu.Lock()
		got := len(db.group.queue)
		db.group.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d calls queued, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// counter reads the test's counter in a transaction.
func counter(tx bank.Tx) (int, error) {
	var n int
	if err := tx.Setting("counter", &n); err != nil && !errors.Is(err, bank.ErrNotFound) {
		return 0, err
	}
	return n, nil
}

// groupCall is one Batch call of a test and what became of it.
type groupCall struct {
	runs     atomic.Int32
	txIDs    []int // the transaction of each run
	err      error
	panicked any
}

// holdLeader starts a Batch call that holds the file until release is
// closed, so that the calls made meanwhile queue up.
func holdLeader(t *testing.T, db *DB) (release chan struct{}, done chan error) {
	t.Helper()
	release, done = make(chan struct{}), make(chan error, 1)
	inside := make(chan struct{})
	go func() {
		done <- db.Batch(func(bank.Tx) error {
			close(inside)
			<-release
			return nil
		})
	}()
	<-inside
	return release, done
}

// TestBatch_QueuedWritesShareOneCommit holds the writer while ten writes
// queue, and checks that they then run, in the order they came, in one
// transaction, and that each one's write is committed.
func TestBatch_QueuedWritesShareOneCommit(t *testing.T) {
	db := openGroupDB(t)
	release, done := holdLeader(t, db)
	const n = 10
	calls := make([]*groupCall, n)
	var order []int
	var wg sync.WaitGroup
	for i := range calls {
		c := &groupCall{}
		calls[i] = c
		wg.Go(func() {
			c.err = db.Batch(func(tx bank.Tx) error {
				c.runs.Add(1)
				c.txIDs = append(c.txIDs, tx.(*txn).tx.ID())
				order = append(order, i)
				return tx.PutSetting(fmt.Sprint("key", i), i)
			})
		})
		queued(t, db, i+1) // one at a time, so the order is known
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, c := range calls {
		if c.err != nil || c.runs.Load() != 1 || c.txIDs[0] != calls[0].txIDs[0] {
			t.Fatalf("call %d: err %v, %d runs, transactions %v; call 0's %v", i, c.err, c.runs.Load(), c.txIDs, calls[0].txIDs)
		}
	}
	if fmt.Sprint(order) != "[0 1 2 3 4 5 6 7 8 9]" {
		t.Fatalf("order %v", order)
	}
	err := db.View(func(tx bank.Tx) error {
		for i := range n {
			var v int
			if err := tx.Setting(fmt.Sprint("key", i), &v); err != nil || v != i {
				return fmt.Errorf("key%d = %d, %v", i, v, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBatch_AFailedWriteRollsBackOnlyItsOwnWork queues ten writes that
// each add one to a counter stored in the file and store a key of their
// own; the fourth one fails after its writes and the seventh panics. Each
// of those gets its own answer and leaves nothing; the others are run
// again without them and take effect once: the counter ends at 8.
func TestBatch_AFailedWriteRollsBackOnlyItsOwnWork(t *testing.T) {
	db := openGroupDB(t)
	release, done := holdLeader(t, db)
	const n, fails, panics = 10, 3, 6
	errFails, errBug := errors.New("refused on purpose"), errors.New("a bug in a write function")
	calls := make([]*groupCall, n)
	var wg sync.WaitGroup
	for i := range calls {
		c := &groupCall{}
		calls[i] = c
		wg.Go(func() {
			defer func() { c.panicked = recover() }()
			c.err = db.Batch(func(tx bank.Tx) error {
				c.runs.Add(1)
				v, err := counter(tx)
				if err != nil {
					return err
				}
				if err := tx.PutSetting("counter", v+1); err != nil {
					return err
				}
				if err := tx.PutSetting(fmt.Sprint("key", i), i); err != nil {
					return err
				}
				switch i {
				case fails:
					return errFails
				case panics:
					panic(errBug) // a string would read as damage of the file
				}
				return nil
			})
		})
		queued(t, db, i+1)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	// Calls 0-2 ran in all three attempts, 4 and 5 in the last two, 7-9
	// in the last; the failed ones once each.
	wantRuns := []int32{3, 3, 3, 1, 2, 2, 1, 1, 1, 1}
	for i, c := range calls {
		if c.runs.Load() != wantRuns[i] {
			t.Errorf("call %d ran %d times, want %d", i, c.runs.Load(), wantRuns[i])
		}
		switch i {
		case fails:
			if !errors.Is(c.err, errFails) || c.panicked != nil {
				t.Errorf("the failing call got %v, panic %v", c.err, c.panicked)
			}
		case panics:
			if c.panicked != errBug {
				t.Errorf("the panicking call got %v, panic %v", c.err, c.panicked)
			}
		default:
			if c.err != nil || c.panicked != nil {
				t.Errorf("call %d got %v, panic %v", i, c.err, c.panicked)
			}
		}
	}
	err := db.View(func(tx bank.Tx) error {
		if v, err := counter(tx); err != nil || v != n-2 {
			return fmt.Errorf("counter %d (%v), want %d: a write took effect more or less than once", v, err, n-2)
		}
		for i := range n {
			var v int
			err := tx.Setting(fmt.Sprint("key", i), &v)
			if i == fails || i == panics {
				if !errors.Is(err, bank.ErrNotFound) {
					return fmt.Errorf("the failed call %d left key%d: %v", i, i, err)
				}
			} else if err != nil {
				return fmt.Errorf("key%d: %v", i, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBatch_IdleWriteRunsAlone checks that a write on an idle file runs at
// once in its own transaction, and that consecutive writes each commit.
func TestBatch_IdleWriteRunsAlone(t *testing.T) {
	db := openGroupDB(t)
	var ids []int
	for i := range 3 {
		err := db.Batch(func(tx bank.Tx) error {
			ids = append(ids, tx.(*txn).tx.ID())
			return tx.PutSetting("counter", i)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if ids[1] != ids[0]+1 || ids[2] != ids[1]+1 {
		t.Fatalf("transactions %v: one commit per write", ids)
	}
	db.group.mu.Lock()
	defer db.group.mu.Unlock()
	if db.group.leading || len(db.group.queue) != 0 {
		t.Fatalf("the group is not idle: leading %v, %d queued", db.group.leading, len(db.group.queue))
	}
}
