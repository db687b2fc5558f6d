package app

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// trustStore is trust mode store's set of CAs: Sandbank's own CA plus
// every certificate in the PEM files of the trust folder, reloaded when
// the folder changes.
type trustStore struct {
	dir    string
	ca     *x509.Certificate
	logger *slog.Logger
	pool   atomic.Pointer[x509.CertPool]
	files  atomic.Int32
}

func newTrustStore(dir string, ca *x509.Certificate, logger *slog.Logger) *trustStore {
	t := &trustStore{dir: dir, ca: ca, logger: logger}
	t.reload()
	return t
}

// reload reads the trust folder again. A file that holds no certificate is
// logged and skipped.
func (t *trustStore) reload() {
	pool := x509.NewCertPool()
	pool.AddCert(t.ca)
	entries, err := os.ReadDir(t.dir)
	if err != nil && !os.IsNotExist(err) {
		t.logger.Warn("read trust folder", "dir", t.dir, "err", err)
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		ext := strings.ToLower(filepath.Ext(name))
		if !e.Type().IsRegular() || (ext != ".pem" && ext != ".crt" && ext != ".cer") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(t.dir, name))
		if err != nil {
			t.logger.Warn("read trusted CA file", "file", name, "err", err)
			continue
		}
		added := 0
		for {
			var block *pem.Block
			block, data = pem.Decode(data)
			if block == nil {
				break
			}
			if block.Type != "CERTIFICATE" {
				continue
			}
			cert, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				t.logger.Warn("skip a certificate that does not parse", "file", name, "err", err)
				continue
			}
			pool.AddCert(cert)
			added++
		}
		if added == 0 {
			t.logger.Warn("trusted CA file holds no PEM certificate; skipped", "file", name)
			continue
		}
		n++
	}
	t.pool.Store(pool)
	t.files.Store(int32(n))
}

// verify checks that cert chains to a trusted CA.
func (t *trustStore) verify(cert *x509.Certificate) error {
	_, err := cert.Verify(x509.VerifyOptions{
		Roots:       t.pool.Load(),
		CurrentTime: time.Now(),
		KeyUsages:   []x509.ExtKeyUsage{x509.ExtKeyUsageAny},
	})
	if err != nil {
		return fmt.Errorf("the certificate (issuer %s) does not chain to a trusted CA: the Sandbank Sandbox CA or one of the %d PEM files in %s; put the issuing CA's certificate there, or issue one with sandbankd cert new", cert.Issuer.CommonName, t.files.Load(), t.dir)
	}
	return nil
}
