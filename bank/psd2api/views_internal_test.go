package psd2api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"sandbank/bank"
)

// The answers of account information and the sandbox lists are encoded
// from typed structs. The tests below encode the same data the way the
// bank did before, through maps (the map forms are kept here as the
// reference), and require the same bytes, for records with every optional
// field set and with none, under every fix that changes an answer.

// encoded is what writeJSON sends for v.
func encoded(t *testing.T, v any) string {
	t.Helper()
	rec := httptest.NewRecorder()
	writeJSON(rec, 200, v)
	return rec.Body.String()
}

func sameJSON(t *testing.T, what string, typed, maps any) {
	t.Helper()
	got, want := encoded(t, typed), encoded(t, maps)
	if got != want {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s: the typed form differs from the map form at byte %d:\ntyped: …%s\nmaps:  …%s", what, i, clipAt(got, i), clipAt(want, i))
	}
	if !json.Valid([]byte(got)) {
		t.Fatalf("%s: not JSON: %s", what, got)
	}
}

func clipAt(s string, i int) string {
	s = s[max(0, i-40):]
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}

// --- the map forms, as the bank wrote them before ---

func mapAmount(d decimal.Decimal, currency string, f bank.Fixes) map[string]any {
	text := bank.FormatAmount(d, currency)
	if f[bank.FixAmountAsString] {
		return map[string]any{"amount": text, "currency": currency}
	}
	return map[string]any{"amount": json.Number(text), "currency": currency}
}

type mapBalance struct {
	BalanceType              string         `json:"balanceType"`
	BalanceAmount            map[string]any `json:"balanceAmount"`
	CreditLimitIncluded      *bool          `json:"creditLimitIncluded,omitempty"`
	ReferenceDate            *bank.Date     `json:"referenceDate,omitempty"`
	LastChangeDateTime       *time.Time     `json:"lastChangeDateTime,omitempty"`
	LastCommittedTransaction string         `json:"lastCommittedTransaction,omitempty"`
}

func mapBalances(b bank.Balances, available decimal.Decimal, currency string, today bank.Date, f bank.Fixes) []mapBalance {
	yes := true
	return []mapBalance{
		{BalanceType: "closingBooked", BalanceAmount: mapAmount(b.ClosingBooked, currency, f), ReferenceDate: &today},
		{BalanceType: "expected", BalanceAmount: mapAmount(b.Expected, currency, f)},
		{BalanceType: "interimAvailable", BalanceAmount: mapAmount(available, currency, f), CreditLimitIncluded: &yes},
	}
}

func mapCardBalances(c bank.CardAccount, today bank.Date, f bank.Fixes) []mapBalance {
	out := mapBalances(c.Balances.Balances, c.Available(), c.Currency, today, f)
	for i := range out {
		d := c.Balances.Detail(out[i].BalanceType)
		if !d.ReferenceDate.IsZero() {
			out[i].ReferenceDate = &d.ReferenceDate
		}
		if !d.LastChangeDateTime.IsZero() {
			out[i].LastChangeDateTime = &d.LastChangeDateTime
		}
		out[i].LastCommittedTransaction = d.LastCommittedTransaction
	}
	return out
}

type mapAccount struct {
	ResourceID      string          `json:"resourceId"`
	IBAN            string          `json:"iban"`
	BBAN            string          `json:"bban"`
	Currency        string          `json:"currency"`
	Name            string          `json:"name"`
	Product         string          `json:"product"`
	CashAccountType string          `json:"cashAccountType"`
	Status          string          `json:"status"`
	Balances        []mapBalance    `json:"balances,omitempty"`
	Links           map[string]link `json:"_links"`
}

func mapAccountOf(a bank.Account, withBalance bool, today bank.Date, f bank.Fixes) mapAccount {
	self := "/v1/accounts/" + a.ID
	v := mapAccount{
		ResourceID: a.ID, IBAN: a.IBAN, BBAN: a.BBAN, Currency: a.Currency, Name: f.Name(a.Name), Product: a.Product,
		CashAccountType: f.CashAccountType(a.CashAccountType), Status: a.Status,
		Links: map[string]link{"balances": linkTo(self+"/balances", "GET"), "transactions": linkTo(self+"/transactions", "GET")},
	}
	if withBalance {
		v.Balances = mapBalances(a.Balances, a.Available(), a.Currency, today, f)
	}
	return v
}

type mapTx struct {
	TransactionID                     string          `json:"transactionId"`
	BookingDate                       *bank.Date      `json:"bookingDate,omitempty"`
	ValueDate                         bank.Date       `json:"valueDate"`
	TransactionAmount                 map[string]any  `json:"transactionAmount"`
	CreditorName                      string          `json:"creditorName,omitempty"`
	CreditorAccount                   *accountRefView `json:"creditorAccount,omitempty"`
	DebtorName                        string          `json:"debtorName,omitempty"`
	DebtorAccount                     *accountRefView `json:"debtorAccount,omitempty"`
	RemittanceInformationUnstructured string          `json:"remittanceInformationUnstructured,omitempty"`
	Links                             map[string]link `json:"_links"`
}

func mapTxOf(accountID string, t bank.Transaction, f bank.Fixes) mapTx {
	v := mapTx{
		TransactionID: t.ID, ValueDate: t.ValueDate, TransactionAmount: mapAmount(t.Amount, t.Currency, f),
		CreditorName: f.Name(t.CreditorName), CreditorAccount: refOf(t.CreditorAccount),
		DebtorName: f.Name(t.DebtorName), DebtorAccount: refOf(t.DebtorAccount),
		RemittanceInformationUnstructured: t.RemittanceInformationUnstructured,
		Links:                             map[string]link{"transactionDetails": linkTo("/v1/accounts/"+accountID+"/transactions/"+t.ID, "GET")},
	}
	if !t.Pending {
		d := t.BookingDate
		v.BookingDate = &d
	}
	return v
}

func mapTxPage(id string, page bank.AISTxPage, q bank.AISQuery, f bank.Fixes, today bank.Date) map[string]any {
	booked := make([]mapTx, 0, len(page.Booked.Transactions))
	for _, t := range page.Booked.Transactions {
		booked = append(booked, mapTxOf(id, t, f))
	}
	pending := make([]mapTx, 0, len(page.Pending))
	for _, t := range page.Pending {
		pending = append(pending, mapTxOf(id, t, f))
	}
	txs := map[string]any{"_links": pageLinks("/v1/accounts/"+id+"/transactions", "/v1/accounts/"+id, q, page.From, page.Booked.Total)}
	if q.Status != "pending" {
		txs["booked"] = booked
	}
	if q.Status != "booked" {
		txs["pending"] = pending
	}
	acct := page.Account
	out := map[string]any{
		"account":      accountRefView{IBAN: acct.IBAN, BBAN: acct.BBAN, Currency: acct.Currency},
		"transactions": txs,
	}
	if q.WithBalance {
		out["balances"] = mapBalances(acct.Balances, acct.Available(), acct.Currency, today, f)
	}
	return out
}

type mapCard struct {
	ResourceID  string          `json:"resourceId"`
	MaskedPan   string          `json:"maskedPan"`
	Currency    string          `json:"currency"`
	Name        string          `json:"name"`
	Product     string          `json:"product"`
	Status      string          `json:"status"`
	CreditLimit map[string]any  `json:"creditLimit"`
	Balances    []mapBalance    `json:"balances,omitempty"`
	Links       map[string]link `json:"_links"`
}

func mapCardOf(c bank.CardAccount, withBalance bool, today bank.Date, f bank.Fixes) mapCard {
	self := "/v1/card-accounts/" + c.ID
	v := mapCard{
		ResourceID: c.ID, MaskedPan: c.MaskedPan, Currency: c.Currency, Name: f.Name(c.Name), Product: c.Product, Status: c.Status,
		CreditLimit: mapAmount(c.CreditLimit, c.Currency, f),
		Links:       map[string]link{"balances": linkTo(self+"/balances", "GET"), "transactions": linkTo(self+"/transactions", "GET")},
	}
	if withBalance {
		v.Balances = mapCardBalances(c, today, f)
	}
	return v
}

type mapCardTx struct {
	CardTransactionID              string           `json:"cardTransactionId"`
	TerminalID                     string           `json:"terminalId,omitempty"`
	TransactionDate                bank.Date        `json:"transactionDate"`
	BookingDate                    *bank.Date       `json:"bookingDate,omitempty"`
	TransactionAmount              map[string]any   `json:"transactionAmount"`
	OriginalAmount                 map[string]any   `json:"originalAmount"`
	CurrencyExchange               []map[string]any `json:"currencyExchange,omitempty"`
	MarkupFee                      map[string]any   `json:"markupFee,omitempty"`
	MarkupFeePercentage            string           `json:"markupFeePercentage,omitempty"`
	CardAcceptorID                 string           `json:"cardAcceptorId,omitempty"`
	CardAcceptorAddress            bank.Address     `json:"cardAcceptorAddress"`
	MerchantCategoryCode           string           `json:"merchantCategoryCode"`
	MaskedPan                      string           `json:"maskedPan"`
	TransactionDetails             string           `json:"transactionDetails,omitempty"`
	Invoiced                       bool             `json:"invoiced"`
	ProprietaryBankTransactionCode string           `json:"proprietaryBankTransactionCode,omitempty"`
}

func mapCardTxOf(t bank.CardTransaction, f bank.Fixes) mapCardTx {
	txAmount, original := t.TransactionAmount, t.OriginalAmount
	if !f[bank.FixCardSwitch] {
		txAmount, original = original, txAmount
	}
	v := mapCardTx{
		CardTransactionID: t.CardTransactionID, TerminalID: t.TerminalID, TransactionDate: t.TransactionDate,
		TransactionAmount: mapAmount(txAmount.Amount, txAmount.Currency, f), OriginalAmount: mapAmount(original.Amount, original.Currency, f),
		CardAcceptorID: t.CardAcceptorID, CardAcceptorAddress: t.CardAcceptorAddress, MerchantCategoryCode: t.MerchantCategoryCode,
		MaskedPan: t.MaskedPan, TransactionDetails: t.TransactionDetails, Invoiced: t.Invoiced,
		ProprietaryBankTransactionCode: t.ProprietaryBankTransactionCode,
	}
	if !t.Pending() {
		d := t.BookingDate
		v.BookingDate = &d
	}
	if x := t.CurrencyExchange; x != nil {
		v.CurrencyExchange = []map[string]any{{
			"sourceCurrency": x.SourceCurrency, "targetCurrency": x.TargetCurrency, "unitCurrency": x.UnitCurrency,
			"exchangeRate": x.ExchangeRate, "quotationDate": x.QuotationDate,
		}}
		if x.MarkupFee != nil {
			v.MarkupFee = mapAmount(x.MarkupFee.Amount, x.MarkupFee.Currency, f)
		}
		v.MarkupFeePercentage = x.MarkupFeePercentage
	}
	return v
}

func mapCardTxPage(id string, page bank.AISCardPage, q bank.AISQuery, f bank.Fixes, today bank.Date) map[string]any {
	txs := map[string]any{"_links": pageLinks("/v1/card-accounts/"+id+"/transactions", "/v1/card-accounts/"+id, q, page.From, page.Total)}
	if q.Status != "pending" {
		booked := make([]mapCardTx, 0, len(page.Booked))
		for _, t := range page.Booked {
			booked = append(booked, mapCardTxOf(t, f))
		}
		txs["booked"] = booked
	}
	if q.Status != "booked" {
		pending := make([]mapCardTx, 0, len(page.Pending))
		for _, t := range page.Pending {
			pending = append(pending, mapCardTxOf(t, f))
		}
		txs["pending"] = pending
	}
	out := map[string]any{"cardAccount": map[string]string{"maskedPan": page.Card.MaskedPan}, "cardTransactions": txs}
	if q.WithBalance {
		out["balances"] = mapCardBalances(page.Card, today, f)
	}
	return out
}

type mapSandboxAccount struct {
	ID              string          `json:"id"`
	CustomerNumber  string          `json:"customerNumber"`
	AccountName     string          `json:"accountName"`
	BBAN            string          `json:"bban"`
	IBAN            string          `json:"iban"`
	Currency        string          `json:"currency"`
	Product         string          `json:"product"`
	CashAccountType string          `json:"cashAccountType"`
	CreditLine      json.Number     `json:"creditLine"`
	Balances        []balanceView   `json:"balances"`
	KIDRequired     bool            `json:"kidRequired"`
	Status          string          `json:"status"`
	Links           map[string]link `json:"_links"`
}

func mapSandboxAccountOf(d bank.AccountDetail) mapSandboxAccount {
	self := "/v1/sandbox/accounts/" + d.ID
	return mapSandboxAccount{
		ID: d.ID, CustomerNumber: d.Owner.Number, AccountName: d.Name, BBAN: d.BBAN, IBAN: d.IBAN,
		Currency: d.Currency, Product: d.Product, CashAccountType: d.CashAccountType,
		CreditLine: number(d.CreditLine), Balances: balancesView(d.Balances, d.Currency),
		KIDRequired: d.KIDRequired, Status: d.Status,
		Links: map[string]link{"self": linkTo(self, "GET", "DELETE"), "transactions": linkTo(self+"/transactions", "GET", "POST", "DELETE")},
	}
}

// --- the records ---

// fixSets are the fixes that change the answers, in every combination
// that matters: none, each alone, all.
func fixSets() map[string]bank.Fixes {
	return map[string]bank.Fixes{
		"no fixes":         {},
		"amount-as-string": {bank.FixAmountAsString: true},
		"longer-names":     {bank.FixLongerNames: true},
		"card switch":      {bank.FixCardSwitch: true},
		"cash-account-iso": {bank.FixCashAccountISO: true},
		"all fixes":        {bank.FixAmountAsString: true, bank.FixLongerNames: true, bank.FixCardSwitch: true, bank.FixCashAccountISO: true},
	}
}

var longName = strings.Repeat("Ærlig Østlandsk Åpenhet ", 3) // over 35 runes, not ASCII

// testTransactions holds a booked transaction with every field set, one
// with only what is required, a pending one, and ones with characters
// that JSON escapes or that encoding/json treats specially.
func testTransactions() []bank.Transaction {
	day := bank.Date{Year: 2026, Month: time.November, Day: 20}
	full := bank.Transaction{
		ID: "enc!!full", Amount: decimal.RequireFromString("-1234.5"), Currency: "NOK", BookingDate: day, ValueDate: day.AddDays(1),
		RemittanceInformationUnstructured: "Faktura <12> & \"kvittering\"\n\tlinje\u2028to", CreditorID: "NO123", CreditorName: longName,
		CreditorAccount: bank.AccountRef{IBAN: "NO3815030123457", BBAN: "15030123457"}, UltimateCreditor: "Ultimate C",
		DebtorName: "Debitor AS", DebtorAccount: bank.AccountRef{BBAN: "86011117947"}, UltimateDebtor: "Ultimate D",
		PurposeCode: "SALA", BankTransactionCode: "PMNT-RCDT-ESCT", EndToEndID: "E2E-1", CreditorAgent: "DNBANOKKXXX",
		DebtorAgent: "NDEANOKKXXX", ProprietaryBankTransactionCode: "P-1",
	}
	bare := bank.Transaction{ID: "enc!!bare", Amount: decimal.New(5, 0), Currency: "EUR", BookingDate: day, ValueDate: day, BankTransactionCode: "PMNT"}
	pending := full
	pending.ID, pending.Pending, pending.Amount, pending.Currency = "enc!!pending", true, decimal.RequireFromString("0.001"), "JPY"
	odd := bare
	odd.ID, odd.CreditorName, odd.Amount = "enc!!odd", "\x01bad\xffutf8", decimal.RequireFromString("99999999999999999999.99")
	return []bank.Transaction{full, bare, pending, odd}
}

func testAccount() bank.Account {
	return bank.Account{
		ID: "enc!!acct", OwnerID: "enc!!owner", Name: longName, IBAN: "NO3815030123457", BBAN: "15030123457", Currency: "NOK",
		Product: "Brukskonto", CashAccountType: "CACC", CreditLine: decimal.New(5000, 0), Status: "enabled",
		Balances: bank.Balances{ClosingBooked: decimal.RequireFromString("100.5"), Expected: decimal.RequireFromString("-20.25")},
	}
}

func testCard(detail bool) bank.CardAccount {
	c := bank.CardAccount{
		ID: "enc!!card", OwnerID: "enc!!owner", MaskedPan: "123456******7890", Currency: "NOK", Name: longName, Product: "Kredittkort",
		Status: "enabled", CreditLimit: decimal.New(20000, 0),
	}
	c.Balances.ClosingBooked, c.Balances.Expected = decimal.RequireFromString("-300"), decimal.RequireFromString("-450.75")
	if detail {
		c.Balances.ClosingBookedDetail = bank.BalanceDetail{ReferenceDate: bank.Date{Year: 2026, Month: time.November, Day: 19}, LastChangeDateTime: time.Date(2026, 11, 19, 8, 30, 0, 0, time.UTC), LastCommittedTransaction: "T-9"}
		c.Balances.ExpectedDetail = bank.BalanceDetail{LastCommittedTransaction: "T-10"}
	}
	return c
}

func testCardTransactions() []bank.CardTransaction {
	day := bank.Date{Year: 2026, Month: time.November, Day: 18}
	full := bank.CardTransaction{
		CardTransactionID: "C-1", TerminalID: "T-1", BookingDate: day, TransactionDate: day.AddDays(-1),
		TransactionAmount:    bank.Money{Amount: decimal.RequireFromString("-100.5"), Currency: "NOK"},
		OriginalAmount:       bank.Money{Amount: decimal.RequireFromString("-9.5"), Currency: "EUR"},
		MerchantCategoryCode: "5411", CardAcceptorID: "A-1", MaskedPan: "123456******7890", TransactionDetails: "Kafé <Oslo>",
		CardAcceptorAddress: bank.Address{Street: "Gate 1", City: "Oslo", Country: "NO"},
		Invoiced:            true, ProprietaryBankTransactionCode: "PB",
		CurrencyExchange: &bank.CurrencyExchange{
			SourceCurrency: "EUR", TargetCurrency: "NOK", UnitCurrency: "EUR", ExchangeRate: "11.70",
			QuotationDate: day, MarkupFee: &bank.Money{Amount: decimal.RequireFromString("1.25"), Currency: "NOK"}, MarkupFeePercentage: "1.5",
		},
	}
	noFee := full
	noFee.CardTransactionID, noFee.CurrencyExchange = "C-2", &bank.CurrencyExchange{SourceCurrency: "SEK", TargetCurrency: "NOK", ExchangeRate: "1"}
	bare := bank.CardTransaction{CardTransactionID: "C-3", TransactionAmount: bank.Money{Amount: decimal.New(1, 0), Currency: "NOK"}, OriginalAmount: bank.Money{Amount: decimal.New(1, 0), Currency: "NOK"}}
	pending := bare
	pending.CardTransactionID, pending.BookingDate = "C-4", bank.Date{}
	return []bank.CardTransaction{full, noFee, bare, pending}
}

// --- the tests ---

func TestTypedViews_TransactionPageAsTheMapForm(t *testing.T) {
	today := bank.Date{Year: 2026, Month: time.November, Day: 20}
	txs := testTransactions()
	for name, f := range fixSets() {
		for _, status := range []string{"booked", "pending", "both"} {
			for _, withBalance := range []bool{false, true} {
				for _, q := range []bank.AISQuery{
					{Status: status, WithBalance: withBalance},
					{Status: status, WithBalance: withBalance, TxQuery: bank.TxQuery{From: today.AddDays(-90), To: today, Offset: 200, Limit: 100}},
				} {
					for _, page := range []bank.AISTxPage{
						{Account: testAccount(), Booked: bank.TxPage{Transactions: txs, Total: 1_000_000}, Pending: txs[2:3], From: today.AddDays(-90)},
						{Account: testAccount(), Booked: bank.TxPage{Transactions: []bank.Transaction{}}, Pending: nil},
					} {
						what := fmt.Sprintf("%s, %+v, %d booked", name, q, len(page.Booked.Transactions))
						sameJSON(t, what, aisTxPageOf("enc!!acct", page, q, f, today), mapTxPage("enc!!acct", page, q, f, today))
					}
				}
			}
		}
	}
}

func TestTypedViews_AccountsAndBalancesAsTheMapForm(t *testing.T) {
	today := bank.Date{Year: 2026, Month: time.November, Day: 20}
	a := testAccount()
	bare := bank.Account{ID: "enc!!bare", Currency: "EUR"}
	for name, f := range fixSets() {
		for _, withBalance := range []bool{false, true} {
			typed := []aisAccountView{aisAccountOf(a, withBalance, f, today), aisAccountOf(bare, withBalance, f, today)}
			maps := []mapAccount{mapAccountOf(a, withBalance, today, f), mapAccountOf(bare, withBalance, today, f)}
			sameJSON(t, name+" accounts", struct {
				Accounts []aisAccountView `json:"accounts"`
			}{typed}, map[string]any{"accounts": maps})
			sameJSON(t, name+" account", struct {
				Account aisAccountView `json:"account"`
			}{typed[0]}, map[string]any{"account": maps[0]})
		}
		sameJSON(t, name+" balances", aisBalancesView{
			Account:  accountRefView{IBAN: a.IBAN, BBAN: a.BBAN, Currency: a.Currency},
			Balances: aisBalances(a.Balances, a.Available(), a.Currency, today, f),
		}, map[string]any{
			"account":  accountRefView{IBAN: a.IBAN, BBAN: a.BBAN, Currency: a.Currency},
			"balances": mapBalances(a.Balances, a.Available(), a.Currency, today, f),
		})
		for _, detail := range []bool{false, true} {
			c := testCard(detail)
			sameJSON(t, name+" card balances", aisCardBalancesView{Balances: aisCardBalances(c, today, f), CardAccount: maskedPanView{c.MaskedPan}},
				map[string]any{"cardAccount": map[string]string{"maskedPan": c.MaskedPan}, "balances": mapCardBalances(c, today, f)})
			for _, withBalance := range []bool{false, true} {
				sameJSON(t, name+" card accounts", struct {
					CardAccounts []aisCardView `json:"cardAccounts"`
				}{[]aisCardView{aisCardOf(c, withBalance, f, today)}}, map[string]any{"cardAccounts": []mapCard{mapCardOf(c, withBalance, today, f)}})
			}
		}
	}
}

func TestTypedViews_CardTransactionPageAsTheMapForm(t *testing.T) {
	today := bank.Date{Year: 2026, Month: time.November, Day: 20}
	txs := testCardTransactions()
	for name, f := range fixSets() {
		for _, status := range []string{"booked", "pending", "both"} {
			for _, withBalance := range []bool{false, true} {
				q := bank.AISQuery{Status: status, WithBalance: withBalance, TxQuery: bank.TxQuery{Limit: 2, Offset: 2}}
				page := bank.AISCardPage{Card: testCard(true), CardTxPage: bank.CardTxPage{Booked: txs[:3], Pending: txs[3:], Total: 7}, From: today.AddDays(-90)}
				sameJSON(t, fmt.Sprintf("%s, %+v", name, q), aisCardTxPageOf("enc!!card", page, q, f, today), mapCardTxPage("enc!!card", page, q, f, today))
			}
		}
	}
}

func TestTypedViews_SandboxListsAsTheMapForm(t *testing.T) {
	a := testAccount()
	d := bank.AccountDetail{Account: a, Owner: bank.Customer{Number: "13039319955"}}
	bare := bank.AccountDetail{Account: bank.Account{ID: "enc!!bare"}}
	sameJSON(t, "sandbox accounts", []accountView{accountOf(d), accountOf(bare)}, []mapSandboxAccount{mapSandboxAccountOf(d), mapSandboxAccountOf(bare)})
	// The sandbox transaction list was typed before; its links were
	// made per item.
	var typed, linked []transactionView
	for _, tx := range testTransactions() {
		v := transactionOf(a.ID, tx)
		typed = append(typed, v)
		v.Links = selfLink{linkTo("/v1/sandbox/accounts/"+a.ID+"/transactions/"+tx.ID, "GET")}
		linked = append(linked, v)
	}
	sameJSON(t, "sandbox transactions", typed, linked)
}

// decodedHasTopLevelKey is how the bank looked for a top-level key before:
// decoding the object, value by value.
func decodedHasTopLevelKey(object []byte, key string) bool {
	dec := json.NewDecoder(bytes.NewReader(object))
	if _, err := dec.Token(); err != nil {
		return false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if tok == key {
			return true
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return false
		}
	}
	return false
}

func TestWithWarnings_FindsTopLevelKeysOnly(t *testing.T) {
	notes := []bank.Message{bank.Oddity(bank.CodeBadRequest, "x", "is ignored")}
	bodies := []string{
		`{"a":1}`, "{}\n", `{ }`, `{"tppMessages":[]}`, `{"a":{"tppMessages":[]},"b":"tppMessages"}`,
		`{"a":["tppMessages",{"tppMessages":1}],"b":"x\"tppMessages\""}`, `{"a":"\\","tppMessages":2}`,
		`{"a":"}\"{[","b":[[{"c":"]"}]],"tppMessages":null}`, `{"tpp\u004dessages":1}`, `["tppMessages"]`,
		` {"b" : "\\\"" , "tppMessages" : {}} `, `{"x":[1,2,{"y":"z"}],"tppMessagesX":1,"tppMessages":0}`,
	}
	// And every answer of the tests above, with and without the key.
	today := bank.Date{Year: 2026, Month: time.November, Day: 20}
	page := aisTxPageOf("enc!!acct", bank.AISTxPage{Account: testAccount(), Booked: bank.TxPage{Transactions: testTransactions()}}, bank.AISQuery{Status: "both", WithBalance: true}, bank.Fixes{}, today)
	cards := aisCardTxPageOf("enc!!card", bank.AISCardPage{Card: testCard(true), CardTxPage: bank.CardTxPage{Booked: testCardTransactions()}}, bank.AISQuery{Status: "both"}, bank.Fixes{}, today)
	for _, v := range []any{page, cards, map[string]any{"page": page, "tppMessages": []string{}}, map[string]any{"a": cards, "z": page}} {
		bodies = append(bodies, encoded(t, v))
	}
	for _, body := range bodies {
		object := strings.HasPrefix(strings.TrimSpace(body), "{")
		want := object && decodedHasTopLevelKey([]byte(strings.TrimSpace(body)), "tppMessages")
		if got := hasTopLevelKey([]byte(strings.TrimSpace(body)), "tppMessages"); got != want {
			t.Errorf("%.200s: hasTopLevelKey %v, decoding says %v", body, got, want)
		}
		var b bytes.Buffer
		b.WriteString(body)
		withWarnings(&b, notes)
		added := strings.Contains(b.String(), `"is ignored"`)
		if added != (object && !want) || (added && !json.Valid(b.Bytes())) {
			t.Errorf("%.200s: became %.300s", body, b.String())
		}
	}
}
