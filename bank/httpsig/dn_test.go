package httpsig

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var oidOrgID = asn1.ObjectIdentifier{2, 5, 4, 97}

// selfSignedName returns a parsed self-signed ECDSA certificate whose
// subject (and so issuer) is name.
func selfSignedName(t testing.TB, name pkix.Name) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7),
		Subject:      name,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// richName has every attribute kind the bank's DN matching must handle.
var richName = pkix.Name{
	CommonName:         "Test CA",
	Organization:       []string{"Bank, Inc + Co"},
	OrganizationalUnit: []string{"Payments"},
	Locality:           []string{"Bærum"},
	Province:           []string{"Viken"},
	Country:            []string{"NO"},
	ExtraNames:         []pkix.AttributeTypeAndValue{{Type: oidOrgID, Value: "PSDNO-FSA-1"}},
}

// matchDN reports whether DN text s names cert's issuer whole, as
// written.
func matchDN(s string, cert *x509.Certificate) (bool, error) {
	m, err := matchIssuer(s, nameAttributes(cert.Issuer))
	return err == nil && len(m.leftOut) == 0 && !m.unquoted, err
}

// percentAll percent-encodes every byte of s.
func percentAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

// reverseRDNs reverses the order of the RDNs of a DN that has no escaped
// or quoted commas other than `\,`.
func reverseRDNs(s string) string {
	const placeholder = "\x00"
	parts := strings.Split(strings.ReplaceAll(s, `\,`, placeholder), ",")
	slices.Reverse(parts)
	return strings.ReplaceAll(strings.Join(parts, ","), placeholder, `\,`)
}

// padRDNs puts spaces around the RDN separators and the first '=' of
// every RDN of a DN like reverseRDNs takes.
func padRDNs(s string) string {
	const placeholder = "\x00"
	parts := strings.Split(strings.ReplaceAll(s, `\,`, placeholder), ",")
	for i, p := range parts {
		parts[i] = "  " + strings.Replace(p, "=", " = ", 1) + " "
	}
	return strings.ReplaceAll(strings.Join(parts, ","), placeholder, `\,`)
}

func TestDNEquivalence(t *testing.T) {
	cert := selfSignedName(t, richName)
	goString := cert.Issuer.String()
	if !strings.Contains(goString, "2.5.4.97=#13") {
		t.Fatalf("Go's Issuer.String() = %q; expected the organizationIdentifier as 2.5.4.97=#13...", goString)
	}
	rfc2253 := `CN=Test CA,organizationIdentifier=PSDNO-FSA-1,OU=Payments,O=Bank\, Inc \+ Co,L=B\C3\A6rum,ST=Viken,C=NO`
	oneline := `C = NO, ST = Viken, L = B\C3\A6rum, O = "Bank, Inc + Co", OU = Payments, organizationIdentifier = PSDNO-FSA-1, CN = Test CA`
	formatted := FormatDN(cert.Issuer)
	if want := `organizationIdentifier=PSDNO-FSA-1,CN=Test CA,OU=Payments,O=Bank\, Inc \+ Co,L=Bærum,ST=Viken,C=NO`; formatted != want {
		t.Errorf("FormatDN = %q, want %q", formatted, want)
	}

	same := []struct{ name, dn string }{
		{"openssl RFC2253", rfc2253},
		{"openssl oneline", oneline},
		{"Go Issuer.String()", goString},
		{"FormatDN", formatted},
		{"reversed order", reverseRDNs(rfc2253)},
		{"reversed Go form", reverseRDNs(goString)},
		{"shuffled order", `OU=Payments,C=NO,CN=Test CA,L=Bærum,organizationIdentifier=PSDNO-FSA-1,ST=Viken,O=Bank\, Inc \+ Co`},
		{"OID. form", strings.Replace(rfc2253, "organizationIdentifier", "OID.2.5.4.97", 1)},
		{"oid. form lower case", strings.Replace(rfc2253, "organizationIdentifier", "oid.2.5.4.97", 1)},
		{"dotted OIDs everywhere", `2.5.4.3=Test CA,2.5.4.97=PSDNO-FSA-1,2.5.4.11=Payments,2.5.4.10=Bank\, Inc \+ Co,2.5.4.7=Bærum,2.5.4.8=Viken,2.5.4.6=NO`},
		{"OID. everywhere", `OID.2.5.4.3=Test CA,OID.2.5.4.97=PSDNO-FSA-1,OID.2.5.4.11=Payments,OID.2.5.4.10=Bank\, Inc \+ Co,OID.2.5.4.7=Bærum,OID.2.5.4.8=Viken,OID.2.5.4.6=NO`},
		{"hex DER UTF8String", strings.Replace(rfc2253, "organizationIdentifier=PSDNO-FSA-1", "2.5.4.97=#0C0B5053444E4F2D4653412D31", 1)},
		{"hex DER for a named type", strings.Replace(rfc2253, "CN=Test CA", "CN=#130754657374204341", 1)},
		{"percent-encoded with PathEscape", url.PathEscape(rfc2253)},
		{"percent-encoded Go form", url.PathEscape(goString)},
		{"percent-encoded every byte", percentAll(formatted)},
		{"percent-encoded spaces only", strings.ReplaceAll(formatted, " ", "%20")},
		{"upper case", strings.ToUpper(formatted)},
		{"upper case openssl", strings.ToUpper(rfc2253)},
		{"upper case Go form", strings.ToUpper(goString)},
		{"lower case", strings.ToLower(formatted)},
		{"space padded", `  CN = Test CA ,  organizationIdentifier = PSDNO-FSA-1 , OU=Payments,O = Bank\, Inc \+ Co , L=Bærum, ST=Viken , C = NO  `},
		{"upper case and space padded", strings.ToUpper(padRDNs(formatted))},
		{"space padded openssl", padRDNs(rfc2253)},
		{"inner white space folded", `CN=Test    CA,organizationIdentifier=PSDNO-FSA-1,OU=Payments,O=Bank\,   Inc  \+ Co,L=Bærum,ST=Viken,C=NO`},
		{"tabs folded", "CN=Test\tCA,organizationIdentifier=PSDNO-FSA-1,OU=Payments,O=Bank\\,\tInc \\+ Co,L=Bærum,ST=Viken,C=NO"},
		{"quoted values", `CN="Test CA",organizationIdentifier="PSDNO-FSA-1",OU=Payments,O="Bank, Inc + Co",L="Bærum",ST=Viken,C="NO"`},
		{"hex pair escapes", `CN=Test CA,organizationIdentifier=PSDNO-FSA-1,OU=Payments,O=Bank\2C Inc \2b Co,L=B\c3\a6rum,ST=Viken,C=NO`},
		{"escaped spaces", `CN=Test\ CA,organizationIdentifier=PSDNO-FSA-1,OU=Payments,O=Bank\,\ Inc\ \+\ Co,L=Bærum,ST=Viken,C=NO`},
		{"semicolon separators", strings.ReplaceAll(reverseRDNs(formatted), ",C=", ";C=")},
		{"long attribute names", `commonName=Test CA,organizationIdentifier=PSDNO-FSA-1,organizationalUnitName=Payments,organizationName=Bank\, Inc \+ Co,localityName=Bærum,stateOrProvinceName=Viken,countryName=NO`},
		{"S for state", strings.Replace(rfc2253, "ST=Viken", "S=Viken", 1)},
		{"multi-valued RDNs", `CN=Test CA+organizationIdentifier=PSDNO-FSA-1+OU=Payments,O=Bank\, Inc \+ Co,L=Bærum+ST=Viken+C=NO`},
		{"upper-case non-ASCII", strings.Replace(formatted, "Bærum", "BÆRUM", 1)},
	}
	for _, tc := range same {
		ok, err := matchDN(tc.dn, cert)
		if err != nil || !ok {
			attrs, _ := parseDN(tc.dn)
			t.Errorf("%s: %q does not match the issuer (err %v)\n parsed %v\n issuer %v", tc.name, tc.dn, err, attrs, nameAttributes(cert.Issuer))
		}
	}

	// Written in part: every attribute written is the issuer's, but not
	// every attribute of the issuer is written.
	partial := []struct {
		name, dn string
		leftOut  []string
	}{
		{"missing OU", strings.Replace(formatted, "OU=Payments,", "", 1), []string{"OU"}},
		{"missing organizationIdentifier", strings.Replace(formatted, "organizationIdentifier=PSDNO-FSA-1,", "", 1), []string{"organizationIdentifier"}},
		{"missing C", strings.TrimSuffix(formatted, ",C=NO"), []string{"C"}},
		{"organisation only", "O=Bank\\, Inc \\+ Co", []string{"CN", "OU", "L", "ST", "C", "organizationIdentifier"}},
		{"fixed list CN,O,OU,L,S,C", `CN=Test CA,O=Bank\, Inc \+ Co,OU=Payments,L=B\C3\A6rum,S=Viken,C=NO`, []string{"organizationIdentifier"}},
	}
	for _, tc := range partial {
		m, err := matchIssuer(tc.dn, nameAttributes(cert.Issuer))
		if err != nil || len(m.leftOut) == 0 {
			t.Errorf("%s: %q: matchIssuer = %+v, %v; want a match in part", tc.name, tc.dn, m, err)
			continue
		}
		var left []string
		for _, i := range m.leftOut {
			left = append(left, typeName(cert.Issuer.Names[i].Type.String()))
		}
		slices.Sort(left)
		slices.Sort(tc.leftOut)
		if !slices.Equal(left, tc.leftOut) {
			t.Errorf("%s: left out %q, want %q", tc.name, left, tc.leftOut)
		}
	}

	different := []struct{ name, dn string }{
		{"extra serialNumber", formatted + ",serialNumber=1"},
		{"extra second OU", formatted + ",OU=Payments"},
		{"extra unknown OID", formatted + ",1.2.3.4=x"},
		{"changed CN", strings.Replace(formatted, "Test CA", "Test CB", 1)},
		{"changed CN prefix", strings.Replace(formatted, "Test CA", "Test C", 1)},
		{"changed country", strings.Replace(formatted, "C=NO", "C=SE", 1)},
		{"non-ASCII dropped", strings.Replace(formatted, "Bærum", "Barum", 1)},
		{"comma dropped", strings.Replace(formatted, `Bank\, Inc`, "Bank Inc", 1)},
		{"plus escaped as separator", strings.Replace(formatted, `Inc \+ Co`, `Inc + OU=Co`, 1)},
		{"attribute types swapped", `OU=Test CA,organizationIdentifier=PSDNO-FSA-1,CN=Payments,O=Bank\, Inc \+ Co,L=Bærum,ST=Viken,C=NO`},
		{"organizationIdentifier as other OID", strings.Replace(rfc2253, "organizationIdentifier", "OID.2.5.4.98", 1)},
		{"changed hex DER", strings.Replace(rfc2253, "organizationIdentifier=PSDNO-FSA-1", "2.5.4.97=#0C0B5053444E4F2D4653412D32", 1)},
		{"changed value in part", "CN=Test CA,O=Bank\\, Inc \\+ Co,C=SE"},
		{"changed value only", "O=Bank"},
		{"type the issuer lacks only", "serialNumber=1"},
		{"hex pairs of another character", strings.Replace(rfc2253, `B\C3\A6rum`, `B\C3\B8rum`, 1)},
		{"hex pairs that are not UTF-8", strings.Replace(rfc2253, `B\C3\A6rum`, `B\E6rum`, 1)},
	}
	for _, tc := range different {
		if m, err := matchIssuer(tc.dn, nameAttributes(cert.Issuer)); err == nil {
			t.Errorf("%s: %q matches the issuer %q (%+v), but should not", tc.name, tc.dn, formatted, m)
		}
	}
}

func TestParseDNErrors(t *testing.T) {
	cases := []struct{ dn, mention string }{
		{"", "empty"},
		{"  , ;", "empty"},
		{"Test CA", "no '='"},
		{"CN=Test CA,O", "no '='"},
		{"XYZ=1", "XYZ"},
		{"=x", "attribute type"},
		{"OID.=x", "attribute type"},
		{"2..5=x", "attribute type"},
		{"CN=#zz", "DER"},
		{"CN=#", "DER"},
		{"CN=#130", "DER"},
		{"CN=#13035445", "DER"},   // length 3 but two bytes
		{"CN=#1301540000", "DER"}, // trailing bytes
		{"CN=#020101", "string"},  // INTEGER
		{"CN=#A0030C0141", "string"},
		{"CN=#1E03004100", "BMPString"},
	}
	for _, tc := range cases {
		attrs, err := parseDN(tc.dn)
		if err == nil {
			t.Errorf("parseDN(%q) = %v, want an error", tc.dn, attrs)
			continue
		}
		if !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("parseDN(%q) error %q does not mention %q", tc.dn, err, tc.mention)
		}
	}
}

func TestParseDNValues(t *testing.T) {
	cases := []struct {
		dn   string
		want []attribute
	}{
		{`CN=a\,b`, []attribute{{"2.5.4.3", "a,b"}}},
		{`CN=a\2cb`, []attribute{{"2.5.4.3", "a,b"}}},
		{`CN="a,b;c+d"`, []attribute{{"2.5.4.3", "a,b;c+d"}}},
		{`CN="a\"b"`, []attribute{{"2.5.4.3", `a"b`}}},
		{`CN=a\\b`, []attribute{{"2.5.4.3", `a\b`}}},
		{`CN=a\\41`, []attribute{{"2.5.4.3", `a\41`}}},
		{`CN=\#1`, []attribute{{"2.5.4.3", "#1"}}},
		{`CN=\ a\ `, []attribute{{"2.5.4.3", "a"}}},
		{`CN=`, []attribute{{"2.5.4.3", ""}}},
		{`CN=a=b`, []attribute{{"2.5.4.3", "a=b"}}},
		{`CN=#0C03E6C3A6`, nil}, // invalid UTF-8 is still a value; only checked not to panic
		{`CN=#1E0400E60041`, []attribute{{"2.5.4.3", "æa"}}},
		{`CN=#16026162`, []attribute{{"2.5.4.3", "ab"}}},
		{`CN=#12023132`, []attribute{{"2.5.4.3", "12"}}},
		{`UID=x,DC=example,DC=com`, []attribute{{"0.9.2342.19200300.100.1.1", "x"}, {"0.9.2342.19200300.100.1.25", "example"}, {"0.9.2342.19200300.100.1.25", "com"}}},
		{`E=a@b.c,emailAddress=A@B.C`, []attribute{{"1.2.840.113549.1.9.1", "a@b.c"}, {"1.2.840.113549.1.9.1", "a@b.c"}}},
		{`SN=Nordmann,GN=Ola,serialNumber=1,street=Gate 1,postalCode=0150,title=Boss,businessCategory=x`, []attribute{
			{"2.5.4.4", "nordmann"}, {"2.5.4.42", "ola"}, {"2.5.4.5", "1"}, {"2.5.4.9", "gate 1"}, {"2.5.4.17", "0150"}, {"2.5.4.12", "boss"}, {"2.5.4.15", "x"}}},
		{`CN=100%`, []attribute{{"2.5.4.3", "100%"}}},
		{`CN=Test%5C%2C%20CA`, []attribute{{"2.5.4.3", "test%5c%2c%20ca"}}}, // parseDN reads text as written; matchIssuer also tries it percent-decoded
	}
	for _, tc := range cases {
		got, err := parseDN(tc.dn)
		if tc.want == nil {
			continue // only checked not to panic
		}
		if err != nil {
			t.Errorf("parseDN(%q): %v", tc.dn, err)
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("parseDN(%q) = %v, want %v", tc.dn, got, tc.want)
		}
	}
}

// TestParseDNEscapes: every RFC 4514 escape, and \XX hex pairs spelling
// UTF-8 as openssl's default -nameopt RFC2253 writes them.
func TestParseDNEscapes(t *testing.T) {
	cases := []struct{ dn, want string }{
		{`CN=a\,b`, "a,b"},
		{`CN=a\+b`, "a+b"},
		{`CN=a\"b`, `a"b`},
		{`CN=a\\b`, `a\b`},
		{`CN=a\;b`, "a;b"},
		{`CN=a\<b\>`, "a<b>"},
		{`CN=a\=b`, "a=b"},
		{`CN=\#1`, "#1"},
		{`CN=\ a b\ `, "a b"},
		{`CN=\  a`, "a"},
		{`CN=a\\`, `a\`},
		{`CN=a\\\,b`, `a\,b`},
		{`CN=Troms\C3\B8 TPP`, "tromsø tpp"},
		{`CN=Troms\c3\b8`, "tromsø"},
		{`CN=\C3\A6\C3\B8\C3\A5 \C3\86\C3\98\C3\85`, "æøå æøå"},
		{`CN=\E2\82\AC\F0\9F\98\80`, "€\U0001F600"},
		{`CN=\41\2C\2b`, "a,+"},
		{`CN=a\2C\20b`, "a, b"},
		{`O=Eksempel\, Holding AS`, "eksempel, holding as"},
		{`CN="a\"b\\c"`, `a"b\c`},
		{`CN="Troms\C3\B8, AS"`, "tromsø, as"},
		{`CN=\FF`, "\xff"},
		{`CN=#1401F8`, "ø"}, // T61String, read as Latin-1 as crypto/x509 does
	}
	for _, tc := range cases {
		got, err := parseDN(tc.dn)
		if err != nil || len(got) != 1 || got[0].value != tc.want {
			t.Errorf("parseDN(%q) = %q, %v; want the value %q", tc.dn, got, err, tc.want)
		}
	}
	for _, typ := range []string{"S", "ST", "s", "st", "stateOrProvinceName", "2.5.4.8", "OID.2.5.4.8"} {
		got, err := parseDN(typ + "=Viken")
		if err != nil || len(got) != 1 || got[0].oid != "2.5.4.8" {
			t.Errorf("parseDN(%s=Viken) = %v, %v; want stateOrProvinceName 2.5.4.8", typ, got, err)
		}
	}
}

// TestDNHexPairsThatAreNotUTF8: hex pairs that spell no character equal
// only the same bytes, not every other such value nor U+FFFD.
func TestDNHexPairsThatAreNotUTF8(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`CN=\FF`, `CN=\ff`, true},
		{`CN=\FF`, `CN=\FE`, false},
		{`CN=\FF`, `CN=\EF\BF\BD`, false},
		{`CN=A\C3`, `CN=a\C3`, true},
		{`CN=A\C3`, `CN=a\C4`, false},
	} {
		a, errA := parseDN(tc.a)
		b, errB := parseDN(tc.b)
		if errA != nil || errB != nil {
			t.Fatalf("parseDN: %v, %v", errA, errB)
		}
		leftOut, reason := compareDN(a, b)
		if same := reason == "" && len(leftOut) == 0; same != tc.same {
			t.Errorf("%q and %q: same = %v, want %v", tc.a, tc.b, same, tc.same)
		}
	}
	cert := selfSignedName(t, pkix.Name{CommonName: "\uFFFD"})
	if ok, _ := matchDN(`CN=\FF`, cert); ok {
		t.Error(`CN=\FF matches an issuer CN of U+FFFD`)
	}
}

// TestMatchIssuerQuotedStringReading: a CA that is no DN as written, but
// is one with its backslashes read as quoted-string escapes (what
// Sandbank's signer sent before), names the issuer with unquoted set. A
// CA that is a DN as written is only read as written, so that one text
// never names two issuers.
func TestMatchIssuerQuotedStringReading(t *testing.T) {
	cases := []struct {
		name     string
		issuer   pkix.Name
		dn       string
		unquoted bool
		ok       bool
	}{
		{"DN's own escapes", pkix.Name{CommonName: "Test", Organization: []string{"Bank, Inc"}}, `O=Bank\, Inc,CN=Test`, false, true},
		{"doubled comma escape", pkix.Name{CommonName: "Test", Organization: []string{"Bank, Inc"}}, `O=Bank\\, Inc,CN=Test`, true, true},
		{"doubled plus escape", pkix.Name{CommonName: "Test", Organization: []string{"a+b"}}, `O=a\\+b,CN=Test`, true, true},
		{"escaped quotes around a quoted value", pkix.Name{CommonName: "Test", Organization: []string{"Bank, Inc"}}, `O=\"Bank, Inc\",CN=Test`, true, true},
		{"doubled hex pairs", pkix.Name{CommonName: "Tromsø, AS"}, `CN=Troms\\C3\\B8\\, AS`, true, true},
		// Readable as written, so read only as written.
		{"doubled backslash of a value", pkix.Name{CommonName: "a", Organization: []string{"ab"}}, `CN=a,O=a\\b`, false, false},
		{"doubled quote escape", pkix.Name{CommonName: "a", Organization: []string{`a"b`}}, `CN=a,O=a\\\"b`, false, false},
		{"unreadable either way", pkix.Name{CommonName: "a"}, `CN=a\\,b`, false, false},
	}
	for _, tc := range cases {
		cert := selfSignedName(t, tc.issuer)
		m, err := matchIssuer(tc.dn, nameAttributes(cert.Issuer))
		if (err == nil) != tc.ok || (err == nil && (m.unquoted != tc.unquoted || len(m.leftOut) > 0)) {
			t.Errorf("%s: matchIssuer(%q) = %+v, %v; want ok %v, unquoted %v", tc.name, tc.dn, m, err, tc.ok, tc.unquoted)
		}
	}
}

// TestParseDNBMPStringSurrogates: a BMPString holding a character outside
// the BMP (a UTF-16 surrogate pair) decodes to that character, as
// crypto/x509 decodes it.
func TestParseDNBMPStringSurrogates(t *testing.T) {
	// U+1F600 is D83D DE00 in UTF-16BE.
	got, err := parseDN("CN=#1E06D83DDE000041")
	if err != nil {
		t.Fatal(err)
	}
	want := []attribute{{"2.5.4.3", "\U0001F600a"}}
	if !slices.Equal(got, want) {
		t.Errorf("parseDN(CN=#1E06D83DDE000041) = %q, want %q", got, want)
	}
}

// TestFormatDNPercentRoundTrip: an issuer whose value holds '%' followed
// by two hex digits matches its own FormatDN, which writes '%' as is (so
// Signer.KeyID of a certificate from such a CA verifies).
func TestFormatDNPercentRoundTrip(t *testing.T) {
	for _, value := range []string{"100%", "100% Bank", "Bank %41", "50%25 off", "a%2Cb"} {
		cert := selfSignedName(t, pkix.Name{CommonName: "Test CA", Organization: []string{value}})
		dn := FormatDN(cert.Issuer)
		ok, err := matchDN(dn, cert)
		if err != nil || !ok {
			attrs, _ := parseDN(dn)
			t.Errorf("O=%q: FormatDN %q does not match its own certificate (err %v): parsed %v, issuer %v", value, dn, err, attrs, nameAttributes(cert.Issuer))
		}
	}
}

func TestFormatDN(t *testing.T) {
	cases := []struct {
		name pkix.Name
		want string
	}{
		{pkix.Name{CommonName: "x"}, "CN=x"},
		{pkix.Name{CommonName: " lead", Organization: []string{"trail "}}, `CN=\ lead,O=trail\ `},
		{pkix.Name{CommonName: "#hash", Organization: []string{`a"b\c<d>e;f=g+h,i`}}, `CN=\#hash,O=a\"b\\c\<d\>e\;f\=g\+h\,i`},
		{pkix.Name{CommonName: "line\nbreak\x7f", Organization: []string{"tab\there"}}, `CN=line\0Abreak\7F,O=tab\09here`},
		{pkix.Name{SerialNumber: "42", StreetAddress: []string{"Gate 1"}, ExtraNames: []pkix.AttributeTypeAndValue{
			{Type: asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 25}, Value: "example"},
			{Type: asn1.ObjectIdentifier{1, 2, 3, 4}, Value: "other"},
		}}, "1.2.3.4=other,DC=example,serialNumber=42,street=Gate 1"},
	}
	for _, tc := range cases {
		if got := FormatDN(tc.name); got != tc.want {
			t.Errorf("FormatDN(%v) = %q, want %q", tc.name, got, tc.want)
		}
		// Parsed from a certificate, the name must also match its FormatDN.
		cert := selfSignedName(t, tc.name)
		if ok, err := matchDN(FormatDN(cert.Issuer), cert); err != nil || !ok {
			t.Errorf("FormatDN(%v) = %q does not match the certificate: %v", tc.name, FormatDN(cert.Issuer), err)
		}
		if ok, err := matchDN(cert.Issuer.String(), cert); err != nil || !ok {
			t.Errorf("Go's String() %q does not match the certificate: %v", cert.Issuer.String(), err)
		}
	}
}

func TestCompareDN(t *testing.T) {
	issuer := []attribute{{"2.5.4.3", "x"}, {"2.5.4.11", "u"}, {"2.5.4.11", "v"}, {"2.5.4.97", "psdno-fsa-1"}}
	cases := []struct {
		name    string
		written []attribute
		leftOut []int
		reason  string // a part of the reason; empty when the written ones name the issuer
	}{
		{"whole, another order", []attribute{{"2.5.4.11", "v"}, {"2.5.4.97", "psdno-fsa-1"}, {"2.5.4.3", "x"}, {"2.5.4.11", "u"}}, nil, ""},
		{"organizationIdentifier left out", []attribute{{"2.5.4.3", "x"}, {"2.5.4.11", "u"}, {"2.5.4.11", "v"}}, []int{3}, ""},
		{"one of two OUs left out", []attribute{{"2.5.4.11", "v"}, {"2.5.4.3", "x"}}, []int{1, 3}, ""},
		{"one attribute", []attribute{{"2.5.4.3", "x"}}, []int{1, 2, 3}, ""},
		{"value differs", []attribute{{"2.5.4.3", "y"}}, nil, "its CN differs"},
		{"OU none of the issuer's", []attribute{{"2.5.4.3", "x"}, {"2.5.4.11", "w"}}, nil, "its OU differs"},
		{"type the issuer lacks", []attribute{{"2.5.4.3", "x"}, {"2.5.4.6", "no"}}, nil, "has no C"},
		{"value written twice", []attribute{{"2.5.4.11", "u"}, {"2.5.4.11", "u"}}, nil, "OU=u more often"},
		{"every attribute and one more", append(slices.Clone(issuer), attribute{"2.5.4.3", "x"}), nil, "CN=x more often"},
	}
	for _, tc := range cases {
		leftOut, reason := compareDN(tc.written, issuer)
		if tc.reason == "" {
			if reason != "" || !slices.Equal(leftOut, tc.leftOut) {
				t.Errorf("%s: compareDN = %v, %q; want left out %v", tc.name, leftOut, reason, tc.leftOut)
			}
		} else if !strings.Contains(reason, tc.reason) || leftOut != nil {
			t.Errorf("%s: compareDN = %v, %q; want a reason with %q", tc.name, leftOut, reason, tc.reason)
		}
	}
	// The input slices keep their order.
	written := []attribute{{"2.5.4.11", "v"}, {"2.5.4.3", "x"}}
	compareDN(written, issuer)
	if written[0].oid != "2.5.4.11" || issuer[0].oid != "2.5.4.3" {
		t.Error("compareDN reordered its arguments")
	}
}

// opensslCert makes a self-signed certificate with openssl and returns it
// with openssl's RFC 2253 rendering of its issuer (and the key file).
func opensslCert(t *testing.T, subj string, utf8 bool, nameopt string) (*x509.Certificate, string, string) {
	t.Helper()
	openssl, err := exec.LookPath("openssl")
	if err != nil {
		t.Fatalf("openssl is not installed: %v", err)
	}
	dir := t.TempDir()
	key, crt := filepath.Join(dir, "key.pem"), filepath.Join(dir, "cert.pem")
	args := []string{"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
		"-keyout", key, "-out", crt, "-days", "2", "-subj", subj}
	if utf8 {
		args = append(args, "-utf8")
	}
	if out, err := exec.Command(openssl, args...).CombinedOutput(); err != nil {
		t.Fatalf("openssl req: %v\n%s", err, out)
	}
	out, err := exec.Command(openssl, "x509", "-noout", "-issuer", "-nameopt", nameopt, "-in", crt).Output()
	if err != nil {
		t.Fatalf("openssl x509: %v", err)
	}
	issuer := strings.TrimPrefix(strings.TrimRight(string(out), "\r\n"), "issuer=")
	data, err := os.ReadFile(crt)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatal("openssl wrote no PEM certificate")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert, issuer, key
}

func TestDNOpenSSL(t *testing.T) {
	cases := []struct {
		subj    string
		utf8    bool
		nameopt string
		want    string // openssl's output, to be sure what is compared
		exact   bool   // FormatDN must equal openssl's output
	}{
		{"/C=NO/O=Bank, Inc/organizationIdentifier=PSDNO-FSA-1/CN=Test CA", false, "RFC2253",
			`CN=Test CA,organizationIdentifier=PSDNO-FSA-1,O=Bank\, Inc,C=NO`, true},
		{"/C=NO/O=Bank, Inc/organizationIdentifier=PSDNO-FSA-1/CN=Test CA", false, "oneline",
			`C = NO, O = "Bank, Inc", organizationIdentifier = PSDNO-FSA-1, CN = Test CA`, false},
		{`/C=NO/ST=Viken/L=Bærum/O=Bank, Inc \+ Co/OU=Pay/organizationIdentifier=PSDNO-FSA-1/CN=Test CA+serialNumber=42`, true, "RFC2253",
			`CN=Test CA+serialNumber=42,organizationIdentifier=PSDNO-FSA-1,OU=Pay,O=Bank\, Inc \+ Co,L=B\C3\A6rum,ST=Viken,C=NO`, false},
		{`/C=NO/ST=Viken/L=Bærum/O=Bank, Inc \+ Co/OU=Pay/organizationIdentifier=PSDNO-FSA-1/CN=Test CA+serialNumber=42`, true, "oneline",
			`C = NO, ST = Viken, L = B\C3\A6rum, O = "Bank, Inc + Co", OU = Pay, organizationIdentifier = PSDNO-FSA-1, serialNumber = 42 + CN = Test CA`, false},
		{`/C=NO/L=Bærum/O=Bank/CN=Test CA`, true, "RFC2253,-esc_msb", `CN=Test CA,O=Bank,L=Bærum,C=NO`, true},
	}
	for _, tc := range cases {
		t.Run(tc.subj+" "+tc.nameopt, func(t *testing.T) {
			cert, issuer, _ := opensslCert(t, tc.subj, tc.utf8, tc.nameopt)
			if issuer != tc.want {
				t.Logf("openssl wrote %q, expected %q", issuer, tc.want)
			}
			if ok, err := matchDN(issuer, cert); err != nil || !ok {
				attrs, _ := parseDN(issuer)
				t.Errorf("openssl's issuer %q does not match (err %v)\n parsed %v\n issuer %v", issuer, err, attrs, nameAttributes(cert.Issuer))
			}
			forms := []string{FormatDN(cert.Issuer), cert.Issuer.String(), strings.ToUpper(issuer), url.PathEscape(issuer)}
			if strings.HasPrefix(tc.nameopt, "RFC2253") {
				forms = append(forms, reverseRDNs(issuer), padRDNs(issuer))
			}
			for _, form := range forms {
				if ok, err := matchDN(form, cert); err != nil || !ok {
					t.Errorf("%q does not match the openssl certificate's issuer (err %v)", form, err)
				}
			}
			if tc.exact && FormatDN(cert.Issuer) != issuer {
				t.Errorf("FormatDN = %q, openssl writes %q", FormatDN(cert.Issuer), issuer)
			}
			if ok, _ := matchDN(strings.Replace(issuer, "Test CA", "Test CB", 1), cert); ok {
				t.Errorf("a changed CN matches")
			}
		})
	}
}
