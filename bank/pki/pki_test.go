package pki_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"sandbank/bank/pki"
)

func TestIssueTPP_RolesIdentityAndChain(t *testing.T) {
	ca, err := pki.NewAuthority(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cert, key, err := ca.NewTPP(pki.TPPRequestFor("Test TPP", "933012867", []string{pki.RoleAI, pki.RolePI}, 30, time.Now()), false)
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
	none, _, err := ca.NewTPP(pki.TPPRequestFor("No roles", "1", nil, 1, time.Now()), false)
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
		want pki.Problems
	}{
		{pki.TPPRequestFor("", "1", nil, 1, now), pki.Problems{{Field: "name", Text: "is required: the TPP's name, 1 to 64 characters"}}},
		{pki.TPPRequestFor("  ", "1", nil, 1, now), pki.Problems{{Field: "name", Text: "is required: the TPP's name, 1 to 64 characters"}}},
		{pki.TPPRequestFor(strings.Repeat("æ", 65), "1", nil, 1, now), pki.Problems{{Field: "name", Text: "must be at most 64 characters, not 65"}}},
		{pki.TPPRequestFor("Fjord\x00Pay", "1", nil, 1, now), pki.Problems{{Field: "name", Text: "contains U+0000 NULL at character 6; remove it"}}},
		{pki.TPPRequestFor("Fjord\nPay", "1", nil, 1, now), pki.Problems{{Field: "name", Text: "contains U+000A LINE FEED at character 6; remove it"}}},
		{pki.TPPRequestFor("Fjord Pay\u202E", "1", nil, 1, now), pki.Problems{{Field: "name", Text: "contains U+202E RIGHT-TO-LEFT OVERRIDE at character 10; remove it"}}},
		{pki.TPPRequestFor("X", "12a", nil, 1, now), pki.Problems{{Field: "organisationNumber", Text: "must be 1 to 20 digits, e.g. 933012867"}}},
		{pki.TPPRequestFor("X", "", nil, 1, now), pki.Problems{{Field: "organisationNumber", Text: "must be 1 to 20 digits, e.g. 933012867"}}},
		{pki.TPPRequestFor("X", "1", []string{"PSP_AI", "PSP_XX"}, 1, now), pki.Problems{{Field: "roles[1]", Text: `"PSP_XX" is not a PSD2 role; use PSP_AS, PSP_PI, PSP_AI, PSP_IC`}}},
		{pki.TPPRequestFor("X", "1", []string{"PSP_AI", "PSP_AI"}, 1, now), pki.Problems{{Field: "roles[1]", Text: "PSP_AI is listed twice"}}},
		{pki.TPPRequest{Name: "X", OrgNumber: "1", NotBefore: now, NotAfter: now.Add(-time.Hour)}, pki.Problems{{Field: "validDays", Text: "the certificate must end after it starts"}}},
		{pki.TPPRequest{Name: "X", OrgNumber: "1", NotBefore: now, NotAfter: now.AddDate(11, 0, 0)}, pki.Problems{{Field: "validDays", Text: "at most 10 years"}}},
		// Every problem at once.
		{pki.TPPRequestFor("\t", "x", []string{"x"}, 1, now), pki.Problems{
			{Field: "name", Text: "is required: the TPP's name, 1 to 64 characters"},
			{Field: "organisationNumber", Text: "must be 1 to 20 digits, e.g. 933012867"},
			{Field: "roles[0]", Text: `"x" is not a PSD2 role; use PSP_AS, PSP_PI, PSP_AI, PSP_IC`},
		}},
	} {
		got := pki.CheckTPPRequest(c.r)
		if !slices.Equal(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.r, got, c.want)
		}
	}
	// Names of every script and emoji are fine, and a request without
	// problems has none.
	for _, name := range []string{"Fjord Pay AS", "Blåbær Betaling", "Čáhci AS", "株式会社テスト", "Pay 👩\u200D💻"} {
		if got := pki.CheckTPPRequest(pki.TPPRequestFor(name, "933012867", nil, 1, now)); got != nil {
			t.Errorf("%q: %v", name, got)
		}
	}
	ca, err := pki.NewAuthority(now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ca.IssueTPP(pki.TPPRequestFor("Fjord\x00Pay", "1", nil, 1, now), &key2048().PublicKey); err == nil || err.Error() != "name: contains U+0000 NULL at character 6; remove it" {
		t.Errorf("IssueTPP of a name with NUL: %v", err)
	}
}

// A TPP certificate's RSA key has at least 2048 bits: the CA issues none
// for a shorter one.
func TestIssueTPP_RefusesShortRSAKeys(t *testing.T) {
	short, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := pki.NewAuthority(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	_, err = ca.IssueTPP(pki.TPPRequestFor("Short Key AS", "933012867", nil, 1, time.Now()), &short.PublicKey)
	want := pki.Problems{{Field: "publicKey", Text: "the RSA public key has 1024 bits; use at least 2048"}}
	if got, ok := err.(pki.Problems); !ok || !slices.Equal(got, want) {
		t.Fatalf("IssueTPP for a 1024-bit key: %v, want %v", err, want)
	}
	if err := pki.CheckRSAKeySize("the certificate's RSA key", &short.PublicKey); err == nil || err.Error() != "the certificate's RSA key has 1024 bits; use at least 2048" {
		t.Fatalf("CheckRSAKeySize: %v", err)
	}
	if err := pki.CheckRSAKeySize("the RSA public key", &key2048().PublicKey); err != nil {
		t.Fatalf("CheckRSAKeySize of 2048 bits: %v", err)
	}
}

// key2048 is an RSA key of 2048 bits, made once.
var key2048 = sync.OnceValue(func() *rsa.PrivateKey {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return key
})

// openssl reads the QCStatement and subject the way other tools will.
func TestIssueTPP_OpenSSLReadsIt(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Fatal("openssl is not installed; scripts/install-deps installs it")
	}
	ca, _ := pki.NewAuthority(time.Now())
	cert, _, err := ca.NewTPP(pki.TPPRequestFor("Acme Betaling AS", "912345678", []string{pki.RolePI}, 30, time.Now()), false)
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
	cert, key, err := ca.NewTPP(pki.TPPRequestFor("X", "1", nil, 1, time.Now()), false)
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
