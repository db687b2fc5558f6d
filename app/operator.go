package app

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"sandbank/bank/pki"
)

// The operator's credential (docs/SECURITY.md, "Two kinds of caller"): a
// certificate of the bank's own CA that carries pki.OperatorPolicy. Only
// whoever holds the data file gets one: the window and the sandbankd
// commands from the data file itself, a running bank's commands from the
// running file beside it (RunningPath), a CI job from --operator-cert-out.

// OperatorName and OperatorOrg are the name and organisation number of the
// operator certificates the bank issues itself; its TPP id is
// NO-FSA-<OperatorOrg>.
const (
	OperatorName = "Sandbank operator"
	OperatorOrg  = "0"
)

// OperatorValidity is how long an operator certificate the bank issues
// itself is valid: the running file's, --operator-cert-out's and the
// commands' on a data file they opened.
const OperatorValidity = 365 * 24 * time.Hour

// operatorKey is the RSA key of this process's operator certificates,
// made once, on first use: RSA keys take a fraction of a second to make,
// so a process that starts many banks (the tests) makes one.
var operatorKey = sync.OnceValues(func() (*rsa.PrivateKey, error) {
	key, err := rsa.GenerateKey(rand.Reader, pki.MinRSABits)
	if err != nil {
		return nil, fmt.Errorf("generate the operator key: %w", err)
	}
	return key, nil
})

// OperatorCert issues an operator certificate of the bank's CA for the
// process's operator key (valid for OperatorValidity, with every PSD2
// role): how the window's process and the bank's own commands sign.
func (a *App) OperatorCert() (*x509.Certificate, *rsa.PrivateKey, error) {
	key, err := operatorKey()
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	req := pki.TPPRequest{Name: OperatorName, OrgNumber: OperatorOrg, Roles: pki.Roles, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(OperatorValidity)}
	cert, err := a.Authority.IssueOperator(req, key.Public())
	if err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}

// WriteOperatorFiles writes an operator certificate and its key into dir
// as cert.pem and key.pem (the key readable by its owner only), with the
// CA's certificate as ca.pem, creating dir: --operator-cert-out, for the
// CI job that started the bank in a container.
func (a *App) WriteOperatorFiles(dir string) (certPath, keyPath string, err error) {
	cert, key, err := a.OperatorCert()
	if err != nil {
		return "", "", err
	}
	if certPath, keyPath, err = WriteTPPFiles(dir, cert, key); err != nil {
		return "", "", fmt.Errorf("--operator-cert-out: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), a.CACertPEM(), 0o644); err != nil {
		return "", "", fmt.Errorf("--operator-cert-out: write the CA certificate: %w", err)
	}
	return certPath, keyPath, nil
}

// RunningPath is the running file of a data file: where the bank that
// holds the data file serves, its CA and an operator credential, so that a
// sandbankd command given the data file (--data) reaches that bank, on any
// port, and acts as its operator. Only the data file's owner can read it
// (mode 0600). The bank writes it when it starts serving and removes it
// when it stops; a file no bank holds the data file of is stale.
func RunningPath(dataPath string) string { return dataPath + ".running" }

// Running is what a running file says.
type Running struct {
	// PID is the bank's process.
	PID int `json:"pid"`
	// Started is when it started serving.
	Started time.Time `json:"started"`
	// URLs are its listeners' base URLs, HTTP first.
	URLs []string `json:"urls"`
	// CACert is the bank's CA certificate (PEM), which an HTTPS URL's
	// certificate chains to.
	CACert string `json:"caCert"`
	// OperatorCert and OperatorKey are an operator certificate and its key
	// (PEM).
	OperatorCert string `json:"operatorCert"`
	OperatorKey  string `json:"operatorKey"`
}

// ReadRunning reads the running file of a data file; an error wrapping
// fs.ErrNotExist when there is none.
func ReadRunning(dataPath string) (Running, error) {
	var r Running
	data, err := os.ReadFile(RunningPath(dataPath))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("the running file %s cannot be read (%v); the bank that holds the data file rewrites it when it starts serving", RunningPath(dataPath), err)
	}
	return r, nil
}

// writeRunning writes the running file for the listeners of start gen,
// which serve at urls: in full, readable by the owner only, unless the bank
// stopped or started again meanwhile. It runs beside the start, as the
// operator key may take a moment to make; a command waits for the file
// (RunningWait). A failure is logged: the bank serves all the same, and
// commands need --url and an operator certificate.
func (a *App) writeRunning(gen uint64, urls []string) {
	path := RunningPath(a.DB.Path())
	err := func() error {
		cert, key, err := a.OperatorCert()
		if err != nil {
			return err
		}
		keyPEM, err := pki.EncodeKey(key)
		if err != nil {
			return err
		}
		data, err := json.MarshalIndent(Running{
			PID: os.Getpid(), Started: time.Now().UTC(), URLs: urls, CACert: string(a.CACertPEM()),
			OperatorCert: string(pki.EncodeCert(cert)), OperatorKey: string(keyPEM),
		}, "", "  ")
		if err != nil {
			return err
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.runningGen != gen {
			return nil // stopped, or started anew, meanwhile
		}
		tmp := path + ".tmp"
		_ = os.Remove(tmp)
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		_, err = f.Write(append(data, '\n'))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp, path)
		}
		if err != nil {
			_ = os.Remove(tmp)
		}
		return err
	}()
	if err != nil {
		a.logger.Warn("the running file beside the data file was not written: sandbankd commands given --data need the --url of this bank and an operator certificate (--cert, --key)", "path", path, "err", err)
	}
}

// RunningWait is how long a command waits for the running file of a
// data file a bank holds: the bank writes it just after it starts serving.
const RunningWait = 5 * time.Second

// removeRunning removes the running file, when this bank wrote it. The
// caller holds a.mu.
func (a *App) removeRunning() {
	path := RunningPath(a.DB.Path())
	r, err := ReadRunning(a.DB.Path())
	if err != nil || r.PID != os.Getpid() {
		return // none, or another process's: a bank of another start wrote it
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		a.logger.Warn("the running file beside the data file was not removed; it is stale, and the next start rewrites it", "path", path, "err", err)
	}
}
