package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

// accountsScreen lists a customer's accounts and card accounts and edits
// them.
type accountsScreen struct {
	u *UI

	customers []bank.CustomerDetail
	owner     string // selected customer id
	accounts  []bank.AccountDetail
	cards     []bank.CardAccountDetail
	selected  string // selected account or card account id

	ownerSel *widget.Select
	list     *widget.List
	detail   *fyne.Container

	// account editor
	acctInfo    *widget.Label
	acctForm    *form
	acctName    *entry
	acctProduct *entry
	acctType    *widget.Select
	acctCredit  *entry
	acctKID     *widget.Check
	acctStatus  *widget.Select
	acctBal     *form
	acctClosing *entry
	acctExpect  *entry
	acctAvail   *widget.Label
	acctBox     fyne.CanvasObject

	// card editor
	cardInfo    *widget.Label
	cardForm    *form
	cardName    *entry
	cardProduct *entry
	cardLimit   *entry
	cardExpiry  *entry
	cardStatus  *widget.Select
	cardBal     *form
	cardClosing *entry
	cardExpect  *entry
	cardBox     fyne.CanvasObject

	empty fyne.CanvasObject
}

func newAccountsScreen(u *UI) *accountsScreen { return &accountsScreen{u: u} }

func (s *accountsScreen) build() fyne.CanvasObject {
	s.ownerSel = widget.NewSelect(nil, func(label string) {
		for _, c := range s.customers {
			if customerLabel(c.Customer) == label && c.ID != s.owner {
				s.owner, s.selected = c.ID, ""
				s.loadOwner()
			}
		}
	})
	s.ownerSel.PlaceHolder = "Choose a customer"
	s.list = widget.NewList(
		func() int { return len(s.accounts) + len(s.cards) },
		func() fyne.CanvasObject { return widget.NewLabel("template account name NO0000000000000 NOK") },
		func(i widget.ListItemID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(s.itemLabel(i))
		})
	s.list.OnSelected = func(i widget.ListItemID) {
		s.selected = s.itemID(i)
		s.showDetail()
	}
	newAcct := widget.NewButtonWithIcon("New account", theme.ContentAddIcon(), s.createAccount)
	newCard := widget.NewButtonWithIcon("New card account", theme.ContentAddIcon(), s.createCard)
	top := container.NewBorder(nil, nil, widget.NewLabel("Customer"), container.NewHBox(newAcct, newCard), s.ownerSel)

	s.buildAccountEditor()
	s.buildCardEditor()
	s.empty = widget.NewLabel("Select an account or card account")
	s.detail = container.NewStack(s.empty)
	s.reload()
	split := container.NewHSplit(s.list, container.NewVScroll(s.detail))
	split.Offset = 0.35
	return container.NewBorder(top, nil, nil, nil, split)
}

func (s *accountsScreen) itemLabel(i int) string {
	if i < len(s.accounts) {
		a := s.accounts[i]
		return fmt.Sprintf("%s %s %s", a.Name, a.IBAN, a.Currency)
	}
	c := s.cards[i-len(s.accounts)]
	return fmt.Sprintf("Card: %s %s %s", c.Name, c.MaskedPan, c.Currency)
}

func (s *accountsScreen) itemID(i int) string {
	if i < len(s.accounts) {
		return s.accounts[i].ID
	}
	return s.cards[i-len(s.accounts)].ID
}

func (s *accountsScreen) buildAccountEditor() {
	s.acctInfo = helpText("")
	s.acctForm = newForm(s.saveAccount)
	s.acctName = s.acctForm.text("Name", "accountName", "", "")
	s.acctProduct = s.acctForm.text("Product", "product", "", "")
	s.acctType = widget.NewSelect(bank.CashAccountTypes, nil)
	s.acctForm.add("Cash account type", "cashAccountType", s.acctType)
	s.acctCredit = s.acctForm.text("Credit line", "creditLine", "", "")
	s.acctKID = widget.NewCheck("KID required for payments to this account", nil)
	s.acctForm.add("KID", "kidRequired", s.acctKID)
	s.acctStatus = widget.NewSelect(bank.Statuses, nil)
	s.acctForm.add("Status", "status", s.acctStatus)
	s.acctBal = newForm(s.saveAccountBalances)
	s.acctClosing = s.acctBal.text("Closing booked", "[0]", "", "")
	s.acctExpect = s.acctBal.text("Expected", "[1]", "", "")
	s.acctAvail = widget.NewLabel("")
	del := widget.NewButtonWithIcon("Delete account", theme.DeleteIcon(), s.deleteSelected)
	del.Importance = widget.DangerImportance
	s.acctBox = container.NewVBox(
		s.acctInfo, s.acctForm.object(), container.NewHBox(widget.NewButton("Save", s.saveAccount), del),
		widget.NewSeparator(), heading("Balances"),
		s.acctBal.object(), s.acctAvail, container.NewHBox(widget.NewButton("Save balances", s.saveAccountBalances)))
}

func (s *accountsScreen) buildCardEditor() {
	s.cardInfo = helpText("")
	s.cardForm = newForm(s.saveCard)
	s.cardName = s.cardForm.text("Name", "name", "", "")
	s.cardProduct = s.cardForm.text("Product", "product", "", "")
	s.cardLimit = s.cardForm.text("Credit limit", "creditLimit", "", "")
	s.cardExpiry = s.cardForm.text("Expiry", "expiry", "", "YYYY-MM")
	s.cardStatus = widget.NewSelect(bank.Statuses, nil)
	s.cardForm.add("Status", "status", s.cardStatus)
	s.cardBal = newForm(s.saveCardBalances)
	s.cardClosing = s.cardBal.text("Closing booked", "[0]", "", "")
	s.cardExpect = s.cardBal.text("Expected", "[1]", "", "")
	del := widget.NewButtonWithIcon("Delete card account", theme.DeleteIcon(), s.deleteSelected)
	del.Importance = widget.DangerImportance
	s.cardBox = container.NewVBox(
		s.cardInfo, s.cardForm.object(), container.NewHBox(widget.NewButton("Save", s.saveCard), del),
		widget.NewSeparator(), heading("Balances"),
		s.cardBal.object(), container.NewHBox(widget.NewButton("Save balances", s.saveCardBalances)))
}

// reload reads customers and the selected customer's accounts again.
func (s *accountsScreen) reload() {
	list, err := s.u.sandbox.Customers(true, false)
	if err != nil {
		s.u.showError(err)
		return
	}
	s.customers = list
	labels := make([]string, len(list))
	found := false
	for i, c := range list {
		labels[i] = customerLabel(c.Customer)
		found = found || c.ID == s.owner
	}
	if !found {
		s.owner, s.selected = "", ""
		if len(list) > 0 {
			s.owner = list[0].ID
		}
	}
	s.ownerSel.Options = labels
	for _, c := range list {
		if c.ID == s.owner {
			s.ownerSel.Selected = customerLabel(c.Customer)
		}
	}
	s.ownerSel.Refresh()
	s.loadOwner()
}

// loadOwner reads the accounts and card accounts of the selected customer.
func (s *accountsScreen) loadOwner() {
	s.accounts, s.cards = nil, nil
	for _, c := range s.customers {
		if c.ID != s.owner {
			continue
		}
		for _, id := range c.AccountIDs {
			if a, err := s.u.sandbox.Account(id); err == nil {
				s.accounts = append(s.accounts, a)
			}
		}
		for _, id := range c.CardAccountIDs {
			if ca, err := s.u.sandbox.CardAccount(id); err == nil {
				s.cards = append(s.cards, ca)
			}
		}
	}
	reselectItem(s.list, len(s.accounts)+len(s.cards), func(i int) bool { return s.itemID(i) == s.selected })
	s.showDetail()
}

func (s *accountsScreen) account() (bank.AccountDetail, bool) {
	for _, a := range s.accounts {
		if a.ID == s.selected {
			return a, true
		}
	}
	return bank.AccountDetail{}, false
}

func (s *accountsScreen) card() (bank.CardAccountDetail, bool) {
	for _, c := range s.cards {
		if c.ID == s.selected {
			return c, true
		}
	}
	return bank.CardAccountDetail{}, false
}

func (s *accountsScreen) showDetail() {
	if a, ok := s.account(); ok {
		s.acctForm.clear()
		s.acctBal.clear()
		s.acctInfo.SetText(fmt.Sprintf("IBAN %s, BBAN %s, %s, owner %s (%s)\nid %s", a.IBAN, a.BBAN, a.Currency, a.Owner.Name, a.Owner.Number, a.ID))
		s.acctName.SetText(a.Name)
		s.acctProduct.SetText(a.Product)
		selectAsWritten(s.acctType, bank.CashAccountTypes, a.CashAccountType)
		s.acctCredit.SetText(a.CreditLine.String())
		s.acctKID.SetChecked(a.KIDRequired)
		s.acctStatus.SetSelected(a.Status)
		s.acctClosing.SetText(a.Balances.ClosingBooked.String())
		s.acctExpect.SetText(a.Balances.Expected.String())
		s.acctAvail.SetText("Interim available (expected + credit line): " + bank.FormatAmount(a.Available(), a.Currency) + " " + a.Currency)
		s.detail.Objects = []fyne.CanvasObject{s.acctBox}
	} else if c, ok := s.card(); ok {
		s.cardForm.clear()
		s.cardBal.clear()
		s.cardInfo.SetText(fmt.Sprintf("Card %s, %s, card id %s/%s, account number %s, owner %s (%s)\nid %s", c.MaskedPan, c.Currency, c.CardID, c.CardIDVNo, c.AccountNumber, c.Owner.Name, c.Owner.Number, c.ID))
		s.cardName.SetText(c.Name)
		s.cardProduct.SetText(c.Product)
		s.cardLimit.SetText(c.CreditLimit.String())
		s.cardExpiry.SetText(c.Expiry)
		s.cardStatus.SetSelected(c.Status)
		s.cardClosing.SetText(c.Balances.ClosingBooked.String())
		s.cardExpect.SetText(c.Balances.Expected.String())
		s.detail.Objects = []fyne.CanvasObject{s.cardBox}
	} else {
		s.detail.Objects = []fyne.CanvasObject{s.empty}
	}
	s.detail.Refresh()
}

func (s *accountsScreen) saveAccount() {
	a, ok := s.account()
	if !ok {
		return
	}
	credit, err := parseNumber(s.acctCredit, "creditLine")
	if s.acctForm.show(err) {
		return
	}
	name, product, typ, status, kid := s.acctName.Text, s.acctProduct.Text, s.acctType.Selected, s.acctStatus.Selected, s.acctKID.Checked
	_, err = s.u.sandbox.UpdateAccount(a.ID, bank.AccountChange{AccountName: &name, Product: &product, CashAccountType: &typ, CreditLine: credit, KIDRequired: &kid, Status: &status})
	if s.acctForm.show(err) {
		return
	}
	s.loadOwner()
}

// balanceInputs reads two balance entries into the bank's balance inputs,
// whose paths are list+"[0]" and list+"[1]"; it fails, naming the field's
// path, when one is not a number.
func balanceInputs(list string, closing, expected *entry, currency string) ([]bank.BalanceInput, error) {
	c, err := parseNumber(closing, list+"[0]")
	if err != nil {
		return nil, err
	}
	e, err := parseNumber(expected, list+"[1]")
	if err != nil {
		return nil, err
	}
	return []bank.BalanceInput{
		{BalanceType: bank.BalanceClosingBooked, BalanceAmount: bank.AmountInput{Amount: c, Currency: currency}},
		{BalanceType: bank.BalanceExpected, BalanceAmount: bank.AmountInput{Amount: e, Currency: currency}},
	}, nil
}

func (s *accountsScreen) saveAccountBalances() {
	a, ok := s.account()
	if !ok {
		return
	}
	in, err := balanceInputs("", s.acctClosing, s.acctExpect, a.Currency)
	if s.acctBal.show(err) {
		return
	}
	if _, err := s.u.sandbox.SetAccountBalances(a.ID, in); s.acctBal.show(err) {
		return
	}
	s.loadOwner()
}

func (s *accountsScreen) saveCard() {
	c, ok := s.card()
	if !ok {
		return
	}
	limit, err := parseNumber(s.cardLimit, "creditLimit")
	if s.cardForm.show(err) {
		return
	}
	name, product, expiry, status := s.cardName.Text, s.cardProduct.Text, s.cardExpiry.Text, s.cardStatus.Selected
	d, err := s.u.sandbox.UpdateCardAccount(c.ID, bank.CardAccountChange{Name: &name, Product: &product, CreditLimit: limit, Expiry: &expiry, Status: &status})
	if s.cardForm.show(err) {
		return
	}
	s.loadOwner()
	s.cardForm.warn(d.Warnings)
}

func (s *accountsScreen) saveCardBalances() {
	c, ok := s.card()
	if !ok {
		return
	}
	in, err := balanceInputs("", s.cardClosing, s.cardExpect, c.Currency)
	if s.cardBal.show(err) {
		return
	}
	card := make([]bank.CardBalanceInput, len(in))
	for i, b := range in {
		card[i] = bank.CardBalanceInput{BalanceInput: b}
	}
	if _, err := s.u.sandbox.SetCardBalances(c.ID, card); s.cardBal.show(err) {
		return
	}
	s.loadOwner()
}

func (s *accountsScreen) deleteSelected() {
	if a, ok := s.account(); ok {
		s.u.confirm("Delete account", fmt.Sprintf("Delete %s %s, its transactions and the engagements on it?", a.Name, a.IBAN), "Delete", func() {
			if err := s.u.sandbox.DeleteAccount(a.ID); err != nil {
				s.u.showError(err)
				return
			}
			s.selected = ""
			s.reload()
		})
	} else if c, ok := s.card(); ok {
		s.u.confirm("Delete card account", fmt.Sprintf("Delete %s %s and its transactions?", c.Name, c.MaskedPan), "Delete", func() {
			if err := s.u.sandbox.DeleteCardAccount(c.ID); err != nil {
				s.u.showError(err)
				return
			}
			s.selected = ""
			s.reload()
		})
	}
}

func (s *accountsScreen) ownerNumber() string {
	for _, c := range s.customers {
		if c.ID == s.owner {
			return c.Number
		}
	}
	return ""
}

// currencies are offered first in the currency choice.
var currencies = []string{"NOK", "EUR", "SEK", "DKK", "USD", "GBP", "CHF", "PLN", "JPY"}

func (s *accountsScreen) createAccount() {
	owner := s.ownerNumber()
	if owner == "" {
		s.u.info("New account", "Create a customer first: an account needs an owner.")
		return
	}
	f := newForm(nil)
	name := f.text("Name", "accountName", "Brukskonto", "")
	product := f.text("Product", "product", "Brukskonto", "")
	currency := widget.NewSelectEntry(currencies)
	currency.SetText("NOK")
	f.add("Currency", "currency", currency)
	typ := widget.NewSelect(bank.CashAccountTypes, nil)
	typ.SetSelected("CACC")
	f.add("Cash account type", "cashAccountType", typ)
	bban := f.text("BBAN", "bban", "", "11 digits with a MOD11 check digit")
	iban := f.text("IBAN", "iban", "", "made from a Norwegian BBAN when left empty")
	generate := widget.NewButtonWithIcon("Generate a free account number", theme.ViewRefreshIcon(), func() {
		b, i, err := s.u.sandbox.NewAccountNumber()
		if err != nil {
			f.show(err)
			return
		}
		bban.SetText(b)
		iban.SetText(i)
	})
	credit := f.text("Credit line", "creditLine", "0", "")
	kid := widget.NewCheck("KID required for payments to this account", nil)
	f.add("KID", "kidRequired", kid)
	closing := f.text("Closing booked balance", "balances[0]", "0", "")
	expected := f.text("Expected balance", "balances[1]", "0", "")
	var warnings []apierr.Message
	s.u.showModal("New account", "Create", f, generate, func() error {
		in := bank.NewAccount{
			CustomerNumber: owner, AccountName: name.Text, BBAN: strings.TrimSpace(bban.Text), IBAN: strings.TrimSpace(iban.Text),
			Currency: strings.ToUpper(strings.TrimSpace(currency.Text)), Product: product.Text, CashAccountType: typ.Selected, KIDRequired: kid.Checked,
		}
		var err error
		if in.CreditLine, err = parseNumber(credit, "creditLine"); err != nil {
			return err
		}
		if in.Balances, err = balanceInputs("balances", closing, expected, in.Currency); err != nil {
			return err
		}
		a, err := s.u.sandbox.CreateAccount(in)
		if err != nil {
			return err
		}
		s.selected, warnings = a.ID, a.Warnings
		return nil
	}, func() {
		s.reload()
		s.acctForm.warn(warnings)
	})
}

func (s *accountsScreen) createCard() {
	owner := s.ownerNumber()
	if owner == "" {
		s.u.info("New card account", "Create a customer first: a card account needs an owner.")
		return
	}
	f := newForm(nil)
	pan := f.text("Masked PAN", "maskedPan", "525412******0000", "e.g. 525412******3241")
	name := f.text("Name", "name", "Mastercard", "")
	product := f.text("Product", "product", "Mastercard", "")
	currency := widget.NewSelectEntry(currencies)
	currency.SetText("NOK")
	f.add("Currency", "currency", currency)
	limit := f.text("Credit limit", "creditLimit", "30000", "")
	expiry := f.text("Expiry", "expiry", "", "YYYY-MM")
	status := widget.NewSelect(bank.Statuses, nil)
	status.SetSelected(bank.StatusEnabled)
	f.add("Status", "status", status)
	var warnings []apierr.Message
	s.u.showModal("New card account", "Create", f, nil, func() error {
		cur := strings.ToUpper(strings.TrimSpace(currency.Text))
		l, err := parseNumber(limit, "creditLimit")
		if err != nil {
			return err
		}
		in := bank.NewCardAccount{
			CustomerNumber: owner, MaskedPan: strings.TrimSpace(pan.Text), Currency: cur, Name: name.Text, Product: product.Text,
			Expiry: strings.TrimSpace(expiry.Text), Status: status.Selected, CreditLimit: &bank.AmountInput{Amount: l, Currency: cur},
		}
		c, err := s.u.sandbox.CreateCardAccount(in)
		if err != nil {
			return err
		}
		s.selected, warnings = c.ID, c.Warnings
		return nil
	}, func() {
		s.reload()
		s.cardForm.warn(warnings)
	})
}
