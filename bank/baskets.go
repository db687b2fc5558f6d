package bank

import (
	"errors"
	"fmt"
	"slices"

	"sandbank/bank/apierr"
)

// MaxBasketPayments is how many payments a basket holds at most.
const MaxBasketPayments = 10

// BasketView is a basket with its payments and its status: the worst case
// of its payments.
type BasketView struct {
	Basket
	Payments []Payment
	Status   string
}

// BasketStatus is the worst case of the payments' statuses: any RJCT or
// CANC gives RJCT; else any PATC, or a mix of RCVD and authorised payments,
// gives PATC; else all RCVD gives RCVD; else ACTC.
func BasketStatus(payments []Payment) string {
	rcvd, patc := 0, 0
	for _, p := range payments {
		switch p.Status {
		case StatusRJCT, StatusCANC:
			return StatusRJCT
		case StatusPATC:
			patc++
		case StatusRCVD:
			rcvd++
		}
	}
	switch {
	case patc > 0 || (rcvd > 0 && rcvd < len(payments)):
		return StatusPATC
	case rcvd == len(payments):
		return StatusRCVD
	}
	return StatusACTC
}

// CreateBasket puts 1 to 10 of a TPP's RCVD single payments in a basket.
// A PSU-ID sent with it (psuID, empty for none) must be one the bank gave
// the TPP at SCA: one it never gave the TPP is 401 PSU_CREDENTIALS_INVALID,
// answered with a new SCA (spec 4.2 E1, status rule 3), as account
// information answers an unknown PSU-ID.
func (s *PSD2) CreateBasket(tppID, psuID string, ids []string) (BasketView, error) {
	var out BasketView
	var v apierr.Violations
	switch {
	case len(ids) == 0:
		v.Format("paymentIds", "give 1 to %d payment ids", MaxBasketPayments)
	case len(ids) > MaxBasketPayments:
		v.Format("paymentIds", "holds %d ids; a basket holds at most %d payments", len(ids), MaxBasketPayments)
	}
	seen := make(map[string]bool, len(ids))
	for i, id := range ids {
		if seen[id] {
			v.Format(fmt.Sprintf("paymentIds[%d]", i), "payment %s is given twice", apierr.Clip(id))
		}
		seen[id] = true
	}
	if err := v.Err(); err != nil {
		return out, err
	}
	err := s.write("create basket", func(tx Tx) error {
		if psuID != "" {
			if _, err := knownPSU(tx, tppID, psuID, apierr.CodePSUCredentialsInvalid); err != nil {
				return err
			}
		}
		var payments []Payment
		for i, id := range ids {
			path := fmt.Sprintf("paymentIds[%d]", i)
			p, err := tx.Payment(id)
			switch {
			case errors.Is(err, ErrNotFound) || (err == nil && p.TPPID != tppID):
				return apierr.PathError(apierr.CodeResourceUnknown, path, fmt.Sprintf("there is no payment %s of your TPP", apierr.Clip(id)))
			case err != nil:
				return err
			case p.Service != ServiceSingle:
				return apierr.PathError(apierr.CodeReferenceMixInvalid, path, fmt.Sprintf("payment %s is a %s payment; a basket takes single payments only", id, p.Service))
			case p.BasketID != "":
				return apierr.PathError(apierr.CodeConflict, path, fmt.Sprintf("payment %s is in basket %s already", id, p.BasketID))
			case p.Status != StatusRCVD:
				return apierr.PathError(apierr.CodeConflict, path, fmt.Sprintf("payment %s is %s; a basket takes payments that await authorisation (RCVD)", id, p.Status))
			}
			payments = append(payments, p)
		}
		seq, err := tx.NextSeq(KindBasket)
		if err != nil {
			return err
		}
		b := Basket{ID: FormatID(KindBasket, 0, seq), TPPID: tppID, PaymentIDs: ids, Created: s.Now()}
		for i := range payments {
			payments[i].BasketID = b.ID
			if err := tx.PutPayment(payments[i]); err != nil {
				return err
			}
		}
		out = BasketView{Basket: b, Payments: payments, Status: BasketStatus(payments)}
		return tx.PutBasket(b)
	}, Event{Kind: EventPayments})
	return out, err
}

// Basket returns a TPP's basket with its payments.
func (s *PSD2) Basket(tppID, id string) (BasketView, error) {
	return read(s.core, "read basket", func(tx Tx) (out BasketView, err error) {
		out, err = basketView(tx, tppID, id)
		return out, err
	})
}

func basketView(tx Tx, tppID, id string) (BasketView, error) {
	b, err := tx.Basket(id)
	if errors.Is(err, ErrNotFound) || (err == nil && b.TPPID != tppID) {
		return BasketView{}, apierr.Errorf(apierr.CodeResourceUnknown, "there is no signing basket %s of your TPP", apierr.Clip(id))
	} else if err != nil {
		return BasketView{}, err
	}
	v := BasketView{Basket: b}
	for _, pid := range b.PaymentIDs {
		p, err := tx.Payment(pid)
		if err != nil {
			return v, err
		}
		v.Payments = append(v.Payments, p)
	}
	v.Status = BasketStatus(v.Payments)
	return v, nil
}

// DeleteBasket deletes a basket before any authorisation of it started;
// its payments are free again.
func (s *PSD2) DeleteBasket(tppID, id string) error {
	return s.write("delete basket", func(tx Tx) error {
		v, err := basketView(tx, tppID, id)
		if err != nil {
			return err
		}
		if len(v.Authorisations) > 0 {
			return apierr.Errorf(apierr.CodeConflict, "basket %s has an authorisation already and can no longer change", id)
		}
		for _, p := range v.Payments {
			p.BasketID = ""
			if err := tx.PutPayment(p); err != nil {
				return err
			}
		}
		return tx.DeleteBasket(id)
	}, Event{Kind: EventPayments})
}

// StartBasketAuthorisation starts the SCA that approves a basket's
// payments that await approval.
func (s *PSD2) StartBasketAuthorisation(r SCARequest, basketID string) (Authorisation, error) {
	return change(s.core, "start basket authorisation", func(tx Tx) (a Authorisation, err error) {
		v, err := basketView(tx, r.TPPID, basketID)
		if err != nil {
			return a, err
		}
		var waiting []string
		for _, p := range v.Payments {
			if p.Status == StatusRCVD || p.Status == StatusPATC {
				waiting = append(waiting, p.ID)
			}
		}
		if len(waiting) == 0 {
			return a, apierr.Errorf(apierr.CodeConflict, "no payment of basket %s awaits approval (the basket is %s)", basketID, v.Status)
		}
		r.Kind = AuthBasket
		if a, err = s.newAuthorisation(tx, r, s.Now()); err != nil {
			return a, err
		}
		a.PaymentIDs, a.BasketID = waiting, basketID
		v.Authorisations = append(v.Authorisations, a.ID)
		if err := tx.PutBasket(v.Basket); err != nil {
			return a, err
		}
		return a, tx.PutAuthorisation(a)
	}, Event{Kind: EventConsents}, Event{Kind: EventPayments})
}

// BasketAuthorisation returns an authorisation of a TPP's basket.
func (s *PSD2) BasketAuthorisation(tppID, basketID, authID string) (Authorisation, error) {
	var a Authorisation
	err := s.readAuthorisation("read basket authorisation", func(tx Tx, mayWrite bool) error {
		v, err := basketView(tx, tppID, basketID)
		if err != nil {
			return err
		}
		if !slices.Contains(v.Authorisations, authID) {
			return apierr.Errorf(apierr.CodeSCANotFound, "basket %s has no authorisation %s", basketID, apierr.Clip(authID))
		}
		a, _, err = s.loadAuthorisation(tx, authID, mayWrite)
		return err
	}, Event{Kind: EventConsents}, Event{Kind: EventPayments})
	return a, err
}

// Baskets lists every basket, newest first, with its status.
func (s *Ops) Baskets() ([]BasketView, error) { return s.baskets("") }

// baskets lists the baskets of the TPP tppID, or every TPP's when empty,
// newest first.
func (s *core) baskets(tppID string) ([]BasketView, error) {
	return read(s, "list baskets", func(tx Tx) (out []BasketView, err error) {
		list, err := tx.Baskets()
		if err != nil {
			return out, err
		}
		for i := len(list) - 1; i >= 0; i-- {
			if tppID != "" && list[i].TPPID != tppID {
				continue
			}
			v, err := basketView(tx, list[i].TPPID, list[i].ID)
			if err != nil {
				return out, err
			}
			out = append(out, v)
		}
		return out, nil
	})
}
