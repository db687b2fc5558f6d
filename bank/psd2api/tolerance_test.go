package psd2api_test

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
	"sandbank/bank/reqlog"
)

// logged returns the request log's entry of an answer: the newest with its
// X-Request-ID.
func logged(t *testing.T, b *apptest.Bank, r apptest.Response) reqlog.Entry {
	t.Helper()
	return b.Logged(r.Header.Get("X-Request-ID"))
}

// notePaths lists the paths of an entry's client notes, sorted.
func notePaths(e reqlog.Entry) []string {
	var out []string
	for _, n := range e.Notes {
		if n.Category != "WARNING" || n.Text == "" {
			continue
		}
		out = append(out, n.Path)
	}
	slices.Sort(out)
	return out
}

// warningPaths lists the paths of an answer's WARNING tppMessages, sorted.
func warningPaths(t *testing.T, r apptest.Response) []string {
	t.Helper()
	var body struct {
		TPPMessages []apierr.Message `json:"tppMessages"`
	}
	r.JSON(t, &body)
	var out []string
	for _, m := range body.TPPMessages {
		if m.Category == "WARNING" {
			out = append(out, m.Path)
		}
	}
	slices.Sort(out)
	return out
}

// An NDCT payment as a Berlin Group 1.3 client builds it, by hand from the
// standard's field names: the fields the bank does not use are accepted,
// named in WARNING tppMessages and noted in the request log; the fields
// the contract has a rule for keep it; strict mode refuses the body.
func TestPayments_BerlinGroupBodyIsAcceptedWithWarnings(t *testing.T) {
	b, tpp := setup(t)
	day := onBankingMorning(t, b)
	remittance := "Faktura 2026-118"
	body := map[string]any{
		"instructionIdentification":              "INSTR-118",
		"endToEndIdentification":                 "E2E-118",
		"debtorAccount":                          map[string]string{"iban": ibanT1Bruk, "currency": "NOK"},
		"debtorName":                             "Test Testperson 1",
		"instructedAmount":                       map[string]any{"currency": "NOK", "amount": 250.5},
		"creditorAccount":                        map[string]string{"iban": ibanT2Bruk, "currency": "NOK"},
		"creditorName":                           "Test Testperson 2",
		"creditorAddress":                        map[string]string{"streetName": "Storgata", "buildingNumber": "1", "townName": "Oslo", "postCode": "0155", "country": "NO"},
		"chargeBearer":                           "SLEV",
		"remittanceInformationUnstructured":      remittance,
		"remittanceInformationUnstructuredArray": []string{remittance},
		"requestedExecutionDate":                 day.String(),
	}
	r := b.Do(tpp, "POST", ndctPath, body, payHeaders...)
	expect(t, r, 201, "")
	// remittanceInformationUnstructuredArray is one the bank uses: the
	// settled transaction carries it.
	want := []string{"chargeBearer", "creditorAddress.postCode", "creditorAddress.streetName", "debtorName", "instructedAmount.amount", "instructionIdentification"}
	if got := warningPaths(t, r); !slices.Equal(got, want) {
		t.Fatalf("warnings at %v, want %v: %s", got, want, r.Body)
	}
	if got := notePaths(logged(t, b, r)); !slices.Equal(got, want) {
		t.Fatalf("client notes at %v, want %v", got, want)
	}
	if r.Header.Get("Location") == "" || r.Header.Get("ASPSP-SCA-Approach") != "REDIRECT" {
		t.Fatalf("headers %v", r.Header)
	}

	// A rule of the contract still holds beside the ignored fields.
	both := map[string]any{}
	for k, v := range body {
		both[k] = v
	}
	both["remittanceInformationStructuredArray"] = []map[string]string{{"reference": "12345678903", "referenceType": "KID"}}
	expect(t, b.Do(tpp, "POST", ndctPath, both, payHeaders...), 400, "FORMAT_ERROR")
	removed := map[string]any{}
	for k, v := range body {
		removed[k] = v
	}
	delete(removed, "remittanceInformationUnstructured")
	removed["remittanceInformationStructured"] = map[string]string{"reference": "12345678903", "referenceType": "KID"}
	if e := expect(t, b.Do(tpp, "POST", ndctPath, removed, payHeaders...), 400, "FORMAT_ERROR"); !slices.Contains(paths(e), "remittanceInformationStructured") {
		t.Fatalf("the removed field: %+v", e)
	}

	setStrict(t, b, true)
	before := b.FileSum()
	r = b.Do(tpp, "POST", ndctPath, body, payHeaders...)
	e := expect(t, r, 400, "BAD_REQUEST")
	if len(e.TPPMessages) < 5 || !strings.Contains(e.Message, "strict mode") {
		t.Fatalf("strict refusal %+v", e)
	}
	if b.FileSum() != before {
		t.Fatal("a refused payment changed the data file")
	}
}

// withBalance=true on transactions answers the balances too, for accounts
// and card accounts, and the paging links keep it.
func TestAIS_TransactionsWithBalance(t *testing.T) {
	b, tpp := setup(t)
	user := psuOf(b.Consent(tpp, t1Number, "", nil))
	for _, path := range []string{"/v1/accounts/" + t1Brukskonto + "/transactions", "/v1/card-accounts/" + t1Card + "/transactions"} {
		r := get(b, tpp, user, path+"?withBalance=true&limit=1")
		expect(t, r, 200, "")
		var got struct {
			Balances []struct {
				BalanceType string `json:"balanceType"`
			} `json:"balances"`
		}
		r.JSON(t, &got)
		if len(got.Balances) != 3 || got.Balances[2].BalanceType != "interimAvailable" {
			t.Fatalf("%s: balances %s", path, r.Body)
		}
		if !strings.Contains(string(r.Body), "withBalance=true") {
			t.Fatalf("%s: the paging links drop withBalance: %s", path, r.Body)
		}
		r = get(b, tpp, user, path)
		if expect(t, r, 200, ""); strings.Contains(string(r.Body), `"balances"`) {
			t.Fatalf("%s without withBalance: %s", path, r.Body)
		}
	}
}

// GET / and HEAD / answer unsigned, for readiness checks and people: JSON,
// or HTML for a browser.
func TestRoot_LandingIsUnsigned(t *testing.T) {
	b, _ := setup(t)
	r := b.Do(nil, "GET", "/", nil)
	expect(t, r, 200, "")
	var l struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		Links   map[string]struct {
			Href string `json:"href"`
		} `json:"_links"`
	}
	r.JSON(t, &l)
	if l.Name != "Sandbank" || l.Version == "" || l.Links["openapi"].Href != "/v1/openapi.json" || l.Links["health"].Href != "/healthz" {
		t.Fatalf("landing %s", r.Body)
	}
	r = b.Do(nil, "HEAD", "/", nil)
	if r.Status != 200 || len(r.Body) != 0 {
		t.Fatalf("HEAD /: %d %q", r.Status, r.Body)
	}
	r = b.Do(nil, "GET", "/", nil, "Accept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(r.Body), "/v1/openapi.json") {
		t.Fatalf("landing for a browser: %d %s", r.Status, r.Body)
	}
	// Only the root: another unknown path is still 404.
	expect(t, b.Do(nil, "GET", "/nothing", nil), 404, "NOT_FOUND")
}

// Each client note of docs/TPP-GUIDE.md 9: accepted and noted; strict mode refuses
// it with the note's text. A signed header left out of the list stays a
// refusal either way.
func TestClientNotes_OddHeadersAreNotedThenRefusedWhenStrict(t *testing.T) {
	b, tpp := setup(t)
	user := psuOf(b.Consent(tpp, t1Number, "", nil))
	cases := []struct {
		name    string
		headers []string
		path    string
	}{
		{"a Date that is not an HTTP date", []string{"Date: yesterday"}, "Date"},
		{"a Date an hour off", []string{"Date: " + time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)}, "Date"},
		{"a PSU-IP-Address that is not an IP", []string{"PSU-IP-Address: localhost"}, "PSU-IP-Address"},
		{"a PSU-Device-ID that is not a UUID", []string{"PSU-Device-ID: phone-1"}, "PSU-Device-ID"},
		{"a PSU-HTTP-Method that is not a method", []string{"PSU-HTTP-Method: FETCH"}, "PSU-HTTP-Method"},
	}
	for _, c := range cases {
		r := get(b, tpp, user, "/v1/accounts", c.headers...)
		expect(t, r, 200, "")
		if got := notePaths(logged(t, b, r)); !slices.Equal(got, []string{c.path}) {
			t.Errorf("%s: notes at %v", c.name, got)
		}
	}
	// A fresh Date is no note.
	r := get(b, tpp, user, "/v1/accounts", "Date: "+time.Now().UTC().Format(http.TimeFormat))
	if got := notePaths(logged(t, b, r)); len(got) != 0 {
		t.Errorf("a fresh Date noted: %v", got)
	}

	// The same X-Request-ID twice from one TPP: the second is noted.
	req := b.Request("GET", "/v1/accounts", nil, user.headers()...)
	req.Header.Set("X-Request-ID", "reused-1")
	first := notePaths(logged(t, b, b.Send(signed(t, tpp, req))))
	req = b.Request("GET", "/v1/accounts", nil, user.headers()...)
	req.Header.Set("X-Request-ID", "reused-1")
	second := notePaths(logged(t, b, b.Send(signed(t, tpp, req))))
	if len(first) != 0 || !slices.Equal(second, []string{"X-Request-ID"}) {
		t.Fatalf("first %v, second %v", first, second)
	}

	// A bodyless request whose signature covers neither date nor
	// (request-target) binds neither: noted.
	unbound := signOnly(t, tpp, b.Request("GET", "/v1/accounts", nil, user.headers()...), "x-request-id", "psu-id", "tpp-redirect-uri")
	r = b.Send(unbound)
	expect(t, r, 200, "")
	if got := notePaths(logged(t, b, r)); !slices.Equal(got, []string{"Signature"}) {
		t.Fatalf("an unbound signature: notes %v", got)
	}

	setStrict(t, b, true)
	for _, c := range cases {
		e := expect(t, get(b, tpp, user, "/v1/accounts", c.headers...), 400, "FORMAT_ERROR")
		if !strings.Contains(e.Message, "strict mode") || e.TPPMessages[0].Path != c.path {
			t.Errorf("%s in strict mode: %+v", c.name, e)
		}
	}
	req = b.Request("GET", "/v1/accounts", nil, user.headers()...)
	req.Header.Set("X-Request-ID", "reused-1")
	expect(t, b.Send(signed(t, tpp, req)), 400, "FORMAT_ERROR")
	unbound = signOnly(t, tpp, b.Request("GET", "/v1/accounts", nil, user.headers()...), "x-request-id", "psu-id", "tpp-redirect-uri")
	expect(t, b.Send(unbound), 400, "SIGNATURE_INVALID")
	// A Date the request carries must still be signed, lenient or strict.
	dated := b.Request("GET", "/v1/accounts", nil, user.headers("Date: "+time.Now().UTC().Format(http.TimeFormat))...)
	expect(t, b.Send(signOnly(t, tpp, dated, "x-request-id", "psu-id", "tpp-redirect-uri")), 400, "SIGNATURE_INVALID")
	expect(t, get(b, tpp, user, "/v1/accounts"), 200, "")
}

// signed signs a built request the way the tests' TPPs do.
func signed(t *testing.T, tpp *apptest.TPP, req *http.Request) *http.Request {
	t.Helper()
	if err := tpp.Signer.SignRequest(req, nil); err != nil {
		t.Fatal(err)
	}
	return req
}

// signOnly signs a bodyless request over the given headers only, by hand.
func signOnly(t *testing.T, tpp *apptest.TPP, req *http.Request, names ...string) *http.Request {
	t.Helper()
	req.Header.Set("TPP-Signature-Certificate", tpp.Signer.CertificateHeader())
	signing, err := httpsig.SigningString(req, names)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, tpp.Key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Signature", fmt.Sprintf(`keyId="%s",algorithm="rsa-sha256",headers="%s",signature="%s"`,
		tpp.Signer.KeyID(), strings.Join(names, " "), base64.StdEncoding.EncodeToString(sig)))
	return req
}

// A key given twice in a body: the last value wins, as in most JSON
// parsers, with a warning naming the key; strict mode refuses it.
func TestTolerance_DuplicateKeysAreNoted(t *testing.T) {
	b, tpp := setup(t)
	body := []byte(`{"customerNumber": "55555555555", "name": "First Name", "type": "private", "name": "Second Name"}`)
	refusedInStrictMode(t, b, tpp, "POST", "/v1/sandbox/customers", body, "BAD_REQUEST", "name")
	r := b.Do(tpp, "POST", "/v1/sandbox/customers", body)
	expect(t, r, 201, "")
	if got := warningPaths(t, r); !slices.Equal(got, []string{"name"}) {
		t.Fatalf("warnings at %v, want [name]: %s", got, r.Body)
	}
	var c struct {
		Name string `json:"customerName"`
	}
	r.JSON(t, &c)
	if c.Name != "Second Name" {
		t.Fatalf("name %q, want the last value", c.Name)
	}
	// Nested objects too: the path names where the key repeats.
	acct := []byte(`{"customerNumber": "55555555555", "bban": "15030123406", "currency": "NOK", "currency": "NOK",
		"accountName": "Dup", "product": "Brukskonto", "cashAccountType": "CACC", "creditLine": 0,
		"balances": [{"balanceType": "closingBooked", "balanceType": "expected", "balanceAmount": {"amount": 1, "currency": "NOK"}}]}`)
	r = b.Do(tpp, "POST", "/v1/sandbox/accounts", acct)
	expect(t, r, 201, "")
	if got := warningPaths(t, r); !slices.Equal(got, []string{"balances[0].balanceType", "currency"}) {
		t.Fatalf("warnings at %v: %s", got, r.Body)
	}
}

// Warnings are capped where they are gathered (bank.Warnings): an answer's
// tppMessages and the request log's client notes hold the first
// bank.MaxWarnings and one line with the count of the rest, for a body of
// the sandbox API as for a scenario of 200,000 duplicate keys; strict
// mode refuses a scenario at its first.
func TestTolerance_WarningsAreCapped(t *testing.T) {
	b, tpp := setup(t)
	var customer strings.Builder
	customer.WriteString(`{"customerNumber": "55555555555", "type": "private", "name": "First Name"`)
	for range 500 {
		customer.WriteString(`, "name": "First Name"`)
	}
	customer.WriteString(`}`)
	var scenario strings.Builder
	scenario.WriteString(`{"format": "sandbank-scenario/1", "customers": [{"customerNumber": "55555555555", "type": "private", "name": "First Name"`)
	for range 200_000 {
		scenario.WriteString(`,"name":"A"`)
	}
	scenario.WriteString(`}]}`)
	for _, c := range []struct {
		who          *apptest.TPP
		method, path string
		body         string
		status, rest int
	}{
		{tpp, "POST", "/v1/sandbox/customers", customer.String(), 201, 500 - apierr.MaxWarnings},
		{b.Operator(), "PUT", "/v1/sandbox/scenario", scenario.String(), 200, 200_000 - apierr.MaxWarnings},
	} {
		r := b.Do(c.who, c.method, c.path, []byte(c.body))
		expect(t, r, c.status, "")
		var answer struct {
			TPPMessages []apierr.Message `json:"tppMessages"`
		}
		r.JSON(t, &answer)
		notes := logged(t, b, r).Notes
		if len(answer.TPPMessages) != apierr.MaxWarnings+1 || len(r.Body) > 32<<10 || !strings.Contains(answer.TPPMessages[apierr.MaxWarnings].Text, fmt.Sprintf("and %d more warnings", c.rest)) {
			t.Errorf("%s %s: %d tppMessages in %d bytes: %.300s", c.method, c.path, len(answer.TPPMessages), len(r.Body), r.Body)
		}
		if len(notes) != apierr.MaxWarnings+1 || notes[apierr.MaxWarnings].Rest() != c.rest {
			t.Errorf("%s %s: %d client notes in the log", c.method, c.path, len(notes))
		}
		// The header and the log's summary count every note.
		total := apierr.MaxWarnings + c.rest
		if h := r.Header.Get(apierr.NotesHeader); !strings.HasPrefix(h, fmt.Sprintf("%d; ", total)) || logged(t, b, r).Summary().Notes != total {
			t.Errorf("%s %s: Sandbank-Notes %q and a summary of %d notes; want %d", c.method, c.path, h, logged(t, b, r).Summary().Notes, total)
		}
	}
	setStrict(t, b, true)
	defer setStrict(t, b, false)
	e := rejects(t, b, b.Operator(), "PUT", "/v1/sandbox/scenario", []byte(scenario.String()), 400, "BAD_REQUEST", "customers[0].name")
	if len(e.TPPMessages) != 1 {
		t.Errorf("strict mode refused the scenario with %d findings, want the first", len(e.TPPMessages))
	}
}

// Sandbox amounts are JSON numbers; a tool that writes them as strings,
// as Berlin Group amounts are, gets them read as the numbers with a
// warning. A string that is no number is still refused.
func TestTolerance_SandboxAmountsAsStrings(t *testing.T) {
	b, tpp := setup(t)
	body := map[string]any{
		"customerNumber": "13039319955", "bban": "15030123406", "currency": "NOK", "accountName": "Strings",
		"product": "Brukskonto", "cashAccountType": "CACC", "creditLine": "1000",
		"balances": []any{map[string]any{"balanceType": "closingBooked", "balanceAmount": map[string]any{"amount": "1.50", "currency": "NOK"}}},
	}
	refusedInStrictMode(t, b, tpp, "POST", "/v1/sandbox/accounts", body, "FORMAT_ERROR", "balances[0].balanceAmount.amount", "creditLine")
	r := b.Do(tpp, "POST", "/v1/sandbox/accounts", body)
	expect(t, r, 201, "")
	if got := warningPaths(t, r); !slices.Equal(got, []string{"balances[0].balanceAmount.amount", "creditLine"}) {
		t.Fatalf("warnings at %v: %s", got, r.Body)
	}
	if !strings.Contains(string(r.Body), `"creditLine":1000,`) || !strings.Contains(string(r.Body), `"amount":1.5}`) {
		t.Fatalf("the amounts are not the numbers sent: %s", r.Body)
	}
	for _, bad := range []string{"", "1,50", "1.5 NOK", "0x10", "NaN"} {
		body["creditLine"] = bad
		body["bban"] = "15030123414"
		rejects(t, b, tpp, "POST", "/v1/sandbox/accounts", body, 400, "FORMAT_ERROR", "creditLine")
	}
}
