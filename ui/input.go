package ui

// Reading what a tester types: numbers and amounts the way people write
// them.

import (
	"strings"

	"github.com/shopspring/decimal"

	"sandbank/bank"
)

// decimalText reads a number as a tester types it: spaces as thousands
// separators and a decimal comma are fine.
func decimalText(text string) (decimal.Decimal, error) {
	return decimal.NewFromString(strings.NewReplacer(" ", "", "\u00a0", "", ",", ".").Replace(strings.TrimSpace(text)))
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
		return nil, bank.PathError(bank.CodeFormatError, path, "must be a number, e.g. 1000.50")
	}
	return bank.NumberOf(d), nil
}
