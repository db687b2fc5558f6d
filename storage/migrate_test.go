package storage_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/storage"
)

// v1File copies testdata/schema-v1.db.gz, a data file that schema version
// 1 wrote (six payments moved through RCVD, ACTC, ACSC, CANC and PATC, each
// with its request body and a duplicate entry), to a temporary folder.
func v1File(t *testing.T) string {
	t.Helper()
	f, err := os.Open("testdata/schema-v1.db.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sandbank.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// v1Layout is what a schema version 1 file holds about payments, read with
// bbolt alone.
type v1Layout struct {
	schema   uint64
	requests map[string][]byte // payment key -> request body
	statuses map[string][]byte // payment key -> 4-byte status
	index    [][]byte          // paymentsByStatus keys
	buckets  []string
}

func readLayout(t *testing.T, path string) v1Layout {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	l := v1Layout{requests: map[string][]byte{}, statuses: map[string][]byte{}}
	err = b.View(func(tx *bolt.Tx) error {
		l.schema = binary.BigEndian.Uint64(tx.Bucket([]byte("meta")).Get([]byte("schema")))
		_ = tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			l.buckets = append(l.buckets, string(name))
			return nil
		})
		if r := tx.Bucket([]byte("paymentRequests")); r != nil {
			_ = r.ForEach(func(k, v []byte) error { l.requests[string(k)] = bytes.Clone(v); return nil })
		} else {
			_ = tx.Bucket([]byte("payments")).ForEach(func(k, v []byte) error {
				if len(k) == 9 && k[8] == 'r' {
					l.requests[string(k[:8])] = bytes.Clone(v)
				}
				return nil
			})
		}
		if s := tx.Bucket([]byte("paymentStatus")); s != nil {
			_ = s.ForEach(func(k, v []byte) error { l.statuses[string(k)] = bytes.Clone(v); return nil })
		}
		return tx.Bucket([]byte("paymentsByStatus")).ForEach(func(k, _ []byte) error {
			l.index = append(l.index, bytes.Clone(k))
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestMigrate_SchemaV1 opens a file of schema version 1: it reads before
// it is writable, Writable brings it to the current version (the request
// bodies move into the payments bucket, the paymentStatus bucket goes),
// every payment, request body and index entry survives, and a status
// change after the migration moves the payment in the index.
func TestMigrate_SchemaV1(t *testing.T) {
	path := v1File(t)
	before := readLayout(t, path)
	if before.schema != 1 || len(before.requests) != 6 || len(before.statuses) != 6 || len(before.index) != 6 {
		t.Fatalf("the version 1 file is not what it should be: %+v", before)
	}
	ids := func(tx bank.Tx, status string) []string {
		list, err := tx.PaymentIDs(status)
		if err != nil {
			t.Fatal(err)
		}
		return list
	}
	// What the bank reads of a file before it is writable, and after:
	// each payment's status, its request's remittance and the status it
	// is indexed under.
	read := func(db *storage.DB) map[string]string {
		out := map[string]string{}
		view(t, db, func(tx bank.Tx) error {
			list, total, err := tx.Payments(bank.PaymentQuery{Limit: 100})
			if err != nil || total != 6 || len(list) != 6 {
				t.Fatalf("Payments: %d of %d, %v; want the 6 payments", len(list), total, err)
			}
			for _, st := range bank.PaymentStatuses {
				for _, id := range ids(tx, st) {
					out[id] += "indexed " + st + ", "
				}
			}
			for _, p := range list {
				r, err := tx.PaymentRequest(p.ID)
				if err != nil {
					return err
				}
				if out[p.ID] != "indexed "+p.Status+", " {
					t.Errorf("payment %s is %s but %s", p.ID, p.Status, out[p.ID])
				}
				out[p.ID] += *r.RemittanceInformationUnstructured
			}
			return nil
		})
		return out
	}
	ro, err := storage.OpenReadOnly(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	was := read(ro)
	if err := ro.Writable(); err != nil {
		t.Fatal(err)
	}
	if got := read(ro); !maps.Equal(got, was) {
		t.Fatalf("after the migration the payments read\n%v\nbefore\n%v", got, was)
	}
	// A status change after the migration moves the index entry.
	var actc string
	update(t, ro, func(tx bank.Tx) error {
		actc = ids(tx, bank.StatusACTC)[0]
		p, err := tx.Payment(actc)
		if err != nil {
			return err
		}
		p.Status = bank.StatusACSC
		return tx.PutPayment(p)
	})
	view(t, ro, func(tx bank.Tx) error {
		if slices.Contains(ids(tx, bank.StatusACTC), actc) || !slices.Contains(ids(tx, bank.StatusACSC), actc) {
			t.Errorf("payment %s, moved from ACTC to ACSC, is indexed under ACTC %v and ACSC %v", actc, ids(tx, bank.StatusACTC), ids(tx, bank.StatusACSC))
		}
		return nil
	})
	if err := ro.Check(); err != nil {
		t.Fatal(err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}

	after := readLayout(t, path)
	if after.schema != storage.SchemaVersion {
		t.Errorf("schema version %d after the migration, want %d", after.schema, storage.SchemaVersion)
	}
	if slices.Contains(after.buckets, "paymentRequests") || slices.Contains(after.buckets, "paymentStatus") {
		t.Errorf("buckets after the migration: %v", after.buckets)
	}
	if len(after.requests) != len(before.requests) {
		t.Fatalf("%d request bodies after the migration, %d before", len(after.requests), len(before.requests))
	}
	for k, v := range before.requests {
		if !bytes.Equal(after.requests[k], v) {
			t.Errorf("request body of %x: %s after the migration, %s before", k, after.requests[k], v)
		}
	}
	// Opened again, it is current: nothing to migrate, nothing written.
	sum := apptest.Sum(t, path)
	db, err := storage.Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if apptest.Sum(t, path) != sum {
		t.Error("opening a current file wrote to it")
	}
}
