package psd2api_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank"
)

// Known-state accounts (README).
const (
	ibanT1Bruk  = "NO3815030123457" // Test Testperson 1, NOK 23,688.87 expected
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
		"instructedAmount": map[string]string{"amount": amount, "currency": "NOK"},
		"debtorAccount":    map[string]string{"iban": from},
		"creditorAccount":  map[string]string{"iban": to},
		"creditorName":     "Mottaker AS",
		"remittanceInformationUnstructured": "Faktura " + amount,
	}
}

// onBankingMorning moves the sandbox clock to 10:30 on a banking day at
// least two days ahead and returns that day, so that payment tests do not
// depend on the weekday they run on.
func onBankingMorning(t *testing.T, b *apptest.Bank, tpp *apptest.TPP) bank.Date {
	t.Helper()
	d := bank.NextBankingDay(bank.DateOf(time.Now()).AddDays(2))
	at := time.Date(d.Year, d.Month, d.Day, 10, 30, 0, 0, bank.Oslo)
	expect(t, b.Do(tpp, "PUT", "/v1/sandbox/clock", map[string]string{"now": at.Format(time.RFC3339)}), 200, "")
	return d
}

type created struct {
	PaymentID         string         `json:"paymentId"`
	TransactionStatus string         `json:"transactionStatus"`
	TPPMessages       []bank.Message `json:"tppMessages"`
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
	r := b.Do(tpp, "POST", "/v1/sandbox/batch-runs", nil)
	expect(t, r, 200, "")
	var out struct {
		Counts map[string]int `json:"counts"`
	}
	r.JSON(t, &out)
	return out.Counts
}

// expected reads a sandbox account's expected balance.
func expectedBalance(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, iban string) string {
	t.Helper()
	a := knownAccount(t, b, tpp, iban)
	var list []map[string]any
	b.Do(tpp, "GET", "/v1/sandbox/accounts/"+a.ID, nil).JSON(t, &list)
	for _, bal := range list[0]["balances"].([]any) {
		m := bal.(map[string]any)
		if m["balanceType"] == "expected" {
			return fmt.Sprint(m["balanceAmount"].(map[string]any)["amount"])
		}
	}
	t.Fatalf("no expected balance on %s", iban)
	return ""
}

func TestPayments_NDCTFromCreationToSettlement(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b, tpp)
	c := createPayment(t, b, tpp, ndctPath, ndct("100.3", ibanT1Bruk, ibanT2Bruk))
	if c.TransactionStatus != "RCVD" || c.Links["scaRedirect"].Href == "" || c.Links["self"].Href != ndctPath+"/"+c.PaymentID || c.Links["status"].Href == "" {
		t.Fatalf("created %+v", c)
	}
	// The bank's known limitation: an NDCT payment is unreadable until approved.
	e := expect(t, b.Do(tpp, "GET", ndctPath+"/"+c.PaymentID+"/status", nil), 404, "RESOURCE_UNKNOWN")
	if !strings.Contains(e.Message, "known limitation") {
		t.Errorf("404 without the reason: %s", e.Message)
	}
	q := b.CompleteSCA(b.URL+"/sca/"+c.authID(), t1Number, "", nil, "approve").Query
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

	before1, before2 := expectedBalance(t, b, tpp, ibanT1Bruk), expectedBalance(t, b, tpp, ibanT2Bruk)
	if counts := runBatch(t, b, tpp); counts["ACSC"] != 1 {
		t.Fatalf("batch counts %v", counts)
	}
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, "ACSC")
	if after := expectedBalance(t, b, tpp, ibanT1Bruk); after != "23588.57" || before1 != "23688.87" {
		t.Fatalf("debtor balance %s → %s", before1, after)
	}
	if after := expectedBalance(t, b, tpp, ibanT2Bruk); after != "8490.42" || before2 != "8390.12" {
		t.Fatalf("creditor balance %s → %s", before2, after)
	}
	// Booked under the pending item's id, and no longer pending.
	var booked aisTxList
	get(b, tpp, user, "/v1/accounts/"+t1Brukskonto+"/transactions?bookingStatus=both").JSON(t, &booked)
	if len(booked.Transactions.Pending) != len(txs.Transactions.Pending)-1 || booked.Transactions.Booked[0].TransactionID != pendingID || booked.Transactions.Booked[0].BookingDate != day.String() {
		t.Fatalf("after settlement: %+v", booked.Transactions)
	}
}
