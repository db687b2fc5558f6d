package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// TestServer_ResponseSigningSelect: the Server screen's select sets the
// responseSigning setting, which the next answer follows, and shows a
// change made through the operator API.
func TestServer_ResponseSigningSelect(t *testing.T) {
	h := newHarness(t, true)
	s := h.u.server
	b := &apptest.Bank{App: h.core, URL: h.core.URLs()[0], Path: h.core.DB.Path(), TB: t}
	tpp := b.NewTPP("933012867", 0, pki.RoleAI)
	algorithm := func() string {
		t.Helper()
		r := b.Do(tpp, "GET", "/v1/sandbox/customers", nil) // Send verifies the signature of the mode
		if r.Status != 200 {
			t.Fatalf("GET /v1/sandbox/customers: %d %s", r.Status, r.Body)
		}
		if r.Header.Get("Signature") == "" {
			return ""
		}
		p, err := httpsig.ParseSignature(r.Header.Get("Signature"))
		if err != nil {
			t.Fatal(err)
		}
		return p.Algorithm
	}
	if s.signing.Selected != bank.SigningRSA || algorithm() != httpsig.AlgorithmRSA {
		t.Fatalf("the screen shows %q", s.signing.Selected)
	}
	if len(s.signing.Options) != 3 {
		t.Fatalf("the select offers %v", s.signing.Options)
	}

	// Chosen from the select's list, as a person would.
	choose := func(mode string) {
		t.Helper()
		test.Tap(s.signing)
		c := h.u.win.Canvas()
		if c.Overlays().Top() == nil {
			t.Fatal("the select did not open its list")
		}
		test.TapCanvas(c, findMenuItem(t, c, mode))
	}
	choose(bank.SigningECDSA)
	if st, _ := h.core.Bank.Ops.Settings(); st.ResponseSigning != bank.SigningECDSA {
		t.Fatalf("the setting is %q after choosing ecdsa (form: %q)", st.ResponseSigning, s.settingsForm.general.Text)
	}
	if got := algorithm(); got != httpsig.AlgorithmECDSA {
		t.Fatalf("answers signed with %q after choosing ecdsa", got)
	}
	choose(bank.SigningOff)
	if got := algorithm(); got != "" {
		t.Fatalf("answers signed with %q after choosing off", got)
	}

	// A change through the API shows on the screen.
	r := b.Do(b.Operator(), "PATCH", "/v1/sandbox/settings", []byte(`{"responseSigning": "rsa"}`))
	if r.Status != 200 {
		t.Fatalf("PATCH: %d %s", r.Status, r.Body)
	}
	h.u.catchUp()
	if s.signing.Selected != bank.SigningRSA || algorithm() != httpsig.AlgorithmRSA {
		t.Fatalf("the screen shows %q after the API set rsa", s.signing.Selected)
	}
}

// findMenuItem returns where the item of the open pop-up menu that
// shows text is on the canvas.
func findMenuItem(t *testing.T, c fyne.Canvas, text string) fyne.Position {
	t.Helper()
	var found *canvas.Text
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if found != nil || !o.Visible() {
			return
		}
		switch v := o.(type) {
		case *canvas.Text:
			if v.Text == text {
				found = v
			}
		case *fyne.Container:
			for _, child := range v.Objects {
				walk(child)
			}
		case fyne.Widget:
			for _, child := range test.WidgetRenderer(v).Objects() {
				walk(child)
			}
		}
	}
	walk(c.Overlays().Top())
	if found == nil {
		t.Fatalf("the menu has no item %q", text)
	}
	return fyne.CurrentApp().Driver().AbsolutePositionForObject(found).Add(fyne.NewPos(1, found.Size().Height/2))
}
