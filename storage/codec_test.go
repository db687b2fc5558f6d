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
