// Package validate holds pure validators for the identifiers and codes used by
// the Norwegian bank emulator's PSD2 (Berlin Group) API: Norwegian account
// numbers (BBAN), IBANs, KIDs, BICs, currencies, countries, purpose codes and
// regulatory reporting codes, and the characters of names and texts (Text).
//
// Every function is safe for any input, including empty strings, invalid UTF-8
// and very long strings. Returned errors are user-facing texts without a field
// name prefix (the caller prepends the JSON path); they start in lower case and
// have no trailing period. Error texts never echo the whole input, only single
// characters and lengths, so they stay short for huge inputs.
package validate

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Lengths used by the validators.
const (
	bbanLen     = 11 // Norwegian BBAN (kontonummer)
	noIBANLen   = 15 // "NO" + 2 check digits + 11-digit BBAN
	ibanMaxLen  = 34 // ISO 13616 maximum IBAN length
	kidMinLen   = 2
	kidMaxLen   = 25
	bicShortLen = 8
	bicLongLen  = 11
)

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
func isUpper(b byte) bool { return b >= 'A' && b <= 'Z' }
func isLower(b byte) bool { return b >= 'a' && b <= 'z' }

// describeRune renders the character r found at byte offset i of s for an
// error message. An invalid UTF-8 byte (which a range loop yields as
// utf8.RuneError) is reported as such instead of as U+FFFD.
func describeRune(s string, i int, r rune) string {
	if r == utf8.RuneError {
		if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
			return fmt.Sprintf("invalid UTF-8 byte 0x%02X", s[i])
		}
	}
	return "character " + strconv.QuoteRune(r)
}

// runeLen returns the number of characters of s as a user would count them
// (invalid UTF-8 bytes count as one character each).
func runeLen(s string) int { return utf8.RuneCountInString(s) }

// plural returns "1 <one>" or "n <many>".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// firstNonDigit returns an error describing the first character of s that is
// not an ASCII digit, or nil if all characters are digits.
func firstNonDigit(s string) error {
	pos := 0
	for i, r := range s {
		pos++
		if r < utf8.RuneSelf && isDigit(byte(r)) {
			continue
		}
		return fmt.Errorf("contains %s at position %d; only digits 0-9 are allowed (no spaces, dots or other separators)",
			describeRune(s, i, r), pos)
	}
	return nil
}

// allDigits reports whether s is non-empty and consists of ASCII digits only.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// IsNorwegianBBANShape reports whether s is exactly 11 ASCII digits, the shape
// of a Norwegian BBAN (kontonummer). Callers use it to decide whether the MOD11
// rule of NorwegianBBAN applies to an account identifier.
func IsNorwegianBBANShape(s string) bool {
	return len(s) == bbanLen && allDigits(s)
}

// NorwegianBBAN checks an 11-digit Norwegian BBAN (kontonummer): exactly 11
// ASCII digits whose last digit is the MOD11 check digit of the first 10,
// computed with the weights 5,4,3,2,7,6,5,4,3,2: r = sum % 11, check = 11 - r,
// where check 11 means 0 and check 10 means that the number is invalid (no
// valid check digit exists for those first 10 digits).
//
// The input must already be normalised: spaces and dots (as in
// "8601.11.17947") are rejected.
func NorwegianBBAN(s string) error {
	if s == "" {
		return errors.New("must not be empty; expected an 11-digit Norwegian account number")
	}
	if err := firstNonDigit(s); err != nil {
		return err
	}
	if len(s) != bbanLen {
		return fmt.Errorf("has %s, expected 11", plural(len(s), "digit", "digits"))
	}
	check, ok := mod11(s[:10])
	if !ok {
		return errors.New("is not a valid Norwegian account number: the MOD11 check digit for its first 10 digits would be 10, so no valid check digit exists")
	}
	if got := int(s[10] - '0'); got != check {
		return fmt.Errorf("check digit is %d, expected %d (MOD11)", got, check)
	}
	return nil
}

// mod97 returns the ISO 7064 MOD 97-10 remainder of the IBAN-style digit
// string formed from s, where each letter A-Z stands for the number 10-35.
// It continues from the remainder rem, so a rearranged IBAN can be fed in
// pieces without building a new string. s must contain only A-Z and 0-9.
func mod97(rem int, s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isDigit(c) {
			rem = (rem*10 + int(c-'0')) % 97
		} else {
			rem = (rem*100 + int(c-'A') + 10) % 97
		}
	}
	return rem
}

// ibanCheckDigits returns the two ISO 13616 check digits (02-98) for the given
// country code and BBAN. Both must contain only A-Z and 0-9.
func ibanCheckDigits(country, bban string) string {
	rem := mod97(0, bban)
	rem = mod97(rem, country)
	rem = mod97(rem, "00")
	n := 98 - rem
	return twoDigits[2*n : 2*n+2]
}

// twoDigits holds 00 to 99, for check digits without a Sprintf.
const twoDigits = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

// IBAN checks an IBAN according to ISO 13616: at most 34 characters, only
// A-Z and 0-9 (no spaces: callers normalise), an upper-case country code that
// is in the SWIFT IBAN registry (see ibanLengths), the exact length registered
// for that country, two check digits and a MOD 97-10 checksum of 1.
//
// The check digits must also be the canonical ones (02-98): the values 00, 01
// and 99 are rejected even when they happen to satisfy the checksum, as
// ISO 13616 requires. The country-specific BBAN structure (which positions are
// letters or digits) is not checked.
func IBAN(s string) error {
	if s == "" {
		return errors.New("must not be empty")
	}
	if n := runeLen(s); n > ibanMaxLen {
		return fmt.Errorf("is %d characters long, an IBAN has at most %d", n, ibanMaxLen)
	}
	pos := 0
	for i, r := range s {
		pos++
		if r < utf8.RuneSelf && (isUpper(byte(r)) || isDigit(byte(r))) {
			continue
		}
		if r < utf8.RuneSelf && isLower(byte(r)) {
			return fmt.Errorf("contains lower-case letter %s at position %d; IBAN letters must be upper case",
				strconv.QuoteRune(r), pos)
		}
		return fmt.Errorf("contains %s at position %d; only A-Z and 0-9 are allowed (no spaces or separators)",
			describeRune(s, i, r), pos)
	}
	// From here on s is plain ASCII A-Z0-9.
	if len(s) < 2 {
		return fmt.Errorf("is %s long, too short for an IBAN (it starts with a 2-letter country code and 2 check digits)",
			plural(len(s), "character", "characters"))
	}
	country := s[:2]
	if !isUpper(country[0]) || !isUpper(country[1]) {
		return fmt.Errorf("must start with a 2-letter country code, got %q", country)
	}
	want, ok := ibanLengths[country]
	if !ok {
		if Country(country) {
			return fmt.Errorf("country %s does not use IBANs (it is not in the IBAN registry)", country)
		}
		return fmt.Errorf("unknown country code %s (not in the IBAN registry)", country)
	}
	if len(s) != want {
		return fmt.Errorf("is %d characters long, expected %d for an IBAN from %s", len(s), want, country)
	}
	got := s[2:4]
	if !isDigit(got[0]) || !isDigit(got[1]) {
		return fmt.Errorf("check digits must be 2 digits after the country code, got %q", got)
	}
	if expected := ibanCheckDigits(country, s[4:]); got != expected {
		return fmt.Errorf("check digits are %s, expected %s (ISO 13616 mod-97)", got, expected)
	}
	return nil
}

// NorwegianIBAN builds the Norwegian IBAN ("NO" + 2 check digits + BBAN) for
// a valid Norwegian BBAN, computing the two ISO 13616 check digits. It returns
// the NorwegianBBAN error if bban is not a valid BBAN.
func NorwegianIBAN(bban string) (string, error) {
	if err := NorwegianBBAN(bban); err != nil {
		return "", err
	}
	iban, _ := NorwegianIBANOfShape(bban)
	return iban, nil
}

// NorwegianIBANOfShape builds the Norwegian IBAN of any 11 digits, whether
// or not their last digit is the MOD11 check digit: the IBAN's own check
// digits are right, so it passes IBAN. ok is false when bban is not 11
// digits (see IsNorwegianBBANShape).
func NorwegianIBANOfShape(bban string) (iban string, ok bool) {
	if !IsNorwegianBBANShape(bban) {
		return "", false
	}
	return "NO" + ibanCheckDigits("NO", bban) + bban, true
}

// BBANFromNorwegianIBAN returns the 11-digit BBAN embedded in a Norwegian
// IBAN ("NO" + 2 check digits + 11 digits). ok is false if s is not a valid
// NO IBAN of length 15: it must pass IBAN (including the mod-97 checksum) and
// its last 11 characters must be digits. The MOD11 check digit of the
// returned BBAN is not verified; use NorwegianBBAN for that.
func BBANFromNorwegianIBAN(s string) (bban string, ok bool) {
	if len(s) != noIBANLen || s[0] != 'N' || s[1] != 'O' || !allDigits(s[2:]) {
		return "", false
	}
	if IBAN(s) != nil {
		return "", false
	}
	return s[4:], true
}

// CompleteKID returns payload, 1 to 24 ASCII digits, with its MOD10 (Luhn)
// check digit appended: a KID that KID accepts.
func CompleteKID(payload string) string {
	return payload + strconv.Itoa(kidLuhn(payload))
}

// kidLuhn returns the MOD10 (Luhn) check digit for the digits in payload.
func kidLuhn(payload string) int {
	sum := 0
	double := true // the digit next to the check digit is doubled
	for i := len(payload) - 1; i >= 0; i-- {
		d := int(payload[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return (10 - sum%10) % 10
}

// mod11 returns the MOD11 check digit for the digits in payload: weights
// 2,3,4,5,6,7 repeating from the right, check = 11 - sum%11, where 11 means
// 0. ok is false when the result would be 10, which has no single-digit
// check digit. A Norwegian BBAN's check digit is mod11 of its first ten
// digits (weights 5,4,3,2,7,6,5,4,3,2 from the left); a KID may use it too.
func mod11(payload string) (check int, ok bool) {
	sum := 0
	w := 2
	for i := len(payload) - 1; i >= 0; i-- {
		sum += int(payload[i]-'0') * w
		w++
		if w > 7 {
			w = 2
		}
	}
	check = 11 - sum%11
	switch check {
	case 11:
		return 0, true
	case 10:
		return 0, false
	}
	return check, true
}

// KID checks a Norwegian KID (kundeidentifikasjon, the OCR payment
// reference): 2 to 25 ASCII digits whose last digit is either a correct MOD10
// (Luhn) check digit or a correct MOD11 check digit of the digits before it.
// MOD11 uses the weights 2,3,4,5,6,7 repeating, starting from the digit left
// of the check digit and going left; check = 11 - sum%11, where 11 means 0 and
// 10 means that MOD11 yields no valid check digit (the "-" check character
// some billers use is not accepted).
func KID(s string) error {
	if s == "" {
		return errors.New("must not be empty; a KID has 2 to 25 digits")
	}
	if err := firstNonDigit(s); err != nil {
		return err
	}
	if len(s) < kidMinLen || len(s) > kidMaxLen {
		return fmt.Errorf("has %s, expected 2 to 25", plural(len(s), "digit", "digits"))
	}
	payload := s[:len(s)-1]
	got := int(s[len(s)-1] - '0')
	luhn := kidLuhn(payload)
	m11, m11ok := mod11(payload)
	if got == luhn || (m11ok && got == m11) {
		return nil
	}
	if m11ok {
		return fmt.Errorf("check digit is %d, expected %d (MOD10) or %d (MOD11)", got, luhn, m11)
	}
	return fmt.Errorf("check digit is %d, expected %d (MOD10); MOD11 gives no valid check digit for these digits", got, luhn)
}

// BIC checks a BIC (ISO 9362 BICFI) against
// ^[A-Z]{6}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$, that is 8 or 11 characters:
// 4-letter institution code, 2-letter country code, 2-character location code
// (first not 0 or 1, second not the letter O) and an optional 3-character
// branch code. The country code is not checked against ISO 3166.
func BIC(s string) error {
	if s == "" {
		return errors.New("must not be empty; a BIC has 8 or 11 characters")
	}
	if n := runeLen(s); n != bicShortLen && n != bicLongLen {
		return fmt.Errorf("is %s long, expected 8 or 11", plural(n, "character", "characters"))
	}
	pos := 0
	for i, r := range s {
		pos++
		var c byte
		if r < utf8.RuneSelf {
			c = byte(r)
		}
		if isLower(c) {
			return fmt.Errorf("contains lower-case letter %s at position %d; BIC letters must be upper case",
				strconv.QuoteRune(r), pos)
		}
		switch {
		case pos <= 6:
			if !isUpper(c) {
				return fmt.Errorf("%s at position %d must be a letter A-Z (the first 6 characters are the bank and country code)",
					describeRune(s, i, r), pos)
			}
		case pos == 7:
			if !isUpper(c) && (c < '2' || c > '9') {
				return fmt.Errorf("%s at position 7 must be A-Z or 2-9 (location code; 0 and 1 are not allowed)",
					describeRune(s, i, r))
			}
		case pos == 8:
			if c == 'O' {
				return errors.New("letter 'O' is not allowed at position 8 (location code); use A-N, P-Z or 0-9")
			}
			if !isUpper(c) && !isDigit(c) {
				return fmt.Errorf("%s at position 8 must be A-N, P-Z or 0-9 (location code)", describeRune(s, i, r))
			}
		default:
			if !isUpper(c) && !isDigit(c) {
				return fmt.Errorf("%s at position %d must be A-Z or 0-9 (branch code)", describeRune(s, i, r), pos)
			}
		}
	}
	return nil
}

// Currency reports whether code is in the API's currency set (upper case
// only). The set is the keys of minorUnits.
func Currency(code string) bool {
	_, ok := minorUnits[code]
	return ok
}

// MinorUnits returns the number of minor-unit digits (decimal places) of a
// currency in the API's currency set, following ISO 4217 (e.g. NOK 2, JPY 0,
// BHD 3), or -1 for a code that is not in the set. Codes in the set that are
// not (or no longer) in ISO 4217 use their last ISO value or customary value;
// see the comments in minorUnits.
func MinorUnits(code string) int {
	if n, ok := minorUnits[code]; ok {
		return n
	}
	return -1
}

// Country reports whether code is an officially assigned ISO 3166-1 alpha-2
// country code (upper case only). User-assigned codes such as XK or XX and
// exceptionally reserved codes such as UK or EU are not included.
func Country(code string) bool {
	_, ok := countries[code]
	return ok
}

// PurposeCode reports whether code is one of the NCBCT purpose codes accepted
// by the API: INVS, SALA, IDCP, CASH, CORT, INTC, PENS, SSBE, SUPP, TAXS,
// TREA, VATX, LOAN, OTHR (upper case only).
func PurposeCode(code string) bool {
	switch code {
	case "INVS", "SALA", "IDCP", "CASH", "CORT", "INTC", "PENS",
		"SSBE", "SUPP", "TAXS", "TREA", "VATX", "LOAN", "OTHR":
		return true
	}
	return false
}

// RegulatoryReportingCode reports whether code is one of the Norwegian
// regulatory reporting codes accepted by the API: 14, 26, 29, 31, 35, 38,
// 41, 43, 45, 51, 52, 53, 71, 79, 81, 82 (exactly two digits, no leading
// or trailing characters).
func RegulatoryReportingCode(code string) bool {
	switch code {
	case "14", "26", "29", "31", "35", "38", "41", "43",
		"45", "51", "52", "53", "71", "79", "81", "82":
		return true
	}
	return false
}
