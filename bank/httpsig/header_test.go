package httpsig_test

import (
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"sandbank/bank/httpsig"
)

// canonical is a Signature header value with every parameter quoted.
const canonical = `keyId="SN=1A,CA=CN=Test CA,O=Bank",algorithm="rsa-sha256",headers="(request-target) date digest x-request-id",signature="c2lnbmF0dXJl"`

var canonicalParams = httpsig.Params{
	KeyID:     "SN=1A,CA=CN=Test CA,O=Bank",
	Algorithm: "rsa-sha256",
	Headers:   []string{"(request-target)", "date", "digest", "x-request-id"},
	Signature: "c2lnbmF0dXJl",
}

// bEncode encodes s as one RFC 2047 B encoded word.
func bEncode(charset, s string) string {
	return "=?" + charset + "?B?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// qEncode encodes s as one RFC 2047 Q encoded word: letters, digits and
// a few safe characters stay, space becomes _, everything else =XX.
func qEncode(charset, s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
			b.WriteByte('_')
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '.', c == '(', c == ')', c == '/':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "=%02X", c)
		}
	}
	return "=?" + charset + "?Q?" + b.String() + "?="
}

// multiWord encodes s as several B encoded words of at most n bytes each,
// joined by sep.
func multiWord(s string, n int, sep string) string {
	var words []string
	for len(s) > 0 {
		k := min(n, len(s))
		words = append(words, bEncode("utf-8", s[:k]))
		s = s[k:]
	}
	return strings.Join(words, sep)
}

func TestParseSignatureValid(t *testing.T) {
	withKeyID := func(kid string) httpsig.Params {
		p := canonicalParams
		p.KeyID = kid
		return p
	}
	cases := []struct {
		name  string
		value string
		want  httpsig.Params
	}{
		{"canonical", canonical, canonicalParams},
		{"leading token", "Signature " + canonical, canonicalParams},
		{"leading token lower case", "signature " + canonical, canonicalParams},
		{"leading token upper case", "SIGNATURE " + canonical, canonicalParams},
		{"leading token and extra spaces", "  Signature    " + canonical + "  ", canonicalParams},
		{"reversed order",
			`signature="c2lnbmF0dXJl",headers="(request-target) date digest x-request-id",algorithm="rsa-sha256",keyId="SN=1A,CA=CN=Test CA,O=Bank"`,
			canonicalParams},
		{"shuffled order with spaces after commas",
			`headers="(request-target) date digest x-request-id", keyId="SN=1A,CA=CN=Test CA,O=Bank",   signature="c2lnbmF0dXJl" ,algorithm="rsa-sha256"`,
			canonicalParams},
		{"spaces around equals signs",
			`keyId = "SN=1A,CA=CN=Test CA,O=Bank", algorithm= "rsa-sha256", headers ="(request-target) date digest x-request-id", signature = "c2lnbmF0dXJl"`,
			canonicalParams},
		{"parameter names in any case",
			`KEYID="SN=1A,CA=CN=Test CA,O=Bank",Algorithm="rsa-sha256",HEADERS="(request-target) date digest x-request-id",Signature="c2lnbmF0dXJl"`,
			canonicalParams},
		{"bare token values",
			`keyId="SN=1A,CA=CN=Test CA,O=Bank",algorithm=rsa-sha256,headers=(request-target) date digest x-request-id,signature=c2lnbmF0dXJl`,
			canonicalParams},
		{"bare base64 value with padding",
			`keyId="SN=1A,CA=CN=Test CA,O=Bank",algorithm=rsa-sha256,headers="(request-target) date digest x-request-id",signature=c2lnbmF0dXJlcw==`,
			httpsig.Params{KeyID: canonicalParams.KeyID, Algorithm: "rsa-sha256", Headers: canonicalParams.Headers, Signature: "c2lnbmF0dXJlcw=="}},
		{"multiple spaces between header names",
			`keyId="SN=1A,CA=CN=Test CA,O=Bank",algorithm="rsa-sha256",headers="  (request-target)   date digest  x-request-id ",signature="c2lnbmF0dXJl"`,
			canonicalParams},
		{"keyId keeps its backslashes",
			`keyId="SN=1A,CA=O=\"Bank\\, Inc\",CN=Test",algorithm="rsa-sha256",headers="(request-target) date digest x-request-id",signature="c2lnbmF0dXJl"`,
			withKeyID(`SN=1A,CA=O=\"Bank\\, Inc\",CN=Test`)},
		{"keyId as openssl -nameopt RFC2253 writes it",
			`keyId="SN=1A,CA=CN=Troms\C3\B8 TPP,O=Eksempel\, Holding AS",algorithm="rsa-sha256",headers="(request-target) date digest x-request-id",signature="c2lnbmF0dXJl"`,
			withKeyID(`SN=1A,CA=CN=Troms\C3\B8 TPP,O=Eksempel\, Holding AS`)},
		{"keyId with the DN's escaped quote",
			`keyId="SN=1A,CA=CN=a\"b,O=Bank",algorithm="rsa-sha256",headers="(request-target) date digest x-request-id",signature="c2lnbmF0dXJl"`,
			withKeyID(`SN=1A,CA=CN=a\"b,O=Bank`)},
		{"keyId whose DN ends in an escaped backslash",
			`keyId="SN=1A,CA=CN=a\\",algorithm="rsa-sha256",headers="(request-target) date digest x-request-id",signature="c2lnbmF0dXJl"`,
			withKeyID(`SN=1A,CA=CN=a\\`)},
		{"keyId whose DN ends in an escaped backslash and an escaped quote",
			`keyId="SN=1A,CA=CN=a\\\"",algorithm="rsa-sha256",headers="(request-target) date digest x-request-id",signature="c2lnbmF0dXJl"`,
			withKeyID(`SN=1A,CA=CN=a\\\"`)},
		{"keyId with an escaped quote last, then other parameters",
			`keyId="SN=1A,CA=CN=\"x\"",headers="(request-target) date digest x-request-id",algorithm="rsa-sha256",signature="c2lnbmF0dXJl"`,
			withKeyID(`SN=1A,CA=CN=\"x\"`)},
		{"non-ASCII keyId", strings.Replace(canonical, "Test CA", "Bærum CA", 1), withKeyID("SN=1A,CA=CN=Bærum CA,O=Bank")},
		{"B encoded utf-8", bEncode("utf-8", canonical), canonicalParams},
		{"B encoded UTF-8 upper case and lower-case b", "=?UTF-8?b?" + base64.StdEncoding.EncodeToString([]byte(canonical)) + "?=", canonicalParams},
		{"B encoded with the leading token inside", bEncode("utf-8", "Signature "+canonical), canonicalParams},
		{"B encoded surrounded by spaces", "  " + bEncode("utf-8", canonical) + " ", canonicalParams},
		{"B encoded as several words", multiWord(canonical, 30, " "), canonicalParams},
		{"B encoded as several folded words", multiWord(canonical, 40, "\r\n "), canonicalParams},
		{"B encoded by mime.BEncoding", mime.BEncoding.Encode("utf-8", strings.Replace(canonical, "Test CA", "Bærum CA", 1)),
			withKeyID("SN=1A,CA=CN=Bærum CA,O=Bank")},
		{"B encoded us-ascii", bEncode("us-ascii", canonical), canonicalParams},
		{"Q encoded iso-8859-1", qEncode("iso-8859-1", canonical), canonicalParams},
		{"Q encoded utf-8", qEncode("utf-8", canonical), canonicalParams},
		{"Q encoded by hand with _ for space and =2C for comma",
			`=?iso-8859-1?Q?keyId=3D=22SN=3D1A=2CCA=3DCN=3DTest_CA=2CO=3DBank=22=2Calgorithm=3D=22rsa-sha256=22=2C` +
				`headers=3D=22(request-target)_date_digest_x-request-id=22=2Csignature=3D=22c2lnbmF0dXJl=22?=`,
			canonicalParams},
		{"Q encoded iso-8859-1 non-ASCII becomes UTF-8",
			qEncode("iso-8859-1", strings.Replace(canonical, "Test CA", "B\xe6rum CA", 1)),
			withKeyID("SN=1A,CA=CN=Bærum CA,O=Bank")},
		{"Q encoded with literal commas and quotes",
			`=?iso-8859-1?q?keyId=3D"SN=3D1A,CA=3DCN=3DTest_CA,O=3DBank",algorithm=3D"rsa-sha256",headers=3D"(request-target)_date_digest_x-request-id",signature=3D"c2lnbmF0dXJl"?=`,
			canonicalParams},
		{"empty values are present values",
			`keyId="",algorithm="",headers="",signature=""`,
			httpsig.Params{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := httpsig.ParseSignature(tc.value)
			if err != nil {
				t.Fatalf("ParseSignature(%q): %v", tc.value, err)
			}
			if len(got.Headers) == 0 && len(tc.want.Headers) == 0 {
				got.Headers, tc.want.Headers = nil, nil
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseSignature(%q)\n got %#v\nwant %#v", tc.value, got, tc.want)
			}
		})
	}
}

// TestParseSignatureSignatureFirstWithSpaceBeforeEquals: a value whose
// first parameter is signature, written with a space before '=', keeps
// its parameter name (it is not taken for the leading "Signature " token).
// Spaces around '=' are accepted for every parameter in every position.
func TestParseSignatureSignatureFirstWithSpaceBeforeEquals(t *testing.T) {
	for _, value := range []string{
		`signature ="c2lnbmF0dXJl",keyId="SN=1A,CA=CN=Test CA,O=Bank",algorithm="rsa-sha256",headers="(request-target) date digest x-request-id"`,
		`Signature signature ="c2lnbmF0dXJl",keyId="SN=1A,CA=CN=Test CA,O=Bank",algorithm="rsa-sha256",headers="(request-target) date digest x-request-id"`,
	} {
		got, err := httpsig.ParseSignature(value)
		if err != nil {
			t.Errorf("ParseSignature(%q): %v", value, err)
			continue
		}
		if !reflect.DeepEqual(got, canonicalParams) {
			t.Errorf("ParseSignature(%q)\n got %#v\nwant %#v", value, got, canonicalParams)
		}
	}
}

// TestParseSignatureHeadersLowerCase checks the documented contract of
// Params.Headers ("lower case, in signing order").
func TestParseSignatureHeadersLowerCase(t *testing.T) {
	value := `keyId="k",algorithm="rsa-sha256",headers="(request-target) Date X-Request-ID PSU-ID",signature="c2ln"`
	p, err := httpsig.ParseSignature(value)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"(request-target)", "date", "x-request-id", "psu-id"}
	if !reflect.DeepEqual(p.Headers, want) {
		t.Errorf("Headers = %q, want %q (Params.Headers is documented as lower case)", p.Headers, want)
	}
}

func TestParseSignatureInvalid(t *testing.T) {
	without := func(name string) string {
		var parts []string
		for _, p := range []string{`keyId="SN=1A,CA=CN=Test CA"`, `algorithm="rsa-sha256"`, `headers="x-request-id"`, `signature="c2ln"`} {
			if !strings.HasPrefix(p, name+"=") {
				parts = append(parts, p)
			}
		}
		return strings.Join(parts, ",")
	}
	cases := []struct {
		name    string
		value   string
		mention []string // each must occur in the error text (case-insensitive)
	}{
		{"missing keyId", without("keyId"), []string{"lacks keyId"}},
		{"missing algorithm", without("algorithm"), []string{"lacks algorithm"}},
		{"missing headers", without("headers"), []string{"lacks headers"}},
		{"missing signature", without("signature"), []string{"lacks signature"}},
		{"missing two", `keyId="k",signature="c2ln"`, []string{"algorithm, headers"}},
		{"empty string", "", []string{"keyId", "algorithm", "headers", "signature"}},
		{"only spaces", "   ", []string{"keyId"}},
		{"only the token", "Signature", []string{"signature"}},
		{"duplicate keyId", canonical + `,keyId="SN=2,CA=CN=x"`, []string{"keyid", "twice"}},
		{"duplicate in other case", canonical + `,Algorithm="rsa-sha512"`, []string{"algorithm", "twice"}},
		{"duplicate headers", `headers="a",` + canonical, []string{"headers", "twice"}},
		{"unterminated quote", `keyId="k",algorithm="rsa-sha256",headers="x-request-id",signature="c2ln`, []string{"signature", "closing quote"}},
		{"unterminated quote mid value", `keyId="SN=1,CA=CN=x,algorithm=rsa-sha256`, []string{"keyid", "closing quote"}},
		{"escaped closing quote", `keyId="k",algorithm="a",headers="h",signature="c2ln\"`, []string{"signature", "closing quote"}},
		{"keyId DN ending in a backslash", `keyId="SN=1,CA=CN=a\",algorithm="a",headers="h",signature="c2ln"`, []string{"malformed"}},
		{"keyId DN ending in three backslashes", `keyId="SN=1,CA=CN=a\\\",algorithm="a",headers="h",signature="c2ln"`, []string{"malformed"}},
		{"keyId with an RFC 2253 quoted value", `keyId="SN=1,CA=O="Bank, Inc",CN=x",algorithm="a",headers="h",signature="c2ln"`, []string{"malformed"}},
		{"garbage", "hello world", []string{"malformed", "hello"}},
		{"garbage without equals", canonical + ",garbage", []string{"malformed", "garbage"}},
		{"name without value separator", `keyId "k"`, []string{"malformed"}},
		{"empty name", `="x",` + canonical, []string{"malformed"}},
		{"RFC 2047 unknown charset", bEncode("koi8-r", canonical), []string{"RFC 2047", "koi8-r"}},
		{"RFC 2047 unknown charset Q", qEncode("x-unknown", canonical), []string{"RFC 2047", "x-unknown"}},
		{"RFC 2047 bad base64", "=?utf-8?B?!!!not base64!!!?=", []string{"RFC 2047"}},
		{"RFC 2047 unknown encoding", "=?utf-8?X?abc?=", []string{"RFC 2047"}},
		{"RFC 2047 unterminated", "=?utf-8?B?" + base64.StdEncoding.EncodeToString([]byte(canonical)), []string{"RFC 2047"}},
		{"RFC 2047 decodes to garbage", bEncode("utf-8", "garbage"), []string{"malformed", "garbage"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := httpsig.ParseSignature(tc.value)
			if err == nil {
				t.Fatalf("ParseSignature(%q) = %#v, want an error", tc.value, p)
			}
			msg := strings.ToLower(err.Error())
			for _, m := range tc.mention {
				if !strings.Contains(msg, strings.ToLower(m)) {
					t.Errorf("ParseSignature(%q) error %q does not mention %q", tc.value, err, m)
				}
			}
		})
	}
}

func TestParseKeyIDValid(t *testing.T) {
	cases := []struct {
		value  string
		serial string // hex
		issuer string
	}{
		{"SN=1A2B,CA=CN=Test CA,O=Bank", "1a2b", "CN=Test CA,O=Bank"},
		{"sn=1a2b,ca=CN=Test CA,O=Bank", "1a2b", "CN=Test CA,O=Bank"},
		{"Sn=1A2b,Ca=CN=Test CA", "1a2b", "CN=Test CA"},
		{"SN=1A2B, CA=CN=Test CA", "1a2b", "CN=Test CA"},
		{"SN=1A2B,   CA=CN=Test CA  ", "1a2b", "CN=Test CA"},
		{"  SN= 1A2B ,CA= CN=Test CA", "1a2b", "CN=Test CA"},
		{"SN=0x1A2B,CA=CN=Test CA", "1a2b", "CN=Test CA"},
		{"SN=0X1a2b,CA=CN=Test CA", "1a2b", "CN=Test CA"},
		{"SN=00001A2B,CA=CN=Test CA", "1a2b", "CN=Test CA"},
		{"SN=0,CA=CN=Test CA", "0", "CN=Test CA"},
		{"SN=4A3F9C2D1E0B7A6958473625140312FF,CA=CN=Test CA", "4a3f9c2d1e0b7a6958473625140312ff", "CN=Test CA"},
		{`SN=1,CA=O=Bank\, Inc,CN=Test CA`, "1", `O=Bank\, Inc,CN=Test CA`},
		{`SN=1A,CA=CN=Troms\C3\B8 TPP,O=Eksempel\, Holding AS`, "1a", `CN=Troms\C3\B8 TPP,O=Eksempel\, Holding AS`},
		{`SN=1,CA=O=trail\ `, "1", `O=trail\ `},
		{"SN=1,CA=O=trail\\ \t ", "1", `O=trail\ `},
		{`SN=1,CA=O=trail\\  `, "1", `O=trail\\`},
		{`SN=1,CA=O=trail\\\ `, "1", `O=trail\\\ `},
		{"SN=1,CA=CN=Test%20CA", "1", "CN=Test%20CA"},
	}
	for _, tc := range cases {
		k, err := httpsig.ParseKeyID(tc.value)
		if err != nil {
			t.Errorf("ParseKeyID(%q): %v", tc.value, err)
			continue
		}
		want, _ := new(big.Int).SetString(tc.serial, 16)
		if k.Serial == nil || k.Serial.Cmp(want) != 0 {
			t.Errorf("ParseKeyID(%q).Serial = %v, want %x", tc.value, k.Serial, want)
		}
		if k.Issuer != tc.issuer {
			t.Errorf("ParseKeyID(%q).Issuer = %q, want %q", tc.value, k.Issuer, tc.issuer)
		}
	}
}

func TestParseKeyIDInvalid(t *testing.T) {
	cases := []struct {
		value   string
		mention string
	}{
		{"", "SN="},
		{"   ", "SN="},
		{"CN=Test CA", "SN="},
		{"CA=CN=Test CA,SN=1A", "SN="},
		{"SN=1A", "CA="},
		{"SN=1A;CA=CN=Test CA", "CA="},
		{"SN=1A,CN=Test CA", "CA="},
		{"SN=1A,CA", "CA="},
		{"SN=,CA=CN=Test CA", "hexadecimal"},
		{"SN=0x,CA=CN=Test CA", "hexadecimal"},
		{"SN=1G,CA=CN=Test CA", "hexadecimal"},
		{"SN=-1A,CA=CN=Test CA", "hexadecimal"},
		{"SN=+1A,CA=CN=Test CA", "hexadecimal"},
		{"SN=0x-1A,CA=CN=Test CA", "hexadecimal"},
		{"SN=1A 2B,CA=CN=Test CA", "hexadecimal"},
		{"SN=1_A,CA=CN=Test CA", "hexadecimal"},
		{"SN=1A.5,CA=CN=Test CA", "hexadecimal"},
	}
	for _, tc := range cases {
		k, err := httpsig.ParseKeyID(tc.value)
		if err == nil {
			t.Errorf("ParseKeyID(%q) = %+v, want an error", tc.value, k)
			continue
		}
		if !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("ParseKeyID(%q) error %q does not mention %q", tc.value, err, tc.mention)
		}
	}
	long := "SN=" + strings.Repeat("Z", 500) + ",CA=CN=x"
	if _, err := httpsig.ParseKeyID(long); err == nil || len(err.Error()) > 300 {
		t.Errorf("ParseKeyID(long garbage) error %v: want a short error", err)
	}
}

func TestDigest(t *testing.T) {
	cases := map[string]string{
		"":    "SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
		"abc": "SHA-256=ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=",
	}
	for body, want := range cases {
		if got := httpsig.Digest([]byte(body)); got != want {
			t.Errorf("Digest(%q) = %q, want %q", body, got, want)
		}
	}
}

func TestSigningString(t *testing.T) {
	r := serverRequest("POST", "/v1/payments/sepa-credit-transfers?a=1&b=%2F", []byte("{}"),
		"Date", "Tue, 07 Jan 2025 10:00:00 GMT", "X-Request-ID", "id-1", "X-Request-ID", "id-2", "PSU-ID", "psu")
	r.Host = "bank.example:8443"
	got, err := httpsig.SigningString(r, []string{"(request-target)", "Host", "DATE", "x-request-id", "psu-id"})
	if err != nil {
		t.Fatal(err)
	}
	want := "(request-target): post /v1/payments/sepa-credit-transfers?a=1&b=%2F\n" +
		"host: bank.example:8443\n" +
		"date: Tue, 07 Jan 2025 10:00:00 GMT\n" +
		"x-request-id: id-1, id-2\n" +
		"psu-id: psu"
	if got != want {
		t.Errorf("SigningString =\n%s\nwant\n%s", got, want)
	}

	// A client request (no RequestURI) gives the same request target.
	c, err := http.NewRequest("POST", "https://bank.example:8443/v1/payments/sepa-credit-transfers?a=1&b=%2F", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err = httpsig.SigningString(c, []string{"(request-target)", "host"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "(request-target): post /v1/payments/sepa-credit-transfers?a=1&b=%2F\nhost: bank.example:8443"; got != want {
		t.Errorf("client SigningString = %q, want %q", got, want)
	}

	if _, err := httpsig.SigningString(r, []string{"x-request-id", "psu-corporate-id"}); err == nil || !strings.Contains(err.Error(), "psu-corporate-id") {
		t.Errorf("SigningString with a missing header: error %v, want one naming psu-corporate-id", err)
	}
	if got, err := httpsig.SigningString(r, nil); err != nil || got != "" {
		t.Errorf("SigningString(nil) = %q, %v; want empty", got, err)
	}
}

func TestDecodeCertificateHeader(t *testing.T) {
	f := getFixture(t)
	der := f.tpp.Raw
	std := base64.StdEncoding.EncodeToString(der)
	pemText := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	valid := map[string]string{
		"standard":              std,
		"raw standard":          base64.RawStdEncoding.EncodeToString(der),
		"URL-safe":              base64.URLEncoding.EncodeToString(der),
		"raw URL-safe":          base64.RawURLEncoding.EncodeToString(der),
		"PEM":                   pemText,
		"PEM with escaped \\n":  strings.ReplaceAll(pemText, "\n", `\n`),
		"PEM on one line":       strings.ReplaceAll(pemText, "\n", " "),
		"spaces and tabs":       " " + std[:10] + " \t" + std[10:40] + "\r\n" + std[40:] + " ",
		"PEM with CRLF":         strings.ReplaceAll(pemText, "\n", "\r\n"),
		"armour without breaks": "-----BEGIN CERTIFICATE-----" + std + "-----END CERTIFICATE-----",
	}
	for name, value := range valid {
		got, err := httpsig.DecodeCertificateHeader(value)
		if err != nil {
			t.Errorf("%s: DecodeCertificateHeader: %v", name, err)
			continue
		}
		if string(got) != string(der) {
			t.Errorf("%s: DecodeCertificateHeader returned other bytes", name)
		}
	}
	invalid := map[string]string{
		"empty":            "",
		"spaces":           "  \t ",
		"armour only":      "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----",
		"escaped newlines": `\n\n`,
		"not base64":       "!!!!",
		"truncated":        std[:len(std)-3] + "=",
	}
	for name, value := range invalid {
		if got, err := httpsig.DecodeCertificateHeader(value); err == nil {
			t.Errorf("%s: DecodeCertificateHeader(%q) = %d bytes, want an error", name, value, len(got))
		}
	}
}
