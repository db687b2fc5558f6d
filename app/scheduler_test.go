package app_test

import (
	"testing"
	"time"

	"sandbank/app"
	"sandbank/bank"
)

// shiftedClock runs at the real pace from another moment.
type shiftedClock struct{ by time.Duration }

func (c shiftedClock) Now() time.Time { return time.Now().Add(c.by) }

// TestScheduler_RunsAtTheBatchTime: with nobody asking, the scheduler makes
// the 09:00 run when the sandbox clock passes it, and the run settles a
// due payment.
func TestScheduler_RunsAtTheBatchTime(t *testing.T) {
	day := bank.NextBankingDay(bank.DateOf(time.Now()).AddDays(2))
	nine := time.Date(day.Year, day.Month, day.Day, 9, 0, 0, 0, bank.Oslo)
	// The bank starts an hour before 09:00 on that day, so that however
	// busy the machine, the payment is approved before the run.
	a := open(t, app.Config{Clock: shiftedClock{by: time.Until(nine) - time.Hour}})
	remittance := "Husleie"
	created, err := a.Bank.PSD2.CreatePayment(bank.PaymentInit{
		TPPID: "NO-FSA-1", Service: bank.ServiceSingle, Product: bank.ProductNDCT, RedirectURI: "https://tpp.example/cb", SessionID: "s",
		Body: bank.PaymentRequest{
			InstructedAmount: &bank.AmountIn{Amount: bank.AmountText{Text: "250"}, Currency: "NOK"},
			DebtorAccount:    &bank.AccountIn{IBAN: "NO3815030123457"}, CreditorAccount: &bank.AccountIn{IBAN: "NO3015030234569"},
			CreditorName: "Test Testperson 2", RemittanceInformationUnstructured: &remittance,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Bank.PSD2.AutomatedSCA("NO-FSA-1", created.Authorisation.ID, bank.AutoSCA{NationalID: "13039319955", Decision: "approve"}); err != nil {
		t.Fatal(err)
	}
	// Then the clock moves to 2 s before 09:00, and the scheduler, woken
	// by the move, makes the run when it is due.
	twoBefore := nine.Add(-2 * time.Second).Format(time.RFC3339)
	if _, err := a.Bank.Ops.SetClock(bank.ClockChange{Now: &twoBefore}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		p, err := a.Bank.Ops.Payment(created.Payment.ID)
		if err != nil {
			t.Fatal(err)
		}
		if p.Status == bank.StatusACSC {
			last := p.History[len(p.History)-1]
			if !last.Time.Equal(nine) || last.By != "batch run "+nine.Format("2006-01-02 15:04") {
				t.Fatalf("settled by %q at %s, want the 09:00 run", last.By, last.Time)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the payment is still %s a minute after the 09:00 run was due", p.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The run's report is stored after the payments it settled, in its own
	// storage transaction: wait for it too.
	for {
		page, err := a.Bank.Ops.BatchRuns(0, 10)
		runs := page.Runs
		if err != nil || len(runs) > 1 || (len(runs) == 1 && (runs[0].Trigger != bank.TriggerSchedule || runs[0].Counts[bank.StatusACSC] != 1)) {
			t.Fatalf("runs %+v, %v", runs, err)
		}
		if len(runs) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the 09:00 run settled the payment but left no report")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
