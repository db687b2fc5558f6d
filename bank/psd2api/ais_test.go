package psd2api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/pki"
)

// Fixed ids of the known state (README).
const (
	t1Number     = "13039319955" // Test Testperson 1, private
	t1Brukskonto = "enc!!BMqoT2eLQOgt-DAQsuGXRQ"
	t1Sparekonto = "enc!!I0bYmS0STaeDq11Atr0ffA"
	t1Card       = "enc!!jfGNdTso5Ie-_lpxLB3lqA"
	t2Number     = "12085592767"
	f1Number     = "18129215603" // Testfirma 1 AS, corporate
	f1Agreement  = "enc!!NDPURJLx3L9QIegVAF9UMA"
	f1Drift      = "enc!!9JZckNWOqWXaEBLJ7MPBrw"
	f1Valuta     = "enc!!9o1NeaLYoar6X6EsEUKhlA"
)

const tppRedirect = "https://tpp.example/callback?state=abc"

// scaID is the authorisation id of an SCA page's address
// (.../sca/{id}/{secret}).
func scaID(href string) string {
	_, rest, _ := strings.Cut(href, "/sca/")
	id, _, _ := strings.Cut(rest, "/")
	return id
}

// psu holds the headers a TPP sends for a PSU after SCA.
type psu struct {
	id, corporate, session string
	present                bool
}

func psuOf(q url.Values) psu {
	return psu{id: q.Get("psu-id"), corporate: q.Get("psu-corporate-id"), session: q.Get("tpp-session-id"), present: true}
}

func (p psu) headers(extra ...string) []string {
	h := []string{"PSU-ID: " + p.id, "TPP-Session-ID: " + p.session, "TPP-Redirect-URI: " + tppRedirect}
	if p.corporate != "" {
		h = append(h, "PSU-Corporate-ID: "+p.corporate)
	}
	if p.present {
		h = append(h, "PSU-IP-Address: 192.0.2.10")
	}
	return append(h, extra...)
}

func (p psu) absent() psu {
	p.present = false
	return p
}

// get sends a signed account-information GET for a PSU.
func get(b *apptest.Bank, tpp *apptest.TPP, p psu, path string, extra ...string) apptest.Response {
	b.TB.Helper()
	return b.Do(tpp, "GET", path, nil, p.headers(extra...)...)
}

// moveClock sets the sandbox clock's offset from the real clock.
func moveClock(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, d time.Duration) {
	t.Helper()
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/clock", map[string]int64{"offsetSeconds": int64(d / time.Second)}), 200, "")
}

// scaRedirect checks that a 401 offers a fresh SCA on this bank.
func scaRedirect(t *testing.T, b *apptest.Bank, r apptest.Response) string {
	t.Helper()
	var body struct {
		Links map[string]struct {
			Href  string   `json:"href"`
			Verbs []string `json:"verbs"`
		} `json:"_links"`
	}
	r.JSON(t, &body)
	href := body.Links["scaRedirect"].Href
	if !strings.HasPrefix(href, b.URL+"/sca/enc!!") {
		t.Fatalf("401 without a scaRedirect on %s: %s", b.URL, r.Body)
	}
	return href
}

func ids[T any](list []T, id func(T) string) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = id(v)
	}
	return out
}

type aisAccount struct {
	ResourceID      string `json:"resourceId"`
	IBAN            string `json:"iban"`
	Name            string `json:"name"`
	CashAccountType string `json:"cashAccountType"`
	Balances        []struct {
		BalanceType   string `json:"balanceType"`
		BalanceAmount struct {
			Amount   any    `json:"amount"`
			Currency string `json:"currency"`
		} `json:"balanceAmount"`
	} `json:"balances"`
}

type aisTx struct {
	TransactionID     string `json:"transactionId"`
	BookingDate       string `json:"bookingDate"`
	TransactionAmount struct {
		Amount   any    `json:"amount"`
		Currency string `json:"currency"`
	} `json:"transactionAmount"`
	Links map[string]struct {
		Href string `json:"href"`
	} `json:"_links"`
}

type aisTxList struct {
	Transactions struct {
		Booked  []aisTx `json:"booked"`
		Pending []aisTx `json:"pending"`
		Links   map[string]struct {
			Href string `json:"href"`
		} `json:"_links"`
	} `json:"transactions"`
}

var nokAmount = regexp.MustCompile(`^-?[0-9]+\.[0-9]{2}$`)

func TestSCA_PrivatePSUGrantsOneOfTwoAccounts(t *testing.T) {
	b, tpp := setup(t)
	href := b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "s-1")
	br := b.Browser()

	p := br.Open(href)
	if p.Status != 200 || !strings.Contains(p.Text, "SANDBOX") || !strings.Contains(p.Text, t1Number) || !strings.Contains(p.Text, "Test TPP 933012867") {
		t.Fatalf("identify page: %d %s", p.Status, p.Text)
	}
	p = br.Submit(p, url.Values{"nationalId": {"99999999999"}})
	if p.Status != 200 || !strings.Contains(p.Text, "2 attempts left") {
		t.Fatalf("unknown national id: %d %s", p.Status, p.Text)
	}
	p = br.Submit(p, url.Values{"nationalId": {" " + t1Number + " "}})
	var offered []string
	for _, f := range p.Forms[0].Fields {
		if f.Name == "accounts" {
			if !f.Checked {
				t.Errorf("account %s offered unticked", f.Value)
			}
			offered = append(offered, f.Value)
		}
	}
	if want := []string{t1Brukskonto, t1Sparekonto, t1Card}; !slices.Equal(offered, want) {
		t.Fatalf("offered %v, want %v", offered, want)
	}
	p = br.Submit(p, url.Values{"accounts": {t1Brukskonto}, "decision": {"approve"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("approve: %d %s", p.Status, p.Text)
	}
	u, _ := url.Parse(p.Location)
	q := u.Query()
	if u.Host != "tpp.example" || u.Path != "/callback" || q.Get("state") != "abc" || q.Get("tpp-session-id") != "s-1" ||
		q.Get("context") != "PRIVATE" || q.Has("psu-corporate-id") || q.Get("psu-id") != bank.PSUID(tpp.ID, "enc!!ez0o0ybl1y-3Lw6w4_m29Q") {
		t.Fatalf("redirect %s", p.Location)
	}
	user := psuOf(q)

	var list struct {
		Accounts []aisAccount `json:"accounts"`
	}
	r := get(b, tpp, user, "/v1/accounts?withBalance=true")
	expect(t, r, 200, "")
	r.JSON(t, &list)
	if got := ids(list.Accounts, func(a aisAccount) string { return a.ResourceID }); !slices.Equal(got, []string{t1Brukskonto}) {
		t.Fatalf("accounts %v, want only the granted Brukskonto", got)
	}
	acct := list.Accounts[0]
	if acct.IBAN != "NO3815030123457" || acct.CashAccountType != "CACC" || len(acct.Balances) != 3 {
		t.Fatalf("account %+v", acct)
	}
	for _, bal := range acct.Balances {
		if s, ok := bal.BalanceAmount.Amount.(string); !ok || !nokAmount.MatchString(s) {
			t.Errorf("balance %s amount %#v is not a NOK string", bal.BalanceType, bal.BalanceAmount.Amount)
		}
	}
	for _, path := range []string{"/v1/accounts/" + t1Sparekonto, "/v1/accounts/" + t1Sparekonto + "/balances", "/v1/accounts/" + t1Sparekonto + "/transactions", "/v1/card-accounts/" + t1Card} {
		expect(t, get(b, tpp, user, path), 404, "RESOURCE_UNKNOWN")
	}
	var cards struct {
		CardAccounts []any `json:"cardAccounts"`
	}
	get(b, tpp, user, "/v1/card-accounts").JSON(t, &cards)
	if cards.CardAccounts == nil || len(cards.CardAccounts) != 0 {
		t.Fatalf("card accounts %v, want an empty list", cards.CardAccounts)
	}

	// Transactions and details of the granted account.
	var txs aisTxList
	r = get(b, tpp, user, "/v1/accounts/"+t1Brukskonto+"/transactions")
	expect(t, r, 200, "")
	r.JSON(t, &txs)
	if len(txs.Transactions.Booked) == 0 || txs.Transactions.Pending != nil {
		t.Fatalf("transactions: %s", r.Body)
	}
	if !strings.Contains(txs.Transactions.Links["first"].Href, "limit=200") {
		t.Errorf("first link %q lacks limit=200", txs.Transactions.Links["first"].Href)
	}
	first := txs.Transactions.Booked[0]
	details := first.Links["transactionDetails"].Href
	if details != "/v1/accounts/"+t1Brukskonto+"/transactions/"+first.TransactionID {
		t.Fatalf("details link %q", details)
	}
	expect(t, get(b, tpp, user, details), 400, "HTTP_HEADER_REQUIRED")
	r = get(b, tpp, user, details, "x-accept-fix: longer-names")
	expect(t, r, 200, "")
	var d struct {
		Details struct {
			TransactionID     string            `json:"transactionId"`
			TransactionAmount map[string]string `json:"transactionAmount"`
			Links             map[string]any    `json:"_links"`
		} `json:"transactionsDetails"`
	}
	r.JSON(t, &d)
	if d.Details.TransactionID != first.TransactionID || d.Details.TransactionAmount["amount"] != first.TransactionAmount.Amount || d.Details.Links != nil {
		t.Fatalf("details %s", r.Body)
	}

	// The same PSU gets the same PSU-ID from the same TPP, another from
	// another TPP.
	again := b.Consent(tpp, t1Number, "", nil)
	if again.Get("psu-id") != user.id {
		t.Errorf("PSU-ID changed: %s then %s", user.id, again.Get("psu-id"))
	}
	other := b.NewTPP("987654321", 1, pki.RoleAI)
	if id := b.Consent(other, t1Number, "", nil).Get("psu-id"); id == user.id {
		t.Errorf("two TPPs got the same PSU-ID %s", id)
	}
	// The second consent replaced the first: now every account is granted.
	get(b, tpp, user, "/v1/accounts").JSON(t, &list)
	if len(list.Accounts) != 2 {
		t.Errorf("after a new consent %d accounts, want 2", len(list.Accounts))
	}
}

func TestSCA_CorporatePSUPicksAgreement(t *testing.T) {
	b, tpp := setup(t)
	// Test Testperson 1 also keeps the books of Testfirma 1 AS.
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/agreements/"+f1Agreement+"/engagements", map[string]any{
		"customer": t1Number, "account": map[string]string{"iban": "NO2815030345670"}, "roles": []string{"VIEW", "REGISTER"}, "registerLimit": 100000, "approvalLimit": 0,
	}), 201, "")
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/agreements/"+f1Agreement+"/engagements", map[string]any{
		"customer": t1Number, "account": map[string]string{"iban": "NO9715030345689"}, "roles": []string{"VIEW"}, "registerLimit": 0, "approvalLimit": 0,
	}), 201, "")

	br := b.Browser()
	p := br.Open(b.StartSCA(tpp, "POST", "/v1/bank-offered-consents", tppRedirect, "corp-1"))
	p = br.Submit(p, url.Values{"nationalId": {t1Number}})
	var contexts []string
	for _, f := range p.Forms[0].Fields {
		if f.Name == "context" {
			contexts = append(contexts, f.Value)
		}
	}
	if !slices.Equal(contexts, []string{bank.ContextPrivate, f1Agreement}) || !strings.Contains(p.Text, "Testfirma 1 AS") {
		t.Fatalf("contexts %v: %s", contexts, p.Text)
	}
	p = br.Submit(p, url.Values{"context": {"enc!!not-an-agreement"}})
	if p.Status != 200 || !strings.Contains(p.Text, "Choose one of the contexts") {
		t.Fatalf("a made-up context: %d %s", p.Status, p.Text)
	}
	p = br.Submit(p, url.Values{"context": {f1Agreement}})
	var offered []string
	for _, f := range p.Forms[0].Fields {
		if f.Name == "accounts" {
			offered = append(offered, f.Value)
		}
	}
	if !slices.Equal(offered, []string{f1Drift}) {
		t.Fatalf("offered %v, want only the engagement with VIEW and REGISTER", offered)
	}
	// A ticked account the context does not offer is refused.
	p = br.Submit(p, url.Values{"accounts": {f1Drift, t1Brukskonto}, "decision": {"approve"}})
	if p.Status != 200 || !strings.Contains(p.Text, "cannot be granted") {
		t.Fatalf("a foreign account: %d %s", p.Status, p.Text)
	}
	p = br.Submit(p, url.Values{"decision": {"approve"}})
	u, _ := url.Parse(p.Location)
	q := u.Query()
	if p.Status != 303 || q.Get("context") != "CORPORATE" || q.Get("psu-corporate-id") != bank.CorporateID(tpp.ID, "enc!!ez0o0ybl1y-3Lw6w4_m29Q", f1Agreement) {
		t.Fatalf("redirect %d %s", p.Status, p.Location)
	}
	user := psuOf(q)

	var list struct {
		Accounts []aisAccount `json:"accounts"`
	}
	get(b, tpp, user, "/v1/accounts").JSON(t, &list)
	if got := ids(list.Accounts, func(a aisAccount) string { return a.ResourceID }); !slices.Equal(got, []string{f1Drift}) {
		t.Fatalf("accounts %v", got)
	}
	// The consent is corporate only: without PSU-Corporate-ID the bank
	// asks for it.
	private := user
	private.corporate = ""
	expect(t, get(b, tpp, private, "/v1/accounts"), 400, "CORPORATE_ID_REQUIRED")
	// Another TPP's corporate id, or one made up, is no context of this PSU.
	bogus := user
	bogus.corporate = "5f0c4d8e-8c53-5d2b-9a55-0b7b0c0c0c0c"
	expect(t, get(b, tpp, bogus, "/v1/accounts"), 401, "CONSENT_INVALID")

	// Corporate details carry their own link.
	var txs aisTxList
	get(b, tpp, user, "/v1/accounts/"+f1Drift+"/transactions").JSON(t, &txs)
	r := get(b, tpp, user, txs.Transactions.Booked[0].Links["transactionDetails"].Href, "x-accept-fix: longer-names")
	var d struct {
		Details struct {
			Links map[string]any `json:"_links"`
		} `json:"transactionsDetails"`
	}
	r.JSON(t, &d)
	if d.Details.Links["transactionDetails"] == nil {
		t.Errorf("corporate details without _links: %s", r.Body)
	}
	expect(t, get(b, tpp, user, "/v1/accounts/"+f1Valuta), 404, "RESOURCE_UNKNOWN")

	// The company's own login has one context and skips the choice.
	q = b.CompleteSCA(b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "corp-2"), f1Number, "", nil, "approve").Query
	if q.Get("context") != "CORPORATE" || q.Get("psu-corporate-id") == "" {
		t.Fatalf("company login: %v", q)
	}
	get(b, tpp, psuOf(q), "/v1/accounts").JSON(t, &list)
	if got := ids(list.Accounts, func(a aisAccount) string { return a.ResourceID }); !slices.Equal(got, []string{f1Drift, f1Valuta}) {
		t.Fatalf("company accounts %v", got)
	}
}

func TestAIS_AccessRules(t *testing.T) {
	b, tpp := setup(t)
	user := psuOf(b.Consent(tpp, t1Number, "", []string{t1Brukskonto, t1Card}))
	path := "/v1/accounts/" + t1Brukskonto + "/transactions"

	// No PSU, an unknown PSU, a PSU that is not a UUID.
	r := b.Do(tpp, "GET", "/v1/accounts", nil)
	expect(t, r, 401, "CONSENT_INVALID")
	if !strings.Contains(string(r.Body), `"_links":{}`) {
		t.Errorf("401 without redirect headers must carry empty _links: %s", r.Body)
	}
	stranger := user
	stranger.id = "6f1c0a77-2f0e-4c55-9a7b-3d1b0c1e2f3a"
	scaRedirect(t, b, expect2(t, get(b, tpp, stranger, "/v1/accounts"), 401, "CONSENT_INVALID"))
	stranger.id = "not-a-uuid"
	expect(t, get(b, tpp, stranger, "/v1/accounts"), 400, "FORMAT_ERROR")

	// A customer with a PSU-ID but no consent of this TPP.
	idOnly := b.CompleteSCA(b.StartSCA(tpp, "GET", "/v1/users", tppRedirect, "u-1"), t2Number, "", nil, "approve").Query
	if idOnly.Get("psu-id") == "" {
		t.Fatalf("GET /v1/users SCA: %v", idOnly)
	}
	href := scaRedirect(t, b, expect2(t, get(b, tpp, psuOf(idOnly), "/v1/accounts"), 401, "CONSENT_INVALID"))
	// The fresh scaRedirect is a working consent SCA.
	q := b.CompleteSCA(href, t2Number, "", nil, "approve").Query
	expect(t, get(b, tpp, psuOf(q), "/v1/accounts"), 200, "")

	// 90 days of history without SCA, more within the session's hour.
	today := time.Now().In(bank.Oslo)
	old := today.AddDate(0, 0, -120).Format(time.DateOnly)
	expect(t, get(b, tpp, user, path+"?dateFrom="+old), 200, "")
	noSession := user
	noSession.session = "another-session"
	scaRedirect(t, b, expect2(t, get(b, tpp, noSession, path+"?dateFrom="+old), 401, "SCA_INVALID"))
	expect(t, get(b, tpp, noSession, path+"?dateFrom="+today.AddDate(0, 0, -90).Format(time.DateOnly)), 200, "")
	// Without dateFrom and without a session the page starts 90 days back.
	var txs aisTxList
	get(b, tpp, noSession, path).JSON(t, &txs)
	limit := today.AddDate(0, 0, -90).Format(time.DateOnly)
	for _, tx := range txs.Transactions.Booked {
		if tx.BookingDate < limit {
			t.Fatalf("booked %s without a session, before %s", tx.BookingDate, limit)
		}
	}
	if !strings.Contains(txs.Transactions.Links["first"].Href, "dateFrom="+limit) {
		t.Errorf("paging links lack the 90-day start: %s", txs.Transactions.Links["first"].Href)
	}

	// The session lasts an hour.
	moveClock(t, b, tpp, 59*time.Minute)
	expect(t, get(b, tpp, user, path+"?dateFrom="+old), 200, "")
	moveClock(t, b, tpp, 61*time.Minute)
	expect(t, get(b, tpp, user, path+"?dateFrom="+old), 401, "SCA_INVALID")

	// Four PSU-not-present calls a day per kind and account; the fifth is 429.
	moveClock(t, b, tpp, 24*time.Hour)
	absent := user.absent()
	for _, p := range []string{"/v1/accounts/" + t1Brukskonto + "/balances", path, "/v1/card-accounts/" + t1Card + "/balances", "/v1/card-accounts/" + t1Card + "/transactions"} {
		for range bank.DailyUses {
			expect(t, get(b, tpp, absent, p), 200, "")
		}
		before := b.FileSum()
		expect(t, get(b, tpp, absent, p), 429, "ACCESS_EXCEEDED")
		if b.FileSum() != before {
			t.Errorf("a refused call changed the data file")
		}
		expect(t, get(b, tpp, user, p), 200, "") // the PSU present: no limit
	}
	// Listing accounts is not limited.
	for range bank.DailyUses + 1 {
		expect(t, get(b, tpp, absent, "/v1/accounts"), 200, "")
	}
	// The next day the count starts again.
	moveClock(t, b, tpp, 48*time.Hour)
	expect(t, get(b, tpp, absent, path), 200, "")

	// Details without the PSU need a consent at most 90 days old.
	get(b, tpp, user, path).JSON(t, &txs)
	details := txs.Transactions.Booked[0].Links["transactionDetails"].Href
	expect(t, get(b, tpp, absent, details, "x-accept-fix: x"), 200, "")
	moveClock(t, b, tpp, 91*24*time.Hour)
	scaRedirect(t, b, expect2(t, get(b, tpp, absent, details, "x-accept-fix: x"), 401, "CONSENT_EXPIRED"))
	expect(t, get(b, tpp, user, details, "x-accept-fix: x"), 200, "")
	expect(t, get(b, tpp, user, details+"x", "x-accept-fix: x"), 404, "RESOURCE_UNKNOWN")

	// The consent lasts 180 days.
	moveClock(t, b, tpp, 179*24*time.Hour)
	expect(t, get(b, tpp, user, "/v1/accounts"), 200, "")
	moveClock(t, b, tpp, 181*24*time.Hour)
	scaRedirect(t, b, expect2(t, get(b, tpp, user.absent(), "/v1/accounts/"+t1Brukskonto), 401, "CONSENT_EXPIRED"))
	// A new SCA renews it.
	user = psuOf(b.Consent(tpp, t1Number, "", nil))
	expect(t, get(b, tpp, user, "/v1/accounts"), 200, "")
}

// expect2 is expect that returns the response, for chaining.
func expect2(t *testing.T, r apptest.Response, status int, code string) apptest.Response {
	t.Helper()
	expect(t, r, status, code)
	return r
}

func TestSCA_SessionRules(t *testing.T) {
	b, tpp := setup(t)
	old := "?dateFrom=" + time.Now().In(bank.Oslo).AddDate(0, 0, -100).Format(time.DateOnly)
	path := "/v1/accounts/" + t1Brukskonto + "/transactions" + old
	sca := func(session, decision string) url.Values {
		return b.CompleteSCA(b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, session), t1Number, "", nil, decision).Query
	}
	a := psuOf(sca("A", "approve"))
	expect(t, get(b, tpp, a, path), 200, "")

	// An SCA under B ends A's session.
	bq := sca("B", "approve")
	bSess := psuOf(bq)
	expect(t, get(b, tpp, a, path), 401, "SCA_INVALID")
	expect(t, get(b, tpp, bSess, path), 200, "")

	// An aborted SCA under C keeps B.
	if q := sca("C", "reject"); q.Get("code") != "SCA_INVALID" || q.Get("status") != "401" || q.Get("system") != "sandbank" || q.Get("state") != "abc" {
		t.Fatalf("reject redirect %v", q)
	}
	expect(t, get(b, tpp, bSess, path), 200, "")
	c := bSess
	c.session = "C"
	expect(t, get(b, tpp, c, path), 401, "SCA_INVALID")

	// An SCA session counts for one TPP only.
	other := b.NewTPP("987654321", 1, pki.RoleAI)
	o := psuOf(b.Consent(other, t1Number, "", nil))
	o.session = "B"
	expect(t, get(b, tpp, o, path), 401, "CONSENT_INVALID") // tpp's PSU-ID differs
	expect(t, get(b, other, o, path), 401, "SCA_INVALID")   // other's session is session-13039319955
}

func TestSCA_Failures(t *testing.T) {
	b, tpp := setup(t)
	br := b.Browser()

	// Three failed identifications.
	p := br.Open(b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "f-1"))
	for i := range 2 {
		p = br.Submit(p, url.Values{"nationalId": {fmt.Sprint(i)}})
		if p.Status != 200 || !strings.Contains(p.Text, "No sandbox customer") {
			t.Fatalf("attempt %d: %d %s", i+1, p.Status, p.Text)
		}
	}
	p = br.Submit(p, url.Values{"nationalId": {"<b>x</b>"}})
	u, _ := url.Parse(p.Location)
	if p.Status != 303 || u.Query().Get("code") != "PSU_CREDENTIALS_INVALID" || u.Query().Get("status") != "401" || u.Host != "tpp.example" {
		t.Fatalf("third failure: %d %s", p.Status, p.Location)
	}
	// The finished page no longer takes forms.
	after := br.Open(p.URL)
	if after.Status != 200 || len(after.Forms) != 0 || !strings.Contains(after.Text, "three attempts") {
		t.Fatalf("after the third failure: %d %s", after.Status, after.Text)
	}

	// The hour runs out: the next visit sends the PSU back with SCA_EXPIRED.
	href := b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "f-2")
	p = br.Open(href)
	moveClock(t, b, tpp, 61*time.Minute)
	p = br.Submit(p, url.Values{"nationalId": {t1Number}})
	u, _ = url.Parse(p.Location)
	if p.Status != 303 || u.Query().Get("code") != "SCA_EXPIRED" {
		t.Fatalf("after the hour: %d %s %s", p.Status, p.Location, p.Text)
	}
	moveClock(t, b, tpp, 0)

	// An automated SCA of an expired authorisation says where the PSU went.
	href = b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "f-3")
	moveClock(t, b, tpp, 2*time.Hour)
	id := scaID(href)
	r := b.Do(tpp, "POST", "/v1/sandbox/sca/"+id, map[string]string{"nationalId": t1Number, "decision": "approve"})
	var auto struct {
		Redirect string `json:"redirect"`
	}
	expect(t, r, 200, "")
	r.JSON(t, &auto)
	if !strings.Contains(auto.Redirect, "code=SCA_EXPIRED") {
		t.Fatalf("automated SCA after the hour: %s", r.Body)
	}
	moveClock(t, b, tpp, 0)

	// TPP-Redirect-Preferred: false shows the app approval.
	p = br.Open(b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "f-4", "TPP-Redirect-Preferred: false"))
	if !strings.Contains(p.Text, "fingerprint") || len(p.Forms) != 1 {
		t.Fatalf("app step: %s", p.Text)
	}
	var radios []string
	for _, f := range p.Forms[0].Fields {
		if f.Name == "nationalId" && f.Type == "radio" {
			radios = append(radios, f.Value)
		}
	}
	if !slices.Contains(radios, t1Number) || !slices.Contains(radios, f1Number) {
		t.Fatalf("app choices %v", radios)
	}
	p = br.Submit(p, url.Values{"nationalId": {t1Number}})
	p = br.Submit(p, url.Values{"decision": {"approve"}})
	if p.Status != 303 || !strings.Contains(p.Location, "psu-id=") {
		t.Fatalf("app approval: %d %s", p.Status, p.Location)
	}

	// Unknown authorisations, bad forms.
	p = br.Open(b.URL + "/sca/enc!!nope/secret")
	if p.Status != 404 || !strings.Contains(p.Text, "does not exist") || len(p.Forms) != 0 {
		t.Fatalf("unknown authorisation: %d %s", p.Status, p.Text)
	}
	p = br.Open(b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "f-5"))
	big := br.Post(p.URL, url.Values{"token": {strings.Repeat("x", 100<<10)}})
	if big.Status != 400 {
		t.Fatalf("an oversized form: %d", big.Status)
	}

	// Starting SCA needs both redirect headers, and a URI it may send the
	// PSU to.
	for _, c := range []struct {
		headers []string
		code    string
		path    string
	}{
		{[]string{"TPP-Session-ID: x"}, "HTTP_HEADER_REQUIRED", "TPP-Redirect-URI"},
		{[]string{"TPP-Redirect-URI: https://tpp.example/"}, "HTTP_HEADER_REQUIRED", "TPP-Session-ID"},
		{[]string{"TPP-Session-ID: x", "TPP-Redirect-URI: javascript:alert(1)"}, "FORMAT_ERROR", "TPP-Redirect-URI"},
		{[]string{"TPP-Session-ID: x", "TPP-Redirect-URI: /relative"}, "FORMAT_ERROR", "TPP-Redirect-URI"},
		{[]string{"TPP-Session-ID: x", "TPP-Redirect-URI: https://tpp.example/#frag"}, "FORMAT_ERROR", "TPP-Redirect-URI"},
	} {
		before := b.FileSum()
		e := expect(t, b.Do(tpp, "POST", "/v1/consents", nil, c.headers...), 400, c.code)
		if !slices.Contains(paths(e), c.path) {
			t.Errorf("%v: paths %v", c.headers, paths(e))
		}
		if b.FileSum() != before {
			t.Errorf("%v changed the data file", c.headers)
		}
	}
	// An app's own scheme is fine.
	q := b.CompleteSCA(b.StartSCA(tpp, "POST", "/v1/consents", "no.tpp.app://sca-done", "f-6"), t2Number, "", nil, "approve")
	if q.URL.Scheme != "no.tpp.app" || q.Query.Get("psu-id") == "" {
		t.Fatalf("app scheme redirect %s", q.URL)
	}
}

func TestSCA_Security(t *testing.T) {
	b, tpp := setup(t)
	other := b.NewTPP("987654321", 1, pki.RoleAI)

	// A customer whose name is markup shows as text.
	evil := "<script>alert(1)</script>"
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": "55555555555", "name": evil, "type": "private"}), 201, "")
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/accounts", newAccount("55555555555", "15030123406", "NOK")), 201, "")
	br := b.Browser()
	p := br.Open(b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "x-1"))
	checkEscaped(t, p, evil)
	p = br.Submit(p, url.Values{"nationalId": {"55555555555"}})
	checkEscaped(t, p, evil)
	if !strings.Contains(p.Text, evil) {
		t.Fatalf("the name is not shown as text: %s", p.Text)
	}
	if csp := p.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "form-action 'self' https://tpp.example") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	if p.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("the page may be framed")
	}

	// A form posted for one authorisation cannot drive another.
	mine := br.Open(b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "x-2"))
	theirs := br.Open(b.StartSCA(other, "POST", "/v1/consents", "https://evil.example/", "x-3"))
	steal := mine
	steal.Forms = []apptest.Form{{Action: theirs.Forms[0].Action, Fields: mine.Forms[0].Fields}}
	got := br.Submit(steal, url.Values{"nationalId": {t1Number}})
	if got.Status != 400 || !strings.Contains(got.Text, "does not belong") {
		t.Fatalf("a foreign token: %d %s", got.Status, got.Text)
	}
	if again := br.Open(theirs.URL); !strings.Contains(again.Text, "National identity number") {
		t.Fatalf("the other authorisation moved on: %s", again.Text)
	}

	// The redirect goes to the signed TPP-Redirect-URI and nowhere else:
	// the query, a form field or a forged header cannot change it.
	href := b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "x-4")
	p = br.Open(href + "?redirect=https://evil.example/")
	p = br.Submit(p, url.Values{"nationalId": {t1Number}, "TPP-Redirect-URI": {"https://evil.example/"}, "redirect": {"https://evil.example/"}})
	p = br.Submit(p, url.Values{"decision": {"approve"}})
	if !strings.HasPrefix(p.Location, "https://tpp.example/callback?") {
		t.Fatalf("redirect to %q", p.Location)
	}
	// A redirect URI changed after signing breaks the signature.
	req := b.Request("POST", "/v1/consents", nil, "TPP-Redirect-URI: "+tppRedirect, "TPP-Session-ID: x-5")
	if err := tpp.Signer.SignRequest(req, nil); err != nil {
		t.Fatal(err)
	}
	req.Header.Set("TPP-Redirect-URI", "https://evil.example/")
	expect(t, b.Send(req), 400, "SIGNATURE_INVALID")

	// Another TPP cannot use this TPP's PSU ids, grants or authorisations.
	user := psuOf(b.Consent(tpp, t1Number, "", nil))
	expect(t, get(b, other, user, "/v1/accounts"), 401, "CONSENT_INVALID")
	expect(t, get(b, other, user, "/v1/accounts/"+t1Brukskonto), 401, "CONSENT_INVALID")
	theirUser := psuOf(b.Consent(other, t2Number, "", nil))
	expect(t, get(b, other, theirUser, "/v1/accounts/"+t1Brukskonto), 404, "RESOURCE_UNKNOWN")
	id := mine.URL[strings.LastIndex(mine.URL, "/")+1:]
	expect(t, b.Do(other, "POST", "/v1/sandbox/sca/"+id, map[string]string{"nationalId": t1Number, "decision": "approve"}), 404, "SCA_NOT_FOUND")

	// A certificate with PSP_PI only may not read accounts or ask for them.
	payer := b.NewTPP("111222333", 2, pki.RolePI)
	for _, path := range []string{"/v1/accounts", "/v1/accounts/" + t1Brukskonto + "/transactions", "/v1/card-accounts"} {
		expect(t, get(b, payer, user, path), 403, "FORBIDDEN")
	}
	expect(t, b.Do(payer, "POST", "/v1/consents", nil, user.headers()...), 403, "FORBIDDEN")
	// It may identify a PSU, which grants nothing.
	href = b.StartSCA(payer, "GET", "/v1/users", tppRedirect, "p-1")
	if q := b.CompleteSCA(href, t1Number, "", nil, "approve").Query; q.Get("psu-id") == "" {
		t.Fatalf("users SCA: %v", q)
	}
}

// checkEscaped fails when a page prints markup it was given.
func checkEscaped(t *testing.T, p apptest.Page, markup string) {
	t.Helper()
	if strings.Contains(p.Body, markup) {
		t.Fatalf("the page prints %q unescaped", markup)
	}
}

func TestSCA_AutomatedSCA(t *testing.T) {
	b, tpp := setup(t)
	start := func(session string) string {
		href := b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, session)
		return "/v1/sandbox/sca/" + scaID(href)
	}
	path := start("auto-1")
	for _, c := range []struct {
		body   any
		status int
		code   string
		paths  []string
	}{
		{map[string]string{"decision": "maybe"}, 400, "FORMAT_ERROR", []string{"decision", "nationalId"}},
		{map[string]string{"nationalId": "1", "decision": "approve"}, 401, "PSU_CREDENTIALS_INVALID", []string{"nationalId"}},
		{map[string]any{"nationalId": t1Number, "decision": "approve", "accounts": []string{f1Drift}}, 400, "FORMAT_ERROR", []string{"accounts"}},
		{"[", 400, "BAD_REQUEST", nil},
	} {
		rejects(t, b, tpp, "POST", path, c.body, c.status, c.code, c.paths...)
	}
	r := b.Do(tpp, "POST", path, map[string]any{"nationalId": t1Number, "decision": "approve", "context": "PRIVATE", "accounts": []string{t1Sparekonto}})
	expect(t, r, 200, "")
	var auto struct {
		Redirect string `json:"redirect"`
	}
	r.JSON(t, &auto)
	u, _ := url.Parse(auto.Redirect)
	user := psuOf(u.Query())
	var list struct {
		Accounts []aisAccount `json:"accounts"`
	}
	get(b, tpp, user, "/v1/accounts").JSON(t, &list)
	if got := ids(list.Accounts, func(a aisAccount) string { return a.ResourceID }); !slices.Equal(got, []string{t1Sparekonto}) {
		t.Fatalf("accounts %v", got)
	}
	rejects(t, b, tpp, "POST", path, map[string]string{"nationalId": t1Number, "decision": "approve"}, 409, "CONFLICT")
	rejects(t, b, tpp, "POST", "/v1/sandbox/sca/enc!!nope", map[string]string{"nationalId": t1Number, "decision": "approve"}, 404, "SCA_NOT_FOUND")

	// A PSU with two contexts must name one.
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/agreements/"+f1Agreement+"/engagements", map[string]any{
		"customer": t1Number, "account": map[string]string{"iban": "NO2815030345670"}, "roles": []string{"VIEW", "REGISTER"}, "registerLimit": 100000, "approvalLimit": 0,
	}), 201, "")
	path = start("auto-2")
	rejects(t, b, tpp, "POST", path, map[string]string{"nationalId": t1Number, "decision": "approve"}, 400, "FORMAT_ERROR", "context")
	r = b.Do(tpp, "POST", path, map[string]string{"nationalId": t1Number, "decision": "reject", "context": f1Agreement})
	expect(t, r, 200, "")
	r.JSON(t, &auto)
	if !strings.Contains(auto.Redirect, "code=SCA_INVALID") {
		t.Fatalf("reject: %s", auto.Redirect)
	}
}

func TestAIS_PagingPendingAndFixes(t *testing.T) {
	b, tpp := setup(t)
	acct := "/v1/sandbox/accounts/" + t1Sparekonto + "/transactions"
	expect(t, b.Do(tpp, "DELETE", acct, nil), 204, "")
	today := time.Now().In(bank.Oslo)
	var batch []any
	for i := range 450 {
		d := today.AddDate(0, 0, -1-i%60).Format(time.DateOnly)
		item := tx(float64(i+1)+0.5, d, d, nil, map[string]string{"iban": "NO1615030123465"})
		item["debtorAccount"] = map[string]string{"iban": "NO9386011117947"}
		batch = append(batch, item)
	}
	pending := tx(-42, today.AddDate(0, 0, -1).Format(time.DateOnly), today.AddDate(0, 0, -1).Format(time.DateOnly), map[string]string{"iban": "NO1615030123465"}, map[string]string{"iban": "NO9386011117947"})
	pending["bookingStatus"] = "pending"
	batch = append(batch, pending)
	expect(t, b.Do(tpp, "POST", acct, batch), 201, "")

	user := psuOf(b.Consent(tpp, t1Number, "", nil))
	path := "/v1/accounts/" + t1Sparekonto + "/transactions"
	var page aisTxList
	get(b, tpp, user, path+"?bookingStatus=both").JSON(t, &page)
	if len(page.Transactions.Booked) != 200 || len(page.Transactions.Pending) != 1 {
		t.Fatalf("first page: %d booked, %d pending", len(page.Transactions.Booked), len(page.Transactions.Pending))
	}
	if page.Transactions.Pending[0].BookingDate != "" || page.Transactions.Pending[0].TransactionAmount.Amount != "-42.00" {
		t.Fatalf("pending item %+v", page.Transactions.Pending[0])
	}
	seen := map[string]bool{}
	next := page.Transactions.Links["next"].Href
	if page.Transactions.Links["previous"].Href != "" || !strings.Contains(next, "offset=200") || !strings.Contains(page.Transactions.Links["last"].Href, "offset=400") {
		t.Fatalf("links %v", page.Transactions.Links)
	}
	for _, tx := range page.Transactions.Booked {
		seen[tx.TransactionID] = true
	}
	for next != "" {
		var p aisTxList
		get(b, tpp, user, next).JSON(t, &p)
		if len(p.Transactions.Pending) != 1 {
			t.Fatalf("every page carries every pending item: %d", len(p.Transactions.Pending))
		}
		for _, tx := range p.Transactions.Booked {
			if seen[tx.TransactionID] {
				t.Fatalf("transaction %s on two pages", tx.TransactionID)
			}
			seen[tx.TransactionID] = true
		}
		next = p.Transactions.Links["next"].Href
	}
	if len(seen) != 450 {
		t.Fatalf("paged through %d of 450", len(seen))
	}
	var pendingOnly aisTxList
	get(b, tpp, user, path+"?bookingStatus=pending").JSON(t, &pendingOnly)
	if pendingOnly.Transactions.Booked != nil || len(pendingOnly.Transactions.Pending) != 1 {
		t.Fatalf("pending only: %d booked", len(pendingOnly.Transactions.Booked))
	}

	// Bad queries.
	for _, c := range []struct{ query, code, path string }{
		{"?limit=0", "FORMAT_ERROR", "limit"},
		{"?limit=201", "FORMAT_ERROR", "limit"},
		{"?offset=-1", "FORMAT_ERROR", "offset"},
		{"?dateFrom=2026-13-01", "FORMAT_ERROR", "dateFrom"},
		{"?bookingStatus=information", "FORMAT_ERROR", "bookingStatus"},
		{"?dateFrom=" + today.AddDate(0, 0, -1).Format(time.DateOnly) + "&dateTo=" + today.AddDate(0, 0, -5).Format(time.DateOnly), "PERIOD_INVALID", ""},
		{"?withBalance=yes", "FORMAT_ERROR", "withBalance"},
	} {
		r := get(b, tpp, user, path+c.query)
		if c.code == "" {
			expect(t, r, 200, "")
			continue
		}
		e := expect(t, r, 400, c.code)
		if c.path != "" && !slices.Contains(paths(e), c.path) {
			t.Errorf("%s: paths %v", c.query, paths(e))
		}
	}
	expect(t, get(b, tpp, user, "/v1/accounts?withBalance=yes"), 400, "FORMAT_ERROR")

	// Legacy behaviour before the fixes' default date, and a request that
	// names a fix.
	longName := strings.Repeat("Langt kontonavn ", 4)[:60]
	long := newAccount(t1Number, "15030123481", "NOK")
	long["accountName"], long["cashAccountType"] = longName, "SVGS"
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/accounts", long), 201, "")
	user = psuOf(b.Consent(tpp, t1Number, "", nil))
	if _, err := b.Bank.Ops.UpdateSettings(func(s *bank.Settings) { s.LegacyDate = bank.Date{Year: 2024, Month: time.January, Day: 1} }); err != nil {
		t.Fatal(err)
	}
	nameOf := func(fix string) aisAccount {
		var list struct {
			Accounts []aisAccount `json:"accounts"`
		}
		get(b, tpp, user, "/v1/accounts", "x-accept-fix: "+fix).JSON(t, &list)
		for _, a := range list.Accounts {
			if strings.HasPrefix(a.Name, "Langt") {
				return a
			}
		}
		t.Fatalf("the long-named account is not listed")
		return aisAccount{}
	}
	if a := nameOf(""); len(a.Name) != 35 || a.CashAccountType != "Sparekonto" {
		t.Errorf("legacy: name %q (%d), type %q", a.Name, len(a.Name), a.CashAccountType)
	}
	if a := nameOf("longer-names, cash-account-type-iso"); a.Name != longName || a.CashAccountType != "SVGS" {
		t.Errorf("with fixes: name %q, type %q", a.Name, a.CashAccountType)
	}
}

func TestAIS_CardAccounts(t *testing.T) {
	b, tpp := setup(t)
	user := psuOf(b.Consent(tpp, t1Number, "", []string{t1Card}))
	var list struct {
		CardAccounts []struct {
			ResourceID  string            `json:"resourceId"`
			MaskedPan   string            `json:"maskedPan"`
			CreditLimit map[string]string `json:"creditLimit"`
		} `json:"cardAccounts"`
	}
	get(b, tpp, user, "/v1/card-accounts").JSON(t, &list)
	if len(list.CardAccounts) != 1 || list.CardAccounts[0].ResourceID != t1Card || list.CardAccounts[0].CreditLimit["amount"] != "50000.00" {
		t.Fatalf("card accounts %+v", list.CardAccounts)
	}
	expect(t, get(b, tpp, user, "/v1/accounts/"+t1Card), 404, "RESOURCE_UNKNOWN")
	expect(t, get(b, tpp, user, "/v1/card-accounts/"+t1Card+"?withBalance=true"), 200, "")
	expect(t, get(b, tpp, user, "/v1/card-accounts/"+t1Card+"/balances"), 200, "")

	// A foreign purchase: the card account's NOK in transactionAmount.
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/card-accounts/"+t1Card+"/transactions", []any{map[string]any{
		"cardTransactionId": "FX-1", "transactionDate": time.Now().In(bank.Oslo).AddDate(0, 0, -2).Format(time.DateOnly),
		"bookingDate":         time.Now().In(bank.Oslo).AddDate(0, 0, -1).Format(time.DateOnly),
		"transactionAmount":   map[string]any{"amount": -1234.5, "currency": "NOK"},
		"originalAmount":      map[string]any{"amount": -100, "currency": "EUR"},
		"cardAcceptorAddress": map[string]string{"city": "Berlin", "country": "DE"}, "merchantCategoryCode": "5812",
		"maskedPan": "525412******3241", "transactionDetails": "Restaurant", "invoiced": "false",
		"terminalId": "", "cardAcceptorId": "", "proprietaryBankTransactionCode": "",
	}}), 201, "")
	type cardTx struct {
		CardTransactionID string            `json:"cardTransactionId"`
		TransactionAmount map[string]string `json:"transactionAmount"`
		OriginalAmount    map[string]string `json:"originalAmount"`
	}
	find := func(fix string) cardTx {
		var page struct {
			CardTransactions struct {
				Booked  []cardTx `json:"booked"`
				Pending []cardTx `json:"pending"`
			} `json:"cardTransactions"`
		}
		r := get(b, tpp, user, "/v1/card-accounts/"+t1Card+"/transactions?bookingStatus=both", "x-accept-fix: "+fix)
		expect(t, r, 200, "")
		r.JSON(t, &page)
		if len(page.CardTransactions.Pending) == 0 {
			t.Errorf("the known state's pending card transactions are missing")
		}
		for _, tx := range page.CardTransactions.Booked {
			if tx.CardTransactionID == "FX-1" {
				return tx
			}
		}
		t.Fatalf("FX-1 not listed")
		return cardTx{}
	}
	// Without an SCA session the card history starts 90 days back too.
	noSession := user
	noSession.session = "other"
	var links struct {
		CardTransactions struct {
			Links map[string]struct {
				Href string `json:"href"`
			} `json:"_links"`
		} `json:"cardTransactions"`
	}
	get(b, tpp, noSession, "/v1/card-accounts/"+t1Card+"/transactions").JSON(t, &links)
	if want := "dateFrom=" + time.Now().In(bank.Oslo).AddDate(0, 0, -90).Format(time.DateOnly); !strings.Contains(links.CardTransactions.Links["first"].Href, want) {
		t.Errorf("card paging links %v lack %s", links.CardTransactions.Links, want)
	}
	expect(t, get(b, tpp, noSession, "/v1/card-accounts/"+t1Card+"/transactions?dateFrom="+time.Now().In(bank.Oslo).AddDate(0, 0, -100).Format(time.DateOnly)), 401, "SCA_INVALID")
	if tx := find(""); tx.TransactionAmount["currency"] != "NOK" || tx.TransactionAmount["amount"] != "-1234.50" || tx.OriginalAmount["currency"] != "EUR" {
		t.Fatalf("switched amounts: %+v", tx)
	}
	if _, err := b.Bank.Ops.UpdateSettings(func(s *bank.Settings) { s.LegacyDate = bank.Date{Year: 2024, Month: time.January, Day: 1} }); err != nil {
		t.Fatal(err)
	}
	if tx := find(""); tx.TransactionAmount["currency"] != "EUR" {
		t.Fatalf("legacy amounts: %+v", tx)
	}
	if tx := find(bank.FixCardSwitch); tx.TransactionAmount["currency"] != "NOK" {
		t.Fatalf("legacy with the fix named: %+v", tx)
	}
}

func TestSandbox_Clock(t *testing.T) {
	b, tpp := setup(t)
	var c bank.ClockState
	r := b.Do(tpp, "GET", "/v1/sandbox/clock", nil)
	expect(t, r, 200, "")
	r.JSON(t, &c)
	if c.OffsetSeconds != 0 || time.Since(c.Now).Abs() > time.Minute {
		t.Fatalf("clock %+v", c)
	}
	target := time.Now().Add(72 * time.Hour).Truncate(time.Second)
	r = b.Do(b.Operator(), "PUT", "/v1/sandbox/clock", map[string]string{"now": target.Format(time.RFC3339)})
	expect(t, r, 200, "")
	r.JSON(t, &c)
	if d := c.OffsetSeconds - 72*3600; d < -2 || d > 2 {
		t.Fatalf("offset %d after setting now 72 h ahead", c.OffsetSeconds)
	}
	// The clock lands on the moment or just after it, never before: set
	// to a batch time, that run is due at once.
	for range 5 {
		r = b.Do(b.Operator(), "PUT", "/v1/sandbox/clock", map[string]string{"now": target.Format(time.RFC3339)})
		r.JSON(t, &c)
		if c.Now.Before(target) || c.Now.After(target.Add(2*time.Second)) {
			t.Fatalf("set to %s, the clock says %s", target, c.Now)
		}
		time.Sleep(137 * time.Millisecond)
	}
	for _, c := range []struct {
		body any
		code string
	}{
		{map[string]any{}, "FORMAT_ERROR"},
		{map[string]any{"now": "tomorrow"}, "FORMAT_ERROR"},
		{map[string]any{"now": "2026-01-01T00:00:00"}, "FORMAT_ERROR"},
		{map[string]any{"now": "2026-01-01T00:00:00Z", "offsetSeconds": 1}, "FORMAT_ERROR"},
		{map[string]any{"offsetSeconds": "1"}, "BAD_REQUEST"},
	} {
		rejects(t, b, b.Operator(), "PUT", "/v1/sandbox/clock", c.body, 400, c.code)
	}
}
