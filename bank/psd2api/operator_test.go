package psd2api_test

import (
	"encoding/json"
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

// settingsDoc is the settings document as GET /v1/sandbox/settings writes
// it.
type settingsDoc struct {
	TrustMode        string            `json:"trustMode"`
	RequireSignature bool              `json:"requireSignature"`
	Strict           bool              `json:"strict"`
	ResponseSigning  string            `json:"responseSigning"`
	OperatorAccess   string            `json:"operatorAccess"`
	LegacyDate       *string           `json:"legacyDate"`
	ExemptionPolicy  string            `json:"exemptionPolicy"`
	BatchTimes       []string          `json:"batchTimes"`
	CoverRetryDays   int               `json:"coverRetryDays"`
	NCBCTFee         string            `json:"ncbctFee"`
	FXRates          map[string]string `json:"fxRates"`
	BatchMode        string            `json:"batchMode"`
	RequestLog       struct {
		MaxCount int `json:"maxCount"`
		MaxBytes int `json:"maxBytes"`
	} `json:"requestLog"`
	TPPMessages []apierr.Message `json:"tppMessages"`
}

// settingsOf sends a settings request that must succeed and returns the
// settings it answers with.
func settingsOf(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, method string, body any, headers ...string) (settingsDoc, apptest.Response) {
	t.Helper()
	r := b.Do(tpp, method, "/v1/sandbox/settings", body, headers...)
	expect(t, r, 200, "")
	var d settingsDoc
	r.JSON(t, &d)
	return d, r
}

// patch sends a JSON merge patch of the settings that must succeed.
func patch(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, body string) settingsDoc {
	t.Helper()
	d, _ := settingsOf(t, b, b.Operator(), "PATCH", []byte(body), "Content-Type: application/merge-patch+json")
	return d
}

func TestOperator_SettingsReadReplaceAndPatch(t *testing.T) {
	b, tpp := setup(t)
	d, _ := settingsOf(t, b, b.Operator(), "GET", nil)
	if d.TrustMode != "any" || !d.RequireSignature || d.Strict || d.ResponseSigning != "rsa" || d.LegacyDate != nil || d.ExemptionPolicy != "never" ||
		strings.Join(d.BatchTimes, " ") != "06:00 09:00 12:00 15:00 18:00" || d.CoverRetryDays != 3 || d.NCBCTFee != "250.00" ||
		d.FXRates["NOK"] != "1" || d.FXRates["EUR"] != "11.65" || len(d.FXRates) != 12 || d.BatchMode != "schedule" ||
		d.RequestLog.MaxCount != 2000 || d.RequestLog.MaxBytes != 32<<20 {
		t.Fatalf("the defaults read as %+v", d)
	}

	// A merge patch changes what it names; an object merges, null removes.
	d = patch(t, b, b.Operator(), `{"batchMode": "immediate", "fxRates": {"BHD": "28.70", "JPY": null}, "requestLog": {"maxCount": 50}, "legacyDate": "2020-07-31"}`)
	if d.BatchMode != "immediate" || d.FXRates["BHD"] != "28.7" || d.FXRates["EUR"] != "11.65" || d.FXRates["JPY"] != "" || len(d.FXRates) != 12 ||
		d.RequestLog.MaxCount != 50 || d.RequestLog.MaxBytes != 32<<20 || d.LegacyDate == nil || *d.LegacyDate != "2020-07-31" || d.CoverRetryDays != 3 {
		t.Fatalf("after the patch %+v", d)
	}
	if n, _ := b.App.RequestLog().Limits(); n != 50 {
		t.Fatalf("the request log keeps %d requests, want 50", n)
	}
	if st, _ := b.Bank.Ops.Settings(); st.BatchMode != bank.BatchImmediate || st.LegacyDate.String() != "2020-07-31" {
		t.Fatalf("the bank's settings %+v", st)
	}
	// application/json is taken as the same patch.
	if d = patch(t, b, b.Operator(), `{"legacyDate": null}`); d.LegacyDate != nil {
		t.Fatalf("legacyDate null: %v", *d.LegacyDate)
	}
	d, _ = settingsOf(t, b, b.Operator(), "PATCH", map[string]any{"coverRetryDays": 5})
	if d.CoverRetryDays != 5 || d.BatchMode != "immediate" {
		t.Fatalf("a patch sent as application/json: %+v", d)
	}

	// PUT replaces: what it leaves out takes its default, and the clock and
	// the faults, which are not in the document, stay.
	moveClock(t, b, tpp, 48*time.Hour)
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/faults", map[string]any{"latencyMs": 1}), 200, "")
	d, _ = settingsOf(t, b, b.Operator(), "PUT", map[string]any{"batchTimes": []string{"07:00"}, "strict": false, "exemptionPolicy": "own-accounts"})
	if strings.Join(d.BatchTimes, " ") != "07:00" || d.ExemptionPolicy != "own-accounts" || d.BatchMode != "schedule" || d.CoverRetryDays != 3 ||
		d.FXRates["JPY"] != "0.071" || d.FXRates["BHD"] != "" || d.RequestLog.MaxCount != 2000 || !d.RequireSignature {
		t.Fatalf("after the PUT %+v", d)
	}
	if c := b.Bank.Ops.Clock(); c.OffsetSeconds != 48*3600 {
		t.Fatalf("the PUT moved the clock: %+v", c)
	}
	if f := b.Bank.Ops.Faults(); f.LatencyMs != 1 {
		t.Fatalf("the PUT changed the faults: %+v", f)
	}
	if n, _ := b.App.RequestLog().Limits(); n != 2000 {
		t.Fatalf("the request log keeps %d requests, want the default", n)
	}
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/faults", map[string]any{}), 200, "")

	// Amounts are decimal strings; a JSON number is taken with a warning.
	d, r := settingsOf(t, b, b.Operator(), "PATCH", []byte(`{"ncbctFee": 300, "fxRates": {"EUR": 11.5}}`))
	if d.NCBCTFee != "300.00" || d.FXRates["EUR"] != "11.5" {
		t.Fatalf("numbers read as %+v", d)
	}
	warned(t, b, r, "ncbctFee", "JSON number 300", `"250.00"`)
	warned(t, b, r, "fxRates.EUR", "JSON number 11.5")
	// A field the document does not have, and a key given twice, too.
	_, r = settingsOf(t, b, b.Operator(), "PATCH", []byte(`{"coverRetryDays": 2, "coverRetryDays": 4, "faults": {"outage": true}}`))
	warned(t, b, r, "coverRetryDays", "given twice")
	warned(t, b, r, "faults", "not a field the bank uses")
	if f := b.Bank.Ops.Faults(); f.Outage {
		t.Fatal("faults in the settings document turned the outage on")
	}
	_, r = settingsOf(t, b, b.Operator(), "PUT", map[string]any{"fx": map[string]string{"NOK": "1"}})
	warned(t, b, r, "fx", "not a field the bank uses")
	// Strict mode refuses each, and stores nothing.
	refusedInStrictMode(t, b, b.Operator(), "PATCH", "/v1/sandbox/settings", []byte(`{"ncbctFee": 300}`), "FORMAT_ERROR", "ncbctFee")
	refusedInStrictMode(t, b, b.Operator(), "PATCH", "/v1/sandbox/settings", []byte(`{"fx": {"NOK": "1"}}`), "BAD_REQUEST", "fx")
	refusedInStrictMode(t, b, b.Operator(), "PUT", "/v1/sandbox/settings", []byte(`{"batchTimes": ["06:00"], "batchTimes": ["07:00"]}`), "BAD_REQUEST", "batchTimes")
}

// Every settings request that breaks a rule is refused with the error
// body, naming the field, and changes nothing in the data file.
func TestOperator_SettingsRefusedChangeNothing(t *testing.T) {
	b, _ := setup(t)
	before, _ := settingsOf(t, b, b.Operator(), "GET", nil)
	cases := []struct {
		method, body string
		code         string
		paths        []string
	}{
		{"PATCH", `{"batchTimes": ["06:00", "25:00"]}`, "FORMAT_ERROR", []string{"batchTimes[1]"}},
		{"PATCH", `{"batchTimes": ["6:00"]}`, "FORMAT_ERROR", []string{"batchTimes[0]"}},
		{"PATCH", `{"batchTimes": ["06:00", "06:00"]}`, "FORMAT_ERROR", []string{"batchTimes[1]"}},
		{"PATCH", `{"batchTimes": []}`, "FORMAT_ERROR", []string{"batchTimes"}},
		{"PATCH", `{"ncbctFee": "-5"}`, "FORMAT_ERROR", []string{"ncbctFee"}},
		{"PATCH", `{"ncbctFee": "1.234"}`, "FORMAT_ERROR", []string{"ncbctFee"}},
		{"PATCH", `{"ncbctFee": "250 NOK"}`, "FORMAT_ERROR", []string{"ncbctFee"}},
		{"PATCH", `{"ncbctFee": true}`, "FORMAT_ERROR", []string{"ncbctFee"}},
		{"PATCH", `{"fxRates": {"XYZ": "2"}}`, "FORMAT_ERROR", []string{"fxRates.XYZ"}},
		{"PATCH", `{"fxRates": {"eur": "11"}}`, "FORMAT_ERROR", []string{"fxRates.eur"}},
		{"PATCH", `{"fxRates": {"EUR": "0"}}`, "FORMAT_ERROR", []string{"fxRates.EUR"}},
		{"PATCH", `{"fxRates": {"EUR": "-11.65"}}`, "FORMAT_ERROR", []string{"fxRates.EUR"}},
		{"PATCH", `{"fxRates": {"EUR": "1e3"}}`, "FORMAT_ERROR", []string{"fxRates.EUR"}},
		{"PATCH", `{"fxRates": {"NOK": null}}`, "FORMAT_ERROR", []string{"fxRates.NOK"}},
		{"PATCH", `{"fxRates": {"NOK": "2"}}`, "FORMAT_ERROR", []string{"fxRates.NOK"}},
		{"PATCH", `{"fxRates": ["EUR", "11"]}`, "BAD_REQUEST", []string{"fxRates"}},
		{"PATCH", `{"coverRetryDays": "3"}`, "BAD_REQUEST", []string{"coverRetryDays"}},
		{"PATCH", `{"coverRetryDays": 31}`, "FORMAT_ERROR", []string{"coverRetryDays"}},
		{"PATCH", `{"coverRetryDays": 2.5}`, "BAD_REQUEST", []string{"coverRetryDays"}},
		{"PATCH", `{"strict": "yes"}`, "BAD_REQUEST", []string{"strict"}},
		{"PATCH", `{"batchTimes": "06:00"}`, "BAD_REQUEST", []string{"batchTimes"}},
		{"PATCH", `{"requestLog": {"maxCount": 0}}`, "FORMAT_ERROR", []string{"requestLog.maxCount"}},
		{"PATCH", `{"requestLog": {"maxBytes": 10}}`, "FORMAT_ERROR", []string{"requestLog.maxBytes"}},
		{"PATCH", `{"requestLog": "big"}`, "BAD_REQUEST", []string{"requestLog"}},
		{"PATCH", `{"legacyDate": "2017-12-31"}`, "FORMAT_ERROR", []string{"legacyDate"}},
		{"PATCH", `{"legacyDate": "2020-13-01"}`, "FORMAT_ERROR", []string{"legacyDate"}},
		{"PATCH", `{"legacyDate": "yesterday"}`, "FORMAT_ERROR", []string{"legacyDate"}},
		{"PATCH", `{"trustMode": "some"}`, "FORMAT_ERROR", []string{"trustMode"}},
		{"PATCH", `{"exemptionPolicy": "always"}`, "FORMAT_ERROR", []string{"exemptionPolicy"}},
		{"PATCH", `{"batchMode": "now"}`, "FORMAT_ERROR", []string{"batchMode"}},
		{"PATCH", `{"responseSigning": "ECDSA"}`, "FORMAT_ERROR", []string{"responseSigning"}},
		{"PATCH", `{"responseSigning": "none"}`, "FORMAT_ERROR", []string{"responseSigning"}},
		{"PATCH", `{"responseSigning": ""}`, "FORMAT_ERROR", []string{"responseSigning"}},
		{"PATCH", `{"responseSigning": false}`, "BAD_REQUEST", []string{"responseSigning"}},
		{"PUT", `{"responseSigning": "ed25519"}`, "FORMAT_ERROR", []string{"responseSigning"}},
		{"PATCH", `{"batchTimes": ["25:00"], "ncbctFee": "-1", "fxRates": {"QQQ": "1"}, "batchMode": ""}`, "FORMAT_ERROR", []string{"batchTimes[0]", "ncbctFee", "fxRates.QQQ", "batchMode"}},
		{"PATCH", `[]`, "BAD_REQUEST", nil},
		{"PATCH", `null`, "BAD_REQUEST", nil},
		{"PATCH", `"immediate"`, "BAD_REQUEST", nil},
		{"PATCH", `{"batchMode": "immediate"`, "BAD_REQUEST", nil},
		{"PATCH", ``, "BAD_REQUEST", nil},
		{"PUT", `{"batchTimes": ["24:00"]}`, "FORMAT_ERROR", []string{"batchTimes[0]"}},
		{"PUT", `{"ncbctFee": -1}`, "FORMAT_ERROR", []string{"ncbctFee"}},
		{"PUT", `{"fxRates": {"EUR": "11"}}`, "FORMAT_ERROR", []string{"fxRates.NOK"}},
		{"PUT", `{"requestLog": {"maxCount": 100001}}`, "FORMAT_ERROR", []string{"requestLog.maxCount"}},
		{"PUT", `{"coverRetryDays": -1}`, "FORMAT_ERROR", []string{"coverRetryDays"}},
		{"PUT", `[]`, "BAD_REQUEST", nil},
		{"PUT", ``, "BAD_REQUEST", nil},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.body, func(t *testing.T) {
			var body any
			if c.body != "" {
				body = []byte(c.body)
			}
			e := rejects(t, b, b.Operator(), c.method, "/v1/sandbox/settings", body, 400, c.code, c.paths...)
			if c.code == "FORMAT_ERROR" {
				for _, m := range e.TPPMessages {
					if m.Text == "" || m.Category != "ERROR" {
						t.Errorf("finding %+v", m)
					}
				}
			}
		})
	}
	after, _ := settingsOf(t, b, b.Operator(), "GET", nil)
	before.TPPMessages, after.TPPMessages = nil, nil
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Fatalf("the settings changed:\n%+v\n%+v", before, after)
	}
}

// opsPayment is a payment as the operator's API writes it.
type opsPayment struct {
	PaymentID         string `json:"paymentId"`
	TPPID             string `json:"tppId"`
	PaymentProduct    string `json:"paymentProduct"`
	TransactionStatus string `json:"transactionStatus"`
	PSU               *struct {
		CustomerNumber string `json:"customerNumber"`
		Name           string `json:"name"`
		PSUID          string `json:"psuId"`
	} `json:"psu"`
	InstructedAmount struct {
		Amount   string `json:"amount"`
		Currency string `json:"currency"`
	} `json:"instructedAmount"`
	StatusHistory []bank.StatusChange `json:"statusHistory"`
	Request       map[string]any      `json:"request"`
}

// opsPayments lists payments through the operator's API and returns them
// with X-Total-Count.
func opsPayments(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, query string) ([]opsPayment, string) {
	t.Helper()
	r := b.Do(b.Operator(), "GET", "/v1/sandbox/payments"+query, nil)
	expect(t, r, 200, "")
	var list []opsPayment
	r.JSON(t, &list)
	return list, r.Header.Get("X-Total-Count")
}

func TestOperator_PaymentsListDetailAndForcedStatus(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)
	other := b.NewTPP("955555555", 1, pki.RolePI)
	c1 := createPayment(t, b, tpp, ndctPath, ndct("101", ibanT1Bruk, ibanT2Bruk))
	autoSCA(t, b, tpp, c1.authID(), t1Number, "approve")
	c2 := createPayment(t, b, other, ndctPath, ndct("102", ibanT2Bruk, ibanT1Bruk))
	q := autoSCA(t, b, other, c2.authID(), t2Number, "approve")
	c3 := createPayment(t, b, tpp, ndctPath, ndct("103", ibanT1Bruk, ibanT1Spare)) // awaits approval

	all, total := opsPayments(t, b, tpp, "")
	if total != "3" || len(all) != 3 || all[0].PaymentID != c3.PaymentID || all[2].PaymentID != c1.PaymentID || all[0].PSU != nil {
		t.Fatalf("every payment, newest first: %s %+v", total, all)
	}
	if p := all[2]; p.TransactionStatus != "ACTC" || p.PSU == nil || p.PSU.CustomerNumber != t1Number || p.TPPID != "NO-FSA-933012867" || p.InstructedAmount.Amount != "101.00" {
		t.Fatalf("the first payment lists as %+v", p)
	}
	for query, want := range map[string][]string{
		"?status=ACTC":                           {c2.PaymentID, c1.PaymentID},
		"?status=RCVD":                           {c3.PaymentID},
		"?tppId=NO-FSA-955555555":                {c2.PaymentID},
		"?psuId=" + t1Number:                     {c1.PaymentID},
		"?psuId=" + q.Get("psu-id"):              {c2.PaymentID},
		"?psuId=99999999999":                     {},
		"?product=" + bank.ProductNDCT:           {c3.PaymentID, c2.PaymentID, c1.PaymentID},
		"?product=" + bank.ProductNCBCT:          {},
		"?createdFrom=" + day.String():           {c3.PaymentID, c2.PaymentID, c1.PaymentID},
		"?createdTo=" + day.AddDays(-1).String(): {},
		"?createdFrom=" + day.String() + "&createdTo=" + day.String() + "&tppId=NO-FSA-933012867&status=ACTC": {c1.PaymentID},
		"?limit=2":           {c3.PaymentID, c2.PaymentID},
		"?offset=2&limit=2":  {c1.PaymentID},
		"?offset=5":          {},
		"?unknownFilter=yes": {c3.PaymentID, c2.PaymentID, c1.PaymentID},
	} {
		list, _ := opsPayments(t, b, tpp, query)
		got := ids(list, func(p opsPayment) string { return p.PaymentID })
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", query, got, want)
		}
	}
	if _, total := opsPayments(t, b, tpp, "?status=ACTC&limit=1"); total != "2" {
		t.Errorf("X-Total-Count of a page: %s", total)
	}

	// One payment: its history and the request the TPP sent.
	var one opsPayment
	r := b.Do(b.Operator(), "GET", "/v1/sandbox/payments/"+c1.PaymentID, nil)
	expect(t, r, 200, "")
	r.JSON(t, &one)
	if len(one.StatusHistory) != 2 || one.StatusHistory[1].To != "ACTC" || one.StatusHistory[1].Forced || one.Request["creditorName"] != "Mottaker AS" {
		t.Fatalf("payment %s", r.Body)
	}

	// A forced status is in the history, marked forced, with the note;
	// the TPP reads it.
	r = b.Do(b.Operator(), "POST", "/v1/sandbox/payments/"+c1.PaymentID+"/status", map[string]string{"status": "RJCT", "note": "reproduces case 4711"})
	expect(t, r, 200, "")
	r.JSON(t, &one)
	last := one.StatusHistory[len(one.StatusHistory)-1]
	if one.TransactionStatus != "RJCT" || !last.Forced || last.From != "ACTC" || last.To != "RJCT" || last.Reason != "reproduces case 4711" {
		t.Fatalf("forced: %s", r.Body)
	}
	wantStatus(t, b, tpp, ndctPath, c1.PaymentID, "RJCT")
	if bal := expectedBalance(t, b, tpp, ibanT1Bruk); bal != "24512.37" {
		t.Fatalf("the forced RJCT kept its reservation: %s", bal)
	}

	// Bad filters and bodies: 400 naming the parameter or field; unknown
	// ids: 404. Nothing changes.
	for _, c := range []struct{ query, code, path string }{
		{"?status=DONE", "FORMAT_ERROR", "status"},
		{"?status=actc", "FORMAT_ERROR", "status"},
		{"?product=sepa-credit-transfers", "FORMAT_ERROR", "product"},
		{"?psuId=Kari%20Nordmann", "FORMAT_ERROR", "psuId"},
		{"?createdFrom=2026-13-01", "FORMAT_ERROR", "createdFrom"},
		{"?createdTo=yesterday", "FORMAT_ERROR", "createdTo"},
		{"?offset=-1", "FORMAT_ERROR", "offset"},
		{"?limit=0", "FORMAT_ERROR", "limit"},
		{"?limit=10001", "FORMAT_ERROR", "limit"},
		{"?createdFrom=" + day.String() + "&createdTo=" + day.AddDays(-1).String(), "PERIOD_INVALID", ""},
	} {
		e := rejects(t, b, b.Operator(), "GET", "/v1/sandbox/payments"+c.query, nil, 400, c.code)
		if c.path != "" && !slices.Contains(paths(e), c.path) {
			t.Errorf("%s: paths %v", c.query, paths(e))
		}
	}
	rejects(t, b, b.Operator(), "GET", "/v1/sandbox/payments/enc!!nothingHere000000000", nil, 404, "RESOURCE_UNKNOWN")
	rejects(t, b, b.Operator(), "POST", "/v1/sandbox/payments/enc!!nothingHere000000000/status", map[string]string{"status": "ACSC"}, 404, "RESOURCE_UNKNOWN")
	rejects(t, b, b.Operator(), "POST", "/v1/sandbox/payments/"+c3.PaymentID+"/status", map[string]string{"status": "DONE"}, 400, "FORMAT_ERROR", "status")
	rejects(t, b, b.Operator(), "POST", "/v1/sandbox/payments/"+c3.PaymentID+"/status", map[string]string{"note": "no status"}, 400, "FORMAT_ERROR", "status")
	rejects(t, b, b.Operator(), "POST", "/v1/sandbox/payments/"+c3.PaymentID+"/status", map[string]string{"status": "ACSC", "note": "two\nlines"}, 400, "FORMAT_ERROR", "note")
	rejects(t, b, b.Operator(), "POST", "/v1/sandbox/payments/"+c3.PaymentID+"/status", map[string]string{"status": "ACSC", "note": strings.Repeat("n", 501)}, 400, "FORMAT_ERROR", "note")
	rejects(t, b, b.Operator(), "POST", "/v1/sandbox/payments/"+c3.PaymentID+"/status", map[string]any{"status": 7}, 400, "BAD_REQUEST", "status")
	rejects(t, b, b.Operator(), "POST", "/v1/sandbox/payments/"+c3.PaymentID+"/status", nil, 400, "BAD_REQUEST")
	wantStatus(t, b, other, ndctPath, c2.PaymentID, "ACTC")
}

func TestOperator_BasketsAndBatchRuns(t *testing.T) {
	b, tpp := setup(t)
	onBankingMorning(t, b)
	p1 := createPayment(t, b, tpp, ndctPath, ndct("11", ibanT1Bruk, ibanT2Bruk))
	p2 := createPayment(t, b, tpp, ndctPath, ndct("12", ibanT1Bruk, ibanT2Bruk))
	r := b.Do(tpp, "POST", "/v1/signing-baskets", map[string]any{"paymentIds": []string{p1.PaymentID, p2.PaymentID}})
	expect(t, r, 201, "")
	var basket struct {
		BasketID string `json:"basketId"`
	}
	r.JSON(t, &basket)
	var baskets []struct {
		BasketID          string `json:"basketId"`
		TPPID             string `json:"tppId"`
		TransactionStatus string `json:"transactionStatus"`
		Payments          []struct {
			PaymentID        string            `json:"paymentId"`
			InstructedAmount map[string]string `json:"instructedAmount"`
		} `json:"payments"`
	}
	r = b.Do(b.Operator(), "GET", "/v1/sandbox/baskets", nil)
	expect(t, r, 200, "")
	r.JSON(t, &baskets)
	if len(baskets) != 1 || baskets[0].BasketID != basket.BasketID || baskets[0].TransactionStatus != "RCVD" || len(baskets[0].Payments) != 2 || baskets[0].Payments[1].InstructedAmount["amount"] != "12.00" {
		t.Fatalf("baskets %s", r.Body)
	}

	p3 := createPayment(t, b, tpp, ndctPath, ndct("13", ibanT1Bruk, ibanT2Bruk))
	autoSCA(t, b, tpp, p3.authID(), t1Number, "approve")
	var runIDs []string
	for range 3 {
		r := b.Do(b.Operator(), "POST", "/v1/sandbox/batch-runs", nil)
		expect(t, r, 200, "")
		var run struct {
			RunID string `json:"runId"`
		}
		r.JSON(t, &run)
		runIDs = append(runIDs, run.RunID)
	}
	type runView struct {
		RunID    string              `json:"runId"`
		Trigger  string              `json:"trigger"`
		Counts   map[string]int      `json:"counts"`
		Outcomes []bank.BatchOutcome `json:"outcomes"`
	}
	var runs []runView
	r = b.Do(b.Operator(), "GET", "/v1/sandbox/batch-runs?limit=2", nil)
	expect(t, r, 200, "")
	r.JSON(t, &runs)
	if len(runs) != 2 || runs[0].RunID != runIDs[2] || runs[1].RunID != runIDs[1] || r.Header.Get("X-Total-Count") != "3" || runs[0].Trigger != bank.TriggerManual || runs[0].Outcomes != nil {
		t.Fatalf("newest two runs of %s: %s", r.Header.Get("X-Total-Count"), r.Body)
	}
	r = b.Do(b.Operator(), "GET", "/v1/sandbox/batch-runs?offset=2", nil)
	expect(t, r, 200, "")
	r.JSON(t, &runs)
	if len(runs) != 1 || runs[0].RunID != runIDs[0] || runs[0].Counts["ACSC"] != 1 {
		t.Fatalf("the oldest run: %s", r.Body)
	}
	var one runView
	r = b.Do(b.Operator(), "GET", "/v1/sandbox/batch-runs/"+runIDs[0], nil)
	expect(t, r, 200, "")
	r.JSON(t, &one)
	if one.RunID != runIDs[0] || len(one.Outcomes) != 1 || one.Outcomes[0].PaymentID != p3.PaymentID || one.Outcomes[0].To != "ACSC" {
		t.Fatalf("run %s", r.Body)
	}
	r = b.Do(b.Operator(), "GET", "/v1/sandbox/batch-runs/"+runIDs[2], nil)
	expect(t, r, 200, "")
	if !strings.Contains(string(r.Body), `"outcomes":[]`) {
		t.Fatalf("a run that moved nothing: %s", r.Body)
	}
	rejects(t, b, b.Operator(), "GET", "/v1/sandbox/batch-runs/"+p1.PaymentID, nil, 404, "RESOURCE_UNKNOWN")
	rejects(t, b, b.Operator(), "GET", "/v1/sandbox/batch-runs/enc!!nothingHere000000000", nil, 404, "RESOURCE_UNKNOWN")
	rejects(t, b, b.Operator(), "GET", "/v1/sandbox/batch-runs?offset=x", nil, 400, "FORMAT_ERROR", "offset")
	rejects(t, b, b.Operator(), "GET", "/v1/sandbox/batch-runs?limit=20000", nil, 400, "FORMAT_ERROR", "limit")
}

func TestOperator_GrantsSessionsAndOpenAuthorisations(t *testing.T) {
	b, tpp := setup(t)
	other := b.NewTPP("955555555", 1, pki.RoleAI)
	user := psuOf(b.Consent(tpp, t1Number, "", nil))
	b.Consent(other, t2Number, "", nil)
	open := b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "waiting")

	type grant struct {
		GrantID string `json:"grantId"`
		TPPID   string `json:"tppId"`
		PSU     struct {
			CustomerNumber string `json:"customerNumber"`
			PSUID          string `json:"psuId"`
		} `json:"psu"`
		Context   string `json:"context"`
		ConsentID string `json:"consentId"`
		Accounts  []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"accounts"`
		Expired bool `json:"expired"`
	}
	grants := func(query string) []grant {
		t.Helper()
		r := b.Do(b.Operator(), "GET", "/v1/sandbox/grants"+query, nil)
		expect(t, r, 200, "")
		var out []grant
		r.JSON(t, &out)
		return out
	}
	if all := grants(""); len(all) != 2 {
		t.Fatalf("grants %+v", all)
	}
	mine := grants("?tppId=NO-FSA-933012867")
	if len(mine) != 1 || mine[0].PSU.CustomerNumber != t1Number || mine[0].PSU.PSUID != user.id || mine[0].Context != "PRIVATE" || mine[0].Expired || len(mine[0].Accounts) == 0 || mine[0].ConsentID == "" {
		t.Fatalf("the TPP's grant %+v", mine)
	}
	for query, want := range map[string]int{"?psuId=" + t1Number: 1, "?psuId=" + user.id: 1, "?psuId=" + t2Number + "&tppId=NO-FSA-933012867": 0, "?tppId=NO-FSA-1": 0} {
		if got := grants(query); len(got) != want {
			t.Errorf("%s: %d grants, want %d", query, len(got), want)
		}
	}
	rejects(t, b, b.Operator(), "GET", "/v1/sandbox/grants?psuId=x!", nil, 400, "FORMAT_ERROR", "psuId")

	var sessions []struct {
		TPPID        string `json:"tppId"`
		TPPSessionID string `json:"tppSessionId"`
		Valid        bool   `json:"valid"`
	}
	r := b.Do(b.Operator(), "GET", "/v1/sandbox/sca-sessions", nil)
	expect(t, r, 200, "")
	r.JSON(t, &sessions)
	if len(sessions) != 2 || !slices.ContainsFunc(sessions, func(s struct {
		TPPID        string `json:"tppId"`
		TPPSessionID string `json:"tppSessionId"`
		Valid        bool   `json:"valid"`
	}) bool {
		return s.TPPID == "NO-FSA-933012867" && s.TPPSessionID == user.session && s.Valid
	}) {
		t.Fatalf("sessions %s", r.Body)
	}

	var auths []map[string]any
	for _, query := range []string{"", "?status=open"} {
		r = b.Do(b.Operator(), "GET", "/v1/sandbox/authorisations"+query, nil)
		expect(t, r, 200, "")
		r.JSON(t, &auths)
		if len(auths) != 1 || auths[0]["authorisationId"] != scaID(open) || auths[0]["kind"] != "consent" || auths[0]["scaStatus"] != "RECEIVED" {
			t.Fatalf("open authorisations: %s", r.Body)
		}
	}
	_, secret, _ := strings.Cut(strings.TrimPrefix(open, b.URL+"/sca/"+scaID(open)), "/")
	if secret = strings.Trim(secret, "/"); secret == "" || strings.Contains(string(r.Body), secret) {
		t.Fatalf("the list gives away the SCA page's secret (%q): %s", secret, r.Body)
	}
	rejects(t, b, b.Operator(), "GET", "/v1/sandbox/authorisations?status=all", nil, 400, "FORMAT_ERROR", "status")

	// Revoking a grant: the TPP's next request needs a new consent, and the
	// consent reads revokedByPsu.
	expect(t, get(b, tpp, user, "/v1/accounts"), 200, "")
	expect(t, b.Do(b.Operator(), "DELETE", "/v1/sandbox/grants/"+mine[0].GrantID, nil), 204, "")
	expect(t, get(b, tpp, user, "/v1/accounts"), 401, "CONSENT_INVALID")
	if st := consentStatus(t, b, tpp, mine[0].ConsentID); st != bank.ConsentRevoked {
		t.Fatalf("the consent is %s", st)
	}
	if left := grants(""); len(left) != 1 || left[0].TPPID != "NO-FSA-955555555" {
		t.Fatalf("after the revocation %+v", left)
	}
	rejects(t, b, b.Operator(), "DELETE", "/v1/sandbox/grants/"+mine[0].GrantID, nil, 404, "RESOURCE_UNKNOWN")
	rejects(t, b, b.Operator(), "DELETE", "/v1/sandbox/grants/nothing", nil, 404, "RESOURCE_UNKNOWN")
}

// In batch mode immediate, an approved payment due today settles at once,
// as a batch run would settle it.
func TestOperator_ImmediateBatchMode(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)
	patch(t, b, b.Operator(), `{"batchMode": "immediate"}`)

	// NDCT: booked on both accounts when the PSU approves.
	c := createPayment(t, b, tpp, ndctPath, ndct("100.3", ibanT1Bruk, ibanT2Bruk))
	autoSCA(t, b, tpp, c.authID(), t1Number, "approve")
	wantStatus(t, b, tpp, ndctPath, c.PaymentID, "ACSC")
	if d, c := expectedBalance(t, b, tpp, ibanT1Bruk), expectedBalance(t, b, tpp, ibanT2Bruk); d != "24412.07" || c != "9040.42" {
		t.Fatalf("after settling at once: debtor %s, creditor %s", d, c)
	}
	var one opsPayment
	b.Do(b.Operator(), "GET", "/v1/sandbox/payments/"+c.PaymentID, nil).JSON(t, &one)
	if h := one.StatusHistory; len(h) != 3 || h[1].To != "ACTC" || h[2].To != "ACSC" || !strings.Contains(h[2].By, "immediate") {
		t.Fatalf("history %+v", h)
	}

	// NCBCT: picked up and settled at once, fee and all.
	psuID := usersPSU(t, b, tpp, t1Number)
	x := createPayment(t, b, tpp, ncbctPath, ncbct("1000", "EUR", ibanT1Bruk), "x-accept-fix: amount-as-string", "PSU-Context: PRIVATE", "PSU-ID: "+psuID, "PSU-IP-Address: 192.0.2.1")
	autoSCA(t, b, tpp, x.authID(), t1Number, "approve")
	wantStatus(t, b, tpp, ncbctPath, x.PaymentID, "ACSC")
	if bal := expectedBalance(t, b, tpp, ibanT1Bruk); bal != "12512.07" {
		t.Fatalf("after the NCBCT: %s, want 24412.07 - 11650.00 - 250.00", bal)
	}

	// A future-dated payment waits for its date; the first batch run on
	// that date settles it.
	next := bank.AddBankingDays(day, 1)
	later := createPayment(t, b, tpp, ndctPath, with(ndct("50", ibanT1Bruk, ibanT1Spare), "requestedExecutionDate", next.String()))
	autoSCA(t, b, tpp, later.authID(), t1Number, "approve")
	wantStatus(t, b, tpp, ndctPath, later.PaymentID, "ACCP")
	runBatch(t, b, tpp)
	wantStatus(t, b, tpp, ndctPath, later.PaymentID, "ACCP")
	at := time.Date(next.Year, next.Month, next.Day, 9, 30, 0, 0, bank.Oslo)
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/clock", map[string]string{"now": at.Format(time.RFC3339)}), 200, "")
	wantStatus(t, b, tpp, ndctPath, later.PaymentID, "ACSC")

	// Without cover it waits (PDNG) as at a batch run.
	poor := createPayment(t, b, tpp, ndctPath, ndct("20000", ibanT2Bruk, ibanT1Bruk))
	autoSCA(t, b, tpp, poor.authID(), t2Number, "approve")
	if st, funds := status(t, b, tpp, ndctPath, poor.PaymentID); st != "PDNG" || funds {
		t.Fatalf("without cover: %s, fundsAvailable %v", st, funds)
	}

	// Back to the schedule: an approved payment waits for a run again.
	patch(t, b, b.Operator(), `{"batchMode": "schedule"}`)
	s := createPayment(t, b, tpp, ndctPath, ndct("5", ibanT1Bruk, ibanT1Spare))
	autoSCA(t, b, tpp, s.authID(), t1Number, "approve")
	wantStatus(t, b, tpp, ndctPath, s.PaymentID, "ACTC")
}

// A CI pipeline reaches an SCA exemption: the policy set through the API
// lets a transfer between the PSU's own accounts through without SCA.
func TestOperator_ExemptionSetThroughTheAPI(t *testing.T) {
	b, tpp := setup(t)
	onBankingMorning(t, b)
	psuID := usersPSU(t, b, tpp, t1Number)
	headers := append(append([]string{}, payHeaders...), "PSU-ID: "+psuID)
	if c := createPayment(t, b, tpp, ndctPath, ndct("81", ibanT1Bruk, ibanT1Spare), "PSU-ID: "+psuID); c.TransactionStatus != "RCVD" {
		t.Fatalf("exempted under the default policy: %+v", c)
	}
	if d := patch(t, b, b.Operator(), `{"exemptionPolicy": "own-accounts"}`); d.ExemptionPolicy != "own-accounts" {
		t.Fatalf("settings %+v", d)
	}
	r := b.Do(tpp, "POST", ndctPath, ndct("82", ibanT1Bruk, ibanT1Spare), headers...)
	expect(t, r, 201, "")
	var ex created
	r.JSON(t, &ex)
	if ex.TransactionStatus != "ACTC" || ex.Links["scaRedirect"].Href != "" {
		t.Fatalf("not exempted: %s", r.Body)
	}
	sr := b.Do(tpp, "GET", ex.Links["scaStatus"].Href, nil)
	expect(t, sr, 200, "")
	var sca struct {
		ScaStatus string `json:"scaStatus"`
	}
	sr.JSON(t, &sca)
	if sca.ScaStatus != "exempted" && sca.ScaStatus != "EXEMPTED" {
		t.Fatalf("scaStatus %s", sr.Body)
	}
}

// A legacy date set through the API changes what the API answers: before
// 2020-08-01, amounts are JSON numbers unless the request names the fix.
func TestOperator_LegacyDateSetThroughTheAPI(t *testing.T) {
	b, tpp := setup(t)
	user := psuOf(b.Consent(tpp, t1Number, "", nil))
	amount := func(fixes ...string) json.RawMessage {
		t.Helper()
		var body struct {
			Balances []struct {
				BalanceAmount struct {
					Amount json.RawMessage `json:"amount"`
				} `json:"balanceAmount"`
			} `json:"balances"`
		}
		r := get(b, tpp, user, "/v1/accounts/"+t1Brukskonto+"/balances", fixes...)
		expect(t, r, 200, "")
		r.JSON(t, &body)
		return body.Balances[0].BalanceAmount.Amount
	}
	if a := amount(); a[0] != '"' {
		t.Fatalf("today's API writes %s", a)
	}
	patch(t, b, b.Operator(), `{"legacyDate": "2020-07-31"}`)
	if a := amount(); a[0] == '"' {
		t.Fatalf("as on 2020-07-31 the amount is %s, want a JSON number", a)
	}
	if a := amount("x-accept-fix: " + bank.FixAmountAsString); a[0] != '"' {
		t.Fatalf("naming the fix: %s", a)
	}
	patch(t, b, b.Operator(), `{"legacyDate": null}`)
	if a := amount(); a[0] != '"' {
		t.Fatalf("without a legacy date again: %s", a)
	}
}

// An NCBCT in a currency the FX table lacks is refused until a rate is
// added through the API; then it settles like any other.
func TestOperator_NCBCTInBHDAfterAddingARate(t *testing.T) {
	b, tpp := setup(t)
	onBankingMorning(t, b)
	psuID := usersPSU(t, b, tpp, t1Number)
	headers := []string{"x-accept-fix: amount-as-string", "PSU-Context: PRIVATE", "PSU-ID: " + psuID, "PSU-IP-Address: 192.0.2.1"}
	e := rejectsWith(t, b, tpp, "POST", ncbctPath, ncbct("100.500", "BHD", ibanT1Bruk), append(append([]string{}, payHeaders...), headers...), 400, "FORMAT_ERROR", "instructedAmount.currency")
	if text := textAt(e, "instructedAmount.currency"); !strings.Contains(text, "fxRates") {
		t.Fatalf("the refusal does not say how to add a rate: %q", text)
	}
	patch(t, b, b.Operator(), `{"fxRates": {"BHD": "28.70"}}`)
	c := createPayment(t, b, tpp, ncbctPath, ncbct("100.500", "BHD", ibanT1Bruk), headers...)
	autoSCA(t, b, tpp, c.authID(), t1Number, "approve")
	// BHD 100.500 at NOK 28.70 is NOK 2884.35, and the fee NOK 250.
	if bal := expectedBalance(t, b, tpp, ibanT1Bruk); bal != "21378.02" {
		t.Fatalf("authorised: expected balance %s, want 24512.37 - 2884.35 - 250.00", bal)
	}
	runBatch(t, b, tpp)
	runBatch(t, b, tpp)
	wantStatus(t, b, tpp, ncbctPath, c.PaymentID, "ACSC")
	var got map[string]any
	b.Do(tpp, "GET", ncbctPath+"/"+c.PaymentID, nil).JSON(t, &got)
	if got["instructedAmount"].(map[string]any)["amount"] != "100.500" {
		t.Fatalf("payment %v", got)
	}
}

// The request log keeps what the requestLog setting allows, from the
// moment it changes.
func TestOperator_RequestLogLimits(t *testing.T) {
	b, tpp := setup(t)
	for range 5 {
		expect(t, b.Do(tpp, "GET", "/v1/sandbox/clock", nil), 200, "")
	}
	patch(t, b, b.Operator(), `{"requestLog": {"maxCount": 3}}`)
	expect(t, b.Do(tpp, "GET", "/v1/sandbox/clock", nil, "X-Request-ID: the-last"), 200, "")
	b.Logged("the-last")
	if n := len(b.App.RequestLog().Entries()); n != 3 {
		t.Fatalf("the log keeps %d requests, want 3", n)
	}
}
