package bank

import (
	"errors"
	"slices"
	"strings"

	"sandbank/bank/apierr"
)

// Payment returns a TPP's payment for reading, with fundsAvailable as of
// now. Another TPP's payment, or one under another service or product, is
// 404 RESOURCE_UNKNOWN; so is a single NDCT payment that no PSU has
// approved yet (the bank's known limitation, spec 3).
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
		if p.Request, err = tx.PaymentRequest(id); err != nil {
			return err
		}
		return fundsNow(newLedger(tx), &p)
	})
	if err != nil {
		return p, err
	}
	if p.Service == ServiceSingle && p.Product == ProductNDCT && !readable(p) {
		return Payment{}, apierr.Errorf(apierr.CodeResourceUnknown, "payment %s cannot be read yet: the bank shows a domestic (NDCT) payment only after the PSU has approved it (a known limitation of the bank, kept on purpose). Complete SCA at its scaRedirect link first", apierr.Clip(id))
	}
	return p, nil
}

// readable reports whether a single NDCT payment may be read: once a PSU
// approved it, support forced its status, or a signing basket's SCA
// decided it (a payment rejected in a basket is readable, with why).
func readable(p Payment) bool {
	return len(p.Approvals) > 0 || slices.ContainsFunc(p.History, func(c StatusChange) bool { return c.Forced }) ||
		(p.BasketID != "" && p.Status != StatusRCVD)
}

// ownPayment loads a payment of a TPP under a service and product.
func ownPayment(tx Tx, tppID, service, product, id string) (Payment, error) {
	p, err := tx.Payment(id)
	if errors.Is(err, ErrNotFound) || (err == nil && (p.TPPID != tppID || p.Service != service || p.Product != product)) {
		return Payment{}, apierr.Errorf(apierr.CodeResourceUnknown, "there is no %s payment %s of your TPP under /v1/%s", product, apierr.Clip(id), service)
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
	return s.move("cancel payment", func(l *ledger) error {
		p, err := ownPayment(l.tx, tppID, service, product, id)
		if err != nil {
			return err
		}
		if err := cancel(l, &p, "TPP "+tppID, s.Now()); err != nil {
			return err
		}
		return l.tx.PutPayment(p)
	}, Event{Kind: EventPayments, ID: id})
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
			return apierr.Errorf(apierr.CodeConflict, "payment %s is in signing basket %s; authorise the basket", id, p.BasketID)
		case p.Status != StatusRCVD && p.Status != StatusPATC:
			return apierr.Errorf(apierr.CodeConflict, "payment %s is %s; only RCVD and PATC payments await authorisation", id, p.Status)
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

// PaymentAuthorisations lists the authorisations of a TPP's payment, oldest
// first. Unlike reading the payment, it works before any PSU approved it.
func (s *PSD2) PaymentAuthorisations(tppID, service, product, id string) ([]string, error) {
	if err := CheckProduct(service, product); err != nil {
		return nil, err
	}
	return read(s.core, "list payment authorisations", func(tx Tx) ([]string, error) {
		p, err := ownPayment(tx, tppID, service, product, id)
		return p.Authorisations, err
	})
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
			return apierr.Errorf(apierr.CodeSCANotFound, "payment %s has no authorisation %s", paymentID, apierr.Clip(authID))
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
		if acct.OwnerID == c.ID && c.IsPrivate() && fixed(ContextPrivate) && !hasOption(out, ContextPrivate) {
			out = append(out, Option{Value: ContextPrivate, Label: []string{"Privat:", c.Name}})
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
			out = append(out, Option{Value: agr.ID, Label: []string{"Bedrift:", owner.Name, "(" + agr.Name + ")"}})
		}
	}
	return out, nil
}

// ForcePaymentStatus sets a payment's status by hand, for support staff who
// reproduce a customer's case. The history marks it as forced, with the
// note (at most MaxForceNote characters). No money is booked: forcing ACSC
// books nothing; forcing a final status (ACSC, ACWP, RJCT, CANC, PART) releases
// the payment's reservations. An unknown payment is RESOURCE_UNKNOWN; a
// status that is none of PaymentStatuses, or a bad note, a FORMAT_ERROR.
func (s *Ops) ForcePaymentStatus(id, status, note string) (PaymentDetail, error) {
	var d PaymentDetail
	err := s.move("force payment status", func(l *ledger) error {
		p, err := l.tx.Payment(id)
		if err != nil {
			return found(err, "payment", id)
		}
		var v apierr.Violations
		if status == "" {
			v.Format("status", "is required; one of %s", strings.Join(PaymentStatuses, ", "))
		} else if !slices.Contains(PaymentStatuses, status) {
			v.Format("status", "%q is not a payment status; use one of %s", apierr.Clip(status), strings.Join(PaymentStatuses, ", "))
		}
		CheckText(&v, "note", note, 0, MaxForceNote)
		if err := v.Err(); err != nil {
			return err
		}
		if err := force(l, &p, status, note, s.Now()); err != nil {
			return err
		}
		if err := l.tx.PutPayment(p); err != nil {
			return err
		}
		if p.Request, err = l.tx.PaymentRequest(id); err != nil {
			return err
		}
		d.Payment = p
		d.add(l.tx, p)
		return nil
	}, Event{Kind: EventPayments, ID: id})
	return d, err
}

// MaxForceNote is the longest note a forced status takes.
const MaxForceNote = 500
