package storage

import (
	"reflect"
	"testing"

	"github.com/shopspring/decimal"

	"sandbank/bank"
)

func TestTransactionCodec_RoundTrip(t *testing.T) {
	for _, tx := range []bank.Transaction{
		{},
		{
			Amount: decimal.RequireFromString("-1234.56"), Currency: "NOK",
			BookingDate: bank.Date{Year: 2026, Month: 11, Day: 20}, ValueDate: bank.Date{Year: 2026, Month: 11, Day: 21},
			RemittanceInformationUnstructured: "Faktura æøå 🙂", CreditorID: "NO123", CreditorName: "Kreditor AS",
			CreditorAccount: bank.AccountRef{IBAN: "NO9386011117947", BBAN: "86011117947"}, UltimateCreditor: "U",
			DebtorName: "D", DebtorAccount: bank.AccountRef{IBAN: "DE89370400440532013000"}, UltimateDebtor: "UD",
			PurposeCode: "SALA", BankTransactionCode: "PMNT-RCDT-ESCT", EndToEndID: "E2E", CreditorAgent: "DNBANOKK",
			DebtorAgent: "COBADEFF", ProprietaryBankTransactionCode: "P",
		},
		{
			Amount: decimal.RequireFromString("-98.20"), Currency: "NOK",
			RemittanceInformationUnstructuredArray: []string{"Faktura 1", "Ordre 2"},
			RemittanceInformationStructuredArray:   []bank.StructuredRemittance{{Reference: "1234567897", ReferenceType: "KID"}, {Reference: "RF18539007547034", ReferenceType: "SCOR", ReferenceIssuer: "ISO"}},
			CurrencyExchange: []bank.ExchangeRate{{
				SourceCurrency: "EUR", ExchangeRate: "11.7", UnitCurrency: "EUR", TargetCurrency: "NOK",
				QuotationDate: bank.Date{Year: 2026, Month: 3, Day: 1}, ContractIdentification: "FX-1",
			}},
		},
		{Amount: decimal.NewFromInt(1), Currency: "NOK", CurrencyExchange: []bank.ExchangeRate{{SourceCurrency: "USD", ExchangeRate: "10.65", UnitCurrency: "USD", TargetCurrency: "NOK"}}},
	} {
		got, err := decodeTransaction(encodeTransaction(tx))
		if err != nil {
			t.Fatal(err)
		}
		if !got.Amount.Equal(tx.Amount) {
			t.Fatalf("amount %s, want %s", got.Amount, tx.Amount)
		}
		got.Amount, tx.Amount = decimal.Decimal{}, decimal.Decimal{}
		if !reflect.DeepEqual(got, tx) {
			t.Fatalf("round trip\n got %+v\nwant %+v", got, tx)
		}
	}
}

func TestTransactionCodec_DamagedRecords(t *testing.T) {
	full := encodeTransaction(bank.Transaction{Amount: decimal.NewFromInt(5), Currency: "NOK", CreditorName: "x"})
	for i := range len(full) {
		if _, err := decodeTransaction(full[:i]); err == nil {
			t.Errorf("a record cut to %d bytes decodes", i)
		}
	}
	details := encodeTransaction(bank.Transaction{Amount: decimal.NewFromInt(5), Currency: "NOK", RemittanceInformationUnstructuredArray: []string{"linje"}})
	for i := len(full) + 1; i < len(details); i++ {
		if _, err := decodeTransaction(details[:i]); err == nil {
			t.Errorf("a record with details cut to %d bytes of %d decodes", i, len(details))
		}
	}
	huge := append(append([]byte{}, full...), 0xff, 0xff, 0xff, 0xff, 0x0f) // a count of 4 billion lines
	if _, err := decodeTransaction(huge); err == nil {
		t.Error("a record whose count exceeds what it holds decodes")
	}
	bad := append([]byte{txCodecVersion}, encodeTransaction(bank.Transaction{})[1:]...)
	bad[2] = 'x' // the amount "0" becomes "x"
	if _, err := decodeTransaction(bad); err == nil {
		t.Error("a record with a bad amount decodes")
	}
	if _, err := decodeTransaction([]byte(`{"amount":"1"}`)); err == nil {
		t.Error("a JSON record decodes as the binary form")
	}
}

func FuzzDecodeTransaction(f *testing.F) {
	f.Add(encodeTransaction(bank.Transaction{Amount: decimal.NewFromInt(-5), Currency: "NOK", CreditorName: "x"}))
	f.Add([]byte{txCodecVersion, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		tx, err := decodeTransaction(data)
		if err != nil {
			return
		}
		again, err := decodeTransaction(encodeTransaction(tx))
		if err != nil || !again.Amount.Equal(tx.Amount) || again.CreditorName != tx.CreditorName {
			t.Fatalf("re-encoding a decoded record changes it: %v", err)
		}
	})
}
