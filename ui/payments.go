package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"sandbank/bank"
)

var (
	paymentColumns  = []string{"Created (Oslo)", "Kind", "TPP", "PSU", "Amount", "Status", "Funds", "Execution date"}
	basketColumns   = []string{"Created (Oslo)", "TPP", "Payments", "Status", "Authorisations"}
	batchRunColumns = []string{"Time (Oslo)", "Trigger", "Duration ms", "Counts"}
)

// Limits of the payments screen's tables.
const (
	maxPaymentsShown = 500 // the newest payments the Payments table lists
	maxRunsShown     = 200 // the newest batch runs the Batch runs table lists
)

// allStatuses is the status filter's choice for every status.
const allStatuses = "All"

// paymentsScreen shows the payments TPPs initiated with their status
// history, the signing baskets, and the batch runs that settle payments;
// support staff run a batch or force a payment's status here.
type paymentsScreen struct {
	u *UI

	tabs *container.AppTabs

	list     bank.PaymentList
	selected string // id of the selected payment
	status   *widget.Select
	count    *widget.Label
	table    *widget.Table
	detail   *widget.Label
	request  *widget.Label
	forceBtn *widget.Button
	runBtn   *widget.Button

	baskets      []bank.BasketView
	basket       string // id of the selected basket
	basketTable  *widget.Table
	basketDetail *widget.Label

	runs      []bank.BatchRun
	run       string // id of the selected batch run
	next      *widget.Label
	runTable  *widget.Table
	runDetail *widget.Label
}

func newPaymentsScreen(u *UI) *paymentsScreen { return &paymentsScreen{u: u} }

func (s *paymentsScreen) build() fyne.CanvasObject {
	s.tabs = container.NewAppTabs(
		container.NewTabItem("Payments", s.buildPayments()),
		container.NewTabItem("Baskets", s.buildBaskets()),
		container.NewTabItem("Batch runs", s.buildRuns()),
	)
	s.reload()
	return s.tabs
}

// detailLabel is a wrapped label whose text can be selected and copied.
func detailLabel(t string) *widget.Label {
	l := helpText(t)
	l.Selectable = true
	return l
}

func (s *paymentsScreen) buildPayments() fyne.CanvasObject {
	s.status = widget.NewSelect(append([]string{allStatuses}, bank.PaymentStatuses...), nil)
	s.status.Selected = allStatuses
	s.status.OnChanged = func(string) { s.reloadPayments() }
	s.count = widget.NewLabel("")
	s.table = textTable(paymentColumns, []float32{140, 170, 150, 260, 140, 70, 60, 120},
		func() int { return len(s.list.Payments) }, s.paymentCell, func(row int) {
			s.selected = s.list.Payments[row].ID
			s.showPayment()
		})
	s.detail = detailLabel("Select a payment to see its accounts, approvals and status history.")
	s.request = detailLabel("")
	s.request.TextStyle = fyne.TextStyle{Monospace: true}
	s.request.Wrapping = fyne.TextWrapBreak
	s.runBtn = widget.NewButtonWithIcon("Run batch now", theme.MediaPlayIcon(), s.runBatch)
	s.forceBtn = widget.NewButtonWithIcon("Force status…", theme.WarningIcon(), s.force)
	s.forceBtn.Disable()
	refresh := widget.NewButtonWithIcon("Refresh", theme.ViewRefreshIcon(), s.reload)

	filter := container.NewHBox(widget.NewLabel("Status"), s.status, s.count)
	top := container.NewBorder(nil, nil, filter, container.NewHBox(s.runBtn, s.forceBtn, refresh))
	help := helpText("Every payment TPPs initiated, newest first. The batch runs at the batch times of the Server screen settle the due ones; Run batch now makes a run at once. Force status… sets a status by hand to reproduce a case: no money moves.")
	detail := container.NewHSplit(container.NewVScroll(s.detail), container.NewVScroll(s.request))
	detail.Offset = 0.62
	split := container.NewVSplit(s.table, detail)
	split.Offset = 0.5
	return container.NewBorder(container.NewVBox(top, help), nil, nil, nil, split)
}

func (s *paymentsScreen) buildBaskets() fyne.CanvasObject {
	s.basketTable = textTable(basketColumns, []float32{140, 170, 90, 80, 500},
		func() int { return len(s.baskets) }, s.basketCell, func(row int) {
			s.basket = s.baskets[row].ID
			s.showBasket()
		})
	s.basketDetail = detailLabel("Select a basket to see its payments.")
	refresh := widget.NewButtonWithIcon("Refresh", theme.ViewRefreshIcon(), s.reload)
	top := container.NewBorder(nil, nil, heading("Signing baskets: payments of one TPP that one SCA approves"), refresh)
	help := helpText("A basket's status is the worst case of its payments: any RJCT or CANC makes it RJCT; any PATC, or some payments still RCVD, makes it PATC.")
	split := container.NewVSplit(s.basketTable, container.NewVScroll(s.basketDetail))
	split.Offset = 0.5
	return container.NewBorder(container.NewVBox(top, help), nil, nil, nil, split)
}

func (s *paymentsScreen) buildRuns() fyne.CanvasObject {
	s.next = helpText("")
	s.runTable = textTable(batchRunColumns, []float32{170, 100, 110, 600},
		func() int { return len(s.runs) }, s.runCell, func(row int) {
			s.run = s.runs[row].ID
			s.showRun()
		})
	s.runDetail = detailLabel("Select a run to see what it did to each payment.")
	run := widget.NewButtonWithIcon("Run batch now", theme.MediaPlayIcon(), s.runBatch)
	refresh := widget.NewButtonWithIcon("Refresh", theme.ViewRefreshIcon(), s.reload)
	top := container.NewBorder(nil, nil, nil, container.NewHBox(run, refresh), s.next)
	split := container.NewVSplit(s.runTable, container.NewVScroll(s.runDetail))
	split.Offset = 0.5
	return container.NewBorder(top, nil, nil, nil, split)
}

// reload reads the payments, baskets and batch runs again.
func (s *paymentsScreen) reload() {
	s.reloadPayments()
	s.reloadBaskets()
	s.reloadRuns()
}

// reloadPayments reads the newest payments in the filter's status again,
// keeping the selection.
func (s *paymentsScreen) reloadPayments() {
	status := s.status.Selected
	if status == allStatuses {
		status = ""
	}
	list, err := s.u.ops.Payments(bank.PaymentFilter{Status: status, Limit: maxPaymentsShown})
	if err != nil {
		s.u.showError(err)
		return
	}
	s.list = list
	in := ""
	if status != "" {
		in = " in " + status
	}
	switch {
	case list.Total == 0:
		s.count.SetText("no payments" + in)
	case list.Total > len(list.Payments):
		s.count.SetText(fmt.Sprintf("showing the newest %d of %d payments%s", len(list.Payments), list.Total, in))
	default:
		s.count.SetText(plural(list.Total, "payment", "payments") + in)
	}
	s.table.Refresh()
	reselect(s.table, list.Payments, &s.selected, func(p bank.Payment) string { return p.ID })
	s.showPayment()
}

// payment returns the selected payment as the list has it.
func (s *paymentsScreen) payment() (bank.Payment, bool) {
	for _, p := range s.list.Payments {
		if p.ID == s.selected {
			return p, true
		}
	}
	return bank.Payment{}, false
}

// itemAmount is an item's amount with its currency.
func itemAmount(it bank.PaymentItem) string {
	return bank.FormatAmount(it.Amount, it.Currency) + " " + it.Currency
}

// totalText is a payment's amount with its currency.
func totalText(p bank.Payment) string {
	if p.Currency() == "" {
		return "—"
	}
	return bank.FormatAmount(p.Total(), p.Currency()) + " " + p.Currency()
}

func refString(r bank.AccountRef) string {
	if r.IBAN != "" {
		return r.IBAN
	}
	if r.BBAN != "" {
		return r.BBAN
	}
	return "—"
}

func (s *paymentsScreen) paymentCell(row, col int) string {
	p := s.list.Payments[row]
	switch col {
	case 0:
		return when(p.Created)
	case 1:
		return bank.PaymentKind(p.Service, p.Product, len(p.Items))
	case 2:
		return p.TPPID
	case 3:
		if c, ok := s.list.Customers[p.CustomerID]; ok && p.CustomerID != "" {
			return customerLabel(c)
		}
		return "—"
	case 4:
		return totalText(p)
	case 5:
		return p.Status
	case 6:
		return fundsText(p.FundsAvailable)
	case 7:
		return dateText(p.ExecutionDate)
	}
	return ""
}

// partyName is the display name of a customer id: from the parties the bank
// gave with the payments, else the id itself (a deleted customer).
func partyName(pt bank.Parties, id string) string {
	if id == "" {
		return "—"
	}
	if c, ok := pt.Customers[id]; ok {
		return customerLabel(c)
	}
	return id
}

// contextText names the context a PSU acted in.
func (s *paymentsScreen) contextText(context string) string {
	switch context {
	case "":
		return ""
	case bank.ContextPrivate:
		return "private"
	}
	if a, err := s.u.sandbox.Agreement(context); err == nil {
		return "agreement " + a.Name
	}
	return "agreement " + context
}

// historyLine writes one status change: "2026-11-24 10:30 CET  RCVD →
// ACTC  by PSU Test Testperson 1 (13039319955): authorised".
func historyLine(h bank.StatusChange) string {
	step := h.To
	if h.From != "" {
		step = h.From + " → " + h.To
	}
	line := whenZoned(h.Time) + "  " + step + "  by " + h.By
	if h.Reason != "" {
		line += ": " + h.Reason
	}
	if h.Forced {
		line += "  [FORCED]"
	}
	return line
}

// paymentText describes a payment, with the parties it names, for the
// detail pane.
func (s *paymentsScreen) paymentText(p bank.Payment, pt bank.Parties) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Payment %s: %s (%s, %s)\n", p.ID, bank.PaymentKind(p.Service, p.Product, len(p.Items)), p.Service, p.Product)
	fmt.Fprintf(&b, "Status %s; funds available: %s\n", p.Status, fundsText(p.FundsAvailable))
	fmt.Fprintf(&b, "TPP %s; PSU %s", p.TPPID, partyName(pt, p.CustomerID))
	if c := s.contextText(p.Context); c != "" {
		fmt.Fprintf(&b, ", %s", c)
	}
	fmt.Fprintf(&b, "\nCreated %s; execution date %s\n", whenZoned(p.Created), dateText(p.ExecutionDate))
	if p.Status == bank.StatusPDNG && !p.RetryUntil.IsZero() {
		fmt.Fprintf(&b, "No cover yet: retried at every batch run until %s\n", p.RetryUntil)
	}
	debtor := refString(p.DebtorAccount)
	if a, ok := pt.Accounts[p.DebtorAccountID]; ok {
		debtor = a.Name + " " + a.IBAN
	}
	fmt.Fprintf(&b, "Debtor account: %s\n", debtor)
	bulk := p.Service == bank.ServiceBulk
	if bulk {
		fmt.Fprintf(&b, "Items (%d, %s in all):\n", len(p.Items), totalText(p))
	}
	for i, it := range p.Items {
		line := fmt.Sprintf("%s to %s, %s", itemAmount(it), it.CreditorName, refString(it.CreditorAccount))
		if it.KID != "" {
			line += ", KID " + it.KID
		}
		if it.Remittance != "" {
			line += fmt.Sprintf(", %q", it.Remittance)
		}
		if bulk && it.Status != "" {
			line += "  [" + it.Status + "]"
		}
		if bulk {
			fmt.Fprintf(&b, "  %d. %s\n", i+1, line)
		} else {
			fmt.Fprintf(&b, "Creditor: %s\n", line)
		}
	}
	if p.Fee.IsPositive() {
		fmt.Fprintf(&b, "Fee: %s NOK\n", bank.FormatAmount(p.Fee, "NOK"))
	}
	if len(p.Warnings) > 0 {
		b.WriteString("Warnings:\n")
		for _, w := range p.Warnings {
			if w.Path != "" {
				fmt.Fprintf(&b, "  %s: %s\n", w.Path, w.Text)
			} else {
				fmt.Fprintf(&b, "  %s\n", w.Text)
			}
		}
	}
	if len(p.Approvals) == 0 {
		b.WriteString("Approvals: none\n")
	} else {
		b.WriteString("Approvals:\n")
		for _, a := range p.Approvals {
			full := "enough on its own"
			if !a.Full {
				full = "needs a second approver"
			}
			fmt.Fprintf(&b, "  %s at %s (%s)\n", partyName(pt, a.CustomerID), whenZoned(a.Time), full)
		}
	}
	auths := "none"
	if len(p.Authorisations) > 0 {
		auths = strings.Join(p.Authorisations, ", ")
	}
	fmt.Fprintf(&b, "Authorisations: %s\n", auths)
	if p.BasketID != "" {
		fmt.Fprintf(&b, "Signing basket: %s\n", p.BasketID)
	}
	b.WriteString("\nStatus history:\n")
	for _, h := range p.History {
		b.WriteString("  " + historyLine(h) + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// showPayment shows the selected payment, read again with the request the
// TPP sent.
func (s *paymentsScreen) showPayment() {
	listed, ok := s.payment()
	enable(s.forceBtn, ok)
	if !ok {
		s.detail.SetText("Select a payment to see its accounts, approvals and status history.")
		s.request.SetText("")
		return
	}
	p, err := s.u.ops.Payment(listed.ID)
	if err != nil {
		s.detail.SetText(s.paymentText(listed, s.list.Parties))
		s.request.SetText("Cannot read the request: " + err.Error())
		return
	}
	s.detail.SetText(s.paymentText(p.Payment, p.Parties))
	body, err := json.MarshalIndent(p.Request, "", "  ")
	if err != nil {
		s.request.SetText("Cannot show the request: " + err.Error())
		return
	}
	s.request.SetText("The request body as the TPP sent it:\n" + string(body))
}

// force sets the selected payment's status by hand.
func (s *paymentsScreen) force() {
	p, ok := s.payment()
	if !ok {
		return
	}
	f := newForm(nil)
	status := widget.NewSelect(bank.PaymentStatuses, nil)
	status.PlaceHolder = "Choose the new status"
	f.add("New status", "status", status)
	note := f.text("Note", "note", "", "why, for the history, e.g. reproduces case 4711")
	help := helpText(fmt.Sprintf("Payment %s is %s. The new status is recorded in the history as forced, and the TPP reads it at its next request. Nothing is booked: forcing ACSC books nothing, and a final status (ACSC, ACWP, RJCT, CANC, PART) releases the payment's reservations. Batch runs skip the final statuses ACSC, ACWP, RJCT, CANC and PART; ACWP (accepted without posting) is reached only by forcing it.", p.ID, p.Status))
	m := s.u.showModal("Force the status of "+p.ID, "Force", f, help, func() error {
		_, err := s.u.ops.ForcePaymentStatus(p.ID, status.Selected, strings.TrimSpace(note.Text))
		return err
	}, s.reload)
	m.d.Resize(fyne.NewSize(620, 360)) // room for the wrapped help
}

// runBatch runs a batch now, in the background, and tells what it did.
func (s *paymentsScreen) runBatch() {
	var run bank.BatchRun
	s.u.longWork("Running a batch", func() (err error) {
		run, err = s.u.ops.RunBatch()
		return err
	}, func(err error) {
		s.reload()
		if err != nil {
			s.u.showError(err)
			return
		}
		s.u.info("Batch run", runSummary(run))
	})
}

// runSummary says in a sentence or two what a batch run did.
func runSummary(r bank.BatchRun) string {
	text := fmt.Sprintf("The run at %s took %s ms: %s.", r.Time.In(bank.Oslo).Format("2006-01-02 15:04:05 MST"), msText(r.Duration), bank.CountsText(r.Counts))
	if len(r.Errors) > 0 {
		text += fmt.Sprintf("\n%s could not be processed; the next run tries again (see Batch runs).", plural(len(r.Errors), "payment", "payments"))
	}
	return text
}

func (s *paymentsScreen) reloadBaskets() {
	baskets, err := s.u.ops.Baskets()
	if err != nil {
		s.u.showError(err)
		return
	}
	s.baskets = baskets
	s.basketTable.Refresh()
	reselect(s.basketTable, baskets, &s.basket, func(b bank.BasketView) string { return b.ID })
	s.showBasket()
}

func (s *paymentsScreen) basketCell(row, col int) string {
	b := s.baskets[row]
	switch col {
	case 0:
		return when(b.Created)
	case 1:
		return b.TPPID
	case 2:
		return fmt.Sprint(len(b.PaymentIDs))
	case 3:
		return b.Status
	case 4:
		if len(b.Authorisations) == 0 {
			return "none yet"
		}
		return strings.Join(b.Authorisations, ", ")
	}
	return ""
}

func (s *paymentsScreen) showBasket() {
	i := slices.IndexFunc(s.baskets, func(b bank.BasketView) bool { return b.ID == s.basket })
	if i < 0 {
		s.basketDetail.SetText("Select a basket to see its payments.")
		return
	}
	b := s.baskets[i]
	var t strings.Builder
	fmt.Fprintf(&t, "Basket %s of %s, created %s: %s\n", b.ID, b.TPPID, whenZoned(b.Created), b.Status)
	auths := "none yet"
	if len(b.Authorisations) > 0 {
		auths = strings.Join(b.Authorisations, ", ")
	}
	fmt.Fprintf(&t, "Authorisations: %s\n", auths)
	fmt.Fprintf(&t, "Payments (%d):\n", len(b.Payments))
	for _, p := range b.Payments {
		creditor := ""
		if len(p.Items) > 0 {
			creditor = " to " + p.Items[0].CreditorName
		}
		fmt.Fprintf(&t, "  %s  %s  %s %s%s\n", p.ID, p.Status, bank.PaymentKind(p.Service, p.Product, len(p.Items)), totalText(p), creditor)
	}
	s.basketDetail.SetText(strings.TrimSuffix(t.String(), "\n"))
}

func (s *paymentsScreen) reloadRuns() {
	page, err := s.u.ops.BatchRuns(0, maxRunsShown)
	if err != nil {
		s.u.showError(err)
		return
	}
	runs := page.Runs
	s.runs = runs
	c := s.u.ops.Clock()
	text := "Sandbox clock: " + c.Now.Format("Monday 2006-01-02 15:04 MST")
	if next, err := s.u.ops.NextBatchRun(); err == nil {
		text += ". Next scheduled batch run: " + next.In(bank.Oslo).Format("Monday 2006-01-02 15:04 MST")
	}
	if st, err := s.u.ops.Settings(); err == nil {
		text += fmt.Sprintf(" (banking days at %s; change the times on the Server screen).", strings.Join(st.BatchTimes, ", "))
	}
	s.next.SetText(text)
	s.runTable.Refresh()
	reselect(s.runTable, runs, &s.run, func(r bank.BatchRun) string { return r.ID })
	s.showRun()
}

func (s *paymentsScreen) runCell(row, col int) string {
	r := s.runs[row]
	switch col {
	case 0:
		return r.Time.In(bank.Oslo).Format("2006-01-02 15:04:05")
	case 1:
		return r.Trigger
	case 2:
		return msText(r.Duration)
	case 3:
		text := bank.CountsText(r.Counts)
		if len(r.Errors) > 0 {
			text += fmt.Sprintf("; %s", plural(len(r.Errors), "error", "errors"))
		}
		return text
	}
	return ""
}

func (s *paymentsScreen) showRun() {
	i := slices.IndexFunc(s.runs, func(r bank.BatchRun) bool { return r.ID == s.run })
	if i < 0 {
		s.runDetail.SetText("Select a run to see what it did to each payment.")
		return
	}
	r := s.runs[i]
	var t strings.Builder
	fmt.Fprintf(&t, "Run %s at %s (%s) took %s ms: %s.\n", r.ID, r.Time.In(bank.Oslo).Format("2006-01-02 15:04:05 MST"), r.Trigger, msText(r.Duration), bank.CountsText(r.Counts))
	if len(r.Outcomes) == 0 {
		t.WriteString("It moved no payment.\n")
	} else {
		fmt.Fprintf(&t, "Outcomes (%d", len(r.Outcomes))
		if len(r.Outcomes) >= bank.MaxBatchOutcomes {
			fmt.Fprintf(&t, "; a report keeps the first %d, the counts cover every payment", bank.MaxBatchOutcomes)
		}
		t.WriteString("):\n")
		for _, o := range r.Outcomes {
			line := fmt.Sprintf("  %s  %s → %s", o.PaymentID, o.From, o.To)
			if o.Reason != "" {
				line += "  " + o.Reason
			}
			t.WriteString(line + "\n")
		}
	}
	if len(r.Errors) > 0 {
		t.WriteString("Errors (the next run tries these payments again):\n")
		for _, e := range r.Errors {
			t.WriteString("  " + e + "\n")
		}
	}
	s.runDetail.SetText(strings.TrimSuffix(t.String(), "\n"))
}
