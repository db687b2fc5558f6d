package psd2api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/apierr"
	"sandbank/bank/pki"
	"sandbank/bank/scenario"
)

// setup starts a bank and a TPP with every role.
func setup(t *testing.T) (*apptest.Bank, *apptest.TPP) {
	t.Helper()
	b := apptest.Start(t, apptest.Options{})
	return b, b.NewTPP("933012867", 0, pki.RoleAI, pki.RolePI)
}

// expect checks a response's status and, for errors, its code.
func expect(t *testing.T, r apptest.Response, status int, code string) apptest.ErrorBody {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	if code == "" {
		return apptest.ErrorBody{}
	}
	e := r.Err(t)
	if e.Code != code || e.Status != status || e.System != "sandbank" || e.ID == "" || e.Message == "" {
		t.Fatalf("error body %+v, want code %s status %d", e, code, status)
	}
	if len(e.TPPMessages) == 0 {
		t.Fatalf("error body has no tppMessages: %s", r.Body)
	}
	for _, m := range e.TPPMessages {
		if len(m.Text) > 512 || strings.Contains(m.Text, ".go:") || strings.Contains(m.Text, "goroutine") {
			t.Fatalf("tppMessage leaks or is too long: %q", m.Text)
		}
	}
	return e
}

// paths returns the tppMessages paths of an error.
func paths(e apptest.ErrorBody) []string {
	var out []string
	for _, m := range e.TPPMessages {
		out = append(out, m.Path)
	}
	return out
}

// rejects sends a request that must fail with status and code, naming
// wantPaths, and checks that the data file did not change.
func rejects(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, method, path string, body any, status int, code string, wantPaths ...string) apptest.ErrorBody {
	t.Helper()
	return rejectsWith(t, b, tpp, method, path, body, nil, status, code, wantPaths...)
}

// rejectsWith is rejects for a request with headers ("Name: value").
func rejectsWith(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, method, path string, body any, headers []string, status int, code string, wantPaths ...string) apptest.ErrorBody {
	t.Helper()
	before := b.FileSum()
	e := expect(t, b.Do(tpp, method, path, body, headers...), status, code)
	got := paths(e)
	for _, p := range wantPaths {
		if !slices.Contains(got, p) {
			t.Errorf("%s %s: tppMessages paths %q lack %q (%s)", method, path, got, p, e.Message)
		}
	}
	if b.FileSum() != before {
		t.Errorf("%s %s failed but changed the data file", method, path)
	}
	return e
}

type customer struct {
	CustomerID     string `json:"customerId"`
	CustomerNumber string `json:"customerNumber"`
	CustomerType   string `json:"customerType"`
	CustomerName   string `json:"customerName"`
	Agreements     []struct {
		ID          string   `json:"id"`
		Private     bool     `json:"private"`
		Engagements []string `json:"engagements"`
	} `json:"agreements"`
	Accounts     []string `json:"accounts"`
	CardAccounts []string `json:"cardAccounts"`
}

type amount struct {
	Currency string  `json:"currency"`
	Amount   float64 `json:"amount"`
}

type account struct {
	ID              string `json:"id"`
	CustomerNumber  string `json:"customerNumber"`
	AccountName     string `json:"accountName"`
	BBAN            string `json:"bban"`
	IBAN            string `json:"iban"`
	Currency        string `json:"currency"`
	CashAccountType string `json:"cashAccountType"`
	Balances        []struct {
		BalanceAmount amount `json:"balanceAmount"`
		BalanceType   string `json:"balanceType"`
	} `json:"balances"`
	KIDRequired bool   `json:"kidRequired"`
	Status      string `json:"status"`
}

func (a account) balance(typ string) float64 {
	for _, b := range a.Balances {
		if b.BalanceType == typ {
			return b.BalanceAmount.Amount
		}
	}
	return -1
}

type transaction struct {
	ID              string          `json:"id"`
	Amount          float64         `json:"amount"`
	BookingDate     string          `json:"bookingDate"`
	ValueDate       string          `json:"valueDate"`
	CreditorAccount bank.AccountRef `json:"creditorAccount"`
	DebtorAccount   bank.AccountRef `json:"debtorAccount"`
}

// knownIDs are the ids of the known state that TPP test suites hard-code.
// They must never change.
var knownIDs = map[string]string{
	"customer 13039319955":  "enc!!ez0o0ybl1y-3Lw6w4_m29Q",
	"customer 12085592767":  "enc!!d7AmTMiFVaO8CT1eSmVE7g",
	"customer 18129215603":  "enc!!wS4ZH2jLieZWL8g_NR2JGw",
	"customer 20079518612":  "enc!!vVmzkrm5L_6a5aqIo9-11g",
	"NO3815030123457":       "enc!!BMqoT2eLQOgt-DAQsuGXRQ",
	"NO1615030123465":       "enc!!I0bYmS0STaeDq11Atr0ffA",
	"NO3015030234569":       "enc!!eXNlZcFA_d2iwd14FG9x_w",
	"NO0815030234577":       "enc!!E1WayO3sXZPBYtHdJzX9qA",
	"NO2815030345670":       "enc!!9JZckNWOqWXaEBLJ7MPBrw",
	"NO9715030345689":       "enc!!9o1NeaLYoar6X6EsEUKhlA",
	"NO2015030456782":       "enc!!oTuktNtQBPbtxuwgi3dpjw",
	"NO9515030456790":       "enc!!4RTH05ufvnB6N--_6c5Z6w",
	"card 525412******3241": "enc!!jfGNdTso5Ie-_lpxLB3lqA",
	"card 545762******7810": "enc!!8i2BFSqapkH7-X_nhcNojg",
	"agreement 18129215603": "enc!!NDPURJLx3L9QIegVAF9UMA",
	"agreement 20079518612": "enc!!0z7-9OTmswK6-QYshpvuwA",
	"agreement 13039319955": "enc!!rVaITLvXOnvnHrxda7qsOA",
	"agreement 12085592767": "enc!!5J1lG1bCwH_3qqq2xbRNAw",
}

func TestSandbox_KnownState(t *testing.T) {
	b, tpp := setup(t)
	var list []customer
	r := b.Do(tpp, "GET", "/v1/sandbox/customers?withAccounts=true&withAgreements=true", nil)
	expect(t, r, 200, "")
	r.JSON(t, &list)
	want := map[string]struct {
		typ, name      string
		accounts, card int
	}{
		"13039319955": {"PRIVATE", "Test Testperson 1", 2, 1},
		"12085592767": {"PRIVATE", "Test Testperson 2", 2, 1},
		"18129215603": {"CORPORATE", "Testfirma 1 AS", 2, 0},
		"20079518612": {"CORPORATE", "Testfirma 2 AS", 2, 0},
	}
	if len(list) != 4 {
		t.Fatalf("%d customers, want 4", len(list))
	}
	for _, c := range list {
		w, ok := want[c.CustomerNumber]
		if !ok || c.CustomerType != w.typ || c.CustomerName != w.name || len(c.Accounts) != w.accounts || len(c.CardAccounts) != w.card {
			t.Errorf("customer %+v, want %+v", c, w)
		}
		if c.CustomerID != knownIDs["customer "+c.CustomerNumber] {
			t.Errorf("customer %s has id %s, want the fixed %s", c.CustomerNumber, c.CustomerID, knownIDs["customer "+c.CustomerNumber])
		}
		if len(c.Agreements) != 1 {
			t.Errorf("customer %s has %d agreements, want 1", c.CustomerNumber, len(c.Agreements))
		}
	}
	var accounts []account
	b.Do(tpp, "GET", "/v1/sandbox/accounts", nil).JSON(t, &accounts)
	if len(accounts) != 8 {
		t.Fatalf("%d accounts, want 8", len(accounts))
	}
	types := map[string]int{}
	for _, a := range accounts {
		if a.ID != knownIDs[a.IBAN] {
			t.Errorf("account %s has id %s, want the fixed %s", a.IBAN, a.ID, knownIDs[a.IBAN])
		}
		types[a.CashAccountType]++
		var txs []transaction
		r := b.Do(tpp, "GET", "/v1/sandbox/accounts/"+a.ID+"/transactions?limit=1000", nil)
		r.JSON(t, &txs)
		if len(txs) < 5 {
			t.Errorf("account %s %s has %d transactions; the known state has months of history", a.IBAN, a.AccountName, len(txs))
		}
		if a.Currency == "EUR" && a.AccountName != "Valutakonto EUR" {
			t.Errorf("unexpected EUR account %s", a.AccountName)
		}
	}
	if types["TAXE"] != 1 || types["SVGS"] != 2 {
		t.Errorf("cash account types %v", types)
	}
	var cards []struct {
		ResourceID string `json:"resourceId"`
		MaskedPan  string `json:"maskedPan"`
	}
	b.Do(tpp, "GET", "/v1/sandbox/card-accounts", nil).JSON(t, &cards)
	for _, c := range cards {
		if c.ResourceID != knownIDs["card "+c.MaskedPan] {
			t.Errorf("card account %s has id %s", c.MaskedPan, c.ResourceID)
		}
	}
	var agreements []struct {
		ID    string `json:"id"`
		Owner string `json:"owner"`
	}
	b.Do(tpp, "GET", "/v1/sandbox/agreements", nil).JSON(t, &agreements)
	for _, a := range agreements {
		if a.ID != knownIDs["agreement "+a.Owner] {
			t.Errorf("agreement of %s has id %s", a.Owner, a.ID)
		}
	}
	// The same ids after another initialize, and the exact counts body.
	r = b.Do(tpp, "POST", "/v1/sandbox/initialize", nil)
	expect(t, r, 200, "")
	if got := strings.TrimSpace(string(r.Body)); got != `{"accounts":8,"cardAccounts":2,"customers":4}` {
		t.Errorf("initialize answered %s", got)
	}
	var again []account
	b.Do(tpp, "GET", "/v1/sandbox/accounts", nil).JSON(t, &again)
	for i := range accounts {
		if accounts[i].ID != again[i].ID {
			t.Errorf("account %d id changed over initialize: %s -> %s", i, accounts[i].ID, again[i].ID)
		}
	}
}

func TestSandbox_InitializeRemovesManualData(t *testing.T) {
	b, tpp := setup(t)
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": "55555", "name": "Temp", "type": "private"}), 201, "")
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/initialize", nil), 200, "")
	var list []customer
	b.Do(tpp, "GET", "/v1/sandbox/customers", nil).JSON(t, &list)
	for _, c := range list {
		if c.CustomerNumber == "55555" {
			t.Fatal("initialize kept a manually created customer")
		}
	}
}

func TestSandbox_CustomerLifecycle(t *testing.T) {
	b, tpp := setup(t)
	r := b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": "01017012345", "name": "Kari Nordmann", "type": "Private"})
	expect(t, r, 201, "")
	var c customer
	r.JSON(t, &c)
	if c.CustomerType != "Private" || c.CustomerName != "Kari Nordmann" || !strings.HasPrefix(c.CustomerID, "enc!!") {
		t.Fatalf("created %+v", c)
	}
	if len(c.Agreements) != 1 || !c.Agreements[0].Private {
		t.Fatalf("a private customer gets a private agreement at once: %+v", c.Agreements)
	}
	if !strings.Contains(string(r.Body), `"accounts":[]`) || !strings.Contains(string(r.Body), `"cardAccounts":[]`) {
		t.Fatalf("a customer without accounts shows empty lists: %s", r.Body)
	}
	if strings.Contains(string(b.Do(tpp, "GET", "/v1/sandbox/customers", nil).Body), `"accounts"`) {
		t.Fatal("accounts listed without withAccounts=true")
	}
	rejects(t, b, tpp, "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": "01017012345", "name": "Other", "type": "private"}, 409, "CONFLICT", "customerNumber")

	var got customer
	b.Do(tpp, "GET", "/v1/sandbox/customers/"+c.CustomerID, nil).JSON(t, &got)
	if got.CustomerNumber != "01017012345" {
		t.Fatalf("get %+v", got)
	}
	// Its account joins the private agreement.
	r = b.Do(tpp, "POST", "/v1/sandbox/accounts", newAccount("01017012345", "15030567894", "NOK"))
	expect(t, r, 201, "")
	b.Do(tpp, "GET", "/v1/sandbox/customers/"+c.CustomerID, nil).JSON(t, &got)
	if len(got.Accounts) != 1 || len(got.Agreements) != 1 || len(got.Agreements[0].Engagements) != 1 {
		t.Fatalf("after an account: %+v", got)
	}
	// The private agreement answers like any other and cannot be deleted.
	agreementID := got.Agreements[0].ID
	expect(t, b.Do(tpp, "GET", "/v1/sandbox/agreements/"+agreementID+"/engagements", nil), 200, "")
	rejects(t, b, tpp, "DELETE", "/v1/sandbox/agreements/"+agreementID, nil, 409, "CONFLICT")

	expect(t, b.Do(tpp, "DELETE", "/v1/sandbox/customers/"+c.CustomerID, nil), 204, "")
	expect(t, b.Do(tpp, "GET", "/v1/sandbox/customers/"+c.CustomerID, nil), 404, "RESOURCE_UNKNOWN")
	expect(t, b.Do(tpp, "GET", "/v1/sandbox/agreements/"+agreementID, nil), 404, "RESOURCE_UNKNOWN")
	var accounts []account
	b.Do(tpp, "GET", "/v1/sandbox/accounts", nil).JSON(t, &accounts)
	for _, a := range accounts {
		if a.CustomerNumber == "01017012345" {
			t.Fatal("deleting a customer kept their account")
		}
	}
	rejects(t, b, tpp, "DELETE", "/v1/sandbox/customers/"+c.CustomerID, nil, 404, "RESOURCE_UNKNOWN")
	rejects(t, b, tpp, "GET", "/v1/sandbox/customers/not-an-id", nil, 404, "RESOURCE_UNKNOWN")
}

func TestSandbox_CustomerValidation(t *testing.T) {
	b, tpp := setup(t)
	cases := []struct {
		name  string
		body  any
		code  string
		paths []string
	}{
		{"not JSON", "{", "BAD_REQUEST", nil},
		{"empty body", nil, "BAD_REQUEST", nil},
		{"array", "[]", "BAD_REQUEST", nil},
		{"number as number", `{"customerNumber": 123, "name": "A", "type": "private"}`, "BAD_REQUEST", []string{"customerNumber"}},
		{"two documents", `{"customerNumber": "1", "name": "A", "type": "private"} {}`, "BAD_REQUEST", nil},
		{"everything missing", `{}`, "FORMAT_ERROR", []string{"customerNumber", "name", "type"}},
		{"letters in number", map[string]string{"customerNumber": "12A", "name": "A", "type": "private"}, "FORMAT_ERROR", []string{"customerNumber"}},
		{"number too long", map[string]string{"customerNumber": strings.Repeat("1", 21), "name": "A", "type": "private"}, "FORMAT_ERROR", []string{"customerNumber"}},
		{"name too long", map[string]string{"customerNumber": "1", "name": strings.Repeat("Å", 71), "type": "private"}, "FORMAT_ERROR", []string{"name"}},
		{"name with newline", map[string]string{"customerNumber": "1", "name": "A\nB", "type": "private"}, "FORMAT_ERROR", []string{"name"}},
		{"unknown type", map[string]string{"customerNumber": "1", "name": "A", "type": "household"}, "FORMAT_ERROR", []string{"type"}},
		{"invalid UTF-8", []byte("{\"customerNumber\": \"1\", \"name\": \"\xff\", \"type\": \"private\"}"), "BAD_REQUEST", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rejects(t, b, tpp, "POST", "/v1/sandbox/customers", c.body, 400, c.code, c.paths...)
		})
	}
	expect(t, b.Do(tpp, "GET", "/v1/sandbox/customers?withAccounts=maybe", nil), 400, "FORMAT_ERROR")
}

func newAccount(owner, bban, currency string) map[string]any {
	return map[string]any{
		"customerNumber": owner, "accountName": "Test account", "bban": bban, "currency": currency,
		"product": "Brukskonto", "cashAccountType": "CACC", "creditLine": 1000,
		"balances": []map[string]any{{"balanceType": "EXPECTED", "balanceAmount": map[string]any{"amount": 1234.5, "currency": currency}}},
	}
}

func TestSandbox_Accounts(t *testing.T) {
	b, tpp := setup(t)
	r := b.Do(tpp, "POST", "/v1/sandbox/accounts", newAccount("13039319955", "15030567894", "NOK"))
	expect(t, r, 201, "")
	var a account
	r.JSON(t, &a)
	if a.IBAN != "NO1215030567894" || a.BBAN != "15030567894" || a.Status != "enabled" {
		t.Fatalf("created %+v; want the IBAN made from the BBAN", a)
	}
	if a.balance("expected") != 1234.5 || a.balance("closingBooked") != 1234.5 {
		t.Fatalf("balances %+v", a.Balances)
	}
	var one []account
	b.Do(tpp, "GET", "/v1/sandbox/accounts/"+a.ID, nil).JSON(t, &one)
	if len(one) != 1 || one[0].ID != a.ID {
		t.Fatalf("GET one account answers an array of one: %+v", one)
	}
	r = b.Do(tpp, "PUT", "/v1/sandbox/accounts/"+a.ID+"/balances", []map[string]any{{"balanceType": "CLOSING_BOOKED", "balanceAmount": map[string]any{"amount": 99.99, "currency": "NOK"}}})
	expect(t, r, 200, "")
	r.JSON(t, &a)
	if a.balance("closingBooked") != 99.99 || a.balance("expected") != 1234.5 {
		t.Fatalf("after PUT balances %+v", a.Balances)
	}
	// Only the IBAN given: the BBAN comes from it.
	acct := newAccount("18129215603", "", "EUR")
	acct["iban"] = "NO9386011117947"
	r = b.Do(tpp, "POST", "/v1/sandbox/accounts", acct)
	expect(t, r, 201, "")
	var eur account
	r.JSON(t, &eur)
	if eur.BBAN != "86011117947" {
		t.Fatalf("bban %q from NO9386011117947", eur.BBAN)
	}

	base := newAccount("13039319955", "12345678903", "NOK")
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range base {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name   string
		body   any
		status int
		code   string
		paths  []string
	}{
		{"unknown owner", with("customerNumber", "99999"), 400, "RESOURCE_UNKNOWN", []string{"customerNumber"}},
		{"bad IBAN check", with("iban", "NO7212345678903"), 400, "FORMAT_ERROR", []string{"iban"}},
		{"IBAN of another BBAN", with("iban", "NO9386011117947"), 400, "FORMAT_ERROR", []string{"bban"}},
		{"IBAN too long", with("iban", "NO"+strings.Repeat("1", 33)), 400, "FORMAT_ERROR", []string{"iban"}},
		{"BBAN too long", with("bban", strings.Repeat("1", 31)), 400, "FORMAT_ERROR", []string{"bban"}},
		{"duplicate IBAN", with("bban", "15030123457"), 409, "CONFLICT", []string{"iban"}},
		{"bad currency", with("currency", "NOKK"), 400, "FORMAT_ERROR", []string{"currency"}},
		{"bad cash account type", with("cashAccountType", "CHECKING"), 400, "FORMAT_ERROR", []string{"cashAccountType"}},
		{"name too long", with("accountName", strings.Repeat("x", 71)), 400, "FORMAT_ERROR", []string{"accountName"}},
		{"negative credit line", with("creditLine", -1), 400, "FORMAT_ERROR", []string{"creditLine"}},
		{"credit line as a word", with("creditLine", "a thousand"), 400, "FORMAT_ERROR", []string{"creditLine"}},
		{"credit line over int32", with("creditLine", 3000000000), 400, "FORMAT_ERROR", []string{"creditLine"}},
		{"missing balances", with("balances", nil), 400, "FORMAT_ERROR", []string{"balances"}},
		{"balance type unknown", with("balances", []map[string]any{{"balanceType": "available", "balanceAmount": map[string]any{"amount": 1, "currency": "NOK"}}}), 400, "FORMAT_ERROR", []string{"balances[0].balanceType"}},
		{"balance currency", with("balances", []map[string]any{{"balanceType": "expected", "balanceAmount": map[string]any{"amount": 1, "currency": "EUR"}}}), 400, "FORMAT_ERROR", []string{"balances[0].balanceAmount.currency"}},
		{"balance too precise", with("balances", []map[string]any{{"balanceType": "expected", "balanceAmount": map[string]any{"amount": 1.001, "currency": "NOK"}}}), 400, "FORMAT_ERROR", []string{"balances[0].balanceAmount.amount"}},
		{"bad status", with("status", "frozen"), 400, "FORMAT_ERROR", []string{"status"}},
		{"no bban nor iban", with("bban", nil), 400, "FORMAT_ERROR", []string{"bban", "iban"}},
		{"kidRequired as string", with("kidRequired", "yes"), 400, "BAD_REQUEST", []string{"kidRequired"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rejects(t, b, tpp, "POST", "/v1/sandbox/accounts", c.body, c.status, c.code, c.paths...)
		})
	}
	// Every failing field is reported, not just the first.
	e := rejects(t, b, tpp, "POST", "/v1/sandbox/accounts", map[string]any{"customerNumber": "99999", "bban": "1", "currency": "X"}, 400, "RESOURCE_UNKNOWN")
	if len(e.TPPMessages) < 5 {
		t.Errorf("only %d findings reported: %s", len(e.TPPMessages), e.Message)
	}
	rejects(t, b, tpp, "PUT", "/v1/sandbox/accounts/"+a.ID+"/balances", []map[string]any{}, 400, "FORMAT_ERROR")
	rejects(t, b, tpp, "PUT", "/v1/sandbox/accounts/enc!!nope/balances", []map[string]any{{"balanceType": "expected", "balanceAmount": map[string]any{"amount": 1, "currency": "NOK"}}}, 404, "RESOURCE_UNKNOWN")

	expect(t, b.Do(tpp, "DELETE", "/v1/sandbox/accounts/"+a.ID, nil), 204, "")
	rejects(t, b, tpp, "GET", "/v1/sandbox/accounts/"+a.ID, nil, 404, "RESOURCE_UNKNOWN")
}

// tx is a sandbox transaction body with every field of spec 2.11.
func tx(amount float64, booking, value string, debtor, creditor map[string]string) map[string]any {
	return map[string]any{
		"amount": amount, "currency": "NOK", "valueDate": value, "bookingDate": booking,
		"remittanceInformationUnstructured": "Faktura 1001", "creditorId": "", "creditorName": "Kreditor AS",
		"creditorAccount": creditor, "ultimateCreditor": "", "debtorName": "Debitor", "debtorAccount": debtor,
		"ultimateDebtor": "", "purposeCode": "OTHR", "bankTransactionCode": "PMNT-ICDT-ESCT",
	}
}

// knownAccount returns a known-state account by IBAN.
func knownAccount(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, iban string) account {
	t.Helper()
	var list []account
	b.Do(tpp, "GET", "/v1/sandbox/accounts", nil).JSON(t, &list)
	for _, a := range list {
		if a.IBAN == iban {
			return a
		}
	}
	t.Fatalf("no account %s", iban)
	return account{}
}

func TestSandbox_Transactions(t *testing.T) {
	b, tpp := setup(t)
	a := knownAccount(t, b, tpp, "NO3815030123457")
	path := "/v1/sandbox/accounts/" + a.ID + "/transactions"
	expect(t, b.Do(tpp, "DELETE", path, nil), 204, "")
	own := map[string]string{"iban": a.IBAN}
	ext := map[string]string{"bban": "86011117947"}
	today := bank.DateOf(time.Now())
	day := func(n int) string { return today.AddDays(n).String() }
	r := b.Do(tpp, "POST", path, []any{
		tx(250, day(-10), day(-10), own, ext),
		tx(-100.5, day(-5), day(-4), own, ext),
		tx(5000, day(-1), day(0), ext, own),
	})
	expect(t, r, 201, "")
	var created []transaction
	r.JSON(t, &created)
	if len(created) != 3 || created[0].Amount != -250 || created[1].Amount != -100.5 || created[2].Amount != 5000 {
		t.Fatalf("created %+v; a debit is negative whatever its sign in the request", created)
	}
	var list []transaction
	r = b.Do(tpp, "GET", path, nil)
	r.JSON(t, &list)
	if len(list) != 3 || list[0].BookingDate != day(-1) || list[2].BookingDate != day(-10) || r.Header.Get("X-Total-Count") != "3" {
		t.Fatalf("list %+v, newest first", list)
	}
	b.Do(tpp, "GET", path+"?fromDate="+day(-6)+"&toDate="+day(-2), nil).JSON(t, &list)
	if len(list) != 1 || list[0].ID != created[1].ID {
		t.Fatalf("date range %+v", list)
	}
	b.Do(tpp, "GET", path+"?offset=1&limit=1", nil).JSON(t, &list)
	if len(list) != 1 || list[0].ID != created[1].ID {
		t.Fatalf("offset 1 limit 1: %+v", list)
	}
	var one transaction
	b.Do(tpp, "GET", path+"/"+created[2].ID, nil).JSON(t, &one)
	if one.ID != created[2].ID || one.Amount != 5000 {
		t.Fatalf("get one %+v", one)
	}
	rejects(t, b, tpp, "GET", path+"/"+created[2].ID+"x", nil, 404, "RESOURCE_UNKNOWN")
	other := knownAccount(t, b, tpp, "NO1615030123465")
	rejects(t, b, tpp, "GET", "/v1/sandbox/accounts/"+other.ID+"/transactions/"+created[2].ID, nil, 404, "RESOURCE_UNKNOWN")

	sandboxAcct := map[string]string{"iban": other.IBAN}
	bad := func(mod func(m map[string]any)) []any {
		m := tx(10, day(-2), day(-2), own, ext)
		mod(m)
		return []any{tx(1, day(-1), day(-1), own, ext), m}
	}
	cases := []struct {
		name  string
		body  any
		paths []string
	}{
		{"future booking date", bad(func(m map[string]any) { m["bookingDate"] = day(1); m["valueDate"] = day(1) }), []string{"[1].bookingDate", "[1].valueDate"}},
		{"booking after value", bad(func(m map[string]any) { m["valueDate"] = day(-3) }), []string{"[1].bookingDate"}},
		{"bad date", bad(func(m map[string]any) { m["bookingDate"] = "2026-02-30" }), []string{"[1].bookingDate"}},
		{"bank transaction code too short", bad(func(m map[string]any) { m["bankTransactionCode"] = "PMT" }), []string{"[1].bankTransactionCode"}},
		{"bank transaction code too long", bad(func(m map[string]any) { m["bankTransactionCode"] = strings.Repeat("X", 15) }), []string{"[1].bankTransactionCode"}},
		{"debtor is another sandbox account", bad(func(m map[string]any) { m["debtorAccount"] = sandboxAcct; m["creditorAccount"] = own }), []string{"[1].debtorAccount"}},
		{"creditor is another sandbox account", bad(func(m map[string]any) { m["creditorAccount"] = sandboxAcct }), []string{"[1].creditorAccount"}},
		{"neither side is the account", bad(func(m map[string]any) {
			m["debtorAccount"] = ext
			m["creditorAccount"] = map[string]string{"iban": "DE89370400440532013000"}
		}), []string{"[1]"}},
		{"wrong currency", bad(func(m map[string]any) { m["currency"] = "EUR" }), []string{"[1].currency"}},
		{"zero amount", bad(func(m map[string]any) { m["amount"] = 0 }), []string{"[1].amount"}},
		{"too many decimals", bad(func(m map[string]any) { m["amount"] = 1.234 }), []string{"[1].amount"}},
		{"negative credit", bad(func(m map[string]any) { m["amount"] = -5; m["debtorAccount"] = ext; m["creditorAccount"] = own }), []string{"[1].amount"}},
		{"missing creditorId", bad(func(m map[string]any) { delete(m, "creditorId") }), []string{"[1].creditorId"}},
		{"missing amount", bad(func(m map[string]any) { delete(m, "amount") }), []string{"[1].amount"}},
		{"remittance too long", bad(func(m map[string]any) { m["remittanceInformationUnstructured"] = strings.Repeat("r", 141) }), []string{"[1].remittanceInformationUnstructured"}},
		{"bad counterpart BBAN", bad(func(m map[string]any) { m["creditorAccount"] = map[string]string{"bban": "8601-111794"} }), []string{"[1].creditorAccount.bban"}},
		{"bad purpose code", bad(func(m map[string]any) { m["purposeCode"] = "SA-L" }), []string{"[1].purposeCode"}},
		{"bad creditor agent", bad(func(m map[string]any) { m["creditorAgent"] = "DNBANO" }), []string{"[1].creditorAgent"}},
		{"empty array", []any{}, nil},
		{"object, not array", tx(1, day(-1), day(-1), own, ext), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code := "FORMAT_ERROR"
			if c.name == "object, not array" {
				code = "BAD_REQUEST"
			}
			rejects(t, b, tpp, "POST", path, c.body, 400, code, c.paths...)
		})
	}
	// Nothing of a failed batch is stored, the valid item included.
	b.Do(tpp, "GET", path, nil).JSON(t, &list)
	if len(list) != 3 {
		t.Fatalf("a failed batch stored %d transactions", len(list)-3)
	}
	for _, q := range []string{"?fromDate=2026-13-01", "?limit=0", "?limit=10001", "?offset=-1", "?limit=x"} {
		expect(t, b.Do(tpp, "GET", path+q, nil), 400, "FORMAT_ERROR")
	}
	expect(t, b.Do(tpp, "GET", path+"?fromDate="+day(-1)+"&toDate="+day(-5), nil), 400, "PERIOD_INVALID")
	rejects(t, b, tpp, "POST", "/v1/sandbox/accounts/enc!!AAAAAAAAAAAAAAAAAAAAAA/transactions", []any{tx(1, day(-1), day(-1), own, ext)}, 404, "RESOURCE_UNKNOWN")
	expect(t, b.Do(tpp, "DELETE", path, nil), 204, "")
	b.Do(tpp, "GET", path, nil).JSON(t, &list)
	if len(list) != 0 {
		t.Fatalf("%d transactions after delete all", len(list))
	}
}

func TestSandbox_CardAccounts(t *testing.T) {
	b, tpp := setup(t)
	body := map[string]any{
		"customerNumber": "12085592767", "maskedPan": "492500******1234", "currency": "NOK",
		"creditLimit": map[string]any{"amount": 20000, "currency": "NOK"}, "expiry": "2030-01",
		"name": "Visa", "product": "Visa Classic", "status": "ENABLED",
	}
	r := b.Do(tpp, "POST", "/v1/sandbox/card-accounts", body)
	expect(t, r, 201, "")
	var wrap struct {
		CardAccount struct {
			ResourceID  string `json:"resourceId"`
			MaskedPan   string `json:"maskedPan"`
			Status      string `json:"status"`
			CardID      string `json:"cardId"`
			CreditLimit amount `json:"creditLimit"`
		} `json:"cardAccount"`
	}
	r.JSON(t, &wrap)
	card := wrap.CardAccount
	if card.Status != "enabled" || card.CardID == "" || card.CreditLimit.Amount != 20000 {
		t.Fatalf("created %+v", card)
	}
	path := "/v1/sandbox/card-accounts/" + card.ResourceID
	expect(t, b.Do(tpp, "GET", path, nil), 200, "")
	expect(t, b.Do(tpp, "PUT", path+"/balances", []map[string]any{{"balanceType": "expected", "balanceAmount": map[string]any{"amount": -150, "currency": "NOK"}}}), 200, "")

	today := bank.DateOf(time.Now())
	ctx := func(id string, booking string) map[string]any {
		return map[string]any{
			"cardTransactionId": id, "terminalId": "T1", "bookingDate": booking, "transactionDate": today.AddDays(-3).String(),
			"transactionAmount": map[string]any{"amount": -115.5, "currency": "NOK"}, "originalAmount": map[string]any{"amount": -10, "currency": "EUR"},
			"merchantCategoryCode": "5411", "cardAcceptorId": "ACC1", "cardAcceptorAddress": map[string]any{"city": "Berlin", "country": "DE"},
			"maskedPan": "492500******1234", "transactionDetails": "Supermarkt", "invoiced": "false", "proprietaryBankTransactionCode": "PURCHASE",
			"currencyExchange": map[string]any{"sourceCurrency": "EUR", "targetCurrency": "NOK", "unitCurrency": "EUR", "exchangeRate": "11.55", "quotationDate": today.AddDays(-3).String()},
		}
	}
	r = b.Do(tpp, "POST", path+"/transactions", []any{ctx("CT1", today.AddDays(-2).String()), ctx("CT2", "")})
	expect(t, r, 201, "")
	var post struct {
		CardAccount      struct{ MaskedPan string } `json:"cardAccount"`
		CardTransactions struct {
			Booked []struct {
				CardTransactionID string `json:"cardTransactionId"`
				TransactionAmount amount `json:"transactionAmount"`
			} `json:"booked"`
			Pending []string `json:"pending"`
		} `json:"cardTransactions"`
	}
	r.JSON(t, &post)
	if post.CardAccount.MaskedPan != "492500******1234" || len(post.CardTransactions.Booked) != 1 || post.CardTransactions.Booked[0].TransactionAmount.Amount != -115.5 || len(post.CardTransactions.Pending) != 1 || post.CardTransactions.Pending[0] != "CT2" {
		t.Fatalf("post answer %s", r.Body)
	}
	var list struct {
		CardTransactions struct {
			Booked  []map[string]any `json:"booked"`
			Pending []map[string]any `json:"pending"`
		} `json:"cardTransactions"`
	}
	b.Do(tpp, "GET", path+"/transactions?bookingStatus=booked", nil).JSON(t, &list)
	if len(list.CardTransactions.Booked) != 1 || len(list.CardTransactions.Pending) != 0 || list.CardTransactions.Booked[0]["invoiced"] != "false" {
		t.Fatalf("booked only: %+v", list)
	}
	b.Do(tpp, "GET", path+"/transactions", nil).JSON(t, &list)
	if len(list.CardTransactions.Booked) != 1 || len(list.CardTransactions.Pending) != 1 {
		t.Fatalf("both: %+v", list)
	}
	rejects(t, b, tpp, "POST", path+"/transactions", []any{ctx("CT1", "")}, 409, "CONFLICT", "[0].cardTransactionId")
	badCtx := func(mod func(map[string]any)) []any {
		m := ctx("CT9", today.AddDays(-1).String())
		mod(m)
		return []any{m}
	}
	cases := []struct {
		name  string
		body  any
		code  string
		paths []string
	}{
		{"invoiced as bool", badCtx(func(m map[string]any) { m["invoiced"] = true }), "BAD_REQUEST", []string{"invoiced"}},
		{"invoiced word", badCtx(func(m map[string]any) { m["invoiced"] = "yes" }), "FORMAT_ERROR", []string{"[0].invoiced"}},
		{"future transaction date", badCtx(func(m map[string]any) { m["transactionDate"] = today.AddDays(2).String() }), "FORMAT_ERROR", []string{"[0].transactionDate"}},
		{"booked before made", badCtx(func(m map[string]any) { m["bookingDate"] = today.AddDays(-5).String() }), "FORMAT_ERROR", []string{"[0].bookingDate"}},
		{"wrong card currency", badCtx(func(m map[string]any) { m["transactionAmount"] = map[string]any{"amount": -1, "currency": "EUR"} }), "FORMAT_ERROR", []string{"[0].transactionAmount.currency"}},
		{"bad MCC", badCtx(func(m map[string]any) { m["merchantCategoryCode"] = "54" }), "FORMAT_ERROR", []string{"[0].merchantCategoryCode"}},
		{"no country", badCtx(func(m map[string]any) { m["cardAcceptorAddress"] = map[string]any{"city": "Oslo"} }), "FORMAT_ERROR", []string{"[0].cardAcceptorAddress.country"}},
		{"street too long", badCtx(func(m map[string]any) {
			m["cardAcceptorAddress"] = map[string]any{"street": strings.Repeat("s", 71), "country": "NO"}
		}), "FORMAT_ERROR", []string{"[0].cardAcceptorAddress.street"}},
		{"bad masked pan", badCtx(func(m map[string]any) { m["maskedPan"] = "4925001234561234" }), "FORMAT_ERROR", []string{"[0].maskedPan"}},
		{"missing terminal", badCtx(func(m map[string]any) { delete(m, "terminalId") }), "FORMAT_ERROR", []string{"[0].terminalId"}},
		{"bad exchange rate", badCtx(func(m map[string]any) { m["currencyExchange"].(map[string]any)["exchangeRate"] = "abc" }), "FORMAT_ERROR", []string{"[0].currencyExchange.exchangeRate"}},
		{"same id twice", []any{ctx("CT7", ""), ctx("CT7", "")}, "FORMAT_ERROR", []string{"[1].cardTransactionId"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rejects(t, b, tpp, "POST", path+"/transactions", c.body, 400, c.code, c.paths...)
		})
	}
	badCard := map[string]any{"customerNumber": "12085592767", "maskedPan": "1234", "currency": "NOK", "creditLimit": map[string]any{"amount": 1, "currency": "EUR"}, "expiry": "30-01", "name": "", "product": "P", "status": "lost"}
	rejects(t, b, tpp, "POST", "/v1/sandbox/card-accounts", badCard, 400, "FORMAT_ERROR", "maskedPan", "creditLimit.currency", "expiry", "name", "status")
	rejects(t, b, tpp, "GET", path+"/transactions?bookingStatus=later", nil, 400, "FORMAT_ERROR", "bookingStatus")

	expect(t, b.Do(tpp, "DELETE", path+"/transactions", nil), 204, "")
	b.Do(tpp, "GET", path+"/transactions", nil).JSON(t, &list)
	if len(list.CardTransactions.Booked)+len(list.CardTransactions.Pending) != 0 {
		t.Fatal("card transactions left after delete")
	}
	expect(t, b.Do(tpp, "DELETE", path, nil), 204, "")
	rejects(t, b, tpp, "GET", path, nil, 404, "RESOURCE_UNKNOWN")
}

func TestSandbox_AgreementsAndEngagements(t *testing.T) {
	b, tpp := setup(t)
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": "31129012345", "name": "Ola Regnskap", "type": "private"}), 201, "")
	engagement := func(psu, iban string, roles ...string) map[string]any {
		return map[string]any{"customer": psu, "account": map[string]string{"iban": iban}, "roles": roles, "registerLimit": 100000, "approvalLimit": 50000}
	}
	r := b.Do(tpp, "POST", "/v1/sandbox/agreements", map[string]any{
		"owner": "18129215603", "name": "Regnskapsfører",
		"engagements": []any{engagement("31129012345", "NO2815030345670", "VIEW", "REGISTER")},
	})
	expect(t, r, 201, "")
	var agr struct {
		ID          string   `json:"id"`
		Owner       string   `json:"owner"`
		Engagements []string `json:"engagements"`
	}
	r.JSON(t, &agr)
	if agr.Owner != "18129215603" || len(agr.Engagements) != 1 {
		t.Fatalf("created %s", r.Body)
	}
	path := "/v1/sandbox/agreements/" + agr.ID + "/engagements"
	r = b.Do(tpp, "POST", path, engagement("31129012345", "NO9715030345689", "VIEW"))
	expect(t, r, 201, "")
	var eng struct {
		ID            string   `json:"id"`
		Customer      string   `json:"customer"`
		Roles         []string `json:"roles"`
		RegisterLimit float64  `json:"registerLimit"`
	}
	r.JSON(t, &eng)
	if eng.Customer != "31129012345" || eng.RegisterLimit != 100000 || len(eng.Roles) != 1 {
		t.Fatalf("engagement %s", r.Body)
	}
	var list []map[string]any
	b.Do(tpp, "GET", path, nil).JSON(t, &list)
	if len(list) != 2 {
		t.Fatalf("%d engagements", len(list))
	}
	expect(t, b.Do(tpp, "GET", path+"/"+eng.ID, nil), 200, "")

	rejects(t, b, tpp, "POST", path, engagement("31129012345", "NO9715030345689", "VIEW"), 409, "CONFLICT")
	rejects(t, b, tpp, "POST", path, engagement("31129012345", "NO3815030123457", "VIEW"), 400, "FORMAT_ERROR", "account.iban")
	rejects(t, b, tpp, "POST", path, engagement("00000000", "NO2815030345670", "VIEW"), 400, "RESOURCE_UNKNOWN", "customer")
	rejects(t, b, tpp, "POST", path, engagement("31129012345", "NO9386011117947", "VIEW"), 400, "RESOURCE_UNKNOWN", "account.iban")
	rejects(t, b, tpp, "POST", path, engagement("31129012345", "NO2815030345670"), 400, "FORMAT_ERROR", "roles")
	rejects(t, b, tpp, "POST", path, engagement("31129012345", "NO2815030345670", "VIEW", "SIGN"), 400, "FORMAT_ERROR", "roles[1]")
	rejects(t, b, tpp, "POST", path, engagement("31129012345", "NO2815030345670", "VIEW", "VIEW"), 400, "FORMAT_ERROR", "roles[1]")
	neg := engagement("31129012345", "NO2815030345670", "VIEW")
	neg["approvalLimit"] = -1
	neg["registerLimit"] = "one hundred"
	rejects(t, b, tpp, "POST", path, neg, 400, "FORMAT_ERROR", "approvalLimit", "registerLimit")
	rejects(t, b, tpp, "POST", "/v1/sandbox/agreements", map[string]any{"owner": "13039319955", "name": "x"}, 400, "FORMAT_ERROR", "owner")
	rejects(t, b, tpp, "POST", "/v1/sandbox/agreements", map[string]any{"owner": "18129215603", "name": "x", "engagements": []any{engagement("31129012345", "NO2015030456782", "VIEW")}}, 400, "FORMAT_ERROR", "engagements[0].account.iban")

	expect(t, b.Do(tpp, "DELETE", path+"/"+eng.ID, nil), 204, "")
	rejects(t, b, tpp, "GET", path+"/"+eng.ID, nil, 404, "RESOURCE_UNKNOWN")
	expect(t, b.Do(tpp, "DELETE", "/v1/sandbox/agreements/"+agr.ID, nil), 204, "")
	rejects(t, b, tpp, "GET", "/v1/sandbox/agreements/"+agr.ID, nil, 404, "RESOURCE_UNKNOWN")
	rejects(t, b, tpp, "GET", path, nil, 404, "RESOURCE_UNKNOWN")

	// Deleting an account removes the engagements on it.
	var agreements []struct {
		ID          string   `json:"id"`
		Owner       string   `json:"owner"`
		Engagements []string `json:"engagements"`
	}
	b.Do(tpp, "GET", "/v1/sandbox/agreements", nil).JSON(t, &agreements)
	if len(agreements) != 5 {
		t.Fatalf("%d agreements, want 3 private and 2 corporate", len(agreements))
	}
	acct := knownAccount(t, b, tpp, "NO9515030456790")
	expect(t, b.Do(tpp, "DELETE", "/v1/sandbox/accounts/"+acct.ID, nil), 204, "")
	for _, a := range agreements {
		if a.Owner == "20079518612" {
			var got []map[string]any
			b.Do(tpp, "GET", "/v1/sandbox/agreements/"+a.ID+"/engagements", nil).JSON(t, &got)
			if len(got) != 1 {
				t.Fatalf("%d engagements left after deleting one of two accounts", len(got))
			}
		}
	}
}

func TestSandbox_TPPContact(t *testing.T) {
	b, tpp := setup(t)
	path := "/v1/tpps/" + tpp.ID + "/contact-information"
	rejects(t, b, tpp, "GET", path, nil, 404, "RESOURCE_UNKNOWN")
	r := b.Do(tpp, "PUT", path, map[string]string{"email": "psd2-drift@example.com"})
	expect(t, r, 200, "")
	if strings.TrimSpace(string(r.Body)) != `{"email":"psd2-drift@example.com"}` {
		t.Fatalf("put answered %s", r.Body)
	}
	expect(t, b.Do(tpp, "PUT", path, map[string]string{"email": "ops@example.com"}), 200, "")
	var c struct{ Email string }
	b.Do(tpp, "GET", path, nil).JSON(t, &c)
	if c.Email != "ops@example.com" {
		t.Fatalf("PUT does not replace: %+v", c)
	}
	for _, bad := range []string{"", "not-an-address", "Ops <ops@example.com>", "a@b@c"} {
		rejects(t, b, tpp, "PUT", path, map[string]string{"email": bad}, 400, "FORMAT_ERROR", "email")
	}
	other := b.NewTPP("987654321", 1, pki.RoleAI)
	rejects(t, b, other, "GET", path, nil, 403, "FORBIDDEN")
	rejects(t, b, other, "PUT", path, map[string]string{"email": "x@example.com"}, 403, "FORBIDDEN")
}

func TestSandbox_BankCertificate(t *testing.T) {
	b, tpp := setup(t)
	r := b.Do(tpp, "GET", "/v1/sandbox/bank-certificate", nil)
	expect(t, r, 200, "")
	cert, err := pki.DecodeCert(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !cert.Equal(b.BankCert.Cert) || r.Header.Get("Content-Type") != "application/x-pem-file" {
		t.Fatalf("bank certificate %s / %s", cert.Subject, r.Header.Get("Content-Type"))
	}
	r = b.Do(tpp, "GET", "/v1/sandbox/ca-certificate", nil)
	expect(t, r, 200, "")
	if ca, err := pki.DecodeCert(r.Body); err != nil || !ca.IsCA {
		t.Fatalf("CA certificate: %v", err)
	}
}

func TestSandbox_Scenario(t *testing.T) {
	b, tpp := setup(t)
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": "777", "name": "Extra", "type": "corporate"}), 201, "")
	r := b.Do(b.Operator(), "GET", "/v1/sandbox/scenario?note=support+case+42", nil)
	expect(t, r, 200, "")
	exported := r.Body
	var sc scenario.Scenario
	r.JSON(t, &sc)
	if sc.Format != scenario.Format || sc.Note != "support case 42" || len(sc.Customers) != 5 || len(sc.Accounts) != 8 || len(sc.Agreements) != 2 {
		t.Fatalf("export: %d customers %d accounts %d agreements", len(sc.Customers), len(sc.Accounts), len(sc.Agreements))
	}
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/initialize", nil), 200, "")
	r = b.Do(b.Operator(), "PUT", "/v1/sandbox/scenario", exported)
	expect(t, r, 200, "")
	var n scenario.Counts
	r.JSON(t, &n)
	if n.Customers != 5 || n.Accounts != 8 || n.Engagements != 4 || n.Transactions == 0 {
		t.Fatalf("import counts %+v", n)
	}
	// The second export is the first, but for the sandbox time it was
	// made at and the clock's offset from the real clock.
	again := b.Do(b.Operator(), "GET", "/v1/sandbox/scenario?note=support+case+42", nil)
	if withoutNow(again.Body) != withoutNow(exported) {
		a, b := withoutNow(exported), withoutNow(again.Body)
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		t.Fatalf("export after import differs from the export before at byte %d:\n%s\n%s", i, a[max(0, i-200):min(len(a), i+100)], b[max(0, i-200):min(len(b), i+100)])
	}
	// A bad record rolls the whole import back.
	sc.Accounts[3].IBAN = "NO0000000000000"
	rejects(t, b, b.Operator(), "PUT", "/v1/sandbox/scenario", sc, 400, "FORMAT_ERROR", "accounts[3].iban")
	sc.Format = "something/2"
	rejects(t, b, b.Operator(), "PUT", "/v1/sandbox/scenario", sc, 400, "FORMAT_ERROR", "format")
}

// withoutNow is an exported scenario without the sandbox time of its
// export (clock.now) and the clock's offset from the real clock, which
// an import sets so that the sandbox time is the export's again.
func withoutNow(export []byte) string {
	s := regexp.MustCompile(`"clock":\{"now":"[^"]*"`).ReplaceAllString(string(export), `"clock":{"now":""`)
	return regexp.MustCompile(`"clockOffsetSeconds":-?[0-9]+`).ReplaceAllString(s, `"clockOffsetSeconds":0`)
}

// A scenario the bank exports imports back even when it is over the 1 MiB
// limit of other bodies.
func TestSandbox_LargeScenarioRoundTrip(t *testing.T) {
	b, tpp := setup(t)
	a := knownAccount(t, b, tpp, "NO3015030234569")
	day := bank.DateOf(time.Now()).AddDays(-7).String()
	batch := make([]any, 100)
	for i := range batch {
		batch[i] = tx(float64(i+1), day, day, map[string]string{"iban": a.IBAN}, map[string]string{"bban": "86011117947"})
	}
	for range 30 {
		expect(t, b.Do(tpp, "POST", "/v1/sandbox/accounts/"+a.ID+"/transactions", batch), 201, "")
	}
	r := b.Do(b.Operator(), "GET", "/v1/sandbox/scenario", nil)
	expect(t, r, 200, "")
	if len(r.Body) <= 1<<20 {
		t.Fatalf("the export is only %d bytes; the test needs one over 1 MiB", len(r.Body))
	}
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/initialize", nil), 200, "")
	imported := b.Do(b.Operator(), "PUT", "/v1/sandbox/scenario", r.Body)
	expect(t, imported, 200, "")
	var n scenario.Counts
	imported.JSON(t, &n)
	if n.Transactions < 3000 {
		t.Fatalf("imported %d transactions", n.Transactions)
	}
	// Other bodies keep the 1 MiB limit.
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/accounts/"+a.ID+"/transactions", r.Body), 413, "BAD_REQUEST")
}

func TestSandbox_PathAliases(t *testing.T) {
	b, tpp := setup(t)
	for _, prefix := range []string{"/v1", "/api/v1", "/api-sandbox/v1"} {
		var list []customer
		r := b.Do(tpp, "GET", prefix+"/sandbox/customers", nil)
		expect(t, r, 200, "")
		r.JSON(t, &list)
		if len(list) != 4 {
			t.Errorf("%s: %d customers", prefix, len(list))
		}
	}
	expect(t, b.Do(tpp, "GET", "/api/v2/sandbox/customers", nil), 404, "NOT_FOUND")
}

func TestSandbox_Healthz(t *testing.T) {
	b, _ := setup(t)
	r := b.Send(b.Request("GET", "/healthz", nil))
	if r.Status != 200 || !strings.Contains(string(r.Body), "ok") {
		t.Fatalf("healthz %d %s", r.Status, r.Body)
	}
}

func TestSandbox_ManyIDsAreDistinct(t *testing.T) {
	b, tpp := setup(t)
	seen := map[string]bool{}
	for i := range 20 {
		r := b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": fmt.Sprint(900 + i), "name": "C", "type": "private"})
		var c customer
		r.JSON(t, &c)
		if seen[c.CustomerID] {
			t.Fatalf("id %s issued twice", c.CustomerID)
		}
		seen[c.CustomerID] = true
		if i%2 == 0 {
			expect(t, b.Do(tpp, "DELETE", "/v1/sandbox/customers/"+c.CustomerID, nil), http.StatusNoContent, "")
		}
	}
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/initialize", nil), 200, "")
	r := b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": "5", "name": "C", "type": "private"})
	var c customer
	r.JSON(t, &c)
	if seen[c.CustomerID] {
		t.Fatalf("id %s reused after initialize", c.CustomerID)
	}
}

// Sandbox data as test tools send it (docs/TPP-GUIDE.md 9): each oddity is taken
// with a WARNING, in the answer's tppMessages where the answer is an
// object and always in the request log, and strict mode refuses it and
// stores nothing.

// Account numbers of seeding tools: the IBANs pass mod 97 and hold their
// BBAN, and the BBANs fail MOD11 (check digit 4, expected 3; 0, expected
// 9).
const (
	oddBBAN  = "12345678904"
	oddIBAN  = "NO4412345678904"
	oddBBAN2 = "15030999990"
	oddIBAN2 = "NO9515030999990"
)

// loggedNotes returns the client notes of the request log's entry for an
// answered request; the log has it as the answer is sent, or just after.
func loggedNotes(t *testing.T, b *apptest.Bank, r apptest.Response) []apierr.Message {
	t.Helper()
	return b.Logged(r.Header.Get("X-Request-ID")).Notes
}

// answerMessages returns the tppMessages of an object answer; nil for an
// array.
func answerMessages(t *testing.T, r apptest.Response) []apierr.Message {
	t.Helper()
	if !bytes.HasPrefix(bytes.TrimSpace(r.Body), []byte("{")) {
		return nil
	}
	var body struct {
		TPPMessages []apierr.Message `json:"tppMessages"`
	}
	r.JSON(t, &body)
	return body.TPPMessages
}

// hasWarning reports whether msgs hold a WARNING at path whose text has
// every one of texts.
func hasWarning(msgs []apierr.Message, path string, texts ...string) bool {
	return slices.ContainsFunc(msgs, func(m apierr.Message) bool {
		if m.Category != "WARNING" || m.Code != "WARNING" || m.Path != path {
			return false
		}
		for _, text := range texts {
			if !strings.Contains(m.Text, text) {
				return false
			}
		}
		return true
	})
}

// warned checks that an accepted request was noted with a WARNING at path
// saying texts: in the request log, and in the answer's tppMessages when
// the answer is an object.
func warned(t *testing.T, b *apptest.Bank, r apptest.Response, path string, texts ...string) {
	t.Helper()
	if notes := loggedNotes(t, b, r); !hasWarning(notes, path, texts...) {
		t.Errorf("the request log has no WARNING at %s saying %q: %+v", path, texts, notes)
	}
	if bytes.HasPrefix(bytes.TrimSpace(r.Body), []byte("{")) {
		if msgs := answerMessages(t, r); !hasWarning(msgs, path, texts...) {
			t.Errorf("the answer has no WARNING at %s saying %q: %s", path, texts, r.Body)
		}
	}
}

// notWarned checks that an accepted request was noted with nothing.
func notWarned(t *testing.T, b *apptest.Bank, r apptest.Response) {
	t.Helper()
	if notes := loggedNotes(t, b, r); len(notes) > 0 {
		t.Errorf("the request log notes %+v", notes)
	}
	if msgs := answerMessages(t, r); len(msgs) > 0 {
		t.Errorf("the answer warns: %s", r.Body)
	}
}

// setStrict turns strict mode on or off.

// refusedInStrictMode checks that strict mode refuses a request with 400
// and code, naming each of paths with the oddity's text and what strict
// mode does, and that the data file does not change.
func refusedInStrictMode(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, method, path string, body any, code string, paths ...string) {
	t.Helper()
	setStrict(t, b, true)
	defer setStrict(t, b, false)
	e := rejects(t, b, tpp, method, path, body, 400, code, paths...)
	for _, p := range paths {
		if text := textAt(e, p); !strings.Contains(text, "strict mode refuses") {
			t.Errorf("strict mode's finding at %s says %q", p, text)
		}
	}
}

// textAt returns the text of an error's tppMessage at path.
func textAt(e apptest.ErrorBody, path string) string {
	for _, m := range e.TPPMessages {
		if m.Path == path {
			return m.Text
		}
	}
	return ""
}

// cardAccount is the body of a card account of Test Testperson 2, with
// fields set as with sets them.
func cardAccount(kv ...any) map[string]any {
	return with(map[string]any{
		"customerNumber": t2Number, "maskedPan": "492500******7777", "currency": "NOK",
		"creditLimit": map[string]any{"amount": 20000, "currency": "NOK"}, "expiry": "2030-01", "name": "Visa", "product": "Visa",
	}, kv...)
}

// balanceOf is a balance item in NOK with further fields, name and value.
func balanceOf(typ string, amount float64, more ...string) map[string]any {
	m := map[string]any{"balanceType": typ, "balanceAmount": map[string]any{"amount": amount, "currency": "NOK"}}
	for i := 0; i+1 < len(more); i += 2 {
		m[more[i]] = more[i+1]
	}
	return m
}

// An account whose BBAN fails MOD11 is stored with a warning that payments
// refuse it; payments do, as debtor and as creditor. The IBAN's mod 97
// and its match with the BBAN stay rules.
func TestTolerance_AccountWhoseBBANFailsMOD11(t *testing.T) {
	b, tpp := setup(t)
	body := map[string]any{
		"customerNumber": t1Number, "accountName": "Seeded account", "bban": oddBBAN, "iban": oddIBAN,
		"currency": "NOK", "product": "Brukskonto", "cashAccountType": "CACC", "creditLine": 0,
		"balances": []any{balanceOf("closingBooked", 5000)},
	}
	refusedInStrictMode(t, b, tpp, "POST", "/v1/sandbox/accounts", body, "FORMAT_ERROR", "bban")
	r := b.Do(tpp, "POST", "/v1/sandbox/accounts", body)
	expect(t, r, 201, "")
	warned(t, b, r, "bban", "check digit is 4, expected 3 (MOD11)", "payments to or from this account are refused")
	var a account
	r.JSON(t, &a)
	if a.BBAN != oddBBAN || a.IBAN != oddIBAN {
		t.Fatalf("stored %+v", a)
	}

	// The IBAN alone: the warning names it and the BBAN it holds.
	only := map[string]any{
		"customerNumber": t1Number, "accountName": "Seeded by IBAN", "iban": oddIBAN2,
		"currency": "NOK", "product": "Sparekonto", "cashAccountType": "SVGS", "creditLine": 0, "balances": []any{},
	}
	r = b.Do(tpp, "POST", "/v1/sandbox/accounts", only)
	expect(t, r, 201, "")
	warned(t, b, r, "iban", "holds BBAN "+oddBBAN2, "check digit is 0, expected 9 (MOD11)")
	var a2 account
	r.JSON(t, &a2)
	if a2.BBAN != oddBBAN2 {
		t.Fatalf("bban %q taken from %s", a2.BBAN, oddIBAN2)
	}

	// Still refused: a bad IBAN check, and an IBAN that holds another BBAN.
	badIBAN := with(body, "iban", "NO4512345678904")
	rejects(t, b, tpp, "POST", "/v1/sandbox/accounts", badIBAN, 400, "FORMAT_ERROR", "iban")
	mismatch := with(body, "iban", "NO9386011117947")
	rejects(t, b, tpp, "POST", "/v1/sandbox/accounts", mismatch, 400, "FORMAT_ERROR", "bban")

	// Posting to it: its own numbers are not noted again; another account
	// failing MOD11 is.
	yesterday := bank.DateOf(time.Now()).AddDays(-1).String()
	r = b.Do(tpp, "POST", "/v1/sandbox/accounts/"+a.ID+"/transactions", []any{tx(-20, yesterday, yesterday, map[string]string{"iban": oddIBAN}, map[string]string{"bban": "15030999993"})})
	expect(t, r, 201, "")
	warned(t, b, r, "[0].creditorAccount.bban", "check digit is 3, expected 9 (MOD11)")
	if notes := loggedNotes(t, b, r); len(notes) != 1 {
		t.Errorf("notes %+v, want only the creditor's", notes)
	}

	// Payments refuse it, from it and to it.
	onBankingMorning(t, b)
	for _, c := range []struct {
		body map[string]any
		path string
	}{
		{ndct("10", oddIBAN, ibanT2Bruk), "debtorAccount.iban"},
		{ndct("10", ibanT1Bruk, oddIBAN), "creditorAccount.iban"},
		{with(ndct("10", ibanT1Bruk, ibanT2Bruk), "creditorAccount", map[string]string{"bban": oddBBAN}), "creditorAccount.bban"},
	} {
		e := rejectsWith(t, b, tpp, "POST", ndctPath, c.body, payHeaders, 400, "FORMAT_ERROR", c.path)
		if text := textAt(e, c.path); !strings.Contains(text, "check digit is 4, expected 3") {
			t.Errorf("%s: %q does not name the check digit", c.path, text)
		}
	}
}

// A scenario from a seeding tool is imported with the same tolerance,
// each warning naming its record.
func TestTolerance_ScenarioImport(t *testing.T) {
	b, tpp := setup(t)
	yesterday := bank.DateOf(time.Now()).AddDays(-1).String()
	purchase := tx(-50, yesterday, yesterday, map[string]string{"iban": oddIBAN2}, map[string]string{"bban": "15031234562"})
	purchase["purposeCode"] = "sala"
	sc := map[string]any{
		"format": "sandbank-scenario/1",
		"customers": []any{
			map[string]any{"customerNumber": "01017012345", "name": "Seed Person", "type": "private"},
			map[string]any{"customerNumber": "99887766", "name": "Seed AS", "type": "corporate"},
		},
		"accounts": []any{
			map[string]any{
				"customerNumber": "01017012345", "accountName": "Seeded", "iban": oddIBAN2, "currency": "NOK",
				"product": "Brukskonto", "cashAccountType": "CACC", "creditLine": 0, "balances": []any{}, "transactions": []any{purchase},
			},
			map[string]any{
				"customerNumber": "99887766", "accountName": "Drift", "bban": "86011117947", "currency": "NOK",
				"product": "Driftskonto", "cashAccountType": "CACC", "creditLine": 0, "balances": []any{},
			},
		},
		"cardAccounts": []any{map[string]any{
			"customerNumber": "01017012345", "maskedPan": "525412xxxxxx9999", "currency": "NOK",
			"creditLimit": map[string]any{"amount": 10000, "currency": "NOK"}, "expiry": "2029-08-31", "name": "Mastercard", "product": "Mastercard",
		}},
		"agreements": []any{map[string]any{
			"owner": "99887766", "name": "Seed avtale",
			"engagements": []any{map[string]any{"customer": "01017012345", "account": map[string]string{"iban": "NO9386011117947"}, "roles": []string{"VIEW", "REGISTER"}}},
		}},
	}
	odd := []string{
		"accounts[0].iban", "accounts[0].transactions[0].purposeCode", "cardAccounts[0].maskedPan", "cardAccounts[0].expiry",
		"agreements[0].engagements[0].registerLimit", "agreements[0].engagements[0].approvalLimit",
	}
	// Strict mode refuses the first record that has an oddity.
	refusedInStrictMode(t, b, b.Operator(), "PUT", "/v1/sandbox/scenario", sc, "FORMAT_ERROR", odd[0])
	r := b.Do(b.Operator(), "PUT", "/v1/sandbox/scenario", sc)
	expect(t, r, 200, "")
	for _, p := range odd {
		warned(t, b, r, p)
	}
	var accounts []account
	b.Do(tpp, "GET", "/v1/sandbox/accounts", nil).JSON(t, &accounts)
	if len(accounts) != 2 || accounts[0].BBAN != oddBBAN2 {
		t.Fatalf("accounts %+v", accounts)
	}
	r = b.Do(tpp, "GET", "/v1/sandbox/accounts/"+accounts[0].ID+"/transactions", nil)
	if !strings.Contains(string(r.Body), `"purposeCode":"SALA"`) {
		t.Fatalf("transactions %s", r.Body)
	}
}

// The Berlin Group fields of a card account's balances are kept and shown,
// by the sandbox API and by the PSD2 balances. They are not odd: strict
// mode takes them too.
func TestTolerance_CardBalanceFields(t *testing.T) {
	b, tpp := setup(t)
	setStrict(t, b, true)
	card := cardAccount("balances", []any{balanceOf("closingBooked", -250, "referenceDate", "2026-01-31", "lastChangeDateTime", "2026-01-31T23:59:00+01:00", "lastCommittedTransaction", "CT-991")})
	r := b.Do(tpp, "POST", "/v1/sandbox/card-accounts", card)
	expect(t, r, 201, "")
	notWarned(t, b, r)
	// A date-time without an offset is not one.
	rejects(t, b, tpp, "PUT", "/v1/sandbox/card-accounts/"+t1Card+"/balances", []any{balanceOf("expected", 1, "lastChangeDateTime", "2026-02-01 08:00")}, 400, "FORMAT_ERROR", "[0].lastChangeDateTime")
	type balance struct {
		BalanceType              string `json:"balanceType"`
		ReferenceDate            string `json:"referenceDate"`
		LastChangeDateTime       string `json:"lastChangeDateTime"`
		LastCommittedTransaction string `json:"lastCommittedTransaction"`
	}
	var created struct {
		CardAccount struct {
			ResourceID string    `json:"resourceId"`
			Balances   []balance `json:"balances"`
		} `json:"cardAccount"`
	}
	r.JSON(t, &created)
	want := []balance{{"closingBooked", "2026-01-31", "2026-01-31T23:59:00+01:00", "CT-991"}, {BalanceType: "expected"}}
	if !slices.Equal(created.CardAccount.Balances, want) {
		t.Fatalf("balances %+v, want %+v", created.CardAccount.Balances, want)
	}

	// PUT replaces a balance with what it is given with; the PSD2 API shows it.
	path := "/v1/sandbox/card-accounts/" + t1Card
	r = b.Do(tpp, "PUT", path+"/balances", []any{balanceOf("expected", -1200, "referenceDate", "2026-02-01", "lastChangeDateTime", "2026-02-01T08:00:00Z", "lastCommittedTransaction", "CT-1002")})
	expect(t, r, 200, "")
	notWarned(t, b, r)
	setStrict(t, b, false)
	if !strings.Contains(string(r.Body), `"balanceType":"expected","referenceDate":"2026-02-01","lastChangeDateTime":"2026-02-01T08:00:00Z","lastCommittedTransaction":"CT-1002"`) {
		t.Fatalf("PUT answered %s", r.Body)
	}
	user := psuOf(b.Consent(tpp, t1Number, "", []string{t1Card}))
	var psd2 struct {
		Balances []balance `json:"balances"`
	}
	r = get(b, tpp, user, "/v1/card-accounts/"+t1Card+"/balances")
	expect(t, r, 200, "")
	r.JSON(t, &psd2)
	if i := slices.IndexFunc(psd2.Balances, func(x balance) bool { return x.BalanceType == "expected" }); i < 0 || psd2.Balances[i] != (balance{"expected", "2026-02-01", "2026-02-01T08:00:00Z", "CT-1002"}) {
		t.Fatalf("PSD2 balances %s", r.Body)
	}
	r = get(b, tpp, user, "/v1/card-accounts/"+t1Card+"?withBalance=true")
	if expect(t, r, 200, ""); !strings.Contains(string(r.Body), `"lastCommittedTransaction":"CT-1002"`) {
		t.Fatalf("withBalance %s", r.Body)
	}
}

// A card number masked with x or X is kept as given, with a warning.
func TestTolerance_CardMaskedPanWithX(t *testing.T) {
	b, tpp := setup(t)
	createsOddCard(t, b, tpp, "maskedPan", "525412xxxxxx3242", "masked with x", "'*'")
	rejects(t, b, tpp, "POST", "/v1/sandbox/card-accounts", cardAccount("maskedPan", "525412------3242"), 400, "FORMAT_ERROR", "maskedPan")

	path := "/v1/sandbox/card-accounts/" + t1Card + "/transactions"
	item := cardTx("X-1")
	item["maskedPan"] = "525412XXXXXX3241"
	refusedInStrictMode(t, b, tpp, "POST", path, []any{item}, "FORMAT_ERROR", "[0].maskedPan")
	r := b.Do(tpp, "POST", path, []any{item})
	expect(t, r, 201, "")
	warned(t, b, r, "[0].maskedPan", "masked with X")
	if r = b.Do(tpp, "GET", path, nil); !strings.Contains(string(r.Body), `"maskedPan":"525412XXXXXX3241"`) {
		t.Fatalf("card transactions %s", r.Body)
	}
}

// createsOddCard checks that a card account with an odd value of field is
// refused in strict mode, and else created with the value as given and a
// warning at the field that says texts.
func createsOddCard(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, field, value string, texts ...string) {
	t.Helper()
	card := cardAccount(field, value)
	refusedInStrictMode(t, b, tpp, "POST", "/v1/sandbox/card-accounts", card, "FORMAT_ERROR", field)
	r := b.Do(tpp, "POST", "/v1/sandbox/card-accounts", card)
	expect(t, r, 201, "")
	warned(t, b, r, field, texts...)
	if !strings.Contains(string(r.Body), `"`+field+`":"`+value+`"`) {
		t.Fatalf("created %s", r.Body)
	}
}

// cardTx is a booked card transaction of the T1 card, yesterday.
func cardTx(id string) map[string]any {
	yesterday := bank.DateOf(time.Now()).AddDays(-1).String()
	return map[string]any{
		"cardTransactionId": id, "terminalId": "T1", "bookingDate": yesterday, "transactionDate": yesterday,
		"transactionAmount": map[string]any{"amount": -1155, "currency": "NOK"}, "originalAmount": map[string]any{"amount": -100, "currency": "EUR"},
		"merchantCategoryCode": "5411", "cardAcceptorId": "ACC1", "cardAcceptorAddress": map[string]any{"city": "Berlin", "country": "DE"},
		"maskedPan": "525412******3241", "transactionDetails": "Supermarkt", "invoiced": "false", "proprietaryBankTransactionCode": "PURCHASE",
	}
}

// An expiry given as a date is kept as given, with a warning.
func TestTolerance_CardExpiryAsDate(t *testing.T) {
	b, tpp := setup(t)
	createsOddCard(t, b, tpp, "expiry", "2029-08-31", "YYYY-MM (e.g. 2029-08)")
	rejects(t, b, tpp, "POST", "/v1/sandbox/card-accounts", cardAccount("expiry", "2029-02-30"), 400, "FORMAT_ERROR", "expiry")
}

// A balance type given twice: the last one wins, with a warning, for
// accounts and card accounts.
func TestTolerance_BalanceTypeGivenTwice(t *testing.T) {
	b, tpp := setup(t)
	twice := []any{balanceOf("closingBooked", 100), balanceOf("CLOSING_BOOKED", 200)}
	path := "/v1/sandbox/accounts/" + t1Brukskonto + "/balances"
	refusedInStrictMode(t, b, tpp, "PUT", path, twice, "FORMAT_ERROR", "[1].balanceType")
	r := b.Do(tpp, "PUT", path, twice)
	expect(t, r, 200, "")
	warned(t, b, r, "[1].balanceType", "closingBooked is given twice", "takes the last one")
	var a account
	if r.JSON(t, &a); a.balance("closingBooked") != 200 {
		t.Fatalf("balances %+v", a.Balances)
	}

	card := cardAccount("balances", []any{balanceOf("expected", -10), balanceOf("expected", -20)})
	refusedInStrictMode(t, b, tpp, "POST", "/v1/sandbox/card-accounts", card, "FORMAT_ERROR", "balances[1].balanceType")
	r = b.Do(tpp, "POST", "/v1/sandbox/card-accounts", card)
	expect(t, r, 201, "")
	warned(t, b, r, "balances[1].balanceType", "expected is given twice")
	if !strings.Contains(string(r.Body), `{"balanceAmount":{"currency":"NOK","amount":-20},"balanceType":"expected"}`) {
		t.Fatalf("created %s", r.Body)
	}
}

// markupFee and markupFeePercentage beside currencyExchange, where Berlin
// Group puts them, are kept inside it, where the sandbox API has them;
// the PSD2 API shows them beside it as before.
func TestTolerance_MarkupFeeBesideCurrencyExchange(t *testing.T) {
	b, tpp := setup(t)
	path := "/v1/sandbox/card-accounts/" + t1Card + "/transactions"
	exchange := func() map[string]any {
		return map[string]any{"sourceCurrency": "EUR", "targetCurrency": "NOK", "unitCurrency": "EUR", "exchangeRate": "11.55", "quotationDate": bank.DateOf(time.Now()).AddDays(-1).String()}
	}
	beside := cardTx("FX-B")
	beside["currencyExchange"] = exchange()
	beside["markupFee"] = map[string]any{"amount": 23.5, "currency": "NOK"}
	beside["markupFeePercentage"] = "1.75"
	refusedInStrictMode(t, b, tpp, "POST", path, []any{beside}, "FORMAT_ERROR", "[0].markupFee", "[0].markupFeePercentage")
	r := b.Do(tpp, "POST", path, []any{beside})
	expect(t, r, 201, "")
	warned(t, b, r, "[0].markupFee", "currencyExchange.markupFee")
	warned(t, b, r, "[0].markupFeePercentage", "currencyExchange.markupFeePercentage")

	inside := cardTx("FX-I")
	inside["currencyExchange"] = exchange()
	inside["currencyExchange"].(map[string]any)["markupFee"] = map[string]any{"amount": 23.5, "currency": "NOK"}
	inside["currencyExchange"].(map[string]any)["markupFeePercentage"] = "1.75"
	r = b.Do(tpp, "POST", path, []any{inside})
	expect(t, r, 201, "")
	// Inside currencyExchange the fee is where the sandbox API has it: the
	// one note is that its amount has a fraction where the spec says int32.
	if notes := loggedNotes(t, b, r); len(notes) != 1 {
		t.Errorf("the request log notes %+v, want only the int32 fraction", notes)
	}
	warned(t, b, r, "[0].currencyExchange.markupFee.amount", "where the spec types the field as int32")

	// Both stored one way: the sandbox API shows them inside
	// currencyExchange, the PSD2 API beside it.
	r = b.Do(tpp, "GET", path, nil)
	const sandboxForm = `"markupFee":{"currency":"NOK","amount":23.5},"markupFeePercentage":"1.75"}`
	if strings.Count(string(r.Body), sandboxForm) != 2 {
		t.Fatalf("sandbox card transactions %s", r.Body)
	}
	user := psuOf(b.Consent(tpp, t1Number, "", []string{t1Card}))
	r = get(b, tpp, user, "/v1/card-accounts/"+t1Card+"/transactions")
	if expect(t, r, 200, ""); strings.Count(string(r.Body), `"markupFee":{"amount":"23.50","currency":"NOK"},"markupFeePercentage":"1.75"`) != 2 {
		t.Fatalf("PSD2 card transactions %s", r.Body)
	}

	// The same fee in both places is one fee; two fees, or a fee without
	// an exchange, are refused.
	same := cardTx("FX-S")
	same["currencyExchange"] = inside["currencyExchange"]
	same["markupFeePercentage"] = "1.750"
	r = b.Do(tpp, "POST", path, []any{same})
	expect(t, r, 201, "")
	warned(t, b, r, "[0].markupFeePercentage")
	differ := cardTx("FX-D")
	differ["currencyExchange"] = inside["currencyExchange"]
	differ["markupFee"] = map[string]any{"amount": 20, "currency": "NOK"}
	rejects(t, b, tpp, "POST", path, []any{differ}, 400, "FORMAT_ERROR", "[0].markupFee")
	alone := cardTx("FX-A")
	alone["markupFee"] = map[string]any{"amount": 20, "currency": "NOK"}
	rejects(t, b, tpp, "POST", path, []any{alone}, 400, "FORMAT_ERROR", "[0].currencyExchange")
}

// purposeCode in any case is kept in upper case, with a warning.
func TestTolerance_PurposeCodeInAnyCase(t *testing.T) {
	b, tpp := setup(t)
	yesterday := bank.DateOf(time.Now()).AddDays(-1).String()
	path := "/v1/sandbox/accounts/" + t1Brukskonto + "/transactions"
	item := tx(-99, yesterday, yesterday, map[string]string{"iban": ibanT1Bruk}, map[string]string{"bban": "86011117947"})
	item["purposeCode"] = "Sala"
	refusedInStrictMode(t, b, tpp, "POST", path, []any{item}, "FORMAT_ERROR", "[0].purposeCode")
	r := b.Do(tpp, "POST", path, []any{item})
	expect(t, r, 201, "")
	warned(t, b, r, "[0].purposeCode", `"Sala" is in lower case`, "SALA")
	var posted []struct {
		ID          string `json:"id"`
		PurposeCode string `json:"purposeCode"`
	}
	if r.JSON(t, &posted); len(posted) != 1 || posted[0].PurposeCode != "SALA" {
		t.Fatalf("posted %s", r.Body)
	}
	if r = b.Do(tpp, "GET", path+"/"+posted[0].ID, nil); !strings.Contains(string(r.Body), `"purposeCode":"SALA"`) {
		t.Fatalf("stored %s", r.Body)
	}
}

// Engagement limits left out are 0, with a warning that says what 0 does.
func TestTolerance_EngagementLimitsLeftOut(t *testing.T) {
	b, tpp := setup(t)
	engagement := map[string]any{"customer": t1Number, "account": map[string]string{"iban": ibanF1Drift}, "roles": []string{"VIEW", "REGISTER", "APPROVE"}}
	path := "/v1/sandbox/agreements/" + f1Agreement + "/engagements"
	refusedInStrictMode(t, b, tpp, "POST", path, engagement, "FORMAT_ERROR", "registerLimit", "approvalLimit")
	r := b.Do(tpp, "POST", path, engagement)
	expect(t, r, 201, "")
	warned(t, b, r, "registerLimit", "the bank takes 0", "register no payment")
	warned(t, b, r, "approvalLimit", "the bank takes 0", "approve no payment")
	var e struct {
		RegisterLimit *float64 `json:"registerLimit"`
		ApprovalLimit *float64 `json:"approvalLimit"`
	}
	if r.JSON(t, &e); e.RegisterLimit == nil || *e.RegisterLimit != 0 || e.ApprovalLimit == nil || *e.ApprovalLimit != 0 {
		t.Fatalf("engagement %s", r.Body)
	}

	agreement := map[string]any{"owner": f1Number, "name": "Regnskap", "engagements": []any{
		map[string]any{"customer": t2Number, "account": map[string]string{"iban": ibanF1Drift}, "roles": []string{"VIEW"}, "approvalLimit": 0},
	}}
	refusedInStrictMode(t, b, tpp, "POST", "/v1/sandbox/agreements", agreement, "FORMAT_ERROR", "engagements[0].registerLimit")
	r = b.Do(tpp, "POST", "/v1/sandbox/agreements", agreement)
	expect(t, r, 201, "")
	warned(t, b, r, "engagements[0].registerLimit", "the bank takes 0")
	if notes := loggedNotes(t, b, r); len(notes) != 1 {
		t.Errorf("notes %+v, want only registerLimit's", notes)
	}
}
