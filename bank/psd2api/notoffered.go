package psd2api

import (
	"net/http"

	"sandbank/bank/apierr"
)

// Berlin Group 1.3.12 operations that the real bank does not offer
// (docs/CONFORMANCE.md). Each answers 405 SERVICE_INVALID, as Berlin Group
// answers a service an endpoint does not have, with a body that says the
// bank does not offer it and what a TPP does instead; Allow names the
// methods the path does take.
const (
	offerFunds = "confirmation of funds (Berlin Group PIIS, POST /v1/funds-confirmations); " +
		"read the balances of an account the PSU granted instead (GET /v1/accounts/{id}/balances: expected and interimAvailable)"
	offerConsentStart = "an explicit start of a consent's authorisation: POST /v1/consents starts it at once; " +
		"send the PSU to the scaRedirect link of that answer, or create a new consent"
	offerPSUData = "the embedded SCA approach (PUT of PSU data to an authorisation): its SCA is by redirect only (ASPSP-SCA-Approach: REDIRECT); " +
		"send the PSU to the authorisation's scaRedirect link, or complete it with POST /v1/sandbox/sca/{authorisationId} in a test"
	offerCancellation = "cancellation authorisations: DELETE /v1/{payment-service}/{payment-product}/{paymentId} cancels a payment at once " +
		"(204, status CANC), with no SCA"
)

// notOffered answers an operation the bank does not offer.
func notOffered(what, allow string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Allow", allow)
		return apierr.Errorf(apierr.CodeServiceInvalid, "the bank does not offer %s", what)
	}
}
