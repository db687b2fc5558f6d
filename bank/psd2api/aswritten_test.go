package psd2api_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"sandbank/bank"
)

// A seeding tool writes the sandbox data API's enumerations in the case it
// chooses: the customer type, the cash account type and the engagement
// roles, which the seed spells in capitals, are matched without regard to
// case and read back as they were written, by the sandbox data API and a
// scenario export. The rules that depend on them hold whatever the case:
// a private customer's agreement, agreements only for corporate
// customers, the roles that offer an account at consent and let a PSU
// register and approve a payment. The PSD2 API writes Berlin Group's
// spelling, whatever was written.
func TestSandbox_EnumerationsReadBackAsWritten(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)

	// The seeding tool's own request, and the assertion its test makes.
	r := b.Do(tpp, "POST", "/v1/sandbox/customers", []byte(`{"customerNumber":"01078900497","name":"Test Testperson 1","type":"private"}`))
	expect(t, r, 201, "")
	if !strings.Contains(string(r.Body), `"customerType":"private"`) {
		t.Fatalf(`created %s; want "customerType":"private"`, r.Body)
	}
	if w := warningPaths(t, r); len(w) > 0 || len(loggedNotes(t, b, r)) > 0 {
		t.Fatalf("a customer type in lower case is not odd, but got warnings %v and notes %v", w, loggedNotes(t, b, r))
	}
	var person customer
	r.JSON(t, &person)
	if len(person.Agreements) != 1 || !person.Agreements[0].Private {
		t.Fatalf("a customer of type private gets a private agreement at once: %+v", person.Agreements)
	}
	var got customer
	b.Do(tpp, "GET", "/v1/sandbox/customers/"+person.CustomerID, nil).JSON(t, &got)
	if got.CustomerType != "private" {
		t.Fatalf("reads back as %q", got.CustomerType)
	}
	var list []customer
	b.Do(tpp, "GET", "/v1/sandbox/customers", nil).JSON(t, &list)
	types := map[string]string{}
	for _, c := range list {
		types[c.CustomerNumber] = c.CustomerType
	}
	if types["01078900497"] != "private" || types[t1Number] != bank.Private || types[f1Number] != bank.Corporate {
		t.Fatalf("the list writes types %v; want private as written and the known state's PRIVATE and CORPORATE", types)
	}

	// Any case is a customer type; a type that is none is refused.
	r = b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": "923609016", "name": "Seeding Firma AS", "type": "Corporate"})
	expect(t, r, 201, "")
	var firm customer
	r.JSON(t, &firm)
	if firm.CustomerType != "Corporate" || len(firm.Agreements) != 0 {
		t.Fatalf("created %+v", firm)
	}
	e := rejects(t, b, tpp, "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": "923609017", "name": "Privat", "type": "privat"}, 400, "FORMAT_ERROR", "type")
	if !strings.Contains(e.TPPMessages[0].Text, "private or corporate") {
		t.Fatalf("the refusal says %q", e.TPPMessages[0].Text)
	}
	// Only a corporate customer, in whatever case, owns agreements.
	rejects(t, b, tpp, "POST", "/v1/sandbox/agreements", map[string]string{"owner": "01078900497", "name": "Not for a person"}, 400, "FORMAT_ERROR", "owner")
	r = b.Do(tpp, "POST", "/v1/sandbox/agreements", map[string]string{"owner": "923609016", "name": "Nettbank bedrift"})
	expect(t, r, 201, "")
	var agreement struct {
		ID string `json:"id"`
	}
	r.JSON(t, &agreement)

	// Cash account types in any case, kept as written; balance types in any
	// case and with underscores, written in Berlin Group's spelling
	// (docs/SANDBOX-API.md 2.3).
	savings := newAccount("01078900497", "15030567894", "NOK")
	savings["cashAccountType"] = "svgs"
	savings["balances"] = []map[string]any{
		{"balanceType": "Closing_Booked", "balanceAmount": map[string]any{"amount": 5000, "currency": "NOK"}},
		{"balanceType": "EXPECTED", "balanceAmount": map[string]any{"amount": 4800, "currency": "NOK"}},
	}
	r = b.Do(tpp, "POST", "/v1/sandbox/accounts", savings)
	expect(t, r, 201, "")
	var savingsAcct account
	r.JSON(t, &savingsAcct)
	if savingsAcct.CashAccountType != "svgs" || len(savingsAcct.Balances) != 2 ||
		savingsAcct.Balances[0].BalanceType != "closingBooked" || savingsAcct.Balances[1].BalanceType != "expected" ||
		savingsAcct.balance("closingBooked") != 5000 || savingsAcct.balance("expected") != 4800 {
		t.Fatalf("created %+v", savingsAcct)
	}
	driftBody := newAccount("923609016", "15030678904", "NOK")
	driftBody["cashAccountType"] = "Cacc"
	driftBody["balances"] = []map[string]any{{"balanceType": "expected", "balanceAmount": map[string]any{"amount": 900000, "currency": "NOK"}}}
	r = b.Do(tpp, "POST", "/v1/sandbox/accounts", driftBody)
	expect(t, r, 201, "")
	var drift account
	r.JSON(t, &drift)
	var again []account
	b.Do(tpp, "GET", "/v1/sandbox/accounts/"+drift.ID, nil).JSON(t, &again)
	if len(again) != 1 || again[0].CashAccountType != "Cacc" {
		t.Fatalf("reads back as %+v", again)
	}
	bad := newAccount("01078900497", "15030789013", "NOK")
	bad["cashAccountType"] = "savings"
	rejects(t, b, tpp, "POST", "/v1/sandbox/accounts", bad, 400, "FORMAT_ERROR", "cashAccountType")

	// Roles in any case, kept as written; each role once, whatever its case.
	engagement := func(roles ...string) map[string]any {
		return map[string]any{"customer": "01078900497", "account": map[string]string{"iban": drift.IBAN}, "roles": roles, "registerLimit": 100000, "approvalLimit": 100000}
	}
	engagements := "/v1/sandbox/agreements/" + agreement.ID + "/engagements"
	rejects(t, b, tpp, "POST", engagements, engagement("VIEW", "view", "register"), 400, "FORMAT_ERROR", "roles[1]")
	rejects(t, b, tpp, "POST", engagements, engagement("view", "viewer"), 400, "FORMAT_ERROR", "roles[1]")
	r = b.Do(tpp, "POST", engagements, engagement("view", "Register", "approve"))
	expect(t, r, 201, "")
	var eng struct {
		ID    string   `json:"id"`
		Roles []string `json:"roles"`
	}
	r.JSON(t, &eng)
	if !slices.Equal(eng.Roles, []string{"view", "Register", "approve"}) {
		t.Fatalf("roles read back as %q", eng.Roles)
	}

	// The PSD2 API: the engagement's roles offer the account at consent in
	// the corporate context, and the account is written with its ISO code.
	corporate := psuOf(b.Consent(tpp, "01078900497", agreement.ID, nil))
	if corporate.corporate == "" {
		t.Fatal("the consent of the engaged PSU has no corporate context")
	}
	var corpList struct {
		Accounts []aisAccount `json:"accounts"`
	}
	get(b, tpp, corporate, "/v1/accounts").JSON(t, &corpList)
	if len(corpList.Accounts) != 1 || corpList.Accounts[0].IBAN != drift.IBAN || corpList.Accounts[0].CashAccountType != "CACC" {
		t.Fatalf("the corporate context shows %+v; want %s as CACC", corpList.Accounts, drift.IBAN)
	}
	private := psuOf(b.Consent(tpp, "01078900497", "PRIVATE", nil))
	var acct struct {
		Account aisAccount `json:"account"`
	}
	r = get(b, tpp, private, "/v1/accounts/"+savingsAcct.ID+"?withBalance=true")
	expect(t, r, 200, "")
	r.JSON(t, &acct)
	var balanceTypes []string
	for _, bal := range acct.Account.Balances {
		balanceTypes = append(balanceTypes, bal.BalanceType)
	}
	if acct.Account.CashAccountType != "SVGS" || !slices.Equal(balanceTypes, []string{"closingBooked", "expected", "interimAvailable"}) {
		t.Fatalf("AIS writes cashAccountType %q and balance types %q; want SVGS and Berlin Group's", acct.Account.CashAccountType, balanceTypes)
	}
	r = get(b, tpp, private, "/v1/accounts/"+savingsAcct.ID+"/balances")
	expect(t, r, 200, "")
	if !strings.Contains(string(r.Body), `"balanceType":"closingBooked"`) || !strings.Contains(string(r.Body), `"balanceType":"expected"`) ||
		strings.Contains(strings.ToLower(string(r.Body)), "closing_booked") || strings.Contains(string(r.Body), "EXPECTED") {
		t.Fatalf("balances %s", r.Body)
	}
	// Before the cash-account-type-iso fix, the bank's own word.
	if _, err := b.Bank.Ops.UpdateSettings(func(s *bank.Settings) {
		s.LegacyDate = bank.Date{Year: 2024, Month: time.September, Day: 4}
	}); err != nil {
		t.Fatal(err)
	}
	if a := accountNamed(t, b, tpp, private, "", "Test account"); a.CashAccountType != "Sparekonto" {
		t.Fatalf("legacy cashAccountType %q; want Sparekonto", a.CashAccountType)
	}
	if _, err := b.Bank.Ops.UpdateSettings(func(s *bank.Settings) { s.LegacyDate = bank.Date{} }); err != nil {
		t.Fatal(err)
	}

	// Payments: the private PSU pays from their own account, and the
	// engaged PSU registers and approves one from the company's.
	own := createPayment(t, b, tpp, ndctPath, ndct("100.00", savingsAcct.IBAN, ibanT2Bruk))
	autoSCA(t, b, tpp, own.authID(), "01078900497", "approve", "PRIVATE")
	if st, _ := status(t, b, tpp, ndctPath, own.PaymentID); st != "ACTC" {
		t.Fatalf("the private PSU's own payment is %s on %s; want ACTC", st, day)
	}
	company := createPayment(t, b, tpp, ndctPath, ndct("200.00", drift.IBAN, ibanT2Bruk))
	autoSCA(t, b, tpp, company.authID(), "01078900497", "approve", agreement.ID)
	if st, _ := status(t, b, tpp, ndctPath, company.PaymentID); st != "ACTC" {
		t.Fatalf("the engaged PSU's payment is %s; want ACTC (roles register and approve)", st)
	}

	// A scenario export keeps what was written, and its import reads back
	// the same.
	r = b.Do(b.Operator(), "GET", "/v1/sandbox/scenario", nil)
	expect(t, r, 200, "")
	exported := r.Body
	var sc struct {
		Customers []struct {
			CustomerNumber string `json:"customerNumber"`
			Type           string `json:"type"`
		} `json:"customers"`
		Accounts []struct {
			IBAN            string `json:"iban"`
			CashAccountType string `json:"cashAccountType"`
		} `json:"accounts"`
		Agreements []struct {
			Engagements []struct {
				Roles []string `json:"roles"`
			} `json:"engagements"`
		} `json:"agreements"`
	}
	if err := json.Unmarshal(exported, &sc); err != nil {
		t.Fatal(err)
	}
	written := map[string]string{}
	for _, c := range sc.Customers {
		written[c.CustomerNumber] = c.Type
	}
	for _, a := range sc.Accounts {
		written[a.IBAN] = a.CashAccountType
	}
	var roles []string
	for _, a := range sc.Agreements {
		for _, e := range a.Engagements {
			roles = append(roles, strings.Join(e.Roles, ","))
		}
	}
	if written["01078900497"] != "private" || written["923609016"] != "Corporate" || written[t1Number] != bank.Private ||
		written[savingsAcct.IBAN] != "svgs" || written[drift.IBAN] != "Cacc" || !slices.Contains(roles, "view,Register,approve") {
		t.Fatalf("the export writes %v and roles %q", written, roles)
	}
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/scenario", exported), 200, "")
	b.Do(tpp, "GET", "/v1/sandbox/customers/"+person.CustomerID, nil).JSON(t, &got)
	var engAgain struct {
		Roles []string `json:"roles"`
	}
	b.Do(tpp, "GET", engagements+"/"+eng.ID, nil).JSON(t, &engAgain)
	b.Do(tpp, "GET", "/v1/sandbox/accounts/"+savingsAcct.ID, nil).JSON(t, &again)
	if got.CustomerType != "private" || !slices.Equal(engAgain.Roles, eng.Roles) || len(again) != 1 || again[0].CashAccountType != "svgs" {
		t.Fatalf("after the import: type %q, roles %q, accounts %+v", got.CustomerType, engAgain.Roles, again)
	}
}
