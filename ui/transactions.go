package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

// pageSize is how many rows the transaction table reads at a time.
const pageSize = 200

// txRow is one row of the transaction table, as text.
type txRow [7]string

var (
	accountColumns = []string{"Booking date", "Value date", "Amount", "Currency", "Counterparty", "Remittance", "Code"}
	cardColumns    = []string{"Booking date", "Transaction date", "Amount", "Original amount", "Details", "MCC", "Invoiced"}
)

// txModel serves the rows of one account's or card account's transactions
// to the table a page at a time: a row that is not cached loads the page
// that holds it and nothing more, so a million rows scroll as fast as a
// hundred. It keeps a few pages.
type txModel struct {
	sandbox  *bank.Sandbox
	id       string
	card     bool
	total    int     // booked rows
	pending  []txRow // card accounts: every pending row, shown first
	pages    map[int][]txRow
	order    []int // cached pages, oldest first
	rowsRead int   // rows read from the bank, for tests and the status line
	err      error
}

const cachedPages = 8

func newTxModel(b *bank.Sandbox, id string, card bool) *txModel {
	m := &txModel{sandbox: b, id: id, card: card, pages: map[int][]txRow{}}
	if id != "" {
		m.load(0)
	}
	return m
}

// rows is the number of rows the table has.
func (m *txModel) rows() int { return len(m.pending) + m.total }

// row returns row i, reading its page when it is not cached.
func (m *txModel) row(i int) txRow {
	if i < len(m.pending) {
		return m.pending[i]
	}
	i -= len(m.pending)
	page := i / pageSize
	rows, ok := m.pages[page]
	if !ok {
		rows = m.load(page)
	}
	if j := i % pageSize; j < len(rows) {
		return rows[j]
	}
	return txRow{}
}

// load reads one page of booked rows (and, for a card account, every
// pending one) and refreshes the total.
func (m *txModel) load(page int) []txRow {
	q := bank.TxQuery{Offset: page * pageSize, Limit: pageSize}
	var rows []txRow
	if m.card {
		c, p, err := m.sandbox.CardTransactions(m.id, q)
		if m.err = err; err != nil {
			return nil
		}
		m.total = p.Total
		m.pending = m.pending[:0]
		for _, t := range p.Pending {
			m.pending = append(m.pending, cardRow(c, t))
		}
		for _, t := range p.Booked {
			rows = append(rows, cardRow(c, t))
		}
		m.rowsRead += len(p.Booked) + len(p.Pending)
	} else {
		p, err := m.sandbox.Transactions(m.id, q)
		if m.err = err; err != nil {
			return nil
		}
		m.total = p.Total
		for _, t := range p.Transactions {
			rows = append(rows, accountRow(t))
		}
		m.rowsRead += len(p.Transactions)
	}
	m.pages[page] = rows
	m.order = append(m.order, page)
	if len(m.order) > cachedPages {
		delete(m.pages, m.order[0])
		m.order = m.order[1:]
	}
	return rows
}

func accountRow(t bank.Transaction) txRow {
	party, acct := t.DebtorName, t.DebtorAccount
	if t.Amount.IsNegative() {
		party, acct = t.CreditorName, t.CreditorAccount
	}
	ref := acct.IBAN
	if ref == "" {
		ref = acct.BBAN
	}
	return txRow{t.BookingDate.String(), t.ValueDate.String(), bank.FormatAmount(t.Amount, t.Currency), t.Currency,
		strings.TrimSpace(party + " " + ref), t.RemittanceInformationUnstructured, t.BankTransactionCode}
}

func cardRow(c bank.CardAccount, t bank.CardTransaction) txRow {
	booking := "pending"
	if !t.Pending() {
		booking = t.BookingDate.String()
	}
	return txRow{booking, t.TransactionDate.String(),
		bank.FormatAmount(t.TransactionAmount.Amount, t.TransactionAmount.Currency) + " " + t.TransactionAmount.Currency,
		bank.FormatAmount(t.OriginalAmount.Amount, t.OriginalAmount.Currency) + " " + t.OriginalAmount.Currency,
		t.TransactionDetails, t.MerchantCategoryCode, strconv.FormatBool(t.Invoiced)}
}

// transactionsScreen shows the transactions of one account or card
// account in a paged table.
type transactionsScreen struct {
	u *UI

	choices  []txChoice
	selected string // account or card account id
	model    *txModel

	picker   *widget.Select
	status   *widget.Label
	table    *widget.Table
	addBtn   *widget.Button
	genBtn   *widget.Button
	clearBtn *widget.Button
}

// txChoice is an account or card account in the picker.
type txChoice struct {
	id, label, currency string
	card                bool
	iban, bban          string
}

func newTransactionsScreen(u *UI) *transactionsScreen {
	return &transactionsScreen{u: u, model: newTxModel(u.sandbox, "", false)}
}

func (s *transactionsScreen) build() fyne.CanvasObject {
	s.picker = widget.NewSelect(nil, func(label string) {
		for _, c := range s.choices {
			if c.label == label && c.id != s.selected {
				s.selected = c.id
				s.reload()
			}
		}
	})
	s.picker.PlaceHolder = "Choose an account or card account"
	s.status = widget.NewLabel("")
	s.table = widget.NewTableWithHeaders(
		func() (int, int) {
			// Fyne's table takes every row as visible while it has no
			// size (a tab not shown yet) and makes a divider per row; with
			// a million rows that takes seconds, so it gets its rows once
			// it is laid out.
			if s.table.Size().Height <= 0 {
				return 0, len(accountColumns)
			}
			return s.model.rows(), len(accountColumns)
		},
		func() fyne.CanvasObject {
			l := widget.NewLabel("2026-11-22 template cell")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.TableCellID, o fyne.CanvasObject) {
			l := o.(*widget.Label)
			l.Alignment = fyne.TextAlignLeading
			if id.Col == 2 || (id.Col == 3 && s.model.card) {
				l.Alignment = fyne.TextAlignTrailing // amounts line up
			}
			l.SetText(s.model.row(id.Row)[id.Col])
		})
	s.table.ShowHeaderColumn = false
	s.table.CreateHeader = func() fyne.CanvasObject {
		return heading("Counterparty")
	}
	s.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		cols := accountColumns
		if s.model.card {
			cols = cardColumns
		}
		if id.Col >= 0 && id.Col < len(cols) {
			o.(*widget.Label).SetText(cols[id.Col])
		}
	}
	for col, w := range []float32{110, 110, 120, 110, 300, 300, 150} {
		s.table.SetColumnWidth(col, w)
	}
	s.addBtn = widget.NewButtonWithIcon("Add transaction", theme.ContentAddIcon(), s.add)
	s.genBtn = widget.NewButtonWithIcon("Generate…", theme.MediaFastForwardIcon(), s.generate)
	s.clearBtn = widget.NewButtonWithIcon("Delete all", theme.DeleteIcon(), s.deleteAll)
	s.clearBtn.Importance = widget.DangerImportance
	s.reloadAccounts()
	top := container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabel("Account"), container.NewHBox(s.addBtn, s.genBtn, s.clearBtn), s.picker),
		s.status)
	return container.NewBorder(top, nil, nil, nil, s.table)
}

// reloadAccounts refreshes the picker's list of accounts and card accounts.
func (s *transactionsScreen) reloadAccounts() {
	accounts, err := s.u.sandbox.Accounts()
	if err != nil {
		s.u.showError(err)
		return
	}
	cards, err := s.u.sandbox.CardAccounts()
	if err != nil {
		s.u.showError(err)
		return
	}
	s.choices = s.choices[:0]
	for _, a := range accounts {
		s.choices = append(s.choices, txChoice{id: a.ID, label: fmt.Sprintf("%s %s %s (%s)", a.Name, a.IBAN, a.Currency, a.Owner.Name), currency: a.Currency, iban: a.IBAN, bban: a.BBAN})
	}
	for _, c := range cards {
		s.choices = append(s.choices, txChoice{id: c.ID, label: fmt.Sprintf("Card: %s %s %s (%s)", c.Name, c.MaskedPan, c.Currency, c.Owner.Name), currency: c.Currency, card: true})
	}
	labels := make([]string, len(s.choices))
	found := false
	for i, c := range s.choices {
		labels[i] = c.label
		if c.id == s.selected {
			s.picker.Selected, found = c.label, true
		}
	}
	s.picker.Options = labels
	if !found {
		s.picker.Selected, s.selected = "", ""
		if len(s.choices) > 0 {
			s.picker.Selected, s.selected = s.choices[0].label, s.choices[0].id
		}
		s.reload()
	}
	s.picker.Refresh()
}

func (s *transactionsScreen) choice() (txChoice, bool) {
	for _, c := range s.choices {
		if c.id == s.selected {
			return c, true
		}
	}
	return txChoice{}, false
}

// reload starts the table over: the first page and the total.
func (s *transactionsScreen) reload() {
	c, ok := s.choice()
	s.model = newTxModel(s.u.sandbox, c.id, c.card)
	switch {
	case !ok:
		s.status.SetText("No account: create one on the Accounts screen")
	case s.model.err != nil:
		s.status.SetText("Cannot read the transactions: " + s.model.err.Error())
	case c.card:
		s.status.SetText(fmt.Sprintf("%d booked and %d pending card transactions, newest first", s.model.total, len(s.model.pending)))
	default:
		s.status.SetText(fmt.Sprintf("%d booked transactions, newest first", s.model.total))
	}
	enable(s.addBtn, ok && !c.card)
	enable(s.genBtn, ok)
	enable(s.clearBtn, ok)
	s.table.ScrollToTop()
	s.table.Refresh()
}

// add opens a form for one account transaction. The other side is given by
// IBAN or BBAN; the direction decides which side is this account.
func (s *transactionsScreen) add() {
	c, ok := s.choice()
	if !ok || c.card {
		return
	}
	today := s.u.ops.Today().String()
	f := newForm(nil)
	direction := widget.NewRadioGroup([]string{"Debit (money out)", "Credit (money in)"}, nil)
	direction.SetSelected("Debit (money out)")
	f.add("Direction", "", direction)
	amount := f.text("Amount", "[0].amount", "", "positive, e.g. 250.00")
	booking := f.text("Booking date", "[0].bookingDate", today, "YYYY-MM-DD")
	value := f.text("Value date", "[0].valueDate", today, "YYYY-MM-DD")
	name := f.text("Counterparty name", "[0].creditorName", "", "")
	other := f.text("Counterparty account", "[0].creditorAccount", "", "IBAN, or a Norwegian BBAN")
	remittance := f.text("Remittance", "[0].remittanceInformationUnstructured", "", "")
	code := f.text("Bank transaction code", "[0].bankTransactionCode", "PMNT-ICDT-ESCT", "4 to 14 characters")
	var warnings []apierr.Message
	s.u.showModal("Add a transaction to "+c.label, "Add", f, nil, func() error {
		amt, err := parseNumber(amount, "[0].amount")
		if err != nil {
			return err
		}
		own := &bank.AccountRef{IBAN: c.iban}
		ref := strings.TrimSpace(other.Text)
		counterpart := &bank.AccountRef{IBAN: ref}
		if len(ref) > 0 && ref[0] >= '0' && ref[0] <= '9' {
			counterpart = &bank.AccountRef{BBAN: ref}
		}
		empty, remit, party, ownName := "", remittance.Text, name.Text, c.label
		in := bank.NewTransaction{
			Amount: amt, Currency: c.currency, BookingDate: strings.TrimSpace(booking.Text), ValueDate: strings.TrimSpace(value.Text),
			RemittanceInformationUnstructured: &remit, CreditorID: &empty, UltimateCreditor: &empty, UltimateDebtor: &empty,
			PurposeCode: &empty, BankTransactionCode: strings.TrimSpace(code.Text),
			DebtorAccount: own, CreditorAccount: counterpart, DebtorName: &ownName, CreditorName: &party,
		}
		// The form names its counterparty fields by the creditor side; a
		// credit moves them to the debtor side, so findings are renamed back.
		credit := direction.Selected == "Credit (money in)"
		if credit {
			in.DebtorAccount, in.CreditorAccount = counterpart, own
			in.DebtorName, in.CreditorName = &party, &ownName
		}
		posted, err := s.u.sandbox.AddTransactions(c.id, []bank.NewTransaction{in})
		if credit {
			err = renamePaths(err, map[string]string{"[0].debtorAccount": "[0].creditorAccount", "[0].debtorName": "[0].creditorName"})
		}
		warnings = posted.Warnings
		return err
	}, func() {
		s.reload()
		s.u.warned("Transaction added", warnings)
	})
}

// renamePaths renames the paths of a bank error's findings.
func renamePaths(err error, names map[string]string) error {
	return editMessages(err, func(m *apierr.Message) {
		for from, to := range names {
			if m.Path == from || strings.HasPrefix(m.Path, from+".") {
				m.Path = to + strings.TrimPrefix(m.Path, from)
			}
		}
	})
}

// generate asks how many transactions to generate and runs the generation
// in the background with a progress bar and a Cancel button.
func (s *transactionsScreen) generate() {
	c, ok := s.choice()
	if !ok {
		return
	}
	f := newForm(nil)
	count := f.text("How many", "count", "10000", "1 to 5,000,000")
	profiles := []string{"everyday", "savings", "business", "currency", "tax"}
	profile := widget.NewSelect(profiles, nil)
	profile.SetSelected("everyday")
	if !c.card {
		f.add("Profile", "profile", profile)
	}
	var n int
	s.u.showModal("Generate realistic transactions", "Generate", f, nil, func() (err error) {
		n, err = strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(count.Text), " ", ""))
		if err != nil || n < 1 || n > bank.MaxHistoryCount {
			return apierr.PathError(apierr.CodeFormatError, "count", fmt.Sprintf("must be a whole number from 1 to %d", bank.MaxHistoryCount))
		}
		return nil
	}, func() {
		s.runGeneration(c, profile.Selected, n)
	})
}

// runGeneration generates in the background; the window stays responsive
// and shows progress.
func (s *transactionsScreen) runGeneration(c txChoice, profile string, n int) {
	ctx, cancel := context.WithCancel(context.Background())
	bar := widget.NewProgressBar()
	bar.Max = float64(n)
	label := helpText(fmt.Sprintf("Generating %d transactions for %s", n, c.label))
	d := dialog.NewCustom("Generating", "Cancel", container.NewVBox(label, bar), s.u.win)
	d.SetOnClosed(cancel)
	d.Resize(fyne.NewSize(520, 180))
	s.u.open(d)
	s.u.background(func() {
		start := time.Now()
		progress := func(done int) { fyne.Do(func() { bar.SetValue(float64(done)) }) }
		var done int
		var err error
		if c.card {
			done, err = s.u.sandbox.GenerateCardTransactions(ctx, c.id, n, progress)
		} else {
			done, err = s.u.sandbox.GenerateTransactions(ctx, c.id, profile, n, progress)
		}
		took := time.Since(start).Round(100 * time.Millisecond)
		fyne.Do(func() {
			d.Hide()
			switch {
			case ctx.Err() != nil:
				s.u.info("Generation cancelled", fmt.Sprintf("Cancelled after %d of %d transactions; those %d stay.", done, n, done))
			case err != nil:
				s.u.showError(err)
			default:
				s.u.info("Generated", fmt.Sprintf("%d transactions in %s.", done, took))
			}
			s.reload()
		})
	})
}

func (s *transactionsScreen) deleteAll() {
	c, ok := s.choice()
	if !ok {
		return
	}
	s.u.confirm("Delete all transactions", fmt.Sprintf("Delete all %d transactions of %s?", s.model.rows(), c.label), "Delete all", func() {
		s.u.longWork("Deleting the transactions of "+c.label, func() error {
			if c.card {
				return s.u.sandbox.DeleteCardTransactions(c.id)
			}
			return s.u.sandbox.DeleteTransactions(c.id)
		}, func(err error) {
			if err != nil {
				s.u.showError(err)
			}
			s.reload()
		})
	})
}
