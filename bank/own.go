package bank

import "sandbank/bank/apierr"

// A TPP's own records, read as the operator reads everyone's (docs/SANDBOX-API.md
// section 4): the operator API's lists and reads, scoped to the calling TPP
// as every PSD2 read is. A TPP names itself only: a filter that names
// another TPP is refused, and another TPP's record is unknown.

// OwnPayments lists the payments of the TPP tppID as Ops.Payments lists
// every TPP's. A filter that names another TPP is refused with 403
// FORBIDDEN.
func (s *PSD2) OwnPayments(tppID string, f PaymentFilter) (PaymentList, error) {
	if err := filterOwn(tppID, f.TPPID); err != nil {
		return PaymentList{}, err
	}
	f.TPPID = tppID
	return s.payments(f)
}

// OwnPayment reads one payment of the TPP tppID as Ops.Payment reads any;
// another TPP's payment is RESOURCE_UNKNOWN.
func (s *PSD2) OwnPayment(tppID, id string) (PaymentDetail, error) {
	return s.paymentDetail(tppID, id)
}

// OwnBaskets lists the signing baskets of the TPP tppID, newest first.
func (s *PSD2) OwnBaskets(tppID string) ([]BasketView, error) { return s.baskets(tppID) }

// OwnGrants lists the grants of the TPP tppID as Ops.Grants lists every
// TPP's. A filter that names another TPP is refused with 403 FORBIDDEN.
func (s *PSD2) OwnGrants(tppID string, f GrantFilter) ([]GrantInfo, error) {
	if err := filterOwn(tppID, f.TPPID); err != nil {
		return nil, err
	}
	f.TPPID = tppID
	return s.grants(f)
}

// RevokeOwnGrant revokes a grant of the TPP tppID, as the PSU would in the
// bank; another TPP's grant is RESOURCE_UNKNOWN.
func (s *PSD2) RevokeOwnGrant(tppID, id string) error { return s.revokeGrant(tppID, id) }

// filterOwn refuses a filter's tppId that names another TPP than the
// caller.
func filterOwn(caller, named string) error {
	if named == "" || named == caller {
		return nil
	}
	return apierr.PathError(apierr.CodeForbidden, "tppId", "a TPP reads only its own records: this certificate is TPP "+apierr.Clip(caller)+", not "+apierr.Clip(named)+"; leave tppId out, or ask the bank's operator")
}
