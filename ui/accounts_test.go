package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"sandbank/bank"
	"sandbank/bank/validate"
)

func TestAccounts_CreateEditDelete(t *testing.T) {
	h := newHarness(t, false)
	s := h.u.accounts
	s.ownerSel.SetSelected("Test Testperson 2 (12085592767)")
	if len(s.accounts) != 2 || len(s.cards) != 1 {
		t.Fatalf("Test Testperson 2 shows %d accounts and %d cards", len(s.accounts), len(s.cards))
	}
	// Create: a BBAN that gives no IBAN is refused at the field, then a
	// generated account number is accepted.
	test.Tap(widgetIn(t, s, "New account"))
	h.typeInto("Name", "Feriekonto")
	h.typeInto("BBAN", "1234567890")
	test.Tap(h.modal().submit)
	if got := h.modal().form.errorText("iban"); !strings.Contains(got, "11-digit") {
		t.Fatalf("iban shows %q", got)
	}
	test.Tap(h.modal().extra.(*widget.Button))
	bban, iban := h.field("BBAN").(*entry).Text, h.field("IBAN").(*entry).Text
	if validate.NorwegianBBAN(bban) != nil || validate.IBAN(iban) != nil {
		t.Fatalf("generated %s %s", bban, iban)
	}
	h.typeInto("Closing booked balance", "1500,50")
	h.typeInto("Expected balance", "1400")
	h.field("KID").(*widget.Check).SetChecked(true)
	test.Tap(h.modal().submit)
	if h.u.topModal() != nil {
		t.Fatalf("refused: %s", h.modal().form.general.Text)
	}
	var created bank.AccountDetail
	for _, a := range mustAccounts(t, h) {
		if a.BBAN == bban {
			created = a
		}
	}
	if created.ID == "" || created.Name != "Feriekonto" || !created.KIDRequired || created.Owner.Number != "12085592767" || !created.Balances.ClosingBooked.Equal(mustDecimal("1500.5")) {
		t.Fatalf("created %+v", created)
	}
	if s.selected != created.ID || s.acctName.Text != "Feriekonto" {
		t.Fatal("the new account is not selected")
	}
	// Edit in place.
	s.acctName.SetText("Feriepenger")
	s.acctType.SetSelected("SVGS")
	s.acctCredit.SetText("2500")
	s.acctKID.SetChecked(false)
	test.Tap(widgetIn(t, s.acctBox, "Save"))
	a, _ := h.core.Bank.Sandbox.Account(created.ID)
	if a.Name != "Feriepenger" || a.CashAccountType != "SVGS" || !a.CreditLine.Equal(mustDecimal("2500")) || a.KIDRequired {
		t.Fatalf("after edit %+v", a.Account)
	}
	s.acctName.SetText(strings.Repeat("x", 71))
	test.Tap(widgetIn(t, s.acctBox, "Save"))
	if got := s.acctForm.errorText("accountName"); !strings.Contains(got, "70") {
		t.Fatalf("a long name shows %q", got)
	}
	// Balances in place; a bad one is shown at its field.
	s.acctClosing.SetText("99.999")
	test.Tap(widgetIn(t, s.acctBox, "Save balances"))
	if got := s.acctBal.errorText("[0]"); !strings.Contains(got, "decimals") {
		t.Fatalf("closing balance shows %q", got)
	}
	s.acctClosing.SetText("99.99")
	test.Tap(widgetIn(t, s.acctBox, "Save balances"))
	if a, _ := h.core.Bank.Sandbox.Account(created.ID); !a.Balances.ClosingBooked.Equal(mustDecimal("99.99")) {
		t.Fatalf("closing booked %s", a.Balances.ClosingBooked)
	}
	// Delete after confirmation.
	test.Tap(widgetIn(t, s.acctBox, "Delete account"))
	test.Tap(h.modal().submit)
	if _, err := h.core.Bank.Sandbox.Account(created.ID); err == nil {
		t.Fatal("not deleted")
	}
}

func TestAccounts_CardAccounts(t *testing.T) {
	h := newHarness(t, false)
	s := h.u.accounts
	s.ownerSel.SetSelected("Testfirma 1 AS (18129215603)")
	test.Tap(widgetIn(t, s, "New card account"))
	h.typeInto("Masked PAN", "123")
	h.typeInto("Expiry", "2031-07")
	test.Tap(h.modal().submit)
	if got := h.modal().form.errorText("maskedPan"); !strings.Contains(got, "masked card number") {
		t.Fatalf("masked PAN shows %q", got)
	}
	h.typeInto("Masked PAN", "492500******9999")
	test.Tap(h.modal().submit)
	if h.u.topModal() != nil {
		t.Fatalf("refused: %s", h.modal().form.general.Text)
	}
	cards, _ := h.core.Bank.Sandbox.CardAccounts()
	var card bank.CardAccountDetail
	for _, c := range cards {
		if c.MaskedPan == "492500******9999" {
			card = c
		}
	}
	if card.ID == "" || card.Owner.Number != "18129215603" || card.Expiry != "2031-07" {
		t.Fatalf("card %+v", card)
	}
	s.cardStatus.SetSelected("blocked")
	s.cardLimit.SetText("75000")
	test.Tap(widgetIn(t, s.cardBox, "Save"))
	c, _ := h.core.Bank.Sandbox.CardAccount(card.ID)
	if c.Status != "blocked" || !c.CreditLimit.Equal(mustDecimal("75000")) {
		t.Fatalf("after edit %+v", c.CardAccount)
	}
	s.cardExpect.SetText("-120.50")
	test.Tap(widgetIn(t, s.cardBox, "Save balances"))
	if c, _ := h.core.Bank.Sandbox.CardAccount(card.ID); !c.Balances.Expected.Equal(mustDecimal("-120.5")) {
		t.Fatalf("expected %s", c.Balances.Expected)
	}
	test.Tap(widgetIn(t, s.cardBox, "Delete card account"))
	test.Tap(h.modal().submit)
	if _, err := h.core.Bank.Sandbox.CardAccount(card.ID); err == nil {
		t.Fatal("not deleted")
	}
}

// create taps a button that opens a form, types into its fields (label,
// text, ...) and submits it, which must close it.
func (h *harness) create(button *widget.Button, fields ...string) {
	h.t.Helper()
	test.Tap(button)
	for i := 0; i+1 < len(fields); i += 2 {
		h.typeInto(fields[i], fields[i+1])
	}
	test.Tap(h.modal().submit)
	if h.u.topModal() != nil {
		h.t.Fatalf("refused: %s", h.modal().form.general.Text)
	}
}

func mustAccounts(t *testing.T, h *harness) []bank.AccountDetail {
	t.Helper()
	list, err := h.core.Bank.Sandbox.Accounts()
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// What the bank takes with a warning is saved, and the form shows the
// warning after saving.
func TestAccounts_WarningsShowAfterSaving(t *testing.T) {
	h := newHarness(t, false)
	s := h.u.accounts
	s.ownerSel.SetSelected("Test Testperson 2 (12085592767)")
	h.create(widgetIn(t, s, "New account"), "Name", "Seeded", "BBAN", "12345678904")
	a, ok := s.account()
	if !ok || a.BBAN != "12345678904" || a.IBAN != "NO4412345678904" {
		t.Fatalf("selected %+v", a)
	}
	if got := s.acctForm.general.Text; !strings.Contains(got, "warning") || !strings.Contains(got, "MOD11") || !strings.Contains(got, "payments to or from this account are refused") {
		t.Fatalf("the account form shows %q", got)
	}

	h.create(widgetIn(t, s, "New card account"), "Masked PAN", "492500xxxxxx9999", "Expiry", "2031-07-31")
	c, ok := s.card()
	if !ok || c.MaskedPan != "492500xxxxxx9999" || c.Expiry != "2031-07-31" {
		t.Fatalf("selected %+v", c)
	}
	if got := s.cardForm.errorText("expiry"); !strings.Contains(got, "YYYY-MM") {
		t.Fatalf("expiry shows %q", got)
	}
	if got := s.cardForm.general.Text; !strings.Contains(got, "masked with x") {
		t.Fatalf("the card form shows %q", got)
	}
	// Saving again shows what is still odd, and only that.
	s.cardExpiry.SetText("2031-08")
	test.Tap(widgetIn(t, s.cardBox, "Save"))
	if got := s.cardForm.errorText("expiry"); got != "" {
		t.Fatalf("expiry shows %q after a month was saved", got)
	}
	if c, _ := h.core.Bank.Sandbox.CardAccount(c.ID); c.Expiry != "2031-08" {
		t.Fatalf("expiry %q", c.Expiry)
	}
}
