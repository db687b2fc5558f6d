package psd2api_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"sandbank/app/apptest"
	"sandbank/bank"
)

// bgDetails is a transactionsDetails answer in Berlin Group's field names.
type bgDetails struct {
	TransactionID     string `json:"transactionId"`
	BookingDate       string `json:"bookingDate"`
	TransactionAmount struct {
		Amount   string `json:"amount"`
		Currency string `json:"currency"`
	} `json:"transactionAmount"`
	CreditorName                           string           `json:"creditorName"`
	CreditorAgent                          string           `json:"creditorAgent"`
	UltimateCreditor                       string           `json:"ultimateCreditor"`
	DebtorName                             string           `json:"debtorName"`
	DebtorAgent                            string           `json:"debtorAgent"`
	UltimateDebtor                         string           `json:"ultimateDebtor"`
	RemittanceInformationUnstructured      *string          `json:"remittanceInformationUnstructured"`
	RemittanceInformationUnstructuredArray []string         `json:"remittanceInformationUnstructuredArray"`
	RemittanceInformationStructuredArray   []map[string]any `json:"remittanceInformationStructuredArray"`
	CurrencyExchange                       []map[string]any `json:"currencyExchange"`
	PurposeCode                            string           `json:"purposeCode"`
	BankTransactionCode                    string           `json:"bankTransactionCode"`
}

// details reads one transaction's details through account information.
func details(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, user psu, account, id string) bgDetails {
	t.Helper()
	r := get(b, tpp, user, "/v1/accounts/"+account+"/transactions/"+id, "x-accept-fix: longer-names")
	expect(t, r, 200, "")
	var out struct {
		TransactionsDetails bgDetails `json:"transactionsDetails"`
	}
	r.JSON(t, &out)
	return out.TransactionsDetails
}

// listed finds the transactions of an account's list (bookingStatus as
// given) whose creditorName is name.
func listed(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, user psu, account, bookingStatus, name string) []string {
	t.Helper()
	var list struct {
		Transactions struct {
			Booked  []map[string]any `json:"booked"`
			Pending []map[string]any `json:"pending"`
		} `json:"transactions"`
	}
	r := get(b, tpp, user, "/v1/accounts/"+account+"/transactions?bookingStatus="+bookingStatus)
	expect(t, r, 200, "")
	r.JSON(t, &list)
	var ids []string
	for _, tx := range append(list.Transactions.Booked, list.Transactions.Pending...) {
		if tx["creditorName"] == name {
			ids = append(ids, tx["transactionId"].(string))
		}
	}
	return ids
}

// A settled payment's transactions carry what the payment knew, in Berlin
// Group's fields: a KID as remittanceInformationStructuredArray (not as a
// text), the remittance lines, the ultimate parties, the agents known (the
// bank's own BIC for its accounts, the creditorAgent a cross-border
// transfer gave) and, for a transfer in another currency, the exchange.
func TestTransactionDetails_SettledPaymentCarriesWhatItKnew(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)
	var settings struct {
		FXRates map[string]string `json:"fxRates"`
	}
	b.Do(b.Operator(), "GET", "/v1/sandbox/settings", nil).JSON(t, &settings)
	eur := decimal.RequireFromString(settings.FXRates["EUR"])

	// A KID bill from Brukskonto to Sparekonto, both the bank's.
	kid := map[string]any{
		"instructedAmount":                       map[string]string{"amount": "1250.00", "currency": "NOK"},
		"debtorAccount":                          map[string]string{"iban": ibanT1Bruk},
		"creditorAccount":                        map[string]string{"iban": ibanT1Spare},
		"creditorName":                           "Kraftlaget Sandvik AS",
		"ultimateDebtor":                         "Kari Nordmann",
		"ultimateCreditor":                       "Fjordkraft Innkreving AS",
		"remittanceInformationStructuredArray":   []map[string]string{{"reference": "1234567897", "referenceType": "KID"}},
		"remittanceInformationUnstructuredArray": []string{"Strøm mars", "Avtale 4711"},
	}
	k := createPayment(t, b, tpp, ndctPath, kid)
	autoSCA(t, b, tpp, k.authID(), t1Number, "approve")

	// A cross-border transfer in EUR from the NOK account.
	psuID := usersPSU(t, b, tpp, t1Number)
	x := with(ncbct("120.00", "EUR", ibanT1Bruk), "ultimateDebtor", "Testperson Holding AS", "ultimateCreditor", "Lieferant Holding GmbH",
		"remittanceInformationUnstructuredArray", []string{"Invoice 77", "Order 12"})
	xc := createPayment(t, b, tpp, ncbctPath, x, "x-accept-fix: amount-as-string", "PSU-Context: PRIVATE", "PSU-ID: "+psuID, "PSU-IP-Address: 192.0.2.1")
	autoSCA(t, b, tpp, xc.authID(), t1Number, "approve")

	user := psuOf(b.Consent(tpp, t1Number, "PRIVATE", nil))
	kidWant := []map[string]any{{"reference": "1234567897", "referenceType": "KID"}}

	// Authorised, not settled: the pending item already says so.
	pending := listed(t, b, tpp, user, t1Brukskonto, "pending", "Kraftlaget Sandvik AS")
	if len(pending) != 1 {
		t.Fatalf("pending KID items %v, want one", pending)
	}
	if d := details(t, b, tpp, user, t1Brukskonto, pending[0]); !reflect.DeepEqual(d.RemittanceInformationStructuredArray, kidWant) || d.BookingDate != "" {
		t.Fatalf("the pending KID item: %+v", d)
	}

	runBatch(t, b, tpp)
	runBatch(t, b, tpp) // the NCBCT was picked up by the first run
	wantStatus(t, b, tpp, ndctPath, k.PaymentID, "ACSC")
	wantStatus(t, b, tpp, ncbctPath, xc.PaymentID, "ACSC")

	// The KID payment's debit, booked under the pending item's id.
	if got := listed(t, b, tpp, user, t1Brukskonto, "booked", "Kraftlaget Sandvik AS"); !slices.Equal(got, pending) {
		t.Fatalf("booked KID items %v, want %v", got, pending)
	}
	d := details(t, b, tpp, user, t1Brukskonto, pending[0])
	if d.RemittanceInformationUnstructured != nil {
		t.Errorf("the KID payment's debit has remittanceInformationUnstructured %q; a KID is structured", *d.RemittanceInformationUnstructured)
	}
	if !reflect.DeepEqual(d.RemittanceInformationStructuredArray, kidWant) || !slices.Equal(d.RemittanceInformationUnstructuredArray, []string{"Strøm mars", "Avtale 4711"}) ||
		d.UltimateDebtor != "Kari Nordmann" || d.UltimateCreditor != "Fjordkraft Innkreving AS" ||
		d.DebtorAgent != bank.BankBIC || d.CreditorAgent != bank.BankBIC || d.CurrencyExchange != nil ||
		d.BookingDate != day.String() || d.TransactionAmount.Amount != "-1250.00" {
		t.Errorf("the KID payment's debit: %+v", d)
	}
	// Its credit on Sparekonto says the same.
	credits := listed(t, b, tpp, user, t1Sparekonto, "booked", "Kraftlaget Sandvik AS")
	if len(credits) != 1 {
		t.Fatalf("credits %v, want one", credits)
	}
	c := details(t, b, tpp, user, t1Sparekonto, credits[0])
	if !reflect.DeepEqual(c.RemittanceInformationStructuredArray, kidWant) || c.RemittanceInformationUnstructured != nil ||
		c.UltimateDebtor != "Kari Nordmann" || c.UltimateCreditor != "Fjordkraft Innkreving AS" ||
		c.DebtorAgent != bank.BankBIC || c.CreditorAgent != bank.BankBIC || c.TransactionAmount.Amount != "1250.00" {
		t.Errorf("the KID payment's credit: %+v", c)
	}

	// The cross-border transfer: converted with the FX table, and says so.
	xs := listed(t, b, tpp, user, t1Brukskonto, "booked", "Lieferant GmbH")
	if len(xs) != 1 {
		t.Fatalf("NCBCT debits %v, want one", xs)
	}
	n := details(t, b, tpp, user, t1Brukskonto, xs[0])
	wantAmount := decimal.RequireFromString("120.00").Mul(eur).Neg().StringFixed(2)
	if len(n.CurrencyExchange) != 1 {
		t.Fatalf("the NCBCT's currencyExchange %v, want one exchange", n.CurrencyExchange)
	}
	ex := n.CurrencyExchange[0]
	rate, err := decimal.NewFromString(ex["exchangeRate"].(string))
	if err != nil || !rate.Equal(eur) || ex["sourceCurrency"] != "EUR" || ex["unitCurrency"] != "EUR" || ex["targetCurrency"] != "NOK" || ex["quotationDate"] != day.String() {
		t.Errorf("the NCBCT's exchange %v, want EUR to NOK at %s on %s", ex, eur, day)
	}
	if n.TransactionAmount.Amount != wantAmount || n.CreditorAgent != "COBADEFFXXX" || n.DebtorAgent != bank.BankBIC ||
		n.UltimateDebtor != "Testperson Holding AS" || n.UltimateCreditor != "Lieferant Holding GmbH" || n.PurposeCode != "SUPP" ||
		n.RemittanceInformationUnstructured == nil || *n.RemittanceInformationUnstructured != "Invoice 77" ||
		!slices.Equal(n.RemittanceInformationUnstructuredArray, []string{"Invoice 77", "Order 12"}) || n.RemittanceInformationStructuredArray != nil {
		t.Errorf("the NCBCT's debit: %+v, want amount %s", n, wantAmount)
	}
	// Its fee is in the account's NOK: no exchange.
	fees := listed(t, b, tpp, user, t1Brukskonto, "booked", "Sandbank")
	if len(fees) != 1 {
		t.Fatalf("fees %v, want one", fees)
	}
	if f := details(t, b, tpp, user, t1Brukskonto, fees[0]); f.CurrencyExchange != nil || f.DebtorAgent != bank.BankBIC {
		t.Errorf("the fee: %+v", f)
	}
}

// What a payment says of its remittance is checked like the rest of it:
// each refusal names the field, and nothing is stored.
func TestTransactionDetails_PaymentRemittanceRules(t *testing.T) {
	b, tpp := setup(t)
	onBankingMorning(t, b)
	base := ndct("10.00", ibanT1Bruk, ibanT2Bruk)
	long := strings.Repeat("x", 141)
	for _, c := range []struct {
		name string
		body map[string]any
		path string
	}{
		{"an empty line", with(base, "remittanceInformationUnstructuredArray", []string{"Faktura 1", ""}), "remittanceInformationUnstructuredArray[1]"},
		{"a line of 141 characters", with(base, "remittanceInformationUnstructuredArray", []string{long}), "remittanceInformationUnstructuredArray[0]"},
		{"a referenceType of 36 characters", with(base, "remittanceInformationUnstructured", nil,
			"remittanceInformationStructuredArray", []map[string]string{{"reference": "12345", "referenceType": strings.Repeat("R", 36)}}), "remittanceInformationStructuredArray[0].referenceType"},
		{"an ultimateDebtor of 71 characters", with(base, "ultimateDebtor", strings.Repeat("a", 71)), "ultimateDebtor"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rejectsWith(t, b, tpp, "POST", ndctPath, c.body, payHeaders, 400, "FORMAT_ERROR", c.path)
		})
	}
	bulk := map[string]any{
		"debtorAccount": map[string]string{"iban": ibanT1Bruk}, "paymentInformationId": "B-1",
		"requestedExecutionDate":                 bank.DateOf(time.Now()).AddDays(3).String(),
		"remittanceInformationUnstructuredArray": []string{"belongs in an item"},
		"payments":                               []any{ndct("10.00", "", ibanT2Bruk)},
	}
	delete(bulk["payments"].([]any)[0].(map[string]any), "debtorAccount")
	rejectsWith(t, b, tpp, "POST", "/v1/bulk-payments/norwegian-domestic-credit-transfers", bulk, payHeaders, 400, "FORMAT_ERROR", "remittanceInformationUnstructuredArray")
}

// The sandbox data API writes and reads the same fields, in Berlin Group's
// shapes, and account information shows them; a scenario carries them.
// A KID that fails its check digit is kept with a warning (strict mode
// refuses it); a malformed exchange is refused, naming each field.
func TestTransactionDetails_SandboxTransactionsWriteAndRead(t *testing.T) {
	b, tpp := setup(t)
	yesterday := time.Now().In(bank.Oslo).AddDate(0, 0, -1).Format(time.DateOnly)
	item := func(reference string) []byte {
		return []byte(`[{
			"amount": -98, "currency": "NOK", "bookingDate": "` + yesterday + `", "valueDate": "` + yesterday + `",
			"remittanceInformationUnstructured": "", "creditorId": "", "creditorName": "Amazon EU",
			"creditorAccount": {"iban": "` + ibanForeign + `"}, "ultimateCreditor": "Amazon Marketplace",
			"debtorName": "Test Testperson 1", "debtorAccount": {"iban": "` + ibanT1Bruk + `"}, "ultimateDebtor": "",
			"purposeCode": "", "bankTransactionCode": "PMNT-CCRD-POSD", "creditorAgent": "COBADEFFXXX", "debtorAgent": "` + bank.BankBIC + `",
			"remittanceInformationUnstructuredArray": ["Ordre 302-114", "Levering 2 av 2"],
			"remittanceInformationStructuredArray": [{"reference": "` + reference + `", "referenceType": "KID", "referenceIssuer": "Amazon EU"}],
			"currencyExchange": [{"sourceCurrency": "EUR", "exchangeRate": "11.7025", "unitCurrency": "EUR", "targetCurrency": "NOK",
				"quotationDate": "` + yesterday + `", "contractIdentification": "FX-2026-1"}]
		}]`)
	}
	path := "/v1/sandbox/accounts/" + t1Brukskonto + "/transactions"
	r := b.Do(tpp, "POST", path, item("1234567897"))
	expect(t, r, 201, "")
	if notes := loggedNotes(t, b, r); len(notes) != 0 {
		t.Errorf("a valid post has notes %+v", notes)
	}
	var posted []map[string]any
	r.JSON(t, &posted)
	wantExchange := []any{map[string]any{"sourceCurrency": "EUR", "exchangeRate": "11.7025", "unitCurrency": "EUR", "targetCurrency": "NOK", "quotationDate": yesterday, "contractIdentification": "FX-2026-1"}}
	wantRefs := []any{map[string]any{"reference": "1234567897", "referenceType": "KID", "referenceIssuer": "Amazon EU"}}
	wantLines := []any{"Ordre 302-114", "Levering 2 av 2"}
	check := func(where string, v map[string]any) {
		t.Helper()
		if !reflect.DeepEqual(v["currencyExchange"], wantExchange) || !reflect.DeepEqual(v["remittanceInformationStructuredArray"], wantRefs) ||
			!reflect.DeepEqual(v["remittanceInformationUnstructuredArray"], wantLines) {
			t.Errorf("%s: %v", where, v)
		}
	}
	check("the post's answer", posted[0])
	id := posted[0]["id"].(string)
	var one map[string]any
	b.Do(tpp, "GET", path+"/"+id, nil).JSON(t, &one)
	check("the sandbox read", one)

	user := psuOf(b.Consent(tpp, t1Number, "PRIVATE", nil))
	r = get(b, tpp, user, "/v1/accounts/"+t1Brukskonto+"/transactions/"+id, "x-accept-fix: longer-names")
	expect(t, r, 200, "")
	var ais struct {
		TransactionsDetails map[string]any `json:"transactionsDetails"`
	}
	r.JSON(t, &ais)
	check("account information", ais.TransactionsDetails)

	// A scenario carries them, and loads them back.
	export := b.Do(b.Operator(), "GET", "/v1/sandbox/scenario", nil)
	expect(t, export, 200, "")
	if !json.Valid(export.Body) || !strings.Contains(string(export.Body), `"contractIdentification":"FX-2026-1"`) {
		t.Fatalf("the scenario lacks the exchange")
	}
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/scenario", export.Body), 200, "")
	one = nil
	b.Do(tpp, "GET", path+"/"+id, nil).JSON(t, &one)
	check("after the scenario's round trip", one)

	// A KID whose check digit fails: kept, with a note; strict refuses it.
	r = b.Do(tpp, "POST", path, item("1234567890"))
	expect(t, r, 201, "")
	notes := loggedNotes(t, b, r)
	if len(notes) != 1 || notes[0].Path != "[0].remittanceInformationStructuredArray[0].reference" || notes[0].Refuse != "KID_INVALID" {
		t.Errorf("notes %+v, want one on the KID that strict mode refuses with KID_INVALID", notes)
	}
	setStrict(t, b, true)
	rejects(t, b, tpp, "POST", path, item("1234567890"), 400, "KID_INVALID", "[0].remittanceInformationStructuredArray[0].reference")
	setStrict(t, b, false)

	// A malformed exchange: every field named, nothing stored.
	bad := strings.NewReplacer(`"sourceCurrency": "EUR"`, `"sourceCurrency": "EURO"`, `"exchangeRate": "11.7025"`, `"exchangeRate": "11,70"`,
		`"contractIdentification": "FX-2026-1"`, `"contractIdentification": "`+strings.Repeat("c", 36)+`"`).Replace(string(item("1234567897")))
	bad = strings.Replace(bad, `"quotationDate": "`+yesterday, `"quotationDate": "`+time.Now().In(bank.Oslo).AddDate(0, 0, 2).Format(time.DateOnly), 1)
	rejects(t, b, tpp, "POST", path, []byte(bad), 400, "FORMAT_ERROR", "[0].currencyExchange[0].sourceCurrency", "[0].currencyExchange[0].exchangeRate",
		"[0].currencyExchange[0].contractIdentification", "[0].currencyExchange[0].quotationDate")
	rejects(t, b, tpp, "POST", path, []byte(strings.Replace(string(item("1234567897")), `"Levering 2 av 2"`, `""`, 1)), 400, "FORMAT_ERROR",
		"[0].remittanceInformationUnstructuredArray[1]")
}
