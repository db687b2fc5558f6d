package psd2api_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/apierr"
	"sandbank/bank/pki"
)

// Rules of the bank's service description that answers must follow to
// the letter: PSU-Context's two values, an unknown Consent-ID, a basket's
// PSU-ID, the int32 numbers of the sandbox data API, ACWC and ACWP, and
// the TPP's contact address.

// warningAt returns the WARNING tppMessage of an object answer at path,
// and the client note the request log holds at path; each is the zero
// Message when there is none.
func warningAt(t *testing.T, b *apptest.Bank, r apptest.Response, path string) (answer, note apierr.Message) {
	t.Helper()
	for _, m := range answerMessages(t, r) {
		if m.Category == "WARNING" && m.Path == path {
			answer = m
		}
	}
	for _, m := range loggedNotes(t, b, r) {
		if m.Category == "WARNING" && m.Path == path {
			note = m
		}
	}
	return answer, note
}

// PSU-Context takes PRIVATE or CORPORATE (spec 4.1). Another value is
// accepted with a WARNING and a client note, on every request: account
// information reads on, and a payment takes it as no context, so PSU-ID's
// SCA decides. A value in lower case is read as the value, noted too.
// Strict mode refuses both as FORMAT_ERROR and stores nothing.
func TestPSUContext_OnlyPrivateOrCorporate(t *testing.T) {
	t.Parallel()
	b, tpp := setup(t)
	onBankingMorning(t, b)
	user := psuOf(b.Consent(tpp, t1Number, "", nil))

	r := get(b, tpp, user, "/v1/accounts", "PSU-Context: PRIVATE")
	expect(t, r, 200, "")
	if answer, note := warningAt(t, b, r, "PSU-Context"); answer.Text != "" || note.Text != "" {
		t.Fatalf("PRIVATE as written was noted: %+v %+v", answer, note)
	}
	r = get(b, tpp, user, "/v1/accounts", "PSU-Context: BOGUS")
	expect(t, r, 200, "")
	answer, note := warningAt(t, b, r, "PSU-Context")
	if !strings.Contains(answer.Text, `"BOGUS" is neither PRIVATE nor CORPORATE`) || note.Text != answer.Text || answer.Code != "WARNING" {
		t.Fatalf("BOGUS: answer %+v, note %+v", answer, note)
	}

	// A cross-border transfer, which requires the header: BOGUS is no
	// context, and the PSU's SCA gives the private one.
	psuID := usersPSU(t, b, tpp, t1Number)
	headers := func(context string) []string {
		return []string{"x-accept-fix: amount-as-string", "PSU-Context: " + context, "PSU-ID: " + psuID, "PSU-IP-Address: 192.0.2.1"}
	}
	body := `{"instructedAmount": {"amount": "1000", "currency": "EUR"},
		"debtorAccount": {"iban": "` + ibanT1Bruk + `", "currency": "NOK"},
		"creditorAccount": {"iban": "` + ibanForeign + `", "currency": "EUR"},
		"creditorName": "Lieferant GmbH", "creditorAgent": "COBADEFFXXX",
		"creditorAddress": {"street": "Hauptstraße 1", "city": "Berlin", "country": "DE"},
		"purposeCode": "SUPP", "remittanceInformationUnstructured": "Invoice 78"}`
	r = b.Do(tpp, "POST", ncbctPath+"?allowLogicalDuplicate=true", body, append(headers("BOGUS"), payHeaders...)...)
	expect(t, r, 201, "")
	if answer, _ := warningAt(t, b, r, "PSU-Context"); !strings.Contains(answer.Text, "it is ignored") {
		t.Fatalf("NCBCT with BOGUS: %s", r.Body)
	}
	var c created
	r.JSON(t, &c)
	if q := autoSCA(t, b, tpp, c.authID(), t1Number, "approve"); q.Get("context") != "PRIVATE" {
		t.Fatalf("the SCA of a payment without a context gave %v", q)
	}
	wantStatus(t, b, tpp, ncbctPath, c.PaymentID, bank.StatusACTC)

	r = b.Do(tpp, "POST", ncbctPath+"?allowLogicalDuplicate=true", body, append(headers("private"), payHeaders...)...)
	expect(t, r, 201, "")
	if answer, _ := warningAt(t, b, r, "PSU-Context"); !strings.Contains(answer.Text, `"private" is not written in capitals; the bank reads it as PRIVATE`) {
		t.Fatalf("NCBCT with private: %s", r.Body)
	}
	// Read as CORPORATE, lower case asks for PSU-Corporate-ID like the
	// value itself.
	rejectsWith(t, b, tpp, "POST", ncbctPath+"?allowLogicalDuplicate=true", body, append(headers("corporate"), payHeaders...), 400, "CORPORATE_ID_REQUIRED", "PSU-Corporate-ID")

	setStrict(t, b, true)
	for _, context := range []string{"BOGUS", "private"} {
		e := rejectsWith(t, b, tpp, "POST", ncbctPath+"?allowLogicalDuplicate=true", body, append(headers(context), payHeaders...), 400, "FORMAT_ERROR", "PSU-Context")
		if !strings.Contains(e.Message, "strict mode refuses") {
			t.Fatalf("strict, %q: %+v", context, e)
		}
	}
	e := expect(t, get(b, tpp, user, "/v1/accounts", "PSU-Context: Corporate"), 400, "FORMAT_ERROR")
	if !slices.Contains(paths(e), "PSU-Context") {
		t.Fatalf("strict account information: %+v", e)
	}
	expect(t, get(b, tpp, user, "/v1/accounts", "PSU-Context: CORPORATE"), 200, "")
}

// A Consent-ID the bank never gave the caller is 403 CONSENT_UNKNOWN,
// whether no consent has the id or another TPP's has: the two answers
// are alike, so no TPP learns which ids exist. The caller's own consents
// that cannot be used stay 401 CONSENT_INVALID or CONSENT_EXPIRED with a
// fresh scaRedirect.
func TestConsentID_UnknownIs403(t *testing.T) {
	t.Parallel()
	b, tpp := setup(t)
	stranger := b.NewTPP("987654321", 1, pki.RoleAI)
	redirect := []string{"TPP-Redirect-URI: " + tppRedirect, "TPP-Session-ID: consent-rules", "PSU-IP-Address: 192.0.2.10"}
	read := func(who *apptest.TPP, consentID, path string) apptest.Response {
		return b.Do(who, "GET", path, nil, append([]string{"Consent-ID: " + consentID}, redirect...)...)
	}

	c, _ := createConsent(t, b, tpp, nil, "consent-rules")
	r := read(tpp, c.ConsentID, "/v1/accounts")
	expect(t, r, 401, "CONSENT_INVALID") // received: it exists, and its SCA is not done
	scaRedirect(t, b, r)
	b.CompleteSCA(c.Links["scaRedirect"].Href, t1Number, "", []string{t1Brukskonto}, "approve")
	expect(t, read(tpp, c.ConsentID, "/v1/accounts"), 200, "")

	const never = "enc!!AAAAAAAAAAAAAAAAAAAAAA"
	shape := func(e apptest.ErrorBody, id string) string {
		return fmt.Sprintf("%d %s %s %q", e.Status, e.Code, strings.ReplaceAll(e.Message, id, "<id>"), e.Links)
	}
	for _, path := range []string{"/v1/accounts", "/v1/accounts/" + t1Brukskonto + "/balances", "/v1/accounts/" + t1Brukskonto + "/transactions", "/v1/card-accounts"} {
		before := b.FileSum()
		unknown := expect(t, read(tpp, never, path), 403, "CONSENT_UNKNOWN")
		theirs := expect(t, read(stranger, c.ConsentID, path), 403, "CONSENT_UNKNOWN")
		if !slices.Equal(paths(unknown), []string{"Consent-ID"}) || !strings.Contains(unknown.Message, "start one") || unknown.Links != nil {
			t.Fatalf("%s, an unknown consent: %+v", path, unknown)
		}
		if shape(unknown, never) != shape(theirs, c.ConsentID) {
			t.Fatalf("%s: another TPP's consent answers\n%s\nan unknown one\n%s", path, shape(theirs, c.ConsentID), shape(unknown, never))
		}
		if b.FileSum() != before {
			t.Fatalf("%s: a refused Consent-ID changed the data file", path)
		}
	}

	// Known but no longer usable: expired after 180 days, then ended.
	moveClock(t, b, tpp, 181*24*time.Hour)
	r = read(tpp, c.ConsentID, "/v1/accounts")
	expect(t, r, 401, "CONSENT_EXPIRED")
	scaRedirect(t, b, r)
	moveClock(t, b, tpp, 0)
	expect(t, b.Do(tpp, "DELETE", "/v1/consents/"+c.ConsentID, nil), 204, "")
	expect(t, read(tpp, c.ConsentID, "/v1/accounts"), 401, "CONSENT_INVALID")
}

// A signing basket created with a PSU-ID the bank never gave the TPP (one
// that does not exist, another TPP's, a PSU-Corporate-ID) is 401
// PSU_CREDENTIALS_INVALID with a scaRedirect that identifies the PSU
// (spec 4.2 E1 and status rule 3); completing it gives the PSU-ID the
// basket then takes. Without the redirect headers the 401 has empty
// _links; without a PSU-ID the basket is made as before.
func TestBasket_UnknownPSUIs401(t *testing.T) {
	t.Parallel()
	b, tpp := setup(t)
	onBankingMorning(t, b)
	stranger := b.NewTPP("987654321", 1, pki.RolePI)
	theirs := usersPSU(t, b, stranger, t1Number)
	corporate := b.Consent(tpp, f1Number, f1Agreement, nil).Get("psu-corporate-id")
	p1 := createPayment(t, b, tpp, ndctPath, ndct("11", ibanT1Bruk, ibanT2Bruk)).PaymentID
	p2 := createPayment(t, b, tpp, ndctPath, ndct("12", ibanT1Bruk, ibanT2Bruk)).PaymentID
	body := `{"paymentIds": ["` + p1 + `", "` + p2 + `"]}`
	redirect := []string{"TPP-Redirect-URI: " + tppRedirect, "TPP-Session-ID: basket-psu", "PSU-IP-Address: 192.0.2.10"}

	// The 401 makes no basket; with the redirect headers it starts the
	// SCA its scaRedirect opens, which the data file keeps.
	baskets := func() int {
		var list []any
		b.Do(tpp, "GET", "/v1/sandbox/baskets", nil).JSON(t, &list)
		return len(list)
	}
	var href string
	for _, id := range []string{"0b6c8a4e-5d0f-4a3c-9d51-2f0e8b7a1c11", theirs, corporate} {
		r := b.Do(tpp, "POST", "/v1/signing-baskets", body, append([]string{"PSU-ID: " + id}, redirect...)...)
		e := expect(t, r, 401, "PSU_CREDENTIALS_INVALID")
		if !strings.Contains(e.Message, "is not a PSU of this TPP; complete SCA") {
			t.Fatalf("PSU-ID %s: %+v", id, e)
		}
		href = scaRedirect(t, b, r)
	}
	if n := baskets(); n != 0 {
		t.Fatalf("the 401s made %d baskets", n)
	}
	e := rejectsWith(t, b, tpp, "POST", "/v1/signing-baskets", body, []string{"PSU-ID: " + theirs}, 401, "PSU_CREDENTIALS_INVALID")
	if string(e.Links) != "{}" {
		t.Fatalf("a 401 without redirect headers has _links %s", e.Links)
	}
	rejectsWith(t, b, tpp, "POST", "/v1/signing-baskets", body, append([]string{"PSU-ID: not-a-uuid"}, redirect...), 400, "FORMAT_ERROR", "PSU-ID")

	// The scaRedirect identifies the PSU, as GET /v1/users does, and
	// grants no account: its psu-id is the one the basket takes.
	q := b.CompleteSCA(href, t1Number, "", nil, "approve").Query
	if q.Get("psu-id") != bank.PSUID(tpp.ID, knownIDs["customer "+t1Number]) {
		t.Fatalf("the 401's SCA redirected with %v", q)
	}
	r := b.Do(tpp, "POST", "/v1/signing-baskets", body, append([]string{"PSU-ID: " + q.Get("psu-id")}, redirect...)...)
	expect(t, r, 201, "")
	var basket struct {
		BasketID          string `json:"basketId"`
		TransactionStatus string `json:"transactionStatus"`
	}
	r.JSON(t, &basket)
	if basket.TransactionStatus != "RCVD" {
		t.Fatalf("basket %s", r.Body)
	}
	expect(t, b.Do(tpp, "DELETE", "/v1/signing-baskets/"+basket.BasketID, nil), 204, "")
	expect(t, b.Do(tpp, "POST", "/v1/signing-baskets", body), 201, "")
}

// The sandbox data API's numbers that the spec types as int32 take a
// fraction with a WARNING that names the field and says Sandbank keeps
// it, and a client note; the account's balances, which the spec types as
// a double, take one without a word. Strict mode refuses each, and
// stores nothing.
func TestSandboxInt32_FractionIsKeptWithAWarning(t *testing.T) {
	t.Parallel()
	b, tpp := setup(t)
	bruk := knownAccount(t, b, tpp, ibanT1Bruk)
	yesterday := bank.DateOf(time.Now()).AddDays(-1).String()
	// Each case is sent three times (a fraction, a whole number, strict):
	// n makes each body's record new.
	n := 0
	next := func(list ...string) string { n++; return list[n%len(list)] }
	transaction := func(amount string) string {
		return `[{"amount": ` + amount + `, "currency": "NOK", "valueDate": "` + yesterday + `", "bookingDate": "` + yesterday + `",
			"remittanceInformationUnstructured": "Sandbank int32 check", "creditorId": "", "creditorName": "Rema 1000",
			"creditorAccount": {"iban": "` + ibanOutside + `"}, "ultimateCreditor": "", "debtorName": "Test Testperson 1",
			"debtorAccount": {"iban": "` + ibanT1Bruk + `"}, "ultimateDebtor": "", "purposeCode": "OTHR", "bankTransactionCode": "PMNT-ICDT-ESCT"}]`
	}
	cardTransaction := func(amount string) string {
		return `[{"cardTransactionId": "` + next("INT32-1", "INT32-2", "INT32-3") + `", "terminalId": "T1", "bookingDate": "` + yesterday + `", "transactionDate": "` + yesterday + `",
			"transactionAmount": {"currency": "NOK", "amount": ` + amount + `}, "originalAmount": {"currency": "NOK", "amount": ` + amount + `},
			"merchantCategoryCode": "5411", "cardAcceptorId": "A1", "cardAcceptorAddress": {"city": "Oslo", "country": "NO"},
			"maskedPan": "525412******3241", "transactionDetails": "Kiwi Grünerløkka", "invoiced": "false",
			"proprietaryBankTransactionCode": "PURCHASE"}]`
	}
	newAccount := func(creditLine string) string {
		return `{"customerNumber": "` + t1Number + `", "accountName": "Int32", "iban": "` + next("NO2815030777708", "NO0615030777716", "NO8115030777724") + `",
			"currency": "NOK", "product": "Brukskonto", "cashAccountType": "CACC", "creditLine": ` + creditLine + `,
			"balances": [{"balanceType": "closingBooked", "balanceAmount": {"amount": 1234.56, "currency": "NOK"}}]}`
	}
	engagement := func(limit string) string {
		who := next(t2Number+`", "account": {"iban": "`+ibanF1Drift, t2Number+`", "account": {"iban": "NO9715030345689`, t1Number+`", "account": {"iban": "`+ibanF1Drift)
		return `{"customer": "` + who + `"}, "roles": ["VIEW", "REGISTER"], "registerLimit": ` + limit + `, "approvalLimit": 0}`
	}
	cardBalances := func(amount string) string {
		return `[{"balanceType": "closingBooked", "balanceAmount": {"currency": "NOK", "amount": ` + amount + `}}]`
	}
	cases := []struct {
		what, method, path string
		body               func(string) string
		status             int
		sign               string // a limit is not negative; a purchase is
		field              string // the warning's path
	}{
		{"account transaction amount", "POST", "/v1/sandbox/accounts/" + bruk.ID + "/transactions", transaction, 201, "-", "[0].amount"},
		{"card transaction amount", "POST", "/v1/sandbox/card-accounts/" + t1Card + "/transactions", cardTransaction, 201, "-", "[0].transactionAmount.amount"},
		{"creditLine", "POST", "/v1/sandbox/accounts", newAccount, 201, "", "creditLine"},
		{"engagement limit", "POST", "/v1/sandbox/agreements/" + f1Agreement + "/engagements", engagement, 201, "", "registerLimit"},
		{"card balance", "PUT", "/v1/sandbox/card-accounts/" + t1Card + "/balances", cardBalances, 200, "-", "[0].balanceAmount.amount"},
	}
	for _, c := range cases {
		r := b.Do(tpp, c.method, c.path, c.body(c.sign+"349.9"))
		expect(t, r, c.status, "")
		answer, note := warningAt(t, b, r, c.field)
		want := fmt.Sprintf("is %[1]s349.9, which has a fraction, where the spec types the field as int32 (whole units); Sandbank keeps %[1]s349.9 as sent, but a bank that reads it as int32 truncates it to %[1]s349", c.sign)
		if !strings.HasPrefix(note.Text, want) || note.Code != "WARNING" {
			t.Fatalf("%s: note %+v, want %q", c.what, note, want)
		}
		if r.Body[0] == '{' && answer.Text != note.Text {
			t.Fatalf("%s: WARNING %+v, note %+v", c.what, answer, note)
		}
		for _, m := range loggedNotes(t, b, r) {
			if strings.Contains(m.Path, "balances") {
				t.Fatalf("%s: a balance of an account, a double, was noted: %+v", c.what, m)
			}
		}
		// A whole number, with a fraction of zeros, is no note.
		r = b.Do(tpp, c.method, c.path, c.body(c.sign+"349.00"))
		expect(t, r, c.status, "")
		if _, note := warningAt(t, b, r, c.field); note.Text != "" {
			t.Fatalf("%s: a whole number was noted: %+v", c.what, note)
		}
	}
	// What is stored is the value as sent.
	var list []struct {
		Amount float64 `json:"amount"`
		Text   string  `json:"remittanceInformationUnstructured"`
	}
	b.Do(tpp, "GET", "/v1/sandbox/accounts/"+bruk.ID+"/transactions?fromDate="+yesterday, nil).JSON(t, &list)
	var amounts []float64
	for _, tx := range list {
		if tx.Text == "Sandbank int32 check" {
			amounts = append(amounts, tx.Amount)
		}
	}
	slices.Sort(amounts)
	if !slices.Equal(amounts, []float64{-349.9, -349}) {
		t.Fatalf("stored amounts %v, want -349.9 and -349", amounts)
	}

	setStrict(t, b, true)
	for _, c := range cases {
		e := rejects(t, b, tpp, c.method, c.path, c.body(c.sign+"349.9"), 400, "FORMAT_ERROR", c.field)
		if !strings.Contains(e.Message, "strict mode refuses") {
			t.Fatalf("%s, strict: %+v", c.what, e)
		}
	}
	// A scenario is no request of the spec's: the known state's fractions
	// (a card's balance of -8412.50) and those of an export import in
	// strict mode, without a note.
	export := b.Do(b.Operator(), "GET", "/v1/sandbox/scenario", nil)
	expect(t, export, 200, "")
	if !strings.Contains(string(export.Body), "-349.9") {
		t.Log(string(export.Body[:2000]))
		t.Fatal("the export lost the fraction")
	}
	r := b.Do(b.Operator(), "PUT", "/v1/sandbox/scenario", export.Body)
	expect(t, r, 200, "")
	if notes := loggedNotes(t, b, r); len(notes) != 0 {
		t.Fatalf("importing an export noted %+v", notes)
	}
	r = b.Do(tpp, "POST", "/v1/sandbox/initialize", nil)
	expect(t, r, 200, "")
	if notes := loggedNotes(t, b, r); len(notes) != 0 {
		t.Fatalf("initialize noted %+v", notes)
	}
}

// bankingFriday moves the sandbox clock to 10:30 on a Friday that is a
// banking day, at least two days ahead, followed by a Monday that is one
// too, and returns that Friday.
func bankingFriday(t *testing.T, b *apptest.Bank) bank.Date {
	t.Helper()
	d := bank.DateOf(time.Now()).AddDays(2)
	for d.Weekday() != time.Friday || !bank.IsBankingDay(d) || !bank.IsBankingDay(d.AddDays(3)) {
		d = d.AddDays(1)
	}
	setClock(t, b, d, 10, 30)
	return d
}

// setClock sets the sandbox clock to a time of a day, Oslo time.
func setClock(t *testing.T, b *apptest.Bank, d bank.Date, hour, minute int) {
	t.Helper()
	at := time.Date(d.Year, d.Month, d.Day, hour, minute, 0, 0, bank.Oslo)
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/clock", map[string]string{"now": at.Format(time.RFC3339)}), 200, "")
}

// A payment whose requested execution date the bank moves to the next
// banking day keeps its WARNING and is ACWC from its authorisation until
// it settles, in the status, the payment and the operator's reads; it
// cancels like ACCP, and batch runs settle it on its date (a cross-border
// transfer by way of ACSP), at once in batch mode immediate. A payment
// that names no date is ACCP on a weekend: no requested date moved.
func TestPayments_MovedDateIsACWC(t *testing.T) {
	t.Parallel()
	b, tpp := setup(t)
	friday := bankingFriday(t, b)
	saturday, monday := friday.AddDays(1), friday.AddDays(3)
	ndctOn := func(amount, date string) string {
		return `{"instructedAmount": {"amount": "` + amount + `", "currency": "NOK"},
			"debtorAccount": {"iban": "` + ibanT1Bruk + `"}, "creditorAccount": {"iban": "` + ibanT2Bruk + `"},
			"creditorName": "Test Testperson 2", "remittanceInformationUnstructured": "Husleie ` + amount + `",
			"requestedExecutionDate": "` + date + `"}`
	}
	before := expectedBalance(t, b, tpp, ibanT1Bruk)
	c := createPayment(t, b, tpp, ndctPath, ndctOn("100", saturday.String()))
	if len(c.TPPMessages) != 1 || c.TPPMessages[0].Path != "requestedExecutionDate" || !strings.Contains(c.TPPMessages[0].Text, "executes on "+monday.String()+", and is ACWC (accepted with change)") || c.TransactionStatus != "RCVD" {
		t.Fatalf("created %+v", c)
	}
	autoSCA(t, b, tpp, c.authID(), t1Number, "approve")
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, bank.StatusACWC)
	var read map[string]any
	b.Do(tpp, "GET", ndctPath+"/"+c.PaymentID, nil).JSON(t, &read)
	if read["transactionStatus"] != "ACWC" || read["requestedExecutionDate"] != monday.String() {
		t.Fatalf("read %v", read)
	}
	if got := expectedBalance(t, b, tpp, ibanT1Bruk); got == before {
		t.Fatalf("an ACWC payment reserves nothing: expected balance %s", got)
	}
	var ops struct {
		TransactionStatus string `json:"transactionStatus"`
	}
	b.Do(b.Operator(), "GET", "/v1/sandbox/payments/"+c.PaymentID, nil).JSON(t, &ops)
	if ops.TransactionStatus != "ACWC" {
		t.Fatalf("the operator reads %s", ops.TransactionStatus)
	}

	// Cancelled like any authorised payment that is not picked up.
	gone := createPayment(t, b, tpp, ndctPath, ndctOn("101", saturday.String()))
	autoSCA(t, b, tpp, gone.authID(), t1Number, "approve")
	expect(t, b.Do(tpp, "DELETE", ndctPath+"/"+gone.PaymentID, nil), 204, "")
	wantStatus(t, b, tpp, ndctPath, gone.PaymentID, bank.StatusCANC)

	// A cross-border transfer with a moved date.
	psuID := usersPSU(t, b, tpp, t1Number)
	x := createPayment(t, b, tpp, ncbctPath, with(ncbct("100", "EUR", ibanT1Bruk), "requestedExecutionDate", saturday.String()),
		"x-accept-fix: amount-as-string", "PSU-Context: PRIVATE", "PSU-ID: "+psuID, "PSU-IP-Address: 192.0.2.1")
	autoSCA(t, b, tpp, x.authID(), t1Number, "approve")
	wantStatus(t, b, tpp, ncbctPath, x.PaymentID, bank.StatusACWC)

	// Friday's run leaves them: they are due on Monday.
	runBatch(t, b, tpp)
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, bank.StatusACWC)
	wantStatus(t, b, tpp, ncbctPath, x.PaymentID, bank.StatusACWC)

	// On Saturday, a payment that names no date executes on Monday too,
	// with the warning, but no requested date moved: ACCP.
	setClock(t, b, saturday, 11, 0)
	plain := createPayment(t, b, tpp, ndctPath, ndct("102", ibanT1Bruk, ibanT2Bruk))
	if len(plain.TPPMessages) != 1 || strings.Contains(plain.TPPMessages[0].Text, "ACWC") {
		t.Fatalf("no date on Saturday: %+v", plain.TPPMessages)
	}
	autoSCA(t, b, tpp, plain.authID(), t1Number, "approve")
	wantStatus(t, b, tpp, ndctPath, plain.PaymentID, bank.StatusACCP)

	// Monday's first run settles the NDCT and picks up the transfer; the
	// next settles that.
	setClock(t, b, monday, 7, 0)
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, bank.StatusACSC)
	wantStatus(t, b, tpp, ndctPath, plain.PaymentID, bank.StatusACSC)
	wantStatus(t, b, tpp, ncbctPath, x.PaymentID, bank.StatusACSP)
	setClock(t, b, monday, 9, 30)
	wantStatus(t, b, tpp, ncbctPath, x.PaymentID, bank.StatusACSC)

	// Batch mode immediate: a payment for Sunday, authorised early on
	// Monday, is due at once and settles then.
	patch(t, b, tpp, `{"batchMode": "immediate"}`)
	sunday := monday.AddDays(6)
	setClock(t, b, sunday, 23, 40)
	late := createPayment(t, b, tpp, ndctPath, ndctOn("103", sunday.String()))
	setClock(t, b, sunday.AddDays(1), 0, 10)
	autoSCA(t, b, tpp, late.authID(), t1Number, "approve")
	if !bank.IsBankingDay(sunday.AddDays(1)) {
		wantStatus(t, b, tpp, ndctPath, late.PaymentID, bank.StatusACWC)
		return
	}
	wantStatus(t, b, tpp, ndctPath, late.PaymentID, bank.StatusACSC)
}

// Forcing a status (the operator's Force status) takes every status of
// the spec's set, ACWC and ACWP included, and PATC, Sandbank's own; ACWP
// is final: it releases the payment's reservation, batch runs pass it
// over and DELETE answers 409. A status outside the set is refused.
func TestPayments_ForceTakesEveryStatusOfTheSet(t *testing.T) {
	t.Parallel()
	b, tpp := setup(t)
	onBankingMorning(t, b)
	before := expectedBalance(t, b, tpp, ibanT1Bruk)
	c := createPayment(t, b, tpp, ndctPath, ndct("104", ibanT1Bruk, ibanT2Bruk))
	autoSCA(t, b, tpp, c.authID(), t1Number, "approve")
	if expectedBalance(t, b, tpp, ibanT1Bruk) == before {
		t.Fatal("the authorised payment reserved nothing")
	}
	force := func(status string) apptest.Response {
		return b.Do(b.Operator(), "POST", "/v1/sandbox/payments/"+c.PaymentID+"/status", `{"status": "`+status+`", "note": "support case 4711"}`)
	}
	expect(t, force("ACWP"), 200, "")
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, bank.StatusACWP)
	if got := expectedBalance(t, b, tpp, ibanT1Bruk); got != before {
		t.Fatalf("forced ACWP holds its reservation: expected %s, was %s", got, before)
	}
	if counts := runBatch(t, b, tpp); counts[bank.StatusACSC] != 0 {
		t.Fatalf("a run moved the ACWP payment: %v", counts)
	}
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, bank.StatusACWP)
	expect(t, b.Do(tpp, "DELETE", ndctPath+"/"+c.PaymentID, nil), 409, "CONFLICT")

	set := []string{"ACCP", "ACSC", "ACSP", "ACTC", "ACWC", "ACWP", "RCVD", "PDNG", "RJCT", "CANC", "PART", "PATC"}
	for _, st := range set {
		r := force(st)
		expect(t, r, 200, "")
		var got struct {
			TransactionStatus string `json:"transactionStatus"`
		}
		r.JSON(t, &got)
		if got.TransactionStatus != st || storedStatus(t, b, c.PaymentID) != st {
			t.Fatalf("forced %s, the payment is %s", st, got.TransactionStatus)
		}
	}
	if !slices.Equal(slices.Sorted(slices.Values(set)), slices.Sorted(slices.Values(bank.PaymentStatuses))) {
		t.Fatalf("the bank's statuses %v are not the spec's set and PATC", bank.PaymentStatuses)
	}
	e := rejects(t, b, b.Operator(), "POST", "/v1/sandbox/payments/"+c.PaymentID+"/status", `{"status": "ACFC"}`, 400, "FORMAT_ERROR", "status")
	if !strings.Contains(e.Message, "ACWC") || !strings.Contains(e.Message, "ACWP") {
		t.Fatalf("the refusal does not list the statuses: %s", e.Message)
	}
}

// A personal webmail address as the TPP's contact (spec 6 asks for a
// group or shared mailbox) is taken with a WARNING that names the
// service and recommends a group mailbox, and a client note; strict mode
// refuses it and keeps the address registered before. A company's
// address, and one whose domain only holds a webmail name, are no note.
func TestTPPContact_PersonalWebmailWarns(t *testing.T) {
	t.Parallel()
	b, tpp := setup(t)
	path := "/v1/tpps/" + tpp.ID + "/contact-information"
	for _, email := range []string{"psd2-ops@tpp.example", "drift@gmail.example.com", "ops@mail.example.no"} {
		r := b.Do(tpp, "PUT", path, `{"email": "`+email+`"}`)
		expect(t, r, 200, "")
		if answer, note := warningAt(t, b, r, "email"); answer.Text != "" || note.Text != "" {
			t.Fatalf("%s was noted: %+v", email, note)
		}
	}
	for email, domain := range map[string]string{
		"ola.nordmann@gmail.com": "gmail.com", "Kari@Hotmail.NO": "hotmail.no", "dev@yahoo.co.uk": "yahoo.co.uk",
		"psd2@proton.me": "proton.me", "ops@outlook.com": "outlook.com", "x@icloud.com": "icloud.com",
		"a@live.com": "live.com", "b@gmx.de": "gmx.de", "c@yandex.ru": "yandex.ru", "d@mail.ru": "mail.ru", "e@aol.com": "aol.com",
	} {
		r := b.Do(tpp, "PUT", path, `{"email": "`+email+`"}`)
		expect(t, r, 200, "")
		answer, note := warningAt(t, b, r, "email")
		if answer.Code != "WARNING" || answer.Text != note.Text || !strings.Contains(answer.Text, "is at "+domain+", a personal webmail service") || !strings.Contains(answer.Text, "group or shared mailbox") {
			t.Fatalf("%s: answer %+v, note %+v", email, answer, note)
		}
		var got struct {
			Email string `json:"email"`
		}
		b.Do(tpp, "GET", path, nil).JSON(t, &got)
		if got.Email != email {
			t.Fatalf("registered %q, reads %q", email, got.Email)
		}
	}

	expect(t, b.Do(tpp, "PUT", path, `{"email": "psd2-ops@tpp.example"}`), 200, "")
	setStrict(t, b, true)
	e := rejects(t, b, tpp, "PUT", path, `{"email": "ola.nordmann@gmail.com"}`, 400, "FORMAT_ERROR", "email")
	if !strings.Contains(e.Message, "strict mode refuses") {
		t.Fatalf("strict: %+v", e)
	}
	var got struct {
		Email string `json:"email"`
	}
	b.Do(tpp, "GET", path, nil).JSON(t, &got)
	if got.Email != "psd2-ops@tpp.example" {
		t.Fatalf("after the refusal the contact is %q", got.Email)
	}
}
