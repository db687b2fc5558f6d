package pki_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"testing"
	"time"

	"sandbank/bank/pki"
)

// An operator certificate is one the bank's own CA issued with the
// operator policy: not a TPP certificate of the same CA, not one of
// another CA with the policy, not a self-signed one that copies the CA's
// name and the policy.
func TestIsOperator_OnlyTheCAsOperatorCertificate(t *testing.T) {
	now := time.Now()
	ca, err := pki.NewAuthority(now)
	if err != nil {
		t.Fatal(err)
	}
	other, err := pki.NewAuthority(now)
	if err != nil {
		t.Fatal(err)
	}
	key, err := rsa.GenerateKey(rand.Reader, pki.MinRSABits)
	if err != nil {
		t.Fatal(err)
	}
	req := pki.TPPRequestFor("Sandbank operator", "0", []string{pki.RoleAI, pki.RolePI}, 1, now)
	op, err := ca.IssueOperator(req, key.Public())
	if err != nil {
		t.Fatal(err)
	}
	if !ca.IsOperator(op) {
		t.Fatal("the CA's operator certificate is not the operator")
	}
	if roles, _, _ := pki.PSD2Roles(op); len(roles) != 2 {
		t.Errorf("the operator certificate's roles are %v, want the two asked for", roles)
	}
	tpp, err := ca.IssueTPP(req, key.Public())
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := other.IssueOperator(req, key.Public())
	if err != nil {
		t.Fatal(err)
	}
	// A self-signed copy: the CA's subject as issuer, the policy, any key.
	forged, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "Sandbank operator"},
		Issuer: ca.Cert.Subject, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		Policies: []x509.OID{pki.OperatorPolicy},
	}, &x509.Certificate{SerialNumber: big.NewInt(8), Subject: ca.Cert.Subject}, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	forgedCert, err := x509.ParseCertificate(forged)
	if err != nil {
		t.Fatal(err)
	}
	for name, cert := range map[string]*x509.Certificate{"a TPP certificate of the CA": tpp, "another CA's operator certificate": foreign, "a forged copy": forgedCert, "none": nil} {
		if ca.IsOperator(cert) {
			t.Errorf("%s is taken for the operator", name)
		}
	}
	if !other.IsOperator(foreign) {
		t.Error("the other CA's own operator certificate is not its operator")
	}
	// The operator certificate keeps the TPP request's rules.
	if _, err := ca.IssueOperator(pki.TPPRequestFor("", "x", nil, 1, now), key.Public()); err == nil {
		t.Error("an operator certificate without a name or organisation number was issued")
	}
}
