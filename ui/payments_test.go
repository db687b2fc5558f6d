package ui

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"sandbank/bank"
	"sandbank/bank/scenario"
)

const payTPP = "NO-FSA-1"

// bankingMorning moves the sandbox clock to 10:30 on a banking day ahead,
// between the 09:00 and 12:00 batch runs, so that a payment created now is
// due at once and waits for the next run.
func (h *harness) bankingMorning() bank.Date {
	h.t.Helper()
	d := bank.NextBankingDay(bank.DateOf(h.core.Bank.Ops.Now()).AddDays(2))
	now := time.Date(d.Year, d.Month, d.Day, 10, 30, 0, 0, bank.Oslo).Format(time.RFC3339)
	if _, err := h.core.Bank.Ops.SetClock(bank.ClockChange{Now: &now}); err != nil {
		h.t.Fatal(err)
	}
	return d
}

// pay creates an NDCT payment of amount NOK from Test Testperson 1's
// Brukskonto to Test Testperson 2's; approve makes the PSU approve it at
// SCA.
func (h *harness) pay(amount string, approve bool) bank.Payment {
	h.t.Helper()
	created, err := h.core.Bank.PSD2.CreatePayment(bank.PaymentInit{
		TPPID: payTPP, RedirectURI: "https://tpp.example/cb", SessionID: "s",
		Service: bank.ServiceSingle, Product: bank.ProductNDCT,
		Body: bank.PaymentRequest{
			InstructedAmount: &bank.AmountIn{Amount: bank.AmountText{Text: amount}, Currency: "NOK"},
			DebtorAccount:    &bank.AccountIn{IBAN: "NO3815030123457"},
			CreditorAccount:  &bank.AccountIn{IBAN: "NO3015030234569"},
			CreditorName:     "Test Testperson 2",
		},
	})
	if err != nil {
		h.t.Fatal(err)
	}
	if approve {
		if _, err := h.core.Bank.PSD2.AutomatedSCA(payTPP, created.Authorisation.ID, bank.AutoSCA{NationalID: "13039319955", Decision: "approve"}); err != nil {
			h.t.Fatal(err)
		}
	}
	p, err := h.core.Bank.Ops.Payment(created.Payment.ID)
	if err != nil {
		h.t.Fatal(err)
	}
	return p.Payment
}

func rowOf(cells func(row, col int) string, row, cols int) []string {
	var out []string
	for col := range cols {
		out = append(out, cells(row, col))
	}
	return out
}

func TestPayments_ListFilterHistoryAndForce(t *testing.T) {
	h := newHarness(t, false)
	s := h.u.payments
	day := h.bankingMorning()
	approved := h.pay("100", true)
	waiting := h.pay("250.5", false)
	h.u.catchUp()

	if len(s.list.Payments) != 2 || s.count.Text != "2 payments" {
		t.Fatalf("%d payments shown, count %q", len(s.list.Payments), s.count.Text)
	}
	// Newest first: the waiting payment, then the approved one.
	if got := rowOf(s.paymentCell, 0, len(paymentColumns)); got[1] != "NDCT" || got[3] != "—" || got[4] != "250.50 NOK" || got[5] != bank.StatusRCVD || got[6] != "—" {
		t.Fatalf("the waiting payment's row %q", got)
	}
	// Authorisation held the money, so funds are available at once.
	want := []string{when(approved.Created), "NDCT", payTPP, "Test Testperson 1 (13039319955)", "100.00 NOK", bank.StatusACTC, "yes", day.String()}
	if got := rowOf(s.paymentCell, 1, len(paymentColumns)); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("the approved payment's row\n got %q\nwant %q", got, want)
	}

	// The status filter narrows the list.
	s.status.SetSelected(bank.StatusACTC)
	if len(s.list.Payments) != 1 || s.list.Payments[0].ID != approved.ID || s.count.Text != "1 payment in ACTC" {
		t.Fatalf("filter ACTC: %d payments, count %q", len(s.list.Payments), s.count.Text)
	}
	s.status.SetSelected(bank.StatusACSC)
	if len(s.list.Payments) != 0 || s.count.Text != "no payments in ACSC" {
		t.Fatalf("filter ACSC: %d payments, count %q", len(s.list.Payments), s.count.Text)
	}
	s.status.SetSelected(allStatuses)

	// Selecting a payment shows its history and the request.
	if !s.forceBtn.Disabled() {
		t.Fatal("Force status… is enabled without a selection")
	}
	s.table.Select(widget.TableCellID{Row: 1, Col: 0})
	for _, want := range []string{
		"Payment " + approved.ID, "Debtor account: Brukskonto NO3815030123457", "Creditor: 100.00 NOK to Test Testperson 2, NO3015030234569",
		"RCVD  by TPP NO-FSA-1: created",
		"RCVD → ACTC  by PSU Test Testperson 1 (13039319955): authorised",
	} {
		if !strings.Contains(s.detail.Text, want) {
			t.Fatalf("the detail lacks %q:\n%s", want, s.detail.Text)
		}
	}
	if !strings.Contains(s.request.Text, `"creditorName": "Test Testperson 2"`) {
		t.Fatalf("the request shows %q", s.request.Text)
	}

	// A new payment keeps the selection on the same payment.
	h.pay("300", false)
	h.u.catchUp()
	if s.selected != approved.ID || !strings.Contains(s.detail.Text, approved.ID) {
		t.Fatalf("the selection moved to %q", s.selected)
	}

	// Force status…: a status is required; then RJCT with a note.
	test.Tap(s.forceBtn)
	test.Tap(h.modal().submit)
	if h.modal().form.errorText("status") == "" {
		t.Fatal("no error at the status without a choice")
	}
	h.field("New status").(*widget.Select).SetSelected(bank.StatusRJCT)
	h.typeInto("Note", "reproduces case 4711")
	test.Tap(h.modal().submit)
	if h.u.topModal() != nil {
		t.Fatalf("the dialog stays open: %s", h.modal().form.general.Text)
	}
	p, err := h.core.Bank.Ops.Payment(approved.ID)
	if err != nil {
		t.Fatal(err)
	}
	last := p.History[len(p.History)-1]
	if p.Status != bank.StatusRJCT || !last.Forced || last.Reason != "reproduces case 4711" || last.From != bank.StatusACTC {
		t.Fatalf("after forcing: %s, %+v", p.Status, last)
	}
	if !strings.Contains(s.detail.Text, "ACTC → RJCT  by support (forced): reproduces case 4711  [FORCED]") {
		t.Fatalf("the history shows:\n%s", s.detail.Text)
	}
	if row := slices.IndexFunc(s.list.Payments, func(p bank.Payment) bool { return p.ID == approved.ID }); row != 2 || s.paymentCell(row, 5) != bank.StatusRJCT {
		t.Fatalf("the table shows %s in row %d", s.paymentCell(row, 5), row)
	}
	// The other payment is untouched.
	if p, _ := h.core.Bank.Ops.Payment(waiting.ID); p.Status != bank.StatusRCVD {
		t.Fatalf("the other payment is %s", p.Status)
	}
}

func TestPayments_RunBatchNowSettles(t *testing.T) {
	h := newHarness(t, false)
	s := h.u.payments
	h.bankingMorning()
	p := h.pay("100", true)
	h.u.catchUp()
	if p.Status != bank.StatusACTC || s.paymentCell(0, 5) != bank.StatusACTC {
		t.Fatalf("the payment is %s before the run", p.Status)
	}
	if !strings.Contains(s.next.Text, "Next scheduled batch run") || !strings.Contains(s.next.Text, " 12:00") {
		t.Fatalf("the next run shows %q", s.next.Text)
	}

	test.Tap(s.runBtn)
	h.u.work.Wait()
	if got, _ := h.core.Bank.Ops.Payment(p.ID); got.Status != bank.StatusACSC {
		t.Fatalf("after the run the payment is %s", got.Status)
	}
	if len(h.u.dialogs) != 1 || h.u.topModal() != nil {
		t.Fatalf("%d dialogs after the run; want the counts", len(h.u.dialogs))
	}
	h.u.catchUp()
	if got := rowOf(s.paymentCell, 0, len(paymentColumns)); got[5] != bank.StatusACSC || got[6] != "yes" {
		t.Fatalf("the payment's row after the run %q", got)
	}
	if len(s.runs) == 0 {
		t.Fatal("no batch runs shown")
	}
	if got := rowOf(s.runCell, 0, len(batchRunColumns)); got[1] != bank.TriggerManual || got[3] != "ACSC 1" {
		t.Fatalf("the newest run's row %q", got)
	}
	s.runTable.Select(widget.TableCellID{Row: 0, Col: 0})
	if !strings.Contains(s.runDetail.Text, p.ID+"  ACTC → ACSC  settled") {
		t.Fatalf("the run's detail:\n%s", s.runDetail.Text)
	}
	// The history names the run.
	s.table.Select(widget.TableCellID{Row: 0, Col: 0})
	if !strings.Contains(s.detail.Text, "ACTC → ACSC  by batch run") {
		t.Fatalf("the history:\n%s", s.detail.Text)
	}
}

func TestPayments_Baskets(t *testing.T) {
	h := newHarness(t, false)
	s := h.u.payments
	h.bankingMorning()
	a, b := h.pay("10", false), h.pay("20", false)
	view, err := h.core.Bank.PSD2.CreateBasket(payTPP, "", []string{a.ID, b.ID})
	if err != nil {
		t.Fatal(err)
	}
	h.u.catchUp()
	if len(s.baskets) != 1 {
		t.Fatalf("%d baskets shown", len(s.baskets))
	}
	want := []string{when(view.Created), payTPP, "2", bank.StatusRCVD, "none yet"}
	if got := rowOf(s.basketCell, 0, len(basketColumns)); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("the basket's row %q", got)
	}
	s.basketTable.Select(widget.TableCellID{Row: 0, Col: 0})
	for _, want := range []string{"Basket " + view.ID, a.ID + "  RCVD  NDCT 10.00 NOK", b.ID + "  RCVD  NDCT 20.00 NOK"} {
		if !strings.Contains(s.basketDetail.Text, want) {
			t.Fatalf("the basket's detail lacks %q:\n%s", want, s.basketDetail.Text)
		}
	}
	// A payment of the basket names it.
	s.table.Select(widget.TableCellID{Row: 0, Col: 0})
	if !strings.Contains(s.detail.Text, "Signing basket: "+view.ID) {
		t.Fatalf("the payment's detail:\n%s", s.detail.Text)
	}
	// A reset empties the lists.
	if _, err := scenario.Initialize(h.core.Bank.Sandbox); err != nil {
		t.Fatal(err)
	}
	h.u.catchUp()
	if len(s.baskets) != 0 || len(s.list.Payments) != 0 || s.selected != "" {
		t.Fatalf("after a reset: %d baskets, %d payments", len(s.baskets), len(s.list.Payments))
	}
}

// settingsJSON is the stored settings, to tell that nothing changed.
func (h *harness) settingsJSON() string {
	h.t.Helper()
	st, err := h.core.Bank.Ops.Settings()
	if err != nil {
		h.t.Fatal(err)
	}
	b, _ := json.Marshal(st)
	return string(b)
}

func TestServer_PaymentSettingsAndFaults(t *testing.T) {
	h := newHarness(t, false)
	s := h.u.server
	if s.batchTimes.Text != "06:00, 09:00, 12:00, 15:00, 18:00" || s.retryDays.Text != "3" || s.ncbctFee.Text != "250.00" ||
		s.exemption.Selected != bank.ExemptNever || !strings.Contains(s.fx.Text, "EUR 11.65") || !strings.HasPrefix(s.fx.Text, "AUD ") ||
		s.latency.Text != "0" || s.errorRate.Text != "0" || s.outage.Checked || s.batchMode.Selected != bank.BatchSchedule || s.logCount.Text != "2000" || s.logBytes.Text != "33554432" {
		t.Fatalf("the defaults show %q %q %q %q %q %q %q %v %q %q %q", s.batchTimes.Text, s.retryDays.Text, s.ncbctFee.Text, s.exemption.Selected, s.fx.Text, s.latency.Text, s.errorRate.Text, s.outage.Checked, s.batchMode.Selected, s.logCount.Text, s.logBytes.Text)
	}

	// Typing values and Save stores them all at once.
	for e, text := range map[*entry]string{
		s.batchTimes: "07:00, 13:30", s.retryDays: "5", s.ncbctFee: "99,50",
		s.fx: "NOK 1\nusd 10\nEUR 11,20", s.latency: "250", s.errorRate: "0.1", s.logCount: "300", s.logBytes: "2 097 152",
	} {
		e.SetText("")
		test.Type(e, text)
	}
	s.exemption.SetSelected(bank.ExemptOwnAccounts)
	s.batchMode.SetSelected(bank.BatchImmediate)
	s.outage.SetChecked(true)
	test.Tap(s.paySave)
	st, _ := h.core.Bank.Ops.Settings()
	if strings.Join(st.BatchTimes, " ") != "07:00 13:30" || st.CoverRetryDays != 5 || st.NCBCTFee.String() != "99.5" || st.Exemption != bank.ExemptOwnAccounts ||
		st.FX["USD"].String() != "10" || st.FX["EUR"].String() != "11.2" || st.BatchMode != bank.BatchImmediate ||
		st.RequestLog != (bank.RequestLogLimits{MaxCount: 300, MaxBytes: 2 << 20}) ||
		st.Faults != (bank.Faults{LatencyMs: 250, ErrorRate: 0.1, Outage: true}) {
		t.Fatalf("stored %+v (form: %s)", st, s.payForm.general.Text)
	}
	if f := h.core.Bank.Ops.Faults(); f.LatencyMs != 250 || !f.Outage {
		t.Fatalf("the faults in force %+v", f)
	}
	if n, b := h.core.RequestLog().Limits(); n != 300 || b != 2<<20 {
		t.Fatalf("the request log keeps %d requests and %d bytes", n, b)
	}
	if lines := strings.Split(s.fx.Text, "\n"); !slices.IsSorted(lines) || !slices.Contains(lines, "EUR 11.2") || !slices.Contains(lines, "USD 10") || s.ncbctFee.Text != "99.50" {
		t.Fatalf("after saving the form shows %q and %q", s.fx.Text, s.ncbctFee.Text)
	}
	h.u.catchUp()
	if !strings.Contains(h.u.payments.next.Text, "07:00, 13:30") {
		t.Fatalf("the batch runs tab shows %q", h.u.payments.next.Text)
	}

	// A bad value shows at its field, and nothing is stored.
	before := h.settingsJSON()
	for _, c := range []struct {
		field *entry
		text  string
		path  string
		want  string
	}{
		{s.batchTimes, "06:00, 25:00", "batchTimes", `"25:00" is not a time of day`},
		{s.batchTimes, "", "batchTimes", "at least one"},
		{s.fx, "NOK 1\nEUR abc", "fxRates", `EUR: "abc" is not a rate`},
		{s.fx, "NOK 2\nEUR 11", "fxRates", "NOK: must be 1"},
		{s.fx, "NOK 1\nEUR", "fxRates", "a currency and its rate"},
		{s.fx, "NOK 1\nEUR 11\neur 12", "fxRates", "EUR: given twice"},
		{s.fx, "NOK 1\nXYZ 3", "fxRates", "XYZ: \"XYZ\" is not a supported ISO 4217 currency code"},
		{s.logCount, "0", "requestLog.maxCount", "1 to 100000"},
		{s.logCount, "many", "requestLog.maxCount", "not a whole number"},
		{s.logBytes, "1024", "requestLog.maxBytes", "1 MiB"},
		{s.errorRate, "2", "faults.errorRate", "from 0 to 1"},
		{s.errorRate, "often", "faults.errorRate", "not a number"},
		{s.latency, "-1", "faults.latencyMs", "0 to 60000"},
		{s.retryDays, "three", "coverRetryDays", "not a whole number"},
		{s.ncbctFee, "-5", "ncbctFee", "from 0"},
		{s.ncbctFee, "12.345", "ncbctFee", "3 decimals"},
	} {
		s.reloadSettings()
		c.field.SetText(c.text)
		test.Tap(s.paySave)
		if got := s.payForm.errorText(c.path); !strings.Contains(got, c.want) {
			t.Errorf("%s %q: the field shows %q, want %q (general %q)", c.path, c.text, got, c.want, s.payForm.general.Text)
		}
		if h.settingsJSON() != before {
			t.Fatalf("%s %q was stored", c.path, c.text)
		}
	}
	// A text that does not read is shown with what the bank finds in the rest.
	s.reloadSettings()
	s.retryDays.SetText("x")
	s.errorRate.SetText("2")
	test.Tap(s.paySave)
	if s.payForm.errorText("coverRetryDays") == "" || s.payForm.errorText("faults.errorRate") == "" {
		t.Fatalf("both findings: %q, %q", s.payForm.errorText("coverRetryDays"), s.payForm.errorText("faults.errorRate"))
	}

	// A change made elsewhere shows here.
	if _, err := h.core.Bank.Ops.SetFaults(bank.Faults{LatencyMs: 10}); err != nil {
		t.Fatal(err)
	}
	h.u.catchUp()
	if s.latency.Text != "10" || s.errorRate.Text != "0" || s.outage.Checked || s.retryDays.Text != "5" {
		t.Fatalf("after SetFaults the form shows %q %q %v", s.latency.Text, s.errorRate.Text, s.outage.Checked)
	}
}
