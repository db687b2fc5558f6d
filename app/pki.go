package app

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"time"

	"sandbank/bank"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// keys is the certificate material kept in the data file: the local CA,
// the bank's response-signing certificate and the HTTPS server
// certificate, all PEM.
type keys struct {
	CACert     string `json:"caCert"`
	CAKey      string `json:"caKey"`
	BankCert   string `json:"bankCert"`
	BankKey    string `json:"bankKey"`
	ServerCert string `json:"serverCert"`
	ServerKey  string `json:"serverKey"`
}

const keysSetting = "pki"

// credentials are the parsed certificates the bank runs with.
type credentials struct {
	ca     *pki.Authority
	bank   *httpsig.Signer
	server tls.Certificate
}

// loadCredentials reads the certificate material from the data file,
// making what is missing (on first start) and renewing the server
// certificate a month before it expires.
func loadCredentials(store bank.Store, now time.Time) (*credentials, error) {
	var creds *credentials
	err := store.Update(func(tx bank.Tx) error {
		var k keys
		if err := tx.Setting(keysSetting, &k); err != nil && !errors.Is(err, bank.ErrNotFound) {
			return err
		}
		changed := false
		c := &credentials{}
		var err error
		if k.CACert == "" {
			if c.ca, err = pki.NewAuthority(now); err != nil {
				return err
			}
			if k.CACert, k.CAKey, err = encodePair(c.ca.Cert, c.ca.Key); err != nil {
				return err
			}
			k.BankCert, k.ServerCert = "", ""
			changed = true
		} else {
			cert, key, err := decodePair(k.CACert, k.CAKey)
			if err != nil {
				return fmt.Errorf("read the CA from the data file: %w", err)
			}
			c.ca = &pki.Authority{Cert: cert, Key: key}
		}
		if k.BankCert == "" {
			key, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				return fmt.Errorf("generate bank key: %w", err)
			}
			cert, err := c.ca.IssueBank(key, now)
			if err != nil {
				return err
			}
			if k.BankCert, k.BankKey, err = encodePair(cert, key); err != nil {
				return err
			}
			changed = true
		}
		bankCert, bankKey, err := decodePair(k.BankCert, k.BankKey)
		if err != nil {
			return fmt.Errorf("read the bank certificate from the data file: %w", err)
		}
		if c.bank, err = httpsig.NewSigner(bankCert, bankKey); err != nil {
			return err
		}
		if k.ServerCert != "" {
			c.server, err = tls.X509KeyPair([]byte(k.ServerCert+k.CACert), []byte(k.ServerKey))
			if err != nil || c.server.Leaf == nil || now.Add(30*24*time.Hour).After(c.server.Leaf.NotAfter) {
				k.ServerCert = ""
			}
		}
		if k.ServerCert == "" {
			if c.server, err = c.ca.IssueServer(now); err != nil {
				return err
			}
			if k.ServerCert, k.ServerKey, err = encodePair(c.server.Leaf, c.server.PrivateKey.(crypto.Signer)); err != nil {
				return err
			}
			changed = true
		}
		creds = c
		if changed {
			return tx.PutSetting(keysSetting, k)
		}
		return nil
	})
	return creds, err
}

func encodePair(cert *x509.Certificate, key crypto.Signer) (string, string, error) {
	keyPEM, err := pki.EncodeKey(key)
	if err != nil {
		return "", "", err
	}
	return string(pki.EncodeCert(cert)), string(keyPEM), nil
}

func decodePair(certPEM, keyPEM string) (*x509.Certificate, crypto.Signer, error) {
	cert, err := pki.DecodeCert([]byte(certPEM))
	if err != nil {
		return nil, nil, err
	}
	key, err := pki.DecodeKey([]byte(keyPEM))
	if err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}
