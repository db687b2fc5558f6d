package storage_test

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/scenario"
	"sandbank/storage"
)

// TestOpen_RefusesADamagedFileWritingNothing opens damaged copies of a real
// data file: each is refused with one line that names the file and says
// what to do, nothing panics, and the file keeps every byte it had.
func TestOpen_RefusesADamagedFileWritingNothing(t *testing.T) {
	for _, f := range apptest.DamagedFiles(t) {
		t.Run(f.Name, func(t *testing.T) {
			before := apptest.Sum(t, f.Path)
			db, err := openNoPanic(t, f.Path)
			if err == nil {
				_ = db.Close()
			}
			apptest.CheckRefusal(t, f.Path, err)
			if err != nil && !errors.Is(err, storage.ErrDamaged) {
				t.Errorf("Open: %v does not wrap ErrDamaged", err)
			}
			if apptest.Sum(t, f.Path) != before {
				t.Error("the refused Open changed the file")
			}
		})
	}
}

// knownStateFile makes a data file in the known state with storage.Open
// and the bank's Initialize, closes it and returns its path.
func knownStateFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sandbank.db")
	db, err := storage.Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scenario.Initialize(bank.New(db, bank.SystemClock{}).Sandbox); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// leafPages returns the ids of the leaf pages of a bbolt file that hold
// keys, reading the page headers (4 KiB pages) from its bytes.
func leafPages(t *testing.T, data []byte) []int {
	t.Helper()
	const pageSize = 4096
	var ids []int
	for id := 2; (id+1)*pageSize <= len(data); id++ {
		p := data[id*pageSize:]
		if binary.LittleEndian.Uint64(p) == uint64(id) && binary.LittleEndian.Uint16(p[8:]) == 0x02 && binary.LittleEndian.Uint16(p[10:]) > 0 {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		t.Fatal("no leaf page holds keys")
	}
	return ids
}

// TestOpen_FullCheckFindsWhatTheWalkCannot: a page whose overflow count
// claims pages it does not have reads fine, key by key; bbolt's full
// check, which Open runs on a file it walked within the budget, finds it.
func TestOpen_FullCheckFindsWhatTheWalkCannot(t *testing.T) {
	path := knownStateFile(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ids := leafPages(t, data)
	data[ids[len(ids)/2]*4096+12] ^= 0x0f // the overflow count's low byte
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	before := apptest.Sum(t, path)
	db, err := openNoPanic(t, path)
	if err == nil {
		_ = db.Close()
	}
	apptest.CheckRefusal(t, path, err)
	t.Log(err)
	if apptest.Sum(t, path) != before {
		t.Error("the refused Open changed the file")
	}
}

// TestRun_DamageFoundLaterRefusesWrites damages every page of keys under
// an open data file, as a disk might: the next transaction fails with
// ErrDamaged instead of a panic, and writes, alone or grouped, are refused
// from then on.
func TestRun_DamageFoundLaterRefusesWrites(t *testing.T) {
	path := knownStateFile(t)
	db, err := storage.Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range leafPages(t, data) {
		if _, err := f.WriteAt(make([]byte, 4096), int64(id)*4096); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	before := apptest.Sum(t, path)
	err = db.Batch(func(tx bank.Tx) error { // the bank's writes
		_, err := tx.CustomerByNumber("13039319955")
		return err
	})
	if !errors.Is(err, storage.ErrDamaged) {
		t.Fatalf("Batch over damaged pages: %v, want ErrDamaged", err)
	}
	apptest.CheckRefusal(t, path, err)
	err = db.View(func(tx bank.Tx) error {
		var s bank.Settings
		return tx.Setting("settings", &s)
	})
	if !errors.Is(err, storage.ErrDamaged) {
		t.Errorf("View over damaged pages: %v, want ErrDamaged", err)
	}
	called := false
	err = db.Update(func(tx bank.Tx) error { called = true; return nil })
	if !errors.Is(err, storage.ErrDamaged) || called {
		t.Errorf("Update after the damage was found: %v (ran: %v), want a refusal", err, called)
	}
	err = db.Batch(func(tx bank.Tx) error { called = true; return nil })
	if !errors.Is(err, storage.ErrDamaged) || called {
		t.Errorf("Batch after the damage was found: %v (ran: %v), want a refusal", err, called)
	}
	if apptest.Sum(t, path) != before {
		t.Error("the file changed after the damage was found")
	}
}
