package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/shopspring/decimal"

	"sandbank/bank"
)

// The window shows the customer type, the cash account type and the
// engagement roles as a seeding tool wrote them, keeps them when a form
// is saved, and applies the rules that depend on them whatever their case.
func TestWindow_EnumerationsShowAsWritten(t *testing.T) {
	h := newHarness(t, false)
	sb := h.core.Bank.Sandbox
	zero := bank.NumberOf(decimal.Zero)
	person, err := sb.CreateCustomer(bank.NewCustomer{CustomerNumber: "01078900497", Name: "Test Testperson 1", Type: "private"})
	if err != nil {
		t.Fatal(err)
	}
	firm, err := sb.CreateCustomer(bank.NewCustomer{CustomerNumber: "923609016", Name: "Seeding Firma AS", Type: "Corporate"})
	if err != nil {
		t.Fatal(err)
	}
	savings, err := sb.CreateAccount(bank.NewAccount{CustomerNumber: person.Number, AccountName: "Sparing", BBAN: "15030567894", Currency: "NOK",
		Product: "Sparekonto", CashAccountType: "svgs", CreditLine: zero, Balances: []bank.BalanceInput{}})
	if err != nil {
		t.Fatal(err)
	}
	current, err := sb.CreateAccount(bank.NewAccount{CustomerNumber: person.Number, AccountName: "Bruk", BBAN: "15030789013", Currency: "NOK",
		Product: "Brukskonto", CashAccountType: "TAXE", CreditLine: zero, Balances: []bank.BalanceInput{}})
	if err != nil {
		t.Fatal(err)
	}
	h.u.catchUp()

	// The customers screen: the list and the title write the type as
	// written, and a corporate customer of any case may have agreements.
	s := h.u.customers
	labels := strings.Join(listTexts(s.list, len(s.shown)), "\n")
	for _, want := range []string{"Test Testperson 1 (01078900497, private)", "Seeding Firma AS (923609016, Corporate)", "Testfirma 1 AS (18129215603, CORPORATE)"} {
		if !strings.Contains(labels, want) {
			t.Errorf("the customer list lacks %q:\n%s", want, labels)
		}
	}
	s.selected = firm.ID
	s.showDetail()
	if !strings.Contains(s.title.Text, ", Corporate, ") || s.newAgr.Disabled() {
		t.Fatalf("title %q, New agreement disabled %v; want the type as written and agreements allowed", s.title.Text, s.newAgr.Disabled())
	}
	s.selected = person.ID
	s.showDetail()
	if !strings.Contains(s.title.Text, ", private, ") || !s.newAgr.Disabled() {
		t.Fatalf("title %q, New agreement disabled %v; want private and no agreement", s.title.Text, s.newAgr.Disabled())
	}

	// The accounts screen: the cash account type shows as written, each
	// account its own, and saving the form writes it back unchanged.
	a := h.u.accounts
	a.ownerSel.SetSelected("Test Testperson 1 (01078900497)")
	for _, c := range []struct {
		id, want string
	}{{savings.ID, "svgs"}, {current.ID, "TAXE"}, {savings.ID, "svgs"}} {
		a.selected = c.id
		a.showDetail()
		if a.acctType.Selected != c.want {
			t.Fatalf("account %s shows cash account type %q; want %q as written", c.id, a.acctType.Selected, c.want)
		}
	}
	a.acctName.SetText("Sparing og BSU")
	test.Tap(widgetIn(t, a.acctBox, "Save"))
	if got, err := sb.Account(savings.ID); err != nil || got.CashAccountType != "svgs" || got.Name != "Sparing og BSU" {
		t.Fatalf("after saving: %+v, %v", got.Account, err)
	}
	// Another type picked in the window is written as the window offers it.
	a.acctType.SetSelected("CACC")
	test.Tap(widgetIn(t, a.acctBox, "Save"))
	if got, _ := sb.Account(savings.ID); got.CashAccountType != "CACC" {
		t.Fatalf("picked CACC, stored %q", got.CashAccountType)
	}
}
