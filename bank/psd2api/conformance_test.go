package psd2api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank"
)

// setNow moves the sandbox clock to a moment.
func setNow(t *testing.T, b *apptest.Bank, at time.Time) {
	t.Helper()
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/clock", map[string]string{"now": at.Format(time.RFC3339)}), 200, "")
}

// consentDates reads a consent's status, validUntil and lastActionDate.
func consentDates(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, id string) (status, validUntil, lastAction string) {
	t.Helper()
	r := b.Do(tpp, "GET", "/v1/consents/"+id, nil)
	expect(t, r, 200, "")
	var v struct {
		ConsentStatus  string `json:"consentStatus"`
		ValidUntil     string `json:"validUntil"`
		LastActionDate string `json:"lastActionDate"`
	}
	r.JSON(t, &v)
	return v.ConsentStatus, v.ValidUntil, v.LastActionDate
}

// A consent always carries validUntil and lastActionDate: before SCA the
// date it would have if approved that day, then its real one; the last
// action is the last change of its status (approval, rejection, deletion,
// expiry), and reading accounts with it is none.
func TestConsent_ValidUntilAndLastActionDateFollowTheStatus(t *testing.T) {
	b, tpp := setup(t)
	day := bank.NextBankingDay(bank.DateOf(time.Now()).AddDays(2))
	at := func(d bank.Date) time.Time { return time.Date(d.Year, d.Month, d.Day, 10, 30, 0, 0, bank.Oslo) }
	setNow(t, b, at(day))
	want := func(id, status, validUntil, lastAction string) {
		t.Helper()
		gotStatus, gotUntil, gotLast := consentDates(t, b, tpp, id)
		if gotStatus != status || gotUntil != validUntil || gotLast != lastAction {
			t.Fatalf("consent %s: %s, validUntil %s, lastActionDate %s; want %s, %s, %s", id, gotStatus, gotUntil, gotLast, status, validUntil, lastAction)
		}
	}

	// A grant lasts 180 days of 24 hours (API.md 4), so validUntil is the
	// Oslo date 180×24 hours after the approval; across a change to
	// summer time that can be a day later than the calendar's 180 days.
	grantEnds := func(approved time.Time) string { return bank.DateOf(approved.Add(180 * 24 * time.Hour)).String() }

	// Received: validUntil is the day it would end if approved now, and
	// moves with the clock (past midnight, within the hour its SCA lasts).
	late := at(day).Add(13*time.Hour + 10*time.Minute) // 23:40
	setNow(t, b, late)
	c, _ := createConsent(t, b, tpp, bgConsentBody(), "dates-1")
	want(c.ConsentID, "received", grantEnds(late), day.String())
	next := late.Add(30 * time.Minute) // 00:10 the next day
	setNow(t, b, next)
	want(c.ConsentID, "received", grantEnds(next), day.String())

	// Approved the next day: its own 180 days from then.
	q := b.CompleteSCA(c.Links["scaRedirect"].Href, t1Number, "", []string{t1Brukskonto}, "approve").Query
	want(c.ConsentID, "valid", grantEnds(next), day.AddDays(1).String())

	// Reading accounts with it is no action on it.
	setNow(t, b, at(day.AddDays(5)))
	expect(t, get(b, tpp, psuOf(q), "/v1/accounts/"+t1Brukskonto+"/balances"), 200, "")
	want(c.ConsentID, "valid", grantEnds(next), day.AddDays(1).String())

	// Expired: the last action is the day it expired.
	setNow(t, b, at(day.AddDays(190)))
	want(c.ConsentID, "expired", grantEnds(next), grantEnds(next))

	// Rejected at SCA: it ends that day, never valid.
	r, _ := createConsent(t, b, tpp, bgConsentBody(), "dates-2")
	b.CompleteSCA(r.Links["scaRedirect"].Href, t1Number, "", nil, "reject")
	want(r.ConsentID, "rejected", day.AddDays(190).String(), day.AddDays(190).String())

	// Deleted before its SCA: the same.
	d, _ := createConsent(t, b, tpp, bgConsentBody(), "dates-3")
	setNow(t, b, at(day.AddDays(191)))
	expect(t, b.Do(tpp, "DELETE", "/v1/consents/"+d.ConsentID, nil), 204, "")
	want(d.ConsentID, "terminatedByTpp", day.AddDays(191).String(), day.AddDays(191).String())

	// Deleted while valid: its validUntil stays, the deletion is the last action.
	v, _ := createConsent(t, b, tpp, bgConsentBody(), "dates-4")
	b.CompleteSCA(v.Links["scaRedirect"].Href, t1Number, "", []string{t1Brukskonto}, "approve")
	setNow(t, b, at(day.AddDays(200)))
	expect(t, b.Do(tpp, "DELETE", "/v1/consents/"+v.ConsentID, nil), 204, "")
	want(v.ConsentID, "terminatedByTpp", grantEnds(at(day.AddDays(191))), day.AddDays(200).String())
}

// The Berlin Group operations the real bank does not offer answer 405
// SERVICE_INVALID with a body that says so and what to do instead, an
// Allow header with the methods the path does take, and change nothing.
func TestNotOffered_EachSaysWhatToDoInstead(t *testing.T) {
	b, tpp := setup(t)
	onBankingMorning(t, b)
	c, _ := createConsent(t, b, tpp, bgConsentBody(), "not-offered")
	p := createPayment(t, b, tpp, ndctPath, ndct("10", ibanT1Bruk, ibanT2Bruk))
	r := b.Do(tpp, "POST", "/v1/signing-baskets", map[string]any{"paymentIds": []string{createPayment(t, b, tpp, ndctPath, ndct("11", ibanT1Bruk, ibanT2Bruk)).PaymentID}})
	expect(t, r, 201, "")
	basket := field(t, r, "basketId")
	periodic := "/v1/periodic-payments/norwegian-domestic-credit-transfers/" + p.PaymentID
	before := b.FileSum()
	type refusal struct {
		method, path, allow, instead string
		body                         any
	}
	refusals := []refusal{
		{"POST", "/v1/funds-confirmations", "", "GET /v1/accounts/{id}/balances", map[string]any{"account": map[string]string{"iban": ibanT1Bruk}, "instructedAmount": map[string]string{"currency": "NOK", "amount": "10"}}},
		{"POST", "/v1/consents/" + c.ConsentID + "/authorisations", "GET", "scaRedirect", nil},
		{"PUT", "/v1/consents/" + c.ConsentID + "/authorisations/" + c.AuthorisationID, "GET", "scaRedirect", map[string]any{"psuData": map[string]string{"password": "x"}}},
		{"PUT", ndctPath + "/" + p.PaymentID + "/authorisations/" + p.authID(), "GET", "redirect", map[string]any{"scaAuthenticationData": "123456"}},
		{"PUT", periodic + "/authorisations/x", "GET", "redirect", map[string]any{}},
		{"PUT", "/v1/signing-baskets/" + basket + "/authorisations/x", "GET", "redirect", map[string]any{"authenticationMethodId": "sms"}},
		{"POST", ndctPath + "/" + p.PaymentID + "/cancellation-authorisations", "", "DELETE /v1/", nil},
		{"GET", ndctPath + "/" + p.PaymentID + "/cancellation-authorisations", "", "DELETE /v1/", nil},
		{"GET", "/v1/bulk-payments/norwegian-domestic-credit-transfers/x/cancellation-authorisations/y", "", "DELETE /v1/", nil},
		{"PUT", ndctPath + "/" + p.PaymentID + "/cancellation-authorisations/y", "", "DELETE /v1/", map[string]any{}},
	}
	// Every payment service, whether the payment exists or not.
	for _, service := range []string{"payments", "periodic-payments", "bulk-payments"} {
		one := "/v1/" + service + "/norwegian-domestic-credit-transfers/x"
		refusals = append(refusals,
			refusal{"PUT", one + "/authorisations/y", "GET", "redirect", map[string]any{"scaAuthenticationData": "123456"}},
			refusal{"POST", one + "/cancellation-authorisations", "", "DELETE /v1/", nil},
			refusal{"GET", one + "/cancellation-authorisations", "", "DELETE /v1/", nil},
			refusal{"GET", one + "/cancellation-authorisations/y", "", "DELETE /v1/", nil},
			refusal{"PUT", one + "/cancellation-authorisations/y", "", "DELETE /v1/", map[string]any{}},
		)
	}
	for _, n := range refusals {
		for _, prefix := range []string{"", "/api"} {
			r := b.Do(tpp, n.method, prefix+n.path, n.body)
			e := expect(t, r, http.StatusMethodNotAllowed, "SERVICE_INVALID")
			if !strings.Contains(e.Message, "the bank does not offer") || !strings.Contains(e.Message, n.instead) {
				t.Errorf("%s %s: %s", n.method, n.path, e.Message)
			}
			if allow, ok := r.Header["Allow"]; !ok || strings.Join(allow, ",") != n.allow {
				t.Errorf("%s %s: Allow %q, want %q", n.method, n.path, allow, n.allow)
			}
		}
	}
	if b.FileSum() != before {
		t.Fatal("a refused operation changed the data file")
	}
	// They are checked like every signed route: unsigned, refused as such.
	r = b.Do(nil, "POST", "/v1/funds-confirmations", map[string]any{})
	expect(t, r, 400, "SIGNATURE_MISSING")
	// The payment was not touched: still cancellable with DELETE.
	expect(t, b.Do(tpp, "DELETE", ndctPath+"/"+p.PaymentID, nil), 204, "")
}
