package ui

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"sandbank/bank"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// call sends a signed request as the test TPP with headers ("Name: value")
// and returns the status and body.
func (h *harness) call(method, path string, headers ...string) (int, []byte) {
	h.t.Helper()
	cert, key, err := h.core.Authority.NewTPP(pki.TPPRequestFor("UI TPP", "987654321", []string{pki.RoleAI, pki.RolePI}, 1, time.Now()), false)
	if err != nil {
		h.t.Fatal(err)
	}
	signer, _ := httpsig.NewSigner(cert, key)
	req, _ := http.NewRequest(method, h.core.URLs()[0]+path, nil)
	req.Header.Set("X-Request-ID", "ui-test")
	for _, hv := range headers {
		name, value, _ := strings.Cut(hv, ":")
		req.Header.Set(name, strings.TrimSpace(value))
	}
	if err := signer.SignRequest(req, nil); err != nil {
		h.t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

// startSCA starts a consent SCA and returns its authorisation id.
func (h *harness) startSCA(session string) string {
	h.t.Helper()
	status, body := h.call("POST", "/v1/consents", "TPP-Redirect-URI: https://tpp.example/cb", "TPP-Session-ID: "+session)
	var started struct {
		AuthorisationID string `json:"authorisationId"`
	}
	if err := json.Unmarshal(body, &started); status != 201 || err != nil {
		h.t.Fatalf("start SCA: %d %s", status, body)
	}
	return started.AuthorisationID
}

func TestConsents_GrantsSessionsAuthorisationsAndTraffic(t *testing.T) {
	h := newHarness(t, true)
	s := h.u.consents
	const tpp = "NO-FSA-987654321"

	// A PSU grants one account; the TPP reads it; another SCA stays open.
	id := h.startSCA("ui-1")
	redirect, err := h.core.Bank.PSD2.AutomatedSCA(tpp, id, bank.AutoSCA{NationalID: "13039319955", Decision: "approve", Accounts: []string{"enc!!BMqoT2eLQOgt-DAQsuGXRQ"}})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(redirect)
	psuID := u.Query().Get("psu-id")
	if status, body := h.call("GET", "/v1/accounts", "PSU-ID: "+psuID, "TPP-Session-ID: ui-1", "PSU-IP-Address: 192.0.2.1"); status != 200 {
		t.Fatalf("accounts: %d %s", status, body)
	}
	open := h.startSCA("ui-2")
	h.u.catchUp()

	if len(s.data.Grants) != 1 || len(s.data.Sessions) != 1 || len(s.data.Authorisations) != 1 {
		t.Fatalf("%d grants, %d sessions, %d open authorisations", len(s.data.Grants), len(s.data.Sessions), len(s.data.Authorisations))
	}
	row := []string{}
	for col := range grantColumns {
		row = append(row, s.grantCell(0, col))
	}
	if row[0] != tpp || row[1] != "Test Testperson 1 (13039319955)" || row[2] != "Private" || !strings.Contains(row[3], "NO3815030123457") || row[6] != "active" {
		t.Fatalf("grant row %q", row)
	}
	if s.sessionCell(0, 2) != "ui-1" || s.sessionCell(0, 4) != "valid" {
		t.Fatalf("session row %q %q", s.sessionCell(0, 2), s.sessionCell(0, 4))
	}
	if s.authCell(0, 2) != bank.ScaReceived || s.authCell(0, 3) != "not yet identified" {
		t.Fatalf("authorisation row %q %q", s.authCell(0, 2), s.authCell(0, 3))
	}

	// Its SCA page opens in the browser.
	var opened *url.URL
	h.u.openURL = func(u *url.URL) error { opened = u; return nil }
	if !s.openBtn.Disabled() {
		t.Fatal("open is enabled before an authorisation is selected")
	}
	s.auths.Select(widget.TableCellID{Row: 0, Col: 0})
	test.Tap(s.openBtn)
	if opened == nil || !strings.HasPrefix(opened.String(), h.core.URLs()[0]+"/sca/"+open+"/") || len(opened.Path) < len("/sca/"+open+"/")+20 {
		t.Fatalf("opened %v, want the page with its secret", opened)
	}
	resp, err := http.Get(opened.String())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "National identity number") {
		t.Fatalf("the SCA page: %d", resp.StatusCode)
	}

	// The traffic row of the accounts request links to its grant.
	h.u.tabs.SelectIndex(5)
	tr := h.u.traffic
	found := -1
	for i, idx := range tr.shown {
		if strings.HasPrefix(tr.entries[idx].Path, "/v1/accounts") {
			found = i
		}
	}
	if found < 0 {
		t.Fatal("the accounts request is not in the traffic")
	}
	if cell := tr.cell(tr.entries[tr.shown[found]], 7); !strings.Contains(cell, "Test Testperson 1") || !strings.Contains(cell, s.data.Grants[0].ID) {
		t.Fatalf("PSU and grant column %q", cell)
	}
	tr.table.Select(widget.TableCellID{Row: found, Col: 0})
	if tr.grantBtn.Disabled() {
		t.Fatal("the grant link is disabled")
	}
	test.Tap(tr.grantBtn)
	if h.u.tabs.Selected() != h.u.consentsTab || s.grant != s.data.Grants[0].ID || !strings.Contains(s.detail.Text, psuID) {
		t.Fatalf("the grant link showed %q: %s", s.grant, s.detail.Text)
	}

	// Revoke it: the TPP's next request needs a new SCA.
	test.Tap(s.revokeBtn)
	test.Tap(h.modal().submit)
	if len(s.data.Grants) != 0 {
		t.Fatalf("%d grants after revoking", len(s.data.Grants))
	}
	status, body := h.call("GET", "/v1/accounts", "PSU-ID: "+psuID, "TPP-Session-ID: ui-1", "PSU-IP-Address: 192.0.2.1", "TPP-Redirect-URI: https://tpp.example/cb")
	if status != 401 || !strings.Contains(string(body), "CONSENT_INVALID") {
		t.Fatalf("after revoking: %d %s", status, body)
	}
	h.u.catchUp()
	if len(s.data.Authorisations) != 2 {
		t.Fatalf("the 401 should have started a fresh SCA: %d open", len(s.data.Authorisations))
	}
	// The grant link of the old request now says the grant is gone.
	h.u.tabs.SelectIndex(5)
	test.Tap(tr.grantBtn)
	if h.u.topModal() != nil || len(h.u.dialogs) != 1 {
		t.Fatalf("no notice that the grant is gone")
	}
}

func TestServer_ClockAndLegacyDate(t *testing.T) {
	h := newHarness(t, false)
	s := h.u.server
	if !strings.Contains(s.clockNow.Text, "the real clock") {
		t.Fatalf("clock %q", s.clockNow.Text)
	}
	for _, bad := range []string{"abc", "0", "1.5", "99999"} {
		s.jumpDays.SetText(bad)
		s.jump()
		if s.clockForm.errorText("days") == "" {
			t.Errorf("jump by %q: no error at the field", bad)
		}
	}
	if c := h.core.Bank.Ops.Clock(); c.OffsetSeconds != 0 {
		t.Fatalf("a refused jump moved the clock by %d s", c.OffsetSeconds)
	}
	s.jumpDays.SetText("181")
	test.Tap(widgetIn(t, h.u.tabs, "Jump"))
	if c := h.core.Bank.Ops.Clock(); c.OffsetSeconds != 181*86400 {
		t.Fatalf("offset %d after jumping 181 days", c.OffsetSeconds)
	}
	if !strings.Contains(s.clockNow.Text, "+181 d 0 h") {
		t.Fatalf("clock %q", s.clockNow.Text)
	}
	s.jumpDays.SetText("-1")
	s.jump()
	if c := h.core.Bank.Ops.Clock(); c.OffsetSeconds != 180*86400 {
		t.Fatalf("offset %d after going back a day", c.OffsetSeconds)
	}
	h.u.catchUp()
	if !strings.Contains(h.u.consents.clock.Text, "+180 d") {
		t.Fatalf("the consents screen shows %q", h.u.consents.clock.Text)
	}
	test.Tap(widgetIn(t, h.u.tabs, "Back to the real clock"))
	if c := h.core.Bank.Ops.Clock(); c.OffsetSeconds != 0 {
		t.Fatalf("offset %d after going back to the real clock", c.OffsetSeconds)
	}

	for _, bad := range []string{"2017-12-31", "2024-02-30", "yesterday"} {
		s.legacyDate.SetText(bad)
		s.saveLegacy()
		if s.legacyForm.errorText("legacyDate") == "" {
			t.Errorf("legacy date %q: no error", bad)
		}
	}
	s.legacyDate.SetText("2024-01-01")
	s.saveLegacy()
	if st, _ := h.core.Bank.Ops.Settings(); st.LegacyDate.String() != "2024-01-01" {
		t.Fatalf("legacy date %v", st.LegacyDate)
	}
	if f := h.core.Bank.PSD2.FixesFor(""); f[bank.FixLongerNames] || !f[bank.FixAmountAsString] {
		t.Fatalf("fixes as of 2024-01-01: %v", f)
	}
	s.legacyDate.SetText("")
	s.saveLegacy()
	if st, _ := h.core.Bank.Ops.Settings(); !st.LegacyDate.IsZero() {
		t.Fatalf("legacy date not cleared: %v", st.LegacyDate)
	}
}
