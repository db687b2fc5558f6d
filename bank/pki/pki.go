// Package pki is Sandbank's certificate authority and its reading of
// eIDAS certificates: it issues the HTTPS server certificate, the bank's
// response-signing certificate and TPP test certificates with the PSD2
// QCStatement, and it reads a TPP's identity and PSD2 roles from any
// certificate.
package pki

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"sandbank/bank/validate"
)

// PSD2 roles of ETSI TS 119 495.
const (
	RoleAS = "PSP_AS" // account servicing
	RolePI = "PSP_PI" // payment initiation
	RoleAI = "PSP_AI" // account information
	RoleIC = "PSP_IC" // card-based payment instruments
)

// Roles lists the PSD2 roles in the order of their OIDs.
var Roles = []string{RoleAS, RolePI, RoleAI, RoleIC}

var (
	oidOrganizationIdentifier = asn1.ObjectIdentifier{2, 5, 4, 97}
	oidQCStatements           = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 1, 3}
	oidQcCompliance           = asn1.ObjectIdentifier{0, 4, 0, 1862, 1, 1}
	oidQcType                 = asn1.ObjectIdentifier{0, 4, 0, 1862, 1, 6}
	oidQcTypeSeal             = asn1.ObjectIdentifier{0, 4, 0, 1862, 1, 6, 2}
	oidPSD2                   = asn1.ObjectIdentifier{0, 4, 0, 19495, 2}
	roleOIDs                  = map[string]asn1.ObjectIdentifier{
		RoleAS: {0, 4, 0, 19495, 1, 1},
		RolePI: {0, 4, 0, 19495, 1, 2},
		RoleAI: {0, 4, 0, 19495, 1, 3},
		RoleIC: {0, 4, 0, 19495, 1, 4},
	}
)

// OrganizationIdentifierOID is the OID of the organizationIdentifier
// attribute (2.5.4.97) that carries a TPP's authorisation number.
var OrganizationIdentifierOID = oidOrganizationIdentifier

// Authority is Sandbank's local certificate authority.
type Authority struct {
	Cert *x509.Certificate
	Key  crypto.Signer
}

// NewAuthority makes a new CA key and self-signed CA certificate.
func NewAuthority(now time.Time) (*Authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: newSerial(),
		Subject: pkix.Name{
			CommonName:   "Sandbank Sandbox CA",
			Organization: []string{"Sandbank Sandbox"},
			Country:      []string{"NO"},
			ExtraNames:   []pkix.AttributeTypeAndValue{{Type: oidOrganizationIdentifier, Value: "NTRNO-999999999"}},
		},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(20, 0, 0),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("create CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &Authority{Cert: cert, Key: key}, nil
}

func newSerial() *big.Int {
	limit := new(big.Int).Lsh(big.NewInt(1), 126)
	n, err := rand.Int(rand.Reader, limit)
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return n.Add(n, big.NewInt(1))
}

func (a *Authority) issue(tmpl *x509.Certificate, pub crypto.PublicKey) (*x509.Certificate, error) {
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.Cert, pub, a.Key)
	if err != nil {
		return nil, fmt.Errorf("issue certificate: %w", err)
	}
	return x509.ParseCertificate(der)
}

// IssueServer issues the HTTPS server certificate for localhost,
// 127.0.0.1 and ::1, valid for a year.
func (a *Authority) IssueServer(now time.Time) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generate server key: %w", err)
	}
	cert, err := a.issue(&x509.Certificate{
		SerialNumber: newSerial(),
		Subject:      pkix.Name{CommonName: "localhost", Organization: []string{"Sandbank Sandbox"}},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(1, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, key.Public())
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{cert.Raw, a.Cert.Raw}, PrivateKey: key, Leaf: cert}, nil
}

// TPPRequest describes a TPP test certificate.
type TPPRequest struct {
	Name      string   // organisation name, also the CN
	OrgNumber string   // national organisation number, e.g. 933012867
	Roles     []string // PSD2 roles, e.g. PSP_AI, PSP_PI
	NotBefore time.Time
	NotAfter  time.Time
}

// TPPRequestFor returns a TPP certificate request valid from an hour ago
// for validDays days (730 when 0).
func TPPRequestFor(name, orgNumber string, roles []string, validDays int, now time.Time) TPPRequest {
	if validDays == 0 {
		validDays = 730
	}
	return TPPRequest{Name: name, OrgNumber: orgNumber, Roles: roles, NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(0, 0, validDays)}
}

// Problem is one thing wrong with a TPP certificate request: the field,
// named as in the body of POST /v1/sandbox/tpp-certificates, and what to
// change.
type Problem struct {
	Field, Text string
}

// Problems is what is wrong with a TPP certificate request.
type Problems []Problem

// Error lists every problem as "field: text", separated by semicolons.
func (p Problems) Error() string {
	parts := make([]string, len(p))
	for i, x := range p {
		parts[i] = x.Field + ": " + x.Text
	}
	return strings.Join(parts, "; ")
}

// MinRSABits is the least size of the RSA key of a TPP certificate.
const MinRSABits = 2048

// CheckRSAKeySize refuses an RSA key of fewer than MinRSABits bits; what
// names the key in the message, e.g. "the certificate's RSA key has 1024
// bits; use at least 2048".
func CheckRSAKeySize(what string, pub *rsa.PublicKey) error {
	if n := pub.N.BitLen(); n < MinRSABits {
		return fmt.Errorf("%s has %d bits; use at least %d", what, n, MinRSABits)
	}
	return nil
}

// CheckTPPRequest reports what is wrong with a TPP certificate request,
// every problem with its field; nil when nothing is. The name, which the
// SCA page shows to PSUs, is a name by validate.Name: no control or format
// character (a NUL, a line feed, a bidi control), no private-use character,
// and not only spaces and invisible characters. The sandbox API,
// sandbankd cert new and the desktop app all issue through this check.
func CheckTPPRequest(r TPPRequest) Problems {
	var problems Problems
	add := func(field, format string, args ...any) {
		problems = append(problems, Problem{Field: field, Text: fmt.Sprintf(format, args...)})
	}
	switch n := utf8.RuneCountInString(r.Name); {
	case strings.TrimSpace(r.Name) == "":
		add("name", "is required: the TPP's name, 1 to 64 characters")
	case n > 64:
		add("name", "must be at most 64 characters, not %d", n)
	default:
		if err := validate.Name(r.Name); err != nil {
			add("name", "%v", err)
		}
	}
	if len(r.OrgNumber) < 1 || len(r.OrgNumber) > 20 || strings.Trim(r.OrgNumber, "0123456789") != "" {
		add("organisationNumber", "must be 1 to 20 digits, e.g. 933012867")
	}
	seen := map[string]bool{}
	for i, role := range r.Roles {
		field := fmt.Sprintf("roles[%d]", i)
		if _, ok := roleOIDs[role]; !ok {
			add(field, "%q is not a PSD2 role; use %s", role, strings.Join(Roles, ", "))
		} else if seen[role] {
			add(field, "%s is listed twice", role)
		}
		seen[role] = true
	}
	if !r.NotAfter.After(r.NotBefore) {
		add("validDays", "the certificate must end after it starts")
	} else if r.NotAfter.Sub(r.NotBefore) > 10*366*24*time.Hour {
		add("validDays", "at most 10 years")
	}
	return problems
}

// CheckTPPIssue reports what is wrong with issuing a TPP certificate for
// request r and public key pub: the problems of CheckTPPRequest, and an
// RSA key of fewer than MinRSABits bits (field publicKey).
func CheckTPPIssue(r TPPRequest, pub crypto.PublicKey) Problems {
	problems := CheckTPPRequest(r)
	if key, ok := pub.(*rsa.PublicKey); ok {
		if err := CheckRSAKeySize("the RSA public key", key); err != nil {
			problems = append(problems, Problem{Field: "publicKey", Text: err.Error()})
		}
	}
	return problems
}

// IssueTPP issues a TPP test certificate (a QSealC-like certificate with
// organizationIdentifier PSDNO-FSA-<org number> and the PSD2 QCStatement
// naming the roles, NCA Finanstilsynet / NO-FSA) for a public key. What
// CheckTPPIssue finds wrong is refused with Problems.
func (a *Authority) IssueTPP(r TPPRequest, pub crypto.PublicKey) (*x509.Certificate, error) {
	if problems := CheckTPPIssue(r, pub); problems != nil {
		return nil, problems
	}
	tmpl, err := tppTemplate(r)
	if err != nil {
		return nil, err
	}
	return a.issue(tmpl, pub)
}

// tppTemplate is the certificate a TPP request asks for.
func tppTemplate(r TPPRequest) (*x509.Certificate, error) {
	qc, err := qcStatements(r.Roles)
	if err != nil {
		return nil, err
	}
	return &x509.Certificate{
		SerialNumber: newSerial(),
		Subject: pkix.Name{
			CommonName:   r.Name,
			Organization: []string{r.Name},
			Country:      []string{"NO"},
			ExtraNames:   []pkix.AttributeTypeAndValue{{Type: oidOrganizationIdentifier, Value: "PSDNO-FSA-" + r.OrgNumber}},
		},
		NotBefore:       r.NotBefore,
		NotAfter:        r.NotAfter,
		KeyUsage:        x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		ExtKeyUsage:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		ExtraExtensions: []pkix.Extension{{Id: oidQCStatements, Value: qc}},
	}, nil
}

// OperatorPolicy is the certificate policy that marks the bank's
// operator certificate: 2.25 and the UUID
// 1ac8c0f0-702e-4681-a424-b4df2eaae55a as an integer (ITU-T X.667), an
// OID no registry had to hand out. A certificate is the operator's only
// when the bank's own CA issued it with this policy (IsOperator); the CA
// puts it only in certificates of IssueOperator, never in a TPP test
// certificate, whatever the request asks for.
var OperatorPolicy = must(x509.ParseOID("2.25.35602300534235947410171987570872477018"))

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// IssueOperator issues an operator certificate for a public key: a TPP
// certificate of request r (the same name, organisation and roles
// rules) that also carries OperatorPolicy, so that the bank that holds
// this CA lets it do what concerns every TPP (settings, the clock, batch
// runs, every TPP's payments and traffic). Only the operator gets one:
// the data file's owner (sandbankd cert new --operator --data), the
// bank's --operator-cert-out, or an operator through the operator API.
func (a *Authority) IssueOperator(r TPPRequest, pub crypto.PublicKey) (*x509.Certificate, error) {
	if problems := CheckTPPIssue(r, pub); problems != nil {
		return nil, problems
	}
	tmpl, err := tppTemplate(r)
	if err != nil {
		return nil, err
	}
	tmpl.Policies = []x509.OID{OperatorPolicy}
	return a.issue(tmpl, pub)
}

// IsOperator reports whether cert is an operator certificate of this CA:
// it carries OperatorPolicy and the CA's key signed it. Its validity is
// the verifier's to check, as for every certificate.
func (a *Authority) IsOperator(cert *x509.Certificate) bool {
	if cert == nil || !slices.ContainsFunc(cert.Policies, OperatorPolicy.Equal) {
		return false
	}
	return bytes.Equal(cert.RawIssuer, a.Cert.RawSubject) && cert.CheckSignatureFrom(a.Cert) == nil
}

// NewTPP makes an RSA 2048 key and a TPP test certificate for it, an
// operator certificate when operator is set (IssueOperator).
func (a *Authority) NewTPP(r TPPRequest, operator bool) (*x509.Certificate, *rsa.PrivateKey, error) {
	if problems := CheckTPPRequest(r); problems != nil {
		return nil, nil, problems
	}
	key, err := rsa.GenerateKey(rand.Reader, MinRSABits)
	if err != nil {
		return nil, nil, fmt.Errorf("generate TPP key: %w", err)
	}
	issue := a.IssueTPP
	if operator {
		issue = a.IssueOperator
	}
	cert, err := issue(r, key.Public())
	return cert, key, err
}

// SelfSigned makes a self-signed certificate for key, named cn, valid for
// a day. Trust mode any accepts it; the CLI signs with one when it has no
// certificate yet.
func SelfSigned(key crypto.Signer, cn string, now time.Time) (*x509.Certificate, error) {
	tmpl := &x509.Certificate{
		SerialNumber: newSerial(),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("create self-signed certificate: %w", err)
	}
	return x509.ParseCertificate(der)
}

// IssueBank issues the bank's own response-signing certificate for key.
func (a *Authority) IssueBank(key crypto.Signer, now time.Time) (*x509.Certificate, error) {
	return a.issue(&x509.Certificate{
		SerialNumber: newSerial(),
		Subject: pkix.Name{
			CommonName:   "Sandbank Sandbox Bank",
			Organization: []string{"Sandbank Sandbox"},
			Country:      []string{"NO"},
			ExtraNames:   []pkix.AttributeTypeAndValue{{Type: oidOrganizationIdentifier, Value: "PSDNO-FSA-999999999"}},
		},
		NotBefore: now.Add(-time.Hour),
		NotAfter:  now.AddDate(10, 0, 0),
		KeyUsage:  x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
	}, key.Public())
}

type qcStatement struct {
	ID   asn1.ObjectIdentifier
	Info asn1.RawValue `asn1:"optional"`
}

type psd2QcType struct {
	Roles   []roleOfPSP
	NCAName string `asn1:"utf8"`
	NCAID   string `asn1:"utf8"`
}

type roleOfPSP struct {
	OID  asn1.ObjectIdentifier
	Name string `asn1:"utf8"`
}

// qcStatements encodes the QCStatements extension of a TPP certificate.
func qcStatements(roles []string) ([]byte, error) {
	t := psd2QcType{Roles: []roleOfPSP{}, NCAName: "Finanstilsynet", NCAID: "NO-FSA"}
	for _, r := range roles {
		t.Roles = append(t.Roles, roleOfPSP{OID: roleOIDs[r], Name: r})
	}
	psd2, err := asn1.Marshal(t)
	if err != nil {
		return nil, err
	}
	typeSeal, err := asn1.Marshal([]asn1.ObjectIdentifier{oidQcTypeSeal})
	if err != nil {
		return nil, err
	}
	return asn1.Marshal([]qcStatement{
		{ID: oidQcCompliance},
		{ID: oidQcType, Info: asn1.RawValue{FullBytes: typeSeal}},
		{ID: oidPSD2, Info: asn1.RawValue{FullBytes: psd2}},
	})
}

// PSD2Roles returns the PSD2 roles a certificate's QCStatement names.
// named is false when the certificate has no PSD2 QCStatement; err is set
// when it has one that cannot be read.
func PSD2Roles(cert *x509.Certificate) (roles []string, named bool, err error) {
	for _, ext := range cert.Extensions {
		if !ext.Id.Equal(oidQCStatements) {
			continue
		}
		var stmts []qcStatement
		if rest, err := asn1.Unmarshal(ext.Value, &stmts); err != nil || len(rest) > 0 {
			return nil, false, errors.New("the QCStatements extension is not valid DER")
		}
		for _, s := range stmts {
			if !s.ID.Equal(oidPSD2) {
				continue
			}
			var t psd2QcType
			if rest, err := asn1.Unmarshal(s.Info.FullBytes, &t); err != nil || len(rest) > 0 {
				return nil, true, errors.New("the PSD2 QCStatement (0.4.0.19495.2) is not valid DER")
			}
			roles = []string{}
			for _, r := range t.Roles {
				if name := roleName(r); name != "" {
					roles = append(roles, name)
				}
			}
			return roles, true, nil
		}
	}
	return nil, false, nil
}

// roleName returns a role by its OID or, for an unknown OID, by its name.
func roleName(r roleOfPSP) string {
	for name, oid := range roleOIDs {
		if r.OID.Equal(oid) {
			return name
		}
	}
	if _, ok := roleOIDs[r.Name]; ok {
		return r.Name
	}
	return ""
}

// TPPID returns the TPP identity of a certificate (README, "Get a test certificate"): the
// subject's organizationIdentifier without its "PSD" prefix, else the
// subject CN, else "SHA256:" and the first 16 hex digits of the
// certificate's fingerprint.
func TPPID(cert *x509.Certificate) string {
	for _, n := range cert.Subject.Names {
		if n.Type.Equal(oidOrganizationIdentifier) {
			if s, ok := n.Value.(string); ok && s != "" {
				return strings.TrimPrefix(s, "PSD")
			}
		}
	}
	if cert.Subject.CommonName != "" {
		return cert.Subject.CommonName
	}
	sum := sha256.Sum256(cert.Raw)
	return "SHA256:" + hex.EncodeToString(sum[:])[:16]
}

// EncodeCert writes a certificate as PEM.
func EncodeCert(cert *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})
}

// EncodeKey writes a private key as PKCS#8 PEM.
func EncodeKey(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// DecodeCert reads the first certificate of PEM data.
func DecodeCert(data []byte) (*x509.Certificate, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, errors.New("no PEM CERTIFICATE block found")
		}
		if block.Type == "CERTIFICATE" {
			return x509.ParseCertificate(block.Bytes)
		}
	}
}

// DecodePublicKey reads an RSA public key from PEM: "PUBLIC KEY" (SPKI)
// or "RSA PUBLIC KEY" (PKCS#1). Its size is CheckTPPIssue's to check.
func DecodePublicKey(data []byte) (*rsa.PublicKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM public key block found")
	}
	var key any
	var err error
	switch block.Type {
	case "PUBLIC KEY":
		key, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		key, err = x509.ParsePKCS1PublicKey(block.Bytes)
	default:
		return nil, fmt.Errorf("a PEM %s block is not a public key", block.Type)
	}
	if err != nil {
		return nil, errors.New("the public key cannot be parsed")
	}
	pub, ok := key.(*rsa.PublicKey)
	if !ok {
		return nil, errors.New("the public key is not an RSA key")
	}
	return pub, nil
}

// DecodeKey reads the first private key of PEM data: PKCS#8, PKCS#1 RSA or
// SEC 1 EC.
func DecodeKey(data []byte) (crypto.Signer, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, errors.New("no PEM private key block found")
		}
		var key any
		var err error
		switch block.Type {
		case "PRIVATE KEY":
			key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
		case "RSA PRIVATE KEY":
			key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
		case "EC PRIVATE KEY":
			key, err = x509.ParseECPrivateKey(block.Bytes)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", strings.ToLower(block.Type), err)
		}
		signer, ok := key.(crypto.Signer)
		if !ok {
			return nil, errors.New("the key cannot sign")
		}
		return signer, nil
	}
}
