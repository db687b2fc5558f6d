package httpsig

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"fmt"
	"iter"
	"math/big"
	"net/http"
	"net/textproto"
	"slices"
	"strings"
)

// When a signature does not verify over the signing string the bank
// rebuilt, the bank tries it over the signing string as the common
// signing mistakes build it (docs/TPP-GUIDE.md 8, "The signature itself"):
// with a trailing newline, with \r\n line ends, with (request-target)'s
// method in upper case or without its query, with header names not in
// lower case, with the lines in another order than headers lists them.
// When one of them verifies, the refusal names that mistake instead of
// the generic message.
//
// The extra work is bounded: one RSA public-key operation recovers the
// digest the signature signs (signedDigest), each mistake then costs a
// hash of its signing string compared with it, and the one that matches
// is confirmed by a real verify. A signature by another key is told by
// its padding after the one operation.

// maxMistakes bounds the signing strings tried.
const maxMistakes = 48

// maxDiagnosedSigning is the longest signing string whose mistakes are
// tried; a longer one gets the generic message.
const maxDiagnosedSigning = 8 << 10

// signingLine is one line of a signing string: a header name in lower
// case and its value.
type signingLine struct{ name, value string }

// signingLines returns the lines of the signing string of the listed
// headers of r, in list order.
func signingLines(r *http.Request, headers []string) ([]signingLine, error) {
	lines := make([]signingLine, 0, len(headers))
	for _, h := range headers {
		name := strings.ToLower(h)
		if name == "(request-target)" {
			lines = append(lines, signingLine{name, strings.ToLower(r.Method) + " " + requestTarget(r)})
			continue
		}
		values := headerValue(r, name)
		if values == nil {
			return nil, fmt.Errorf("headers lists %s, but the request has no %s header", name, name)
		}
		lines = append(lines, signingLine{name, strings.Join(values, ", ")})
	}
	return lines, nil
}

// joinLines writes lines as a signing string, each "name: value",
// separated by sep.
func joinLines(lines []signingLine, sep string) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(l.name)
		b.WriteString(": ")
		b.WriteString(l.value)
	}
	return b.String()
}

// mistake is a signing string as a common mistake builds it, and the
// refusal's words for it: what the signature verifies over, then what to
// do.
type mistake struct {
	signing string
	says    string
}

// genericRefusal is the refusal of a signature no mistake explains.
const genericRefusal = "the RSA signature does not verify over the signing string with the certificate's key; sign exactly the signing string shown, with the key of this certificate"

// diagnose returns the refusal of a signature that does not verify over
// signing, the signing string of lines: the message that names the
// mistake when the signature verifies over the signing string as one of
// them builds it, else genericRefusal.
func diagnose(r *http.Request, lines []signingLine, signing string, pub *rsa.PublicKey, h crypto.Hash, sig []byte) string {
	if len(signing) > maxDiagnosedSigning {
		return genericRefusal
	}
	signed := signedDigest(pub, h, sig)
	if signed == nil {
		return genericRefusal
	}
	tried := map[string]bool{signing: true}
	for m := range mistakes(r, lines, signing) {
		if len(tried) > maxMistakes {
			break
		}
		if tried[m.signing] {
			continue
		}
		tried[m.signing] = true
		sum := hashOf(h, []byte(m.signing))
		if bytes.Equal(sum, signed) && rsa.VerifyPKCS1v15(pub, h, sum, sig) == nil {
			return "the RSA signature does not verify over the signing string, but it does over the signing string " + m.says
		}
	}
	return genericRefusal
}

// digestInfoPrefix is the DER of a PKCS#1 v1.5 DigestInfo up to the digest
// (RFC 8017 9.2, note 1), for the hashes the algorithms name.
var digestInfoPrefix = map[crypto.Hash][]byte{
	crypto.SHA256: {0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20},
	crypto.SHA512: {0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03, 0x05, 0x00, 0x04, 0x40},
}

// signedDigest returns the digest an RSA PKCS#1 v1.5 signature with hash h
// signs, recovered with the public key: sig^e mod n, read as
// 00 01 FF...FF 00 DigestInfo (RFC 8017 8.2.2, 9.2). It is nil when sig
// is no such signature under pub, as a signature by another key is not.
// Every value is public, so the arithmetic need not be constant-time.
func signedDigest(pub *rsa.PublicKey, h crypto.Hash, sig []byte) []byte {
	prefix, ok := digestInfoPrefix[h]
	if !ok {
		return nil
	}
	k, tLen := pub.Size(), len(prefix)+h.Size()
	if len(sig) != k || k < tLen+11 {
		return nil
	}
	s := new(big.Int).SetBytes(sig)
	if s.Cmp(pub.N) >= 0 {
		return nil
	}
	em := s.Exp(s, big.NewInt(int64(pub.E)), pub.N).FillBytes(make([]byte, k))
	ps := em[2 : k-tLen-1]
	if em[0] != 0 || em[1] != 1 || em[k-tLen-1] != 0 || bytes.Count(ps, []byte{0xff}) != len(ps) || !bytes.Equal(em[k-tLen:k-h.Size()], prefix) {
		return nil
	}
	return em[k-h.Size():]
}

// mistakes yields the signing strings the common mistakes make of lines,
// whose signing string is signing, the most common first. It builds each
// only when asked for it.
func mistakes(r *http.Request, lines []signingLine, signing string) iter.Seq[mistake] {
	return func(yield func(mistake) bool) {
		if !yield(mistake{signing + "\n", "with a trailing newline; sign the signing string without it (printf '%s', not echo, which adds one)"}) ||
			!yield(mistake{joinLines(lines, "\r\n"), `with its lines joined by \r\n; join them with \n alone`}) ||
			!yield(mistake{joinLines(lines, "\r\n") + "\r\n", `with \r\n after every line, the last one too; join the lines with \n alone, with nothing after the last`}) {
			return
		}
		if i := slices.IndexFunc(lines, func(l signingLine) bool { return l.name == "(request-target)" }); i >= 0 {
			target := requestTarget(r)
			upper := slices.Clone(lines)
			upper[i].value = strings.ToUpper(r.Method) + " " + target
			if !yield(mistake{joinLines(upper, "\n"), fmt.Sprintf("with the method in upper case, (request-target): %s; write the method in lower case: (request-target): %s", upper[i].value, lines[i].value)}) {
				return
			}
			if path, _, found := strings.Cut(target, "?"); found {
				short := slices.Clone(lines)
				short[i].value = strings.ToLower(r.Method) + " " + path
				if !yield(mistake{joinLines(short, "\n"), fmt.Sprintf("with (request-target) without the query, (request-target): %s; the query belongs to it: (request-target): %s", short[i].value, lines[i].value)}) {
					return
				}
			}
		}
		for _, spell := range []func(string) string{usualSpelling, textproto.CanonicalMIMEHeaderKey} {
			if m, ok := caseMistake(lines, spell); ok && !yield(m) {
				return
			}
		}
		for order := range otherOrders(lines) {
			if !yield(orderMistake(lines, order)) {
				return
			}
		}
	}
}

// usualSpelling writes a header name as the specification does
// (X-Request-ID, PSU-ID), for a signer that puts the name in the signing
// string as it sends it.
func usualSpelling(name string) string {
	switch name {
	case "x-request-id":
		return "X-Request-ID"
	case "psu-id":
		return "PSU-ID"
	case "psu-corporate-id":
		return "PSU-Corporate-ID"
	case "tpp-redirect-uri":
		return "TPP-Redirect-URI"
	case "consent-id":
		return "Consent-ID"
	}
	return textproto.CanonicalMIMEHeaderKey(name)
}

// caseMistake is the signing string with the header names as spell writes
// them; false when that is the signing string itself.
func caseMistake(lines []signingLine, spell func(string) string) (mistake, bool) {
	var b strings.Builder
	var written, lower []string
	for i, l := range lines {
		name := l.name
		if name != "(request-target)" {
			name = spell(l.name)
		}
		if name != l.name {
			written, lower = append(written, name+":"), append(lower, l.name+":")
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(name + ": " + l.value)
	}
	if len(written) == 0 {
		return mistake{}, false
	}
	return mistake{b.String(), fmt.Sprintf("with the header names written %s; write every name in lower case: %s",
		strings.Join(written, " "), strings.Join(lower, " "))}, true
}

// otherOrders yields orders of lines, as indexes, other than their own:
// sorted by name, in the order this bank's signer writes them (and
// docs/TPP-GUIDE.md 2 lists them), reversed, then each with two lines
// swapped.
func otherOrders(lines []signingLine) iter.Seq[[]int] {
	return func(yield func([]int) bool) {
		n := len(lines)
		identity := make([]int, n)
		for i := range identity {
			identity[i] = i
		}
		sorted := slices.Clone(identity)
		slices.SortStableFunc(sorted, func(a, b int) int { return strings.Compare(lines[a].name, lines[b].name) })
		rank := func(i int) int {
			if k := slices.Index(requestHeaders, lines[i].name); k >= 0 {
				return k
			}
			return len(requestHeaders)
		}
		documented := slices.Clone(identity)
		slices.SortStableFunc(documented, func(a, b int) int { return rank(a) - rank(b) })
		reversed := slices.Clone(identity)
		slices.Reverse(reversed)
		for _, order := range [][]int{sorted, documented, reversed} {
			if !slices.Equal(order, identity) && !yield(order) {
				return
			}
		}
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				swapped := slices.Clone(identity)
				swapped[i], swapped[j] = swapped[j], swapped[i]
				if !yield(swapped) {
					return
				}
			}
		}
	}
}

// orderMistake is the signing string with lines in order.
func orderMistake(lines []signingLine, order []int) mistake {
	moved := make([]signingLine, len(lines))
	names, listed := make([]string, len(lines)), make([]string, len(lines))
	for k, i := range order {
		moved[k], names[k], listed[k] = lines[i], lines[i].name, lines[k].name
	}
	return mistake{joinLines(moved, "\n"), fmt.Sprintf("with its lines in the order %s, not in the order headers lists them; sign them in the order of headers, %s (or list them in the order you sign them)",
		strings.Join(names, " "), strings.Join(listed, " "))}
}
