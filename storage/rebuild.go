package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"

	"sandbank/bank"
)

// rebuildSuffix names the new data file a Rebuild writes beside the data
// file: <data file>.importing.
const rebuildSuffix = ".importing"

// ErrWrittenMeanwhile is the failure of a Rebuild during which the live
// data file was written to: its new data would lose that write, so they
// are dropped.
var ErrWrittenMeanwhile = errors.New("the data file was written to while the new data were made; nothing changed, try again")

// removeLeftover removes the new data file of a Rebuild that did not
// finish (the process was killed): the data file beside it is whole.
func removeLeftover(path string) error {
	err := os.Remove(path + rebuildSuffix)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("remove the data file of an unfinished import: %w", err)
}

// Rebuild implements bank.Store. It writes the new data into a new file
// beside the data file (rebuildSuffix), with no fsync until the end, and
// swaps it in with a rename: the data file is one file before and after,
// and a crash at any point leaves either the old data or the new ones
// whole. The new file starts with a copy of every bucket Reset keeps
// (meta with the sequence counters, settings, tppContacts) and empty
// sandbox buckets. Reads go on from the old file until the swap (see
// swap); the DB value stays the same. When fn fails, or the data file was written to
// meanwhile (ErrWrittenMeanwhile), the new file is removed.
func (db *DB) Rebuild(fn func(next bank.Staging) error) error {
	if err := db.damage.Load(); err != nil {
		return *err
	}
	if !db.rebuilding.TryLock() {
		return errors.New("the data are being made anew already")
	}
	defer db.rebuilding.Unlock()
	if err := removeLeftover(db.path); err != nil {
		return err
	}
	tmp := db.path + rebuildSuffix
	next, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: db.lockWait, FreelistType: bolt.FreelistMapType})
	if err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	next.NoSync = true // one fsync at the end is enough: the file counts only once renamed
	st := &staging{db: next}
	swapped := false
	defer func() {
		if !swapped {
			st.rollback()
			_ = next.Close()
			_ = os.Remove(tmp)
		}
	}()
	since, err := db.copyKept(next)
	if err != nil {
		return err
	}
	if err := st.begin(); err != nil {
		return err
	}
	if err := fn(st); err != nil {
		return err
	}
	err = st.tx.Commit()
	st.tx = nil
	if err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := next.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	next.NoSync = db.noSync.Load()
	if err := db.swap(next, tmp, since); err != nil {
		return err
	}
	swapped = true
	return nil
}

// copyKept copies the buckets Reset keeps into the new file next and
// makes the sandbox buckets empty. It returns the id of the last
// transaction of the live file, which swap compares. It waits for the
// writes under way, so that none of them comes after the copy.
func (db *DB) copyKept(next *bolt.DB) (int, error) {
	db.writing.Lock()
	defer db.writing.Unlock()
	since := 0
	err := db.run(func() error {
		return db.bolt().View(func(old *bolt.Tx) error {
			since = old.ID()
			return next.Update(func(tx *bolt.Tx) error {
				for _, name := range sandboxBuckets {
					if _, err := tx.CreateBucket(name); err != nil {
						return err
					}
				}
				return old.ForEach(func(name []byte, b *bolt.Bucket) error {
					if tx.Bucket(name) != nil {
						return nil // a sandbox bucket: it starts empty
					}
					dst, err := tx.CreateBucket(name)
					if err != nil {
						return err
					}
					return copyBucket(dst, b)
				})
			})
		})
	})
	if err != nil {
		return 0, fmt.Errorf("start the new data file: %w", err)
	}
	return since, nil
}

// copyBucket copies every key of src, and its nested buckets, into dst.
func copyBucket(dst, src *bolt.Bucket) error {
	return src.ForEach(func(k, v []byte) error {
		if v != nil {
			return dst.Put(k, v)
		}
		sub, err := dst.CreateBucket(k)
		if err != nil {
			return err
		}
		return copyBucket(sub, src.Bucket(k))
	})
}

// swap puts the new file next in the place of the data file, unless the
// live file was written to since the transaction since. No write runs
// meanwhile. Both files are closed before the rename, as Windows renames
// no file that is open, and the data file is then opened anew: reads
// under way finish on the old file first (bbolt's Close waits for them),
// and reads that begin meanwhile wait for the new one (see View).
func (db *DB) swap(next *bolt.DB, tmp string, since int) error {
	db.writing.Lock()
	defer db.writing.Unlock()
	old := db.bolt()
	last := 0
	_ = db.run(func() error {
		return old.View(func(tx *bolt.Tx) error { last = tx.ID(); return nil })
	})
	if last != since {
		return ErrWrittenMeanwhile
	}
	reopened := make(chan struct{})
	db.reopening.Store(&reopened)
	defer func() {
		db.reopening.Store(nil)
		close(reopened)
	}()
	if err := next.Close(); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	_ = old.Close()
	renamed := os.Rename(tmp, db.path)
	if renamed == nil {
		_ = syncDir(filepath.Dir(db.path))
	}
	// After a failed rename the data file is the old one, untouched.
	b, err := db.openBolt(false)
	if err != nil {
		e := Damaged(db.path, "it could not be opened again at the end of a scenario import: "+err.Error()+"; restart Sandbank")
		db.damage.CompareAndSwap(nil, &e)
		return e
	}
	b.NoSync = db.noSync.Load()
	db.cur.Store(b)
	if renamed != nil {
		return fmt.Errorf("put the new data file in place: %w", renamed)
	}
	return nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// staging implements bank.Staging on the new file of a Rebuild.
type staging struct {
	db *bolt.DB
	tx *bolt.Tx
}

func (s *staging) Tx() bank.Tx { return &txn{tx: s.tx} }

func (s *staging) Commit() error {
	err := s.tx.Commit()
	s.tx = nil
	if err != nil {
		return fmt.Errorf("write the new data file: %w", err)
	}
	return s.begin()
}

func (s *staging) begin() error {
	tx, err := s.db.Begin(true)
	if err != nil {
		return fmt.Errorf("write the new data file: %w", err)
	}
	s.tx = tx
	return nil
}

// rollback drops the open transaction, if any.
func (s *staging) rollback() {
	if s.tx != nil {
		_ = s.tx.Rollback()
		s.tx = nil
	}
}
