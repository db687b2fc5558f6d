package psd2api_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/apierr"
)

// Known-state accounts (README).
const (
	ibanT1Bruk  = "NO3815030123457" // Test Testperson 1, NOK 24,512.37
	ibanT1Spare = "NO1615030123465"
	ibanT2Bruk  = "NO3015030234569" // Test Testperson 2, credit line 5,000
	ibanT2BSU   = "NO0815030234577"
	ibanF1Drift = "NO2815030345670" // Testfirma 1 AS
	ibanF2Drift = "NO2015030456782" // Testfirma 2 AS, KID required
	ibanForeign = "DE89370400440532013000"
	ndctPath    = "/v1/payments/norwegian-domestic-credit-transfers"
	ncbctPath   = "/v1/payments/norwegian-cross-border-credit-transfers"
)

// payHeaders are the redirect headers every payment initiation carries.
var payHeaders = []string{"TPP-Redirect-URI: " + tppRedirect, "TPP-Session-ID: pay-session"}

// ndct is an NDCT body.
func ndct(amount, from, to string) map[string]any {
	return map[string]any{
		"instructedAmount":                  map[string]string{"amount": amount, "currency": "NOK"},
		"debtorAccount":                     map[string]string{"iban": from},
		"creditorAccount":                   map[string]string{"iban": to},
		"creditorName":                      "Mottaker AS",
		"remittanceInformationUnstructured": "Faktura " + amount,
	}
}

// onBankingMorning moves the sandbox clock to 10:30 on a banking day at
// least two days ahead and returns that day, so that payment tests do not
// depend on the weekday they run on.
func onBankingMorning(t *testing.T, b *apptest.Bank) bank.Date {
	t.Helper()
	d := bank.NextBankingDay(bank.DateOf(time.Now()).AddDays(2))
	at := time.Date(d.Year, d.Month, d.Day, 10, 30, 0, 0, bank.Oslo)
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/clock", map[string]string{"now": at.Format(time.RFC3339)}), 200, "")
	return d
}

type created struct {
	PaymentID         string           `json:"paymentId"`
	TransactionStatus string           `json:"transactionStatus"`
	TPPMessages       []apierr.Message `json:"tppMessages"`
	TransactionFees   map[string]string
	Links             map[string]struct {
		Href string `json:"href"`
	} `json:"_links"`
}

// createPayment creates a payment and returns its answer.
func createPayment(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, path string, body any, headers ...string) created {
	t.Helper()
	r := b.Do(tpp, "POST", path, body, append(append([]string{}, payHeaders...), headers...)...)
	expect(t, r, 201, "")
	var c created
	r.JSON(t, &c)
	if c.PaymentID == "" {
		t.Fatalf("no paymentId: %s", r.Body)
	}
	return c
}

// authID is the authorisation id at the end of a scaStatus link.
func (c created) authID() string {
	h := c.Links["scaStatus"].Href
	return h[strings.LastIndex(h, "/")+1:]
}

// autoSCA completes an authorisation with the automated-SCA endpoint and
// returns the redirect's query.
func autoSCA(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, authID, nationalID, decision string, extra ...string) url.Values {
	t.Helper()
	body := map[string]any{"nationalId": nationalID, "decision": decision}
	if len(extra) > 0 {
		body["context"] = extra[0]
	}
	r := b.Do(tpp, "POST", "/v1/sandbox/sca/"+authID, body)
	expect(t, r, 200, "")
	var out struct {
		Redirect string `json:"redirect"`
	}
	r.JSON(t, &out)
	u, err := url.Parse(out.Redirect)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

// status reads a payment's status.
func status(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, path, id string) (string, bool) {
	t.Helper()
	r := b.Do(tpp, "GET", path+"/"+id+"/status", nil)
	expect(t, r, 200, "")
	var s struct {
		TransactionStatus string `json:"transactionStatus"`
		FundsAvailable    *bool  `json:"fundsAvailable"`
	}
	r.JSON(t, &s)
	if s.FundsAvailable == nil {
		t.Fatalf("status without fundsAvailable: %s", r.Body)
	}
	return s.TransactionStatus, *s.FundsAvailable
}

func wantStatus(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, path, id, want string) {
	t.Helper()
	if got, _ := status(t, b, tpp, path, id); got != want {
		t.Fatalf("payment %s is %s, want %s", id, got, want)
	}
}

// runBatch runs a batch now and returns its counts.
func runBatch(t *testing.T, b *apptest.Bank, tpp *apptest.TPP) map[string]int {
	t.Helper()
	r := b.Do(b.Operator(), "POST", "/v1/sandbox/batch-runs", nil)
	expect(t, r, 200, "")
	var out struct {
		Counts map[string]int `json:"counts"`
	}
	r.JSON(t, &out)
	return out.Counts
}

// expectedBalance reads a sandbox account's expected balance, as the
// sandbox API writes the number.
func expectedBalance(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, iban string) string {
	t.Helper()
	a := knownAccount(t, b, tpp, iban)
	var list []struct {
		Balances []struct {
			BalanceType   string `json:"balanceType"`
			BalanceAmount struct {
				Amount json.Number `json:"amount"`
			} `json:"balanceAmount"`
		} `json:"balances"`
	}
	b.Do(tpp, "GET", "/v1/sandbox/accounts/"+a.ID, nil).JSON(t, &list)
	for _, bal := range list[0].Balances {
		if bal.BalanceType == "expected" {
			return bal.BalanceAmount.Amount.String()
		}
	}
	t.Fatalf("no expected balance on %s", iban)
	return ""
}

func TestPayments_NDCTFromCreationToSettlement(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)
	c := createPayment(t, b, tpp, ndctPath, ndct("100.3", ibanT1Bruk, ibanT2Bruk))
	if c.TransactionStatus != "RCVD" || c.Links["scaRedirect"].Href == "" || c.Links["self"].Href != ndctPath+"/"+c.PaymentID || c.Links["status"].Href == "" {
		t.Fatalf("created %+v", c)
	}
	// The bank's known limitation: an NDCT payment is unreadable until approved.
	e := expect(t, b.Do(tpp, "GET", ndctPath+"/"+c.PaymentID+"/status", nil), 404, "RESOURCE_UNKNOWN")
	if !strings.Contains(e.Message, "known limitation") {
		t.Errorf("404 without the reason: %s", e.Message)
	}
	q := b.CompleteSCA(c.Links["scaRedirect"].Href, t1Number, "", nil, "approve").Query
	if q.Get("psu-id") == "" || q.Get("context") != "PRIVATE" {
		t.Fatalf("SCA redirect %v", q)
	}
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, "ACTC")
	r := b.Do(tpp, "GET", ndctPath+"/"+c.PaymentID, nil)
	expect(t, r, 200, "")
	var got map[string]any
	r.JSON(t, &got)
	if got["instructedAmount"].(map[string]any)["amount"] != "100.30" || got["requestedExecutionDate"] != day.String() || got["creditorName"] != "Mottaker AS" {
		t.Fatalf("payment %s", r.Body)
	}

	// The PSU sees it as pending on the debtor account.
	user := psuOf(b.Consent(tpp, t1Number, "", nil))
	var txs aisTxList
	get(b, tpp, user, "/v1/accounts/"+t1Brukskonto+"/transactions?bookingStatus=both").JSON(t, &txs)
	pendingID := ""
	for _, p := range txs.Transactions.Pending {
		if p.TransactionAmount.Amount == "-100.30" {
			pendingID = p.TransactionID
		}
	}
	if pendingID == "" {
		t.Fatalf("the authorised payment is not pending: %+v", txs.Transactions.Pending)
	}

	// The pending item holds its amount: the expected balance fell by it
	// at authorisation, and fundsAvailable says the payment is covered.
	before1, before2 := expectedBalance(t, b, tpp, ibanT1Bruk), expectedBalance(t, b, tpp, ibanT2Bruk)
	if st, funds := status(t, b, tpp, ndctPath, c.PaymentID); st != "ACTC" || !funds || before1 != "24412.07" || before2 != "8940.12" {
		t.Fatalf("authorised: %s, fundsAvailable %v, expected balances %s and %s, want 24512.37 - 100.30 and 8940.12", st, funds, before1, before2)
	}
	if counts := runBatch(t, b, tpp); counts["ACSC"] != 1 {
		t.Fatalf("batch counts %v", counts)
	}
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, "ACSC")
	if after := expectedBalance(t, b, tpp, ibanT1Bruk); after != before1 {
		t.Fatalf("settling a reserved payment moved the debtor's expected balance: %s → %s", before1, after)
	}
	if after := expectedBalance(t, b, tpp, ibanT2Bruk); after != "9040.42" {
		t.Fatalf("creditor balance %s → %s", before2, after)
	}
	// Booked under the pending item's id, and no longer pending.
	var booked aisTxList
	get(b, tpp, user, "/v1/accounts/"+t1Brukskonto+"/transactions?bookingStatus=both").JSON(t, &booked)
	if len(booked.Transactions.Pending) != len(txs.Transactions.Pending)-1 || booked.Transactions.Booked[0].TransactionID != pendingID || booked.Transactions.Booked[0].BookingDate != day.String() {
		t.Fatalf("after settlement: %+v", booked.Transactions)
	}
}

// usersPSU gets a PSU-ID for a payment-only TPP through GET /v1/users.
func usersPSU(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, nationalID string) string {
	t.Helper()
	href := b.StartSCA(tpp, "GET", "/v1/users", tppRedirect, "users-"+nationalID)
	return b.CompleteSCA(href, nationalID, "", nil, "approve").Query.Get("psu-id")
}

func ncbct(amount, currency, from string) map[string]any {
	return map[string]any{
		"instructedAmount":                  map[string]string{"amount": amount, "currency": currency},
		"debtorAccount":                     map[string]string{"iban": from, "currency": "NOK"},
		"creditorAccount":                   map[string]string{"iban": ibanForeign, "currency": currency},
		"creditorName":                      "Lieferant GmbH",
		"creditorAgent":                     "COBADEFFXXX",
		"creditorAddress":                   map[string]string{"street": "Hauptstraße 1", "city": "Berlin", "country": "DE"},
		"purposeCode":                       "SUPP",
		"remittanceInformationUnstructured": "Invoice 77",
	}
}

func TestPayments_NCBCTPickedUpThenSettled(t *testing.T) {
	b, tpp := setup(t)
	onBankingMorning(t, b)
	psuID := usersPSU(t, b, tpp, t1Number)
	headers := []string{"x-accept-fix: amount-as-string", "PSU-Context: PRIVATE", "PSU-ID: " + psuID, "PSU-IP-Address: 192.0.2.1"}

	// The headers NCBCT needs.
	rejects(t, b, tpp, "POST", ncbctPath, ncbct("1000", "EUR", ibanT1Bruk), 400, "HTTP_HEADER_REQUIRED", "x-accept-fix", "PSU-Context", "PSU-IP-Address", "PSU-ID")
	// From NOK 100,000 (here EUR 10,000 = NOK 116,500) regulatory reporting is required.
	r := b.Do(tpp, "POST", ncbctPath, ncbct("10000", "EUR", ibanF1Drift), append(payHeaders, headers...)...)
	expect(t, r, 400, "FORMAT_ERROR")
	if p := paths(r.Err(t)); !strings.Contains(strings.Join(p, " "), "regulatoryReportingCode") || !strings.Contains(strings.Join(p, " "), "regulatoryReportingInformation") {
		t.Fatalf("paths %v", p)
	}

	c := createPayment(t, b, tpp, ncbctPath, ncbct("1000", "EUR", ibanT1Bruk), headers...)
	if c.TransactionFees["amount"] != "250.00" || c.TransactionFees["currency"] != "NOK" {
		t.Fatalf("fees %v", c.TransactionFees)
	}
	if len(c.TPPMessages) != 1 || c.TPPMessages[0].Category != "WARNING" || !strings.Contains(c.TPPMessages[0].Text, "100,000") {
		t.Fatalf("warning for a small cross-border transfer: %+v", c.TPPMessages)
	}
	autoSCA(t, b, tpp, c.authID(), t1Number, "approve")
	wantStatus(t, b, tpp, ncbctPath, c.PaymentID, "ACTC")
	// Authorisation holds EUR 1,000 at NOK 11.65 plus the NOK 250 fee.
	if bal := expectedBalance(t, b, tpp, ibanT1Bruk); bal != "12612.37" {
		t.Fatalf("authorised: expected balance %s, want 24512.37 - 11650.00 - 250.00", bal)
	}
	runBatch(t, b, tpp)
	wantStatus(t, b, tpp, ncbctPath, c.PaymentID, "ACSP")
	if bal := expectedBalance(t, b, tpp, ibanT1Bruk); bal != "12612.37" {
		t.Fatalf("ACSP moved money: %s", bal)
	}
	runBatch(t, b, tpp)
	wantStatus(t, b, tpp, ncbctPath, c.PaymentID, "ACSC")
	if bal := expectedBalance(t, b, tpp, ibanT1Bruk); bal != "12612.37" {
		t.Fatalf("after settlement %s, want 24512.37 - 11650.00 - 250.00", bal)
	}
	r = b.Do(tpp, "GET", ncbctPath+"/"+c.PaymentID, nil)
	var got map[string]any
	r.JSON(t, &got)
	if got["transactionFeeIndicator"] != true || got["instructedAmount"].(map[string]any)["amount"] != "1000.00" {
		t.Fatalf("payment %s", r.Body)
	}
}

func TestPayments_PeriodicSkippedByTheBatchAndCancelled(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)
	body := ndct("500", ibanT1Bruk, ibanT1Spare)
	body["startDate"], body["frequency"], body["dayOfExecution"], body["executionRule"] = day.String(), "Monthly", "25", "following"
	path := "/v1/periodic-payments/norwegian-domestic-credit-transfers"
	c := createPayment(t, b, tpp, path, body)
	autoSCA(t, b, tpp, c.authID(), t1Number, "approve")
	wantStatus(t, b, tpp, path, c.PaymentID, "ACTC")
	runBatch(t, b, tpp)
	wantStatus(t, b, tpp, path, c.PaymentID, "ACTC")
	if bal := expectedBalance(t, b, tpp, ibanT1Bruk); bal != "24512.37" {
		t.Fatalf("a standing order moved money: %s", bal)
	}
	expect(t, b.Do(tpp, "DELETE", path+"/"+c.PaymentID, nil), 204, "")
	wantStatus(t, b, tpp, path, c.PaymentID, "CANC")
	expect(t, b.Do(tpp, "DELETE", path+"/"+c.PaymentID, nil), 409, "CONFLICT")
	// A periodic payment under the single-payment path is unknown.
	expect(t, b.Do(tpp, "GET", ndctPath+"/"+c.PaymentID+"/status", nil), 404, "RESOURCE_UNKNOWN")
}

func TestPayments_BulkSettlesEachItem(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)
	item := func(amount, to string) map[string]any {
		return map[string]any{"instructedAmount": map[string]string{"amount": amount, "currency": "NOK"}, "creditorAccount": map[string]string{"iban": to}, "creditorName": "Mottaker"}
	}
	body := map[string]any{
		"debtorAccount": map[string]string{"iban": ibanF1Drift}, "requestedExecutionDate": day.String(), "paymentInformationId": "LONN-2026-11",
		"payments": []any{item("1000", ibanT1Bruk), item("2000.5", ibanT2Bruk), item("300", ibanForeign)},
	}
	path := "/v1/bulk-payments/norwegian-domestic-credit-transfers"
	c := createPayment(t, b, tpp, path, body)
	q := autoSCA(t, b, tpp, c.authID(), f1Number, "approve")
	if q.Get("context") != "CORPORATE" {
		t.Fatalf("redirect %v", q)
	}
	// Testfirma 1's own engagement has no approval limit: the payment waits.
	wantStatus(t, b, tpp, path, c.PaymentID, "PATC")
	// An engagement with APPROVE lets Testperson 2 approve it as the second approver.
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/agreements/"+f1Agreement+"/engagements", map[string]any{
		"customer": t2Number, "account": map[string]string{"iban": ibanF1Drift}, "roles": []string{"VIEW", "APPROVE"}, "registerLimit": 0, "approvalLimit": 10000,
	}), 201, "")
	r := b.Do(tpp, "POST", path+"/"+c.PaymentID+"/authorisations", nil, payHeaders...)
	expect(t, r, 201, "")
	var started struct {
		AuthorisationID string `json:"authorisationId"`
	}
	r.JSON(t, &started)
	autoSCA(t, b, tpp, started.AuthorisationID, t2Number, "approve")
	wantStatus(t, b, tpp, path, c.PaymentID, "ACTC")
	runBatch(t, b, tpp)
	wantStatus(t, b, tpp, path, c.PaymentID, "ACSC")
	if bal := expectedBalance(t, b, tpp, ibanT1Bruk); bal != "25512.37" {
		t.Fatalf("the first creditor has %s", bal)
	}
	if bal := expectedBalance(t, b, tpp, ibanF1Drift); bal != "1281266.4" {
		t.Fatalf("the debtor has %s, want 1284566.90 - 3300.50", bal)
	}
}

func TestPayments_NoCoverIsRetriedThenRejected(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)
	// Testperson 2 has NOK 8,940.12 and a credit line of 5,000.
	c := createPayment(t, b, tpp, ndctPath, ndct("20000", ibanT2Bruk, ibanT1Bruk))
	autoSCA(t, b, tpp, c.authID(), t2Number, "approve")
	// Authorised without cover: nothing is held, and the status says so
	// before any batch run.
	if st, funds := status(t, b, tpp, ndctPath, c.PaymentID); st != "ACTC" || funds {
		t.Fatalf("authorised without cover: %s, fundsAvailable %v", st, funds)
	}
	if bal := expectedBalance(t, b, tpp, ibanT2Bruk); bal != "8940.12" {
		t.Fatalf("a payment without cover holds money: %s", bal)
	}
	runBatch(t, b, tpp)
	if st, funds := status(t, b, tpp, ndctPath, c.PaymentID); st != "PDNG" || funds {
		t.Fatalf("without cover: %s, fundsAvailable %v", st, funds)
	}
	expect(t, b.Do(tpp, "DELETE", ndctPath+"/"+c.PaymentID, nil), 409, "CONFLICT")
	// Retried for 3 banking days: still PDNG at the runs of the third.
	last := bank.AddBankingDays(day, 3)
	at := time.Date(last.Year, last.Month, last.Day, 19, 0, 0, 0, bank.Oslo)
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/clock", map[string]string{"now": at.Format(time.RFC3339)}), 200, "")
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, "PDNG")
	// The first run after them rejects it.
	next := bank.AddBankingDays(last, 1)
	at = time.Date(next.Year, next.Month, next.Day, 6, 30, 0, 0, bank.Oslo)
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/clock", map[string]string{"now": at.Format(time.RFC3339)}), 200, "")
	if st, funds := status(t, b, tpp, ndctPath, c.PaymentID); st != "RJCT" || funds {
		t.Fatalf("after the retry days: %s, fundsAvailable %v", st, funds)
	}
	if bal := expectedBalance(t, b, tpp, ibanT2Bruk); bal != "8940.12" {
		t.Fatalf("a rejected payment moved money: %s", bal)
	}
	// The catch-up run that rejected it is in the reports; the runs that
	// only retried it left none.
	page, err := b.Bank.Ops.BatchRuns(0, 100)
	runs := page.Runs
	if err != nil || len(runs) == 0 || runs[0].Trigger != bank.TriggerCatchUp || runs[0].Counts["RJCT"] != 1 || !runs[0].Time.Equal(time.Date(next.Year, next.Month, next.Day, 6, 0, 0, 0, bank.Oslo)) {
		t.Fatalf("newest batch run %+v, %v", runs, err)
	}
}

func TestPayments_CancelAndTheStatusesThatRefuseIt(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)
	later := ndct("10", ibanT1Bruk, ibanT2Bruk)
	later["requestedExecutionDate"] = bank.AddBankingDays(day, 5).String()
	c := createPayment(t, b, tpp, ndctPath, later)
	autoSCA(t, b, tpp, c.authID(), t1Number, "approve")
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, "ACCP")
	runBatch(t, b, tpp)
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, "ACCP") // not due yet
	expect(t, b.Do(tpp, "DELETE", ndctPath+"/"+c.PaymentID, nil), 204, "")
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, "CANC")

	// A settled payment cannot be cancelled; neither can another TPP's.
	s := createPayment(t, b, tpp, ndctPath, ndct("11", ibanT1Bruk, ibanT2Bruk))
	autoSCA(t, b, tpp, s.authID(), t1Number, "approve")
	runBatch(t, b, tpp)
	expect(t, b.Do(tpp, "DELETE", ndctPath+"/"+s.PaymentID, nil), 409, "CONFLICT")
	other := b.NewTPP("987654321", 1, "PSP_PI")
	expect(t, b.Do(other, "DELETE", ndctPath+"/"+c.PaymentID, nil), 404, "RESOURCE_UNKNOWN")
	expect(t, b.Do(other, "GET", ndctPath+"/"+s.PaymentID+"/status", nil), 404, "RESOURCE_UNKNOWN")

	// A rejected SCA rejects the payment and says PAYMENT_FAILED.
	r := createPayment(t, b, tpp, ndctPath, ndct("12", ibanT1Bruk, ibanT2Bruk))
	q := b.CompleteSCA(r.Links["scaRedirect"].Href, t1Number, "", nil, "reject").Query
	if q.Get("code") != "PAYMENT_FAILED" || q.Get("status") != "401" {
		t.Fatalf("reject redirect %v", q)
	}
	expect(t, b.Do(tpp, "GET", ndctPath+"/"+r.PaymentID, nil), 404, "RESOURCE_UNKNOWN") // never approved
	// An SCA left for more than an hour fails at the next batch run.
	x := createPayment(t, b, tpp, ndctPath, ndct("13", ibanT1Bruk, ibanT2Bruk))
	moveTo := time.Date(day.Year, day.Month, day.Day, 12, 5, 0, 0, bank.Oslo) // past the 12:00 run
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/clock", map[string]string{"now": moveTo.Format(time.RFC3339)}), 200, "")
	ar := b.Do(tpp, "GET", ndctPath+"/"+x.PaymentID+"/authorisations/"+x.authID(), nil)
	expect(t, ar, 200, "")
	if !strings.Contains(string(ar.Body), "FAILED") {
		t.Fatalf("authorisation after the hour: %s", ar.Body)
	}
}

// loadScenario replaces the sandbox data with an example scenario.
func loadScenario(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, name string) {
	t.Helper()
	data, err := os.ReadFile(repoFile(t, "assets/scenarios/"+name))
	if err != nil {
		t.Fatal(err)
	}
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/scenario", data), 200, "")
}

func TestPayments_TwoApprovers(t *testing.T) {
	b, tpp := setup(t)
	loadScenario(t, b, tpp, "corporate-two-approvers.json")
	onBankingMorning(t, b)
	const kari, ola = "01019012345", "02029054321"
	const fjordtech = "NO6715031112238"
	body := ndct("60000", fjordtech, "NO2615032223335")
	c := createPayment(t, b, tpp, ndctPath, body)
	q := b.CompleteSCA(c.Links["scaRedirect"].Href, ola, "", nil, "approve").Query
	if q.Get("context") != "CORPORATE" || q.Get("psu-corporate-id") == "" {
		t.Fatalf("Ola's approval: %v", q)
	}
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, "PATC")
	second := func() string {
		r := b.Do(tpp, "POST", ndctPath+"/"+c.PaymentID+"/authorisations", nil, payHeaders...)
		expect(t, r, 201, "")
		var a struct {
			AuthorisationID string `json:"authorisationId"`
		}
		r.JSON(t, &a)
		return a.AuthorisationID
	}
	// Ola cannot approve twice; the payment waits on.
	if q := autoSCA(t, b, tpp, second(), ola, "approve"); q.Get("code") != "PAYMENT_FAILED" {
		t.Fatalf("Ola again: %v", q)
	}
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, "PATC")
	autoSCA(t, b, tpp, second(), kari, "approve")
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, "ACTC")
	runBatch(t, b, tpp)
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, "ACSC")
	// Authorising a settled payment is refused.
	expect(t, b.Do(tpp, "POST", ndctPath+"/"+c.PaymentID+"/authorisations", nil, payHeaders...), 409, "CONFLICT")
}

func TestBaskets_MixedPaymentsAreApprovedEachOnItsOwn(t *testing.T) {
	b, tpp := setup(t)
	onBankingMorning(t, b)
	psuID := usersPSU(t, b, tpp, t1Number)
	n1 := createPayment(t, b, tpp, ndctPath, ndct("100", ibanT1Bruk, ibanT2Bruk))
	n2 := createPayment(t, b, tpp, ncbctPath, ncbct("50", "EUR", ibanT1Bruk), "x-accept-fix: amount-as-string", "PSU-Context: PRIVATE", "PSU-ID: "+psuID, "PSU-IP-Address: 192.0.2.1")
	// A payment from Testperson 2's account, which Testperson 1 may not use.
	foreign := createPayment(t, b, tpp, ndctPath, ndct("200", ibanT2Bruk, ibanT1Bruk))

	r := b.Do(tpp, "POST", "/v1/signing-baskets", map[string]any{"paymentIds": []string{n1.PaymentID, n2.PaymentID, foreign.PaymentID}})
	expect(t, r, 201, "")
	var basket struct {
		BasketID          string `json:"basketId"`
		TransactionStatus string `json:"transactionStatus"`
		Links             map[string]struct {
			Href string `json:"href"`
		} `json:"_links"`
	}
	r.JSON(t, &basket)
	if basket.TransactionStatus != "RCVD" || basket.Links["startAuthorisation"].Href != "/v1/signing-baskets/"+basket.BasketID+"/authorisations" {
		t.Fatalf("basket %s", r.Body)
	}
	path := "/v1/signing-baskets/" + basket.BasketID
	// A payment in a basket is authorised through the basket.
	expect(t, b.Do(tpp, "POST", ndctPath+"/"+n1.PaymentID+"/authorisations", nil, payHeaders...), 409, "CONFLICT")
	rejects(t, b, tpp, "POST", path+"/authorisations", nil, 400, "HTTP_HEADER_REQUIRED", "x-accept-fix", "PSU-ID", "PSU-IP-Address")
	r = b.Do(tpp, "POST", path+"/authorisations", nil, append(payHeaders, "x-accept-fix: amount-as-string", "PSU-ID: "+psuID, "PSU-IP-Address: 192.0.2.1")...)
	expect(t, r, 201, "")
	var a created
	r.JSON(t, &a)
	psu := b.Browser()
	page := psu.Open(a.Links["scaRedirect"].Href)
	if !strings.Contains(page.Text, "3 payments") {
		t.Fatalf("the basket's SCA page: %s", page.Text)
	}
	q := psu.CompleteSCA(a.Links["scaRedirect"].Href, t1Number, "", nil, "approve").Query
	if q.Get("psu-id") != psuID {
		t.Fatalf("basket redirect %v", q)
	}
	wantStatus(t, b, tpp, ndctPath, n1.PaymentID, "ACTC")
	wantStatus(t, b, tpp, ncbctPath, n2.PaymentID, "ACTC")
	r = b.Do(tpp, "GET", path+"/status", nil)
	if !strings.Contains(string(r.Body), `"RJCT"`) {
		t.Fatalf("basket status with a rejected payment: %s", r.Body)
	}
	// The foreign payment was rejected in the basket's SCA, never approved:
	// still it is readable after that SCA, with why it was rejected.
	for _, path := range []string{ndctPath + "/" + foreign.PaymentID + "/status", ndctPath + "/" + foreign.PaymentID} {
		r = b.Do(tpp, "GET", path, nil)
		expect(t, r, 200, "")
		var read struct {
			TransactionStatus string           `json:"transactionStatus"`
			TPPMessages       []apierr.Message `json:"tppMessages"`
		}
		r.JSON(t, &read)
		if read.TransactionStatus != "RJCT" || len(read.TPPMessages) != 1 || read.TPPMessages[0].Code != "PAYMENT_FAILED" || !strings.Contains(read.TPPMessages[0].Text, "may not pay from") {
			t.Fatalf("%s: %s", path, r.Body)
		}
	}
	if st := storedStatus(t, b, foreign.PaymentID); st != "RJCT" {
		t.Fatalf("the payment Testperson 1 may not use is %s", st)
	}
	runBatch(t, b, tpp)
	wantStatus(t, b, tpp, ndctPath, n1.PaymentID, "ACSC")
	wantStatus(t, b, tpp, ncbctPath, n2.PaymentID, "ACSP")
	runBatch(t, b, tpp)
	wantStatus(t, b, tpp, ncbctPath, n2.PaymentID, "ACSC")
	if r := b.Do(tpp, "GET", path, nil); !strings.Contains(string(r.Body), `"transactionStatus":"RJCT"`) || !strings.Contains(string(r.Body), n2.PaymentID) {
		t.Fatalf("the settled basket still reports its rejected payment: %s", r.Body)
	}
	// An authorised basket can no longer be deleted.
	expect(t, b.Do(tpp, "DELETE", path, nil), 409, "CONFLICT")
	r = b.Do(tpp, "GET", path+"/authorisations/"+a.authID(), nil)
	if !strings.Contains(string(r.Body), "FINALISED") {
		t.Fatalf("basket SCA status %s", r.Body)
	}
}

func TestBaskets_Rules(t *testing.T) {
	b, tpp := setup(t)
	onBankingMorning(t, b)
	var ids []string
	for i := range 11 {
		ids = append(ids, createPayment(t, b, tpp, ndctPath, ndct(fmt.Sprint(10+i), ibanT1Bruk, ibanT2Bruk)).PaymentID)
	}
	rejects(t, b, tpp, "POST", "/v1/signing-baskets", map[string]any{"paymentIds": ids}, 400, "FORMAT_ERROR", "paymentIds")
	rejects(t, b, tpp, "POST", "/v1/signing-baskets", map[string]any{"paymentIds": []string{}}, 400, "FORMAT_ERROR", "paymentIds")
	rejects(t, b, tpp, "POST", "/v1/signing-baskets", map[string]any{"paymentIds": []string{ids[0], ids[0]}}, 400, "FORMAT_ERROR", "paymentIds[1]")
	rejects(t, b, tpp, "POST", "/v1/signing-baskets", map[string]any{"paymentIds": []string{ids[0], "enc!!nope"}}, 404, "RESOURCE_UNKNOWN", "paymentIds[1]")
	rejects(t, b, tpp, "POST", "/v1/signing-baskets", map[string]any{"ids": ids[:2]}, 400, "FORMAT_ERROR", "paymentIds")
	other := b.NewTPP("987654321", 1, "PSP_PI")
	rejects(t, b, other, "POST", "/v1/signing-baskets", map[string]any{"paymentIds": ids[:1]}, 404, "RESOURCE_UNKNOWN", "paymentIds[0]")

	periodic := ndct("5", ibanT1Bruk, ibanT1Spare)
	periodic["startDate"], periodic["frequency"] = bank.DateOf(time.Now()).AddDays(10).String(), "Weekly"
	p := createPayment(t, b, tpp, "/v1/periodic-payments/norwegian-domestic-credit-transfers", periodic)
	rejects(t, b, tpp, "POST", "/v1/signing-baskets", map[string]any{"paymentIds": []string{ids[0], p.PaymentID}}, 400, "REFERENCE_MIX_INVALID", "paymentIds[1]")
	bulk := map[string]any{"debtorAccount": map[string]string{"iban": ibanT1Bruk}, "requestedExecutionDate": bank.DateOf(time.Now()).AddDays(10).String(), "paymentInformationId": "B1",
		"payments": []any{map[string]any{"instructedAmount": map[string]string{"amount": "1", "currency": "NOK"}, "creditorAccount": map[string]string{"iban": ibanT2Bruk}, "creditorName": "X"}}}
	bp := createPayment(t, b, tpp, "/v1/bulk-payments/norwegian-domestic-credit-transfers", bulk)
	rejects(t, b, tpp, "POST", "/v1/signing-baskets", map[string]any{"paymentIds": []string{bp.PaymentID}}, 400, "REFERENCE_MIX_INVALID", "paymentIds[0]")

	// A payment that is no longer RCVD, or in an open basket already.
	autoSCA(t, b, tpp, createdAuth(t, b, tpp, ids[1]), t1Number, "approve")
	rejects(t, b, tpp, "POST", "/v1/signing-baskets", map[string]any{"paymentIds": []string{ids[1]}}, 409, "CONFLICT", "paymentIds[0]")
	r := b.Do(tpp, "POST", "/v1/signing-baskets", map[string]any{"paymentIds": ids[2:4]})
	expect(t, r, 201, "")
	var basket struct {
		BasketID string `json:"basketId"`
	}
	r.JSON(t, &basket)
	rejects(t, b, tpp, "POST", "/v1/signing-baskets", map[string]any{"paymentIds": ids[3:5]}, 409, "CONFLICT", "paymentIds[0]")
	expect(t, b.Do(other, "GET", "/v1/signing-baskets/"+basket.BasketID, nil), 404, "RESOURCE_UNKNOWN")
	// Deleted before any authorisation, its payments are free again.
	expect(t, b.Do(tpp, "DELETE", "/v1/signing-baskets/"+basket.BasketID, nil), 204, "")
	expect(t, b.Do(tpp, "GET", "/v1/signing-baskets/"+basket.BasketID, nil), 404, "RESOURCE_UNKNOWN")
	expect(t, b.Do(tpp, "POST", "/v1/signing-baskets", map[string]any{"paymentIds": ids[3:5]}), 201, "")
}

// storedStatus reads a payment's status in the data file.
func storedStatus(t *testing.T, b *apptest.Bank, id string) string {
	t.Helper()
	var st string
	if err := b.DB.View(func(tx bank.Tx) error {
		p, err := tx.Payment(id)
		st = p.Status
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return st
}

// createdAuth is the first authorisation of a payment: its SCA status
// link's id, read from the authorisations the bank started.
func createdAuth(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, paymentID string) string {
	t.Helper()
	var auth string
	if err := b.DB.View(func(tx bank.Tx) error {
		p, err := tx.Payment(paymentID)
		if err == nil {
			auth = p.Authorisations[0]
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return auth
}

// with returns a copy of a body with fields set (nil deletes).
func with(body map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range body {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

func TestPayments_EveryRuleRefusesAndStoresNothing(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)
	psuID := usersPSU(t, b, tpp, t1Number)
	nc := []string{"x-accept-fix: amount-as-string", "PSU-Context: PRIVATE", "PSU-ID: " + psuID, "PSU-IP-Address: 192.0.2.1"}
	base := ndct("100", ibanT1Bruk, ibanT2Bruk)
	cross := ncbct("100", "EUR", ibanT1Bruk)
	periodic := with(base, "startDate", day.String(), "frequency", "Monthly")
	item := map[string]any{"instructedAmount": map[string]string{"amount": "1", "currency": "NOK"}, "creditorAccount": map[string]string{"iban": ibanT2Bruk}, "creditorName": "X"}
	bulk := map[string]any{"debtorAccount": map[string]string{"iban": ibanT1Bruk}, "requestedExecutionDate": day.String(), "paymentInformationId": "B1", "payments": []any{item}}
	kid := func(ref, typ string) []any { return []any{map[string]string{"reference": ref, "referenceType": typ}} }
	const periodicPath, bulkPath = "/v1/periodic-payments/norwegian-domestic-credit-transfers", "/v1/bulk-payments/norwegian-domestic-credit-transfers"
	cases := []struct {
		name    string
		path    string
		body    any
		headers []string
		status  int
		code    string
		paths   []string
	}{
		{"amount zero", ndctPath, with(base, "instructedAmount", map[string]string{"amount": "0", "currency": "NOK"}), nil, 400, "FORMAT_ERROR", []string{"instructedAmount.amount"}},
		{"amount negative", ndctPath, with(base, "instructedAmount", map[string]string{"amount": "-5", "currency": "NOK"}), nil, 400, "FORMAT_ERROR", []string{"instructedAmount.amount"}},
		{"three decimals in NOK", ndctPath, with(base, "instructedAmount", map[string]string{"amount": "1.005", "currency": "NOK"}), nil, 400, "FORMAT_ERROR", []string{"instructedAmount.amount"}},
		{"amount not a number", ndctPath, with(base, "instructedAmount", map[string]any{"amount": true, "currency": "NOK"}), nil, 400, "FORMAT_ERROR", []string{"instructedAmount.amount"}},
		{"NDCT in EUR", ndctPath, with(base, "instructedAmount", map[string]string{"amount": "1", "currency": "EUR"}), nil, 400, "FORMAT_ERROR", []string{"instructedAmount.currency"}},
		{"unknown currency", ncbctPath, with(cross, "instructedAmount", map[string]string{"amount": "1", "currency": "XXX"}), nc, 400, "FORMAT_ERROR", []string{"instructedAmount.currency"}},
		{"no creditor name", ndctPath, with(base, "creditorName", nil), nil, 400, "FORMAT_ERROR", []string{"creditorName"}},
		{"creditor name of 71", ndctPath, with(base, "creditorName", strings.Repeat("x", 71)), nil, 400, "FORMAT_ERROR", []string{"creditorName"}},
		{"bad IBAN check digits", ndctPath, with(base, "creditorAccount", map[string]string{"iban": "NO3915030123457"}), nil, 400, "FORMAT_ERROR", []string{"creditorAccount.iban"}},
		{"bad BBAN MOD11", ndctPath, with(base, "creditorAccount", map[string]string{"bban": "15030123458"}), nil, 400, "FORMAT_ERROR", []string{"creditorAccount.bban"}},
		{"IBAN of 35", ndctPath, with(base, "creditorAccount", map[string]string{"iban": "NO38" + strings.Repeat("1", 31)}), nil, 400, "FORMAT_ERROR", []string{"creditorAccount.iban"}},
		{"BBAN not in the IBAN", ndctPath, with(base, "creditorAccount", map[string]string{"iban": ibanT2Bruk, "bban": "15030123457"}), nil, 400, "FORMAT_ERROR", []string{"creditorAccount.bban"}},
		{"debtor not a sandbox account", ndctPath, with(base, "debtorAccount", map[string]string{"iban": "NO9386011117947"}), nil, 400, "FORMAT_ERROR", []string{"debtorAccount"}},
		{"debtor another PSU's", ndctPath, with(base, "debtorAccount", map[string]string{"iban": ibanT2Bruk}, "creditorAccount", map[string]string{"iban": ibanT1Bruk}), []string{"PSU-ID: " + psuID}, 400, "FORMAT_ERROR", []string{"debtorAccount"}},
		{"creditor is the debtor", ndctPath, with(base, "creditorAccount", map[string]string{"iban": ibanT1Bruk}), nil, 400, "FORMAT_ERROR", []string{"creditorAccount"}},
		{"bad country", ndctPath, with(base, "creditorAddress", map[string]string{"country": "XX"}), nil, 400, "FORMAT_ERROR", []string{"creditorAddress.country"}},
		{"street of 71", ndctPath, with(base, "creditorAddress", map[string]string{"country": "NO", "street": strings.Repeat("g", 71)}), nil, 400, "FORMAT_ERROR", []string{"creditorAddress.street"}},
		{"empty remittance", ndctPath, with(base, "remittanceInformationUnstructured", ""), nil, 400, "FORMAT_ERROR", []string{"remittanceInformationUnstructured"}},
		{"remittance of 141", ndctPath, with(base, "remittanceInformationUnstructured", strings.Repeat("r", 141)), nil, 400, "FORMAT_ERROR", []string{"remittanceInformationUnstructured"}},
		{"both remittances", ndctPath, with(base, "remittanceInformationStructuredArray", kid("1234567890123", "KID")), nil, 400, "FORMAT_ERROR", []string{"remittanceInformationStructuredArray"}},
		{"removed structured field", ndctPath, with(base, "remittanceInformationUnstructured", nil, "remittanceInformationStructured", map[string]string{"reference": "1"}), nil, 400, "FORMAT_ERROR", []string{"remittanceInformationStructured"}},
		{"KID check digit", ndctPath, with(base, "remittanceInformationUnstructured", nil, "remittanceInformationStructuredArray", kid("1234567890121", "KID")), nil, 400, "KID_INVALID", []string{"remittanceInformationStructuredArray[0].reference"}},
		{"KID with a letter", ndctPath, with(base, "remittanceInformationUnstructured", nil, "remittanceInformationStructuredArray", kid("12345A", "OCR")), nil, 400, "KID_INVALID", []string{"remittanceInformationStructuredArray[0].reference"}},
		{"KID missing", ndctPath, with(base, "creditorAccount", map[string]string{"iban": ibanF2Drift}), nil, 400, "KID_MISSING", []string{"remittanceInformationStructuredArray"}},
		{"date in the past", ndctPath, with(base, "requestedExecutionDate", day.AddDays(-1).String()), nil, 400, "EXECUTION_DATE_INVALID", []string{"requestedExecutionDate"}},
		{"date over a year ahead", ndctPath, with(base, "requestedExecutionDate", day.AddMonths(12).AddDays(1).String()), nil, 400, "EXECUTION_DATE_INVALID", []string{"requestedExecutionDate"}},
		{"date malformed", ndctPath, with(base, "requestedExecutionDate", "2026-02-30"), nil, 400, "FORMAT_ERROR", []string{"requestedExecutionDate"}},
		{"periodic field on a single payment", ndctPath, with(base, "frequency", "Monthly"), nil, 400, "FORMAT_ERROR", []string{"frequency"}},
		{"not JSON", ndctPath, "{", nil, 400, "BAD_REQUEST", nil},
		{"no redirect headers", ndctPath, base, []string{"TPP-Redirect-URI:", "TPP-Session-ID:"}, 400, "HTTP_HEADER_REQUIRED", []string{"TPP-Redirect-URI", "TPP-Session-ID"}},
		{"unknown PSU-ID", ndctPath, base, []string{"PSU-ID: 6f1c0a77-2f0e-4c55-9a7b-3d1b0c1e2f3a"}, 400, "FORMAT_ERROR", []string{"PSU-ID"}},
		{"corporate context without PSU-Corporate-ID", ncbctPath, cross, append(append([]string{}, nc...), "PSU-Context: CORPORATE"), 400, "CORPORATE_ID_REQUIRED", []string{"PSU-Corporate-ID"}},
		{"NCBCT without creditor currency", ncbctPath, with(cross, "creditorAccount", map[string]string{"iban": ibanForeign}), nc, 400, "FORMAT_ERROR", []string{"creditorAccount.currency"}},
		{"NCBCT bban without agent", ncbctPath, with(cross, "creditorAccount", map[string]string{"bban": "532013000", "currency": "EUR"}, "creditorAgent", nil), nc, 400, "FORMAT_ERROR", []string{"creditorAgent"}},
		{"NCBCT bad BIC", ncbctPath, with(cross, "creditorAgent", "COBA1EFF"), nc, 400, "FORMAT_ERROR", []string{"creditorAgent"}},
		{"NCBCT bad purpose", ncbctPath, with(cross, "purposeCode", "GIFT"), nc, 400, "FORMAT_ERROR", []string{"purposeCode"}},
		{"NCBCT bad reporting code", ncbctPath, with(cross, "regulatoryReportingCode", "99"), nc, 400, "FORMAT_ERROR", []string{"regulatoryReportingCode"}},
		{"NCBCT reporting text of 141", ncbctPath, with(cross, "regulatoryReportingInformation", strings.Repeat("i", 141)), nc, 400, "FORMAT_ERROR", []string{"regulatoryReportingInformation"}},
		{"NDCT with a purpose code", ndctPath, with(base, "purposeCode", "SUPP"), nil, 400, "FORMAT_ERROR", []string{"purposeCode"}},
		{"periodic without start", periodicPath, with(periodic, "startDate", nil), nil, 400, "FORMAT_ERROR", []string{"startDate"}},
		{"periodic start in the past", periodicPath, with(periodic, "startDate", day.AddDays(-3).String()), nil, 400, "EXECUTION_DATE_INVALID", []string{"startDate"}},
		{"periodic end before start", periodicPath, with(periodic, "endDate", day.AddDays(-1).String()), nil, 400, "FORMAT_ERROR", []string{"endDate"}},
		{"periodic frequency", periodicPath, with(periodic, "frequency", "Fortnightly"), nil, 400, "FORMAT_ERROR", []string{"frequency"}},
		{"periodic day with a zero", periodicPath, with(periodic, "dayOfExecution", "05"), nil, 400, "FORMAT_ERROR", []string{"dayOfExecution"}},
		{"periodic day 32", periodicPath, with(periodic, "dayOfExecution", "32"), nil, 400, "FORMAT_ERROR", []string{"dayOfExecution"}},
		{"periodic rule", periodicPath, with(periodic, "executionRule", "nearest"), nil, 400, "FORMAT_ERROR", []string{"executionRule"}},
		{"months without MonthlyVariable", periodicPath, with(periodic, "monthsOfExecution", []string{"1"}), nil, 400, "FORMAT_ERROR", []string{"monthsOfExecution"}},
		{"months duplicated", periodicPath, with(periodic, "frequency", "MonthlyVariable", "monthsOfExecution", []string{"1", "6", "1"}), nil, 400, "FORMAT_ERROR", []string{"monthsOfExecution[2]"}},
		{"month 13", periodicPath, with(periodic, "frequency", "MonthlyVariable", "monthsOfExecution", []string{"13"}), nil, 400, "FORMAT_ERROR", []string{"monthsOfExecution[0]"}},
		{"MonthlyVariable without months", periodicPath, with(periodic, "frequency", "MonthlyVariable"), nil, 400, "FORMAT_ERROR", []string{"monthsOfExecution"}},
		{"bulk without items", bulkPath, with(bulk, "payments", []any{}), nil, 400, "FORMAT_ERROR", []string{"payments"}},
		{"bulk of 101", bulkPath, with(bulk, "payments", func() []any {
			out := make([]any, 101)
			for i := range out {
				out[i] = item
			}
			return out
		}()), nil, 400, "FORMAT_ERROR", []string{"payments"}},
		{"bulk item index", bulkPath, with(bulk, "payments", []any{item, with(item, "creditorName", nil)}), nil, 400, "FORMAT_ERROR", []string{"payments[1].creditorName"}},
		{"bulk without information id", bulkPath, with(bulk, "paymentInformationId", nil), nil, 400, "FORMAT_ERROR", []string{"paymentInformationId"}},
		{"bulk without date", bulkPath, with(bulk, "requestedExecutionDate", nil), nil, 400, "FORMAT_ERROR", []string{"requestedExecutionDate"}},
		{"bulk amount at the top", bulkPath, with(bulk, "instructedAmount", map[string]string{"amount": "1", "currency": "NOK"}), nil, 400, "FORMAT_ERROR", []string{"instructedAmount"}},
		{"unknown product", "/v1/payments/sepa-credit-transfers", base, nil, 404, "PRODUCT_UNKNOWN", nil},
		{"NCBCT periodic", "/v1/periodic-payments/norwegian-cross-border-credit-transfers", cross, nil, 400, "PRODUCT_INVALID", nil},
		{"NCBCT bulk", "/v1/bulk-payments/norwegian-cross-border-credit-transfers", cross, nil, 400, "PRODUCT_INVALID", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rejectsWith(t, b, tpp, "POST", c.path, c.body, append(append([]string{}, payHeaders...), c.headers...), c.status, c.code, c.paths...)
		})
	}
}

func TestPayments_DuplicatesHolidaysKIDAndExemption(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)

	// A logical duplicate within 24 hours is refused, unless allowed.
	first := createPayment(t, b, tpp, ndctPath, ndct("77", ibanT1Bruk, ibanT2Bruk))
	e := rejectsWith(t, b, tpp, "POST", ndctPath, ndct("77", ibanT1Bruk, ibanT2Bruk), payHeaders, 409, "CONFLICT")
	if !strings.Contains(e.Message, first.PaymentID) {
		t.Fatalf("the conflict does not name the earlier payment: %s", e.Message)
	}
	allowed := createPayment(t, b, tpp, ndctPath+"?allowLogicalDuplicate=true", ndct("77", ibanT1Bruk, ibanT2Bruk))
	expect(t, b.Do(tpp, "POST", ndctPath+"?allowLogicalDuplicate=maybe", ndct("78", ibanT1Bruk, ibanT2Bruk), payHeaders...), 400, "FORMAT_ERROR")
	// Rejected and cancelled earlier payments are no duplicates.
	autoSCA(t, b, tpp, first.authID(), t1Number, "reject")
	expect(t, b.Do(tpp, "DELETE", ndctPath+"/"+allowed.PaymentID, nil), 204, "")
	createPayment(t, b, tpp, ndctPath, ndct("77", ibanT1Bruk, ibanT2Bruk))

	// A date that is not a banking day moves to the next one, with a
	// warning, and the authorised payment is ACWC (accepted with change).
	christmas := bank.Date{Year: day.Year, Month: time.December, Day: 25}
	if christmas.Before(day) {
		christmas.Year++
	}
	c := createPayment(t, b, tpp, ndctPath, with(ndct("79", ibanT1Bruk, ibanT2Bruk), "requestedExecutionDate", christmas.String()))
	if len(c.TPPMessages) != 1 || c.TPPMessages[0].Category != "WARNING" || !strings.Contains(c.TPPMessages[0].Text, "Første juledag") {
		t.Fatalf("warnings %+v", c.TPPMessages)
	}
	autoSCA(t, b, tpp, c.authID(), t1Number, "approve")
	var got map[string]any
	b.Do(tpp, "GET", ndctPath+"/"+c.PaymentID, nil).JSON(t, &got)
	if want := bank.NextBankingDay(christmas).String(); got["requestedExecutionDate"] != want || got["transactionStatus"] != "ACWC" {
		t.Fatalf("a Christmas payment: %v, want %s ACWC", got, want)
	}

	// A valid KID to an account that requires one.
	k := with(ndct("80", ibanT1Bruk, ibanF2Drift), "remittanceInformationUnstructured", nil,
		"remittanceInformationStructuredArray", []any{map[string]string{"reference": "1234567890128", "referenceType": "KID"}})
	createPayment(t, b, tpp, ndctPath, k)

	// With the exemption policy, a transfer between the PSU's own accounts
	// needs no SCA.
	if _, err := b.Bank.Ops.UpdateSettings(func(s *bank.Settings) { s.Exemption = bank.ExemptOwnAccounts }); err != nil {
		t.Fatal(err)
	}
	psuID := usersPSU(t, b, tpp, t1Number)
	r := b.Do(tpp, "POST", ndctPath, ndct("81", ibanT1Bruk, ibanT1Spare), append(append([]string{}, payHeaders...), "PSU-ID: "+psuID)...)
	expect(t, r, 201, "")
	var ex created
	r.JSON(t, &ex)
	if ex.TransactionStatus != "ACTC" || ex.Links["scaRedirect"].Href != "" {
		t.Fatalf("exempted payment %s", r.Body)
	}
	if sr := b.Do(tpp, "GET", ex.Links["scaStatus"].Href, nil); !strings.Contains(string(sr.Body), "EXEMPTED") {
		t.Fatalf("scaStatus %s", sr.Body)
	}
	// To someone else's account it still needs SCA.
	if c := createPayment(t, b, tpp, ndctPath, ndct("82", ibanT1Bruk, ibanT2Bruk), "PSU-ID: "+psuID); c.TransactionStatus != "RCVD" {
		t.Fatalf("a payment to another PSU was exempted")
	}
	// A payment for a named PSU cannot be approved by another.
	named := createPayment(t, b, tpp, ndctPath, ndct("83", ibanT1Bruk, ibanT2Bruk), "PSU-ID: "+psuID)
	rejects(t, b, tpp, "POST", "/v1/sandbox/sca/"+named.authID(), map[string]string{"nationalId": t2Number, "decision": "approve"}, 401, "PSU_CREDENTIALS_INVALID", "nationalId")
}

func TestPayments_RolesAndCatchUp(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)
	reader := b.NewTPP("555555555", 1, "PSP_AI")
	expect(t, b.Do(reader, "POST", ndctPath, ndct("1", ibanT1Bruk, ibanT2Bruk), payHeaders...), 403, "FORBIDDEN")
	expect(t, b.Do(reader, "POST", "/v1/signing-baskets", map[string]any{"paymentIds": []string{"x"}}), 403, "FORBIDDEN")

	// A payment due tomorrow settles when the clock jumps past tomorrow's runs.
	next := bank.AddBankingDays(day, 1)
	c := createPayment(t, b, tpp, ndctPath, with(ndct("90", ibanT1Bruk, ibanT2Bruk), "requestedExecutionDate", next.String()))
	autoSCA(t, b, tpp, c.authID(), t1Number, "approve")
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, "ACCP")
	at := time.Date(next.Year, next.Month, next.Day, 9, 30, 0, 0, bank.Oslo)
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/clock", map[string]string{"now": at.Format(time.RFC3339)}), 200, "")
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, "ACSC")
	user := psuOf(b.Consent(tpp, t1Number, "", nil))
	var txs aisTxList
	get(b, tpp, user, "/v1/accounts/"+t1Brukskonto+"/transactions").JSON(t, &txs)
	if txs.Transactions.Booked[0].BookingDate != next.String() || txs.Transactions.Booked[0].TransactionAmount.Amount != "-90.00" {
		t.Fatalf("the settled payment is booked as %+v", txs.Transactions.Booked[0])
	}
}

func TestFaults(t *testing.T) {
	b, tpp := setup(t)
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/faults", map[string]any{"outage": true}), 200, "")
	e := expect(t, b.Do(tpp, "GET", "/v1/sandbox/customers", nil), 503, "SYSTEM_ERROR")
	if !strings.Contains(e.Message, "simulated outage") {
		t.Fatalf("outage message %q", e.Message)
	}
	// The faults endpoint and the health check still answer.
	expect(t, b.Do(tpp, "GET", "/v1/sandbox/faults", nil), 200, "")
	expect(t, b.Do(nil, "GET", "/healthz", nil), 200, "")
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/faults", map[string]any{"errorRate": 1}), 200, "")
	expect(t, b.Do(tpp, "GET", "/v1/sandbox/customers", nil), 500, "SYSTEM_ERROR")
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/faults", map[string]any{"latencyMs": 150}), 200, "")
	start := time.Now()
	expect(t, b.Do(tpp, "GET", "/v1/sandbox/customers", nil), 200, "")
	if took := time.Since(start); took < 150*time.Millisecond {
		t.Fatalf("latency 150 ms took %s", took)
	}
	for _, bad := range []map[string]any{{"latencyMs": -1}, {"errorRate": 1.5}, {"latencyMs": 60001}} {
		rejects(t, b, b.Operator(), "PUT", "/v1/sandbox/faults", bad, 400, "FORMAT_ERROR")
	}
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/faults", map[string]any{}), 200, "")
}

// A bulk payment whose items do not all find cover settles those that do;
// when the retry days are over, the rest are rejected and the bulk ends
// PART (docs/PAYMENTS.md 5), with fundsAvailable false.
func TestPayments_BulkPartlySettledEndsPART(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)
	// Testperson 2 has NOK 8,940.12 and a credit line of 5,000: the first
	// item fits, the second does not.
	item := func(amount string) map[string]any {
		return map[string]any{"instructedAmount": map[string]string{"amount": amount, "currency": "NOK"}, "creditorAccount": map[string]string{"iban": ibanT1Bruk}, "creditorName": "Mottaker"}
	}
	path := "/v1/bulk-payments/norwegian-domestic-credit-transfers"
	c := createPayment(t, b, tpp, path, map[string]any{
		"debtorAccount": map[string]string{"iban": ibanT2Bruk}, "requestedExecutionDate": day.String(), "paymentInformationId": "PART-1",
		"payments": []any{item("1000"), item("50000")},
	})
	autoSCA(t, b, tpp, c.authID(), t2Number, "approve")
	runBatch(t, b, tpp)
	if st, funds := status(t, b, tpp, path, c.PaymentID); st != "PDNG" || funds {
		t.Fatalf("one item without cover: %s, fundsAvailable %v", st, funds)
	}
	if bal := expectedBalance(t, b, tpp, ibanT2Bruk); bal != "7940.12" {
		t.Fatalf("the item with cover did not settle: %s", bal)
	}
	// The first run after the 3 retry days rejects the waiting item.
	next := bank.AddBankingDays(day, 4)
	at := time.Date(next.Year, next.Month, next.Day, 6, 30, 0, 0, bank.Oslo)
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/clock", map[string]string{"now": at.Format(time.RFC3339)}), 200, "")
	if st, funds := status(t, b, tpp, path, c.PaymentID); st != "PART" || funds {
		t.Fatalf("after the retry days: %s, fundsAvailable %v", st, funds)
	}
	var read struct {
		Payments []struct {
			TransactionStatus string `json:"transactionStatus"`
		} `json:"payments"`
	}
	r := b.Do(tpp, "GET", path+"/"+c.PaymentID, nil)
	expect(t, r, 200, "")
	r.JSON(t, &read)
	if len(read.Payments) != 2 || read.Payments[0].TransactionStatus != "ACSC" || read.Payments[1].TransactionStatus != "RJCT" {
		t.Fatalf("items %+v", read.Payments)
	}
	if bal := expectedBalance(t, b, tpp, ibanT2Bruk); bal != "7940.12" {
		t.Fatalf("the rejected item moved money: %s", bal)
	}
	// A PART payment can no longer be cancelled.
	expect(t, b.Do(tpp, "DELETE", path+"/"+c.PaymentID, nil), 409, "CONFLICT")
}

// A PSU-Corporate-ID whose customer has since been deleted is refused at
// its header, as a PSU-ID's is, and nothing is stored.
func TestPayments_CorporateIDOfADeletedCustomer(t *testing.T) {
	b, tpp := setup(t)
	onBankingMorning(t, b)
	q := b.Consent(tpp, f1Number, f1Agreement, nil)
	corporate := q.Get("psu-corporate-id")
	if corporate == "" {
		t.Fatalf("no psu-corporate-id in %v", q)
	}
	var customers []struct {
		CustomerID     string `json:"customerId"`
		CustomerNumber string `json:"customerNumber"`
	}
	r := b.Do(tpp, "GET", "/v1/sandbox/customers", nil)
	expect(t, r, 200, "")
	r.JSON(t, &customers)
	for _, c := range customers {
		if c.CustomerNumber == f1Number {
			expect(t, b.Do(tpp, "DELETE", "/v1/sandbox/customers/"+c.CustomerID, nil), 204, "")
		}
	}
	headers := append([]string{"PSU-Corporate-ID: " + corporate}, payHeaders...)
	rejectsWith(t, b, tpp, "POST", ndctPath, ndct("10", ibanT1Bruk, ibanT2Bruk), headers, 400, "FORMAT_ERROR", "PSU-Corporate-ID")
}

// An empty requestedExecutionDate is not a missing one: it is refused at
// its path, for every service, and nothing is stored; leaving it out still
// means today.
func TestPayments_EmptyExecutionDateIsRefused(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)
	const periodicPath, bulkPath = "/v1/periodic-payments/norwegian-domestic-credit-transfers", "/v1/bulk-payments/norwegian-domestic-credit-transfers"
	item := map[string]any{"instructedAmount": map[string]string{"amount": "1", "currency": "NOK"}, "creditorAccount": map[string]string{"iban": ibanT2Bruk}, "creditorName": "X"}
	bulk := map[string]any{"debtorAccount": map[string]string{"iban": ibanT1Bruk}, "requestedExecutionDate": "", "paymentInformationId": "B1", "payments": []any{item}}
	psuID := usersPSU(t, b, tpp, t1Number)
	nc := []string{"x-accept-fix: amount-as-string", "PSU-Context: PRIVATE", "PSU-ID: " + psuID, "PSU-IP-Address: 192.0.2.1"}
	for _, c := range []struct {
		name, path string
		body       map[string]any
		headers    []string
		at, text   string
	}{
		{"NDCT", ndctPath, with(ndct("10", ibanT1Bruk, ibanT2Bruk), "requestedExecutionDate", ""), nil,
			"requestedExecutionDate", "is empty; leave it out for today, or give a date YYYY-MM-DD"},
		{"NCBCT", ncbctPath, with(ncbct("100", "EUR", ibanT1Bruk), "requestedExecutionDate", ""), nc,
			"requestedExecutionDate", "is empty; leave it out for today, or give a date YYYY-MM-DD"},
		{"bulk", bulkPath, bulk, nil,
			"requestedExecutionDate", "is empty; give the date of the bulk payment, YYYY-MM-DD"},
		{"periodic", periodicPath, with(ndct("10", ibanT1Bruk, ibanT2Bruk), "startDate", day.String(), "frequency", "Monthly", "requestedExecutionDate", ""), nil,
			"requestedExecutionDate", "a periodic payment starts on startDate; leave requestedExecutionDate out"},
		{"bulk item", bulkPath, with(bulk, "requestedExecutionDate", day.String(), "payments", []any{with(item, "requestedExecutionDate", "")}), nil,
			"payments[0]", "an item takes no debtorAccount, requestedExecutionDate, paymentInformationId or payments: the bulk payment gives them"},
	} {
		t.Run(c.name, func(t *testing.T) {
			refusesText(t, b, tpp, "POST", c.path, c.body, append(append([]string{}, payHeaders...), c.headers...), c.at, c.text)
		})
	}
	// Left out, it is today: approved, the payment is due (ACTC).
	created := createPayment(t, b, tpp, ndctPath, ndct("10", ibanT1Bruk, ibanT2Bruk))
	autoSCA(t, b, tpp, created.authID(), t1Number, "approve")
	wantStatus(t, b, tpp, ndctPath, created.PaymentID, "ACTC")
}
