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

// customersScreen lists customers and shows a customer's agreements and
// their engagements.
type customersScreen struct {
	u *UI

	all      []bank.CustomerDetail
	shown    []int // indexes into all that match the search
	selected string

	search     *entry
	list       *widget.List
	title      *widget.Label
	nameForm   *form
	name       *entry
	saveName   *widget.Button
	deleteBtn  *widget.Button
	agreements *widget.List
	agrSel     string
	engList    *widget.List
	engSel     string
	newAgr     *widget.Button
	delAgr     *widget.Button
	addEng     *widget.Button
	delEng     *widget.Button
	detail     *fyne.Container
}

func newCustomersScreen(u *UI) *customersScreen { return &customersScreen{u: u} }

func (s *customersScreen) build() fyne.CanvasObject {
	s.search = newEntry("Search by name or number")
	s.search.OnChanged = func(string) { s.filter() }
	s.list = widget.NewList(
		func() int { return len(s.shown) },
		func() fyne.CanvasObject { return widget.NewLabel("template customer name (00000000000)") },
		func(i widget.ListItemID, o fyne.CanvasObject) {
			c := s.all[s.shown[i]]
			o.(*widget.Label).SetText(fmt.Sprintf("%s (%s, %s)", c.Name, c.Number, c.Type)) // the type as written
		})
	s.list.OnSelected = func(i widget.ListItemID) {
		s.selected = s.all[s.shown[i]].ID
		s.showDetail()
	}
	newBtn := widget.NewButtonWithIcon("New customer", theme.ContentAddIcon(), s.create)
	left := container.NewBorder(container.NewVBox(s.search, newBtn), nil, nil, nil, s.list)

	s.title = heading("Select a customer")
	s.nameForm = newForm(s.rename)
	s.name = s.nameForm.text("Name", "name", "", "")
	s.saveName = widget.NewButton("Save name", s.rename)
	s.deleteBtn = widget.NewButtonWithIcon("Delete customer", theme.DeleteIcon(), s.delete)
	s.deleteBtn.Importance = widget.DangerImportance

	s.agreements = widget.NewList(
		func() int { return len(s.currentAgreements()) },
		func() fyne.CanvasObject { return widget.NewLabel("template agreement name (private)") },
		func(i widget.ListItemID, o fyne.CanvasObject) {
			a := s.currentAgreements()[i]
			kind := "corporate, owner " + a.Owner.Name
			if a.Private {
				kind = "private"
			}
			o.(*widget.Label).SetText(fmt.Sprintf("%s (%s, %s)", a.Name, kind, plural(len(a.Engagements), "engagement", "engagements")))
		})
	s.agreements.OnSelected = func(i widget.ListItemID) {
		s.agrSel = s.currentAgreements()[i].ID
		s.engSel = ""
		s.engList.UnselectAll()
		s.engList.Refresh()
		s.updateButtons()
	}
	s.engList = widget.NewList(
		func() int { return len(s.currentEngagements()) },
		func() fyne.CanvasObject { return widget.NewLabel("template engagement line for a PSU on an account") },
		func(i widget.ListItemID, o fyne.CanvasObject) {
			e := s.currentEngagements()[i]
			o.(*widget.Label).SetText(fmt.Sprintf("%s (%s) on %s %s: %s; register limit %s, approval limit %s",
				e.Customer.Name, e.Customer.Number, e.Account.Name, e.Account.IBAN, strings.Join(e.Roles, ", "),
				e.RegisterLimit.String(), e.ApprovalLimit.String()))
		})
	s.engList.OnSelected = func(i widget.ListItemID) {
		s.engSel = s.currentEngagements()[i].ID
		s.updateButtons()
	}
	s.newAgr = widget.NewButtonWithIcon("New agreement", theme.ContentAddIcon(), s.createAgreement)
	s.delAgr = widget.NewButtonWithIcon("Delete agreement", theme.DeleteIcon(), s.deleteAgreement)
	s.addEng = widget.NewButtonWithIcon("Add engagement", theme.ContentAddIcon(), s.createEngagement)
	s.delEng = widget.NewButtonWithIcon("Delete engagement", theme.DeleteIcon(), s.deleteEngagement)

	top := container.NewVBox(s.title, s.nameForm.object(), container.NewHBox(s.saveName, s.deleteBtn), widget.NewSeparator(),
		container.NewHBox(heading("Agreements"), s.newAgr, s.delAgr))
	engagements := container.NewBorder(
		container.NewHBox(heading("Engagements of the selected agreement"), s.addEng, s.delEng),
		nil, nil, nil, s.engList)
	split := container.NewVSplit(s.agreements, engagements)
	s.detail = container.NewBorder(top, nil, nil, nil, split)
	s.reload()
	main := container.NewHSplit(left, s.detail)
	main.Offset = 0.3
	return main
}

// reload reads the customers again, keeping the selection.
func (s *customersScreen) reload() {
	list, err := s.u.sandbox.Customers(true, true)
	if err != nil {
		s.u.showError(err)
		return
	}
	s.all = list
	if _, ok := s.current(); !ok && len(list) > 0 {
		s.selected = list[0].ID
	}
	s.filter()
	s.showDetail()
}

// filter applies the search to the list.
func (s *customersScreen) filter() {
	q := strings.ToLower(strings.TrimSpace(s.search.Text))
	s.shown = s.shown[:0]
	for i, c := range s.all {
		if q == "" || strings.Contains(strings.ToLower(c.Name), q) || strings.Contains(c.Number, q) {
			s.shown = append(s.shown, i)
		}
	}
	reselectItem(s.list, len(s.shown), func(i int) bool { return s.all[s.shown[i]].ID == s.selected })
}

// current returns the selected customer, ok false when none.
func (s *customersScreen) current() (bank.CustomerDetail, bool) {
	for _, c := range s.all {
		if c.ID == s.selected {
			return c, true
		}
	}
	return bank.CustomerDetail{}, false
}

func (s *customersScreen) currentAgreements() []bank.AgreementDetail {
	c, _ := s.current()
	return c.Agreements
}

func (s *customersScreen) currentAgreement() (bank.AgreementDetail, bool) {
	for _, a := range s.currentAgreements() {
		if a.ID == s.agrSel {
			return a, true
		}
	}
	return bank.AgreementDetail{}, false
}

func (s *customersScreen) currentEngagements() []bank.EngagementDetail {
	a, _ := s.currentAgreement()
	return a.Engagements
}

func (s *customersScreen) showDetail() {
	c, ok := s.current()
	s.nameForm.clear()
	if !ok {
		s.selected, s.agrSel, s.engSel = "", "", ""
		s.title.SetText("Select a customer")
		s.name.SetText("")
	} else {
		s.title.SetText(fmt.Sprintf("%s: customerNumber %s, %s, %s", c.Name, c.Number, c.Type, c.ID))
		s.name.SetText(c.Name)
		if _, ok := s.currentAgreement(); !ok {
			s.agrSel = ""
			if len(c.Agreements) > 0 {
				s.agrSel = c.Agreements[0].ID // show the first agreement's engagements at once
			}
		}
	}
	agreements := s.currentAgreements()
	reselectItem(s.agreements, len(agreements), func(i int) bool { return agreements[i].ID == s.agrSel })
	engagements := s.currentEngagements()
	reselectItem(s.engList, len(engagements), func(i int) bool { return engagements[i].ID == s.engSel })
	s.updateButtons()
}

func (s *customersScreen) updateButtons() {
	c, ok := s.current()
	a, agrOK := s.currentAgreement()
	enable(s.saveName, ok)
	enable(s.deleteBtn, ok)
	enable(s.newAgr, ok && c.IsCorporate())
	enable(s.delAgr, agrOK && !a.Private)
	enable(s.addEng, agrOK && !a.Private)
	enable(s.delEng, agrOK && !a.Private && s.engSel != "")
}

func (s *customersScreen) create() {
	f := newForm(nil)
	number := f.text("Customer number", "customerNumber", "", "the national id used at SCA, e.g. 01017012345")
	name := f.text("Name", "name", "", "")
	typ := widget.NewSelect(bank.CustomerTypes, nil)
	typ.SetSelected(bank.Private)
	f.add("Type", "type", typ)
	s.u.showModal("New customer", "Create", f, nil, func() error {
		c, err := s.u.sandbox.CreateCustomer(bank.NewCustomer{CustomerNumber: strings.TrimSpace(number.Text), Name: name.Text, Type: typ.Selected})
		if err != nil {
			return err
		}
		s.selected = c.ID
		return nil
	}, func() {
		s.search.SetText("")
		s.reload()
	})
}

func (s *customersScreen) rename() {
	c, ok := s.current()
	if !ok {
		return
	}
	if _, err := s.u.sandbox.UpdateCustomer(c.ID, s.name.Text); s.nameForm.show(err) {
		return
	}
	s.reload()
}

func (s *customersScreen) delete() {
	c, ok := s.current()
	if !ok {
		return
	}
	s.u.confirm("Delete customer", fmt.Sprintf("Delete %s (%s) with every account, card account, transaction and agreement they own, and every engagement that names them?", c.Name, c.Number), "Delete", func() {
		if err := s.u.sandbox.DeleteCustomer(c.ID); err != nil {
			s.u.showError(err)
			return
		}
		s.selected = ""
		s.reload()
	})
}

func (s *customersScreen) createAgreement() {
	c, ok := s.current()
	if !ok {
		return
	}
	f := newForm(nil)
	name := f.text("Name", "name", c.Name+" agreement", "")
	s.u.showModal("New agreement for "+c.Name, "Create", f, nil, func() error {
		a, err := s.u.sandbox.CreateAgreement(bank.NewAgreement{Owner: c.Number, Name: name.Text})
		if err != nil {
			return err
		}
		s.agrSel = a.ID
		return nil
	}, s.reload)
}

func (s *customersScreen) deleteAgreement() {
	a, ok := s.currentAgreement()
	if !ok {
		return
	}
	s.u.confirm("Delete agreement", fmt.Sprintf("Delete %s and its %s?", a.Name, plural(len(a.Engagements), "engagement", "engagements")), "Delete", func() {
		if err := s.u.sandbox.DeleteAgreement(a.ID); err != nil {
			s.u.showError(err)
			return
		}
		s.agrSel = ""
		s.reload()
	})
}

// customerChoices lists every customer as "Name (number)" for a select.
func (s *customersScreen) customerChoices() ([]string, map[string]string) {
	var labels []string
	numbers := map[string]string{}
	for _, c := range s.all {
		label := customerLabel(c.Customer)
		labels = append(labels, label)
		numbers[label] = c.Number
	}
	return labels, numbers
}

func (s *customersScreen) createEngagement() {
	a, ok := s.currentAgreement()
	if !ok {
		return
	}
	owned, err := s.u.sandbox.Customer(a.OwnerID)
	if err != nil {
		s.u.showError(err)
		return
	}
	f := newForm(nil)
	labels, numbers := s.customerChoices()
	psu := widget.NewSelect(labels, nil)
	f.add("PSU", "customer", psu)
	var accountLabels []string
	ibans := map[string]string{}
	for _, id := range owned.AccountIDs {
		acct, err := s.u.sandbox.Account(id)
		if err != nil {
			continue
		}
		label := fmt.Sprintf("%s %s (%s)", acct.Name, acct.IBAN, acct.Currency)
		accountLabels = append(accountLabels, label)
		ibans[label] = acct.IBAN
	}
	account := widget.NewSelect(accountLabels, nil)
	f.add("Account", "account.iban", account)
	roles := widget.NewCheckGroup(bank.Roles, nil)
	roles.Horizontal = true
	roles.SetSelected([]string{bank.RoleView, bank.RoleRegister})
	f.add("Roles", "roles", roles)
	register := f.text("Register limit", "registerLimit", "100000", "largest amount the PSU may register")
	approval := f.text("Approval limit", "approvalLimit", "0", "largest amount the PSU may approve")
	var warnings []apierr.Message
	s.u.showModal("Add engagement to "+a.Name, "Add", f, nil, func() error {
		in := bank.NewEngagement{Customer: numbers[psu.Selected], Account: bank.IBANRef{IBAN: ibans[account.Selected]}, Roles: roles.Selected}
		var err error
		if in.RegisterLimit, err = parseNumber(register, "registerLimit"); err != nil {
			return err
		}
		if in.ApprovalLimit, err = parseNumber(approval, "approvalLimit"); err != nil {
			return err
		}
		e, err := s.u.sandbox.CreateEngagement(a.ID, in)
		if err != nil {
			return err
		}
		s.engSel, warnings = e.ID, e.Warnings
		return nil
	}, func() {
		s.reload()
		s.u.warned("Engagement added", warnings)
	})
}

func (s *customersScreen) deleteEngagement() {
	a, ok := s.currentAgreement()
	if !ok || s.engSel == "" {
		return
	}
	id := s.engSel
	s.u.confirm("Delete engagement", "Delete the selected engagement from "+a.Name+"?", "Delete", func() {
		if err := s.u.sandbox.DeleteEngagement(a.ID, id); err != nil {
			s.u.showError(err)
			return
		}
		s.engSel = ""
		s.reload()
	})
}
