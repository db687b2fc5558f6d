package storage

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sandbank/bank"
)

func TestOpen_RemovesTheLeftoverOfAKilledRebuild(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbank.db")
	db, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx bank.Tx) error { return tx.PutSetting("kept", "old") }); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+rebuildSuffix, []byte("half a new data file"), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err = Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	if _, err := os.Stat(path + rebuildSuffix); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the leftover is still there: %v", err)
	}
	var v string
	if err := db.View(func(tx bank.Tx) error { return tx.Setting("kept", &v) }); err != nil || v != "old" {
		t.Fatalf("the old data: %q, %v", v, err)
	}
}

func TestRebuild_KeepsSettingsAndSwapsInWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbank.db")
	db, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	put := func(tx bank.Tx, n string) error {
		return tx.PutCustomer(bank.Customer{ID: bank.FormatID(bank.KindCustomer, 0, 100), Number: n, Name: "X", Type: bank.Private})
	}
	err = db.Update(func(tx bank.Tx) error {
		if err := tx.PutSetting("kept", "yes"); err != nil {
			return err
		}
		return put(tx, "1")
	})
	if err != nil {
		t.Fatal(err)
	}
	failed := errors.New("refused")
	err = db.Rebuild(func(next bank.Staging) error {
		if err := put(next.Tx(), "2"); err != nil {
			return err
		}
		if err := next.Commit(); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("rebuild: %v", err)
	}
	number := func() string {
		var c bank.Customer
		_ = db.View(func(tx bank.Tx) error { c, err = tx.Customer(bank.FormatID(bank.KindCustomer, 0, 100)); return nil })
		return c.Number
	}
	if n := number(); n != "1" {
		t.Fatalf("a failed rebuild left customer number %q", n)
	}
	if err := db.Rebuild(func(next bank.Staging) error { return put(next.Tx(), "3") }); err != nil {
		t.Fatal(err)
	}
	var kept string
	if err := db.View(func(tx bank.Tx) error { return tx.Setting("kept", &kept) }); err != nil || kept != "yes" || number() != "3" {
		t.Fatalf("after the rebuild: setting %q (%v), customer %q", kept, err, number())
	}
	if err := db.Update(func(tx bank.Tx) error { return put(tx, "4") }); err != nil || number() != "4" {
		t.Fatalf("a write after the rebuild: %v", err)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("the folder holds %d files after the rebuild", len(entries))
	}
}

// TestRebuild_ReadsGoOnThroughTheSwap reads without pause from four
// goroutines while the data are made anew ten times: no read fails, and
// each sees the old data or the new, whole. The swap closes the old file
// before the rename, so a read may find it closed and must wait for the
// new one rather than fail.
func TestRebuild_ReadsGoOnThroughTheSwap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbank.db")
	db, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	db.SetNoSync(true)
	id := bank.FormatID(bank.KindCustomer, 0, 100)
	put := func(tx bank.Tx, n int) error {
		return tx.PutCustomer(bank.Customer{ID: id, Number: strconv.Itoa(n), Name: "X", Type: bank.Private})
	}
	if err := db.Update(func(tx bank.Tx) error { return put(tx, 0) }); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	errs := make(chan error, 4)
	var reads atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				err := db.View(func(tx bank.Tx) error {
					_, err := tx.Customer(id)
					return err
				})
				if err != nil {
					errs <- err
					return
				}
				reads.Add(1)
			}
		})
	}
	for n := 1; n <= 10; n++ {
		if err := db.Rebuild(func(next bank.Staging) error { return put(next.Tx(), n) }); err != nil {
			t.Fatalf("rebuild %d: %v", n, err)
		}
	}
	close(stop)
	wg.Wait()
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatalf("a read during the swaps failed: %v", err)
		}
	}
	var c bank.Customer
	if err := db.View(func(tx bank.Tx) (err error) { c, err = tx.Customer(id); return err }); err != nil || c.Number != "10" {
		t.Fatalf("after ten rebuilds: %+v, %v", c, err)
	}
	if err := db.Update(func(tx bank.Tx) error { return put(tx, 11) }); err != nil {
		t.Fatalf("a write after the rebuilds: %v", err)
	}
	if _, err := os.Stat(path + rebuildSuffix); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the new file is left beside the data file: %v", err)
	}
	t.Logf("%d reads during ten rebuilds", reads.Load())
}
