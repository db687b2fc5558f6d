package psd2api

import (
	"time"

	"net/http"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"

	"sandbank/bank"
)

// psd2API answers a TPP's routes: consents, account information,
// payments, signing baskets, the SCA page and automated SCA, and the TPP's
// contact information. It holds the bank's PSD2 door only, so every call
// it makes is scoped to the calling TPP.
type psd2API struct {
	bank *bank.PSD2
	// fail answers an error that is not the bank's with the error body.
	fail func(w http.ResponseWriter, r *http.Request, err error)
	// publicURL is Config.PublicURL, where SCA links point when set.
	publicURL string
}

// sandboxAPI answers the sandbox data routes and the certificate routes.
type sandboxAPI struct {
	bank *bank.Sandbox
	// signer gives the response signer in force (Config.BankSigner), whose
	// certificate is the bank certificate; authority is the local CA,
	// which issues TPP test certificates.
	signer    func() (*httpsig.Signer, bool)
	authority *pki.Authority
	// now is the real clock, for certificate validity.
	now func() time.Time
}

// route is one pattern of the API and its handler.
type route struct {
	pattern string
	handler http.Handler
}

// routes lists every route of the API. Signed routes name who may call
// them (docs/SECURITY.md, "Two kinds of caller") and what they answer
// with: a TPP with a PSD2 role (ais, pis), any TPP (sandbox: the seed's
// sandbox data API, the certificates, automated SCA), the operator only
// (operator: what concerns every TPP), or both, each TPP scoped to its own
// records (mine).
func (s *server) routes() []route {
	p, sb, op, rl := s.psd2, s.sandbox, s.ops, s.requests
	sandbox := func(f handlerFunc) http.Handler { return s.signed(anyTPP, jsonType, MaxBody, s.handle(f)) }
	pem := func(f handlerFunc) http.Handler { return s.signed(anyTPP, pemType, MaxBody, s.handle(f)) }
	ais := func(f handlerFunc) http.Handler { return s.signed(aisTPP, jsonType, MaxBody, s.handle(f)) }
	pis := func(f handlerFunc) http.Handler { return s.signed(pisTPP, jsonType, MaxBody, s.handle(f)) }
	operator := func(f handlerFunc) http.Handler { return s.signed(operatorOnly, jsonType, MaxBody, s.handle(f)) }
	refused := func(f handlerFunc) http.Handler { return s.signed(anyTPP, jsonType, MaxBody, s.handle(f)) }
	mine := func(operator, tpp handlerFunc) http.Handler {
		return s.signed(anyTPP, jsonType, MaxBody, s.handle(byCaller(operator, tpp)))
	}
	routes := []route{
		{"GET /{$}", http.HandlerFunc(s.root)},
		{"HEAD /{$}", http.HandlerFunc(s.root)},
		{"GET /healthz", http.HandlerFunc(healthz)},
		{"GET /v1/openapi.json", http.HandlerFunc(s.openAPI)},

		{"POST /v1/consents", ais(p.startConsent)},
		{"POST /v1/bank-offered-consents", ais(p.startConsent)},
		{"GET /v1/consents/{consentId}", ais(p.getConsent)},
		{"GET /v1/consents/{consentId}/status", ais(p.getConsentStatus)},
		{"DELETE /v1/consents/{consentId}", ais(p.deleteConsent)},
		{"GET /v1/consents/{consentId}/authorisations", ais(p.listConsentAuthorisations)},
		{"GET /v1/consents/{consentId}/authorisations/{authorisationId}", ais(p.getConsentAuthorisation)},
		{"GET /v1/users", s.signed(userTPP, jsonType, MaxBody, s.handle(p.identifyUser))},

		{"GET /v1/accounts", ais(p.listAISAccounts)},
		{"GET /v1/accounts/{id}", ais(p.getAISAccount)},
		{"GET /v1/accounts/{id}/balances", ais(p.getAISBalances)},
		{"GET /v1/accounts/{id}/transactions", ais(p.listAISTransactions)},
		{"GET /v1/accounts/{id}/transactions/{transactionId}", ais(p.getAISTransaction)},
		{"GET /v1/card-accounts", ais(p.listAISCards)},
		{"GET /v1/card-accounts/{id}", ais(p.getAISCard)},
		{"GET /v1/card-accounts/{id}/balances", ais(p.getAISCardBalances)},
		{"GET /v1/card-accounts/{id}/transactions", ais(p.listAISCardTransactions)},

		{"POST /v1/signing-baskets", pis(p.createBasket)},
		{"GET /v1/signing-baskets/{basketId}", pis(p.getBasket)},
		{"GET /v1/signing-baskets/{basketId}/status", pis(p.getBasketStatus)},
		{"DELETE /v1/signing-baskets/{basketId}", pis(p.deleteBasket)},
		{"POST /v1/signing-baskets/{basketId}/authorisations", pis(p.startBasketAuthorisation)},
		{"GET /v1/signing-baskets/{basketId}/authorisations", pis(p.listBasketAuthorisations)},
		{"GET /v1/signing-baskets/{basketId}/authorisations/{authorisationId}", pis(p.getBasketAuthorisation)},

		// What the real bank does not offer (docs/CONFORMANCE.md).
		{"POST /v1/funds-confirmations", refused(notOffered(offerFunds, ""))},
		{"POST /v1/consents/{consentId}/authorisations", refused(notOffered(offerConsentStart, "GET"))},
		{"PUT /v1/consents/{consentId}/authorisations/{authorisationId}", refused(notOffered(offerPSUData, "GET"))},
		{"PUT /v1/signing-baskets/{basketId}/authorisations/{authorisationId}", refused(notOffered(offerPSUData, "GET"))},

		{"GET /sca/static/sandbank.css", http.HandlerFunc(scaStyle)},
		{"GET /sca/{id}/{secret}", p.scaPage()},
		{"POST /sca/{id}/{secret}", p.scaPage()},
		{"GET /v1/sandbox/clock", sandbox(op.getClock)},
		{"PUT /v1/sandbox/clock", operator(op.putClock)},
		{"POST /v1/sandbox/sca/{authorisationId}", sandbox(p.automatedSCA)},

		{"POST /v1/sandbox/batch-runs", operator(op.runBatch)},
		{"GET /v1/sandbox/batch-runs", operator(op.listBatchRuns)},
		{"GET /v1/sandbox/batch-runs/{runId}", operator(op.getBatchRun)},
		{"GET /v1/sandbox/faults", sandbox(op.getFaults)},
		{"PUT /v1/sandbox/faults", operator(op.putFaults)},
		{"GET /v1/sandbox/settings", operator(op.getSettings)},
		{"PUT /v1/sandbox/settings", operator(op.putSettings)},
		{"PATCH /v1/sandbox/settings", operator(op.patchSettings)},
		{"GET /v1/sandbox/payments", mine(op.listPayments, p.listOwnPayments)},
		{"GET /v1/sandbox/payments/{paymentId}", mine(op.getOpsPayment, p.getOwnPayment)},
		{"POST /v1/sandbox/payments/{paymentId}/status", operator(op.forceStatus)},
		{"GET /v1/sandbox/baskets", mine(op.listBaskets, p.listOwnBaskets)},
		{"GET /v1/sandbox/grants", mine(op.listGrants, p.listOwnGrants)},
		{"DELETE /v1/sandbox/grants/{grantId}", mine(op.deleteGrant, p.deleteOwnGrant)},
		{"GET /v1/sandbox/sca-sessions", operator(op.listSessions)},
		{"GET /v1/sandbox/authorisations", operator(op.listAuthorisations)},

		{"GET /v1/sandbox/requests", sandbox(rl.list)},
		{"DELETE /v1/sandbox/requests", operator(rl.clear)},
		{"GET /v1/sandbox/requests.har", sandbox(rl.har)},
		{"GET /v1/sandbox/requests/{id}", sandbox(rl.get)},

		{"POST /v1/sandbox/initialize", sandbox(sb.initialize)},

		{"POST /v1/sandbox/customers", sandbox(sb.createCustomer)},
		{"GET /v1/sandbox/customers", sandbox(sb.listCustomers)},
		{"GET /v1/sandbox/customers/{customerId}", sandbox(sb.getCustomer)},
		{"DELETE /v1/sandbox/customers/{customerId}", sandbox(sb.deleteCustomer)},

		{"POST /v1/sandbox/accounts", sandbox(sb.createAccount)},
		{"GET /v1/sandbox/accounts", sandbox(sb.listAccounts)},
		{"GET /v1/sandbox/accounts/{mockAccountId}", sandbox(sb.getAccount)},
		{"DELETE /v1/sandbox/accounts/{mockAccountId}", sandbox(sb.deleteAccount)},
		{"PUT /v1/sandbox/accounts/{mockAccountId}/balances", sandbox(sb.setAccountBalances)},
		{"POST /v1/sandbox/accounts/{mockAccountId}/transactions", sandbox(sb.postTransactions)},
		{"GET /v1/sandbox/accounts/{mockAccountId}/transactions", sandbox(sb.listTransactions)},
		{"DELETE /v1/sandbox/accounts/{mockAccountId}/transactions", sandbox(sb.deleteTransactions)},
		{"GET /v1/sandbox/accounts/{mockAccountId}/transactions/{mockTransactionId}", sandbox(sb.getTransaction)},

		{"POST /v1/sandbox/card-accounts", sandbox(sb.createCardAccount)},
		{"GET /v1/sandbox/card-accounts", sandbox(sb.listCardAccounts)},
		{"GET /v1/sandbox/card-accounts/{mockCardAccountId}", sandbox(sb.getCardAccount)},
		{"DELETE /v1/sandbox/card-accounts/{mockCardAccountId}", sandbox(sb.deleteCardAccount)},
		{"PUT /v1/sandbox/card-accounts/{mockCardAccountId}/balances", sandbox(sb.setCardBalances)},
		{"POST /v1/sandbox/card-accounts/{mockCardAccountId}/transactions", sandbox(sb.postCardTransactions)},
		{"GET /v1/sandbox/card-accounts/{mockCardAccountId}/transactions", sandbox(sb.listCardTransactions)},
		{"DELETE /v1/sandbox/card-accounts/{mockCardAccountId}/transactions", sandbox(sb.deleteCardTransactions)},

		{"POST /v1/sandbox/agreements", sandbox(sb.createAgreement)},
		{"GET /v1/sandbox/agreements", sandbox(sb.listAgreements)},
		{"GET /v1/sandbox/agreements/{mockAgreementId}", sandbox(sb.getAgreement)},
		{"DELETE /v1/sandbox/agreements/{mockAgreementId}", sandbox(sb.deleteAgreement)},
		{"POST /v1/sandbox/agreements/{mockAgreementId}/engagements", sandbox(sb.createEngagement)},
		{"GET /v1/sandbox/agreements/{mockAgreementId}/engagements", sandbox(sb.listEngagements)},
		{"GET /v1/sandbox/agreements/{mockAgreementId}/engagements/{mockEngagementId}", sandbox(sb.getEngagement)},
		{"DELETE /v1/sandbox/agreements/{mockAgreementId}/engagements/{mockEngagementId}", sandbox(sb.deleteEngagement)},

		{"PUT /v1/tpps/{tppId}/contact-information", sandbox(p.putContact)},
		{"GET /v1/tpps/{tppId}/contact-information", sandbox(p.getContact)},

		{"GET /v1/sandbox/bank-certificate", pem(sb.bankCertificate)},
		{"GET /v1/sandbox/ca-certificate", pem(sb.caCertificate)},
		{"POST /v1/sandbox/tpp-certificates", sandbox(sb.issueCertificate)},
		{"POST /v1/sandbox/operator-certificates", operator(sb.issueOperatorCertificate)},

		{"GET /v1/sandbox/scenario", operator(sb.exportScenario)},
		{"PUT /v1/sandbox/scenario", s.signed(operatorOnly, jsonType, MaxScenarioBody, s.handle(sb.importScenario))},
	}
	for _, service := range bank.Services {
		base := "/v1/" + service + "/{product}"
		one := base + "/{paymentId}"
		routes = append(routes,
			route{"POST " + base, pis(p.createPayment(service))},
			route{"GET " + one, pis(p.getPayment(service))},
			route{"GET " + one + "/status", pis(p.getPaymentStatus(service))},
			route{"DELETE " + one, pis(p.cancelPayment(service))},
			route{"POST " + one + "/authorisations", pis(p.startPaymentAuthorisation(service))},
			route{"GET " + one + "/authorisations", pis(p.listPaymentAuthorisations(service))},
			route{"GET " + one + "/authorisations/{authorisationId}", pis(p.getPaymentAuthorisation(service))},
			route{"PUT " + one + "/authorisations/{authorisationId}", refused(notOffered(offerPSUData, "GET"))},
			route{"POST " + one + "/cancellation-authorisations", refused(notOffered(offerCancellation, ""))},
			route{"GET " + one + "/cancellation-authorisations", refused(notOffered(offerCancellation, ""))},
			route{"GET " + one + "/cancellation-authorisations/{authorisationId}", refused(notOffered(offerCancellation, ""))},
			route{"PUT " + one + "/cancellation-authorisations/{authorisationId}", refused(notOffered(offerCancellation, ""))},
		)
	}
	return routes
}
