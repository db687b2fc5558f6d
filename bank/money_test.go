package bank_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"sandbank/bank"
	"sandbank/bank/apierr"
	"sandbank/storage"
)

// TestMoney_ThreeViewsAgree drives many random payments through creation,
// approval, rejection, cancellation, top-ups, batch runs and days passing,
// and after every step checks the rule of docs/PAYMENTS.md that makes the
// three views of an account's money agree:
//
//   - expected = closingBooked + the sum of the account's pending items;
//   - every pending item is the reservation of an authorised payment that
//     has not settled, and its amounts are what the item holds;
//   - an authorised payment reports fundsAvailable exactly when every item
//     it has not settled is reserved; a PDNG payment holds nothing and
//     reports false;
//   - closingBooked moves only by what is booked.
func TestMoney_ThreeViewsAgree(t *testing.T) {
	seen, counts, held := map[string]int{}, map[string]int{}, 0
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			s, db := newBank(t)
			db.SetNoSync(true) // thousands of commits; a crash here loses nothing that matters
			m := newMoneyRun(t, s, db, seed)
			m.run(300)
			for k, n := range m.seen {
				seen[k] += n
			}
			for k, n := range m.counts {
				counts[k] += n
			}
			held += m.held
		})
	}
	// The walks went everywhere: a rule checked on states never reached
	// proves nothing.
	for _, st := range []string{bank.StatusRCVD, bank.StatusPATC, bank.StatusACCP, bank.StatusACTC, bank.StatusACWC, bank.StatusACSP, bank.StatusPDNG, bank.StatusACSC, bank.StatusRJCT, bank.StatusCANC} {
		if seen[st] == 0 {
			t.Errorf("no walk saw a payment in %s; change the mix of steps", st)
		}
	}
	if held == 0 || counts["approve"] == 0 || counts["reject"] == 0 || counts["cancel"] == 0 || counts["top up"] == 0 {
		t.Errorf("the walks never held money, approved, rejected, cancelled or topped up: %v", counts)
	}
}

// moneyRun is one random walk over the known state.
type moneyRun struct {
	t        *testing.T
	s        *bank.Bank
	db       *storage.DB
	rng      *rand.Rand
	accounts []bank.AccountDetail
	payers   map[string]string // account id -> a customerNumber who may pay from it
	payments []string
	// initial maps an account to its closingBooked balance and booked
	// transaction ids at the start; topUps to what the tester added since.
	initial map[string]accountStart
	topUps  map[string]decimal.Decimal
	counts  map[string]int // how often each step ran, for the log
	// seen counts the statuses payments were found in, and held the
	// payments found holding money, so that the walk proves it went
	// everywhere.
	seen map[string]int
	held int
}

type accountStart struct {
	closing decimal.Decimal
	booked  map[string]bool
}

const moneyTPP = "NO-FSA-933012867"

func newMoneyRun(t *testing.T, s *bank.Bank, db *storage.DB, seed uint64) *moneyRun {
	m := &moneyRun{
		t: t, s: s, db: db, rng: rand.New(rand.NewPCG(seed, 7)),
		payers: map[string]string{}, initial: map[string]accountStart{}, topUps: map[string]decimal.Decimal{}, counts: map[string]int{}, seen: map[string]int{},
	}
	accounts, err := s.Sandbox.Accounts()
	if err != nil {
		t.Fatal(err)
	}
	m.accounts = accounts
	for _, a := range accounts {
		switch a.Owner.Number {
		case "13039319955", "12085592767":
			m.payers[a.ID] = a.Owner.Number
		case "18129215603", "20079518612": // through their own engagements
			m.payers[a.ID] = a.Owner.Number
		}
		m.initial[a.ID] = accountStart{closing: a.Balances.ClosingBooked, booked: m.bookedIDs(a.ID)}
	}
	m.check("the known state")
	return m
}

func (m *moneyRun) run(steps int) {
	for i := range steps {
		var what string
		switch r := m.rng.IntN(100); {
		case r < 40:
			what = m.create()
		case r < 62:
			what = m.decide()
		case r < 70:
			what = m.cancel()
		case r < 76:
			what = m.topUp()
		case r < 94:
			what = m.batch()
		default:
			what = m.nextDay()
		}
		m.counts[what]++
		m.check(fmt.Sprintf("step %d (%s)", i, what))
	}
	m.t.Logf("steps: %v; statuses seen: %v; %d times a payment held money", m.counts, m.seen, m.held)
}

// amount is a random amount from 0.01 to about 2,000,000, most of them
// small, so that some payments find cover and some do not.
func (m *moneyRun) amount() string {
	exp := m.rng.Float64() * 8.3 // up to 10^8.3 øre
	ore := int64(1)
	for range int(exp) {
		ore *= 10
	}
	ore += m.rng.Int64N(ore)
	return decimal.New(ore, -2).String()
}

func (m *moneyRun) pick() bank.AccountDetail { return m.accounts[m.rng.IntN(len(m.accounts))] }

// create makes a payment of a random kind from a random account.
func (m *moneyRun) create() string {
	from := m.pick()
	if _, ok := m.payers[from.ID]; !ok {
		return "create skipped"
	}
	today := m.s.Ops.Today()
	date := today.AddDays(m.rng.IntN(3)).String()
	creditor := func() *bank.AccountIn {
		if m.rng.IntN(4) == 0 {
			return &bank.AccountIn{IBAN: "DE89370400440532013000"} // outside the sandbox
		}
		to := m.pick()
		for to.ID == from.ID || to.KIDRequired {
			to = m.pick()
		}
		return &bank.AccountIn{IBAN: to.IBAN}
	}
	item := func(currency string) bank.PaymentRequest {
		remittance := fmt.Sprintf("Betaling %d", m.rng.IntN(1_000_000))
		amount := m.amount()
		if currency != "NOK" { // most cross-border transfers find cover
			amount = decimal.New(int64(1+m.rng.IntN(200_000)), -2).String()
		}
		return bank.PaymentRequest{
			InstructedAmount:                  &bank.AmountIn{Amount: bank.AmountText{Text: amount}, Currency: currency},
			CreditorAccount:                   creditor(),
			CreditorName:                      "Mottaker",
			RemittanceInformationUnstructured: &remittance,
		}
	}
	in := bank.PaymentInit{
		TPPID: moneyTPP, Service: bank.ServiceSingle, Product: bank.ProductNDCT,
		RedirectURI: "https://tpp.example/cb", SessionID: "s", AllowDuplicate: true,
	}
	kind := "single"
	private := from.Owner.IsPrivate()
	switch r := m.rng.IntN(10); {
	case from.Currency != "NOK" && !private:
		return "create skipped" // a corporate cross-border transfer needs a PSU-Corporate-ID
	case from.Currency != "NOK" || (r < 4 && private):
		kind = "cross-border"
		in.Product, in.PSUContext = bank.ProductNCBCT, "PRIVATE"
		currency := []string{"EUR", "SEK", "USD"}[m.rng.IntN(3)]
		in.Body = item(currency)
		in.Body.CreditorAccount = &bank.AccountIn{IBAN: "DE89370400440532013000", Currency: currency}
		in.Body.CreditorAgent, in.Body.PurposeCode = "COBADEFFXXX", "SUPP"
		in.Body.CreditorAddress = &bank.AddressIn{Street: "Hauptstraße 1", City: "Berlin", Country: "DE"}
		in.Body.RegulatoryReportingCode, in.Body.RegulatoryReportingInformation = "14", "Varer"
		in.Body.RequestedExecutionDate = &date
	case r < 4:
		kind = "bulk"
		in.Service = bank.ServiceBulk
		in.Body = bank.PaymentRequest{RequestedExecutionDate: &date, PaymentInformationID: fmt.Sprint("BULK-", m.rng.IntN(1_000_000))}
		for range 1 + m.rng.IntN(4) {
			in.Body.Payments = append(in.Body.Payments, item("NOK"))
		}
	case r < 5:
		kind = "standing order"
		in.Service = bank.ServicePeriodic
		in.Body = item("NOK")
		in.Body.StartDate, in.Body.Frequency = date, "Monthly"
	default:
		in.Body = item("NOK")
		in.Body.RequestedExecutionDate = &date
	}
	in.Body.DebtorAccount = &bank.AccountIn{IBAN: from.IBAN}
	if in.Product == bank.ProductNCBCT {
		in.Body.DebtorAccount.Currency = from.Currency
	}
	created, err := m.s.PSD2.CreatePayment(in)
	if err != nil {
		m.t.Fatalf("create a %s payment from %s: %v", kind, from.IBAN, err)
	}
	m.payments = append(m.payments, created.Payment.ID)
	return "create " + kind
}

// decide has a PSU approve or reject a payment that awaits approval.
func (m *moneyRun) decide() string {
	var waiting []bank.Payment
	for _, id := range m.payments {
		if p, err := m.s.Ops.Payment(id); err != nil {
			m.t.Fatal(err)
		} else if p.Status == bank.StatusRCVD {
			waiting = append(waiting, p.Payment)
		}
	}
	if len(waiting) > 0 {
		p := waiting[m.rng.IntN(len(waiting))]
		decision := "approve"
		if m.rng.IntN(5) == 0 {
			decision = "reject"
		}
		auth := p.Authorisations[len(p.Authorisations)-1]
		if _, err := m.s.PSD2.AutomatedSCA(moneyTPP, auth, bank.AutoSCA{NationalID: m.payers[p.DebtorAccountID], Decision: decision}); err != nil {
			m.t.Fatalf("SCA of %s: %v", p.ID, err)
		}
		return decision
	}
	return "decide skipped"
}

// cancel deletes a random payment; the refusals of the status machine are
// fine.
func (m *moneyRun) cancel() string {
	if len(m.payments) == 0 {
		return "cancel skipped"
	}
	id := m.payments[m.rng.IntN(len(m.payments))]
	p, err := m.s.Ops.Payment(id)
	if err != nil {
		m.t.Fatal(err)
	}
	err = m.s.PSD2.CancelPayment(moneyTPP, p.Service, p.Product, id)
	if e, ok := apierr.AsError(err); ok && e.Code == apierr.CodeConflict {
		return "cancel refused"
	} else if err != nil {
		m.t.Fatalf("cancel %s: %v", id, err)
	}
	return "cancel"
}

// topUp adds money to an account the way a tester would: both balances
// move by the same amount.
func (m *moneyRun) topUp() string {
	a := m.pick()
	d, err := m.s.Sandbox.Account(a.ID)
	if err != nil {
		m.t.Fatal(err)
	}
	add := decimal.New(int64(m.rng.IntN(500_000)), 0)
	in := []bank.BalanceInput{
		{BalanceType: bank.BalanceClosingBooked, BalanceAmount: bank.AmountInput{Amount: bank.NumberOf(d.Balances.ClosingBooked.Add(add)), Currency: d.Currency}},
		{BalanceType: bank.BalanceExpected, BalanceAmount: bank.AmountInput{Amount: bank.NumberOf(d.Balances.Expected.Add(add)), Currency: d.Currency}},
	}
	if _, err := m.s.Sandbox.SetAccountBalances(a.ID, in); err != nil {
		m.t.Fatalf("top up %s: %v", a.IBAN, err)
	}
	m.topUps[a.ID] = m.topUps[a.ID].Add(add)
	return "top up"
}

// batch runs a batch now and checks that every due payment that held its
// money settled (a cross-border transfer is picked up first).
func (m *moneyRun) batch() string {
	before := m.all()
	if _, err := m.s.Ops.RunBatch(); err != nil {
		m.t.Fatal(err)
	}
	today := m.s.Ops.Today()
	for _, p := range m.all() {
		was, ok := before[p.ID]
		if !ok || was.Periodic() || was.ExecutionDate.After(today) {
			continue
		}
		held := (was.Status == bank.StatusACTC || was.Status == bank.StatusACCP || was.Status == bank.StatusACWC) && *was.FundsAvailable
		switch {
		case held && was.Product == bank.ProductNCBCT && p.Status != bank.StatusACSP:
			m.t.Fatalf("payment %s held its money at %s but is %s after a run, not ACSP", p.ID, was.Status, p.Status)
		case held && was.Product != bank.ProductNCBCT && p.Status != bank.StatusACSC:
			m.t.Fatalf("payment %s held its money at %s but is %s after a run, not ACSC", p.ID, was.Status, p.Status)
		}
	}
	return "batch"
}

// nextDay moves the sandbox clock a day ahead; the runs it passes happen.
func (m *moneyRun) nextDay() string {
	if _, err := m.s.Ops.JumpClock(1); err != nil {
		m.t.Fatal(err)
	}
	return "next day"
}

// all returns every payment by id, with fundsAvailable as the TPP reads
// it.
func (m *moneyRun) all() map[string]bank.Payment {
	payments, err := bank.PaymentsNow(m.s, m.payments)
	if err != nil {
		m.t.Fatal(err)
	}
	out := map[string]bank.Payment{}
	for _, p := range payments {
		out[p.ID] = p
	}
	return out
}

func (m *moneyRun) bookedIDs(accountID string) map[string]bool {
	ids := map[string]bool{}
	if err := m.db.View(func(tx bank.Tx) error {
		page, err := tx.Transactions(accountID, bank.TxQuery{})
		for _, t := range page.Transactions {
			ids[t.ID] = true
		}
		return err
	}); err != nil {
		m.t.Fatal(err)
	}
	return ids
}

// check verifies the rule on every account and payment.
func (m *moneyRun) check(after string) {
	m.t.Helper()
	payments := m.all()
	// Which pending item belongs to which payment item.
	type hold struct {
		payment string
		item    int
		amount  decimal.Decimal // what the item holds, from the payment
		seen    decimal.Decimal // what its pending items sum to
	}
	holds := map[string]*hold{}
	byItem := map[string]*hold{}
	for _, p := range payments {
		m.seen[p.Status]++
		for i, it := range p.Items {
			if it.PendingTxID == "" || it.Status == bank.StatusACSC {
				if it.Reserved.IsZero() {
					continue
				}
				m.t.Fatalf("after %s: payment %s item %d holds %s without a pending item", after, p.ID, i, it.Reserved)
			}
			m.held++
			h := &hold{payment: p.ID, item: i, amount: it.Reserved}
			byItem[fmt.Sprint(p.ID, i)] = h
			holds[it.PendingTxID] = h
			if it.PendingFeeTxID != "" {
				holds[it.PendingFeeTxID] = h
			}
			switch {
			case p.Periodic() || !slices.Contains([]string{bank.StatusACCP, bank.StatusACTC, bank.StatusACWC, bank.StatusACSP}, p.Status):
				m.t.Fatalf("after %s: payment %s is %s and holds money", after, p.ID, p.Status)
			case !it.Reserved.IsPositive():
				m.t.Fatalf("after %s: payment %s item %d is pending but holds %s", after, p.ID, i, it.Reserved)
			}
		}
		authorised := !p.Periodic() && slices.Contains([]string{bank.StatusACCP, bank.StatusACTC, bank.StatusACWC, bank.StatusACSP, bank.StatusPDNG}, p.Status)
		if !authorised {
			continue
		}
		all := true
		for i, it := range p.Items {
			if it.Status == "" && byItem[fmt.Sprint(p.ID, i)] == nil {
				all = false
			}
		}
		if p.FundsAvailable == nil {
			m.t.Fatalf("after %s: payment %s is %s without fundsAvailable", after, p.ID, p.Status)
		}
		if *p.FundsAvailable != all {
			m.t.Fatalf("after %s: payment %s is %s, every item held %v, but fundsAvailable is %v", after, p.ID, p.Status, all, *p.FundsAvailable)
		}
		if p.Status == bank.StatusPDNG && all {
			m.t.Fatalf("after %s: payment %s is PDNG and holds all its items", after, p.ID)
		}
	}
	for _, a := range m.accounts {
		d, err := m.s.Sandbox.Account(a.ID)
		if err != nil {
			m.t.Fatal(err)
		}
		var pending []bank.Transaction
		var booked bank.TxPage
		if err := m.db.View(func(tx bank.Tx) error {
			var err error
			if pending, err = tx.PendingTransactions(a.ID); err != nil {
				return err
			}
			booked, err = tx.Transactions(a.ID, bank.TxQuery{})
			return err
		}); err != nil {
			m.t.Fatal(err)
		}
		sum := decimal.Zero
		for _, t := range pending {
			sum = sum.Add(t.Amount)
			h := holds[t.ID]
			if h == nil {
				m.t.Fatalf("after %s: pending item %s on %s (%s) belongs to no payment that holds money", after, t.ID, a.IBAN, t.Amount)
			}
			h.seen = h.seen.Sub(t.Amount)
		}
		if got := d.Balances.Expected.Sub(d.Balances.ClosingBooked); !got.Equal(sum) {
			m.t.Fatalf("after %s: %s has expected %s and closingBooked %s, a difference of %s, but its pending items sum to %s",
				after, a.IBAN, d.Balances.Expected, d.Balances.ClosingBooked, got, sum)
		}
		moved := decimal.Zero
		for _, t := range booked.Transactions {
			if !m.initial[a.ID].booked[t.ID] {
				moved = moved.Add(t.Amount)
			}
		}
		if want := m.initial[a.ID].closing.Add(m.topUps[a.ID]).Add(moved); !d.Balances.ClosingBooked.Equal(want) {
			m.t.Fatalf("after %s: %s has closingBooked %s; the start, top-ups and payments' bookings give %s", after, a.IBAN, d.Balances.ClosingBooked, want)
		}
	}
	for _, h := range byItem {
		if !h.seen.Equal(h.amount) {
			m.t.Fatalf("after %s: payment %s item %d holds %s, but its pending items sum to %s", after, h.payment, h.item, h.amount, h.seen)
		}
	}
}

// cardRuleHolds checks that a card account's expected balance is its
// closingBooked plus its pending card transactions, and returns how many
// are pending.
func cardRuleHolds(t *testing.T, sb *bank.Sandbox, id, after string) int {
	t.Helper()
	c, page, err := sb.CardTransactions(id, bank.TxQuery{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	sum := decimal.Zero
	for _, p := range page.Pending {
		sum = sum.Add(p.TransactionAmount.Amount)
	}
	if !c.Balances.Expected.Equal(c.Balances.ClosingBooked.Add(sum)) {
		t.Errorf("%s: card %s has expected %s, closingBooked %s and %d pending items of %s", after, id, c.Balances.Expected, c.Balances.ClosingBooked, len(page.Pending), sum)
	}
	return len(page.Pending)
}

// The window's Generate keeps a card account's money rule: the pending
// card transactions it makes move the expected balance, on the known
// state's cards (which keep it already) as on a new card without any.
func TestMoney_GeneratedCardHistoryKeepsTheRule(t *testing.T) {
	s, _ := newBank(t)
	cards, err := s.Sandbox.CardAccounts()
	if err != nil || len(cards) != 2 {
		t.Fatalf("card accounts %v %v", cards, err)
	}
	for _, c := range cards {
		cardRuleHolds(t, s.Sandbox, c.ID, "the known state")
		if _, err := s.Sandbox.GenerateCardTransactions(context.Background(), c.ID, 2000, nil); err != nil {
			t.Fatal(err)
		}
		if n := cardRuleHolds(t, s.Sandbox, c.ID, "a generated history"); n == 0 {
			t.Errorf("card %s: 2,000 generated transactions over six months left none pending to check the rule with", c.ID)
		}
	}
}
