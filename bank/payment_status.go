package bank

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"sandbank/bank/apierr"
)

// The payment status machine (docs/PAYMENTS.md 5). Every change of a payment's
// status is made in this file, and so is every move of money a payment
// makes: a reservation when it is authorised, its release when the payment
// will not settle, and the booking when it settles.
//
//	from        event                                           moved by             to
//	RCVD        a PSU approves, within their limits              SCA (payments)       ACCP, or ACTC when due; ACWC (a)
//	RCVD        a PSU approves, over their approval limit        SCA (payments)       PATC
//	RCVD        the PSU rejects, may not pay, or SCA fails       SCA (payments)       RJCT
//	RCVD        the exemption policy lets it through             PSD2.CreatePayment   ACCP, ACTC; ACWC (a)
//	PATC        a second approver with enough limit approves     SCA (payments)       ACCP, ACTC; ACWC (a)
//	RCVD..ACWC  DELETE (and any standing order)                  PSD2.CancelPayment   CANC
//	ACCP..ACWC  a batch run on or after the date, with cover     batch run            ACSC (NCBCT: ACSP)
//	ACSP        the next batch run, with cover                   batch run            ACSC
//	ACTC, ACWC  authorised when due on a banking day,            authorise            ACSC (NCBCT: ACSP, ACSC), PDNG
//	            batchMode immediate
//	ACCP..ACSP  a batch run without cover                        batch run            PDNG
//	PDNG        a batch run with cover                           batch run            ACSC, PART (bulk)
//	PDNG        a batch run after the cover retry days           batch run            RJCT, PART (bulk)
//	any         support forces a status                          Ops.ForcePaymentStatus  any (ACWP only so)
//
// (a) A payment whose requested execution date the bank moved to the next
// banking day (Payment.RequestedDate) is ACWC, accepted with change, in
// place of ACCP or ACTC: a batch run settles it on its date as it would
// either.
//
// Money (docs/PAYMENTS.md "Balances, pending items and fundsAvailable"):
// an account's expected balance is its closingBooked balance plus its
// pending items, and the pending items are the reservations of authorised
// payments that have not settled. Authorisation reserves each item the
// debtor account covers (expected balance plus credit line); fundsAvailable
// says whether every item is reserved. A batch run books reserved items,
// and items it finds cover for; a payment it finds no cover for releases
// its reservations and waits (PDNG). Rejection and cancellation release
// them too.

// setStatus moves a payment to a new status and records why.
func setStatus(p *Payment, to, by, reason string, at time.Time) {
	p.History = append(p.History, StatusChange{Time: at, From: p.Status, To: to, By: by, Reason: reason})
	p.Status = to
}

// authorise moves an approved payment on: ACCP when its execution date is
// in the future, else ACTC; ACWC, whatever the date, when the bank moved
// its requested execution date; a standing order stays ACTC (the sandbox
// batch skips it). Each item the debtor account covers is reserved. In
// batch mode immediate, a payment that is due settles at once.
func authorise(l *ledger, p *Payment, now time.Time, by string) error {
	to, reason := StatusACTC, "authorised"
	switch {
	case p.Periodic():
	case !p.RequestedDate.IsZero():
		to, reason = StatusACWC, fmt.Sprintf("authorised with a change: the requested execution date %s is no banking day, so it executes on %s", p.RequestedDate, p.ExecutionDate)
	case p.ExecutionDate.After(DateOf(now)):
		to = StatusACCP
	}
	setStatus(p, to, by, reason, now)
	if p.Periodic() {
		return nil
	}
	if err := reserve(l, p); err != nil {
		return err
	}
	return settleAtOnce(l, p, now)
}

// settleAtOnce settles a payment that was just authorised and is due
// (ACTC, or ACWC on its date), when the batch mode is immediate and today
// is a banking day: the steps of a batch run, at once. A cross-border
// transfer is picked up and settled; without cover the payment waits
// (PDNG) and the batch runs retry it, as always.
func settleAtOnce(l *ledger, p *Payment, now time.Time) error {
	day := DateOf(now)
	st, err := l.settings()
	if err != nil || st.BatchMode != BatchImmediate || !IsBankingDay(day) || !awaitsSettlement(*p, day) {
		return err
	}
	by := "immediate settlement (batchMode immediate)"
	for range 2 { // ACTC or ACWC, and ACSP for a cross-border transfer
		if !awaitsSettlement(*p, day) && p.Status != StatusACSP {
			break
		}
		if err := settle(l, p, now, by); err != nil {
			return err
		}
	}
	return nil
}

// awaitsSettlement reports whether an authorised payment is due on day
// and not yet picked up: ACTC, or ACCP and ACWC on or after their
// execution date.
func awaitsSettlement(p Payment, day Date) bool {
	switch p.Status {
	case StatusACTC:
		return true
	case StatusACCP, StatusACWC:
		return !p.ExecutionDate.After(day)
	}
	return false
}

// approvePayment applies a PSU's approval, in a context, to one payment.
// It returns why the approval did not count ("" when it did): the payment
// is then rejected (a PSU who may not use the account, or over their
// register limit), or stays PATC (a second approver without enough
// limit).
func approvePayment(l *ledger, p *Payment, c Customer, context string, now time.Time) (string, error) {
	by := fmt.Sprintf("PSU %s (%s)", c.Name, c.Number)
	if p.Status != StatusRCVD && p.Status != StatusPATC {
		return fmt.Sprintf("payment %s is %s and no longer awaits approval", p.ID, p.Status), nil
	}
	acct, err := l.tx.Account(p.DebtorAccountID)
	if errors.Is(err, ErrNotFound) {
		why := "the debtor account no longer exists"
		return why, reject(l, p, by, why, now, false)
	} else if err != nil {
		return "", err
	}
	st, err := l.settings()
	if err != nil {
		return "", err
	}
	amount, err := convert(st.FX, p.Total(), p.Currency(), acct.Currency)
	if err != nil {
		return err.Error(), reject(l, p, by, err.Error(), now, false)
	}
	eng, err := engagementOf(l.tx, acct, c, context)
	if err != nil {
		return "", err
	}
	a := approver{by: by, customer: c, account: acct, engagement: eng, amount: amount}
	if p.Status == StatusPATC {
		return a.second(l, p, now)
	}
	return a.first(l, p, context, now)
}

// engagementOf is the engagement that gives a customer a role on an
// account in a corporate context; nil in the private context or when
// there is none.
func engagementOf(tx Tx, acct Account, c Customer, context string) (*Engagement, error) {
	if context == ContextPrivate {
		return nil, nil
	}
	engagements, err := tx.EngagementsByAccount(acct.ID)
	if err != nil {
		return nil, err
	}
	for _, e := range engagements {
		if e.CustomerID == c.ID && e.AgreementID == context {
			return &e, nil
		}
	}
	return nil, nil
}

// approver is a PSU approving a payment: who, from which account, through
// which engagement, and the payment's amount in the account's currency.
type approver struct {
	by         string
	customer   Customer
	account    Account
	engagement *Engagement
	amount     decimal.Decimal
}

func (a approver) text(d decimal.Decimal) string {
	return FormatAmount(d, a.account.Currency) + " " + a.account.Currency
}

// first applies the first approval of an RCVD payment: enough on its own
// for the account's owner or a PSU within their approval limit (the
// payment is authorised), over it (PATC), or not allowed (RJCT).
func (a approver) first(l *ledger, p *Payment, context string, now time.Time) (string, error) {
	c, eng := a.customer, a.engagement
	if p.CustomerID != "" && p.CustomerID != c.ID {
		why := "the payment was started for another PSU"
		return why, reject(l, p, a.by, why, now, false)
	}
	full := false
	switch {
	case context == ContextPrivate && a.account.OwnerID == c.ID && c.IsPrivate():
		full = true
	case eng == nil || !eng.HasRole(RoleRegister):
		why := fmt.Sprintf("%s may not pay from %s in this context", c.Name, a.account.IBAN)
		return why, reject(l, p, a.by, why, now, false)
	case eng.RegisterLimit.LessThan(a.amount):
		why := fmt.Sprintf("the payment's %s is over %s's register limit of %s", a.text(a.amount), c.Name, a.text(eng.RegisterLimit))
		return why, reject(l, p, a.by, why, now, false)
	default:
		full = eng.HasRole(RoleApprove) && !eng.ApprovalLimit.LessThan(a.amount)
	}
	p.CustomerID, p.Context = c.ID, context
	p.Approvals = append(p.Approvals, Approval{CustomerID: c.ID, Time: now, Full: full})
	if !full {
		setStatus(p, StatusPATC, a.by, fmt.Sprintf("approved; the amount %s is over %s's approval limit, so a second approver with a high enough limit must approve", a.text(a.amount), c.Name), now)
		return "", nil
	}
	return "", authorise(l, p, now, a.by)
}

// second applies the approval of a PATC payment by another PSU with
// APPROVE and a high enough approval limit, which authorises it; any other
// leaves it PATC.
func (a approver) second(l *ledger, p *Payment, now time.Time) (string, error) {
	c, eng := a.customer, a.engagement
	switch {
	case slices.ContainsFunc(p.Approvals, func(ap Approval) bool { return ap.CustomerID == c.ID }):
		return fmt.Sprintf("%s has approved payment %s already; another approver must approve it", c.Name, p.ID), nil
	case eng == nil || !eng.HasRole(RoleApprove):
		return fmt.Sprintf("%s may not approve payments from %s (no engagement with APPROVE)", c.Name, a.account.IBAN), nil
	case eng.ApprovalLimit.LessThan(a.amount):
		return fmt.Sprintf("%s's approval limit of %s is below the payment's %s", c.Name, a.text(eng.ApprovalLimit), a.text(a.amount)), nil
	}
	p.Approvals = append(p.Approvals, Approval{CustomerID: c.ID, Time: now, Full: true})
	return "", authorise(l, p, now, a.by+", second approver")
}

// reject ends a payment as RJCT and releases its reservations; noFunds
// records that it had no cover.
func reject(l *ledger, p *Payment, by, reason string, at time.Time, noFunds bool) error {
	if noFunds {
		no := false
		p.FundsAvailable = &no
	}
	setStatus(p, StatusRJCT, by, reason, at)
	return release(l, p)
}

// cancel ends a payment as CANC (DELETE): RCVD, PATC, ACCP, ACTC and
// standing orders may be cancelled; a PDNG payment, and one picked up or
// finished, may not (409 CONFLICT).
func cancel(l *ledger, p *Payment, by string, at time.Time) error {
	switch {
	case p.Status == StatusPDNG:
		return apierr.Errorf(apierr.CodeConflict, "payment %s is PDNG (waiting for cover); a pending payment cannot be deleted", p.ID)
	case p.Status == StatusACSP || Final(p.Status):
		return apierr.Errorf(apierr.CodeConflict, "payment %s is %s and can no longer be cancelled", p.ID, p.Status)
	}
	setStatus(p, StatusCANC, by, "cancelled (DELETE)", at)
	return release(l, p)
}

// force sets a status by hand, for support staff who reproduce a case. The
// history marks it as forced. No money is booked; a final status (ACWP
// too) releases the payment's reservations, since it will never settle.
func force(l *ledger, p *Payment, status, note string, at time.Time) error {
	if note == "" {
		note = "forced by hand"
	}
	p.History = append(p.History, StatusChange{Time: at, From: p.Status, To: status, By: "support (forced)", Reason: note, Forced: true})
	p.Status = status
	if Final(status) {
		return release(l, p)
	}
	return nil
}

// settle moves an authorised payment at a batch run at moment at (by
// names the run): a due payment with cover settles (a cross-border
// transfer is first picked up, ACSP, and settles at the next run); without
// cover it waits (PDNG) for CoverRetryDays banking days, then is rejected.
func settle(l *ledger, p *Payment, at time.Time, by string) error {
	day := DateOf(at)
	if (p.Status == StatusACCP || p.Status == StatusACWC) && p.ExecutionDate.After(day) {
		return nil // not due yet
	}
	debtor, err := l.account(p.DebtorAccountID)
	if errors.Is(err, ErrNotFound) {
		return reject(l, p, by, "the debtor account no longer exists", at, false)
	} else if err != nil {
		return err
	}
	if p.Product == ProductNCBCT && awaitsSettlement(*p, day) {
		return pickUp(l, p, debtor, by, at)
	}
	waiting := false
	var why string
	for i := range p.Items {
		it := &p.Items[i]
		if it.Status != "" {
			continue
		}
		ok, reason, err := covered(l, p, *it, *debtor)
		if err != nil {
			return err
		}
		if !ok {
			waiting, why = true, reason
			continue
		}
		if err := book(l, p, it, debtor, day); err != nil {
			return err
		}
	}
	if waiting {
		return noCover(l, p, by, why, day, at)
	}
	yes := true
	p.FundsAvailable = &yes
	to, reason := StatusACSC, "settled"
	if p.Service == ServiceBulk {
		rejected := 0
		for _, it := range p.Items {
			if it.Status == StatusRJCT {
				rejected++
			}
		}
		switch {
		case rejected == len(p.Items):
			to, reason = StatusRJCT, "no item had cover in time"
		case rejected > 0:
			to, reason = StatusPART, fmt.Sprintf("%d of %d items settled; %d had no cover in time", len(p.Items)-rejected, len(p.Items), rejected)
		}
	}
	setStatus(p, to, by, reason, at)
	return nil
}

// pickUp moves a due cross-border transfer with cover to ACSP, holding its
// money until the next run settles it; without cover it waits (PDNG).
func pickUp(l *ledger, p *Payment, debtor *Account, by string, at time.Time) error {
	it := &p.Items[0]
	if ok, why, err := covered(l, p, *it, *debtor); err != nil {
		return err
	} else if !ok {
		return noCover(l, p, by, why, DateOf(at), at)
	}
	if _, _, err := hold(l, p, it, debtor); err != nil {
		return err
	}
	yes := true
	p.FundsAvailable = &yes
	setStatus(p, StatusACSP, by, "picked up; settles at the next batch run", at)
	return nil
}

// noCover handles a run that found no cover: the payment releases its
// reservations and waits (PDNG) until its retry days are over, then it (or
// a bulk payment's waiting items) is rejected.
func noCover(l *ledger, p *Payment, by, why string, day Date, at time.Time) error {
	no := false
	p.FundsAvailable = &no
	if err := release(l, p); err != nil {
		return err
	}
	if p.Status != StatusPDNG {
		st, err := l.settings()
		if err != nil {
			return err
		}
		p.RetryUntil = AddBankingDays(day, st.CoverRetryDays)
		setStatus(p, StatusPDNG, by, why+"; retried at every batch run until "+p.RetryUntil.String(), at)
		return nil
	}
	if !day.After(p.RetryUntil) {
		return nil
	}
	if p.Service != ServiceBulk {
		return reject(l, p, by, why+"; no cover within the retry days", at, true)
	}
	settled := 0
	for i := range p.Items {
		switch p.Items[i].Status {
		case "":
			p.Items[i].Status = StatusRJCT
		case StatusACSC:
			settled++
		}
	}
	to := StatusRJCT
	if settled > 0 {
		to = StatusPART
	}
	setStatus(p, to, by, fmt.Sprintf("%d of %d items settled; the rest had no cover within the retry days", settled, len(p.Items)), at)
	return nil
}

// need is what an item takes from the debtor account, in its currency:
// the amount and, for a cross-border transfer, the fee.
func need(l *ledger, p *Payment, it PaymentItem, debtor Account) (debit, fee decimal.Decimal, err error) {
	st, err := l.settings()
	if err != nil {
		return debit, fee, err
	}
	if debit, err = convert(st.FX, it.Amount, it.Currency, debtor.Currency); err != nil {
		return debit, fee, err
	}
	if p.Fee.IsPositive() {
		fee, err = convert(st.FX, p.Fee, "NOK", debtor.Currency)
	}
	return debit, fee, err
}

// covered checks cover for an item: what the debtor account has available
// (expected balance plus credit line), with the item's own reservation
// added back, must reach what the item needs. A missing FX rate is no
// cover, with the reason.
func covered(l *ledger, p *Payment, it PaymentItem, debtor Account) (bool, string, error) {
	debit, fee, err := need(l, p, it, debtor)
	if errors.Is(err, errNoRate) {
		return false, err.Error(), nil
	} else if err != nil {
		return false, "", err
	}
	available := debtor.Available().Add(it.Reserved)
	if want := debit.Add(fee); available.LessThan(want) {
		return false, fmt.Sprintf("no cover: %s available (expected balance and credit line), %s needed", FormatAmount(available, debtor.Currency), FormatAmount(want, debtor.Currency)), nil
	}
	return true, "", nil
}

// reserve holds the money of each unsettled item of an authorised payment
// that the debtor account covers, and records in fundsAvailable whether
// every item is held. An item without cover is not held; a batch run
// looks for cover again.
func reserve(l *ledger, p *Payment) error {
	debtor, err := l.account(p.DebtorAccountID)
	all := true
	if errors.Is(err, ErrNotFound) {
		all = false // settlement rejects the payment
	} else if err != nil {
		return err
	}
	for i := range p.Items {
		if all && debtor == nil {
			break
		}
		it := &p.Items[i]
		if it.Status != "" || debtor == nil {
			continue
		}
		held, _, err := hold(l, p, it, debtor)
		if err != nil {
			return err
		}
		all = all && held
	}
	p.FundsAvailable = &all
	return nil
}

// hold reserves one item when the debtor account covers it: a pending
// debit (and a pending fee for a cross-border transfer) on the account,
// which lowers its expected balance by what the item needs. An item held
// already stays held. held says whether the item is held; why, when not.
func hold(l *ledger, p *Payment, it *PaymentItem, debtor *Account) (held bool, why string, err error) {
	if it.PendingTxID != "" {
		return true, "", nil
	}
	ok, why, err := covered(l, p, *it, *debtor)
	if err != nil || !ok {
		return false, why, err
	}
	debit, fee, err := need(l, p, *it, *debtor)
	if err != nil {
		return false, "", err
	}
	st, err := l.settings()
	if err != nil {
		return false, "", err
	}
	owner := l.customer(debtor.OwnerID)
	t := debitTransaction(*p, *it, *debtor, owner, debit.Neg(), p.ExecutionDate, st.FX)
	if t.ID, err = l.newTxID(*debtor); err != nil {
		return false, "", err
	}
	t.Pending = true
	txs := []Transaction{t}
	if fee.IsPositive() {
		f := feeTransaction(*p, *debtor, owner, fee.Neg(), p.ExecutionDate, st.FX)
		if f.ID, err = l.newTxID(*debtor); err != nil {
			return false, "", err
		}
		f.Pending = true
		txs = append(txs, f)
		it.PendingFeeTxID = f.ID
	}
	if err := l.tx.PutTransactions(debtor.ID, txs); err != nil {
		return false, "", err
	}
	it.PendingTxID, it.Reserved = t.ID, debit.Add(fee)
	debtor.Balances.Expected = debtor.Balances.Expected.Sub(it.Reserved)
	l.touch(debtor.ID)
	return true, "", nil
}

// release drops the reservations of the items that did not settle: their
// pending items go, and the expected balance rises by what they held.
func release(l *ledger, p *Payment) error {
	var debtor *Account
	for i := range p.Items {
		it := &p.Items[i]
		if it.PendingTxID == "" || it.Status == StatusACSC {
			continue
		}
		for _, id := range []string{it.PendingTxID, it.PendingFeeTxID} {
			if id == "" {
				continue
			}
			if err := l.tx.DeleteTransaction(p.DebtorAccountID, id); err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		if debtor == nil {
			var err error
			if debtor, err = l.account(p.DebtorAccountID); errors.Is(err, ErrNotFound) {
				it.PendingTxID, it.PendingFeeTxID, it.Reserved = "", "", decimal.Decimal{}
				continue // gone with its transactions
			} else if err != nil {
				return err
			}
		}
		debtor.Balances.Expected = debtor.Balances.Expected.Add(it.Reserved)
		l.touch(debtor.ID)
		it.PendingTxID, it.PendingFeeTxID, it.Reserved = "", "", decimal.Decimal{}
	}
	return nil
}

// book settles one item: the debit (and a cross-border fee) is booked on
// the debtor account, under the ids of its pending items when it was
// reserved, and the credit on the creditor account when it is a sandbox
// account. closingBooked moves by what is booked; expected by what was not
// reserved already.
func book(l *ledger, p *Payment, it *PaymentItem, debtor *Account, day Date) error {
	debit, fee, err := need(l, p, *it, *debtor)
	if err != nil {
		return err
	}
	st, err := l.settings()
	if err != nil {
		return err
	}
	owner := l.customer(debtor.OwnerID)
	t := debitTransaction(*p, *it, *debtor, owner, debit.Neg(), day, st.FX)
	if t.ID = it.PendingTxID; t.ID == "" {
		if t.ID, err = l.newTxID(*debtor); err != nil {
			return err
		}
	}
	txs := []Transaction{t}
	if fee.IsPositive() {
		f := feeTransaction(*p, *debtor, owner, fee.Neg(), day, st.FX)
		if f.ID = it.PendingFeeTxID; f.ID == "" {
			if f.ID, err = l.newTxID(*debtor); err != nil {
				return err
			}
		}
		txs = append(txs, f)
	}
	if err := l.tx.PutTransactions(debtor.ID, txs); err != nil {
		return err
	}
	total := debit.Add(fee)
	debtor.Balances.ClosingBooked = debtor.Balances.ClosingBooked.Sub(total)
	debtor.Balances.Expected = debtor.Balances.Expected.Sub(total).Add(it.Reserved)
	l.touch(debtor.ID)
	it.Status, it.Reserved, it.PendingFeeTxID = StatusACSC, decimal.Decimal{}, ""
	it.PendingTxID = t.ID
	if it.CreditorAccountID == "" || it.CreditorAccountID == debtor.ID {
		return nil
	}
	creditor, err := l.account(it.CreditorAccountID)
	if errors.Is(err, ErrNotFound) {
		return nil // deleted since: the money leaves the sandbox
	} else if err != nil {
		return err
	}
	credit, err := convert(st.FX, it.Amount, it.Currency, creditor.Currency)
	if err != nil {
		return err
	}
	ct := t // what the payment knew, on the creditor's side
	ct.Amount, ct.Currency = credit, creditor.Currency
	ct.CreditorAccount = AccountRef{IBAN: creditor.IBAN, BBAN: creditor.BBAN}
	ct.CreditorAgent, ct.PurposeCode = BankBIC, ""
	ct.BankTransactionCode, ct.ProprietaryBankTransactionCode = "PMNT-RCDT-DMCT", "Innbetaling"
	ct.CurrencyExchange = exchangeRate(st.FX, it.Currency, creditor.Currency, day)
	if ct.ID, err = l.newTxID(*creditor); err != nil {
		return err
	}
	it.CreditorTxID = ct.ID
	if err := l.tx.PutTransactions(creditor.ID, []Transaction{ct}); err != nil {
		return err
	}
	creditor.Balances.ClosingBooked = creditor.Balances.ClosingBooked.Add(credit)
	creditor.Balances.Expected = creditor.Balances.Expected.Add(credit)
	l.touch(creditor.ID)
	return nil
}

// debitTransaction is the debtor account's side of a payment item: with
// what the payment knew of it (docs/PAYMENTS.md, "What a settled payment's
// transaction carries"): its remittance, structured references (a KID)
// instead of a text, the ultimate parties, the agents known (this bank's
// BIC for a sandbox account), and the conversion from the item's currency
// to the account's with the FX table fx.
func debitTransaction(p Payment, it PaymentItem, acct Account, owner Customer, amount decimal.Decimal, date Date, fx map[string]decimal.Decimal) Transaction {
	t := Transaction{
		Amount: amount, Currency: acct.Currency, BookingDate: date, ValueDate: date,
		RemittanceInformationUnstructured: it.Remittance, CreditorName: it.CreditorName, CreditorAccount: it.CreditorAccount,
		UltimateCreditor: it.UltimateCreditor, CreditorAgent: it.CreditorAgent,
		DebtorName: owner.Name, DebtorAccount: AccountRef{IBAN: acct.IBAN, BBAN: acct.BBAN},
		UltimateDebtor: it.UltimateDebtor, DebtorAgent: BankBIC, PurposeCode: it.PurposeCode,
		EndToEndID: it.EndToEndID, BankTransactionCode: "PMNT-ICDT-DMCT", ProprietaryBankTransactionCode: "Nettbetaling",
		RemittanceInformationUnstructuredArray: it.Lines, RemittanceInformationStructuredArray: it.references(),
		CurrencyExchange: exchangeRate(fx, it.Currency, acct.Currency, date),
	}
	if p.Product == ProductNCBCT {
		t.BankTransactionCode, t.ProprietaryBankTransactionCode = "PMNT-ICDT-XBCT", "Utlandsbetaling"
	}
	if t.CreditorAgent == "" && it.CreditorAccountID != "" {
		t.CreditorAgent = BankBIC
	}
	if len(t.RemittanceInformationStructuredArray) > 0 {
		// A payment takes a structured reference or a text, not both: the
		// item's Remittance is then the reference.
		t.RemittanceInformationUnstructured = ""
	}
	return t
}

// references returns the item's structured references: as the request
// gave them, or, for a payment stored before they were kept, its KID.
func (it PaymentItem) references() []StructuredRemittance {
	switch {
	case len(it.Structured) > 0:
		return it.Structured
	case it.KID != "":
		return []StructuredRemittance{{Reference: it.KID, ReferenceType: "KID"}}
	}
	return nil
}

// feeTransaction is the fee of a cross-border transfer on the debtor
// account: in NOK, converted with the FX table fx for an account in
// another currency.
func feeTransaction(p Payment, acct Account, owner Customer, amount decimal.Decimal, date Date, fx map[string]decimal.Decimal) Transaction {
	return Transaction{
		Amount: amount, Currency: acct.Currency, BookingDate: date, ValueDate: date,
		RemittanceInformationUnstructured: "Gebyr utenlandsbetaling " + p.ID, CreditorName: "Sandbank", CreditorAgent: BankBIC,
		DebtorName: owner.Name, DebtorAccount: AccountRef{IBAN: acct.IBAN, BBAN: acct.BBAN}, DebtorAgent: BankBIC,
		BankTransactionCode: "ACMT-MDOP-CHRG", ProprietaryBankTransactionCode: "Gebyr",
		CurrencyExchange: exchangeRate(fx, "NOK", acct.Currency, date),
	}
}

// fundsNow sets fundsAvailable of a payment that neither holds
// reservations nor was looked at by a batch run (one that awaits
// approval, a standing order): whether its debtor account covers its
// unsettled items now. A payment whose fundsAvailable is set keeps it.
func fundsNow(l *ledger, p *Payment) error {
	if p.FundsAvailable != nil || Final(p.Status) {
		return nil
	}
	covers := false
	debtor, err := l.account(p.DebtorAccountID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	if debtor != nil {
		want := decimal.Decimal{}
		covers = true
		for _, it := range p.Items {
			if it.Status != "" {
				continue
			}
			debit, fee, err := need(l, p, it, *debtor)
			if errors.Is(err, errNoRate) {
				covers = false
				break
			} else if err != nil {
				return err
			}
			want = want.Add(debit).Add(fee)
		}
		covers = covers && !debtor.Available().LessThan(want)
	}
	p.FundsAvailable = &covers
	return nil
}
