package bank_test

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"testing"

	"github.com/shopspring/decimal"

	"sandbank/bank"
)

// TestSettlement_MoneyIsConserved settles 10,000 payments between sandbox
// accounts, then checks that the sum of all balances is unchanged to the
// last øre and that every settled payment has exactly one booked
// transaction on each side.
func TestSettlement_MoneyIsConserved(t *testing.T) {
	s, db := newBank(t)
	db.SetNoSync(true) // 20,000 commits; a crash here loses nothing that matters
	accounts, err := s.Sandbox.Accounts()
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]string{} // IBAN -> the customerNumber who may pay from it
	var debtors, creditors []bank.AccountDetail
	for _, a := range accounts {
		if a.Currency != "NOK" {
			continue // one currency, so that sums compare to the øre
		}
		big := bank.NumberOf(decimal.NewFromInt(1_000_000))
		if _, err := s.Sandbox.SetAccountBalances(a.ID, []bank.BalanceInput{
			{BalanceType: "expected", BalanceAmount: bank.AmountInput{Amount: big, Currency: "NOK"}},
			{BalanceType: "closingBooked", BalanceAmount: bank.AmountInput{Amount: big, Currency: "NOK"}},
		}); err != nil {
			t.Fatal(err)
		}
		if !a.KIDRequired {
			creditors = append(creditors, a)
		}
		// Testfirma 1's own engagement cannot approve: leave its account
		// as a creditor only.
		if a.Owner.Number != "18129215603" {
			debtors = append(debtors, a)
			owners[a.IBAN] = a.Owner.Number
		}
	}
	sum := func() (expected, booked decimal.Decimal, bookedTxs int) {
		list, err := s.Sandbox.Accounts()
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range list {
			if a.Currency != "NOK" {
				continue
			}
			expected, booked = expected.Add(a.Balances.Expected), booked.Add(a.Balances.ClosingBooked)
			if err := db.View(func(tx bank.Tx) error {
				page, err := tx.Transactions(a.ID, bank.TxQuery{Limit: 1})
				bookedTxs += page.Total
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	expected0, booked0, txs0 := sum()

	// 10,000 credit transfers: 1,000 single payments and 90 bulk payments
	// of 100 items, each item settled on its own.
	const n, singles, bulks, perBulk = 10_000, 1_000, 90, 100
	rng := rand.New(rand.NewPCG(1, 2))
	item := func(from bank.AccountDetail, i int) bank.PaymentRequest {
		to := creditors[rng.IntN(len(creditors))]
		for to.ID == from.ID {
			to = creditors[rng.IntN(len(creditors))]
		}
		remittance := fmt.Sprintf("Betaling %d", i)
		return bank.PaymentRequest{
			InstructedAmount:                  &bank.AmountIn{Amount: bank.AmountText{Text: decimal.New(int64(100+rng.IntN(50_000)), -2).String()}, Currency: "NOK"},
			CreditorAccount:                   &bank.AccountIn{IBAN: to.IBAN},
			CreditorName:                      to.Owner.Name,
			RemittanceInformationUnstructured: &remittance,
		}
	}
	var ids []string
	for i := range singles + bulks {
		from := debtors[rng.IntN(len(debtors))]
		in := bank.PaymentInit{
			TPPID: "NO-FSA-933012867", Service: bank.ServiceSingle, Product: bank.ProductNDCT,
			RedirectURI: "https://tpp.example/cb", SessionID: "s",
		}
		if i < singles {
			in.Body = item(from, i)
		} else {
			in.Service = bank.ServiceBulk
			date := "2026-11-20"
			in.Body = bank.PaymentRequest{RequestedExecutionDate: &date, PaymentInformationID: fmt.Sprint("BULK-", i)}
			for j := range perBulk {
				in.Body.Payments = append(in.Body.Payments, item(from, i*perBulk+j))
			}
		}
		in.Body.DebtorAccount = &bank.AccountIn{IBAN: from.IBAN}
		created, err := s.PSD2.CreatePayment(in)
		if err != nil {
			t.Fatalf("payment %d: %v", i, err)
		}
		redirect, err := s.PSD2.AutomatedSCA("NO-FSA-933012867", created.Authorisation.ID, bank.AutoSCA{NationalID: owners[from.IBAN], Decision: "approve"})
		if err != nil {
			t.Fatalf("SCA of payment %d: %v", i, err)
		}
		if u, _ := url.Parse(redirect); u.Query().Get("psu-id") == "" {
			t.Fatalf("SCA of payment %d failed: %s", i, redirect)
		}
		ids = append(ids, created.Payment.ID)
	}
	run, err := s.Ops.RunBatch()
	if err != nil {
		t.Fatal(err)
	}
	if run.Counts[bank.StatusACSC] != singles+bulks || len(run.Errors) > 0 {
		t.Fatalf("batch run: %v, errors %v", run.Counts, run.Errors)
	}
	expected1, booked1, txs1 := sum()
	if !expected1.Equal(expected0) || !booked1.Equal(booked0) {
		t.Fatalf("balances moved in sum: expected %s → %s, booked %s → %s", expected0, expected1, booked0, booked1)
	}
	if txs1-txs0 != 2*n {
		t.Fatalf("%d booked transactions were added for %d payments, want %d", txs1-txs0, n, 2*n)
	}
	// Each transfer's two sides: its debit under its pending id, its
	// credit; nothing of it is pending any more.
	settled := 0
	err = db.View(func(tx bank.Tx) error {
		for _, id := range ids {
			p, err := tx.Payment(id)
			if err != nil {
				return err
			}
			if p.Status != bank.StatusACSC {
				return fmt.Errorf("payment %s is %s", id, p.Status)
			}
			pending, err := tx.PendingTransactions(p.DebtorAccountID)
			if err != nil {
				return err
			}
			for _, it := range p.Items {
				if it.Status != bank.StatusACSC {
					return fmt.Errorf("an item of payment %s is %q", id, it.Status)
				}
				debit, err := tx.Transaction(p.DebtorAccountID, it.PendingTxID)
				if err != nil || debit.Pending || !debit.Amount.Equal(it.Amount.Neg()) {
					return fmt.Errorf("payment %s: debit %+v, %v", id, debit, err)
				}
				credit, err := tx.Transaction(it.CreditorAccountID, it.CreditorTxID)
				if err != nil || credit.Pending || !credit.Amount.Equal(it.Amount) {
					return fmt.Errorf("payment %s: credit %+v, %v", id, credit, err)
				}
				for _, pt := range pending {
					if pt.ID == it.PendingTxID {
						return fmt.Errorf("payment %s is still pending", id)
					}
				}
				settled++
			}
		}
		return nil
	})
	if settled != n {
		t.Fatalf("%d transfers settled, want %d", settled, n)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestBasketStatus_WorstCase(t *testing.T) {
	p := func(statuses ...string) []bank.Payment {
		var out []bank.Payment
		for _, s := range statuses {
			out = append(out, bank.Payment{Status: s})
		}
		return out
	}
	for _, c := range []struct {
		in   []bank.Payment
		want string
	}{
		{p("RCVD", "RCVD"), "RCVD"},
		{p("ACTC", "ACSC"), "ACTC"},
		{p("RCVD", "ACTC"), "PATC"},
		{p("PATC", "ACTC"), "PATC"},
		{p("ACTC", "CANC"), "RJCT"},
		{p("PATC", "RJCT", "RCVD"), "RJCT"},
		{p("PDNG", "ACSP", "ACCP"), "ACTC"},
	} {
		if got := bank.BasketStatus(c.in); got != c.want {
			t.Errorf("BasketStatus(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}
