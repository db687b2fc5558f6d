package ui

// Reading what a tester types: numbers and amounts the way people write
// them.

import (
	"strings"

	"github.com/shopspring/decimal"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

// numberText writes a number as a tester types it the way the bank reads
// numbers: spaces as thousands separators go, and a decimal comma becomes
// a point ("1 000,50" is "1000.50").
func numberText(text string) string {
	return strings.NewReplacer(" ", "", "\u00a0", "", ",", ".").Replace(strings.TrimSpace(text))
}

// decimalText reads a number as a tester types it (numberText).
func decimalText(text string) (decimal.Decimal, error) {
	return decimal.NewFromString(numberText(text))
}

// parseNumber reads an amount typed into an entry ("1 000 000,50" works);
// a text that is no number is an error that names path, the field's, for
// the form to show there. Empty text is nil, which the bank reports as
// missing.
func parseNumber(e *entry, path string) (*bank.Number, error) {
	if strings.TrimSpace(e.Text) == "" {
		return nil, nil
	}
	d, err := decimalText(e.Text)
	if err != nil {
		return nil, apierr.PathError(apierr.CodeFormatError, path, "must be a number, e.g. 1000.50")
	}
	return bank.NumberOf(d), nil
}
