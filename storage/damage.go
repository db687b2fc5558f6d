package storage

import (
	"bytes"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ErrDamaged is wrapped by the errors of a data file that is damaged: cut
// short, empty, failing the structure check, or holding records that
// cannot be read.
var ErrDamaged = errors.New("the data file is damaged")

// checkBudget bounds the walk of the structure check at start, so that a
// large file still starts in tens of milliseconds; see checkStructure.
const checkBudget = 20 * time.Millisecond

// checkAlways is how many keys the walk visits whatever the time: a file
// that small (the known state has a few thousand) is always checked whole,
// however busy the machine, and a walk this long takes milliseconds.
const checkAlways = 50_000

// damageError is a damaged data file and what is wrong with it.
type damageError struct {
	path    string // empty until the file is known
	problem string
}

func (e *damageError) Error() string {
	return fmt.Sprintf("the data file %s is damaged (%s); Sandbank does not write to it: restore it from a backup, or move it aside to start with a new data file", e.path, e.problem)
}

func (e *damageError) Is(target error) bool { return target == ErrDamaged }

// Damaged returns the error for the damaged data file at path: problem
// says what is wrong, the error what to do. It wraps ErrDamaged.
func Damaged(path, problem string) error {
	return &damageError{path: path, problem: oneLine(problem)}
}

func damaged(problem string) error { return &damageError{problem: oneLine(problem)} }

// oneLine folds problem onto one line of at most 300 bytes.
func oneLine(problem string) string {
	problem = strings.Join(strings.Fields(problem), " ")
	if len(problem) > 300 {
		problem = problem[:300] + "…"
	}
	return problem
}

// guard runs fn, turning any panic, and a fault reading the mapped file,
// into a damage error. It is for reading a file that is not known to be
// sound yet; transactions on a checked file use DB.run.
func guard(fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			err = damaged(fmt.Sprintf("reading its pages: %v", r))
		}
	}()
	return fn()
}

// isDamage reports whether a panic is bbolt's on a damaged page: bbolt
// panics with strings, and a fault reading the mapped file carries the
// address it faulted at.
func isDamage(r any) bool {
	switch r.(type) {
	case string, interface{ Addr() uintptr }:
		return true
	}
	return false
}

// checkSize refuses a file that is shorter than its pages: it was cut
// short, and reading it would fault.
func checkSize(tx *bolt.Tx, fileSize int64) error {
	if need := tx.Size(); fileSize < need {
		return damaged(fmt.Sprintf("it is cut short: %d bytes, where its pages need %d", fileSize, need))
	}
	return nil
}

// checkStructure checks a file's pages before anything is written to it.
// It walks every bucket and every key in order, reading each key and
// value: a page that is not what its parent says (a zeroed page, a wrong
// page id or type) makes bbolt panic, an offset out of the file faults
// (both become errors, see guard), and keys out of order are reported.
// The walk visits at least checkAlways keys, then stops at deadline.
// When the walk is done before that, bbolt's full consistency check
// (tx.Check) runs too: it also finds pages that are lost, freed twice, or
// both free and in use. On a large file the walk stops at deadline and
// the rest is checked as the bank reads it (DB.run).
func checkStructure(tx *bolt.Tx, deadline time.Time) error {
	w := &walker{deadline: deadline}
	done, err := w.walk(tx.Cursor().Bucket(), "")
	if err != nil || !done {
		return err
	}
	var first error
	for err := range tx.Check() { // drain it: the checker stops only at the end
		if first == nil {
			first = err
		}
	}
	if first != nil {
		return damaged(first.Error())
	}
	return nil
}

// walker walks a file's buckets for checkStructure.
type walker struct {
	deadline time.Time
	keys     int
	ends     byte // the values' end bytes, read so that a bad offset faults
}

// walk visits the keys of b and of its nested buckets in order. It
// reports false when it stopped at the deadline.
func (w *walker) walk(b *bolt.Bucket, path string) (bool, error) {
	c := b.Cursor()
	var prev []byte
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if prev != nil && bytes.Compare(prev, k) >= 0 {
			return false, damaged(fmt.Sprintf("keys out of order in bucket %q", path))
		}
		prev = k
		if len(v) > 0 {
			w.ends ^= v[0] ^ v[len(v)-1]
		}
		if v == nil {
			child := b.Bucket(k)
			if child == nil {
				return false, damaged(fmt.Sprintf("bucket %q names a nested bucket %x that cannot be opened", path, k))
			}
			if done, err := w.walk(child, path+"/"+string(k)); !done || err != nil {
				return done, err
			}
		}
		if w.keys++; w.keys > checkAlways && w.keys%1024 == 0 && time.Now().After(w.deadline) {
			return false, nil
		}
	}
	return true, nil
}
