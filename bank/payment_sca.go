package bank

import (
	"errors"
	"fmt"
	"strings"
)

// PaymentSummary is what the SCA page shows of a payment to approve.
type PaymentSummary struct {
	ID         string
	Kind       string // e.g. "Domestic payment", "Standing order", "Bulk payment of 12"
	Amount     string // with its currency
	Creditor   string // name and account; for a bulk payment the number of creditors
	Debtor     string // the account paid from
	Date       string // execution date, or the standing order's schedule
	Remittance string
	Note       string // a fee, or that a second approver is awaited
}

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
			sum.Debtor = acct.Name + " " + acct.IBAN
		}
		it := p.Items[0]
		sum.Creditor, sum.Remittance = it.CreditorName+" "+refText(it.CreditorAccount), it.Remittance
		switch {
		case p.Service == ServiceBulk:
			sum.Kind = fmt.Sprintf("Bulk payment of %d", len(p.Items))
			sum.Creditor = fmt.Sprintf("%d creditors, the first %s", len(p.Items), it.CreditorName)
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

// approvePayments applies the PSU's approval to every payment of an
// authorisation, each on its own. A single payment whose approval does not
// count fails the authorisation with PAYMENT_FAILED; a basket fails only
// when no payment took the approval.
func (s *Service) approvePayments(tx Tx, a *Authorisation) error {
	c, err := tx.Customer(a.CustomerID)
	if err != nil {
		return err
	}
	now := s.Now()
	var refused []string
	for _, id := range a.PaymentIDs {
		p, err := tx.Payment(id)
		if err != nil {
			return err
		}
		why, err := s.approvePayment(tx, &p, c, a.Context, now)
		if err != nil {
			return err
		}
		if why != "" {
			refused = append(refused, why)
		}
		if err := tx.PutPayment(p); err != nil {
			return err
		}
	}
	if len(refused) > 0 && (a.Kind == AuthPayment || len(refused) == len(a.PaymentIDs)) {
		return s.fail(tx, a, CodePaymentFailed, strings.Join(refused, "; "))
	}
	return s.finish(tx, a)
}

// rejectPayments ends an authorisation the PSU rejected: its payments that
// await approval are rejected.
func (s *Service) rejectPayments(tx Tx, a *Authorisation) error {
	c, _ := tx.Customer(a.CustomerID)
	now := s.Now()
	for _, id := range a.PaymentIDs {
		p, err := tx.Payment(id)
		if err != nil {
			return err
		}
		if p.Status != StatusRCVD && p.Status != StatusPATC {
			continue
		}
		if err := reject(tx, &p, fmt.Sprintf("PSU %s (%s)", c.Name, c.Number), "the PSU rejected the payment at SCA", now, false); err != nil {
			return err
		}
		if err := tx.PutPayment(p); err != nil {
			return err
		}
	}
	return s.fail(tx, a, CodePaymentFailed, "the PSU rejected the payment")
}

// failPayments rejects the payments of a failed authorisation that no PSU
// has approved yet (RCVD); a PATC payment keeps its first approval and
// waits for another approver.
func (s *Service) failPayments(tx Tx, a Authorisation, message string) error {
	now := s.Now()
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
		if err := reject(tx, &p, "SCA "+a.ID, "SCA failed: "+message, now, false); err != nil {
			return err
		}
		if err := tx.PutPayment(p); err != nil {
			return err
		}
	}
	return nil
}
