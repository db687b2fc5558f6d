package apptest

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"sandbank/app"
)

// DamagedFile is a copy of a real data file, damaged on purpose.
type DamagedFile struct {
	Name string // what was done to it
	Path string
	// FailsBoltCheck is true when bbolt's own consistency check reports
	// the damage; it is false for files cut short (the check would read
	// past their end) and for the empty file.
	FailsBoltCheck bool
}

// DamagedFiles makes a data file the way Sandbank does (app.Open: the
// known state and the certificates), closes it, and returns damaged copies
// of it in a temporary folder: cut to 8 KiB, cut to half its size, one
// page in the middle zeroed, bytes flipped in three pages that hold data,
// and an empty file.
func DamagedFiles(tb testing.TB) []DamagedFile {
	tb.Helper()
	dir := tb.TempDir()
	base := filepath.Join(dir, "base", "sandbank.db")
	a, err := app.Open(app.Config{DataPath: base})
	if err != nil {
		tb.Fatalf("make a data file: %v", err)
	}
	if err := a.Close(); err != nil {
		tb.Fatal(err)
	}
	good, err := os.ReadFile(base)
	if err != nil {
		tb.Fatal(err)
	}
	pageSize, dataPages := dataPages(tb, base)
	if len(dataPages) < 3 {
		tb.Fatalf("the data file has %d pages that hold data, want 3 or more", len(dataPages))
	}
	mid := dataPages[len(dataPages)/2]
	page := func(b []byte, id int) []byte { return b[id*pageSize : (id+1)*pageSize] }

	var files []DamagedFile
	add := func(name string, failsCheck bool, data []byte) {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"), "sandbank.db")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			tb.Fatal(err)
		}
		files = append(files, DamagedFile{Name: name, Path: path, FailsBoltCheck: failsCheck})
	}
	add("cut to 8 KiB", false, bytes.Clone(good[:8<<10]))
	add("cut to half", false, bytes.Clone(good[:len(good)/2]))

	zeroed := bytes.Clone(good)
	clear(page(zeroed, mid))
	add("zeroed page", true, zeroed)

	// Three pages that hold data, spread over the file: one gets a wrong
	// page id, one an unknown page type, one an overflow count that claims
	// pages it does not have. None of these makes a reader follow an
	// offset out of the file, so bbolt's own check reports them without
	// crashing the test.
	flipped := bytes.Clone(good)
	first, last := dataPages[0], dataPages[len(dataPages)-1]
	page(flipped, first)[0] ^= 0xff // the page id's low byte
	page(flipped, mid)[8] ^= 0xff   // the page type flags
	page(flipped, last)[12] ^= 0x0f // the overflow count's low byte
	add("flipped bytes", true, flipped)

	add("empty", false, nil)
	for _, f := range files {
		if f.FailsBoltCheck && BoltCheck(tb, f.Path) == nil {
			tb.Fatalf("%s: bbolt's check finds nothing wrong with the damaged file", f.Name)
		}
	}
	return files
}

// dataPages returns the page size of the bbolt file at path and the ids
// of its leaf pages that hold at least one key.
func dataPages(tb testing.TB, path string) (int, []int) {
	tb.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true, Timeout: time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	var ids []int
	err = b.View(func(tx *bolt.Tx) error {
		for id := 2; ; {
			p, err := tx.Page(id)
			if err != nil || p == nil {
				return err
			}
			if p.Type == "leaf" && p.Count > 0 {
				ids = append(ids, id)
			}
			id += 1 + p.OverflowCount
		}
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b.Info().PageSize, ids
}

// BoltCheck runs bbolt's consistency check on the file at path, read-only,
// and returns the first problem it reports.
func BoltCheck(tb testing.TB, path string) error {
	tb.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return err
	}
	defer func() { _ = b.Close() }()
	return b.View(func(tx *bolt.Tx) error {
		var first error
		for err := range tx.Check() {
			if first == nil {
				first = err
			}
		}
		return first
	})
}

// Sum returns the SHA-256 of the file at path, to show that it was not
// changed.
func Sum(tb testing.TB, path string) [32]byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return sha256.Sum256(data)
}

// CheckRefusal fails the test unless err is the one-line refusal of the
// damaged data file at path: it names the file, says what to do (restore
// a backup or move the file aside) and shows no Go panic.
func CheckRefusal(tb testing.TB, path string, err error) {
	tb.Helper()
	if err == nil {
		tb.Errorf("%s: the damaged data file was accepted", path)
		return
	}
	msg := err.Error()
	for _, want := range []string{path, "backup", "move it aside"} {
		if !strings.Contains(msg, want) {
			tb.Errorf("the refusal does not say %q: %s", want, msg)
		}
	}
	for _, bad := range []string{"\n", "panic", "goroutine "} {
		if strings.Contains(msg, bad) {
			tb.Errorf("the refusal has %q in it: %s", bad, msg)
		}
	}
}
