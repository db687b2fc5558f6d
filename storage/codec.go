package storage

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/shopspring/decimal"

	"sandbank/bank"
)

// An account's transactions, booked and pending, are the one record kind
// that counts in the millions, so they are stored in a compact binary form
// rather than JSON: a version byte, then the fields in a fixed order,
// strings as a uvarint length and bytes, dates as YYYYMMDD uvarints. Fields
// added later go at the end and are optional, so older records still
// decode. The golden files testdata/schema/transaction-*.hex pin the form.
const txCodecVersion = 1

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// encodeTransaction returns the stored form of t (its ID is the key).
func encodeTransaction(t bank.Transaction) []byte {
	b := make([]byte, 0, 192)
	b = append(b, txCodecVersion)
	b = appendString(b, t.Amount.String())
	b = appendString(b, t.Currency)
	b = binary.AppendUvarint(b, uint64(t.BookingDate.Key()))
	b = binary.AppendUvarint(b, uint64(t.ValueDate.Key()))
	for _, s := range []string{
		t.RemittanceInformationUnstructured, t.CreditorID, t.CreditorName,
		t.CreditorAccount.IBAN, t.CreditorAccount.BBAN, t.UltimateCreditor,
		t.DebtorName, t.DebtorAccount.IBAN, t.DebtorAccount.BBAN, t.UltimateDebtor,
		t.PurposeCode, t.BankTransactionCode, t.EndToEndID, t.CreditorAgent, t.DebtorAgent,
		t.ProprietaryBankTransactionCode,
	} {
		b = appendString(b, s)
	}
	return b
}

var errShortRecord = errors.New("the record ends too early")

// reader reads the fields of a stored record.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShortRecord
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) string() string {
	n := r.uvarint()
	if r.err != nil {
		return ""
	}
	if n > uint64(len(r.b)) {
		r.err = errShortRecord
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// decodeTransaction reads the stored form of a transaction.
func decodeTransaction(data []byte) (bank.Transaction, error) {
	var t bank.Transaction
	if len(data) == 0 || data[0] != txCodecVersion {
		return t, fmt.Errorf("unknown transaction record format")
	}
	r := &reader{b: data[1:]}
	amount := r.string()
	t.Currency = r.string()
	t.BookingDate = bank.DateFromKey(uint32(r.uvarint()))
	t.ValueDate = bank.DateFromKey(uint32(r.uvarint()))
	for _, p := range []*string{
		&t.RemittanceInformationUnstructured, &t.CreditorID, &t.CreditorName,
		&t.CreditorAccount.IBAN, &t.CreditorAccount.BBAN, &t.UltimateCreditor,
		&t.DebtorName, &t.DebtorAccount.IBAN, &t.DebtorAccount.BBAN, &t.UltimateDebtor,
		&t.PurposeCode, &t.BankTransactionCode, &t.EndToEndID, &t.CreditorAgent, &t.DebtorAgent,
		&t.ProprietaryBankTransactionCode,
	} {
		*p = r.string()
	}
	if r.err != nil {
		return t, r.err
	}
	var err error
	if t.Amount, err = decimal.NewFromString(amount); err != nil {
		return t, fmt.Errorf("amount %q: %w", amount, err)
	}
	return t, nil
}
