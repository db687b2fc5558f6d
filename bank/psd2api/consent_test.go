package psd2api_test

import (
	"slices"
	"strings"
	"testing"

	"sandbank/app/apptest"
	"sandbank/bank/apierr"
)

// consentCreated is the answer of POST /v1/consents.
type consentCreated struct {
	ConsentID       string           `json:"consentId"`
	ConsentStatus   string           `json:"consentStatus"`
	AuthorisationID string           `json:"authorisationId"`
	TPPMessages     []apierr.Message `json:"tppMessages"`
	Links           map[string]struct {
		Href string `json:"href"`
	} `json:"_links"`
}

// bgConsentBody is a consent request as a Berlin Group 1.3 client builds
// it, by hand from the standard's field names.
func bgConsentBody() map[string]any {
	ref := []map[string]string{{"iban": "NO1615030123465", "currency": "NOK"}}
	return map[string]any{
		"access":                   map[string]any{"accounts": ref, "balances": ref, "transactions": ref},
		"recurringIndicator":       true,
		"validUntil":               "2027-05-01",
		"frequencyPerDay":          4,
		"combinedServiceIndicator": false,
	}
}

func createConsent(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, body any, session string) (consentCreated, apptest.Response) {
	t.Helper()
	r := b.Do(tpp, "POST", "/v1/consents", body, "TPP-Redirect-URI: "+tppRedirect, "TPP-Session-ID: "+session)
	expect(t, r, 201, "")
	var c consentCreated
	r.JSON(t, &c)
	return c, r
}

func consentStatus(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, id string) string {
	t.Helper()
	r := b.Do(tpp, "GET", "/v1/consents/"+id+"/status", nil)
	expect(t, r, 200, "")
	var s struct {
		ConsentStatus string `json:"consentStatus"`
	}
	r.JSON(t, &s)
	return s.ConsentStatus
}

// A consent is a resource, as Berlin Group clients expect: created with a
// Location, read, listed with its authorisations, used through Consent-ID
// instead of PSU-ID, and deleted; the body a BG client sends is accepted,
// and each field the bank ignores is named in a WARNING.
func TestConsent_ResourceFromCreationToDeletion(t *testing.T) {
	b, tpp := setup(t)
	c, r := createConsent(t, b, tpp, bgConsentBody(), "bg-1")
	self := "/v1/consents/" + c.ConsentID
	if c.ConsentStatus != "received" || !strings.HasPrefix(c.ConsentID, "enc!!") || c.AuthorisationID == "" {
		t.Fatalf("created %+v", c)
	}
	if r.Header.Get("Location") != self || r.Header.Get("ASPSP-SCA-Approach") != "REDIRECT" || c.Links["self"].Href != self || c.Links["scaRedirect"].Href == "" {
		t.Fatalf("Location %q, ASPSP-SCA-Approach %q, links %+v", r.Header.Get("Location"), r.Header.Get("ASPSP-SCA-Approach"), c.Links)
	}
	var warned []string
	for _, m := range c.TPPMessages {
		if m.Category == "WARNING" {
			warned = append(warned, m.Path)
		}
	}
	slices.Sort(warned)
	if strings.Join(warned, " ") != "access combinedServiceIndicator frequencyPerDay recurringIndicator validUntil" {
		t.Fatalf("warnings %+v", c.TPPMessages)
	}

	// Before SCA: received, with its one authorisation.
	if st := consentStatus(t, b, tpp, c.ConsentID); st != "received" {
		t.Fatalf("status before SCA %s", st)
	}
	r = b.Do(tpp, "GET", self+"/authorisations", nil)
	expect(t, r, 200, "")
	var auths struct {
		AuthorisationIDs []string `json:"authorisationIds"`
	}
	r.JSON(t, &auths)
	if len(auths.AuthorisationIDs) != 1 || auths.AuthorisationIDs[0] != c.AuthorisationID {
		t.Fatalf("authorisations %s", r.Body)
	}
	r = b.Do(tpp, "GET", self+"/authorisations/"+c.AuthorisationID, nil)
	if expect(t, r, 200, ""); !strings.Contains(string(r.Body), `"RECEIVED"`) {
		t.Fatalf("SCA status %s", r.Body)
	}

	// After SCA: valid, and what it covers.
	q := b.CompleteSCA(c.Links["scaRedirect"].Href, t1Number, "", []string{t1Brukskonto}, "approve").Query
	r = b.Do(tpp, "GET", self, nil)
	expect(t, r, 200, "")
	var got struct {
		Access struct {
			Accounts []struct {
				IBAN string `json:"iban"`
			} `json:"accounts"`
		} `json:"access"`
		ValidUntil    string `json:"validUntil"`
		ConsentStatus string `json:"consentStatus"`
	}
	r.JSON(t, &got)
	if got.ConsentStatus != "valid" || len(got.Access.Accounts) != 1 || got.Access.Accounts[0].IBAN != ibanT1Bruk || got.ValidUntil == "" {
		t.Fatalf("valid consent %s", r.Body)
	}

	// Consent-ID stands in for PSU-ID; beside it, PSU-ID must be its PSU.
	consent := []string{"Consent-ID: " + c.ConsentID, "PSU-IP-Address: 192.0.2.10"}
	r = b.Do(tpp, "GET", "/v1/accounts", nil, consent...)
	if expect(t, r, 200, ""); !strings.Contains(string(r.Body), ibanT1Bruk) {
		t.Fatalf("accounts by Consent-ID %s", r.Body)
	}
	expect(t, b.Do(tpp, "GET", "/v1/accounts", nil, append(consent, "PSU-ID: "+q.Get("psu-id"))...), 200, "")
	other := psuOf(b.Consent(tpp, t2Number, "", nil))
	expect(t, b.Do(tpp, "GET", "/v1/accounts", nil, append(consent, "PSU-ID: "+other.id)...), 401, "CONSENT_INVALID")

	// Another TPP sees none of it.
	stranger := b.NewTPP("987654321", 1, "PSP_AI")
	expect(t, b.Do(stranger, "GET", self, nil), 404, "RESOURCE_UNKNOWN")
	expect(t, b.Do(stranger, "DELETE", self, nil), 404, "RESOURCE_UNKNOWN")
	expect(t, b.Do(stranger, "GET", "/v1/accounts", nil, consent...), 403, "CONSENT_UNKNOWN")

	// DELETE ends it, and its grant.
	expect(t, b.Do(tpp, "DELETE", self, nil), 204, "")
	if st := consentStatus(t, b, tpp, c.ConsentID); st != "terminatedByTpp" {
		t.Fatalf("status after DELETE %s", st)
	}
	expect(t, b.Do(tpp, "GET", "/v1/accounts", nil, consent...), 401, "CONSENT_INVALID")
	expect(t, get(b, tpp, psuOf(q), "/v1/accounts"), 401, "CONSENT_INVALID")
}

// A newer consent of the same PSU and context takes the grant: the older
// one ends. Revoking a grant in the operator's screen is the PSU's revoke,
// and a rejected SCA rejects the consent.
func TestConsent_StatusesFollowTheGrant(t *testing.T) {
	b, tpp := setup(t)
	first, _ := createConsent(t, b, tpp, nil, "s-1")
	b.CompleteSCA(first.Links["scaRedirect"].Href, t1Number, "", nil, "approve")
	second, _ := createConsent(t, b, tpp, nil, "s-2")
	b.CompleteSCA(second.Links["scaRedirect"].Href, t1Number, "", nil, "approve")
	if a, b := consentStatus(t, b, tpp, first.ConsentID), consentStatus(t, b, tpp, second.ConsentID); a != "terminatedByTpp" || b != "valid" {
		t.Fatalf("older %s, newer %s", a, b)
	}
	grants, err := b.Bank.Ops.Consents()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range grants.Grants {
		if g.ConsentID == second.ConsentID {
			if err := b.Bank.Ops.RevokeGrant(g.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if st := consentStatus(t, b, tpp, second.ConsentID); st != "revokedByPsu" {
		t.Fatalf("after revoke %s", st)
	}
	// Deleting an ended consent changes nothing.
	expect(t, b.Do(tpp, "DELETE", "/v1/consents/"+second.ConsentID, nil), 204, "")
	if st := consentStatus(t, b, tpp, second.ConsentID); st != "revokedByPsu" {
		t.Fatalf("deleting a revoked consent made it %s", st)
	}

	rejected, _ := createConsent(t, b, tpp, nil, "s-3")
	b.CompleteSCA(rejected.Links["scaRedirect"].Href, t1Number, "", nil, "reject")
	if st := consentStatus(t, b, tpp, rejected.ConsentID); st != "rejected" {
		t.Fatalf("rejected SCA: %s", st)
	}
	expect(t, b.Do(tpp, "GET", "/v1/accounts", nil, "Consent-ID: "+rejected.ConsentID), 401, "CONSENT_INVALID")
	expect(t, b.Do(tpp, "GET", "/v1/consents/enc!!nope/status", nil), 404, "RESOURCE_UNKNOWN")
}

// Strict mode refuses the body the bank would otherwise ignore with
// warnings, and creates nothing.
func TestConsent_StrictRefusesTheIgnoredBody(t *testing.T) {
	b, tpp := setup(t)
	setStrict(t, b, true)
	before := b.FileSum()
	r := b.Do(tpp, "POST", "/v1/consents", bgConsentBody(), "TPP-Redirect-URI: "+tppRedirect, "TPP-Session-ID: strict")
	e := expect(t, r, 400, "BAD_REQUEST")
	if len(e.TPPMessages) != 5 || !strings.Contains(e.Message, "strict mode") {
		t.Fatalf("strict refusal %+v", e)
	}
	if b.FileSum() != before {
		t.Fatal("a refused consent changed the data file")
	}
	// Without a body, strict mode has nothing to refuse.
	createConsent(t, b, tpp, nil, "strict")
}

// Every payment service lists a payment's authorisations, also before a
// PSU approved it (when the payment itself is not readable yet).
func TestPayments_AuthorisationsAreListed(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)
	single := createPayment(t, b, tpp, ndctPath, ndct("10", ibanT1Bruk, ibanT2Bruk))
	periodic := ndct("11", ibanT1Bruk, ibanT2Bruk)
	periodic["startDate"], periodic["frequency"] = day.AddDays(3).String(), "Monthly"
	item := map[string]any{"instructedAmount": map[string]string{"amount": "12", "currency": "NOK"}, "creditorAccount": map[string]string{"iban": ibanT2Bruk}, "creditorName": "Mottaker"}
	bulk := map[string]any{"debtorAccount": map[string]string{"iban": ibanT1Bruk}, "requestedExecutionDate": day.String(), "paymentInformationId": "LIST-1", "payments": []any{item}}
	for _, c := range []struct {
		path string
		body any
	}{
		{ndctPath, nil},
		{"/v1/periodic-payments/norwegian-domestic-credit-transfers", periodic},
		{"/v1/bulk-payments/norwegian-domestic-credit-transfers", bulk},
	} {
		p := single
		if c.body != nil {
			p = createPayment(t, b, tpp, c.path, c.body)
		}
		r := b.Do(tpp, "GET", c.path+"/"+p.PaymentID+"/authorisations", nil)
		expect(t, r, 200, "")
		var list struct {
			AuthorisationIDs []string `json:"authorisationIds"`
		}
		r.JSON(t, &list)
		if len(list.AuthorisationIDs) != 1 || list.AuthorisationIDs[0] != p.authID() {
			t.Fatalf("%s: %s, want [%s]", c.path, r.Body, p.authID())
		}
		if r.Header.Get("Location") != "" {
			t.Fatalf("a list answered with a Location")
		}
	}
	stranger := b.NewTPP("987654321", 1, "PSP_PI")
	expect(t, b.Do(stranger, "GET", ndctPath+"/"+single.PaymentID+"/authorisations", nil), 404, "RESOURCE_UNKNOWN")
}
