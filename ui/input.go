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
// a text that is no number is shown at the field and bad is true. Empty
// text is nil, which the bank reports as missing.
func parseNumber(f *form, e *entry, path string) (n *bank.Number, bad bool) {
	if strings.TrimSpace(e.Text) == "" {
		return nil, false
	}
	d, err := decimalText(e.Text)
	if err != nil {
		f.show(bank.PathError(bank.CodeFormatError, path, "must be a number, e.g. 1000.50"))
		return nil, true
	}
	return bank.NumberOf(d), false
}
