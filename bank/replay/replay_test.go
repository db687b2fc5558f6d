package replay_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"sandbank/app/apptest"
	"sandbank/bank/pki"
	"sandbank/bank/replay"
	"sandbank/bank/reqlog"
)

// TestReplay_WalkthroughRoundTrip: the guide's whole session, exported as
// Sandbank's HAR, replays on a fresh bank with every entry matching: the
// ids the new bank hands out (consents, payments, the basket, the
// authorisations, the error's id) are followed, the SCAs completed as
// recorded, the operator's batch run signed by the operator.
func TestReplay_WalkthroughRoundTrip(t *testing.T) {
	t.Parallel()
	recorded := apptest.Start(t, apptest.Options{})
	walkthrough(t, recorded)
	data := har(t, recorded)
	fresh := apptest.Start(t, apptest.Options{})
	rep := replayTo(t, data, fresh, replay.Options{})
	if !rep.OK() || rep.Matched != rep.Entries || rep.Entries < 20 || rep.IDsFollowed < 10 || rep.Issued != 1 {
		t.Fatalf("the replay of the walkthrough does not match:\n%s", table(rep))
	}
	// The payments settled on the new bank as on the recorded one: the
	// batch run the replay sent was the operator's.
	for _, x := range rep.Exchanges {
		if strings.HasSuffix(x.URL, "/status") && strings.Contains(x.URL, "/payments/") && x.Entry > 17 && !strings.Contains(string(x.New.Body), `"ACSC"`) {
			t.Errorf("entry %d: %s", x.Entry, x.New.Body)
		}
	}
}

// editHAR changes a HAR: fn gets the entries as decoded JSON.
func editHAR(t *testing.T, data []byte, fn func(entries []any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	fn(doc["log"].(map[string]any)["entries"].([]any))
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// findEntry returns the index of the first entry whose method and URL
// path match (path: a suffix).
func findEntry(t *testing.T, entries []any, method, pathSuffix string) int {
	t.Helper()
	for i, e := range entries {
		req := e.(map[string]any)["request"].(map[string]any)
		u, _ := url.Parse(req["url"].(string))
		if req["method"] == method && strings.HasSuffix(u.Path, pathSuffix) {
			return i
		}
	}
	t.Fatalf("no entry %s …%s", method, pathSuffix)
	return -1
}

// editBody changes the recorded answer of entry i with fn.
func editBody(t *testing.T, entries []any, i int, fn func(body map[string]any)) {
	t.Helper()
	content := entries[i].(map[string]any)["response"].(map[string]any)["content"].(map[string]any)
	var body map[string]any
	if err := json.Unmarshal([]byte(content["text"].(string)), &body); err != nil {
		t.Fatal(err)
	}
	fn(body)
	text, _ := json.Marshal(body)
	content["text"] = string(text)
}

// TestReplay_Divergence: one recorded answer edited (a balance amount,
// a payment's status, an HTTP status, an error code) is reported, and
// only that entry, with the path and both values.
func TestReplay_Divergence(t *testing.T) {
	t.Parallel()
	recorded := apptest.Start(t, apptest.Options{})
	walkthrough(t, recorded)
	data := har(t, recorded)
	cases := []struct {
		name       string
		edit       func(entries []any) int // returns the index edited
		path       string
		recordedAs string
	}{
		{"a balance amount", func(entries []any) int {
			i := findEntry(t, entries, "GET", "/balances")
			editBody(t, entries, i, func(b map[string]any) {
				b["balances"].([]any)[0].(map[string]any)["balanceAmount"].(map[string]any)["amount"] = "1.00"
			})
			return i
		}, "$.balances[0].balanceAmount.amount", `"1.00"`},
		{"a payment's status", func(entries []any) int {
			i := findEntry(t, entries, "GET", "/status")
			editBody(t, entries, i, func(b map[string]any) { b["transactionStatus"] = "RJCT" })
			return i
		}, "$.transactionStatus", `"RJCT"`},
		{"an HTTP status", func(entries []any) int {
			i := findEntry(t, entries, "POST", "/v1/signing-baskets")
			entries[i].(map[string]any)["response"].(map[string]any)["status"] = 200.0
			return i
		}, "status", "200"},
		{"an error code", func(entries []any) int {
			i := -1
			for j, e := range entries {
				if e.(map[string]any)["response"].(map[string]any)["status"] == 400.0 {
					i = j
				}
			}
			editBody(t, entries, i, func(b map[string]any) { b["code"] = "KID_MISSING" })
			return i
		}, "$.code", `"KID_MISSING"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var edited int
			changed := editHAR(t, data, func(entries []any) { edited = c.edit(entries) })
			rep := replayTo(t, changed, apptest.Start(t, apptest.Options{}), replay.Options{})
			if rep.Differed != 1 || rep.OK() {
				t.Fatalf("%d entries differ, want 1:\n%s", rep.Differed, table(rep))
			}
			x := rep.Exchanges[edited]
			if x.Verdict != replay.VerdictDiffers || x.Entry != edited+1 || len(x.Differences) != 1 {
				t.Fatalf("entry %d is not the one reported alone:\n%s", edited+1, table(rep))
			}
			d := x.Differences[0]
			if d.Path != c.path || d.Recorded != c.recordedAs || d.New == d.Recorded || d.New == "" {
				t.Fatalf("entry %d: difference %+v, want path %s recorded %s", edited+1, d, c.path, c.recordedAs)
			}
			if !strings.Contains(x.FirstDifference(), c.path+": recorded "+c.recordedAs+", new "+d.New) {
				t.Fatalf("the table says %q", x.FirstDifference())
			}
		})
	}
}

// TestReplay_IgnoreRules: an ignore rule leaves a path out, and the
// report lists it apart from what matched, with both values.
func TestReplay_IgnoreRules(t *testing.T) {
	t.Parallel()
	recorded := apptest.Start(t, apptest.Options{})
	walkthrough(t, recorded)
	changed := editHAR(t, har(t, recorded), func(entries []any) {
		editBody(t, entries, findEntry(t, entries, "GET", "/balances"), func(b map[string]any) {
			b["balances"].([]any)[1].(map[string]any)["balanceAmount"].(map[string]any)["amount"] = "1.00"
		})
	})
	rules := []replay.Rule{}
	for _, text := range []string{"GET /v1/accounts/*/balances $.balances[*].balanceAmount.amount", "$..referenceDate"} {
		r, err := replay.ParseRule(text)
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, r)
	}
	rep := replayTo(t, changed, apptest.Start(t, apptest.Options{}), replay.Options{Ignore: rules})
	if !rep.OK() {
		t.Fatalf("the ignored difference is reported:\n%s", table(rep))
	}
	var balances replay.Result
	for _, x := range rep.Exchanges {
		if strings.HasSuffix(x.URL, "/balances") {
			balances = x
		}
	}
	var differing []string
	for _, ig := range balances.Ignored {
		if ig.Differs {
			differing = append(differing, fmt.Sprintf("%s %s %s %s", ig.Path, ig.Recorded, ig.New, ig.Rule))
		}
	}
	if len(differing) != 1 || !strings.HasPrefix(differing[0], `$.balances[1].balanceAmount.amount "1.00" "`) || !strings.HasSuffix(differing[0], " GET /v1/accounts/*/balances $.balances[*].balanceAmount.amount") {
		t.Fatalf("ignored values that differ: %q (all: %+v)", differing, balances.Ignored)
	}
	if len(balances.Ignored) < 4 || balances.Matched == 0 || !strings.Contains(balances.FirstDifference(), "ignored") {
		t.Fatalf("the balances' ignored values %+v, matched %d", balances.Ignored, balances.Matched)
	}
	// A rule for other requests leaves the balances alone.
	other, _ := replay.ParseRule("GET /v1/consents/* $.balances[*].balanceAmount.amount")
	if rep := replayTo(t, changed, apptest.Start(t, apptest.Options{}), replay.Options{Ignore: []replay.Rule{other}}); rep.Differed != 1 {
		t.Fatalf("a rule for other requests hid the difference:\n%s", table(rep))
	}
}

// TestParseRule_Mistakes: a rule that cannot be read says why.
func TestParseRule_Mistakes(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"balances[*].amount":   "neither a method",
		"GET /v1/accounts":     "has no JSON path",
		"$.balances[x]":        "neither an index",
		"$.balances[":          "not closed",
		"$['a":                 "not closed",
		"$.":                   "must be followed",
		"/a /b $.x":            "two paths",
		"$.balances[*]amount":  "unexpected",
		"$..":                  "must be followed",
		"GET POST /v1/x $.a.b": "neither a method",
	} {
		if _, err := replay.ParseRule(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRule(%q) = %v, want %q", text, err, want)
		}
	}
	rules, err := replay.ReadRules(strings.NewReader("# dates the real bank writes otherwise\n\n$..referenceDate\n  GET /v1/accounts $.accounts[*]['_links']\n"), "ignore.txt")
	if err != nil || len(rules) != 2 || rules[1].Text != "GET /v1/accounts $.accounts[*]['_links']" {
		t.Fatalf("ReadRules: %v %+v", err, rules)
	}
	if _, err := replay.ReadRules(strings.NewReader("$.a\nnot a rule\n"), "ignore.txt"); err == nil || !strings.HasPrefix(err.Error(), "ignore.txt line 2: ") {
		t.Fatalf("ReadRules of a bad line: %v", err)
	}
}

// TestReplay_IDsDiffer: replayed on a bank with a history (other
// customers, consents and payments before it) and signed by another TPP
// (so other PSU ids), a session whose answers hand out ids that the
// requests after them use still matches: the sandbox data it creates, the
// PSU's id, the consent, payment and basket ids are followed.
func TestReplay_IDsDiffer(t *testing.T) {
	t.Parallel()
	recorded := apptest.Start(t, apptest.Options{})
	tpp := recorded.NewTPP(guideOrg, 0, pki.RoleAI, pki.RolePI)
	var customer struct {
		ID string `json:"customerId"`
	}
	recorded.Do(tpp, "POST", "/v1/sandbox/customers", []byte(`{"customerNumber": "01017012345", "name": "Kari Nordmann", "type": "private"}`)).JSON(t, &customer)
	acct := `{"customerNumber": "01017012345", "accountName": "Brukskonto", "bban": "86011117947", "currency": "NOK", "product": "Brukskonto", "cashAccountType": "CACC",
 "creditLine": 0, "balances": [{"balanceType": "expected", "balanceAmount": {"amount": 1000.5, "currency": "NOK"}}]}`
	var account struct{ ID string }
	if r := recorded.Do(tpp, "POST", "/v1/sandbox/accounts", []byte(acct)); r.Status != 201 {
		t.Fatalf("POST /v1/sandbox/accounts: %d %s", r.Status, r.Body)
	} else {
		r.JSON(t, &account)
	}
	for _, p := range []string{"/v1/sandbox/customers/" + customer.ID, "/v1/sandbox/accounts/" + account.ID} {
		if r := recorded.Do(tpp, "GET", p, nil); r.Status != 200 {
			t.Fatalf("GET %s: %d %s", p, r.Status, r.Body)
		}
	}
	walkthrough(t, recorded)
	data := har(t, recorded)

	// The bank replayed to has a history, and another TPP signs.
	busy := apptest.Start(t, apptest.Options{})
	history(t, busy)
	other := busy.NewTPP("987654321", 2, pki.RoleAI, pki.RolePI)
	rep := replayTo(t, data, busy, replay.Options{Signer: other.Signer})
	if !rep.OK() {
		t.Fatalf("the replay on a bank with a history does not match:\n%s", table(rep))
	}
	// The ids did differ: the customer's and the PSU's.
	first := rep.Exchanges[0]
	var got struct {
		ID string `json:"customerId"`
	}
	if json.Unmarshal(first.New.Body, &got); got.ID == "" || got.ID == customer.ID || !strings.Contains(rep.Exchanges[2].URL, customer.ID) {
		t.Fatalf("the customer's id %q is the recorded %q", got.ID, customer.ID)
	}
	for _, x := range rep.Exchanges {
		if strings.Contains(x.URL, "/v1/sandbox/sca/") {
			if bytes.Equal(x.Recorded.Body, x.New.Body) || !strings.Contains(string(x.New.Body), "psu-id=") {
				t.Fatalf("the PSU's id did not change with the TPP: recorded %s, new %s", x.Recorded.Body, x.New.Body)
			}
			break
		}
	}
}

// history gives a bank a history that the walkthrough does not read:
// another TPP's consent and a payment of Test Testperson 2's, settled,
// and customers of their own.
func history(t *testing.T, b *apptest.Bank) {
	t.Helper()
	tpp := b.NewTPP("912345678", 1, pki.RoleAI, pki.RolePI)
	for _, n := range []string{"02028012345", "03038012345"} {
		if r := b.Do(tpp, "POST", "/v1/sandbox/customers", []byte(`{"customerNumber": "`+n+`", "name": "Ola Nordmann", "type": "private"}`)); r.Status != 201 {
			t.Fatalf("customer: %d %s", r.Status, r.Body)
		}
	}
	b.Consent(tpp, "12085592767", "", nil)
	body := `{"instructedAmount": {"amount": "250", "currency": "NOK"}, "debtorAccount": {"iban": "NO3015030234569"},
 "creditorAccount": {"iban": "NO9386011117947"}, "creditorName": "Ola Nordmann", "remittanceInformationUnstructured": "Leie"}`
	var p struct{ PaymentID string }
	r := b.Do(tpp, "POST", ndct, []byte(body), "TPP-Redirect-URI: "+redirectURI, "TPP-Session-ID: history")
	if r.Status != 201 {
		t.Fatalf("payment: %d %s", r.Status, r.Body)
	}
	r.JSON(t, &p)
	b.CompleteSCA(scaRedirect(t, r), "12085592767", "", nil, "approve")
	if r := b.Do(b.Operator(), "POST", "/v1/sandbox/batch-runs", nil); r.Status != 200 {
		t.Fatalf("batch run: %d %s", r.Status, r.Body)
	}
}

// scaRedirect is the scaRedirect link of an answer.
func scaRedirect(t *testing.T, r apptest.Response) string {
	t.Helper()
	var started struct {
		Links map[string]struct{ Href string } `json:"_links"`
	}
	r.JSON(t, &started)
	return started.Links["scaRedirect"].Href
}

// TestReplay_SCAPageFormPosts: a session whose PSU went through the SCA
// page (its form posts are in the HAR, the secret of its address
// redacted) replays through automated SCA with the national id, context
// and accounts the PSU posted: a corporate PSU acting for its company.
func TestReplay_SCAPageFormPosts(t *testing.T) {
	t.Parallel()
	recorded := apptest.Start(t, apptest.Options{})
	tpp := recorded.NewTPP(guideOrg, 0, pki.RoleAI)
	// Test Testperson 1 may act for Testfirma 1 AS too: the SCA page
	// asks in which context.
	engagement := `{"customer": "13039319955", "account": {"iban": "NO2815030345670"}, "roles": ["VIEW", "REGISTER"], "registerLimit": 5000, "approvalLimit": 0}`
	if r := recorded.Do(tpp, "POST", "/v1/sandbox/agreements/enc!!NDPURJLx3L9QIegVAF9UMA/engagements", []byte(engagement)); r.Status != 201 {
		t.Fatalf("engagement: %d %s", r.Status, r.Body)
	}
	href := recorded.StartSCA(tpp, "POST", "/v1/consents", redirectURI, "page-session")
	back := recorded.CompleteSCA(href, "13039319955", "enc!!NDPURJLx3L9QIegVAF9UMA", []string{"enc!!9JZckNWOqWXaEBLJ7MPBrw"}, "approve")
	psu := []string{"PSU-ID: " + back.Query.Get("psu-id"), "PSU-Corporate-ID: " + back.Query.Get("psu-corporate-id"), "TPP-Session-ID: page-session", "PSU-IP-Address: " + psuIP}
	if r := recorded.Do(tpp, "GET", "/v1/accounts", nil, psu...); r.Status != 200 || !strings.Contains(string(r.Body), "9JZckNWOqWXaEBLJ7MPBrw") {
		t.Fatalf("accounts: %d %s", r.Status, r.Body)
	}
	data := har(t, recorded)
	if !strings.Contains(string(data), "/sca/enc!!") || !strings.Contains(string(data), "nationalId=13039319955") {
		t.Fatal("the HAR lacks the SCA page's posts")
	}
	// A browser's recording holds the page's secret, which Sandbank's
	// own log redacts: the report names the page without it.
	const secret = "secretOfTheBrowsersRecording"
	data = bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("%5Bredacted%5D"), []byte(secret)), []byte("[redacted]"), []byte(secret))
	if !bytes.Contains(data, []byte("/"+secret)) {
		t.Fatal("the HAR names no SCA page with its secret")
	}
	rep := replayTo(t, data, apptest.Start(t, apptest.Options{}), replay.Options{})
	if !rep.OK() {
		t.Fatalf("the replay of the SCA page's session does not match:\n%s", table(rep))
	}
	if report, _ := json.Marshal(rep); bytes.Contains(report, []byte(secret)) || strings.Contains(table(rep), secret) {
		t.Fatalf("the report holds the SCA page's secret:\n%s", table(rep))
	}
	var sent []string
	for _, x := range rep.Exchanges {
		if x.Sent != "" {
			sent = append(sent, x.Sent)
		}
	}
	if len(sent) != 1 || !strings.Contains(sent[0], `"nationalId":"13039319955"`) || !strings.Contains(sent[0], `"context":"enc!!NDPURJLx3L9QIegVAF9UMA"`) ||
		!strings.Contains(sent[0], `"accounts":["enc!!9JZckNWOqWXaEBLJ7MPBrw"]`) {
		t.Fatalf("the automated SCA sent %q", sent)
	}
}

// TestReplay_NationalIDForAnSCAOutOfSight: a HAR of the TPP's requests
// alone (an API client's: the PSU approved in a browser the HAR does not
// show) needs the PSU's national id: without it the read that needed the
// SCA differs and the report says what to give; with it the replay
// completes the SCA and matches.
func TestReplay_NationalIDForAnSCAOutOfSight(t *testing.T) {
	t.Parallel()
	recorded := apptest.Start(t, apptest.Options{})
	tpp := recorded.NewTPP(guideOrg, 0, pki.RoleAI)
	q := recorded.Consent(tpp, "13039319955", "", nil)
	psu := []string{"PSU-ID: " + q.Get("psu-id"), "TPP-Session-ID: session-13039319955", "PSU-IP-Address: " + psuIP}
	recorded.Do(tpp, "GET", "/v1/accounts?withBalance=true", nil, psu...)
	var api []reqlog.Entry
	for _, e := range recorded.RequestLog().Entries() {
		if !strings.HasPrefix(e.Path, "/sca/") {
			api = append(api, e)
		}
	}
	var buf bytes.Buffer
	if err := reqlog.WriteHAR(&buf, api, "test"); err != nil {
		t.Fatal(err)
	}
	rep := replayTo(t, buf.Bytes(), apptest.Start(t, apptest.Options{}), replay.Options{})
	last := rep.Exchanges[len(rep.Exchanges)-1]
	if rep.Differed != 1 || last.Verdict != replay.VerdictDiffers || !strings.Contains(strings.Join(last.Notes, " "), "give --national-id") {
		t.Fatalf("without a national id:\n%s", table(rep))
	}
	rep = replayTo(t, buf.Bytes(), apptest.Start(t, apptest.Options{}), replay.Options{NationalID: "13039319955"})
	last = rep.Exchanges[len(rep.Exchanges)-1]
	if !rep.OK() || !strings.Contains(strings.Join(last.Notes, " "), "completed authorisation") {
		t.Fatalf("with --national-id:\n%s", table(rep))
	}
}

// TestReplay_ToolFormats: a HAR as Chrome's developer tools export it
// (HTTP/2 pseudo-headers, _initiator, _resourceType, bodies in base64
// with content.encoding, a compressed answer, another address's request)
// and one as Insomnia exports it (every entry at the export's time, a
// request name as the comment, no SCA: the PSU approved in a browser) are
// read and replay on a fresh bank with their entries matching.
func TestReplay_ToolFormats(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file, creator string
		entries, sent int
		nationalID    string
	}{
		{"chrome-devtools.har", "WebInspector 537.36", 5, 4, ""},
		{"insomnia.har", "Insomnia REST Client insomnia.desktop.app:v2023.5.8", 4, 4, "13039319955"},
	} {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile("testdata/" + c.file)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := replay.ReadHAR(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if rec.Creator != c.creator || len(rec.Entries) != c.entries {
				t.Fatalf("read %q with %d entries", rec.Creator, len(rec.Entries))
			}
			for _, e := range rec.Entries {
				if slices.ContainsFunc(e.Header, func(f replay.Field) bool { return strings.HasPrefix(f.Name, ":") }) {
					t.Fatalf("entry %d keeps HTTP/2's pseudo-headers", e.Index)
				}
				if e.Status == 201 && !strings.HasPrefix(string(e.ResponseBody), `{"consentId":"enc!!`) {
					t.Fatalf("entry %d's answer, base64 in the file, reads %q", e.Index, e.ResponseBody)
				}
			}
			rep := replayTo(t, data, apptest.Start(t, apptest.Options{}), replay.Options{NationalID: c.nationalID})
			if !rep.OK() || rep.Matched != c.sent || rep.Entries != c.entries {
				t.Fatalf("the replay of %s:\n%s", c.file, table(rep))
			}
		})
	}
}

// TestReadHAR_CompressedWireBytes: a body in base64 that holds the gzip
// bytes of the wire, as some proxies keep them, is inflated.
func TestReadHAR_CompressedWireBytes(t *testing.T) {
	t.Parallel()
	var wire bytes.Buffer
	z := gzip.NewWriter(&wire)
	z.Write([]byte("{\"text\":\"value\"}\n"))
	z.Close()
	gz := base64.StdEncoding.EncodeToString(wire.Bytes())
	data := `{"log": {"version": "1.2", "creator": {"name": "proxy", "version": "1"}, "entries": [{"startedDateTime": "2026-11-20T09:00:00Z",
 "request": {"method": "GET", "url": "http://127.0.0.1:7380/v1/sandbox/clock", "headers": []},
 "response": {"status": 200, "headers": [{"name": "Content-Encoding", "value": "gzip"}], "content": {"size": 19, "mimeType": "application/json", "text": "` + gz + `", "encoding": "base64"}}}]}}`
	rec, err := replay.ReadHAR(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(rec.Entries[0].ResponseBody); got != "{\"text\":\"value\"}\n" {
		t.Fatalf("the body reads %q", got)
	}
}

// TestReplay_BadInput: a file that is not a HAR, a HAR 1.1, an entry
// without an answer, a request to a path Sandbank does not serve and a
// request body the recording cut are each refused with a message that
// names the entry and what to do, and nothing of the HAR reaches the
// bank: its request log holds only the replay's read of its route table,
// and its data file is unchanged.
func TestReplay_BadInput(t *testing.T) {
	t.Parallel()
	recorded := apptest.Start(t, apptest.Options{})
	walkthrough(t, recorded)
	data := har(t, recorded)
	entry := func(status int, path string, cut bool) []byte {
		return editHAR(t, data, func(entries []any) {
			e := entries[3].(map[string]any)
			if path != "" {
				e["request"].(map[string]any)["url"] = recorded.URL + path
			}
			if status >= 0 {
				e["response"].(map[string]any)["status"] = float64(status)
			}
			if cut {
				e["request"].(map[string]any)["postData"] = map[string]any{"mimeType": "application/json", "text": strings.Repeat("x", 64<<10)}
				e["_sandbank"].(map[string]any)["bodiesCut"] = true
			}
		})
	}
	noResponse := editHAR(t, data, func(entries []any) { delete(entries[3].(map[string]any), "response") })
	for _, c := range []struct {
		name string
		data []byte
		want []string
	}{
		{"not JSON", []byte("GET /v1/accounts HTTP/1.1\n"), []string{"not a HAR file: invalid character 'G'", "line 1, column 1", "Export HAR"}},
		{"JSON, not a HAR", []byte(`{"requests": []}`), []string{"not a HAR file: it has no log object"}},
		{"HAR 1.1", bytes.Replace(data, []byte(`"version": "1.2"`), []byte(`"version": "1.1"`), 1), []string{"a HAR 1.1 file: the replay reads HAR 1.2 and 1.3", "export the HAR again"}},
		{"an entry without a response", noResponse, []string{"entry 4 (log.entries[3], GET http://", "has no answer", "remove the entry"}},
		{"an entry whose request failed", entry(0, "", false), []string{"entry 4 (log.entries[3], GET http://", "response.status is 0"}},
		{"a path Sandbank does not serve", entry(-1, "/v1/accounts/x/statements", false), []string{"entry 4 (log.entries[3], GET " + recorded.URL + "/v1/accounts/x/statements)", "Sandbank does not serve GET /v1/accounts/x/statements", "Remove the entry"}},
		{"a body the recording cut", entry(-1, "", true), []string{"entry 4 (log.entries[3]", "first 64 KiB of the request's body"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := apptest.Start(t, apptest.Options{})
			before := apptest.MetaPages(t, b.Path)
			logged := len(b.RequestLog().Entries())
			_, err := replayErr(c.data, b, replay.Options{})
			var input *replay.InputError
			if !errors.As(err, &input) {
				t.Fatalf("the replay of %s: %v, want an input error", c.name, err)
			}
			for _, want := range c.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error %q lacks %q", err, want)
				}
			}
			for _, e := range b.RequestLog().Entries()[logged:] {
				if e.Path != "/v1/openapi.json" {
					t.Errorf("the replay sent %s %s after a fatal error", e.Method, e.Path)
				}
			}
			if !bytes.Equal(before, apptest.MetaPages(t, b.Path)) {
				t.Error("the data file changed")
			}
		})
	}
}

// TestReplay_CancelKeepsWhatWasSent: a replay cancelled midway stops
// between two entries, says so, and sends nothing more; the bank keeps
// what the entries sent did.
func TestReplay_CancelKeepsWhatWasSent(t *testing.T) {
	t.Parallel()
	recorded := apptest.Start(t, apptest.Options{})
	walkthrough(t, recorded)
	rec, err := replay.ReadHAR(bytes.NewReader(har(t, recorded)))
	if err != nil {
		t.Fatal(err)
	}
	b := apptest.Start(t, apptest.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []int
	rep, err := replay.Run(ctx, rec, target(b), replay.Options{Progress: func(done, total int) {
		seen = append(seen, done)
		if done == 8 {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Cancelled || len(rep.Exchanges) != 8 || !slices.Equal(seen, []int{1, 2, 3, 4, 5, 6, 7, 8}) || !strings.Contains(rep.Summary(), "Cancelled before the end: the bank keeps what the entries sent did") {
		t.Fatalf("cancelled after 8 of %d: %v %v\n%s", len(rec.Entries), seen, rep.Cancelled, table(rep))
	}
	// The payment it created stays on the bank.
	var created struct{ PaymentID string }
	for _, x := range rep.Exchanges {
		if x.Method == "POST" && strings.Contains(x.URL, ndct) {
			json.Unmarshal(x.New.Body, &created)
		}
	}
	if r := b.Do(b.Operator(), "GET", "/v1/sandbox/payments/"+created.PaymentID, nil); r.Status != 200 {
		t.Fatalf("the payment the replay created: %d %s", r.Status, r.Body)
	}
	last := b.RequestLog().Entries()
	if n := len(last); last[n-1].Path != "/v1/sandbox/payments/"+created.PaymentID || last[n-2].RequestID != rep.Exchanges[7].RequestID {
		t.Fatalf("after the cancel the replay sent %s %s", last[n-2].Method, last[n-2].Path)
	}
}

// TestReplay_RecordedClock: with the recorded clock the sandbox clock is
// at each request's recorded time when it arrives, and back where it was
// at the end; without the operator the replay refuses to move it.
func TestReplay_RecordedClock(t *testing.T) {
	t.Parallel()
	recorded := apptest.Start(t, apptest.Options{})
	walkthrough(t, recorded)
	data := har(t, recorded)
	rec, _ := replay.ReadHAR(bytes.NewReader(data))
	b := apptest.Start(t, apptest.Options{})
	if r := b.Do(b.Operator(), "PUT", "/v1/sandbox/clock", []byte(`{"offsetSeconds": 3600}`)); r.Status != 200 {
		t.Fatal(r.Status)
	}
	rep := replayTo(t, data, b, replay.Options{RecordedClock: true})
	if !rep.OK() || !rep.ClockRestored || !strings.Contains(rep.Summary(), "The sandbox clock is back where it was.") {
		t.Fatalf("with the recorded clock:\n%s", table(rep))
	}
	var clock struct{ OffsetSeconds int64 }
	b.Do(b.Operator(), "GET", "/v1/sandbox/clock", nil).JSON(t, &clock)
	if clock.OffsetSeconds != 3600 {
		t.Fatalf("the clock's offset is %d after the replay, want 3600", clock.OffsetSeconds)
	}
	// Each request came in with the clock at its recorded time.
	puts := 0
	for _, e := range b.RequestLog().Entries() {
		if e.Method == "PUT" && e.Path == "/v1/sandbox/clock" && strings.Contains(string(e.RequestBody), `"now"`) {
			puts++
			var body struct{ Now string }
			json.Unmarshal(e.RequestBody, &body)
			if !slices.ContainsFunc(rec.Entries, func(x *replay.Entry) bool { return x.Started.Format("2006-01-02T15:04:05.999999999Z07:00") == body.Now }) {
				t.Fatalf("the clock was set to %s, no entry's time", body.Now)
			}
		}
	}
	if puts != rep.Matched {
		t.Fatalf("%d clock moves for %d entries sent", puts, rep.Matched)
	}
	tgt := target(b)
	tgt.Operator = nil
	if _, err := replay.Run(context.Background(), rec, tgt, replay.Options{RecordedClock: true}); !errors.Is(err, replay.ErrNoOperator) {
		t.Fatalf("without the operator: %v", err)
	}
}

// TestReplay_SignatureAsRecorded: a request the recorded bank refused for
// its signature is sent as it was, and refused again the same way; a
// request sent unsigned stays unsigned.
func TestReplay_SignatureAsRecorded(t *testing.T) {
	t.Parallel()
	recorded := apptest.Start(t, apptest.Options{})
	tpp := recorded.NewTPP(guideOrg, 0, pki.RoleAI)
	req := recorded.Request("GET", "/v1/sandbox/customers", nil)
	if err := tpp.Signer.SignRequest(req, nil); err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Request-ID", "changed-after-signing")
	if r := recorded.Send(req); r.Status != 400 {
		t.Fatalf("a broken signature: %d", r.Status)
	}
	if r := recorded.Do(nil, "GET", "/v1/sandbox/customers", nil); r.Status != 400 {
		t.Fatalf("unsigned: %d", r.Status)
	}
	recorded.Do(tpp, "GET", "/v1/sandbox/clock", nil)
	rep := replayTo(t, har(t, recorded), apptest.Start(t, apptest.Options{}), replay.Options{})
	if !rep.OK() || rep.Matched != 3 {
		t.Fatalf("the signature refusals replay:\n%s", table(rep))
	}
	for _, x := range rep.Exchanges[:2] {
		if code := errorCode(t, x.New.Body); code != "SIGNATURE_INVALID" && code != "SIGNATURE_MISSING" {
			t.Fatalf("entry %d answered %s", x.Entry, x.New.Body)
		}
	}
}

func errorCode(t *testing.T, body []byte) string {
	var e struct{ Code string }
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatal(err)
	}
	return e.Code
}

// TestReport_Redacted: a report to send out of the house names no
// customer, account number or national id, and gives the same value the
// same placeholder everywhere.
func TestReport_Redacted(t *testing.T) {
	t.Parallel()
	recorded := apptest.Start(t, apptest.Options{})
	walkthrough(t, recorded)
	changed := editHAR(t, har(t, recorded), func(entries []any) {
		editBody(t, entries, findEntry(t, entries, "GET", "/v1/accounts"), func(b map[string]any) {
			a := b["accounts"].([]any)[0].(map[string]any)
			a["iban"], a["name"] = "NO9386011117947", "Kari Nordmanns konto"
		})
	})
	rep := replayTo(t, changed, apptest.Start(t, apptest.Options{}), replay.Options{})
	var plain, redacted bytes.Buffer
	if err := rep.WriteJSON(&plain); err != nil {
		t.Fatal(err)
	}
	if err := rep.Redacted().WriteJSON(&redacted); err != nil {
		t.Fatal(err)
	}
	for _, personal := range []string{"NO9386011117947", "NO3815030123457", "Kari Nordmanns konto"} {
		if !strings.Contains(plain.String(), personal) || !strings.Contains(table(rep), personal) {
			t.Errorf("the report does not hold %s to begin with", personal)
		}
		if strings.Contains(redacted.String(), personal) || strings.Contains(table(rep.Redacted()), personal) {
			t.Errorf("the redacted report holds %s", personal)
		}
	}
	var r struct {
		Exchanges []replay.Result
	}
	if err := json.Unmarshal(redacted.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	var diffs []replay.Difference
	for _, x := range r.Exchanges {
		diffs = append(diffs, x.Differences...)
	}
	if len(diffs) != 2 || !strings.HasPrefix(diffs[0].Recorded, `"<account `) || !strings.HasPrefix(diffs[0].New, `"<account `) ||
		!strings.HasPrefix(diffs[1].Recorded, `"<name `) || diffs[0].Recorded == diffs[0].New {
		t.Fatalf("redacted differences %+v", diffs)
	}
	// The same account is the same placeholder everywhere: Brukskonto's
	// iban, the new value here, is what the payments' answers name too.
	brukskonto := strings.Trim(diffs[0].New, `"`)
	if n := strings.Count(table(rep.Redacted()), brukskonto); n < 1 || strings.Count(redacted.String(), brukskonto) != strings.Count(plain.String(), "NO3815030123457") {
		t.Fatalf("the placeholder %s of NO3815030123457 stands %d times in the table; %d times in the redacted report for %d times in the plain one",
			brukskonto, n, strings.Count(redacted.String(), brukskonto), strings.Count(plain.String(), "NO3815030123457"))
	}
}
