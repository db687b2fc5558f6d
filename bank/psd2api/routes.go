package psd2api

import (
	"net/http"

	"sandbank/bank"
)

// route is one pattern of the API and its handler.
type route struct {
	pattern string
	handler http.Handler
}

// routes lists every route of the API. Signed routes name the PSD2 role
// they need (none for the sandbox data API) and what they answer with.
func (s *server) routes() []route {
	sandbox := func(f handlerFunc) http.Handler { return s.signed(anyRole, jsonType, MaxBody, s.handle(f)) }
	pem := func(f handlerFunc) http.Handler { return s.signed(anyRole, pemType, MaxBody, s.handle(f)) }
	ais := func(f handlerFunc) http.Handler { return s.signed(aisRoles, jsonType, MaxBody, s.handle(f)) }
	pis := func(f handlerFunc) http.Handler { return s.signed(pisRoles, jsonType, MaxBody, s.handle(f)) }
	routes := []route{
		{"GET /healthz", http.HandlerFunc(healthz)},
		{"GET /v1/openapi.json", http.HandlerFunc(s.openAPI)},

		{"POST /v1/consents", ais(s.startAuthorisation(bank.AuthConsent))},
		{"POST /v1/bank-offered-consents", ais(s.startAuthorisation(bank.AuthConsent))},
		{"GET /v1/users", s.signed(userRoles, jsonType, MaxBody, s.handle(s.startAuthorisation(bank.AuthUsers)))},

		{"GET /v1/accounts", ais(s.listAISAccounts)},
		{"GET /v1/accounts/{id}", ais(s.getAISAccount)},
		{"GET /v1/accounts/{id}/balances", ais(s.getAISBalances)},
		{"GET /v1/accounts/{id}/transactions", ais(s.listAISTransactions)},
		{"GET /v1/accounts/{id}/transactions/{transactionId}", ais(s.getAISTransaction)},
		{"GET /v1/card-accounts", ais(s.listAISCards)},
		{"GET /v1/card-accounts/{id}", ais(s.getAISCard)},
		{"GET /v1/card-accounts/{id}/balances", ais(s.getAISCardBalances)},
		{"GET /v1/card-accounts/{id}/transactions", ais(s.listAISCardTransactions)},

		{"POST /v1/signing-baskets", pis(s.createBasket)},
		{"GET /v1/signing-baskets/{basketId}", pis(s.getBasket)},
		{"GET /v1/signing-baskets/{basketId}/status", pis(s.getBasketStatus)},
		{"DELETE /v1/signing-baskets/{basketId}", pis(s.deleteBasket)},
		{"POST /v1/signing-baskets/{basketId}/authorisations", pis(s.startBasketAuthorisation)},
		{"GET /v1/signing-baskets/{basketId}/authorisations/{authorisationId}", pis(s.getBasketAuthorisation)},

		{"GET /sca/static/sandbank.css", http.HandlerFunc(scaStyle)},
		{"GET /sca/{id}", s.scaPage()},
		{"POST /sca/{id}", s.scaPage()},
		{"GET /v1/sandbox/clock", sandbox(s.getClock)},
		{"PUT /v1/sandbox/clock", sandbox(s.putClock)},
		{"POST /v1/sandbox/sca/{authorisationId}", sandbox(s.automatedSCA)},

		{"POST /v1/sandbox/batch-runs", sandbox(s.runBatch)},
		{"GET /v1/sandbox/faults", sandbox(s.getFaults)},
		{"PUT /v1/sandbox/faults", sandbox(s.putFaults)},

		{"POST /v1/sandbox/initialize", sandbox(s.initialize)},

		{"POST /v1/sandbox/customers", sandbox(s.createCustomer)},
		{"GET /v1/sandbox/customers", sandbox(s.listCustomers)},
		{"GET /v1/sandbox/customers/{customerId}", sandbox(s.getCustomer)},
		{"DELETE /v1/sandbox/customers/{customerId}", sandbox(s.deleteCustomer)},

		{"POST /v1/sandbox/accounts", sandbox(s.createAccount)},
		{"GET /v1/sandbox/accounts", sandbox(s.listAccounts)},
		{"GET /v1/sandbox/accounts/{mockAccountId}", sandbox(s.getAccount)},
		{"DELETE /v1/sandbox/accounts/{mockAccountId}", sandbox(s.deleteAccount)},
		{"PUT /v1/sandbox/accounts/{mockAccountId}/balances", sandbox(s.setAccountBalances)},
		{"POST /v1/sandbox/accounts/{mockAccountId}/transactions", sandbox(s.postTransactions)},
		{"GET /v1/sandbox/accounts/{mockAccountId}/transactions", sandbox(s.listTransactions)},
		{"DELETE /v1/sandbox/accounts/{mockAccountId}/transactions", sandbox(s.deleteTransactions)},
		{"GET /v1/sandbox/accounts/{mockAccountId}/transactions/{mockTransactionId}", sandbox(s.getTransaction)},

		{"POST /v1/sandbox/card-accounts", sandbox(s.createCardAccount)},
		{"GET /v1/sandbox/card-accounts", sandbox(s.listCardAccounts)},
		{"GET /v1/sandbox/card-accounts/{mockCardAccountId}", sandbox(s.getCardAccount)},
		{"DELETE /v1/sandbox/card-accounts/{mockCardAccountId}", sandbox(s.deleteCardAccount)},
		{"PUT /v1/sandbox/card-accounts/{mockCardAccountId}/balances", sandbox(s.setCardBalances)},
		{"POST /v1/sandbox/card-accounts/{mockCardAccountId}/transactions", sandbox(s.postCardTransactions)},
		{"GET /v1/sandbox/card-accounts/{mockCardAccountId}/transactions", sandbox(s.listCardTransactions)},
		{"DELETE /v1/sandbox/card-accounts/{mockCardAccountId}/transactions", sandbox(s.deleteCardTransactions)},

		{"POST /v1/sandbox/agreements", sandbox(s.createAgreement)},
		{"GET /v1/sandbox/agreements", sandbox(s.listAgreements)},
		{"GET /v1/sandbox/agreements/{mockAgreementId}", sandbox(s.getAgreement)},
		{"DELETE /v1/sandbox/agreements/{mockAgreementId}", sandbox(s.deleteAgreement)},
		{"POST /v1/sandbox/agreements/{mockAgreementId}/engagements", sandbox(s.createEngagement)},
		{"GET /v1/sandbox/agreements/{mockAgreementId}/engagements", sandbox(s.listEngagements)},
		{"GET /v1/sandbox/agreements/{mockAgreementId}/engagements/{mockEngagementId}", sandbox(s.getEngagement)},
		{"DELETE /v1/sandbox/agreements/{mockAgreementId}/engagements/{mockEngagementId}", sandbox(s.deleteEngagement)},

		{"PUT /v1/tpps/{tppId}/contact-information", sandbox(s.putContact)},
		{"GET /v1/tpps/{tppId}/contact-information", sandbox(s.getContact)},

		{"GET /v1/sandbox/bank-certificate", pem(s.bankCertificate)},
		{"GET /v1/sandbox/ca-certificate", pem(s.caCertificate)},
		{"POST /v1/sandbox/tpp-certificates", sandbox(s.issueCertificate)},

		{"GET /v1/sandbox/scenario", sandbox(s.exportScenario)},
		{"PUT /v1/sandbox/scenario", s.signed(anyRole, jsonType, MaxScenarioBody, s.handle(s.importScenario))},
	}
	for _, service := range bank.Services {
		base := "/v1/" + service + "/{product}"
		one := base + "/{paymentId}"
		routes = append(routes,
			route{"POST " + base, pis(s.createPayment(service))},
			route{"GET " + one, pis(s.getPayment(service))},
			route{"GET " + one + "/status", pis(s.getPaymentStatus(service))},
			route{"DELETE " + one, pis(s.cancelPayment(service))},
			route{"POST " + one + "/authorisations", pis(s.startPaymentAuthorisation(service))},
			route{"GET " + one + "/authorisations/{authorisationId}", pis(s.getPaymentAuthorisation(service))},
		)
	}
	return routes
}
