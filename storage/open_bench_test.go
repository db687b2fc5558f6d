package storage_test

import (
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/storage"
)

// BenchmarkOpen_1M opens and closes a data file whose account holds
// 1,000,000 transactions (223 MB): the cost of a start's checks, from the
// read-only open and the structure check to the reopen for writing.
func BenchmarkOpen_1M(b *testing.B) {
	path := apptest.BigFixture(b, 1_000_000)
	for b.Loop() {
		db, err := storage.Open(path, time.Second)
		if err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
