package bank_test

import (
	"fmt"
	"testing"

	"github.com/shopspring/decimal"

	"sandbank/bank"
)

// fundedPair returns the known state's accounts NO1615030123465, given
// amount as its booked and expected balance, and NO3815030123457: a
// debtor with cover for every payment and a creditor.
func fundedPair(tb testing.TB, s *bank.Bank, amount int64) (from, to bank.AccountDetail) {
	tb.Helper()
	accounts, err := s.Sandbox.Accounts()
	if err != nil {
		tb.Fatal(err)
	}
	for _, a := range accounts {
		switch a.IBAN {
		case "NO1615030123465":
			from = a
		case "NO3815030123457":
			to = a
		}
	}
	big := bank.NumberOf(decimal.NewFromInt(amount))
	if _, err := s.Sandbox.SetAccountBalances(from.ID, []bank.BalanceInput{
		{BalanceType: "expected", BalanceAmount: bank.AmountInput{Amount: big, Currency: "NOK"}},
		{BalanceType: "closingBooked", BalanceAmount: bank.AmountInput{Amount: big, Currency: "NOK"}},
	}); err != nil {
		tb.Fatal(err)
	}
	return from, to
}

// BenchmarkBatchRun_100kDuePayments measures one batch run that settles
// 100,000 due NDCT payments between the known state's accounts, each with
// its pending debit, cover check, two booked transactions and two balance
// updates. The payments are written straight to storage (authorised,
// ACTC) so that building them stays out of the measurement.
func BenchmarkBatchRun_100kDuePayments(b *testing.B) {
	const n = 100_000
	for b.Loop() {
		b.StopTimer()
		s, db := newBank(b)
		db.SetNoSync(true)
		from, to := fundedPair(b, s, 1_000_000_000)
		fromSeq, _ := bank.SeqOf(bank.KindAccount, from.ID)
		today := bank.DateOf(s.Ops.Now())
		for done := 0; done < n; done += 5000 {
			err := db.Update(func(tx bank.Tx) error {
				var pending []bank.Transaction
				for i := done; i < done+5000; i++ {
					seq, err := tx.NextSeq(bank.KindPayment)
					if err != nil {
						return err
					}
					txSeq, err := tx.NextSeq(bank.KindTransaction)
					if err != nil {
						return err
					}
					amount := decimal.New(int64(100+i%10_000), -2)
					it := bank.PaymentItem{
						Amount: amount, Currency: "NOK", CreditorName: to.Owner.Name, CreditorAccount: bank.AccountRef{IBAN: to.IBAN},
						CreditorAccountID: to.ID, Remittance: fmt.Sprint("Betaling ", i), PendingTxID: bank.FormatID(bank.KindTransaction, fromSeq, txSeq),
					}
					p := bank.Payment{
						ID: bank.FormatID(bank.KindPayment, 0, seq), TPPID: "NO-FSA-933012867", Service: bank.ServiceSingle, Product: bank.ProductNDCT,
						Status: bank.StatusACTC, Created: s.Ops.Now(), CustomerID: from.OwnerID, Context: bank.ContextPrivate,
						DebtorAccountID: from.ID, DebtorAccount: bank.AccountRef{IBAN: from.IBAN}, ExecutionDate: today, Items: []bank.PaymentItem{it},
						History: []bank.StatusChange{{Time: s.Ops.Now(), To: bank.StatusRCVD, By: "bench"}, {Time: s.Ops.Now(), From: bank.StatusRCVD, To: bank.StatusACTC, By: "bench"}},
					}
					if err := tx.PutPayment(p); err != nil {
						return err
					}
					pending = append(pending, bank.Transaction{ID: it.PendingTxID, Amount: amount.Neg(), Currency: "NOK", BookingDate: today, ValueDate: today, Pending: true, CreditorName: it.CreditorName, CreditorAccount: it.CreditorAccount})
				}
				return tx.PutTransactions(from.ID, pending)
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		db.SetNoSync(false) // the run commits as the bank does
		b.StartTimer()
		run, err := s.Ops.RunBatch()
		if err != nil {
			b.Fatal(err)
		}
		if run.Counts[bank.StatusACSC] != n || len(run.Errors) > 0 {
			b.Fatalf("run counts %v, errors %v", run.Counts, run.Errors)
		}
		b.ReportMetric(float64(n)/run.Duration.Seconds(), "payments/s")
	}
}
