package ui

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/pki"
)

func TestServer_SettingsStartStopCertificates(t *testing.T) {
	h := newHarness(t, true)
	s := h.u.server
	if !strings.Contains(s.status.Text, "Serving") || s.startBtn.Disabled() == false {
		t.Fatalf("status %q", s.status.Text)
	}
	// Settings apply to the bank at once.
	s.trust.SetSelected(bank.TrustStore)
	s.requireSig.SetChecked(false)
	test.Tap(s.strict)
	st, _ := h.core.Bank.Ops.Settings()
	if st.TrustMode != bank.TrustStore || st.RequireSignature || !st.Strict || !h.core.Bank.Ops.Strict() {
		t.Fatalf("settings %+v", st)
	}
	test.Tap(s.strict)
	resp, err := http.Get(h.core.URLs()[0] + "/v1/sandbox/customers?x=1")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 400 { // no X-Request-ID; but no signature needed any more
		t.Fatalf("unsigned request: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", h.core.URLs()[0]+"/v1/sandbox/customers", nil)
	req.Header.Set("X-Request-ID", "unsigned")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("an unsigned request with requireSignature off: %d", resp.StatusCode)
	}
	// A change from elsewhere shows here.
	if _, err := h.core.Bank.Ops.UpdateSettings(func(st *bank.Settings) { st.TrustMode, st.RequireSignature, st.Strict = bank.TrustAny, true, true }); err != nil {
		t.Fatal(err)
	}
	h.u.catchUp()
	if s.trust.Selected != bank.TrustAny || !s.requireSig.Checked || !s.strict.Checked {
		t.Fatalf("the screen shows %s %v %v", s.trust.Selected, s.requireSig.Checked, s.strict.Checked)
	}
	// Stop and start on other addresses; a bad one is shown at its field.
	test.Tap(s.stopBtn)
	if h.core.Running() || !strings.Contains(s.status.Text, "Stopped") {
		t.Fatal("stop")
	}
	s.addr.SetText("not an address")
	s.tlsAddr.SetText("")
	test.Tap(s.startBtn)
	if h.core.Running() || !strings.Contains(s.listenForm.general.Text, "listen") {
		t.Fatalf("a bad address: running %v, %q", h.core.Running(), s.listenForm.general.Text)
	}
	// A busy address is named; the other listener serves, and the
	// addresses are not remembered.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busy.Close() }()
	s.addr.SetText(busy.Addr().String())
	s.tlsAddr.SetText("127.0.0.1:0")
	test.Tap(s.startBtn)
	if urls := h.core.URLs(); len(urls) != 1 || !strings.HasPrefix(urls[0], "https://") || !strings.Contains(s.status.Text, "Serving") ||
		!strings.Contains(s.listenForm.general.Text, busy.Addr().String()) || !strings.Contains(s.listenForm.general.Text, "already in use") {
		t.Fatalf("a busy HTTP address: URLs %v, status %q, form %q", urls, s.status.Text, s.listenForm.general.Text)
	}
	if h.u.app.Preferences().String(PrefAddr) == busy.Addr().String() {
		t.Fatal("a busy address is remembered")
	}
	test.Tap(s.stopBtn)
	s.addr.SetText("127.0.0.1:0")
	s.tlsAddr.SetText("127.0.0.1:0")
	test.Tap(s.startBtn)
	if urls := h.core.URLs(); len(urls) != 2 || len(s.urls.Objects) != 3 || s.listenForm.general.Visible() {
		t.Fatalf("URLs %v", urls)
	}
	// The last row is the OpenAPI document, with its own copy button.
	doc := s.urls.Objects[2].(*fyne.Container)
	test.Tap(doc.Objects[1].(*widget.Button))
	if got := h.u.app.Clipboard().Content(); got != h.core.URLs()[0]+"/v1/openapi.json" || !strings.Contains(doc.Objects[0].(*widget.Label).Text, "OpenAPI 3.1") {
		t.Fatalf("the document's row: %q", got)
	}
	if h.u.app.Preferences().String(PrefAddr) != "127.0.0.1:0" {
		t.Fatal("the addresses are not remembered")
	}
	// Copy the CA; issue a TPP certificate into a folder.
	test.Tap(widgetIn(t, h.u.tabs, "Copy the CA certificate"))
	if ca, err := pki.DecodeCert([]byte(h.u.app.Clipboard().Content())); err != nil || !ca.IsCA {
		t.Fatalf("clipboard: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "certs")
	s.certDir.SetText(dir)
	s.certOrg.SetText("12x")
	test.Tap(widgetIn(t, h.u.tabs, "Issue"))
	if !strings.Contains(s.certForm.general.Text, "org") {
		t.Fatalf("a bad org number shows %q", s.certForm.general.Text)
	}
	s.certOrg.SetText("955555555")
	s.certRole.SetSelected([]string{pki.RolePI})
	test.Tap(widgetIn(t, h.u.tabs, "Issue"))
	data, err := os.ReadFile(filepath.Join(dir, "cert.pem"))
	if err != nil {
		t.Fatalf("%v; output %q, form %q", err, s.certOut.Text, s.certForm.general.Text)
	}
	cert, _ := pki.DecodeCert(data)
	roles, _, _ := pki.PSD2Roles(cert)
	if pki.TPPID(cert) != "NO-FSA-955555555" || len(roles) != 1 || roles[0] != pki.RolePI || time.Until(cert.NotAfter) < 700*24*time.Hour {
		t.Fatalf("issued %s %v %s", pki.TPPID(cert), roles, cert.NotAfter)
	}
	if info, _ := os.Stat(filepath.Join(dir, "key.pem")); info.Mode().Perm() != 0o600 {
		t.Fatalf("key.pem mode %v", info.Mode())
	}
	if h.core.Authority.IsOperator(cert) {
		t.Fatal("a TPP certificate of the screen is the operator's")
	}
	// An operator certificate, when asked for.
	test.Tap(s.certOp)
	test.Tap(widgetIn(t, h.u.tabs, "Issue"))
	data, _ = os.ReadFile(filepath.Join(dir, "cert.pem"))
	if cert, _ = pki.DecodeCert(data); cert == nil || !h.core.Authority.IsOperator(cert) || !strings.Contains(s.certOut.Text, "operator certificate") {
		t.Fatalf("the operator certificate: %q", s.certOut.Text)
	}
	// Operator access: every TPP may be the operator, by choice.
	s.operatorAccess.SetSelected(bank.OperatorAnyTPP)
	if st, _ := h.core.Bank.Ops.Settings(); st.OperatorAccess != bank.OperatorAnyTPP || !h.core.Bank.Ops.AnyTPPIsOperator() {
		t.Fatalf("operator access any-tpp: %+v", st)
	}
	s.operatorAccess.SetSelected(bank.OperatorOnly)
	if h.core.Bank.Ops.AnyTPPIsOperator() {
		t.Fatal("operator access is any-tpp still")
	}
}

func TestServer_ResetToKnownState(t *testing.T) {
	h := newHarness(t, false)
	if _, err := h.core.Bank.Sandbox.CreateCustomer(bank.NewCustomer{CustomerNumber: "424242", Name: "Temp", Type: "private"}); err != nil {
		t.Fatal(err)
	}
	test.Tap(widgetIn(t, h.u.tabs, "Reset to the known state…"))
	test.Tap(h.modal().cancel)
	if _, ok := h.customer("424242"); !ok {
		t.Fatal("Cancel reset the data")
	}
	test.Tap(widgetIn(t, h.u.tabs, "Reset to the known state…"))
	test.Tap(h.modal().submit)
	h.u.work.Wait()
	if _, ok := h.customer("424242"); ok {
		t.Fatal("the reset kept a manual customer")
	}
	h.u.catchUp()
	if len(h.u.customers.all) != 4 {
		t.Fatalf("the customers screen shows %d customers after the reset", len(h.u.customers.all))
	}
}

// The Server screen and GET, PUT and PATCH /v1/sandbox/settings are one
// set of settings with one set of rules: a change through the API shows on
// the screen, a change on the screen reads back through the API, and a
// value the screen refuses the API refuses with the same words.
func TestServer_SettingsAgreeWithTheAPI(t *testing.T) {
	h := newHarness(t, true)
	s := h.u.server
	b := &apptest.Bank{App: h.core, URL: h.core.URLs()[0], Path: h.core.DB.Path(), TB: t}
	read := func() map[string]any {
		t.Helper()
		r := b.Do(b.Operator(), "GET", "/v1/sandbox/settings", nil)
		if r.Status != 200 {
			t.Fatalf("GET /v1/sandbox/settings: %d %s", r.Status, r.Body)
		}
		var out map[string]any
		r.JSON(t, &out)
		return out
	}

	// Through the API, then on the screen.
	r := b.Do(b.Operator(), "PATCH", "/v1/sandbox/settings", []byte(`{"batchMode": "immediate", "fxRates": {"BHD": "28.70"}, "legacyDate": "2020-07-31", "requestLog": {"maxCount": 50}, "strict": true}`))
	if r.Status != 200 {
		t.Fatalf("PATCH: %d %s", r.Status, r.Body)
	}
	h.u.catchUp()
	if s.batchMode.Selected != bank.BatchImmediate || !strings.Contains(s.fx.Text, "BHD 28.7") || s.legacyDate.Text != "2020-07-31" || s.logCount.Text != "50" || !s.strict.Checked {
		t.Fatalf("the screen shows batch mode %q, rates %q, legacy date %q, log %q, strict %v", s.batchMode.Selected, s.fx.Text, s.legacyDate.Text, s.logCount.Text, s.strict.Checked)
	}
	if !strings.Contains(h.u.traffic.count.Text, "the last 50 are kept") {
		t.Fatalf("the Traffic screen says %q", h.u.traffic.count.Text)
	}

	// On the screen, then through the API.
	s.retryDays.SetText("7")
	s.exemption.SetSelected(bank.ExemptOwnAccounts)
	test.Tap(s.paySave)
	test.Tap(s.strict)
	s.legacyDate.SetText("")
	test.Tap(widgetIn(t, h.u.tabs, "Apply"))
	got := read()
	if got["coverRetryDays"] != 7.0 || got["exemptionPolicy"] != bank.ExemptOwnAccounts || got["strict"] != false || got["legacyDate"] != nil ||
		got["batchMode"] != bank.BatchImmediate || got["fxRates"].(map[string]any)["BHD"] != "28.7" {
		t.Fatalf("GET after the screen's changes: %v (form: %q)", got, s.payForm.general.Text)
	}

	// One rule: the screen's finding is the API's.
	before := b.FileSum()
	s.batchTimes.SetText("06:00, 25:00")
	test.Tap(s.paySave)
	onScreen := s.payForm.errorText("batchTimes")
	r = b.Do(b.Operator(), "PATCH", "/v1/sandbox/settings", map[string]any{"batchTimes": []string{"06:00", "25:00"}})
	e := r.Err(t)
	if r.Status != 400 || len(e.TPPMessages) != 1 || e.TPPMessages[0].Path != "batchTimes[1]" || onScreen != e.TPPMessages[0].Text {
		t.Fatalf("the screen says %q; the API %d %s", onScreen, r.Status, r.Body)
	}
	if b.FileSum() != before {
		t.Fatal("a refused change changed the data file")
	}
}
