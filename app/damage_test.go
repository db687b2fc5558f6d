package app_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"sandbank/app"
	"sandbank/app/apptest"
	"sandbank/storage"
)

// openNoPanic calls app.Open and turns a panic into a test error.
func openNoPanic(t *testing.T, cfg app.Config) (a *app.App, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("Open panicked: %v", r)
			err = errors.New("panicked")
		}
	}()
	return app.Open(cfg)
}

// TestOpen_RefusesADamagedFileWritingNothing starts the bank on damaged
// copies of a real data file: each start fails with one line that names
// the file and says what to do, and the file keeps every byte it had.
func TestOpen_RefusesADamagedFileWritingNothing(t *testing.T) {
	for _, f := range apptest.DamagedFiles(t) {
		t.Run(f.Name, func(t *testing.T) {
			before := apptest.Sum(t, f.Path)
			a, err := openNoPanic(t, app.Config{DataPath: f.Path, Addr: "127.0.0.1:0"})
			if err == nil {
				_ = a.Close()
			}
			apptest.CheckRefusal(t, f.Path, err)
			if err != nil && !errors.Is(err, storage.ErrDamaged) {
				t.Errorf("Open: %v does not wrap storage.ErrDamaged", err)
			}
			if apptest.Sum(t, f.Path) != before {
				t.Error("the refused start changed the file")
			}
		})
	}
}

// TestOpen_BadStoredCertificateWritesNothing damages the CA certificate
// kept in a copy of a data file: the start fails, says so on one line, and
// leaves the file as it was.
func TestOpen_BadStoredCertificateWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbank.db")
	a := open(t, app.Config{DataPath: path})
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		settings := tx.Bucket([]byte("settings"))
		var keys map[string]string
		if err := json.Unmarshal(settings.Get([]byte("pki")), &keys); err != nil {
			return err
		}
		ca := keys["caCert"]
		if len(ca) < 200 {
			t.Fatalf("the stored CA certificate is %q", ca)
		}
		// Damage the base64 body in the middle: still PEM, no longer a
		// certificate.
		keys["caCert"] = ca[:100] + strings.Repeat("A", 40) + ca[140:]
		raw, err := json.Marshal(keys)
		if err != nil {
			return err
		}
		return settings.Put([]byte("pki"), raw)
	})
	if err := errors.Join(err, b.Close()); err != nil {
		t.Fatal(err)
	}
	before := apptest.Sum(t, path)
	a, err = openNoPanic(t, app.Config{DataPath: path, Addr: "127.0.0.1:0"})
	if err == nil {
		_ = a.Close()
		t.Fatal("the bank started with a CA certificate it cannot read")
	}
	apptest.CheckRefusal(t, path, err)
	if !strings.Contains(err.Error(), "certificate") {
		t.Errorf("the refusal does not say what is wrong: %v", err)
	}
	if apptest.Sum(t, path) != before {
		t.Error("the failed start changed the file")
	}
}
