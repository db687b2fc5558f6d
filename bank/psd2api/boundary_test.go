package psd2api_test

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank/pki"
)

// The two kinds of caller (docs/SECURITY.md): a TPP does what concerns
// only itself; only the operator does what concerns every TPP.

// stranger is a TPP with a fresh self-signed certificate, which trust mode
// any accepts: anyone who reaches the bank can make one.
func stranger(t *testing.T, name string) *apptest.TPP {
	t.Helper()
	key := apptest.Key(t, 3)
	cert, err := pki.SelfSigned(key, name, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return apptest.TPPFor(t, cert, key)
}

// operatorRoutes are the routes that concern every TPP, with a body each
// would take.
var operatorRoutes = []struct {
	method, path string
	body         any
}{
	{"GET", "/v1/sandbox/settings", nil},
	{"PATCH", "/v1/sandbox/settings", map[string]any{"requireSignature": false}},
	{"PATCH", "/v1/sandbox/settings", map[string]any{"trustMode": "store"}},
	{"PUT", "/v1/sandbox/settings", map[string]any{}},
	{"PUT", "/v1/sandbox/clock", map[string]any{"offsetSeconds": 86400}},
	{"PUT", "/v1/sandbox/faults", map[string]any{"outage": true}},
	{"POST", "/v1/sandbox/batch-runs", nil},
	{"GET", "/v1/sandbox/batch-runs", nil},
	{"GET", "/v1/sandbox/sca-sessions", nil},
	{"GET", "/v1/sandbox/authorisations", nil},
	{"DELETE", "/v1/sandbox/requests", nil},
	{"GET", "/v1/sandbox/scenario", nil},
	{"PUT", "/v1/sandbox/scenario", map[string]any{"format": "sandbank-scenario", "version": 2}},
	{"POST", "/v1/sandbox/operator-certificates", map[string]any{"name": "Me", "organisationNumber": "1", "roles": []string{}, "publicKey": "x"}},
}

// TestSecurity_StrangerGetsNothingOfTheOperator replays the attack of a
// stranger with a self-signed certificate: TPP A has a payment and a grant;
// the stranger tries every operator route, A's payment, A's grant and A's
// traffic. Every operator route answers 403 with a body that says what the
// operator is and how to become one, A's records are unknown to the
// stranger, and the data file is unchanged. The operator may do all of it.
func TestSecurity_StrangerGetsNothingOfTheOperator(t *testing.T) {
	b, a := setup(t)
	op := b.Operator()
	onBankingMorning(t, b)
	pay := createPayment(t, b, a, ndctPath, ndct("100", ibanT1Bruk, ibanT2Bruk))
	b.Consent(a, t1Number, "", nil)
	var grants []struct {
		GrantID string `json:"grantId"`
		TPPID   string `json:"tppId"`
	}
	b.Do(op, "GET", "/v1/sandbox/grants", nil).JSON(t, &grants)
	if len(grants) != 1 || grants[0].TPPID != a.ID {
		t.Fatalf("the operator sees grants %+v, want A's one", grants)
	}
	s := stranger(t, "Stranger")
	before := b.FileSum()

	for _, rt := range operatorRoutes {
		r := b.Do(s, rt.method, rt.path, rt.body)
		e := expect(t, r, http.StatusForbidden, "FORBIDDEN")
		for _, want := range []string{"operator", "sandbankd cert new --operator", "--operator-access any-tpp"} {
			if !strings.Contains(e.Message, want) {
				t.Errorf("%s %s: the refusal does not say %q: %s", rt.method, rt.path, want, e.Message)
			}
		}
	}
	// A's records are unknown to the stranger; its own lists are empty.
	expect(t, b.Do(s, "GET", "/v1/sandbox/payments/"+pay.PaymentID, nil), 404, "RESOURCE_UNKNOWN")
	expect(t, b.Do(s, "POST", "/v1/sandbox/payments/"+pay.PaymentID+"/status", map[string]string{"status": "ACSC"}), 403, "FORBIDDEN")
	expect(t, b.Do(s, "DELETE", "/v1/sandbox/grants/"+grants[0].GrantID, nil), 404, "RESOURCE_UNKNOWN")
	for _, path := range []string{"/v1/sandbox/payments", "/v1/sandbox/baskets", "/v1/sandbox/grants"} {
		r := b.Do(s, "GET", path, nil)
		expect(t, r, 200, "")
		if body := strings.TrimSpace(string(r.Body)); body != "[]" {
			t.Errorf("GET %s as the stranger: %s, want []", path, body)
		}
	}
	for _, path := range []string{"/v1/sandbox/payments?tppId=" + a.ID, "/v1/sandbox/grants?tppId=" + a.ID, "/v1/sandbox/requests?tppId=" + a.ID, "/v1/sandbox/requests.har?tppId=" + a.ID} {
		expect(t, b.Do(s, "GET", path, nil), 403, "FORBIDDEN")
	}
	var log struct {
		Requests []struct {
			ID    string `json:"id"`
			TPPID string `json:"tppId"`
		} `json:"requests"`
	}
	b.Do(s, "GET", "/v1/sandbox/requests?limit=1000", nil).JSON(t, &log)
	for _, e := range log.Requests {
		if e.TPPID != s.ID {
			t.Errorf("the stranger reads a request of %s: %+v", e.TPPID, e)
		}
	}
	var har struct {
		Log struct {
			Entries []struct {
				Sandbank struct {
					TPPID string `json:"tppId"`
				} `json:"_sandbank"`
			} `json:"entries"`
		} `json:"log"`
	}
	r := b.Do(s, "GET", "/v1/sandbox/requests.har", nil)
	expect(t, r, 200, "")
	r.JSON(t, &har)
	if len(har.Log.Entries) == 0 {
		t.Error("the stranger's HAR lacks its own requests")
	}
	for _, e := range har.Log.Entries {
		if e.Sandbank.TPPID != s.ID {
			t.Errorf("the stranger's HAR holds a request of %q", e.Sandbank.TPPID)
		}
	}
	// An entry of A's, found by the operator, is unknown to the stranger.
	b.Do(op, "GET", "/v1/sandbox/requests?tppId="+a.ID+"&limit=1", nil).JSON(t, &log)
	if len(log.Requests) != 1 {
		t.Fatalf("the operator finds no request of A: %+v", log)
	}
	expect(t, b.Do(s, "GET", "/v1/sandbox/requests/"+log.Requests[0].ID, nil), 404, "RESOURCE_UNKNOWN")
	expect(t, b.Do(a, "GET", "/v1/sandbox/requests/"+log.Requests[0].ID, nil), 200, "")
	if b.FileSum() != before {
		t.Fatal("the stranger's requests changed the data file")
	}

	// The payment is still A's RCVD, the grant A's; the settings stand.
	var detail struct {
		TransactionStatus string `json:"transactionStatus"`
	}
	b.Do(op, "GET", "/v1/sandbox/payments/"+pay.PaymentID, nil).JSON(t, &detail)
	if detail.TransactionStatus != "RCVD" {
		t.Errorf("A's payment is %s", detail.TransactionStatus)
	}
	st, _ := b.Bank.Ops.Settings()
	if !st.RequireSignature || st.TrustMode != "any" {
		t.Errorf("the settings changed: %+v", st)
	}
	// The operator may do what the stranger may not.
	expect(t, b.Do(op, "GET", "/v1/sandbox/settings", nil), 200, "")
	expect(t, b.Do(op, "POST", "/v1/sandbox/batch-runs", nil), 200, "")
	expect(t, b.Do(op, "GET", "/v1/sandbox/sca-sessions", nil), 200, "")
	expect(t, b.Do(op, "DELETE", "/v1/sandbox/grants/"+grants[0].GrantID, nil), 204, "")
}

// TestSecurity_TPPReadsAndRevokesItsOwnOnly: two TPPs of the bank's CA
// each read their own payments, baskets, grants and requests through the
// operator's routes, and revoke their own grant, never the other's.
func TestSecurity_TPPReadsAndRevokesItsOwnOnly(t *testing.T) {
	b, a := setup(t)
	other := b.NewTPP("988776655", 1, pki.RoleAI, pki.RolePI)
	op := b.Operator()
	onBankingMorning(t, b)
	payA := createPayment(t, b, a, ndctPath, ndct("100", ibanT1Bruk, ibanT2Bruk))
	payB := createPayment(t, b, other, ndctPath, ndct("200", ibanT1Bruk, ibanT2Bruk))
	b.Consent(a, t1Number, "", nil)
	b.Consent(other, t1Number, "", nil)

	type listed struct {
		PaymentID string `json:"paymentId"`
		GrantID   string `json:"grantId"`
		TPPID     string `json:"tppId"`
	}
	list := func(tpp *apptest.TPP, path string) []listed {
		t.Helper()
		r := b.Do(tpp, "GET", path, nil)
		expect(t, r, 200, "")
		var out []listed
		r.JSON(t, &out)
		return out
	}
	for _, tpp := range []*apptest.TPP{a, other} {
		for _, path := range []string{"/v1/sandbox/payments", "/v1/sandbox/grants"} {
			got := list(tpp, path)
			if len(got) != 1 || got[0].TPPID != tpp.ID {
				t.Errorf("%s GET %s: %+v, want its own one", tpp.ID, path, got)
			}
		}
	}
	if got := list(op, "/v1/sandbox/payments"); len(got) != 2 {
		t.Errorf("the operator lists %d payments, want both", len(got))
	}
	expect(t, b.Do(a, "GET", "/v1/sandbox/payments/"+payA.PaymentID, nil), 200, "")
	expect(t, b.Do(a, "GET", "/v1/sandbox/payments/"+payB.PaymentID, nil), 404, "RESOURCE_UNKNOWN")
	expect(t, b.Do(a, "GET", "/v1/sandbox/payments?tppId="+a.ID, nil), 200, "")

	grantB := list(other, "/v1/sandbox/grants")[0].GrantID
	grantA := list(a, "/v1/sandbox/grants")[0].GrantID
	expect(t, b.Do(a, "DELETE", "/v1/sandbox/grants/"+grantB, nil), 404, "RESOURCE_UNKNOWN")
	if len(list(other, "/v1/sandbox/grants")) != 1 {
		t.Fatal("A revoked the other TPP's grant")
	}
	expect(t, b.Do(a, "DELETE", "/v1/sandbox/grants/"+grantA, nil), 204, "")
	if len(list(a, "/v1/sandbox/grants")) != 0 {
		t.Fatal("A's own grant is still there")
	}
}

// TestSecurity_OnlyTheBanksCAMakesAnOperator: an operator certificate of
// another CA, and a TPP certificate of the bank's CA however it was asked
// for, are TPPs; POST /v1/sandbox/tpp-certificates never issues the
// operator's policy.
func TestSecurity_OnlyTheBanksCAMakesAnOperator(t *testing.T) {
	b, tpp := setup(t)
	other, err := pki.NewAuthority(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	key := apptest.Key(t, 2)
	foreign, err := other.IssueOperator(pki.TPPRequestFor("Sandbank operator", "0", pki.Roles, 1, time.Now()), key.Public())
	if err != nil {
		t.Fatal(err)
	}
	expect(t, b.Do(apptest.TPPFor(t, foreign, key), "GET", "/v1/sandbox/settings", nil), 403, "FORBIDDEN")

	// A certificate asked for with every field that might mean "operator".
	issued := b.Do(tpp, "POST", "/v1/sandbox/tpp-certificates", map[string]any{
		"name": "Sandbank operator", "organisationNumber": "0", "roles": []string{"PSP_AI"}, "validDays": 1,
		"operator": true, "policies": []string{pki.OperatorPolicy.String()}, "publicKey": publicKeyPEM(t, &key.PublicKey),
	})
	expect(t, issued, 201, "")
	var out struct {
		Certificate string `json:"certificate"`
	}
	issued.JSON(t, &out)
	cert, err := pki.DecodeCert([]byte(out.Certificate))
	if err != nil {
		t.Fatal(err)
	}
	if b.Authority.IsOperator(cert) || len(cert.Policies) != 0 {
		t.Fatalf("a TPP certificate carries policies %v", cert.Policies)
	}
	expect(t, b.Do(apptest.TPPFor(t, cert, key), "GET", "/v1/sandbox/settings", nil), 403, "FORBIDDEN")

	// The operator's own route issues one, to the operator only.
	body := map[string]any{"name": "CI operator", "organisationNumber": "0", "roles": []string{"PSP_AI", "PSP_PI"}, "validDays": 1, "publicKey": publicKeyPEM(t, &key.PublicKey)}
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/operator-certificates", body), 403, "FORBIDDEN")
	issued = b.Do(b.Operator(), "POST", "/v1/sandbox/operator-certificates", body)
	expect(t, issued, 201, "")
	issued.JSON(t, &out)
	if cert, err = pki.DecodeCert([]byte(out.Certificate)); err != nil {
		t.Fatal(err)
	}
	if !b.Authority.IsOperator(cert) {
		t.Fatal("the operator certificate route issued a TPP's")
	}
	expect(t, b.Do(apptest.TPPFor(t, cert, key), "GET", "/v1/sandbox/settings", nil), 200, "")
}

// TestSecurity_AnyTPPMakesEveryCallerTheOperator: operatorAccess any-tpp,
// set by the operator, restores one team's bank without a boundary; a TPP
// cannot set it.
func TestSecurity_AnyTPPMakesEveryCallerTheOperator(t *testing.T) {
	b, tpp := setup(t)
	s := stranger(t, "Team mate")
	expect(t, b.Do(s, "PATCH", "/v1/sandbox/settings", map[string]any{"operatorAccess": "any-tpp"}), 403, "FORBIDDEN")
	d := patch(t, b, b.Operator(), `{"operatorAccess": "any-tpp"}`)
	if d.OperatorAccess != "any-tpp" {
		t.Fatalf("operatorAccess reads %q", d.OperatorAccess)
	}
	expect(t, b.Do(s, "PUT", "/v1/sandbox/clock", map[string]any{"offsetSeconds": 3600}), 200, "")
	expect(t, b.Do(tpp, "GET", "/v1/sandbox/settings", nil), 200, "")
	d = patch(t, b, s, `{"operatorAccess": null}`)
	if d.OperatorAccess != "operator" {
		t.Fatalf("operatorAccess null reads %q, want the default operator", d.OperatorAccess)
	}
	expect(t, b.Do(s, "GET", "/v1/sandbox/settings", nil), 403, "FORBIDDEN")
	expect(t, b.Do(b.Operator(), "PATCH", "/v1/sandbox/settings", map[string]any{"operatorAccess": "everyone"}), 400, "FORMAT_ERROR")
}

// TestSecurity_EveryOperatorRouteRefusesATPP reads who may call each
// operation from the bank's own OpenAPI document (x-sandbank-caller) and
// calls every operator operation as a TPP: each answers 403. The
// operations under /v1/sandbox that any TPP may call are exactly the
// seed's sandbox data API, the certificates, reading the clock and the
// faults, and automated SCA, so a new route cannot join them unnoticed.
func TestSecurity_EveryOperatorRouteRefusesATPP(t *testing.T) {
	b, tpp := setup(t)
	r := b.Do(nil, "GET", "/v1/openapi.json", nil)
	expect(t, r, 200, "")
	var doc struct {
		Paths map[string]map[string]struct {
			Caller string `json:"x-sandbank-caller"`
		} `json:"paths"`
	}
	r.JSON(t, &doc)
	var tppSandbox []string
	operators := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			method = strings.ToUpper(method)
			concrete := regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(path, "enc!!x")
			switch {
			case op.Caller == "operator":
				operators++
				expect(t, b.Do(tpp, method, concrete, nil), 403, "FORBIDDEN")
			case op.Caller == "tpp" && strings.HasPrefix(path, "/v1/sandbox/"):
				tppSandbox = append(tppSandbox, method+" "+path)
			case op.Caller == "":
				if strings.HasPrefix(path, "/v1/") && path != "/v1/openapi.json" {
					t.Errorf("%s %s names no caller", method, path)
				}
			}
		}
	}
	if operators < 15 {
		t.Errorf("only %d operator operations", operators)
	}
	slices.Sort(tppSandbox)
	want := []string{
		"DELETE /v1/sandbox/accounts/{mockAccountId}", "DELETE /v1/sandbox/accounts/{mockAccountId}/transactions",
		"DELETE /v1/sandbox/agreements/{mockAgreementId}", "DELETE /v1/sandbox/agreements/{mockAgreementId}/engagements/{mockEngagementId}",
		"DELETE /v1/sandbox/card-accounts/{mockCardAccountId}", "DELETE /v1/sandbox/card-accounts/{mockCardAccountId}/transactions",
		"DELETE /v1/sandbox/customers/{customerId}",
		"GET /v1/sandbox/accounts", "GET /v1/sandbox/accounts/{mockAccountId}", "GET /v1/sandbox/accounts/{mockAccountId}/transactions",
		"GET /v1/sandbox/accounts/{mockAccountId}/transactions/{mockTransactionId}",
		"GET /v1/sandbox/agreements", "GET /v1/sandbox/agreements/{mockAgreementId}", "GET /v1/sandbox/agreements/{mockAgreementId}/engagements",
		"GET /v1/sandbox/agreements/{mockAgreementId}/engagements/{mockEngagementId}",
		"GET /v1/sandbox/bank-certificate", "GET /v1/sandbox/ca-certificate",
		"GET /v1/sandbox/card-accounts", "GET /v1/sandbox/card-accounts/{mockCardAccountId}", "GET /v1/sandbox/card-accounts/{mockCardAccountId}/transactions",
		"GET /v1/sandbox/clock", "GET /v1/sandbox/customers", "GET /v1/sandbox/customers/{customerId}", "GET /v1/sandbox/faults",
		"POST /v1/sandbox/accounts", "POST /v1/sandbox/accounts/{mockAccountId}/transactions", "POST /v1/sandbox/agreements",
		"POST /v1/sandbox/agreements/{mockAgreementId}/engagements", "POST /v1/sandbox/card-accounts",
		"POST /v1/sandbox/card-accounts/{mockCardAccountId}/transactions", "POST /v1/sandbox/customers", "POST /v1/sandbox/initialize",
		"POST /v1/sandbox/sca/{authorisationId}", "POST /v1/sandbox/tpp-certificates",
		"PUT /v1/sandbox/accounts/{mockAccountId}/balances", "PUT /v1/sandbox/card-accounts/{mockCardAccountId}/balances",
	}
	if !slices.Equal(tppSandbox, want) {
		t.Errorf("the sandbox operations any TPP may call:\n got %q\nwant %q", tppSandbox, want)
	}
}
