package bank

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"
)

// Kinds of authorisation for payments.
const (
	AuthPayment = "payment" // one payment: creation or POST .../authorisations
	AuthBasket  = "basket"  // every payment of a signing basket
)

// authorise moves an approved payment on: ACCP when its execution date is
// in the future, else ACTC; a periodic payment stays ACTC (the sandbox
// batch skips it). The debtor account shows every item as pending until
// it settles.
func (s *core) authorise(tx Tx, p *Payment, now time.Time, by string) error {
	to := StatusACTC
	if !p.Periodic() && p.ExecutionDate.After(DateOf(now)) {
		to = StatusACCP
	}
	setStatus(p, to, by, "authorised", now)
	if p.Periodic() {
		return nil
	}
	return addPending(tx, p)
}

// addPending writes each item as a pending debit on the debtor account.
func addPending(tx Tx, p *Payment) error {
	acct, err := tx.Account(p.DebtorAccountID)
	if errors.Is(err, ErrNotFound) {
		return nil // settlement rejects the payment
	} else if err != nil {
		return err
	}
	st, err := settingsIn(tx)
	if err != nil {
		return err
	}
	owner, _ := tx.Customer(acct.OwnerID)
	accountSeq, _ := SeqOf(KindAccount, acct.ID)
	var txs []Transaction
	for i := range p.Items {
		it := &p.Items[i]
		if it.Status != "" || it.PendingTxID != "" {
			continue
		}
		debit, err := convert(st.FX, it.Amount, it.Currency, acct.Currency)
		if err != nil {
			continue // no rate: settlement rejects the item
		}
		seq, err := tx.NextSeq(KindTransaction)
		if err != nil {
			return err
		}
		it.PendingTxID = FormatID(KindTransaction, accountSeq, seq)
		t := debitTransaction(*p, *it, acct, owner, debit.Neg(), p.ExecutionDate)
		t.ID, t.Pending = it.PendingTxID, true
		txs = append(txs, t)
	}
	if len(txs) == 0 {
		return nil
	}
	return tx.PutTransactions(acct.ID, txs)
}

// removePending deletes the pending debits of items that did not settle.
func removePending(tx Tx, p *Payment) error {
	for i := range p.Items {
		it := &p.Items[i]
		if it.PendingTxID == "" || it.Status == StatusACSC {
			continue
		}
		if err := tx.DeleteTransaction(p.DebtorAccountID, it.PendingTxID); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		it.PendingTxID = ""
	}
	return nil
}

// debitTransaction is the debtor account's side of a payment item.
func debitTransaction(p Payment, it PaymentItem, acct Account, owner Customer, amount decimal.Decimal, date Date) Transaction {
	t := Transaction{
		Amount: amount, Currency: acct.Currency, BookingDate: date, ValueDate: date,
		RemittanceInformationUnstructured: it.Remittance, CreditorName: it.CreditorName, CreditorAccount: it.CreditorAccount,
		DebtorName: owner.Name, DebtorAccount: AccountRef{IBAN: acct.IBAN, BBAN: acct.BBAN},
		EndToEndID: it.EndToEndID, BankTransactionCode: "PMNT-ICDT-DMCT", ProprietaryBankTransactionCode: "Nettbetaling",
	}
	if p.Product == ProductNCBCT {
		t.BankTransactionCode, t.ProprietaryBankTransactionCode = "PMNT-ICDT-XBCT", "Utlandsbetaling"
		t.PurposeCode, t.CreditorAgent = p.Request.PurposeCode, p.Request.CreditorAgent
	}
	if it.KID != "" {
		t.RemittanceInformationUnstructured = "KID " + it.KID
	}
	return t
}

// reject ends a payment as RJCT and removes its pending debits.
func reject(tx Tx, p *Payment, by, reason string, at time.Time, noFunds bool) error {
	if noFunds {
		no := false
		p.FundsAvailable = &no
	}
	setStatus(p, StatusRJCT, by, reason, at)
	return removePending(tx, p)
}

// PaymentOf returns a TPP's payment for reading. Another TPP's payment, or
// one under another service or product, is 404 RESOURCE_UNKNOWN; so is a
// single NDCT payment that no PSU has approved yet (the bank's known
// limitation, spec 3).
func (s *PSD2) Payment(tppID, service, product, id string) (Payment, error) {
	if err := CheckProduct(service, product); err != nil {
		return Payment{}, err
	}
	var p Payment
	err := s.view("read payment", func(tx Tx) error {
		var err error
		if p, err = ownPayment(tx, tppID, service, product, id); err != nil {
			return err
		}
		p.Request, err = tx.PaymentRequest(id)
		return err
	})
	if err != nil {
		return p, err
	}
	if p.Service == ServiceSingle && p.Product == ProductNDCT && !approvedOnce(p) {
		return Payment{}, Errorf(CodeResourceUnknown, "payment %s cannot be read yet: the bank shows a domestic (NDCT) payment only after the PSU has approved it (a known limitation of the bank, kept on purpose). Complete SCA at its scaRedirect link first", clip(id))
	}
	return p, nil
}

func approvedOnce(p Payment) bool {
	return len(p.Approvals) > 0 || slices.ContainsFunc(p.History, func(c StatusChange) bool { return c.Forced })
}

// ownPayment loads a payment of a TPP under a service and product.
func ownPayment(tx Tx, tppID, service, product, id string) (Payment, error) {
	p, err := tx.Payment(id)
	if errors.Is(err, ErrNotFound) || (err == nil && (p.TPPID != tppID || p.Service != service || p.Product != product)) {
		return Payment{}, Errorf(CodeResourceUnknown, "there is no %s payment %s of your TPP under /v1/%s", product, clip(id), service)
	}
	return p, err
}

// CancelPayment cancels a payment (DELETE): RCVD, PATC, ACCP, ACTC and
// periodic payments become CANC; a PDNG payment and a finished one cannot
// be cancelled (409 CONFLICT).
func (s *PSD2) CancelPayment(tppID, service, product, id string) error {
	if err := CheckProduct(service, product); err != nil {
		return err
	}
	return s.write("cancel payment", func(tx Tx) error {
		p, err := ownPayment(tx, tppID, service, product, id)
		if err != nil {
			return err
		}
		switch {
		case p.Status == StatusPDNG:
			return Errorf(CodeConflict, "payment %s is PDNG (waiting for cover); a pending payment cannot be deleted", id)
		case p.Status == StatusACSP || Final(p.Status):
			return Errorf(CodeConflict, "payment %s is %s and can no longer be cancelled", id, p.Status)
		}
		setStatus(&p, StatusCANC, "TPP "+tppID, "cancelled (DELETE)", s.Now())
		if err := removePending(tx, &p); err != nil {
			return err
		}
		return tx.PutPayment(p)
	}, Event{Kind: EventPayments, ID: id}, Event{Kind: EventTransactions})
}

// StartPaymentAuthorisation starts another authorisation of a payment
// (POST .../authorisations): for a payment whose first SCA failed to start
// in time, or for the second approver of a PATC payment.
func (s *PSD2) StartPaymentAuthorisation(r SCARequest, service, product, id string) (Authorisation, error) {
	if err := CheckProduct(service, product); err != nil {
		return Authorisation{}, err
	}
	var a Authorisation
	err := s.write("start payment authorisation", func(tx Tx) error {
		p, err := ownPayment(tx, r.TPPID, service, product, id)
		if err != nil {
			return err
		}
		switch {
		case p.Status == StatusRCVD && p.BasketID != "":
			return Errorf(CodeConflict, "payment %s is in signing basket %s; authorise the basket", id, p.BasketID)
		case p.Status != StatusRCVD && p.Status != StatusPATC:
			return Errorf(CodeConflict, "payment %s is %s; only RCVD and PATC payments await authorisation", id, p.Status)
		}
		r.Kind = AuthPayment
		if a, err = s.newAuthorisation(tx, r, s.Now()); err != nil {
			return err
		}
		a.PaymentIDs = []string{id}
		if p.Status == StatusRCVD {
			a.PSURequired = p.CustomerID
		}
		p.Authorisations = append(p.Authorisations, a.ID)
		if err := tx.PutAuthorisation(a); err != nil {
			return err
		}
		return tx.PutPayment(p)
	}, Event{Kind: EventConsents}, Event{Kind: EventPayments, ID: id})
	return a, err
}

// PaymentAuthorisation returns an authorisation of a TPP's payment.
func (s *PSD2) PaymentAuthorisation(tppID, service, product, paymentID, authID string) (Authorisation, error) {
	if err := CheckProduct(service, product); err != nil {
		return Authorisation{}, err
	}
	var a Authorisation
	err := s.readAuthorisation("read payment authorisation", func(tx Tx, mayWrite bool) error {
		p, err := ownPayment(tx, tppID, service, product, paymentID)
		if err != nil {
			return err
		}
		if !slices.Contains(p.Authorisations, authID) {
			return Errorf(CodeSCANotFound, "payment %s has no authorisation %s", paymentID, clip(authID))
		}
		a, _, err = s.loadAuthorisation(tx, authID, mayWrite)
		return err
	}, Event{Kind: EventConsents})
	return a, err
}

// paymentContexts lists the contexts in which a PSU may approve the
// payments of an authorisation: private when the PSU owns a debtor account,
// and each agreement in which an engagement gives them REGISTER or APPROVE
// on one. A payment whose context is already fixed allows only that one.
func paymentContexts(tx Tx, a Authorisation, c Customer) ([]Option, error) {
	var out []Option
	for _, id := range a.PaymentIDs {
		p, err := tx.Payment(id)
		if err != nil {
			return nil, err
		}
		acct, err := tx.Account(p.DebtorAccountID)
		if errors.Is(err, ErrNotFound) {
			continue
		} else if err != nil {
			return nil, err
		}
		fixed := func(ctx string) bool { return p.Context == "" || p.Context == ctx }
		if acct.OwnerID == c.ID && c.Type == Private && fixed(ContextPrivate) && !hasOption(out, ContextPrivate) {
			out = append(out, Option{Value: ContextPrivate, Label: "Privat: " + c.Name})
		}
		engagements, err := tx.EngagementsByAccount(acct.ID)
		if err != nil {
			return nil, err
		}
		for _, e := range engagements {
			if e.CustomerID != c.ID || !(e.HasRole(RoleRegister) || e.HasRole(RoleApprove)) || !fixed(e.AgreementID) || hasOption(out, e.AgreementID) {
				continue
			}
			agr, err := tx.Agreement(e.AgreementID)
			if err != nil {
				return nil, err
			}
			owner, _ := tx.Customer(agr.OwnerID)
			out = append(out, Option{Value: agr.ID, Label: "Bedrift: " + owner.Name + " (" + agr.Name + ")"})
		}
	}
	return out, nil
}

// approvePayment applies a PSU's approval, in a context, to one payment.
// It returns why the approval did not count ("" when it did): the payment
// is then rejected (a PSU who may not use the account, or over their
// register limit), or stays PATC (a second approver without enough
// limit).
func (s *core) approvePayment(tx Tx, p *Payment, c Customer, context string, now time.Time) (string, error) {
	by := fmt.Sprintf("PSU %s (%s)", c.Name, c.Number)
	if p.Status != StatusRCVD && p.Status != StatusPATC {
		return fmt.Sprintf("payment %s is %s and no longer awaits approval", p.ID, p.Status), nil
	}
	acct, err := tx.Account(p.DebtorAccountID)
	if errors.Is(err, ErrNotFound) {
		why := "the debtor account no longer exists"
		return why, reject(tx, p, by, why, now, false)
	} else if err != nil {
		return "", err
	}
	st, err := settingsIn(tx)
	if err != nil {
		return "", err
	}
	amount, err := convert(st.FX, p.Total(), p.Currency(), acct.Currency)
	if err != nil {
		return err.Error(), reject(tx, p, by, err.Error(), now, false)
	}
	var eng *Engagement
	if context != ContextPrivate {
		engagements, err := tx.EngagementsByAccount(acct.ID)
		if err != nil {
			return "", err
		}
		for _, e := range engagements {
			if e.CustomerID == c.ID && e.AgreementID == context {
				eng = &e
				break
			}
		}
	}
	limitText := func(d decimal.Decimal) string { return FormatAmount(d, acct.Currency) + " " + acct.Currency }
	if p.Status == StatusPATC {
		switch {
		case slices.ContainsFunc(p.Approvals, func(ap Approval) bool { return ap.CustomerID == c.ID }):
			return fmt.Sprintf("%s has approved payment %s already; another approver must approve it", c.Name, p.ID), nil
		case eng == nil || !eng.HasRole(RoleApprove):
			return fmt.Sprintf("%s may not approve payments from %s (no engagement with APPROVE)", c.Name, acct.IBAN), nil
		case eng.ApprovalLimit.LessThan(amount):
			return fmt.Sprintf("%s's approval limit of %s is below the payment's %s", c.Name, limitText(eng.ApprovalLimit), limitText(amount)), nil
		}
		p.Approvals = append(p.Approvals, Approval{CustomerID: c.ID, Time: now, Full: true})
		return "", s.authorise(tx, p, now, by+", second approver")
	}
	if p.CustomerID != "" && p.CustomerID != c.ID {
		why := "the payment was started for another PSU"
		return why, reject(tx, p, by, why, now, false)
	}
	full := false
	switch {
	case context == ContextPrivate && acct.OwnerID == c.ID && c.Type == Private:
		full = true
	case eng == nil || !eng.HasRole(RoleRegister):
		why := fmt.Sprintf("%s may not pay from %s in this context", c.Name, acct.IBAN)
		return why, reject(tx, p, by, why, now, false)
	case eng.RegisterLimit.LessThan(amount):
		why := fmt.Sprintf("the payment's %s is over %s's register limit of %s", limitText(amount), c.Name, limitText(eng.RegisterLimit))
		return why, reject(tx, p, by, why, now, false)
	default:
		full = eng.HasRole(RoleApprove) && !eng.ApprovalLimit.LessThan(amount)
	}
	p.CustomerID, p.Context = c.ID, context
	p.Approvals = append(p.Approvals, Approval{CustomerID: c.ID, Time: now, Full: full})
	if !full {
		setStatus(p, StatusPATC, by, fmt.Sprintf("approved; the amount %s is over %s's approval limit, so a second approver with a high enough limit must approve", limitText(amount), c.Name), now)
		return "", nil
	}
	return "", s.authorise(tx, p, now, by)
}

// ForcePaymentStatus sets a payment's status by hand, for support staff who
// reproduce a customer's case. The history marks it as forced. No money
// moves: forcing ACSC books nothing; forcing RJCT or CANC removes the
// pending debits.
func (s *Ops) ForcePaymentStatus(id, status, note string) (Payment, error) {
	var p Payment
	if !slices.Contains(PaymentStatuses, status) {
		return p, PathError(CodeFormatError, "status", fmt.Sprintf("%q is not a payment status; use one of %v", clip(status), PaymentStatuses))
	}
	err := s.write("force payment status", func(tx Tx) error {
		var err error
		if p, err = tx.Payment(id); err != nil {
			return found(err, "payment", id)
		}
		if note == "" {
			note = "forced by hand"
		}
		p.History = append(p.History, StatusChange{Time: s.Now(), From: p.Status, To: status, By: "support (forced)", Reason: note, Forced: true})
		p.Status = status
		if status == StatusRJCT || status == StatusCANC {
			if err := removePending(tx, &p); err != nil {
				return err
			}
		}
		return tx.PutPayment(p)
	}, Event{Kind: EventPayments, ID: id}, Event{Kind: EventTransactions})
	return p, err
}
