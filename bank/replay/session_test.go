package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"sandbank/app/apptest"
	"sandbank/bank/pki"
	"sandbank/bank/replay"
	"sandbank/bank/reqlog"
)

// A session a TPP has with the bank, as the TPP guide walks it
// (docs/TPP-GUIDE.md 3 to 7): a consent approved through automated SCA,
// the accounts with balances and a page of transactions, a payment and
// its SCA, two more payments in a signing basket approved with one SCA,
// and the operator's batch run that settles them. Bodies are written
// with Berlin Group's field names, as a TPP writes them.

const (
	guideOrg    = "933012867"
	redirectURI = "https://tpp.example/callback"
	psuIP       = "192.0.2.10"
	brukskonto  = "NO3815030123457"
	ndct        = "/v1/payments/norwegian-domestic-credit-transfers"
)

// walkthrough runs the guide's session against b and returns the TPP
// that sent it.
func walkthrough(t testing.TB, b *apptest.Bank) {
	t.Helper()
	tpp := b.NewTPP(guideOrg, 0, pki.RoleAI, pki.RolePI)
	session := "walkthrough-1"
	sca := []byte(`{"nationalId": "13039319955", "decision": "approve"}`)
	want := func(r apptest.Response, status int, what string) apptest.Response {
		t.Helper()
		if r.Status != status {
			t.Fatalf("%s: %d, want %d: %s", what, r.Status, status, r.Body)
		}
		return r
	}
	var started struct {
		AuthorisationID string `json:"authorisationId"`
		PaymentID       string `json:"paymentId"`
		BasketID        string `json:"basketId"`
		Links           map[string]struct {
			Href string `json:"href"`
		} `json:"_links"`
	}
	want(b.Do(tpp, "POST", "/v1/consents", nil, "TPP-Redirect-URI: "+redirectURI, "TPP-Session-ID: "+session), 201, "consent").JSON(t, &started)
	var redirect struct{ Redirect string }
	want(b.Do(tpp, "POST", "/v1/sandbox/sca/"+started.AuthorisationID, sca), 200, "consent SCA").JSON(t, &redirect)
	u, _ := url.Parse(redirect.Redirect)
	psu := []string{"PSU-ID: " + u.Query().Get("psu-id"), "TPP-Session-ID: " + session, "PSU-IP-Address: " + psuIP}
	var accounts struct {
		Accounts []struct {
			ResourceID string `json:"resourceId"`
			IBAN       string `json:"iban"`
		}
	}
	want(b.Do(tpp, "GET", "/v1/accounts?withBalance=true", nil, psu...), 200, "accounts").JSON(t, &accounts)
	account := ""
	for _, a := range accounts.Accounts {
		if a.IBAN == brukskonto {
			account = a.ResourceID
		}
	}
	want(b.Do(tpp, "GET", "/v1/accounts/"+account+"/transactions?bookingStatus=both&limit=3", nil, psu...), 200, "transactions")
	want(b.Do(tpp, "GET", "/v1/accounts/"+account+"/balances", nil, psu...), 200, "balances")

	payment := func(amount, text string) string {
		t.Helper()
		body := `{"instructedAmount": {"amount": "` + amount + `", "currency": "NOK"}, "debtorAccount": {"iban": "` + brukskonto + `"},
 "creditorAccount": {"iban": "NO3015030234569"}, "creditorName": "Test Testperson 2", "remittanceInformationUnstructured": "` + text + `"}`
		want(b.Do(tpp, "POST", ndct+"?allowLogicalDuplicate=true", []byte(body), "TPP-Redirect-URI: "+redirectURI, "TPP-Session-ID: "+session), 201, "payment").JSON(t, &started)
		return started.PaymentID
	}
	first := payment("100.30", "Middag")
	auth := started.Links["scaStatus"].Href
	want(b.Do(tpp, "POST", "/v1/sandbox/sca/"+auth[strings.LastIndex(auth, "/")+1:], sca), 200, "payment SCA")
	want(b.Do(tpp, "GET", auth, nil), 200, "payment SCA status")
	want(b.Do(tpp, "GET", ndct+"/"+first+"/status", nil), 200, "payment status")

	ids := []string{payment("1500", "Basket 1500"), payment("2000", "Basket 2000")}
	body, _ := json.Marshal(map[string]any{"paymentIds": ids})
	want(b.Do(tpp, "POST", "/v1/signing-baskets", body), 201, "basket").JSON(t, &started)
	basket := started.BasketID
	want(b.Do(tpp, "POST", "/v1/signing-baskets/"+basket+"/authorisations", nil, "TPP-Redirect-URI: "+redirectURI, "TPP-Session-ID: "+session, psu[0], psu[2], "x-accept-fix: longer-names"), 201, "basket authorisation").JSON(t, &started)
	want(b.Do(tpp, "POST", "/v1/sandbox/sca/"+started.AuthorisationID, sca), 200, "basket SCA")
	want(b.Do(tpp, "GET", "/v1/signing-baskets/"+basket+"/status", nil), 200, "basket status")
	// A refusal is part of the session too: a KID that fails its check.
	bad := `{"instructedAmount": {"amount": "10", "currency": "NOK"}, "debtorAccount": {"iban": "` + brukskonto + `"}, "creditorAccount": {"iban": "NO3015030234569"},
 "creditorName": "X", "remittanceInformationStructuredArray": [{"reference": "1234567890", "referenceType": "KID"}]}`
	want(b.Do(tpp, "POST", ndct, []byte(bad), "TPP-Redirect-URI: "+redirectURI, "TPP-Session-ID: "+session), 400, "bad KID")

	op := b.Operator()
	want(b.Do(op, "POST", "/v1/sandbox/batch-runs", nil), 200, "batch run")
	for _, id := range append(ids, first) {
		want(b.Do(tpp, "GET", ndct+"/"+id+"/status", nil), 200, "status after the batch run")
	}
}

// har exports b's request log as a HAR, as the Traffic screen's Export
// HAR… writes it.
func har(t testing.TB, b *apptest.Bank) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := reqlog.WriteHAR(&buf, b.RequestLog().Entries(), "test"); err != nil {
		t.Fatal(err)
	}
	apptest.CheckHAR(t, buf.Bytes())
	return buf.Bytes()
}

// replayTo replays a HAR against b as its operator and returns the report.
func replayTo(t *testing.T, data []byte, b *apptest.Bank, o replay.Options) *replay.Report {
	t.Helper()
	rep, err := replayErr(data, b, o)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	return rep
}

func replayErr(data []byte, b *apptest.Bank, o replay.Options) (*replay.Report, error) {
	rec, err := replay.ReadHAR(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return replay.Run(context.Background(), rec, target(b), o)
}

// target is b, replayed to as its operator.
func target(b *apptest.Bank) replay.Target {
	return replay.Target{Base: b.URL, Operator: b.Operator().Signer,
		Client: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// table is the report as sandbankd prints it, for a failure's message.
func table(rep *replay.Report) string {
	var b strings.Builder
	_ = rep.WriteTable(&b)
	return b.String()
}
