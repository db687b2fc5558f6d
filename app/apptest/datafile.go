package apptest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"sandbank/app"
	"sandbank/bank"
)

// template is the data file of a bank initialized today, kept in memory:
// what a new data file holds before its first request.
var template struct {
	mu   sync.Mutex
	day  string // the Oslo date it was made on
	data []byte
}

// DataFile returns the path of a data file in tb's temp folder that holds
// a new bank, as the first start on a new path makes it: the known state
// of today, the settings' defaults and the bank's CA and keys. The file
// is a copy of one made once per test binary (and again after Oslo
// midnight), so that a test does not pay for the bank's RSA keys, about a
// second of CPU under -race; the banks of one test binary share them.
func DataFile(tb testing.TB) string {
	tb.Helper()
	data := templateData(tb)
	path := filepath.Join(tb.TempDir(), "sandbank.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		tb.Fatalf("write the data file: %v", err)
	}
	return path
}

// templateData returns the template data file, making it when there is
// none of today.
func templateData(tb testing.TB) []byte {
	tb.Helper()
	template.mu.Lock()
	defer template.mu.Unlock()
	day := time.Now().In(bank.Oslo).Format(time.DateOnly)
	if template.day == day {
		return template.data
	}
	dir, err := os.MkdirTemp("", "sandbank-template-")
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	path := filepath.Join(dir, "sandbank.db")
	a, err := app.Open(app.Config{DataPath: path})
	if err != nil {
		tb.Fatalf("make the template data file: %v", err)
	}
	if err := a.Close(); err != nil {
		tb.Fatalf("close the template data file: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	template.day, template.data = day, data
	return data
}
