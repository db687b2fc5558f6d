package psd2api_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"sandbank/app/apptest"
	"sandbank/bank"
)

// answered reports whether r has the status wanted, and reports a test
// error when not. Unlike expect it may run on any goroutine.
func answered(t *testing.T, r apptest.Response, status int, what string) bool {
	t.Helper()
	if r.Status != status {
		t.Errorf("%s: status %d, want %d: %s", what, r.Status, status, r.Body)
		return false
	}
	return true
}

func number(v string) *bank.Number { return &bank.Number{Value: decimal.RequireFromString(v)} }

// guiBalances are the balances the accounts screen saves: both types.
func guiBalances(closing, expected string) []bank.BalanceInput {
	return []bank.BalanceInput{
		{BalanceType: bank.BalanceClosingBooked, BalanceAmount: bank.AmountInput{Amount: number(closing), Currency: "NOK"}},
		{BalanceType: bank.BalanceExpected, BalanceAmount: bank.AmountInput{Amount: number(expected), Currency: "NOK"}},
	}
}

// guiEditAccount saves an account the way the accounts screen does: the
// form shows the stored account, the tester changes the name and the credit
// line, and Save sends every field of the form.
func guiEditAccount(s *bank.Bank, id, name, credit string) error {
	d, err := s.Sandbox.Account(id)
	if err != nil {
		return err
	}
	product, typ, status, kid := d.Product, d.CashAccountType, d.Status, d.KIDRequired
	_, err = s.Sandbox.UpdateAccount(id, bank.AccountChange{AccountName: &name, Product: &product, CashAccountType: &typ, CreditLine: number(credit), KIDRequired: &kid, Status: &status})
	return err
}

// guiTransaction is what the transactions screen posts: one credit.
func guiTransaction(acct account, remittance, booking string) bank.NewTransaction {
	empty, owner, party := "", "Test Testperson 1", "Innbetaler"
	return bank.NewTransaction{
		Amount: number("12.50"), Currency: "NOK", BookingDate: booking, ValueDate: booking,
		RemittanceInformationUnstructured: &remittance, CreditorID: &empty, UltimateCreditor: &empty, UltimateDebtor: &empty,
		PurposeCode: &empty, BankTransactionCode: "PMNT-RCDT-ESCT",
		DebtorAccount: &bank.AccountRef{BBAN: "86011117947"}, CreditorAccount: &bank.AccountRef{IBAN: acct.IBAN},
		DebtorName: &party, CreditorName: &owner,
	}
}

// TestConcurrent_GUIEditsAndAPIWritesLoseNothing runs the desktop screens'
// service calls and signed API writes at once on the same records, and
// checks that every update is there afterwards and that the last write of
// each field is the one that stays.
func TestConcurrent_GUIEditsAndAPIWritesLoseNothing(t *testing.T) {
	start := time.Now()
	b, tpp := setup(t)
	s := b.Bank
	x := knownAccount(t, b, tpp, ibanT1Bruk)  // GUI edits it; the API posts to it and pays from it
	y := knownAccount(t, b, tpp, ibanT1Spare) // GUI renames it; the API sets its balances
	var t2 customer
	b.Do(tpp, "GET", "/v1/sandbox/customers/"+knownIDs["customer "+t2Number], nil).JSON(t, &t2)
	customersBefore, err := s.Sandbox.Customers(false, false)
	if err != nil {
		t.Fatal(err)
	}
	txBefore, err := s.Sandbox.Transactions(x.ID, bank.TxQuery{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	paymentsBefore, err := s.Ops.Payments(bank.PaymentFilter{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}

	const rounds = 25
	// Free account numbers for the accounts both sides open for customer 2.
	numbers := map[string]bool{}
	for len(numbers) < 2*rounds {
		bban, _, err := s.Sandbox.NewAccountNumber()
		if err != nil {
			t.Fatal(err)
		}
		numbers[bban] = true
	}
	var bbans []string
	for n := range numbers {
		bbans = append(bbans, n)
	}
	yesterday := bank.DateOf(time.Now()).AddDays(-1).String()
	cred := func(i int) string { return fmt.Sprintf("%d.25", 1000+i) }

	var (
		wg         sync.WaitGroup
		mu         sync.Mutex // guards the lists below
		remits     []string   // transactions that must be on x
		paymentIDs = map[string]string{}
		customers  []string // customer numbers that must exist
		t2Accounts []string // account ids that customer 2 must own
	)
	keep := func(list *[]string, v string) { mu.Lock(); *list = append(*list, v); mu.Unlock() }
	guiErr := func(what string, err error) bool {
		if err != nil {
			t.Errorf("GUI %s: %v", what, err)
		}
		return err == nil
	}

	// The desktop screens.
	wg.Go(func() { // accounts screen: edit x and y, save x's balances
		for i := range rounds {
			guiErr("edit account x", guiEditAccount(s, x.ID, fmt.Sprintf("GUI konto %d", i), cred(i)))
			_, err := s.Sandbox.SetAccountBalances(x.ID, guiBalances(fmt.Sprintf("%d.10", 500+i), fmt.Sprintf("%d.20", 400+i)))
			guiErr("save balances of x", err)
			guiErr("edit account y", guiEditAccount(s, y.ID, fmt.Sprintf("GUI sparing %d", i), "0"))
		}
	})
	wg.Go(func() { // customers screen: new customers, rename customer 2, new accounts for them
		for i := range rounds {
			n := fmt.Sprintf("7100000%04d", i)
			if _, err := s.Sandbox.CreateCustomer(bank.NewCustomer{CustomerNumber: n, Name: fmt.Sprintf("GUI Kunde %d", i), Type: "private"}); guiErr("create customer", err) {
				keep(&customers, n)
			}
			_, err := s.Sandbox.UpdateCustomer(t2.CustomerID, fmt.Sprintf("Test Testperson 2 (%d)", i))
			guiErr("rename customer 2", err)
			a, err := s.Sandbox.CreateAccount(bank.NewAccount{
				CustomerNumber: t2Number, AccountName: fmt.Sprintf("GUI ny konto %d", i), BBAN: bbans[i], Currency: "NOK",
				Product: "Brukskonto", CashAccountType: "CACC", CreditLine: number("0"), Balances: guiBalances("0", "0"),
			})
			if guiErr("create account", err) {
				keep(&t2Accounts, a.ID)
			}
		}
	})
	wg.Go(func() { // server screen: payment settings
		for i := range rounds {
			_, err := s.Ops.UpdateSettings(func(st *bank.Settings) {
				st.NCBCTFee = decimal.NewFromInt(int64(100 + i))
				st.CoverRetryDays = 1 + i%5
			})
			guiErr("save payment settings", err)
			// The signature switch, ending on required.
			require := (rounds-1-i)%2 == 0
			_, err = s.Ops.UpdateSettings(func(st *bank.Settings) { st.TrustMode, st.RequireSignature = bank.TrustAny, require })
			guiErr("save signature settings", err)
		}
	})
	wg.Go(func() { // transactions screen: one credit at a time on x
		for i := range rounds {
			r := fmt.Sprintf("gui-tx %d", i)
			if _, err := s.Sandbox.AddTransactions(x.ID, []bank.NewTransaction{guiTransaction(x, r, yesterday)}); guiErr("add transaction", err) {
				keep(&remits, r)
			}
		}
	})

	// TPP test suites on the API.
	for c := range 2 {
		wg.Go(func() { // transactions on x, two at a time
			for i := range rounds {
				own, ext := map[string]string{"iban": x.IBAN}, map[string]string{"bban": "86011117947"}
				r1, r2 := fmt.Sprintf("api-tx %d-%d a", c, i), fmt.Sprintf("api-tx %d-%d b", c, i)
				in, out := tx(20, yesterday, yesterday, ext, own), tx(-5, yesterday, yesterday, own, ext)
				in["remittanceInformationUnstructured"], out["remittanceInformationUnstructured"] = r1, r2
				if answered(t, b.Do(tpp, "POST", "/v1/sandbox/accounts/"+x.ID+"/transactions", []any{in, out}), 201, "post transactions") {
					keep(&remits, r1)
					keep(&remits, r2)
				}
			}
		})
	}
	wg.Go(func() { // payments from x
		for i := range rounds {
			body := ndct("3.50", x.IBAN, ibanT2Bruk)
			body["remittanceInformationUnstructured"] = fmt.Sprintf("api-pay %d", i)
			r := b.Do(tpp, "POST", ndctPath, body, payHeaders...)
			var c created
			if answered(t, r, 201, "create payment") {
				r.JSON(t, &c)
				mu.Lock()
				paymentIDs[c.PaymentID] = fmt.Sprintf("api-pay %d", i)
				mu.Unlock()
			}
		}
	})
	wg.Go(func() { // customers, and accounts for customer 2
		for i := range rounds {
			n := fmt.Sprintf("7200000%04d", i)
			if answered(t, b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": n, "name": fmt.Sprintf("API Kunde %d", i), "type": "private"}), 201, "create customer") {
				keep(&customers, n)
			}
			r := b.Do(tpp, "POST", "/v1/sandbox/accounts", newAccount(t2Number, bbans[rounds+i], "NOK"))
			var a account
			if answered(t, r, 201, "create account") {
				r.JSON(t, &a)
				keep(&t2Accounts, a.ID)
			}
		}
	})
	wg.Go(func() { // balances of y
		for i := range rounds {
			answered(t, b.Do(tpp, "PUT", "/v1/sandbox/accounts/"+y.ID+"/balances", []map[string]any{
				{"balanceType": "closingBooked", "balanceAmount": map[string]any{"amount": 700 + i, "currency": "NOK"}},
				{"balanceType": "expected", "balanceAmount": map[string]any{"amount": 600 + i, "currency": "NOK"}},
			}), 200, "put balances of y")
		}
	})
	wg.Go(func() { // faults and the clock, each read back at once
		for i := range rounds {
			f := bank.Faults{LatencyMs: i % 3}
			if answered(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/faults", f), 200, "put faults") {
				var got bank.Faults
				b.Do(tpp, "GET", "/v1/sandbox/faults", nil).JSON(t, &got)
				if got != f {
					t.Errorf("faults read back right after PUT %+v: %+v", f, got)
				}
			}
			off := int64(i)
			if answered(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/clock", map[string]int64{"offsetSeconds": off}), 200, "put clock") {
				var got bank.ClockState
				b.Do(tpp, "GET", "/v1/sandbox/clock", nil).JSON(t, &got)
				if got.OffsetSeconds != off {
					t.Errorf("clock offset read back right after PUT %d: %d", off, got.OffsetSeconds)
				}
			}
		}
	})
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	last := rounds - 1

	// Account x: the GUI's last edit and balances, nothing else lost.
	gotX, err := s.Sandbox.Account(x.ID)
	if err != nil {
		t.Fatal(err)
	}
	if gotX.Name != fmt.Sprintf("GUI konto %d", last) || !gotX.CreditLine.Equal(decimal.RequireFromString(cred(last))) ||
		gotX.Balances.ClosingBooked.String() != fmt.Sprintf("%d.1", 500+last) || gotX.Balances.Expected.String() != fmt.Sprintf("%d.2", 400+last) {
		t.Errorf("account x ends as %+v; want the GUI's last edit and balances", gotX.Account)
	}
	gotY, err := s.Sandbox.Account(y.ID)
	if err != nil {
		t.Fatal(err)
	}
	if gotY.Name != fmt.Sprintf("GUI sparing %d", last) || gotY.Balances.ClosingBooked.IntPart() != int64(700+last) || gotY.Balances.Expected.IntPart() != int64(600+last) {
		t.Errorf("account y ends as %+v; want the GUI's last name and the API's last balances", gotY.Account)
	}

	// Every transaction on x.
	page, err := s.Sandbox.Transactions(x.ID, bank.TxQuery{Limit: bank.MaxSandboxPageSize})
	if err != nil {
		t.Fatal(err)
	}
	if want := txBefore.Total + 5*rounds; len(remits) != 5*rounds || page.Total != want {
		t.Errorf("account x has %d transactions, want %d (%d writes answered)", page.Total, want, len(remits))
	}
	onX := map[string]int{}
	for _, tr := range page.Transactions {
		onX[tr.RemittanceInformationUnstructured]++
	}
	for _, r := range remits {
		if onX[r] != 1 {
			t.Errorf("transaction %q is on account x %d times", r, onX[r])
		}
	}

	// Every payment.
	if len(paymentIDs) != rounds {
		t.Errorf("%d payments created, want %d", len(paymentIDs), rounds)
	}
	for id, remittance := range paymentIDs {
		p, err := s.Ops.Payment(id)
		if err != nil || p.Items[0].Remittance != remittance || p.DebtorAccountID != x.ID {
			t.Errorf("payment %s (%s): %+v %v", id, remittance, p, err)
		}
	}
	if list, err := s.Ops.Payments(bank.PaymentFilter{Limit: 1}); err != nil || list.Total != paymentsBefore.Total+rounds {
		t.Errorf("%d payments stored, want %d (%v)", list.Total, paymentsBefore.Total+rounds, err)
	}

	// Every customer, and customer 2's name and accounts.
	all, err := s.Sandbox.Customers(false, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(customersBefore)+2*rounds || len(customers) != 2*rounds {
		t.Errorf("%d customers, want %d", len(all), len(customersBefore)+2*rounds)
	}
	for _, n := range customers {
		if !slices.ContainsFunc(all, func(c bank.CustomerDetail) bool { return c.Number == n }) {
			t.Errorf("customer %s is missing", n)
		}
	}
	c2, err := s.Sandbox.Customer(t2.CustomerID)
	if err != nil {
		t.Fatal(err)
	}
	if c2.Name != fmt.Sprintf("Test Testperson 2 (%d)", last) {
		t.Errorf("customer 2 is named %q", c2.Name)
	}
	if len(t2Accounts) != 2*rounds || len(c2.AccountIDs) != len(t2.Accounts)+2*rounds {
		t.Errorf("customer 2 owns %d accounts, want %d", len(c2.AccountIDs), len(t2.Accounts)+2*rounds)
	}
	for _, id := range t2Accounts {
		if !slices.Contains(c2.AccountIDs, id) {
			t.Errorf("customer 2 does not own new account %s", id)
		}
	}

	// Settings: each writer's last value, stored and in force.
	st, err := s.Ops.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if !st.NCBCTFee.Equal(decimal.NewFromInt(int64(100+last))) || st.CoverRetryDays != 1+last%5 {
		t.Errorf("payment settings %s, %d days; want the GUI's last save", st.NCBCTFee, st.CoverRetryDays)
	}
	if want := (bank.Faults{LatencyMs: last % 3}); st.Faults != want || s.Ops.Faults() != want {
		t.Errorf("faults stored %+v, in force %+v; want %+v", st.Faults, s.Ops.Faults(), want)
	}
	if st.ClockOffsetSeconds != int64(last) || s.Ops.Clock().OffsetSeconds != int64(last) {
		t.Errorf("clock offset stored %d, in force %d; want %d", st.ClockOffsetSeconds, s.Ops.Clock().OffsetSeconds, last)
	}
	if !st.RequireSignature {
		t.Error("the GUI's last save required signatures, but the stored settings do not")
	}
	expect(t, b.Do(nil, "GET", "/v1/sandbox/clock", nil), 400, "SIGNATURE_MISSING")
	t.Logf("%d GUI and %d API writes checked (%s)", 9*rounds, 8*rounds, time.Since(start).Round(time.Millisecond))
}
