package psd2api_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/validate"
)

// historyFrom is the dateFrom the history tests read from: four months
// back, which the SCA session of a fresh consent allows.
func historyFrom() string {
	return time.Now().In(bank.Oslo).AddDate(0, 0, -120).Format(time.DateOnly)
}

// historyDetails lists an account's booked transactions of the last four
// months and returns the details of at most four of those whose
// creditorName or debtorName is name.
func historyDetails(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, user psu, account, name string) []bgDetails {
	t.Helper()
	var list struct {
		Transactions struct {
			Booked []struct {
				TransactionID string `json:"transactionId"`
				CreditorName  string `json:"creditorName"`
				DebtorName    string `json:"debtorName"`
			} `json:"booked"`
		} `json:"transactions"`
	}
	r := get(b, tpp, user, "/v1/accounts/"+account+"/transactions?bookingStatus=booked&dateFrom="+historyFrom())
	expect(t, r, 200, "")
	r.JSON(t, &list)
	var out []bgDetails
	for _, tx := range list.Transactions.Booked {
		if (tx.CreditorName == name || tx.DebtorName == name) && len(out) < 4 {
			out = append(out, details(t, b, tpp, user, account, tx.TransactionID))
		}
	}
	if len(out) < 2 {
		t.Fatalf("%s: %d transactions of %s in four months of history, want at least 2", account, len(out), name)
	}
	return out
}

// cardHistoryItem is a card transaction of account information, in Berlin
// Group's names.
type cardHistoryItem struct {
	CardTransactionID string `json:"cardTransactionId"`
	TransactionDate   string `json:"transactionDate"`
	TransactionAmount struct {
		Amount   string `json:"amount"`
		Currency string `json:"currency"`
	} `json:"transactionAmount"`
	OriginalAmount struct {
		Amount   string `json:"amount"`
		Currency string `json:"currency"`
	} `json:"originalAmount"`
	CurrencyExchange []struct {
		SourceCurrency string `json:"sourceCurrency"`
		ExchangeRate   string `json:"exchangeRate"`
		UnitCurrency   string `json:"unitCurrency"`
		TargetCurrency string `json:"targetCurrency"`
		QuotationDate  string `json:"quotationDate"`
	} `json:"currencyExchange"`
	MarkupFee *struct {
		Amount   string `json:"amount"`
		Currency string `json:"currency"`
	} `json:"markupFee"`
	MarkupFeePercentage string `json:"markupFeePercentage"`
}

// foreignCardPurchases returns the card transactions of the last four
// months made in another currency than the card account's.
func foreignCardPurchases(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, user psu, card string) []cardHistoryItem {
	t.Helper()
	var list struct {
		CardTransactions struct {
			Booked  []cardHistoryItem `json:"booked"`
			Pending []cardHistoryItem `json:"pending"`
		} `json:"cardTransactions"`
	}
	r := get(b, tpp, user, "/v1/card-accounts/"+card+"/transactions?bookingStatus=both&dateFrom="+historyFrom())
	expect(t, r, 200, "")
	r.JSON(t, &list)
	var out []cardHistoryItem
	for _, c := range append(list.CardTransactions.Booked, list.CardTransactions.Pending...) {
		if c.OriginalAmount.Currency != c.TransactionAmount.Currency {
			out = append(out, c)
		}
	}
	if len(out) < 2 {
		t.Fatalf("%d foreign card purchases in four months of history, want at least 2", len(out))
	}
	return out
}

// historySample is what the known state's histories show a TPP of their
// optional fields, without the ids.
type historySample struct {
	Bills, Salaries, Invoices, Incoming, Outgoing []bgDetails
	Card                                          []cardHistoryItem
}

// readHistorySample reads the sample through account information, as the
// private customer Test Testperson 1 and the corporate Testfirma 1 AS.
func readHistorySample(t *testing.T, b *apptest.Bank, tpp *apptest.TPP) historySample {
	t.Helper()
	private := psuOf(b.Consent(tpp, t1Number, "PRIVATE", nil))
	corporate := psuOf(b.Consent(tpp, f1Number, f1Agreement, nil))
	var s historySample
	for _, name := range []string{"Fjordkraft AS", "Telia Norge AS", "Gjensidige Forsikring"} {
		s.Bills = append(s.Bills, historyDetails(t, b, tpp, private, t1Brukskonto, name)...)
	}
	s.Salaries = historyDetails(t, b, tpp, private, t1Brukskonto, "Arbeidsgiver AS")
	s.Invoices = historyDetails(t, b, tpp, corporate, f1Drift, "Leverandør AS")
	s.Incoming = historyDetails(t, b, tpp, corporate, f1Valuta, "Deutsche Kunde GmbH")
	s.Outgoing = historyDetails(t, b, tpp, corporate, f1Valuta, "Fournisseur SARL")
	s.Card = foreignCardPurchases(t, b, tpp, private, t1Card)
	for _, list := range [][]bgDetails{s.Bills, s.Salaries, s.Invoices, s.Incoming, s.Outgoing} {
		for i := range list {
			list[i].TransactionID = ""
		}
	}
	for i := range s.Card {
		s.Card[i].CardTransactionID = ""
	}
	return s
}

// The known state's generated histories carry the optional Berlin Group
// fields, so that a TPP's parser meets each of them: KID bills with their
// reference as remittanceInformationStructuredArray (and no text), a
// salary paid for an ultimate debtor, supplier invoices with remittance
// lines, cross-border transfers with both agents, foreign card purchases
// with their exchange and markup. The same known state gives the same
// history.
func TestHistory_KnownStateMeetsTheOptionalFields(t *testing.T) {
	b, tpp := setup(t)
	day := bank.DateOf(time.Now())
	s := readHistorySample(t, b, tpp)

	kids := map[string]string{} // KID -> creditor
	for _, d := range s.Bills {
		if d.RemittanceInformationUnstructured != nil || len(d.RemittanceInformationStructuredArray) != 1 {
			t.Errorf("the bill of %s on %s: remittanceInformationUnstructured %v, remittanceInformationStructuredArray %v; want one KID and no text",
				d.CreditorName, d.BookingDate, d.RemittanceInformationUnstructured, d.RemittanceInformationStructuredArray)
			continue
		}
		ref := d.RemittanceInformationStructuredArray[0]
		kid, _ := ref["reference"].(string)
		if ref["referenceType"] != "KID" || ref["referenceIssuer"] != d.CreditorName || validate.KID(kid) != nil {
			t.Errorf("the bill of %s on %s: reference %v, want a valid KID issued by the creditor (%v)", d.CreditorName, d.BookingDate, ref, validate.KID(kid))
		}
		// The KID names the bill's month: each bill has its own.
		if month := strings.ReplaceAll(d.BookingDate[:7], "-", ""); !strings.Contains(kid, month) {
			t.Errorf("the bill of %s on %s has KID %s, without its month %s", d.CreditorName, d.BookingDate, kid, month)
		}
		if other, seen := kids[kid]; seen {
			t.Errorf("KID %s is on a bill of %s and one of %s", kid, other, d.CreditorName)
		}
		kids[kid] = d.CreditorName
	}
	for _, d := range s.Salaries {
		if d.UltimateDebtor != "Arbeidsgiver Drift AS" || d.PurposeCode != "SALA" || d.DebtorName != "Arbeidsgiver AS" || strings.HasPrefix(d.TransactionAmount.Amount, "-") {
			t.Errorf("a salary: %+v, want a credit from Arbeidsgiver AS for the ultimate debtor Arbeidsgiver Drift AS, purpose SALA", d)
		}
	}
	for _, d := range s.Invoices {
		lines := d.RemittanceInformationUnstructuredArray
		if d.RemittanceInformationUnstructured == nil || len(lines) != 2 || lines[0] != *d.RemittanceInformationUnstructured ||
			!strings.HasPrefix(lines[1], "Kundenummer ") || len(lines[1]) != len("Kundenummer 123456") {
			t.Errorf("a supplier invoice: %v and %v, want the text and the customer number as two lines", d.RemittanceInformationUnstructured, lines)
		}
	}
	for _, d := range s.Incoming {
		if d.DebtorAgent != "COBADEFFXXX" || d.CreditorAgent != bank.BankBIC {
			t.Errorf("an incoming cross-border transfer: debtorAgent %q, creditorAgent %q", d.DebtorAgent, d.CreditorAgent)
		}
	}
	for _, d := range s.Outgoing {
		if d.DebtorAgent != bank.BankBIC || d.CreditorAgent != "PSSTFRPPXXX" {
			t.Errorf("an outgoing cross-border transfer: debtorAgent %q, creditorAgent %q", d.DebtorAgent, d.CreditorAgent)
		}
	}
	purchases := 0
	for _, c := range s.Card {
		if len(c.CurrencyExchange) != 1 {
			t.Errorf("a foreign card transaction without its exchange: %+v", c)
			continue
		}
		x := c.CurrencyExchange[0]
		rate, err := decimal.NewFromString(x.ExchangeRate)
		if err != nil || x.SourceCurrency != c.OriginalAmount.Currency || x.UnitCurrency != x.SourceCurrency || x.TargetCurrency != c.TransactionAmount.Currency ||
			x.QuotationDate != c.TransactionDate {
			t.Errorf("a foreign card transaction's exchange %+v of %+v (%v)", x, c, err)
			continue
		}
		amount, original := decimal.RequireFromString(c.TransactionAmount.Amount), decimal.RequireFromString(c.OriginalAmount.Amount)
		if diff := original.Mul(rate).Sub(amount).Abs(); diff.GreaterThan(rate.Div(decimal.NewFromInt(100))) {
			t.Errorf("a foreign card transaction: %s %s at %s is not %s %s", original, c.OriginalAmount.Currency, rate, amount, c.TransactionAmount.Currency)
		}
		if !amount.IsNegative() {
			continue // a refund has no markup
		}
		purchases++
		fee := amount.Neg().Mul(decimal.RequireFromString("0.0175")).Round(2)
		if c.MarkupFeePercentage != "1.75" || c.MarkupFee == nil || !decimal.RequireFromString(c.MarkupFee.Amount).Equal(fee) || c.MarkupFee.Currency != c.TransactionAmount.Currency {
			t.Errorf("a foreign card purchase of %s: markupFee %+v, markupFeePercentage %q; want %s and 1.75", amount, c.MarkupFee, c.MarkupFeePercentage, fee)
		}
	}
	if purchases == 0 {
		t.Errorf("no foreign card purchase among %d foreign card transactions", len(s.Card))
	}

	// Initialized again on the same day, the bank writes the same history.
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/initialize", nil), 200, "")
	again := readHistorySample(t, b, tpp)
	if bank.DateOf(time.Now()) != day {
		t.Logf("the day changed during the test: a history ends yesterday, so the two may differ")
	} else if !reflect.DeepEqual(again, s) {
		before, _ := json.Marshal(s)
		after, _ := json.Marshal(again)
		t.Errorf("the known state's history differs after initialize:\nbefore %s\n after %s", before, after)
	}
}
