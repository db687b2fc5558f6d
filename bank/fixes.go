package bank

import (
	"strings"
	"time"
)

// The x-accept-fix rules (spec 9): the behaviours the API changed, the
// dates each became the default, and how a request that names a fix, or a
// bank set to a legacy date, gets the old or the new behaviour.

// Fixes of the x-accept-fix header (spec 9) and the dates they became the
// default.
const (
	FixAmountAsString = "amount-as-string"
	FixCardSwitch     = "cardaccount-switch-originalamount-and-transactionamount"
	FixLongerNames    = "longer-names"
	FixCashAccountISO = "cash-account-type-iso"
)

var fixDefaults = map[string]Date{
	FixAmountAsString: {2020, time.August, 1},
	FixCardSwitch:     {2024, time.September, 5},
	FixLongerNames:    {2024, time.September, 5},
	FixCashAccountISO: {2024, time.September, 5},
}

// Fixes tells which x-accept-fix behaviours a request gets.
type Fixes map[string]bool

// FixesFor returns the fixes a request gets: every fix that is default on
// the bank's date (today, or the legacy date when one is set), and every
// fix the request names in x-accept-fix (comma separated; unknown names
// are ignored).
func (s *PSD2) FixesFor(header string) Fixes {
	f := Fixes{}
	date := Date{9999, time.December, 31}
	if k := s.legacy.Load(); k != 0 {
		date = DateFromKey(k)
	}
	for name, since := range fixDefaults {
		f[name] = !date.Before(since)
	}
	for _, part := range strings.Split(header, ",") {
		if _, ok := fixDefaults[strings.TrimSpace(part)]; ok {
			f[strings.TrimSpace(part)] = true
		}
	}
	return f
}

// CashAccountWords are the bank's own names for cash account types, which
// the API wrote before the cash-account-type-iso fix.
var CashAccountWords = map[string]string{
	"CACC": "Brukskonto", "SVGS": "Sparekonto", "SACC": "Sparekonto", "TAXE": "Skattetrekkskonto",
	"LOAN": "Lånekonto", "CASH": "Kassekonto", "SLRY": "Lønnskonto", "MGLD": "Margininnskudd",
	"ODFT": "Kassekreditt", "TRAN": "Transaksjonskonto", "CARD": "Kortkonto",
}

// CashAccountType writes a cash account type, in whatever case it was
// stored, as the fixes ask: the ISO 20022 code in capitals, or the bank's
// word.
func (f Fixes) CashAccountType(typ string) string {
	iso := CashAccountISO(typ)
	if f[FixCashAccountISO] {
		return iso
	}
	if w, ok := CashAccountWords[iso]; ok {
		return w
	}
	return "Annen konto"
}

// Name writes an account name as the fixes ask: up to 70 characters, or
// cut to 35.
func (f Fixes) Name(name string) string {
	if f[FixLongerNames] {
		return name
	}
	if r := []rune(name); len(r) > 35 {
		return string(r[:35])
	}
	return name
}
