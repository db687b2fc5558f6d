package httpsig

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
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

// issuerMatch is how a keyId's CA names a certificate's issuer.
type issuerMatch struct {
	// leftOut are the indexes of the issuer's attributes that the CA does
	// not write; none when it writes the issuer whole.
	leftOut []int
	// unquoted is set when the CA reads as a DN only with its backslashes
	// taken as quoted-string escapes (\\ for \, \" for "), as Sandbank's
	// signer wrote it before they were taken as the DN's own.
	unquoted bool
}

// notIssuerError says why a CA that reads as a DN does not name the
// issuer.
type notIssuerError struct{ reason string }

func (e *notIssuerError) Error() string { return e.reason }

// matchIssuer reads a keyId's CA text and matches it with the issuer's
// attributes. The text is read as written, then percent-decoded (some
// clients percent-encode the DN; a '%' may also be part of a name, so the
// text as written comes first); only when neither reads as a DN, it is
// read with its backslashes as quoted-string escapes (see unquote). A
// reading that writes the issuer whole wins over one that writes part of
// it (see compareDN). The error is a *notIssuerError when the CA reads as
// a DN that does not name the issuer, else why it cannot be read.
func matchIssuer(text string, issuer []attribute) (issuerMatch, error) {
	readings := []string{text}
	if strings.Contains(text, "%") {
		if decoded, err := url.PathUnescape(text); err == nil && decoded != text {
			readings = append(readings, decoded)
		}
	}
	var (
		found, whole bool
		best         issuerMatch
		firstErr     error
		mismatch     error
	)
	try := func(s string, unquoted bool) {
		written, err := parseDN(s)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			return
		}
		leftOut, reason := compareDN(written, issuer)
		switch {
		case reason != "":
			if mismatch == nil {
				mismatch = &notIssuerError{reason}
			}
		case !found || (!whole && len(leftOut) == 0):
			found, whole = true, len(leftOut) == 0
			best = issuerMatch{leftOut: leftOut, unquoted: unquoted}
		}
	}
	for _, s := range readings {
		try(s, false)
	}
	if mismatch == nil && !found {
		if u := unquote(text); u != text {
			try(u, true)
		}
	}
	switch {
	case found:
		return best, nil
	case mismatch != nil:
		return issuerMatch{}, mismatch
	}
	return issuerMatch{}, firstErr
}

// compareDN matches the attributes a keyId's CA writes with the issuer's.
// Every written attribute must be one of the issuer's: the same type and
// the same folded value. The issuer's values of a type it has more than
// once (two OUs, DC=example,DC=com) are compared as a set: the CA may
// write them in any order, each at most once. RDN order and grouping
// (multi-valued RDNs) do not matter. The issuer's attributes that the CA
// does not write are left out; their indexes are returned. reason says why
// the CA does not name the issuer: an attribute whose value differs, a
// type the issuer does not have, a value written twice.
func compareDN(written, issuer []attribute) (leftOut []int, reason string) {
	used := make([]bool, len(issuer))
	for _, w := range written {
		hasType, hasValue, at := false, false, -1
		for j, a := range issuer {
			if a.oid != w.oid {
				continue
			}
			hasType = true
			if a.value == w.value {
				hasValue = true
				if !used[j] {
					at = j
					break
				}
			}
		}
		switch {
		case at >= 0:
			used[at] = true
		case hasValue:
			return nil, fmt.Sprintf("it writes %s=%s more often than the issuer has it", typeName(w.oid), escapeDNValue(w.value))
		case hasType:
			return nil, fmt.Sprintf("its %s differs from the issuer's", typeName(w.oid))
		default:
			return nil, fmt.Sprintf("the issuer has no %s", typeName(w.oid))
		}
	}
	for j := range issuer {
		if !used[j] {
			leftOut = append(leftOut, j)
		}
	}
	return leftOut, ""
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
	case asn1.TagUTF8String, asn1.TagPrintableString, asn1.TagIA5String, asn1.TagNumericString:
		return string(raw.Bytes), nil
	case asn1.TagT61String:
		// Read as Latin-1, as crypto/x509 reads a certificate's T61String.
		buf := make([]byte, 0, len(raw.Bytes))
		for _, c := range raw.Bytes {
			buf = utf8.AppendRune(buf, rune(c))
		}
		return string(buf), nil
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
// the case, for comparison. Bytes that are not UTF-8 (a \XX hex pair that
// spells no character) stay as they are, so that they equal only
// themselves.
func fold(s string) string {
	var b strings.Builder
	for k, field := range strings.FieldsFunc(s, unicode.IsSpace) {
		if k > 0 {
			b.WriteByte(' ')
		}
		for i := 0; i < len(field); {
			r, size := utf8.DecodeRuneInString(field[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteByte(field[i])
			} else {
				b.WriteRune(unicode.ToLower(r))
			}
			i += size
		}
	}
	return b.String()
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
			atvs = append(atvs, formatATV(atv))
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

// formatATV writes one attribute as RFC 4514 text: type=value.
func formatATV(atv pkix.AttributeTypeAndValue) string {
	return typeName(atv.Type.String()) + "=" + escapeDNValue(fmt.Sprint(atv.Value))
}

// typeName returns the name openssl writes for an attribute type given as
// a dotted OID, or the OID.
func typeName(oid string) string {
	if name, ok := shortNames[oid]; ok {
		return name
	}
	return oid
}

// escapeDNValue escapes an attribute value as RFC 4514 asks: the special
// characters, a leading '#' or space and a trailing space with a
// backslash; control characters and bytes that are not UTF-8 as \XX hex
// pairs, so that the text fits in an HTTP header.
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
		case c == utf8.RuneError && !strings.HasPrefix(v[i:], "\uFFFD"), c < 0x20, c == 0x7f:
			fmt.Fprintf(&b, "\\%02X", v[i])
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}
