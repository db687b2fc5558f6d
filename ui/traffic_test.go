package ui

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// send sends a request signed with a fresh TPP certificate of the bank's CA
// (or with a broken signature when broken is set) and returns the status.
func (h *harness) send(method, path string, body []byte, broken bool) int {
	h.t.Helper()
	cert, key, err := h.core.Authority.NewTPP(pki.TPPRequestFor("UI TPP", "987654321", []string{pki.RoleAI, pki.RolePI}, 1, time.Now()), false)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.sendSigned(cert, key, method, path, body, broken)
}

// sendAsOperator sends a request as send does, signed with the bank's
// operator certificate.
func (h *harness) sendAsOperator(method, path string) int {
	h.t.Helper()
	cert, key, err := h.core.OperatorCert()
	if err != nil {
		h.t.Fatal(err)
	}
	return h.sendSigned(cert, key, method, path, nil, false)
}

// sendSigned signs a request with cert and key and sends it.
func (h *harness) sendSigned(cert *x509.Certificate, key *rsa.PrivateKey, method, path string, body []byte, broken bool) int {
	h.t.Helper()
	signer, _ := httpsig.NewSigner(cert, key)
	req, _ := http.NewRequest(method, h.core.URLs()[0]+path, bytes.NewReader(body))
	req.Header.Set("X-Request-ID", "ui-test")
	req.Header.Set("Content-Type", "application/json")
	if err := signer.SignRequest(req, body); err != nil {
		h.t.Fatal(err)
	}
	if broken { // the body changed after signing: the digest step fails
		tampered := append(bytes.Clone(body), ' ')
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(tampered)), int64(len(tampered))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// TestSync_APIChangesAppearInScreens: a change made through the signed API
// reaches the open screens through the bank's events, and a change made in
// the window is what the next API call sees.
func TestSync_APIChangesAppearInScreens(t *testing.T) {
	h := newHarness(t, true)
	if st := h.send("POST", "/v1/sandbox/customers", []byte(`{"customerNumber":"77777","name":"Fra API","type":"private"}`), false); st != 201 {
		t.Fatalf("create through the API: %d", st)
	}
	h.u.catchUp()
	found := false
	for _, i := range h.u.customers.shown {
		found = found || h.u.customers.all[i].Name == "Fra API"
	}
	if !found {
		t.Fatal("the customer created through the API is not listed")
	}
	if !strings.Contains(strings.Join(h.u.accounts.ownerSel.Options, ","), "Fra API (77777)") {
		t.Fatal("the accounts screen does not offer the new customer")
	}
	// The other way: an edit in the window, then the API.
	c, _ := h.customer("77777")
	h.u.customers.selected = c.ID
	h.u.customers.showDetail()
	h.u.customers.name.SetText("Endret i vinduet")
	test.Tap(h.u.customers.saveName)
	req, _ := http.NewRequest("GET", h.core.URLs()[0]+"/v1/sandbox/customers/"+c.ID, nil)
	cert, key, _ := h.core.Authority.NewTPP(pki.TPPRequestFor("UI TPP", "987654321", nil, 1, time.Now()), false)
	signer, _ := httpsig.NewSigner(cert, key)
	req.Header.Set("X-Request-ID", "sync")
	_ = signer.SignRequest(req, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ CustomerName string }
	_ = json.NewDecoder(resp.Body).Decode(&got)
	_ = resp.Body.Close()
	if got.CustomerName != "Endret i vinduet" {
		t.Fatalf("the API sees %q", got.CustomerName)
	}
	// Transactions posted through the API show in the open table.
	h.u.tabs.SelectIndex(2)
	choose(t, h.u.transactions, "NO3815030123457")
	acct, _ := h.core.Bank.Sandbox.Account(h.u.transactions.selected)
	before := h.u.transactions.model.rows()
	day := h.core.Bank.Ops.Today().String()
	body := `[{"amount": 10, "currency": "NOK", "bookingDate": "` + day + `", "valueDate": "` + day + `", "remittanceInformationUnstructured": "", "creditorId": "", "creditorName": "", "creditorAccount": {"bban": "86011117947"}, "ultimateCreditor": "", "debtorName": "", "debtorAccount": {"iban": "` + acct.IBAN + `"}, "ultimateDebtor": "", "purposeCode": "", "bankTransactionCode": "PMNT-ICDT-ESCT"}]`
	if st := h.send("POST", "/v1/sandbox/accounts/"+acct.ID+"/transactions", []byte(body), false); st != 201 {
		t.Fatalf("post transaction: %d", st)
	}
	h.u.catchUp()
	if h.u.transactions.model.rows() != before+1 {
		t.Fatalf("the table shows %d rows after an API post, want %d", h.u.transactions.model.rows(), before+1)
	}
}

func TestTraffic_LiveLogExplainsSignatures(t *testing.T) {
	h := newHarness(t, true)
	s := h.u.traffic
	h.send("GET", "/v1/sandbox/customers", nil, false)
	h.send("POST", "/v1/sandbox/customers", []byte(`{"customerNumber":"1","name":"X","type":"private"}`), true)
	h.u.catchUp()
	if len(s.shown) != 2 {
		t.Fatalf("%d requests listed", len(s.shown))
	}
	// Newest first: the refused POST.
	row := func(i int) []string {
		var out []string
		for col := range trafficColumns {
			out = append(out, s.cell(s.entries[s.shown[i]], col))
		}
		return out
	}
	if got := row(0); got[1] != "NO-FSA-987654321" || got[2] != "POST" || got[4] != "400" || got[6] != "failed: digest" {
		t.Fatalf("first row %q", got)
	}
	if got := row(1); got[4] != "200" || got[6] != "verified" {
		t.Fatalf("second row %q", got)
	}
	s.table.Select(widget.TableCellID{Row: 0, Col: 0})
	for _, want := range []string{"digest: FAILED", "does not match the body", "Refused at the digest step", "certificate: ok", "SIGNATURE_INVALID"} {
		if !strings.Contains(s.explanation(), want) {
			t.Errorf("the explanation lacks %q:\n%s", want, s.explanation())
		}
	}
	if !strings.Contains(s.request.Text, `"customerNumber": "1"`) || !strings.Contains(s.response.Text, "400 Bad Request") || !strings.Contains(s.response.Text, `"code": "SIGNATURE_INVALID"`) {
		t.Fatalf("request/response panes:\n%s\n%s", s.request.Text, s.response.Text)
	}
	s.table.Select(widget.TableCellID{Row: 1, Col: 0})
	if !strings.Contains(s.explanation(), "Signing string") || !strings.Contains(s.explanation(), "\nx-request-id: ui-test") {
		t.Fatalf("a verified request shows its signing string:\n%s", s.explanation())
	}
	// Filters.
	s.errorsOnly.SetChecked(true)
	if len(s.shown) != 1 {
		t.Fatalf("errors only: %d", len(s.shown))
	}
	s.errorsOnly.SetChecked(false)
	s.filter.SetText("verified")
	if len(s.shown) != 1 {
		t.Fatalf("filter: %d", len(s.shown))
	}
	s.filter.SetText("")
	// Export as JSON, then clear.
	path := filepath.Join(t.TempDir(), "traffic.json")
	if n, err := s.export(path); err != nil || n != 2 {
		t.Fatalf("export %d %v", n, err)
	}
	data, _ := os.ReadFile(path)
	var exported []map[string]any
	if err := json.Unmarshal(data, &exported); err != nil || len(exported) != 2 || exported[1]["signature"] != "failed: digest" {
		t.Fatalf("exported %s", data)
	}
	// Export as HAR, through the dialog of its button.
	test.Tap(widgetIn(t, h.u.tabs, "Export HAR…"))
	if got := h.field("File").(*entry).Text; filepath.Ext(got) != ".har" || filepath.Dir(got) != h.core.DataDir() {
		t.Fatalf("the HAR dialog offers %q", got)
	}
	harPath := filepath.Join(t.TempDir(), "traffic.har")
	h.typeInto("File", harPath)
	test.Tap(h.modal().submit)
	data, err := os.ReadFile(harPath)
	if err != nil {
		t.Fatal(err)
	}
	apptest.CheckHAR(t, data)
	var har struct {
		Log struct {
			Version string
			Creator struct{ Name, Version string }
			Entries []struct {
				Request struct {
					Method   string
					PostData struct{ Text string }
				}
				Response struct {
					Status  int
					Content struct{ Text string }
				}
				Sandbank struct{ ID, Signature string } `json:"_sandbank"`
			}
		}
	}
	if err := json.Unmarshal(data, &har); err != nil {
		t.Fatal(err)
	}
	if har.Log.Version != "1.2" || har.Log.Creator.Name != "Sandbank" || har.Log.Creator.Version != h.core.Version() || len(har.Log.Entries) != 2 {
		t.Fatalf("HAR log %+v", har.Log)
	}
	if post := har.Log.Entries[1]; post.Request.Method != "POST" || post.Request.PostData.Text != `{"customerNumber":"1","name":"X","type":"private"} ` || // as tampered
		post.Response.Status != 400 || !strings.Contains(post.Response.Content.Text, "SIGNATURE_INVALID") ||
		post.Sandbank.Signature != "failed: digest" || post.Sandbank.ID != s.entries[s.shown[0]].ID {
		t.Fatalf("HAR entry of the refused POST %+v", post)
	}
	test.Tap(widgetIn(t, h.u.tabs, "Clear"))
	if len(s.shown) != 0 || len(h.core.RequestLog().Entries()) != 0 {
		t.Fatal("clear left requests")
	}
}

// A clear through the API (DELETE /v1/sandbox/requests) empties the
// Traffic screen too; requests after it show as usual.
func TestTraffic_FollowsAClearThroughTheAPI(t *testing.T) {
	h := newHarness(t, true)
	s := h.u.traffic
	h.send("GET", "/v1/sandbox/customers", nil, false)
	h.send("GET", "/v1/sandbox/clock", nil, false)
	h.u.catchUp()
	if len(s.shown) != 2 {
		t.Fatalf("%d requests listed", len(s.shown))
	}
	s.table.Select(widget.TableCellID{Row: 0, Col: 0})
	if s.request.Text == "" {
		t.Fatal("no request shown")
	}
	if st := h.sendAsOperator("DELETE", "/v1/sandbox/requests"); st != 204 {
		t.Fatalf("DELETE /v1/sandbox/requests: %d", st)
	}
	h.u.catchUp()
	// The DELETE itself is logged after it cleared the log.
	if len(s.entries) != 1 || len(s.shown) != 1 || s.entries[0].Method != "DELETE" || s.request.Text != "" || s.selected != 0 {
		t.Fatalf("after the API cleared the log the screen holds %d requests, selected %d", len(s.entries), s.selected)
	}
	h.send("GET", "/v1/sandbox/clock", nil, false)
	h.u.catchUp()
	if len(s.shown) != 2 || s.entries[1].Path != "/v1/sandbox/clock" {
		t.Fatalf("after a new request: %d", len(s.shown))
	}
}

// A request the bank accepted with client notes shows them, with what to
// change, beside the signature steps, and counts them in its row.
func TestTraffic_ClientNotes(t *testing.T) {
	h := newHarness(t, true)
	s := h.u.traffic
	cert, key, err := h.core.Authority.NewTPP(pki.TPPRequestFor("UI TPP", "987654321", []string{pki.RoleAI, pki.RolePI}, 1, time.Now()), false)
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := httpsig.NewSigner(cert, key)
	req, _ := http.NewRequest("GET", h.core.URLs()[0]+"/v1/sandbox/customers", nil)
	req.Header.Set("PSU-IP-Address", "localhost")
	if err := signer.SignRequest(req, nil); err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	h.u.catchUp()
	n := len(s.entries)
	if n == 0 {
		t.Fatal("no request in the log")
	}
	e := s.entries[n-1]
	if got := s.cell(e, 6); got != "verified, 1 note" {
		t.Fatalf("signature column %q", got)
	}
	s.table.Select(widget.TableCellID{Row: 0, Col: 0})
	if !strings.Contains(s.top.String(), "Accepted with 1 client note") || !strings.Contains(s.steps.Text, "Client notes") ||
		!strings.Contains(s.steps.Text, `- PSU-IP-Address: "localhost" is not an IP address`) {
		t.Fatalf("explanation:\n%s", s.explanation())
	}
}

// The Traffic screen shows the time of a request in Oslo time, as the
// other screens do, and says so in its column header; the zone's
// abbreviation is not UTC's, whatever the season.
func TestTraffic_TimesAreOsloTime(t *testing.T) {
	h := newHarness(t, true)
	s := h.u.traffic
	h.send("GET", "/v1/sandbox/clock", nil, false)
	h.u.catchUp()
	h.u.tabs.SelectIndex(5)
	if h.u.tabs.Selected().Text != "Traffic" {
		t.Fatalf("tab 5 is %q", h.u.tabs.Selected().Text)
	}
	s.table.Refresh()
	e := s.entries[len(s.entries)-1]
	oslo, utc := e.Time.In(bank.Oslo).Format("15:04:05.000"), e.Time.UTC().Format("15:04:05.000")
	if oslo == utc {
		t.Fatalf("Oslo time %s is UTC's", oslo)
	}
	var texts []string
	for _, st := range renderedTexts(s.table) {
		texts = append(texts, st.text)
	}
	if !slices.Contains(texts, "Time (Oslo)") || !slices.Contains(texts, oslo) || slices.Contains(texts, utc) {
		t.Fatalf("the table shows %q; want the header Time (Oslo) and the time %s, not UTC's %s", texts, oslo, utc)
	}
}

// explanation is the text of the selected request's explanation, top
// down.
func (s *trafficScreen) explanation() string {
	return s.top.String() + "\n" + s.steps.Text
}

// At 1280×800 the Traffic screen's explanation of a refused signature
// shows, without scrolling, the verdict (the answer, the step that refused
// it and why) and then the whole signing string the bank rebuilt, here of
// six lines, as a POST with PSU-ID and TPP-Redirect-URI signs them; the
// steps one by one come below them. The order is the one the test driver
// renders, top down.
func TestTraffic_VerdictAndSigningStringFirst(t *testing.T) {
	h := newHarness(t, true)
	s := h.u.traffic
	cert, key, err := h.core.Authority.NewTPP(pki.TPPRequestFor("UI TPP", "987654321", []string{pki.RoleAI, pki.RolePI}, 1, time.Now()), false)
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := httpsig.NewSigner(cert, key)
	body := []byte(`{"customerNumber":"4711","name":"Feil Signatur","type":"private"}`)
	req, _ := http.NewRequest("POST", h.core.URLs()[0]+"/v1/sandbox/customers?dryRun=false", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-ID", "signed")
	req.Header.Set("PSU-ID", "13039319955")
	req.Header.Set("TPP-Redirect-URI", "https://tpp.example/callback?state=af0ifjsldkj")
	if err := signer.SignRequest(req, body); err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Request-ID", "sent") // after signing: the signature step fails
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	h.u.catchUp()
	h.u.tabs.SelectIndex(5)
	s.table.Select(widget.TableCellID{Row: 0, Col: 0})
	if !strings.HasPrefix(s.top.String(), "POST /v1/sandbox/customers?dryRun=false answered 400 SIGNATURE_INVALID") {
		t.Fatalf("the verdict is %q", s.top.String())
	}

	shown := renderedTexts(s.explained)
	find := func(prefix string) shownText {
		t.Helper()
		for _, st := range shown {
			if strings.HasPrefix(st.text, prefix) {
				return st
			}
		}
		var texts []string
		for _, st := range shown {
			texts = append(texts, st.text)
		}
		t.Fatalf("the explanation shows no text that starts with %q:\n%s", prefix, strings.Join(texts, "\n"))
		return shownText{}
	}
	order := []shownText{
		find("POST /v1/sandbox/customers?dryRun=false answered 400 SIGNATURE_INVALID"),
		find("Refused at the signature step: the RSA signature does not verify"),
		find("Signing string the bank rebuilt"),
		find("(request-target): post /v1/sandbox/customers?dryRun=false"),
		find("x-request-id: sent"),
		find("tpp-redirect-uri: https://tpp.example/callback?state=af0ifjsldkj"),
		find("Signature check, step by step:"),
		find("1. certificate: ok"),
		find("10. signature: FAILED"),
	}
	for i := 1; i < len(order); i++ {
		if order[i].pos.Y <= order[i-1].pos.Y {
			t.Errorf("%q (y %v) is not below %q (y %v)", order[i].text, order[i].pos.Y, order[i-1].text, order[i-1].pos.Y)
		}
	}
	// The verdict and the signing string, to its last line, are in view.
	top := fyne.CurrentApp().Driver().AbsolutePositionForObject(s.explained).Y
	bottom := top + s.explained.Size().Height
	if last := order[5]; last.pos.Y < top || last.pos.Y+last.size.Height > bottom {
		t.Errorf("the signing string's last line spans y %v to %v, outside the view's %v to %v at 1280×800",
			last.pos.Y, last.pos.Y+last.size.Height, top, bottom)
	}
}

// New requests push the selected one down the table, and the selection
// follows it: the explanation stays the selected request's, and the new
// request now at the top can be selected.
func TestTraffic_SelectionFollowsItsRequest(t *testing.T) {
	h := newHarness(t, true)
	s := h.u.traffic
	h.send("POST", "/v1/sandbox/customers", []byte(`{"customerNumber":"1","name":"X","type":"private"}`), true)
	h.u.catchUp()
	s.table.Select(widget.TableCellID{Row: 0, Col: 3})
	if !strings.HasPrefix(s.top.String(), "POST /v1/sandbox/customers answered 400") {
		t.Fatalf("the explanation starts %q", s.top.String())
	}
	h.send("GET", "/v1/sandbox/clock", nil, false)
	h.u.catchUp()
	if !strings.HasPrefix(s.top.String(), "POST /v1/sandbox/customers answered 400") || s.cell(s.entries[s.shown[1]], 2) != "POST" {
		t.Fatalf("after a new request the explanation starts %q", s.top.String())
	}
	s.table.Select(widget.TableCellID{Row: 0, Col: 3})
	if !strings.HasPrefix(s.top.String(), "GET /v1/sandbox/clock answered 200") {
		t.Fatalf("the new request at the top, selected, is explained as %q", s.top.String())
	}
}
