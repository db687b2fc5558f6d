package psd2api

import (
	"net/http"
)

// A TPP's own records under /v1/sandbox (docs/SANDBOX-API.md section 4):
// the operator's lists and reads of payments, baskets and grants, scoped
// to the calling TPP through the bank's PSD2 door. The operator reaches
// the same routes through opsAPI; byCaller picks.

func (h *psd2API) listOwnPayments(w http.ResponseWriter, r *http.Request) error {
	f, err := paymentFilter(r)
	if err != nil {
		return err
	}
	list, err := h.bank.OwnPayments(callerTPP(r), f)
	if err != nil {
		return err
	}
	writePaymentList(w, list)
	return nil
}

func (h *psd2API) getOwnPayment(w http.ResponseWriter, r *http.Request) error {
	d, err := h.bank.OwnPayment(callerTPP(r), r.PathValue("paymentId"))
	if err != nil {
		return err
	}
	return writeOpsPayment(w, d)
}

func (h *psd2API) listOwnBaskets(w http.ResponseWriter, r *http.Request) error {
	baskets, err := h.bank.OwnBaskets(callerTPP(r))
	if err != nil {
		return err
	}
	writeBaskets(w, baskets)
	return nil
}

func (h *psd2API) listOwnGrants(w http.ResponseWriter, r *http.Request) error {
	grants, err := h.bank.OwnGrants(callerTPP(r), grantFilter(r))
	if err != nil {
		return err
	}
	writeGrants(w, grants)
	return nil
}

func (h *psd2API) deleteOwnGrant(w http.ResponseWriter, r *http.Request) error {
	if err := h.bank.RevokeOwnGrant(callerTPP(r), r.PathValue("grantId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// byCaller answers a route the operator and a TPP share: the operator's
// handler for the operator, the TPP's scoped one for a TPP.
func byCaller(operator, tpp handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if fromOperator(r) {
			return operator(w, r)
		}
		return tpp(w, r)
	}
}
