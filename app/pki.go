package app

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
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
// the bank's response-signing certificates (RSA, and ECDSA once the
// responseSigning setting asked for it) and the HTTPS server certificate,
// all PEM.
type keys struct {
	CACert        string `json:"caCert"`
	CAKey         string `json:"caKey"`
	BankCert      string `json:"bankCert"`
	BankKey       string `json:"bankKey"`
	BankECDSACert string `json:"bankEcdsaCert,omitempty"`
	BankECDSAKey  string `json:"bankEcdsaKey,omitempty"`
	ServerCert    string `json:"serverCert"`
	ServerKey     string `json:"serverKey"`
}

const keysSetting = "pki"

// credentials are the parsed certificates the bank runs with.
type credentials struct {
	ca   *pki.Authority
	bank *httpsig.Signer
	// bankECDSA is the ECDSA response signer; nil while the data file has
	// none.
	bankECDSA *httpsig.Signer
	server    tls.Certificate
}

// badKeys is certificate material in the data file that cannot be read.
type badKeys struct{ error }

// loadCredentials reads the certificate material from the data file and
// parses it, making what is missing (on first start; the ECDSA bank
// certificate only when withECDSA asks for it) and renewing the server
// certificate a month before it expires. It only reads: when it made
// anything, save is the material to store (saveKeys). Material that
// cannot be read is an error of type badKeys.
func loadCredentials(store bank.Store, now time.Time, withECDSA bool) (creds *credentials, save *keys, err error) {
	var k keys
	err = store.View(func(tx bank.Tx) error {
		if err := tx.Setting(keysSetting, &k); err != nil && !errors.Is(err, bank.ErrNotFound) {
			return badKeys{fmt.Errorf("its certificates cannot be read: %w", err)}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	changed := false
	c := &credentials{}
	if k.CACert == "" {
		if c.ca, err = pki.NewAuthority(now); err != nil {
			return nil, nil, err
		}
		if k.CACert, k.CAKey, err = encodePair(c.ca.Cert, c.ca.Key); err != nil {
			return nil, nil, err
		}
		k.BankCert, k.BankECDSACert, k.ServerCert = "", "", ""
		changed = true
	} else {
		cert, key, err := decodePair(k.CACert, k.CAKey)
		if err != nil {
			return nil, nil, badKeys{fmt.Errorf("its CA certificate cannot be read: %w", err)}
		}
		c.ca = &pki.Authority{Cert: cert, Key: key}
	}
	if k.BankCert == "" {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, nil, fmt.Errorf("generate bank key: %w", err)
		}
		cert, err := c.ca.IssueBank(key, now)
		if err != nil {
			return nil, nil, err
		}
		if k.BankCert, k.BankKey, err = encodePair(cert, key); err != nil {
			return nil, nil, err
		}
		changed = true
	}
	bankCert, bankKey, err := decodePair(k.BankCert, k.BankKey)
	if err == nil {
		c.bank, err = httpsig.NewSigner(bankCert, bankKey)
	}
	if err != nil {
		return nil, nil, badKeys{fmt.Errorf("its bank certificate cannot be read: %w", err)}
	}
	if withECDSA && k.BankECDSACert == "" {
		if err := newECDSABank(&k, c.ca, now); err != nil {
			return nil, nil, err
		}
		changed = true
	}
	if k.BankECDSACert != "" {
		if c.bankECDSA, err = decodeECDSABank(k); err != nil {
			return nil, nil, badKeys{err}
		}
	}
	if k.ServerCert != "" {
		c.server, err = tls.X509KeyPair([]byte(k.ServerCert+k.CACert), []byte(k.ServerKey))
		if err != nil || c.server.Leaf == nil || now.Add(30*24*time.Hour).After(c.server.Leaf.NotAfter) {
			k.ServerCert = ""
		}
	}
	if k.ServerCert == "" {
		if c.server, err = c.ca.IssueServer(now); err != nil {
			return nil, nil, err
		}
		if k.ServerCert, k.ServerKey, err = encodePair(c.server.Leaf, c.server.PrivateKey.(crypto.Signer)); err != nil {
			return nil, nil, err
		}
		changed = true
	}
	if changed {
		return c, &k, nil
	}
	return c, nil, nil
}

// newECDSABank makes the bank's ECDSA P-256 response-signing key and its
// certificate from ca, in k.
func newECDSABank(k *keys, ca *pki.Authority, now time.Time) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generate the bank's ECDSA key: %w", err)
	}
	cert, err := ca.IssueBank(key, now)
	if err != nil {
		return err
	}
	k.BankECDSACert, k.BankECDSAKey, err = encodePair(cert, key)
	return err
}

// decodeECDSABank reads the bank's ECDSA response signer from k.
func decodeECDSABank(k keys) (*httpsig.Signer, error) {
	cert, key, err := decodePair(k.BankECDSACert, k.BankECDSAKey)
	var s *httpsig.Signer
	if err == nil {
		s, err = httpsig.NewResponseSigner(cert, key)
	}
	if err == nil && s.Algorithm() != httpsig.AlgorithmECDSA {
		err = errors.New("it holds no ECDSA key")
	}
	if err != nil {
		return nil, fmt.Errorf("its ECDSA bank certificate cannot be read: %w", err)
	}
	return s, nil
}

// ecdsaBank returns the bank's ECDSA response signer from the data file,
// making it and storing it there in one write transaction when the file
// has none yet (the first switch to responseSigning ecdsa).
func ecdsaBank(store bank.Store, ca *pki.Authority, now time.Time) (*httpsig.Signer, error) {
	var s *httpsig.Signer
	err := store.Update(func(tx bank.Tx) error {
		var k keys
		if err := tx.Setting(keysSetting, &k); err != nil {
			return fmt.Errorf("read the certificates of the data file: %w", err)
		}
		if k.BankECDSACert == "" {
			if err := newECDSABank(&k, ca, now); err != nil {
				return err
			}
			if err := tx.PutSetting(keysSetting, k); err != nil {
				return err
			}
		}
		var err error
		s, err = decodeECDSABank(k)
		return err
	})
	return s, err
}

// saveKeys stores certificate material that loadCredentials made.
func saveKeys(store bank.Store, k *keys) error {
	return store.Update(func(tx bank.Tx) error { return tx.PutSetting(keysSetting, k) })
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
