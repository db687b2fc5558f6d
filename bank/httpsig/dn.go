package httpsig

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
)

// attributeOIDs maps the attribute names clients write in DNs to OIDs.
var attributeOIDs = map[string]string{
	"cn": "2.5.4.3", "commonname": "2.5.4.3",
	"sn": "2.5.4.4", "surname": "2.5.4.4",
	"serialnumber": "2.5.4.5",
	"c":            "2.5.4.6", "countryname": "2.5.4.6",
	"l": "2.5.4.7", "localityname": "2.5.4.7",
	"s": "2.5.4.8", "st": "2.5.4.8", "stateorprovincename": "2.5.4.8",
	"street": "2.5.4.9", "streetaddress": "2.5.4.9",
	"o": "2.5.4.10", "organizationname": "2.5.4.10",
	"ou": "2.5.4.11", "organizationalunitname": "2.5.4.11",
	"title": "2.5.4.12", "businesscategory": "2.5.4.15", "postalcode": "2.5.4.17",
	"gn": "2.5.4.42", "givenname": "2.5.4.42",
	"organizationidentifier": "2.5.4.97",
	"dc":                     "0.9.2342.19200300.100.1.25", "domaincomponent": "0.9.2342.19200300.100.1.25",
	"uid": "0.9.2342.19200300.100.1.1", "userid": "0.9.2342.19200300.100.1.1",
	"e": "1.2.840.113549.1.9.1", "emailaddress": "1.2.840.113549.1.9.1",
}

// attribute is one attribute type and value of a DN, normalised for
// comparison: the type as a dotted OID, the value with white space folded
// and in lower case.
type attribute struct{ oid, value string }

func (a attribute) String() string { return a.oid + "=" + a.value }

// matchesIssuer reports whether a keyId's CA text names the issuer: as
// written, or percent-decoded (some clients percent-encode the DN; a '%'
// may also be part of a name, so the text as written is tried first).
func matchesIssuer(text string, issuer []attribute) (bool, error) {
	want, err := parseDN(text)
	if err == nil && sameDN(want, issuer) {
		return true, nil
	}
	if strings.Contains(text, "%") {
		if decoded, derr := url.PathUnescape(text); derr == nil {
			if w, perr := parseDN(decoded); perr == nil {
				return sameDN(w, issuer), nil
			}
		}
	}
	return false, err
}

// parseDN parses an RFC 2253/4514 distinguished name into its attributes,
// in any RDN order. It accepts attribute types by name, as a dotted OID, or
// as OID.<dotted>; values may be escaped or hex-encoded DER (#...).
func parseDN(s string) ([]attribute, error) {
	var out []attribute
	i := 0
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == ',' || s[i] == ';' || s[i] == '+') {
			i++
		}
		if i == len(s) {
			break
		}
		eq := strings.IndexByte(s[i:], '=')
		if eq < 0 {
			return nil, fmt.Errorf("%q has no '=' after the attribute type", excerpt(s, i))
		}
		typ := strings.TrimSpace(s[i : i+eq])
		oid, err := attributeOID(typ)
		if err != nil {
			return nil, err
		}
		i += eq + 1
		for i < len(s) && s[i] == ' ' {
			i++
		}
		var value string
		if i < len(s) && s[i] == '#' {
			start := i + 1
			i = start
			for i < len(s) && isHex(s[i]) {
				i++
			}
			value, err = decodeHexValue(s[start:i])
			if err != nil {
				return nil, fmt.Errorf("the value of %s: %w", typ, err)
			}
		} else {
			var b strings.Builder
			quoted := i < len(s) && s[i] == '"'
			if quoted {
				i++
			}
			for i < len(s) {
				c := s[i]
				if quoted && c == '"' {
					i++
					break
				}
				if !quoted && (c == ',' || c == ';' || c == '+') {
					break
				}
				if c == '\\' && i+1 < len(s) {
					if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
						bt, _ := hex.DecodeString(s[i+1 : i+3])
						b.Write(bt)
						i += 3
						continue
					}
					b.WriteByte(s[i+1])
					i += 2
					continue
				}
				b.WriteByte(c)
				i++
			}
			value = b.String()
		}
		out = append(out, attribute{oid: oid, value: fold(value)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the issuer DN is empty")
	}
	return out, nil
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// attributeOID returns the dotted OID of an attribute type written by
// name, as "2.5.4.97" or as "OID.2.5.4.97".
func attributeOID(typ string) (string, error) {
	t := strings.TrimPrefix(strings.TrimPrefix(typ, "OID."), "oid.")
	if oid, ok := attributeOIDs[strings.ToLower(t)]; ok {
		return oid, nil
	}
	if t != "" && strings.Trim(t, "0123456789.") == "" && !strings.Contains(t, "..") {
		return t, nil
	}
	return "", fmt.Errorf("%q is not an attribute type this bank knows; write it as a dotted OID", clip(typ))
}

// decodeHexValue decodes a #-hex DER value (e.g. 2.5.4.97=#130f...) to
// its string.
func decodeHexValue(h string) (string, error) {
	der, err := hex.DecodeString(h)
	if err != nil || len(der) == 0 {
		return "", fmt.Errorf("#%s is not hex-encoded DER", clip(h))
	}
	var raw asn1.RawValue
	if rest, err := asn1.Unmarshal(der, &raw); err != nil || len(rest) > 0 {
		return "", fmt.Errorf("#%s is not one DER value", clip(h))
	}
	if raw.Class != asn1.ClassUniversal {
		return "", fmt.Errorf("#%s is not a string", clip(h))
	}
	switch raw.Tag {
	case asn1.TagUTF8String, asn1.TagPrintableString, asn1.TagIA5String, asn1.TagT61String, asn1.TagNumericString:
		return string(raw.Bytes), nil
	case asn1.TagBMPString:
		if len(raw.Bytes)%2 != 0 {
			return "", fmt.Errorf("#%s is not a BMPString", clip(h))
		}
		units := make([]uint16, 0, len(raw.Bytes)/2)
		for i := 0; i < len(raw.Bytes); i += 2 {
			units = append(units, uint16(raw.Bytes[i])<<8|uint16(raw.Bytes[i+1]))
		}
		return string(utf16.Decode(units)), nil
	}
	return "", fmt.Errorf("#%s is not a string type this bank reads", clip(h))
}

// fold trims white space, collapses inner runs to one space and lowers
// the case, for comparison.
func fold(s string) string {
	return strings.ToLower(strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " "))
}

// nameAttributes returns a certificate name's attributes, normalised.
func nameAttributes(n pkix.Name) []attribute {
	out := make([]attribute, 0, len(n.Names))
	for _, atv := range n.Names {
		value, ok := atv.Value.(string)
		if !ok {
			value = fmt.Sprint(atv.Value)
		}
		out = append(out, attribute{oid: atv.Type.String(), value: fold(value)})
	}
	return out
}

// sameDN reports whether two attribute lists hold the same attributes,
// in any order.
func sameDN(a, b []attribute) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(x []attribute) []string {
		out := make([]string, len(x))
		for i, at := range x {
			out[i] = at.String()
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(key(a), key(b))
}

// FormatDN writes a certificate name as RFC 4514 text the way openssl
// and most clients do: most significant RDN last, attribute names such as
// CN and organizationIdentifier, escaped values.
func FormatDN(n pkix.Name) string {
	var rdns pkix.RDNSequence
	if len(n.Names) > 0 {
		// Names holds the parsed attributes in their original order.
		for _, atv := range n.Names {
			rdns = append(rdns, pkix.RelativeDistinguishedNameSET{atv})
		}
	} else {
		rdns = n.ToRDNSequence()
	}
	parts := make([]string, 0, len(rdns))
	for i := len(rdns) - 1; i >= 0; i-- {
		var atvs []string
		for _, atv := range rdns[i] {
			atvs = append(atvs, attributeName(atv.Type)+"="+escapeDNValue(fmt.Sprint(atv.Value)))
		}
		parts = append(parts, strings.Join(atvs, "+"))
	}
	return strings.Join(parts, ",")
}

var shortNames = map[string]string{
	"2.5.4.3": "CN", "2.5.4.5": "serialNumber", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST",
	"2.5.4.9": "street", "2.5.4.10": "O", "2.5.4.11": "OU", "2.5.4.97": "organizationIdentifier",
	"0.9.2342.19200300.100.1.25": "DC", "0.9.2342.19200300.100.1.1": "UID",
}

func attributeName(oid asn1.ObjectIdentifier) string {
	if name, ok := shortNames[oid.String()]; ok {
		return name
	}
	return oid.String()
}

func escapeDNValue(v string) string {
	var b strings.Builder
	for i, c := range v {
		switch {
		case strings.ContainsRune(",+\"\\<>;=", c):
			b.WriteByte('\\')
			b.WriteRune(c)
		case (i == 0 && (c == ' ' || c == '#')) || (i == len(v)-1 && c == ' '):
			b.WriteByte('\\')
			b.WriteRune(c)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}
