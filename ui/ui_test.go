package ui

import (
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"sandbank/app"
	"sandbank/app/apptest"
	"sandbank/bank"
)

// harness is the UI over a real bank in a temp data file, driven headless
// by fyne's test driver.
type harness struct {
	t    *testing.T
	u    *UI
	core *app.App
	win  fyne.Window
}

// newHarness opens a bank (listening on 127.0.0.1:0 when serve is set) and
// builds the UI over it without the event goroutine: the test calls
// catchUp, on its own goroutine, where the real app would use fyne.Do.
func newHarness(t *testing.T, serve bool) *harness {
	t.Helper()
	t.Setenv("LANG", "en_US.UTF-8")
	a := testApp()
	cfg := app.Config{DataPath: apptest.DataFile(t), WatchScenarios: true}
	if serve {
		cfg.Addr = "127.0.0.1:0"
	}
	core, err := app.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if serve {
		if err := core.Start(); err != nil {
			t.Fatal(err)
		}
	}
	w := test.NewWindow(nil)
	u := newUI(a, w, core)
	w.SetContent(u.Content())
	w.Resize(fyne.NewSize(1280, 800))
	t.Cleanup(func() {
		u.Close()
		w.Close()
		if err := core.Close(); err != nil {
			t.Error(err)
		}
	})
	return &harness{t: t, u: u, core: core, win: w}
}

var (
	theAppOnce sync.Once
	theApp     fyne.App
)

// testApp returns the package's one test app, with its preferences and
// clipboard emptied. A new test app empties fyne's caches of font faces
// and text sizes, which take a test about two seconds under -race to fill
// again.
func testApp() fyne.App {
	theAppOnce.Do(func() { theApp = test.NewApp() })
	fyne.SetCurrentApp(theApp)
	theApp.Clipboard().SetContent("")
	for _, key := range []string{PrefAddr, PrefTLSAddr} {
		theApp.Preferences().RemoveValue(key)
	}
	return theApp
}

// modal returns the open modal, failing when there is none.
func (h *harness) modal() *modal {
	h.t.Helper()
	m := h.u.topModal()
	if m == nil {
		h.t.Fatal("no dialog is open")
	}
	return m
}

// field returns the input of the open modal's field with a label.
func (h *harness) field(label string) fyne.CanvasObject {
	h.t.Helper()
	for _, f := range h.modal().form.fields {
		if f.label == label {
			return f.input
		}
	}
	h.t.Fatalf("the dialog has no field %q", label)
	return nil
}

// typeInto replaces the text of the open modal's entry field, key by key.
func (h *harness) typeInto(label, text string) {
	h.t.Helper()
	e := h.field(label).(*entry)
	e.SetText("")
	test.Type(e, text)
}

// customer finds a customer by number through the bank service.
func (h *harness) customer(number string) (bank.CustomerDetail, bool) {
	list, err := h.core.Bank.Sandbox.Customers(true, true)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, c := range list {
		if c.Number == number {
			return c, true
		}
	}
	return bank.CustomerDetail{}, false
}

func listTexts(l *widget.List, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		o := l.CreateItem()
		l.UpdateItem(i, o)
		out = append(out, labelText(o))
	}
	return out
}

// labelText returns the text of a label or of the labels in a container.
func labelText(o fyne.CanvasObject) string {
	switch v := o.(type) {
	case *widget.Label:
		return v.Text
	case *fyne.Container:
		var parts []string
		for _, c := range v.Objects {
			parts = append(parts, labelText(c))
		}
		return strings.Join(parts, " | ")
	}
	return ""
}

func TestCustomers_CreateEditDelete(t *testing.T) {
	h := newHarness(t, false)
	s := h.u.customers
	if first, _ := h.customer("13039319955"); s.selected != first.ID {
		t.Fatal("the first customer is not selected at start")
	}
	// Create through the dialog; a bad number gets the bank's finding at the field.
	s.create()
	h.typeInto("Customer number", "12AB")
	h.typeInto("Name", "Kari Nordmann")
	test.Tap(h.modal().submit)
	if got := h.modal().form.errorText("customerNumber"); !strings.Contains(got, "digits") {
		t.Fatalf("the number field shows %q", got)
	}
	if _, ok := h.customer("12AB"); ok {
		t.Fatal("a refused customer was stored")
	}
	h.typeInto("Customer number", "01017012345")
	h.field("Type").(*widget.Select).SetSelected(bank.Corporate)
	e := h.field("Name").(*entry)
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) // Enter submits
	if h.u.topModal() != nil {
		t.Fatalf("the dialog stays open: %s", h.modal().form.general.Text)
	}
	c, ok := h.customer("01017012345")
	if !ok || c.Name != "Kari Nordmann" || c.Type != bank.Corporate {
		t.Fatalf("stored %+v %v", c, ok)
	}
	if s.selected != c.ID || s.name.Text != "Kari Nordmann" {
		t.Fatalf("the new customer is not selected: %q", s.name.Text)
	}
	// A duplicate number is refused with the bank's conflict message.
	s.create()
	h.typeInto("Customer number", "01017012345")
	h.typeInto("Name", "Other")
	test.Tap(h.modal().submit)
	if got := h.modal().form.errorText("customerNumber"); !strings.Contains(got, "already") {
		t.Fatalf("duplicate: %q", got)
	}
	h.modal().form.fields[0].input.(*entry).TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape}) // Escape closes
	if h.u.topModal() != nil {
		t.Fatal("Escape did not close the dialog")
	}
	// Rename in place.
	s.name.SetText("Kari Nordmann Hansen")
	test.Tap(s.saveName)
	if c, _ := h.customer("01017012345"); c.Name != "Kari Nordmann Hansen" {
		t.Fatalf("renamed to %q", c.Name)
	}
	s.name.SetText("")
	test.Tap(s.saveName)
	if got := s.nameForm.errorText("name"); !strings.Contains(got, "required") {
		t.Fatalf("an empty name shows %q", got)
	}
	// Search.
	s.search.SetText("nordmann")
	if len(s.shown) != 1 {
		t.Fatalf("search shows %d customers", len(s.shown))
	}
	s.search.SetText("1303931")
	if len(s.shown) != 1 || s.all[s.shown[0]].Number != "13039319955" {
		t.Fatalf("search by number: %v", s.shown)
	}
	s.search.SetText("")
	// Delete after confirmation; Cancel keeps it.
	s.selected = c.ID
	s.showDetail()
	test.Tap(s.deleteBtn)
	test.Tap(h.modal().cancel)
	if _, ok := h.customer("01017012345"); !ok {
		t.Fatal("Cancel deleted the customer")
	}
	test.Tap(s.deleteBtn)
	test.Tap(h.modal().submit)
	if _, ok := h.customer("01017012345"); ok {
		t.Fatal("the customer was not deleted")
	}
}

func TestCustomers_AgreementsAndEngagements(t *testing.T) {
	h := newHarness(t, false)
	s := h.u.customers
	firm, _ := h.customer("18129215603")
	s.selected = firm.ID
	s.showDetail()
	if s.newAgr.Disabled() {
		t.Fatal("New agreement is off for a corporate customer")
	}
	test.Tap(s.newAgr)
	h.typeInto("Name", "Regnskap")
	test.Tap(h.modal().submit)
	firm, _ = h.customer("18129215603")
	var agr bank.AgreementDetail
	for _, a := range firm.Agreements {
		if a.Name == "Regnskap" {
			agr = a
		}
	}
	if agr.ID == "" || s.agrSel != agr.ID {
		t.Fatalf("agreement not created or not selected: %+v", firm.Agreements)
	}
	// Add an engagement: a PSU, one of the owner's accounts, roles, limits.
	test.Tap(s.addEng)
	h.field("PSU").(*widget.Select).SetSelected("Test Testperson 2 (12085592767)")
	acct := h.field("Account").(*widget.Select)
	acct.SetSelected(acct.Options[1])
	h.field("Roles").(*widget.CheckGroup).SetSelected([]string{"VIEW", "REGISTER", "APPROVE"})
	h.typeInto("Register limit", "250 000")
	h.typeInto("Approval limit", "-5")
	test.Tap(h.modal().submit)
	if got := h.modal().form.errorText("approvalLimit"); !strings.Contains(got, "negative") {
		t.Fatalf("approval limit shows %q", got)
	}
	h.typeInto("Approval limit", "abc")
	test.Tap(h.modal().submit)
	if got := h.modal().form.errorText("approvalLimit"); !strings.Contains(got, "number") {
		t.Fatalf("approval limit shows %q", got)
	}
	h.typeInto("Approval limit", "50000,50")
	test.Tap(h.modal().submit)
	if h.u.topModal() != nil {
		t.Fatalf("engagement refused: %s", h.modal().form.general.Text)
	}
	if len(h.u.dialogs) != 0 {
		t.Fatalf("%d dialogs after an engagement without warnings", len(h.u.dialogs))
	}
	list, err := h.core.Bank.Sandbox.Engagements(agr.ID)
	if err != nil || len(list) != 1 || list[0].Customer.Number != "12085592767" || !list[0].ApprovalLimit.Equal(mustDecimal("50000.50")) || len(list[0].Roles) != 3 {
		t.Fatalf("engagements %+v %v", list, err)
	}
	// Limits left out are 0: added, with a dialog that says what 0 does.
	test.Tap(s.addEng)
	h.field("PSU").(*widget.Select).SetSelected("Test Testperson 1 (13039319955)")
	acct = h.field("Account").(*widget.Select)
	acct.SetSelected(acct.Options[1])
	h.typeInto("Register limit", "")
	h.typeInto("Approval limit", "")
	test.Tap(h.modal().submit)
	if h.u.topModal() != nil || len(h.u.dialogs) != 1 {
		t.Fatalf("%d dialogs after an engagement without limits; want the warnings", len(h.u.dialogs))
	}
	h.u.closeTop()
	if list, _ := h.core.Bank.Sandbox.Engagements(agr.ID); len(list) != 2 {
		t.Fatalf("engagements %+v", list)
	}
	s.engList.Select(1)
	test.Tap(s.delEng)
	test.Tap(h.modal().submit)
	if got := listTexts(s.engList, len(s.currentEngagements())); len(got) != 1 || !strings.Contains(got[0], "Test Testperson 2") {
		t.Fatalf("the engagement list shows %q", got)
	}
	// Delete the engagement, then the agreement.
	s.engList.Select(0)
	test.Tap(s.delEng)
	test.Tap(h.modal().submit)
	if list, _ := h.core.Bank.Sandbox.Engagements(agr.ID); len(list) != 0 {
		t.Fatal("engagement not deleted")
	}
	test.Tap(s.delAgr)
	test.Tap(h.modal().submit)
	if _, err := h.core.Bank.Sandbox.Agreement(agr.ID); err == nil {
		t.Fatal("agreement not deleted")
	}
	// A private agreement offers neither.
	person, _ := h.customer("13039319955")
	s.selected = person.ID
	s.showDetail()
	s.agreements.Select(0)
	if !s.delAgr.Disabled() || !s.addEng.Disabled() || !s.newAgr.Disabled() {
		t.Fatal("a private customer's agreement can be changed")
	}
}
