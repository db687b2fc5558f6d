package pki_test

import (
	"crypto/x509"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandbank/bank/pki"
)

func TestIssueTPP_RolesIdentityAndChain(t *testing.T) {
	ca, err := pki.NewAuthority(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cert, key, err := ca.NewTPP(pki.TPPRequestFor("Test TPP", "933012867", []string{pki.RoleAI, pki.RolePI}, 30, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if key.N.BitLen() != 2048 {
		t.Fatalf("key of %d bits", key.N.BitLen())
	}
	roles, named, err := pki.PSD2Roles(cert)
	if err != nil || !named || strings.Join(roles, ",") != "PSP_AI,PSP_PI" {
		t.Fatalf("roles %v %v %v", roles, named, err)
	}
	if id := pki.TPPID(cert); id != "NO-FSA-933012867" {
		t.Fatalf("TPP id %s", id)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
		t.Fatalf("the TPP certificate does not chain to the CA: %v", err)
	}
	// A certificate that names no roles has an empty list, not all roles.
	none, _, err := ca.NewTPP(pki.TPPRequestFor("No roles", "1", nil, 1, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if roles, named, err := pki.PSD2Roles(none); err != nil || !named || len(roles) != 0 {
		t.Fatalf("no roles: %v %v %v", roles, named, err)
	}
	// The TLS certificate serves localhost, 127.0.0.1 and ::1.
	server, err := ca.IssueServer(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"localhost", "127.0.0.1", "::1"} {
		if err := server.Leaf.VerifyHostname(host); err != nil {
			t.Errorf("server certificate for %s: %v", host, err)
		}
	}
}

func TestCheckTPPRequest_Refusals(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		r    pki.TPPRequest
		want string
	}{
		{pki.TPPRequestFor("", "1", nil, 1, now), "name"},
		{pki.TPPRequestFor(strings.Repeat("æ", 65), "1", nil, 1, now), "name"},
		{pki.TPPRequestFor("X", "12a", nil, 1, now), "org"},
		{pki.TPPRequestFor("X", "1", []string{"PSP_XX"}, 1, now), "not a PSD2 role"},
		{pki.TPPRequestFor("X", "1", []string{"PSP_AI", "PSP_AI"}, 1, now), "twice"},
		{pki.TPPRequest{Name: "X", OrgNumber: "1", NotBefore: now, NotAfter: now.Add(-time.Hour)}, "end after"},
		{pki.TPPRequest{Name: "X", OrgNumber: "1", NotBefore: now, NotAfter: now.AddDate(11, 0, 0)}, "10 years"},
	} {
		if err := pki.CheckTPPRequest(c.r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want it to mention %q", c.r, err, c.want)
		}
	}
}

// openssl reads the QCStatement and subject the way other tools will.
func TestIssueTPP_OpenSSLReadsIt(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Fatal("openssl is not installed; scripts/install-deps installs it")
	}
	ca, _ := pki.NewAuthority(time.Now())
	cert, _, err := ca.NewTPP(pki.TPPRequestFor("Acme Betaling AS", "912345678", []string{pki.RolePI}, 30, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cert.pem")
	if err := os.WriteFile(path, pki.EncodeCert(cert), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("openssl", "x509", "-in", path, "-noout", "-text", "-nameopt", "RFC2253").CombinedOutput()
	if err != nil {
		t.Fatalf("%v %s", err, out)
	}
	text := string(out)
	for _, want := range []string{"organizationIdentifier=PSDNO-FSA-912345678", "CN=Acme Betaling AS", "qcStatements", "PSP_PI", "Finanstilsynet", "NO-FSA"} {
		if !strings.Contains(text, want) {
			t.Errorf("openssl's view lacks %q:\n%s", want, text)
		}
	}
}

func TestPEM_RoundTrips(t *testing.T) {
	ca, _ := pki.NewAuthority(time.Now())
	cert, key, err := ca.NewTPP(pki.TPPRequestFor("X", "1", nil, 1, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := pki.EncodeKey(key)
	if err != nil {
		t.Fatal(err)
	}
	back, err := pki.DecodeKey(keyPEM)
	if err != nil || !key.PublicKey.Equal(back.Public()) {
		t.Fatalf("key round trip: %v", err)
	}
	c, err := pki.DecodeCert(append([]byte("junk before\n"), pki.EncodeCert(cert)...))
	if err != nil || !c.Equal(cert) {
		t.Fatalf("cert round trip: %v", err)
	}
	for _, bad := range [][]byte{nil, []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")} {
		if _, err := pki.DecodeKey(bad); err == nil {
			t.Errorf("DecodeKey(%q) succeeded", bad)
		}
	}
	if _, err := pki.DecodePublicKey([]byte("nope")); err == nil {
		t.Error("DecodePublicKey of junk succeeded")
	}
}
