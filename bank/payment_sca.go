package bank

import (
	"errors"
	"fmt"
	"strings"

	"sandbank/bank/apierr"
)

// paymentSummaries describes the payments of an authorisation.
func paymentSummaries(tx Tx, a Authorisation) ([]PaymentSummary, error) {
	var out []PaymentSummary
	for _, id := range a.PaymentIDs {
		p, err := tx.Payment(id)
		if err != nil {
			return nil, err
		}
		sum := PaymentSummary{ID: p.ID, Amount: FormatAmount(p.Total(), p.Currency()) + " " + p.Currency(), Date: p.ExecutionDate.String()}
		if acct, err := tx.Account(p.DebtorAccountID); err == nil {
			sum.DebtorName, sum.DebtorAccount = acct.Name, acct.IBAN
		}
		it := p.Items[0]
		sum.Creditors, sum.CreditorName, sum.CreditorAccount, sum.Remittance = len(p.Items), it.CreditorName, refText(it.CreditorAccount), it.Remittance
		switch {
		case p.Service == ServiceBulk:
			sum.Kind = fmt.Sprintf("Bulk payment of %d", len(p.Items))
		case p.Periodic():
			sum.Kind = "Standing order"
			sum.Date = fmt.Sprintf("%s from %s", p.Request.Frequency, p.Request.StartDate)
			if p.Request.EndDate != "" {
				sum.Date += " to " + p.Request.EndDate
			}
		case p.Product == ProductNCBCT:
			sum.Kind = "Cross-border payment"
		default:
			sum.Kind = "Domestic payment"
		}
		if p.Product == ProductNCBCT && p.Fee.IsPositive() {
			sum.Note = "Fee NOK " + p.Fee.StringFixed(2) + "."
		}
		if p.Status == StatusPATC {
			sum.Note = strings.TrimSpace(sum.Note + " Approved once; awaits a second approver.")
		}
		out = append(out, sum)
	}
	return out, nil
}

// payments is the subject of a payment's or a signing basket's SCA
// (AuthPayment, AuthBasket): the PSU approves or rejects the payments,
// each on its own.
type payments struct{ core *core }

// contexts lists the contexts in which the PSU may approve the payments.
func (payments) contexts(tx Tx, a Authorisation) ([]Option, error) {
	c, err := tx.Customer(a.CustomerID)
	if err != nil {
		return nil, err
	}
	return paymentContexts(tx, a, c)
}

// noContext fails a PSU who may use none of the payments' accounts.
func (payments) noContext(tx Tx, a Authorisation) (string, string, error) {
	c, _ := tx.Customer(a.CustomerID)
	return apierr.CodePaymentFailed, fmt.Sprintf("%s may not pay from the debtor account of this payment", c.Name), nil
}

func (payments) identifyOnly() bool { return false }

func (payments) show(tx Tx, a Authorisation, v *SCAView) error {
	v.Step = StepPayment
	summaries, err := paymentSummaries(tx, a)
	v.Payments = summaries
	return err
}

// approve applies the PSU's approval to every payment of the
// authorisation, each on its own. A single payment whose approval does not
// count fails the authorisation with PAYMENT_FAILED; a basket fails only
// when no payment took the approval.
func (s payments) approve(tx Tx, a *Authorisation, _ SCAInput) (approval, error) {
	c, err := tx.Customer(a.CustomerID)
	if err != nil {
		return approval{}, err
	}
	now := s.core.Now()
	l := newLedger(tx)
	var refused []string
	for _, id := range a.PaymentIDs {
		p, err := tx.Payment(id)
		if err != nil {
			return approval{}, err
		}
		why, err := approvePayment(l, &p, c, a.Context, now)
		if err != nil {
			return approval{}, err
		}
		if why != "" {
			refused = append(refused, why)
		}
		if err := tx.PutPayment(p); err != nil {
			return approval{}, err
		}
	}
	if _, err := l.flush(); err != nil {
		return approval{}, err
	}
	if len(refused) > 0 && (a.Kind == AuthPayment || len(refused) == len(a.PaymentIDs)) {
		return approval{failCode: apierr.CodePaymentFailed, failMessage: strings.Join(refused, "; ")}, nil
	}
	return approval{}, nil
}

// reject rejects the payments of the authorisation that await approval.
func (s payments) reject(tx Tx, a *Authorisation) (string, string, error) {
	c, _ := tx.Customer(a.CustomerID)
	now := s.core.Now()
	l := newLedger(tx) // payments that await approval hold no reservation
	for _, id := range a.PaymentIDs {
		p, err := tx.Payment(id)
		if err != nil {
			return "", "", err
		}
		if p.Status != StatusRCVD && p.Status != StatusPATC {
			continue
		}
		if err := reject(l, &p, fmt.Sprintf("PSU %s (%s)", c.Name, c.Number), "the PSU rejected the payment at SCA", now, false); err != nil {
			return "", "", err
		}
		if err := tx.PutPayment(p); err != nil {
			return "", "", err
		}
	}
	return apierr.CodePaymentFailed, "the PSU rejected the payment", nil
}

// abandon rejects the payments of a failed authorisation that no PSU has
// approved yet (RCVD); a PATC payment keeps its first approval and waits
// for another approver.
func (s payments) abandon(tx Tx, a Authorisation, message string) error {
	now := s.core.Now()
	l := newLedger(tx) // RCVD payments hold no reservation
	for _, id := range a.PaymentIDs {
		p, err := tx.Payment(id)
		if errors.Is(err, ErrNotFound) {
			continue
		} else if err != nil {
			return err
		}
		if p.Status != StatusRCVD {
			continue
		}
		if err := reject(l, &p, "SCA "+a.ID, "SCA failed: "+message, now, false); err != nil {
			return err
		}
		if err := tx.PutPayment(p); err != nil {
			return err
		}
	}
	return nil
}
