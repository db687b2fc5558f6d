package bank

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"sandbank/bank/apierr"
	"sandbank/bank/validate"
)

// CheckText checks a text field: between minLen and maxLen characters and
// free of the characters a name or text must not hold (checkChars). minLen
// 0 allows an empty text, and one of spaces only; a text that must hold
// something (minLen 1 or more) must show something too (validate.Visible):
// a text of only spaces, fillers and invisible characters is refused.
func CheckText(v *apierr.Violations, path, s string, minLen, maxLen int) {
	if !checkLength(v, path, s, minLen, maxLen) || !checkChars(v, path, s) || minLen == 0 {
		return
	}
	if err := validate.Visible(s); err != nil {
		v.Format(path, "%v", err)
	}
}

// CheckName checks a name field (a customer's, an account's, a creditor's):
// between minLen and maxLen characters and, unless empty where minLen 0
// allows it, a name by validate.Name: free of what checkChars refuses and of
// private-use characters, and showing something, not only spaces, fillers
// and invisible characters.
func CheckName(v *apierr.Violations, path, s string, minLen, maxLen int) {
	if !checkLength(v, path, s, minLen, maxLen) || s == "" {
		return
	}
	if err := validate.Name(s); err != nil {
		v.Format(path, "%v", err)
	}
}

// checkLength checks that a field has between minLen and maxLen
// characters, and reports whether it has.
func checkLength(v *apierr.Violations, path, s string, minLen, maxLen int) bool {
	n := utf8.RuneCountInString(s)
	switch {
	case n == 0 && minLen > 0:
		v.Format(path, "is required")
	case n < minLen:
		v.Format(path, "must be at least %d characters", minLen)
	case n > maxLen:
		v.Format(path, "must be at most %d characters, not %d", maxLen, n)
	default:
		return true
	}
	return false
}

// checkChars checks the characters of a text the bank takes: no control
// characters, no line or paragraph separators, no format characters, such
// as the bidirectional controls that would reorder what the SCA page
// shows, and no noncharacters (validate.Text names the rule and its one
// exception, a zero width joiner inside an emoji). It is a security rule,
// not a tolerance: strict and lenient mode refuse alike. It reports
// whether s passed.
func checkChars(v *apierr.Violations, path, s string) bool {
	if err := validate.Text(s); err != nil {
		v.Format(path, "%v", err)
		return false
	}
	return true
}

// checkPresent checks a field that must be present but may be empty with
// check (checkText or checkName), and returns its value.
func checkPresent(v *apierr.Violations, path string, s *string, maxLen int, check func(v *apierr.Violations, path, s string, minLen, maxLen int)) string {
	if s == nil {
		v.Format(path, "is required (it may be an empty string)")
		return ""
	}
	check(v, path, *s, 0, maxLen)
	return *s
}

// checkDigits checks a field of minLen to maxLen ASCII digits.
func checkDigits(v *apierr.Violations, path, s string, minLen, maxLen int) {
	switch {
	case s == "":
		v.Format(path, "is required")
	case len(s) < minLen || len(s) > maxLen || !allDigits(s):
		if minLen == maxLen {
			v.Format(path, "must be %d digits", minLen)
		} else {
			v.Format(path, "must be %d to %d digits", minLen, maxLen)
		}
	}
}

// CheckOneOf checks that s is one of allowed, exactly.
func CheckOneOf(v *apierr.Violations, path, s string, allowed []string) bool {
	if s == "" {
		v.Format(path, "is required; one of %s", strings.Join(allowed, ", "))
		return false
	}
	for _, a := range allowed {
		if s == a {
			return true
		}
	}
	v.Format(path, "%q is not allowed; use one of %s", apierr.Clip(s), strings.Join(allowed, ", "))
	return false
}

// OneOfCase returns the value of allowed that s equals without regard to
// case, or "" when there is none. The sandbox data API matches the
// enumerations the seed spells in capitals (customer type, cash account
// type, engagement roles) so, and keeps them as written.
func OneOfCase(s string, allowed []string) string {
	for _, a := range allowed {
		if strings.EqualFold(s, a) {
			return a
		}
	}
	return ""
}

// checkOneOfCase checks that s is one of allowed without regard to case
// (OneOfCase), and reports whether it is.
func checkOneOfCase(v *apierr.Violations, path, s string, allowed []string) bool {
	if s == "" {
		v.Format(path, "is required; one of %s", strings.Join(allowed, ", "))
		return false
	}
	if OneOfCase(s, allowed) != "" {
		return true
	}
	v.Format(path, "%q is not allowed; use one of %s (in any case)", apierr.Clip(s), strings.Join(allowed, ", "))
	return false
}

// oneOfFold returns the allowed value equal to s ignoring case and
// underscores (so "CLOSING_BOOKED" matches "closingBooked"), or "".
func oneOfFold(s string, allowed []string) string {
	norm := func(x string) string { return strings.ToLower(strings.ReplaceAll(x, "_", "")) }
	for _, a := range allowed {
		if norm(s) == norm(a) {
			return a
		}
	}
	return ""
}

// CheckCurrency checks an ISO 4217 code of the API's currency set.
func CheckCurrency(v *apierr.Violations, path, c string) bool {
	switch {
	case c == "":
		v.Format(path, "is required")
	case !validate.Currency(c):
		v.Format(path, "%q is not a supported ISO 4217 currency code", apierr.Clip(c))
	default:
		return true
	}
	return false
}

// checkDate parses a required YYYY-MM-DD date field.
func checkDate(v *apierr.Violations, path, s string) Date {
	if s == "" {
		v.Format(path, "is required")
		return Date{}
	}
	d, err := ParseDate(s)
	if err != nil {
		v.Format(path, "%v", err)
	}
	return d
}

// checkPast checks that d has begun: it is today or earlier.
func checkPast(v *apierr.Violations, path string, d, today Date) {
	if !d.IsZero() && d.After(today) {
		v.Format(path, "%s is in the future; it must be today (%s) or earlier", d, today)
	}
}

// CheckAccountRef checks an account reference by the rules of docs/PAYMENTS.md 3:
// an IBAN of at most 34 characters with a valid check, a BBAN of at most 30
// of letters and digits, and a NO IBAN that embeds the BBAN. At least one
// of the two must be given. A Norwegian BBAN's MOD11 check digit is
// checkMOD11's.
func CheckAccountRef(v *apierr.Violations, path string, r AccountRef) {
	if r.IBAN == "" && r.BBAN == "" {
		v.Format(path, "needs an iban or a bban")
		return
	}
	if r.IBAN != "" {
		if len(r.IBAN) > 34 {
			v.Format(apierr.JoinPath(path, "iban"), "must be at most 34 characters")
		} else if err := validate.IBAN(r.IBAN); err != nil {
			v.Format(apierr.JoinPath(path, "iban"), "%v", err)
		}
	}
	if r.BBAN != "" {
		switch {
		case len(r.BBAN) > 30:
			v.Format(apierr.JoinPath(path, "bban"), "must be at most 30 characters")
		case strings.IndexFunc(r.BBAN, func(c rune) bool { return !isAlnum(c) }) >= 0:
			v.Format(apierr.JoinPath(path, "bban"), "must hold only letters and digits")
		}
	}
	if r.IBAN != "" && r.BBAN != "" {
		if embedded, ok := validate.BBANFromNorwegianIBAN(r.IBAN); ok && embedded != r.BBAN {
			v.Format(apierr.JoinPath(path, "bban"), "%s is not the BBAN in IBAN %s (%s)", r.BBAN, r.IBAN, embedded)
		}
	}
}

// checkMOD11 checks the MOD11 check digit of the Norwegian BBAN of an
// account reference: its bban, or else the one its NO iban holds. A
// payment refuses a wrong one (docs/PAYMENTS.md 3); sandbox data (odd) takes it
// with a warning, as the real bank's sandbox takes the account numbers of
// seeding tools, and payments to or from such an account are refused.
func checkMOD11(v *apierr.Violations, path string, r AccountRef, odd bool) {
	at, bban := apierr.JoinPath(path, "bban"), r.BBAN
	if bban == "" {
		at = apierr.JoinPath(path, "iban")
		bban, _ = validate.BBANFromNorwegianIBAN(r.IBAN)
	}
	if !validate.IsNorwegianBBANShape(bban) {
		return
	}
	err := validate.NorwegianBBAN(bban)
	switch {
	case err == nil:
		return
	case bban != r.BBAN:
		err = fmt.Errorf("holds BBAN %s: %w", bban, err)
	}
	if odd {
		v.Odd(apierr.CodeFormatError, at, err.Error()+"; the bank takes it, but payments to or from this account are refused")
		return
	}
	v.Format(at, "%v", err)
}

func isAlnum(c rune) bool {
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
}

// checkMaskedPan checks a masked card number: 12 to 19 digits and mask
// characters, at least one mask, ending in four digits. The bank masks
// with '*'; a mask of 'x' or 'X', as some tools write, is odd and kept as
// given.
func checkMaskedPan(v *apierr.Violations, path, s string) {
	if s == "" {
		v.Format(path, "is required")
		return
	}
	ok := len(s) >= 12 && len(s) <= 19 && strings.ContainsAny(s, "*xX") && allDigits(s[len(s)-4:])
	for i := 0; ok && i < len(s); i++ {
		ok = strings.IndexByte("*xX", s[i]) >= 0 || (s[i] >= '0' && s[i] <= '9')
	}
	if !ok {
		v.Format(path, "%q is not a masked card number; write 12 to 19 digits and '*' ending in the last four digits, e.g. 525412******3241", apierr.Clip(s))
		return
	}
	var letters []string
	for _, x := range []string{"x", "X"} {
		if strings.Contains(s, x) {
			letters = append(letters, x)
		}
	}
	if len(letters) > 0 {
		v.Odd(apierr.CodeFormatError, path, fmt.Sprintf("is masked with %s; the bank masks card numbers with '*' (e.g. 525412******3241) and keeps this one as given", strings.Join(letters, " and ")))
	}
}
