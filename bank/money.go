package bank

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"sandbank/bank/apierr"
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
	if s, ok := formatFixed(d, minor); ok {
		return s
	}
	return d.StringFixed(int32(minor))
}

// formatFixed writes d with minor digits after the point, as StringFixed
// does, without math/big: for an amount that needs no rounding (at most
// minor decimals) and has at most 18 digits at that scale, which every
// sandbox amount has. ok is false for any other.
func formatFixed(d decimal.Decimal, minor int) (string, bool) {
	exp := int(d.Exponent())
	if exp < -minor || minor > 18 || d.NumDigits()+exp+minor > 18 {
		return "", false
	}
	c := d.CoefficientInt64()
	for range exp + minor { // scale to minor digits; cannot overflow, see above
		c *= 10
	}
	var buf [24]byte
	b := buf[:0]
	if c < 0 {
		b, c = append(b, '-'), -c
	}
	var digits [20]byte
	i := len(digits)
	for n := 0; c > 0 || n <= minor; n++ { // at least one digit before the point
		i--
		digits[i] = byte('0' + c%10)
		c /= 10
	}
	whole := len(digits) - i - minor
	b = append(b, digits[i:i+whole]...)
	if minor > 0 {
		b = append(append(b, '.'), digits[i+whole:]...)
	}
	return string(b), true
}

// ParseAmount parses a PSD2 amount string: an optional minus sign, digits
// and at most the currency's minor digits after a point. No exponent, no
// plus sign, no spaces.
func ParseAmount(s, currency string) (decimal.Decimal, error) {
	body := strings.TrimPrefix(s, "-")
	intPart, frac, hasPoint := strings.Cut(body, ".")
	if intPart == "" || !allDigits(intPart) || (hasPoint && (frac == "" || !allDigits(frac))) {
		return decimal.Decimal{}, fmt.Errorf("%q is not an amount; write digits with an optional decimal point, e.g. \"100.30\"", apierr.Clip(s))
	}
	if minor := validate.MinorUnits(currency); minor >= 0 && len(frac) > minor {
		return decimal.Decimal{}, fmt.Errorf("%q has %d decimals; %s has %d", apierr.Clip(s), len(frac), currency, minor)
	}
	if len(intPart) > 18 {
		return decimal.Decimal{}, fmt.Errorf("%q is too large", apierr.Clip(s))
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
	// quoted is set for a number sent as a JSON string ("1.00"), as
	// Berlin Group amounts are: accepted with a warning.
	quoted bool
	// sent is set for a number read from JSON (UnmarshalJSON), not made
	// by the bank (NumberOf: the window's forms, generated histories).
	sent bool
}

// NumberOf returns a Number holding d.
func NumberOf(d decimal.Decimal) *Number { return &Number{Value: d} }

// maxNumberText bounds the JSON text of a Number that is parsed: no
// sandbox amount needs more, and parsing a megabyte of digits takes
// seconds. A longer number is reported like any value that is not one.
const maxNumberText = 64

// UnmarshalJSON keeps a JSON number exactly, takes a string that holds a
// number as that number (quoted), and remembers anything else.
func (n *Number) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	text, quoted := b, false
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		text, quoted = b[1:len(b)-1], true
	}
	if len(text) > 0 && len(text) <= maxNumberText && (text[0] == '-' || (text[0] >= '0' && text[0] <= '9')) {
		d, err := decimal.NewFromString(string(text))
		if err == nil {
			*n = Number{Value: d, quoted: quoted, sent: true}
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
func checkSandboxAmount(v *apierr.Violations, path string, n *Number, currency string) (decimal.Decimal, bool) {
	switch {
	case n == nil:
		v.Format(path, "is required")
	case n.bad != "":
		v.Format(path, "must be a JSON number, not %s", apierr.Clip(n.bad))
	case n.Value.Abs().GreaterThan(maxSandboxAmount):
		v.Format(path, "must be between -2147483647 and 2147483647")
	default:
		if minor := validate.MinorUnits(currency); minor >= 0 && -n.Value.Exponent() > int32(minor) && !n.Value.Equal(n.Value.Round(int32(minor))) {
			v.Format(path, "has more decimals than %s has minor units (%d)", currency, minor)
			return decimal.Decimal{}, false
		}
		if n.quoted {
			v.Odd(apierr.CodeFormatError, path, "is a string; the sandbox API takes amounts as JSON numbers (1.5, not \"1.5\"). The bank read it as the number")
		}
		return n.Value, true
	}
	return decimal.Decimal{}, false
}

// specInt32 is a number of a sandbox request that the spec types as
// int32, whole units, and its path: an account transaction's amount
// (spec 2.11), an account's creditLine (2.10), a card account's credit
// limit and balances and a card transaction's amounts (2.12), an
// engagement's limits (2.13). An account's balances are a double in the
// spec (2.10) and none of them. Each request type lists its own
// (specInt32s methods).
type specInt32 struct {
	path string
	n    *Number
}

// noteFractions notes each number of a sandbox request body that the
// spec types as int32 and that has a fraction: a bank that reads the
// field as int32 loses it. Sandbank keeps it, to the currency's minor
// units (checkSandboxAmount holds it to them), and says so; strict mode
// refuses it. The sandbox data API's doors call it on the body they are
// given; a number the bank made (NumberOf: the window's forms) is not
// the spec's JSON and is no note, and a scenario's records, which go
// through the record rules without a door, are none either.
func noteFractions(v *apierr.Violations, nums ...specInt32) {
	for _, x := range nums {
		n := x.n
		if n == nil || !n.sent || n.bad != "" || n.Value.IsInteger() {
			continue
		}
		d := n.Value
		v.Odd(apierr.CodeFormatError, x.path, fmt.Sprintf("is %s, which has a fraction, where the spec types the field as int32 (whole units); Sandbank keeps %s as sent, but a bank that reads it as int32 truncates it to %s. Send whole units if your tests must hold against that bank", d, d, d.Truncate(0)))
	}
}

// amountInt32 is the amount of an AmountInput at path, when there is one.
func amountInt32(path string, a *AmountInput) []specInt32 {
	if a == nil {
		return nil
	}
	return []specInt32{{apierr.JoinPath(path, "amount"), a.Amount}}
}

// errNoRate is the error of a conversion the FX table has no rate for.
var errNoRate = errors.New("no FX rate")

// convert converts an amount with the FX table (NOK per unit), rounded to
// the target currency's minor units. A currency the table has no rate for
// is an errNoRate whose text says what to do.
func convert(fx map[string]decimal.Decimal, amount decimal.Decimal, from, to string) (decimal.Decimal, error) {
	if from == to {
		return amount, nil
	}
	for _, c := range []string{from, to} {
		if _, ok := fx[c]; !ok {
			return decimal.Decimal{}, fmt.Errorf("the sandbox FX table has no rate for %s; add one to the setting fxRates (NOK per one %s), e.g. PATCH /v1/sandbox/settings {\"fxRates\": {\"%s\": \"...\"}} or on the Server screen: %w", c, c, c, errNoRate)
		}
	}
	minor := validate.MinorUnits(to)
	if minor < 0 {
		minor = 2
	}
	return amount.Mul(fx[from]).Div(fx[to]).Round(int32(minor)), nil
}

// exchangeRate is the conversion convert makes from one currency to
// another with the FX table, as a transaction reports it (Berlin Group's
// reportExchangeRate): none when the currencies are the same or the table
// lacks one, else the price of one unit of from in to, at most 10
// decimals, quoted on day.
func exchangeRate(fx map[string]decimal.Decimal, from, to string, day Date) []ExchangeRate {
	rateFrom, okFrom := fx[from]
	rateTo, okTo := fx[to]
	if from == to || !okFrom || !okTo || !rateTo.IsPositive() {
		return nil
	}
	return []ExchangeRate{{
		SourceCurrency: from, ExchangeRate: rateFrom.DivRound(rateTo, 10).String(),
		UnitCurrency: from, TargetCurrency: to, QuotationDate: day,
	}}
}

// Available is what the account has available: its expected balance plus
// its credit line (the interimAvailable balance of account information).
// Cover for a payment is checked against it.
func (a Account) Available() decimal.Decimal { return a.Balances.Expected.Add(a.CreditLine) }

// Available is what the card account has available: its expected balance
// plus its credit limit.
func (c CardAccount) Available() decimal.Decimal { return c.Balances.Expected.Add(c.CreditLimit) }

// ledger moves money within one storage transaction: it reads each
// account it moves once, keeps the changes, and writes the changed
// accounts back at flush, so that an account many payments move (a batch
// run) is read and written once. Every function that moves a payment's
// money takes the ledger of its transaction.
type ledger struct {
	tx        Tx
	st        *Settings
	customers map[string]Customer
	accounts  map[string]*Account
	dirty     map[string]bool
}

func newLedger(tx Tx) *ledger {
	return &ledger{tx: tx, customers: map[string]Customer{}, accounts: map[string]*Account{}, dirty: map[string]bool{}}
}

// settings returns the settings, read on first use.
func (l *ledger) settings() (Settings, error) {
	if l.st == nil {
		st, err := settingsIn(l.tx)
		if err != nil {
			return st, err
		}
		l.st = &st
	}
	return *l.st, nil
}

// account returns the account to read and move, reading it on first use.
func (l *ledger) account(id string) (*Account, error) {
	if a, ok := l.accounts[id]; ok {
		return a, nil
	}
	a, err := l.tx.Account(id)
	if err != nil {
		return nil, err
	}
	l.accounts[id] = &a
	return &a, nil
}

// touch marks an account as changed.
func (l *ledger) touch(id string) { l.dirty[id] = true }

// customer returns a customer for the names on transactions; a missing one
// gives an empty name.
func (l *ledger) customer(id string) Customer {
	if c, ok := l.customers[id]; ok {
		return c
	}
	c, _ := l.tx.Customer(id)
	l.customers[id] = c
	return c
}

// newTxID hands out the id of a new transaction on an account.
func (l *ledger) newTxID(a Account) (string, error) {
	accountSeq, _ := SeqOf(KindAccount, a.ID)
	seq, err := l.tx.NextSeq(KindTransaction)
	return FormatID(KindTransaction, accountSeq, seq), err
}

// flush writes the accounts whose balances moved and returns their ids.
func (l *ledger) flush() ([]string, error) {
	ids := make([]string, 0, len(l.dirty))
	for id := range l.dirty {
		if err := l.tx.PutAccount(*l.accounts[id]); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	clear(l.dirty)
	return ids, nil
}

// move runs fn in a write transaction with its ledger, writes the accounts
// it moved, and announces events, and the moved accounts with their
// transactions.
func (s *core) move(what string, fn func(l *ledger) error, events ...Event) error {
	var moved []string
	err := s.update(what, func(tx Tx) error {
		l := newLedger(tx)
		if err := fn(l); err != nil {
			return err
		}
		var err error
		moved, err = l.flush()
		return err
	})
	if err != nil {
		return err
	}
	for _, id := range moved {
		events = append(events, Event{Kind: EventTransactions, ID: id})
	}
	if len(moved) > 0 {
		events = append(events, Event{Kind: EventAccounts})
	}
	s.publish(events...)
	return nil
}
