package app

import (
	"crypto/rsa"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"

	"sandbank/bank/pki"
)

// WriteTPPFiles writes a TPP certificate and its key into dir as cert.pem
// and key.pem (readable by the owner only), creating dir.
func WriteTPPFiles(dir string, cert *x509.Certificate, key *rsa.PrivateKey) (certPath, keyPath string, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("create %s: %w", dir, err)
	}
	keyPEM, err := pki.EncodeKey(key)
	if err != nil {
		return "", "", err
	}
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(keyPath, keyPEM, 0o600); err != nil {
		return "", "", fmt.Errorf("write the key: %w", err)
	}
	if err := os.WriteFile(certPath, pki.EncodeCert(cert), 0o644); err != nil {
		return "", "", fmt.Errorf("write the certificate: %w", err)
	}
	return certPath, keyPath, nil
}

// CACertPEM returns the local CA's certificate, PEM encoded, for TPP apps
// to trust.
func (a *App) CACertPEM() []byte { return pki.EncodeCert(a.Authority.Cert) }

// IssueTPP issues a TPP test certificate from the local CA, an operator
// certificate when operator is set (pki.Authority.IssueOperator), and
// writes it with its key into dir (see WriteTPPFiles).
func (a *App) IssueTPP(req pki.TPPRequest, operator bool, dir string) (cert *x509.Certificate, certPath, keyPath string, err error) {
	cert, key, err := a.Authority.NewTPP(req, operator)
	if err != nil {
		return nil, "", "", err
	}
	if certPath, keyPath, err = WriteTPPFiles(dir, cert, key); err != nil {
		return nil, "", "", err
	}
	return cert, certPath, keyPath, nil
}
