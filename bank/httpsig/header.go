// Package httpsig signs and verifies HTTP requests and responses the way
// the bank's PSD2 interface requires (docs/TPP-GUIDE.md 2): the cavage HTTP
// signature draft with a Digest header and a keyId that names the signing
// certificate by serial number and issuer.
package httpsig

import (
	"errors"
	"fmt"
	"math/big"
	"mime"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Params are the parameters of a Signature header.
type Params struct {
	KeyID     string
	Algorithm string
	Headers   []string // lower case, in signing order
	Signature string   // base64
}

// wordDecoder decodes RFC 2047 encoded words; utf-8, iso-8859-1 and
// us-ascii are the charsets the standard library knows.
var wordDecoder = &mime.WordDecoder{}

// ParseSignature parses a Signature header value. It accepts a leading
// "Signature " token, any parameter order, quoted or bare values, and a
// value MIME-encoded as a whole per RFC 2047. A quoted value keeps its
// backslashes: those of a keyId's issuer DN are the DN's own; a '"' after
// an odd number of backslashes does not end the value.
func ParseSignature(value string) (Params, error) {
	v := strings.TrimSpace(value)
	if strings.HasPrefix(v, "=?") {
		decoded, err := wordDecoder.DecodeHeader(v)
		if err != nil {
			return Params{}, fmt.Errorf("the RFC 2047 encoded value cannot be decoded (%v); use =?utf-8?B?...?= or =?iso-8859-1?Q?...?=", err)
		}
		if strings.HasPrefix(strings.TrimSpace(decoded), "=?") {
			return Params{}, errors.New("the RFC 2047 encoded value cannot be decoded; use =?utf-8?B?...?= or =?iso-8859-1?Q?...?=")
		}
		v = strings.TrimSpace(decoded)
	}
	// A leading "Signature " token, unless it is the signature parameter
	// itself written with a space before its '='.
	if len(v) > 10 && strings.EqualFold(v[:10], "signature ") && !strings.HasPrefix(strings.TrimSpace(v[10:]), "=") {
		v = strings.TrimSpace(v[10:])
	}
	raw, err := parseParams(v)
	if err != nil {
		return Params{}, err
	}
	p := Params{KeyID: raw["keyid"], Algorithm: raw["algorithm"], Signature: raw["signature"]}
	var missing []string
	for _, name := range []string{"keyId", "algorithm", "headers", "signature"} {
		if _, ok := raw[strings.ToLower(name)]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return p, fmt.Errorf("the Signature header lacks %s; it needs keyId, algorithm, headers and signature", strings.Join(missing, ", "))
	}
	p.Headers = strings.Fields(strings.ToLower(raw["headers"]))
	return p, nil
}

// parseParams reads name=value pairs separated by commas. Values may be
// quoted or bare tokens.
//
// A quoted value is kept as written, backslashes included: the keyId's
// issuer DN has RFC 4514 escapes of its own (O=Eksempel\, Holding AS,
// Troms\C3\B8), which are not quoted-string escapes (docs/TPP-GUIDE.md 2.4). A
// backslash still binds the character after it, so a '"' closes the value
// only when an even number of backslashes (or none) comes before it: the
// DN's own \" stays in the value, and the quote after a DN that ends in
// \\ closes it. That is where the quoted-string reading closes the value
// too, so both readings split a header alike, and unquote recovers the
// quoted-string reading.
func parseParams(s string) (map[string]string, error) {
	out := map[string]string{}
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ',') {
			i++
		}
		if i == len(s) {
			return out, nil
		}
		start := i
		for i < len(s) && s[i] != '=' && s[i] != ',' && s[i] != ' ' {
			i++
		}
		name := strings.ToLower(s[start:i])
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if name == "" || i == len(s) || s[i] != '=' {
			return nil, fmt.Errorf("the Signature header is malformed near %q; write name=\"value\" pairs separated by commas", excerpt(s, start))
		}
		i++
		for i < len(s) && s[i] == ' ' {
			i++
		}
		var val string
		if i < len(s) && s[i] == '"' {
			// The value is what lies between the quotes, as written.
			i++
			start, closed := i, false
			for i < len(s) {
				c := s[i]
				if c == '\\' && i+1 < len(s) {
					i += 2
					continue
				}
				i++
				if c == '"' {
					closed = true
					break
				}
			}
			if !closed {
				return nil, fmt.Errorf("the Signature header's %s value has no closing quote", name)
			}
			val = s[start : i-1]
		} else {
			start := i
			for i < len(s) && s[i] != ',' {
				i++
			}
			val = strings.TrimSpace(s[start:i])
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("the Signature header has %s twice", name)
		}
		out[name] = val
	}
}

// unquote reads a quoted value's text as a quoted string: each backslash
// escapes the character after it. Sandbank's signer wrote the keyId that
// way before the DN's backslashes were taken as its own.
func unquote(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func excerpt(s string, at int) string {
	end := min(len(s), at+24)
	return s[at:end]
}

// KeyID is a parsed keyId: the certificate serial and issuer.
type KeyID struct {
	SerialHex string
	Serial    *big.Int
	Issuer    string
}

// ParseKeyID parses "SN=<hex>,CA=<issuer DN>". The serial is hexadecimal,
// any case, with or without leading zeros.
func ParseKeyID(s string) (KeyID, error) {
	rest := strings.TrimLeftFunc(s, unicode.IsSpace)
	if len(rest) < 3 || !strings.EqualFold(rest[:3], "SN=") {
		return KeyID{}, fmt.Errorf("keyId %q does not start with SN=; write SN=<serial in hex>,CA=<issuer DN>", clip(s))
	}
	rest = rest[3:]
	comma := strings.IndexByte(rest, ',')
	if comma < 0 {
		return KeyID{}, fmt.Errorf("keyId %q has no CA=<issuer DN> after the serial", clip(s))
	}
	serialText := strings.TrimSpace(rest[:comma])
	ca := strings.TrimLeftFunc(rest[comma+1:], unicode.IsSpace)
	if len(ca) < 3 || !strings.EqualFold(ca[:3], "CA=") {
		return KeyID{}, fmt.Errorf("keyId %q has no CA= after the serial", clip(s))
	}
	k := KeyID{SerialHex: serialText, Issuer: trimDN(ca[3:])}
	hexText := strings.TrimPrefix(strings.TrimPrefix(serialText, "0x"), "0X")
	serial, ok := new(big.Int).SetString(hexText, 16)
	if !ok || hexText == "" || strings.HasPrefix(hexText, "-") || strings.HasPrefix(hexText, "+") {
		return k, fmt.Errorf("keyId serial %q is not hexadecimal", clip(serialText))
	}
	k.Serial = serial
	return k, nil
}

// trimDN trims the white space around a DN, but not a space escaped by a
// backslash at its end (RFC 4514 "\ " for a value's trailing space).
func trimDN(s string) string {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	t := strings.TrimRightFunc(s, unicode.IsSpace)
	if len(t) < len(s) && (len(t)-len(strings.TrimRight(t, `\`)))%2 == 1 {
		_, size := utf8.DecodeRuneInString(s[len(t):])
		t = s[:len(t)+size]
	}
	return t
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}
