package httpsig

import (
	"bytes"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"mime"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var signatureSeeds = []string{
	`keyId="SN=1A,CA=CN=Test CA,O=Bank",algorithm="rsa-sha256",headers="(request-target) date digest x-request-id",signature="c2ln"`,
	`Signature keyId="SN=1A,CA=CN=Test CA",algorithm="rsa-sha256",headers="x-request-id",signature="c2ln"`,
	`signature="c2ln",headers="x-request-id",algorithm=rsa-sha256,keyId="SN=1,CA=O=\"Bank\\, Inc\""`,
	`keyId = "k" , algorithm= a ,headers =h,signature=s==`,
	"=?utf-8?B?a2V5SWQ9ImsiLGFsZ29yaXRobT0iYSIsaGVhZGVycz0iaCIsc2lnbmF0dXJlPSJzIg==?=",
	"=?iso-8859-1?Q?keyId=3D=22SN=3D1=2CCA=3DCN=3DB=E6rum_CA=22=2Calgorithm=3Da=2Cheaders=3Dh=2Csignature=3Ds?=",
	"=?koi8-r?B?YWJj?=",
	"=?utf-8?B?!!!?=",
	`keyId="k",keyId="k"`,
	`keyId="unterminated`,
	`keyId="k\`,
	`keyId="SN=1A,CA=CN=Troms\C3\B8 TPP,O=Eksempel\, Holding AS",algorithm="rsa-sha256",headers="x-request-id",signature="c2ln"`,
	`keyId="SN=1,CA=CN=a\"b\\",algorithm="rsa-sha256",headers="x-request-id",signature="c2ln"`,
	`keyId="SN=1,CA=O=\"Bank\\, Inc\",CN=Test",algorithm="rsa-sha256",headers="x-request-id",signature="c2ln"`,
	`keyId="SN=1,CA=CN=x\\\"",algorithm="a",headers="h",signature="s"`,
	`keyId="SN=1,CA=CN=Sandbank Sandbox CA,O=Sandbank Sandbox,C=NO",algorithm="rsa-sha256",headers="x-request-id",signature="c2ln"`,
	"",
	"Signature ",
	"signature =\"x\"",
	"garbage",
	`="x"`,
	",,,, ,",
}

func FuzzParseSignature(f *testing.F) {
	for _, s := range signatureSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		p, err := ParseSignature(value)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error text")
			}
			return
		}
		for _, h := range p.Headers {
			if h == "" || strings.ContainsAny(h, " \t\n\r") {
				t.Fatalf("header name %q in %q", h, p.Headers)
			}
		}
		// Written back with every value quoted as it is, the parameters
		// read the same. A bare value may hold what no quoted one can: a
		// '"' that would end it, or a backslash that would escape the
		// closing quote.
		values := []string{p.KeyID, p.Algorithm, strings.Join(p.Headers, " "), p.Signature}
		for _, v := range values {
			if !quotable(v) {
				return
			}
		}
		again := fmt.Sprintf(`keyId="%s",algorithm="%s",headers="%s",signature="%s"`, values[0], values[1], values[2], values[3])
		p2, err := ParseSignature(again)
		if err != nil {
			t.Fatalf("ParseSignature(%q) = %+v, but its quoted form %q: %v", value, p, again, err)
		}
		if len(p.Headers) == 0 && len(p2.Headers) == 0 {
			p.Headers, p2.Headers = nil, nil
		}
		if !reflect.DeepEqual(p, p2) {
			t.Fatalf("ParseSignature(%q) = %+v, quoted form gives %+v", value, p, p2)
		}
	})
}

// quotable reports whether s can be a quoted parameter value as it is:
// every '"' in it follows an odd number of backslashes, and it does not
// end in one.
func quotable(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\':
			run++
			continue
		case s[i] == '"' && run%2 == 0:
			return false
		}
		run = 0
	}
	return run%2 == 0
}

func FuzzParseKeyID(f *testing.F) {
	for _, s := range []string{
		"SN=1A2B,CA=CN=Test CA,O=Bank",
		"sn=0x00ff, ca=CN=x",
		"SN=,CA=",
		"SN=-1,CA=x",
		"SN=+1,CA=x",
		"SN=0x,CA=x",
		"SN=1_0,CA=x",
		"SN=1A",
		"CA=x,SN=1",
		"",
		"SN=",
		"SN=1,CA",
		"  SN= 1 ,  CA= x  ",
		`SN=1A,CA=CN=Troms\C3\B8 TPP,O=Eksempel\, Holding AS`,
		`SN=01,CA=CN=a\"b\\,O=\#x\ `,
		`SN=1,CA=CN=Sandbank Sandbox CA,O=Sandbank Sandbox,C=NO`,
		`SN=1,CA=O=Bank\\, Inc`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKeyID(s)
		if err != nil {
			return
		}
		if k.Serial == nil || k.Serial.Sign() < 0 {
			t.Fatalf("ParseKeyID(%q) serial %v", s, k.Serial)
		}
		if trimDN(k.Issuer) != k.Issuer || strings.TrimLeftFunc(k.Issuer, unicode.IsSpace) != k.Issuer {
			t.Fatalf("ParseKeyID(%q) issuer %q not trimmed", s, k.Issuer)
		}
		again := fmt.Sprintf("SN=%X,CA=%s", k.Serial, k.Issuer)
		k2, err := ParseKeyID(again)
		if err != nil || k2.Serial.Cmp(k.Serial) != 0 || k2.Issuer != k.Issuer {
			t.Fatalf("ParseKeyID(%q) = %+v, but %q gives %+v, %v", s, k, again, k2, err)
		}
		// Leading zeros and lower case do not change the serial.
		lower := fmt.Sprintf("sn=000%x,ca=%s", k.Serial, k.Issuer)
		if k3, err := ParseKeyID(lower); err != nil || k3.Serial.Cmp(k.Serial) != 0 {
			t.Fatalf("ParseKeyID(%q) = %+v, %v; want serial %x", lower, k3, err, k.Serial)
		}
	})
}

var dnSeeds = []string{
	`CN=Test CA,organizationIdentifier=PSDNO-FSA-1,OU=Payments,O=Bank\, Inc \+ Co,L=B\C3\A6rum,ST=Viken,C=NO`,
	`C = NO, ST = Viken, L = B\C3\A6rum, O = "Bank, Inc + Co", OU = Payments, organizationIdentifier = PSDNO-FSA-1, CN = Test CA`,
	`2.5.4.97=#130b5053444e4f2d4653412d31,CN=Test CA,O=Bank,C=NO`,
	`OID.2.5.4.97=PSDNO-FSA-1;CN=x+OU=y`,
	`CN=Test%20CA%2CO%3DBank`,
	`CN=#1E0400E60041`,
	`CN=#1E03004100`,
	`CN="quoted \"value\""`,
	`CN=trailing\`,
	`CN=\`,
	`CN=#`,
	`=`,
	``,
	`%zz`,
	`CN=a\2`,
	`CN="unterminated`,
	`CN=a\,b\+c\"d\\e\;f\<g\>h\=i,O=\#j\ `,
	`CN=Troms\C3\B8 TPP,O=Eksempel\, Holding AS,OU=\C3\A6\C3\B8\C3\A5,S=Troms,C=NO`,
	`CN=\FF\C3,O=\EF\BF\BD`,
	`CN=Test CA,O=Bank,OU=Payments,L=Oslo,S=Oslo,C=NO`,
	`OU=a,OU=b,OU=a,DC=example,DC=com`,
	`CN=#1401F8`,
}

func FuzzParseDN(f *testing.F) {
	for _, s := range dnSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		attrs, err := parseDN(s)
		if err != nil {
			return
		}
		if len(attrs) == 0 {
			t.Fatalf("parseDN(%q) succeeded with no attributes", s)
		}
		for _, a := range attrs {
			if a.oid == "" || strings.Trim(a.oid, "0123456789.") != "" {
				t.Fatalf("parseDN(%q): attribute type %q is not a dotted OID", s, a.oid)
			}
			if fold(a.value) != a.value {
				t.Fatalf("parseDN(%q): value %q is not folded", s, a.value)
			}
		}
		if !sameAttributes(attrs, attrs) {
			t.Fatalf("parseDN(%q): not the same as itself", s)
		}
		// Written back in reverse order, every value byte hex-escaped, the
		// DN reads the same.
		var b strings.Builder
		for i := len(attrs) - 1; i >= 0; i-- {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(attrs[i].oid + "=")
			for j := 0; j < len(attrs[i].value); j++ {
				fmt.Fprintf(&b, `\%02X`, attrs[i].value[j])
			}
		}
		again, err := parseDN(b.String())
		if err != nil || !sameAttributes(attrs, again) {
			t.Fatalf("parseDN(%q) = %v, but %q gives %v, %v", s, attrs, b.String(), again, err)
		}
		// Written back as FormatDN writes values (type names, RFC 4514
		// escapes), the DN reads the same.
		parts := make([]string, len(attrs))
		for i, a := range attrs {
			parts[i] = typeName(a.oid) + "=" + escapeDNValue(a.value)
		}
		formatted := strings.Join(parts, ",")
		if again, err := parseDN(formatted); err != nil || !sameAttributes(attrs, again) {
			t.Fatalf("parseDN(%q) = %v, but its RFC 4514 form %q gives %v, %v", s, attrs, formatted, again, err)
		}
		// Any attribute left out, the rest names the DN in part, leaving
		// out one attribute of that type and value.
		for i := range attrs {
			part := append(slices.Clone(attrs[:i]), attrs[i+1:]...)
			leftOut, reason := compareDN(part, attrs)
			if len(part) == 0 {
				continue
			}
			if reason != "" || len(leftOut) != 1 || attrs[leftOut[0]] != attrs[i] {
				t.Fatalf("parseDN(%q) = %v; without %v: left out %v, %q", s, attrs, attrs[i], leftOut, reason)
			}
		}
		// With another value for one of its attributes, the DN is not it.
		changed := attribute{attrs[0].oid, attrs[0].value + "x"}
		if !slices.Contains(attrs, changed) {
			other := append(slices.Clone(attrs[1:]), changed)
			if leftOut, reason := compareDN(other, attrs); reason == "" {
				t.Fatalf("parseDN(%q) = %v; %v names it, leaving out %v", s, attrs, other, leftOut)
			}
		}
	})
}

// sameAttributes reports whether a and b name each other whole.
func sameAttributes(a, b []attribute) bool {
	leftOut, reason := compareDN(a, b)
	return reason == "" && len(leftOut) == 0 && len(a) == len(b)
}

// certName returns n as a certificate parser returns it: marshalled and
// parsed back, with Names filled.
func certName(n pkix.Name) (pkix.Name, bool) {
	der, err := asn1.Marshal(n.ToRDNSequence())
	if err != nil {
		return pkix.Name{}, false
	}
	var rdns pkix.RDNSequence
	if rest, err := asn1.Unmarshal(der, &rdns); err != nil || len(rest) > 0 {
		return pkix.Name{}, false
	}
	var out pkix.Name
	out.FillFromRDNSequence(&rdns)
	return out, true
}

// FuzzFormatDNRoundTrip checks that FormatDN and Go's Name.String() of a
// certificate name read back, by parseDN, as the same name.
func FuzzFormatDNRoundTrip(f *testing.F) {
	f.Add("Test CA", "Bank, Inc + Co", "Payments", "Bærum", "PSDNO-FSA-1")
	f.Add(" lead", "trail ", "#hash", `a"b\c<d>e;f=g`, "x")
	f.Add("", "", "", "", "")
	f.Add(`\41`, `"quoted"`, "tab\there", "Ünïcödé", "PSDNO-FSA-1")
	f.Add("  ", "a  b", "\u00a0nbsp", "\U0001F600", "BMP")
	f.Fuzz(func(t *testing.T, cn, o, ou, l, orgID string) {
		for _, v := range []string{cn, o, ou, l, orgID} {
			if !utf8.ValidString(v) { // certificates hold valid UTF-8
				t.Skip()
			}
		}
		name, ok := certName(pkix.Name{
			CommonName: cn, Organization: []string{o}, OrganizationalUnit: []string{ou}, Locality: []string{l},
			ExtraNames: []pkix.AttributeTypeAndValue{{Type: asn1.ObjectIdentifier{2, 5, 4, 97}, Value: orgID}},
		})
		if !ok {
			t.Skip()
		}
		want := nameAttributes(name)
		for _, dn := range []string{FormatDN(name), name.String()} {
			if m, err := matchIssuer(dn, want); err != nil || len(m.leftOut) > 0 || m.unquoted {
				got, _ := parseDN(dn)
				t.Fatalf("%q reads as %v (%+v, %v), want %v", dn, got, m, err, want)
			}
		}
		// In a Signature header the way the signer writes it, the keyId
		// reads back as it was.
		keyID := "SN=1A,CA=" + FormatDN(name)
		p, err := ParseSignature(`keyId="` + keyID + `",algorithm="rsa-sha256",headers="x-request-id",signature="c2ln"`)
		if err != nil || p.KeyID != keyID {
			t.Fatalf("keyId %q reads back as %q, %v", keyID, p.KeyID, err)
		}
		// Without its organizationIdentifier, the name is written in part.
		var part []string
		for _, atv := range name.Names {
			if !atv.Type.Equal(asn1.ObjectIdentifier{2, 5, 4, 97}) {
				part = append(part, formatATV(atv))
			}
		}
		m, err := matchIssuer(strings.Join(part, ","), want)
		if err != nil || len(m.leftOut) != 1 || !name.Names[m.leftOut[0]].Type.Equal(asn1.ObjectIdentifier{2, 5, 4, 97}) {
			t.Fatalf("%q without organizationIdentifier: %+v, %v", FormatDN(name), m, err)
		}
	})
}

func FuzzDecodeCertificateHeader(f *testing.F) {
	der := []byte{0x30, 0x03, 0x02, 0x01, 0x01}
	for _, s := range []string{
		base64.StdEncoding.EncodeToString(der),
		base64.RawURLEncoding.EncodeToString(der),
		string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		`-----BEGIN CERTIFICATE-----\nMAMCAQE=\n-----END CERTIFICATE-----`,
		"", " ", `\n`, "====", "-_+/", "MAMCAQE", "MA MC AQ E=",
	} {
		f.Add(s, der)
	}
	f.Add("", []byte{})
	f.Add("x", []byte{0xff, 0xfe, 0xfd, 0xfc})
	f.Fuzz(func(t *testing.T, value string, data []byte) {
		got, err := DecodeCertificateHeader(value)
		if err == nil && len(got) == 0 {
			t.Fatalf("DecodeCertificateHeader(%q) returned nothing without an error", value)
		}
		if err != nil && err.Error() == "" {
			t.Fatal("empty error text")
		}
		if len(data) == 0 {
			return
		}
		std := base64.StdEncoding.EncodeToString(data)
		encodings := map[string]string{
			"std":     std,
			"raw":     base64.RawStdEncoding.EncodeToString(data),
			"url":     base64.URLEncoding.EncodeToString(data),
			"raw url": base64.RawURLEncoding.EncodeToString(data),
			"pem":     string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: data})),
			"pem \\n": strings.ReplaceAll(string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: data})), "\n", `\n`),
			"spaced":  strings.Join(chunks(std, 7), " \t"),
		}
		for name, enc := range encodings {
			got, err := DecodeCertificateHeader(enc)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s %q: got %x, %v; want %x", name, enc, got, err, data)
			}
		}
	})
}

// chunks splits s into pieces of n bytes.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

// FuzzDecodeRFC2047 checks the RFC 2047 form of a Signature header: a
// value sent as one B-encoded UTF-8 word, as Q-encoded ISO-8859-1 words or
// as the standard library's encoded words parses exactly as the plain
// value does; and a value that is already encoded parses as its decoding.
func FuzzDecodeRFC2047(f *testing.F) {
	f.Fuzz(func(t *testing.T, value string) {
		plain, plainErr := ParseSignature(value)
		if plainErr != nil && plainErr.Error() == "" {
			t.Fatal("empty error text")
		}
		if v := strings.TrimSpace(value); strings.HasPrefix(v, "=?") {
			// Already encoded: it parses as its decoding, when it has one.
			if decoded, err := wordDecoder.DecodeHeader(v); err == nil && !strings.HasPrefix(strings.TrimSpace(decoded), "=?") {
				again, againErr := ParseSignature(decoded)
				sameParse(t, value, plain, plainErr, decoded, again, againErr)
			} else if plainErr == nil {
				t.Fatalf("ParseSignature(%q) = %+v, but the value does not decode", value, plain)
			}
			return
		}
		if !utf8.ValidString(value) {
			return // an encoded word says its charset; this value has none
		}
		forms := map[string]string{
			"B word":      "=?utf-8?B?" + base64.StdEncoding.EncodeToString([]byte(value)) + "?=",
			"b words":     mime.BEncoding.Encode("UTF-8", value),
			"q words":     mime.QEncoding.Encode("utf-8", value),
			"spaced word": "  =?UTF-8?b?" + base64.StdEncoding.EncodeToString([]byte(value)) + "?=\t",
		}
		if latin, ok := latin1(value); ok {
			forms["latin-1 Q word"] = "=?iso-8859-1?Q?" + qEncode(latin) + "?="
		}
		for name, enc := range forms {
			if !strings.HasPrefix(strings.TrimSpace(enc), "=?") {
				continue // nothing to encode: the standard library left it plain
			}
			got, err := ParseSignature(enc)
			sameParse(t, value, plain, plainErr, name+" "+enc, got, err)
		}
	})
}

// sameParse fails unless two parses agree: both fail, or both give the
// same parameters.
func sameParse(t *testing.T, a string, pa Params, ea error, b string, pb Params, eb error) {
	t.Helper()
	if (ea == nil) != (eb == nil) {
		t.Fatalf("ParseSignature(%q) = %+v, %v; but %q gives %+v, %v", a, pa, ea, b, pb, eb)
	}
	if ea == nil && !reflect.DeepEqual(pa, pb) {
		t.Fatalf("ParseSignature(%q) = %+v; but %q gives %+v", a, pa, b, pb)
	}
}

// latin1 returns s in ISO-8859-1, when every rune of it has a code there.
func latin1(s string) ([]byte, bool) {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff {
			return nil, false
		}
		out = append(out, byte(r))
	}
	return out, true
}

// qEncode writes b as the text of a Q-encoded word: every byte as =XX.
func qEncode(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		fmt.Fprintf(&sb, "=%02X", c)
	}
	return sb.String()
}
