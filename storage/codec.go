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
	return appendDetails(b, t)
}

// appendDetails appends the fields added in the codec's first revision,
// when a transaction has any: the remittance lines, the structured
// references and the currency exchanges, each list as a uvarint count
// and its items' strings (a quotation date as its YYYYMMDD uvarint). A
// transaction without them is stored as before, byte for byte.
func appendDetails(b []byte, t bank.Transaction) []byte {
	if len(t.RemittanceInformationUnstructuredArray) == 0 && len(t.RemittanceInformationStructuredArray) == 0 && len(t.CurrencyExchange) == 0 {
		return b
	}
	b = binary.AppendUvarint(b, uint64(len(t.RemittanceInformationUnstructuredArray)))
	for _, line := range t.RemittanceInformationUnstructuredArray {
		b = appendString(b, line)
	}
	b = binary.AppendUvarint(b, uint64(len(t.RemittanceInformationStructuredArray)))
	for _, r := range t.RemittanceInformationStructuredArray {
		b = appendString(appendString(appendString(b, r.Reference), r.ReferenceType), r.ReferenceIssuer)
	}
	b = binary.AppendUvarint(b, uint64(len(t.CurrencyExchange)))
	for _, x := range t.CurrencyExchange {
		for _, s := range []string{x.SourceCurrency, x.ExchangeRate, x.UnitCurrency, x.TargetCurrency} {
			b = appendString(b, s)
		}
		b = binary.AppendUvarint(b, uint64(x.QuotationDate.Key()))
		b = appendString(b, x.ContractIdentification)
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
	if len(r.b) > 0 {
		readDetails(r, &t)
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

// count reads a list's length: each item takes a byte at least, so a
// count larger than what is left is a damaged record.
func (r *reader) count() int {
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.b)) {
		r.err = errShortRecord
	}
	if r.err != nil {
		return 0
	}
	return int(n)
}

// readDetails reads what appendDetails wrote.
func readDetails(r *reader, t *bank.Transaction) {
	if n := r.count(); n > 0 {
		t.RemittanceInformationUnstructuredArray = make([]string, n)
		for i := range n {
			t.RemittanceInformationUnstructuredArray[i] = r.string()
		}
	}
	if n := r.count(); n > 0 {
		t.RemittanceInformationStructuredArray = make([]bank.StructuredRemittance, n)
		for i := range n {
			ref := &t.RemittanceInformationStructuredArray[i]
			ref.Reference, ref.ReferenceType, ref.ReferenceIssuer = r.string(), r.string(), r.string()
		}
	}
	if n := r.count(); n > 0 {
		t.CurrencyExchange = make([]bank.ExchangeRate, n)
		for i := range n {
			x := &t.CurrencyExchange[i]
			x.SourceCurrency, x.ExchangeRate, x.UnitCurrency, x.TargetCurrency = r.string(), r.string(), r.string(), r.string()
			x.QuotationDate = bank.DateFromKey(uint32(r.uvarint()))
			x.ContractIdentification = r.string()
		}
	}
}
