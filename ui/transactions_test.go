package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"sandbank/app"
	"sandbank/app/apptest"
	"sandbank/bank"
)

// choose selects an account in the transactions picker by IBAN or masked PAN.
func choose(t *testing.T, s *transactionsScreen, ref string) txChoice {
	t.Helper()
	for _, c := range s.choices {
		if strings.Contains(c.label, ref) {
			s.picker.SetSelected(c.label)
			return c
		}
	}
	t.Fatalf("no account %s in the picker", ref)
	return txChoice{}
}

func TestTransactions_AddGenerateDelete(t *testing.T) {
	h := newHarness(t, false)
	s := h.u.transactions
	c := choose(t, s, "NO3015030234569")
	before := s.model.rows()
	if before < 50 || !strings.Contains(s.status.Text, "booked transactions") {
		t.Fatalf("the known state shows %d rows: %s", before, s.status.Text)
	}
	// Add one: a future date is refused at its field.
	test.Tap(s.addBtn)
	h.typeInto("Amount", "149.90")
	h.typeInto("Booking date", h.core.Bank.Ops.Today().AddDays(3).String())
	h.typeInto("Counterparty name", "Kiosk AS")
	h.typeInto("Counterparty account", "86011117947")
	h.typeInto("Remittance", "Avis")
	test.Tap(h.modal().submit)
	if got := h.modal().form.errorText("[0].bookingDate"); !strings.Contains(got, "future") {
		t.Fatalf("booking date shows %q", got)
	}
	h.typeInto("Booking date", h.core.Bank.Ops.Today().String())
	h.typeInto("Counterparty account", "NO2815030345670") // a sandbox account: refused
	test.Tap(h.modal().submit)
	if got := h.modal().form.errorText("[0].creditorAccount"); !strings.Contains(got, "sandbox account") {
		t.Fatalf("counterparty shows %q", got)
	}
	h.typeInto("Counterparty account", "86011117947")
	test.Tap(h.modal().submit)
	if h.u.topModal() != nil {
		t.Fatalf("refused: %s", h.modal().form.general.Text)
	}
	page, _ := h.core.Bank.Sandbox.Transactions(c.id, bank.TxQuery{Limit: 1})
	if got := page.Transactions[0]; !got.Amount.Equal(mustDecimal("-149.90")) || got.CreditorName != "Kiosk AS" || got.CreditorAccount.BBAN != "86011117947" {
		t.Fatalf("stored %+v", got)
	}
	if s.model.rows() != before+1 || s.model.row(0)[2] != "-149.90" {
		t.Fatalf("the table shows %d rows, first %v", s.model.rows(), s.model.row(0))
	}
	// A credit names the counterparty as debtor.
	test.Tap(s.addBtn)
	h.field("Direction").(*widget.RadioGroup).SetSelected("Credit (money in)")
	h.typeInto("Amount", "5000")
	h.typeInto("Counterparty name", "Arbeidsgiver")
	h.typeInto("Counterparty account", "NO9386011117947")
	test.Tap(h.modal().submit)
	page, _ = h.core.Bank.Sandbox.Transactions(c.id, bank.TxQuery{Limit: 1})
	if got := page.Transactions[0]; !got.Amount.Equal(mustDecimal("5000")) || got.DebtorName != "Arbeidsgiver" {
		t.Fatalf("credit stored as %+v", got)
	}

	// Generate in the background with progress.
	test.Tap(s.genBtn)
	h.typeInto("How many", "0")
	test.Tap(h.modal().submit)
	if got := h.modal().form.errorText("count"); !strings.Contains(got, "whole number") {
		t.Fatalf("count shows %q", got)
	}
	h.typeInto("How many", "3000")
	h.field("Profile").(*widget.Select).SetSelected("business")
	test.Tap(h.modal().submit)
	h.u.work.Wait()
	if got := s.model.rows(); got != before+2+3000 {
		t.Fatalf("after generating 3000 the table shows %d rows, want %d", got, before+2+3000)
	}
	// Delete all after confirmation.
	test.Tap(s.clearBtn)
	test.Tap(h.modal().submit)
	h.u.work.Wait()
	if s.model.rows() != 0 {
		t.Fatalf("%d rows after delete all", s.model.rows())
	}
}

func TestTransactions_CardAccount(t *testing.T) {
	h := newHarness(t, false)
	s := h.u.transactions
	choose(t, s, "525412******3241")
	if !s.addBtn.Disabled() || s.model.rows() == 0 || len(s.model.pending) == 0 {
		t.Fatalf("card: add enabled %v, rows %d, pending %d", !s.addBtn.Disabled(), s.model.rows(), len(s.model.pending))
	}
	if s.model.row(0)[0] != "pending" || !strings.Contains(s.status.Text, "pending") {
		t.Fatalf("pending first: %v / %s", s.model.row(0), s.status.Text)
	}
	before := s.model.rows()
	test.Tap(s.genBtn)
	h.typeInto("How many", "250")
	test.Tap(h.modal().submit)
	h.u.work.Wait()
	if s.model.rows() != before+250 {
		t.Fatalf("%d rows, want %d", s.model.rows(), before+250)
	}
}

func TestTransactions_GenerationCancels(t *testing.T) {
	h := newHarness(t, false)
	acct, _ := h.core.Bank.Sandbox.Accounts()
	ctx, cancel := context.WithCancel(context.Background())
	done, err := h.core.Bank.Sandbox.GenerateTransactions(ctx, acct[0].ID, "everyday", 100_000, func(done int) {
		if done >= 20_000 {
			cancel()
		}
	})
	if err == nil || done != 20_000 {
		t.Fatalf("cancelled after the first batch: done %d, err %v", done, err)
	}
}

// TestTransactions_TableReadsOnePageAtATimeAtScale scrolls a table over an
// account of 100,000 transactions and counts the rows read from the bank.
func TestTransactions_TableReadsOnePageAtATimeAtScale(t *testing.T) {
	apptest.AtScale(t)
	n := apptest.Records(t, "SANDBANK_TABLE_TRANSACTIONS", 100_000)
	t.Setenv("LANG", "en_US.UTF-8")
	path := apptest.BigFixture(t, n)
	a := testApp()
	core, err := app.Open(app.Config{DataPath: path})
	if err != nil {
		t.Fatal(err)
	}
	w := test.NewWindow(nil)
	u := newUI(a, w, core)
	w.SetContent(u.Content())
	w.Resize(fyne.NewSize(1280, 800))
	defer func() { u.Close(); w.Close(); _ = core.Close() }()
	u.tabs.SelectIndex(2)
	s := u.transactions
	c := choose(t, s, apptest.FixtureIBAN)
	m := s.model
	if m.rows() < n || m.rowsRead != pageSize {
		t.Fatalf("opening the account read %d rows (want one page, %d) of %d", m.rowsRead, pageSize, m.rows())
	}
	for _, row := range []int{n * 3 / 4, n*3/4 + 10, n - 10, 37} {
		before := m.rowsRead
		s.table.ScrollTo(widget.TableCellID{Row: row, Col: 0})
		s.table.Refresh()
		read := m.rowsRead - before
		if read > 2*pageSize {
			t.Fatalf("scrolling to row %d read %d rows; the table must read at most the page or two it shows", row, read)
		}
		want, _ := core.Bank.Sandbox.Transactions(c.id, bank.TxQuery{Offset: row, Limit: 1})
		if got := m.row(row)[0]; got != want.Transactions[0].BookingDate.String() {
			t.Fatalf("row %d shows %s, the bank has %s", row, got, want.Transactions[0].BookingDate)
		}
		t.Logf("scroll to row %d read %d rows", row, read)
	}
	if len(m.pages) > cachedPages {
		t.Fatalf("%d pages cached", len(m.pages))
	}

}
