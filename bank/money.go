package bank

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"sandbank/bank/validate"
)

// maxSandboxAmount bounds the sandbox API's numbers, which the spec types as
// int32: their magnitude may not exceed 2,147,483,647.
var maxSandboxAmount = decimal.NewFromInt(1<<31 - 1)

// FormatAmount writes an amount with exactly the currency's ISO 4217 minor
// digits, as the PSD2 API does ("100.30" NOK, "1500" JPY, "12.345" BHD).
func FormatAmount(d decimal.Decimal, currency string) string {
	minor := validate.MinorUnits(currency)
	if minor < 0 {
		minor = 2
	}
	return d.StringFixed(int32(minor))
}

// ParseAmount parses a PSD2 amount string: an optional minus sign, digits
// and at most the currency's minor digits after a point. No exponent, no
// plus sign, no spaces.
func ParseAmount(s, currency string) (decimal.Decimal, error) {
	body := strings.TrimPrefix(s, "-")
	intPart, frac, hasPoint := strings.Cut(body, ".")
	if intPart == "" || !allDigits(intPart) || (hasPoint && (frac == "" || !allDigits(frac))) {
		return decimal.Decimal{}, fmt.Errorf("%q is not an amount; write digits with an optional decimal point, e.g. \"100.30\"", clip(s))
	}
	if minor := validate.MinorUnits(currency); minor >= 0 && len(frac) > minor {
		return decimal.Decimal{}, fmt.Errorf("%q has %d decimals; %s has %d", clip(s), len(frac), currency, minor)
	}
	if len(intPart) > 18 {
		return decimal.Decimal{}, fmt.Errorf("%q is too large", clip(s))
	}
	return decimal.NewFromString(s)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Number is a JSON number of a sandbox request body, kept exact (never a
// float). Decoding accepts any JSON value so that a value of the wrong type
// is reported by validation, with its path, like every other rule.
type Number struct {
	Value decimal.Decimal
	bad   string // the JSON text when it was not a number
}

// NumberOf returns a Number holding d.
func NumberOf(d decimal.Decimal) *Number { return &Number{Value: d} }

// maxNumberText bounds the JSON text of a Number that is parsed: no
// sandbox amount needs more, and parsing a megabyte of digits takes
// seconds. A longer number is reported like any value that is not one.
const maxNumberText = 64

// UnmarshalJSON keeps a JSON number exactly and remembers anything else.
func (n *Number) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && len(b) <= maxNumberText && (b[0] == '-' || (b[0] >= '0' && b[0] <= '9')) {
		d, err := decimal.NewFromString(string(b))
		if err == nil {
			*n = Number{Value: d}
			return nil
		}
	}
	*n = Number{bad: string(b)}
	if n.bad == "" {
		n.bad = "?"
	}
	return nil
}

// MarshalJSON writes the number as a JSON number.
func (n Number) MarshalJSON() ([]byte, error) { return []byte(n.Value.String()), nil }

// checkSandboxAmount validates a sandbox number: present, a JSON number, at
// most the currency's minor digits and at most the int32 range in size.
// It returns the value and whether it passed.
func checkSandboxAmount(v *Violations, path string, n *Number, currency string) (decimal.Decimal, bool) {
	switch {
	case n == nil:
		v.Format(path, "is required")
	case n.bad != "":
		v.Format(path, "must be a JSON number, not %s", clip(n.bad))
	case n.Value.Abs().GreaterThan(maxSandboxAmount):
		v.Format(path, "must be between -2147483647 and 2147483647")
	default:
		if minor := validate.MinorUnits(currency); minor >= 0 && -n.Value.Exponent() > int32(minor) && !n.Value.Equal(n.Value.Round(int32(minor))) {
			v.Format(path, "has more decimals than %s has minor units (%d)", currency, minor)
			return decimal.Decimal{}, false
		}
		return n.Value, true
	}
	return decimal.Decimal{}, false
}
