package psd2api

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"sandbank/bank"
)

// The OpenAPI 3.1 document of GET /v1/openapi.json. Its paths are made
// from the route table, so a route cannot be missing from it; each route's
// parameters, bodies and answers come from the operations table below, and
// the schemas from openapi/components.json. The end-to-end tests check
// every real request and response against it.

//go:embed openapi/components.json
var openAPIComponents []byte

// audience says which headers an operation takes and which errors it
// answers with.
type audience int

const (
	open     audience = iota // unsigned: health, the document, the SCA page
	sandbox                  // signed, no PSU headers: any TPP
	ais                      // signed, PSD2 account information
	pis                      // signed, PSD2 payments and signing baskets
	operator                 // signed, no PSU headers: the operator only
	mine                     // signed, no PSU headers: a TPP's own records, or every TPP's for the operator
)

// callers names who may call an operation, as the x-sandbank-caller of
// the document says it (docs/SECURITY.md, "Two kinds of caller").
var callers = map[audience]string{sandbox: "tpp", ais: "tpp", pis: "tpp", operator: "operator", mine: "tpp-own"}

// operation documents one route.
type operation struct {
	id, summary, tag string
	who              audience
	startsSCA        bool     // TPP-Redirect-URI and TPP-Session-ID required
	params           []string // further parameters (components/parameters)
	body             string   // request body schema; "" for none
	mergePatch       bool     // the body is a JSON merge patch (RFC 7396)
	status           int      // success status
	result           string   // response schema; "" for no body
	more             []int    // further statuses this operation answers with
	location         bool     // a 201 with the created resource's Location
	// approach: the 201 names the SCA approach (ASPSP-SCA-Approach) of a
	// resource authorised by SCA later; startsSCA implies it.
	approach bool
	// notOffered: a Berlin Group operation the real bank does not offer,
	// which answers 405 SERVICE_INVALID (docs/CONFORMANCE.md).
	notOffered bool
}

const (
	tagService = "Service"
	tagConsent = "Consents and SCA"
	tagAIS     = "Account information"
	tagPIS     = "Payments"
	tagBaskets = "Signing baskets"
	tagSandbox = "Sandbox data"
	tagControl = "Sandbox control"
	tagSCAPage = "SCA page"
	resultPEM  = "pem"
	resultHTML = "html"
	resultCSS  = "css"
	resultAny  = "document"
	aisHeaders = "PSU-ID Consent-ID PSU-Corporate-ID PSU-IP-Address TPP-Session-ID TPP-Redirect-URI"
	pisHeaders = "PSU-ID PSU-Corporate-ID PSU-IP-Address TPP-Session-ID"
)

// operations documents every route of routes(), by pattern.
var operations = map[string]operation{
	"GET /{$}":                     {id: "landing", summary: "What this is, its version and links (JSON, or HTML for a browser); unsigned, for readiness checks", tag: tagService, status: 200, result: "Landing"},
	"HEAD /{$}":                    {id: "landingHead", summary: "The landing page's headers only, for readiness checks", tag: tagService, status: 200},
	"GET /healthz":                 {id: "health", summary: "Health check", tag: tagService, status: 200, result: "Health"},
	"GET /v1/openapi.json":         {id: "openapi", summary: "This OpenAPI document", tag: tagService, status: 200, result: resultAny},
	"GET /sca/static/sandbank.css": {id: "scaStyle", summary: "The SCA page's style sheet", tag: tagSCAPage, status: 200, result: resultCSS},
	"GET /sca/{id}/{secret}":       {id: "scaPage", summary: "The SCA page of an authorisation (HTML, no JavaScript); 409 to a browser other than the one that opened it first", tag: tagSCAPage, status: 200, result: resultHTML, more: []int{400, 404, 409}},
	"POST /sca/{id}/{secret}":      {id: "scaStep", summary: "One step of the SCA page (form post); the last one redirects to TPP-Redirect-URI", tag: tagSCAPage, status: 200, result: resultHTML, more: []int{303, 400, 404}},

	"POST /v1/consents":                                             {id: "createConsent", summary: "Create a consent and start its SCA by redirect; a body is ignored (the PSU chooses the accounts), each field noted", tag: tagConsent, who: ais, startsSCA: true, params: []string{"PSU-ID", "PSU-Corporate-ID", "PSU-IP-Address"}, status: 201, result: "ConsentCreated", location: true},
	"GET /v1/consents/{consentId}":                                  {id: "getConsent", summary: "A consent of the calling TPP: what it covers and its status", tag: tagConsent, who: ais, status: 200, result: "Consent"},
	"GET /v1/consents/{consentId}/status":                           {id: "getConsentStatus", summary: "A consent's status", tag: tagConsent, who: ais, status: 200, result: "ConsentStatusResponse"},
	"DELETE /v1/consents/{consentId}":                               {id: "deleteConsent", summary: "End a consent: its grant goes (terminatedByTpp)", tag: tagConsent, who: ais, status: 204},
	"GET /v1/consents/{consentId}/authorisations":                   {id: "listConsentAuthorisations", summary: "The authorisation ids of a consent", tag: tagConsent, who: ais, status: 200, result: "AuthorisationList"},
	"GET /v1/consents/{consentId}/authorisations/{authorisationId}": {id: "getConsentAuthorisation", summary: "A consent authorisation's SCA status", tag: tagConsent, who: ais, status: 200, result: "ScaStatusResponse"},
	"POST /v1/bank-offered-consents":                                {id: "createBankOfferedConsent", summary: "Start a bank-offered consent (the same as POST /v1/consents)", tag: tagConsent, who: ais, startsSCA: true, params: []string{"PSU-ID", "PSU-Corporate-ID", "PSU-IP-Address"}, status: 201, result: "ConsentCreated", location: true},
	"GET /v1/users":                                                 {id: "identifyUser", summary: "Identify a PSU for a payment-only TPP (grants no account access)", tag: tagConsent, who: ais, startsSCA: true, status: 201, result: "ScaStarted"},

	"GET /v1/accounts":                                   {id: "listAccounts", summary: "The accounts the PSU granted", tag: tagAIS, who: ais, params: []string{"withBalance", "x-accept-fix"}, status: 200, result: "AccountList"},
	"GET /v1/accounts/{id}":                              {id: "getAccount", summary: "One account", tag: tagAIS, who: ais, params: []string{"withBalance", "x-accept-fix"}, status: 200, result: "AccountResponse"},
	"GET /v1/accounts/{id}/balances":                     {id: "getBalances", summary: "An account's balances", tag: tagAIS, who: ais, params: []string{"x-accept-fix"}, status: 200, result: "BalancesResponse"},
	"GET /v1/accounts/{id}/transactions":                 {id: "listTransactions", summary: "An account's transactions, 200 a page", tag: tagAIS, who: ais, params: []string{"bookingStatus", "dateFrom", "dateTo", "limit", "offset", "withBalance", "x-accept-fix"}, status: 200, result: "TransactionsResponse"},
	"GET /v1/accounts/{id}/transactions/{transactionId}": {id: "getTransactionDetails", summary: "One transaction with every field of the bank's transaction details", tag: tagAIS, who: ais, params: []string{"x-accept-fix-required"}, status: 200, result: "TransactionDetailsResponse"},
	"GET /v1/card-accounts":                              {id: "listCardAccounts", summary: "The card accounts the PSU granted", tag: tagAIS, who: ais, params: []string{"withBalance", "x-accept-fix"}, status: 200, result: "CardAccountList"},
	"GET /v1/card-accounts/{id}":                         {id: "getCardAccount", summary: "One card account", tag: tagAIS, who: ais, params: []string{"withBalance", "x-accept-fix"}, status: 200, result: "CardAccountResponse"},
	"GET /v1/card-accounts/{id}/balances":                {id: "getCardBalances", summary: "A card account's balances", tag: tagAIS, who: ais, params: []string{"x-accept-fix"}, status: 200, result: "CardBalancesResponse"},
	"GET /v1/card-accounts/{id}/transactions":            {id: "listCardTransactions", summary: "A card account's transactions", tag: tagAIS, who: ais, params: []string{"bookingStatus", "dateFrom", "dateTo", "limit", "offset", "withBalance", "x-accept-fix"}, status: 200, result: "CardTransactionsResponse"},

	"POST /v1/signing-baskets":                                            {id: "createBasket", summary: "Put 1 to 10 single payments in a signing basket", tag: tagBaskets, who: pis, body: "BasketRequest", status: 201, result: "BasketCreated", location: true, approach: true},
	"GET /v1/signing-baskets/{basketId}":                                  {id: "getBasket", summary: "A signing basket", tag: tagBaskets, who: pis, status: 200, result: "Basket"},
	"GET /v1/signing-baskets/{basketId}/status":                           {id: "getBasketStatus", summary: "A signing basket's worst-case status", tag: tagBaskets, who: pis, status: 200, result: "BasketStatusResponse"},
	"DELETE /v1/signing-baskets/{basketId}":                               {id: "deleteBasket", summary: "Delete a basket before its authorisation starts", tag: tagBaskets, who: pis, status: 204},
	"POST /v1/signing-baskets/{basketId}/authorisations":                  {id: "startBasketAuthorisation", summary: "Approve every payment of a basket with one SCA", tag: tagBaskets, who: pis, startsSCA: true, params: []string{"x-accept-fix-required"}, status: 201, result: "ScaStarted", location: true},
	"GET /v1/signing-baskets/{basketId}/authorisations":                   {id: "listBasketAuthorisations", summary: "The ids of a basket's authorisations, oldest first", tag: tagBaskets, who: pis, status: 200, result: "AuthorisationList"},
	"GET /v1/signing-baskets/{basketId}/authorisations/{authorisationId}": {id: "getBasketAuthorisation", summary: "A basket authorisation's SCA status", tag: tagBaskets, who: pis, status: 200, result: "ScaStatusResponse"},

	"GET /v1/sandbox/clock":                        {id: "getClock", summary: "The sandbox clock", tag: tagControl, who: sandbox, status: 200, result: "Clock"},
	"PUT /v1/sandbox/clock":                        {id: "setClock", summary: "Set the sandbox clock; batch runs due in between happen once each", tag: tagControl, who: operator, body: "ClockInput", status: 200, result: "Clock"},
	"POST /v1/sandbox/sca/{authorisationId}":       {id: "automatedSCA", summary: "Go through an SCA at once, as the PSU would on the SCA page", tag: tagControl, who: sandbox, body: "AutomatedSCAInput", status: 200, result: "AutomatedSCAResult", more: []int{401}},
	"POST /v1/sandbox/batch-runs":                  {id: "runBatch", summary: "Run the payment batch now", tag: tagControl, who: operator, status: 200, result: "BatchRunResult"},
	"GET /v1/sandbox/faults":                       {id: "getFaults", summary: "The simulated faults", tag: tagControl, who: sandbox, status: 200, result: "Faults"},
	"PUT /v1/sandbox/faults":                       {id: "setFaults", summary: "Set latency, a random 500 rate or an outage", tag: tagControl, who: operator, body: "FaultsInput", status: 200, result: "Faults"},
	"GET /v1/sandbox/batch-runs":                   {id: "listBatchRuns", summary: "The batch run reports, newest first, paged (X-Total-Count)", tag: tagControl, who: operator, params: []string{"offset", "sandboxLimit"}, status: 200, result: "BatchRunList"},
	"GET /v1/sandbox/batch-runs/{runId}":           {id: "getBatchRun", summary: "One batch run report, with what it did to each payment", tag: tagControl, who: operator, status: 200, result: "BatchRun"},
	"GET /v1/sandbox/settings":                     {id: "getSettings", summary: "The bank's settings", tag: tagControl, who: operator, status: 200, result: "Settings"},
	"PUT /v1/sandbox/settings":                     {id: "putSettings", summary: "Replace the settings; a field left out takes its default", tag: tagControl, who: operator, body: "SettingsInput", status: 200, result: "Settings"},
	"PATCH /v1/sandbox/settings":                   {id: "patchSettings", summary: "Change some settings: a JSON merge patch (RFC 7396)", tag: tagControl, who: operator, body: "SettingsInput", mergePatch: true, status: 200, result: "Settings"},
	"GET /v1/sandbox/payments":                     {id: "listOperatorPayments", summary: "Payments, newest first, filtered and paged (X-Total-Count): a TPP's own, or every TPP's for the operator", tag: tagControl, who: mine, params: []string{"paymentStatus", "tppId", "psuId", "paymentProduct", "createdFrom", "createdTo", "offset", "sandboxLimit"}, status: 200, result: "OperatorPaymentList"},
	"GET /v1/sandbox/payments/{paymentId}":         {id: "getOperatorPayment", summary: "One payment with its status history and request: a TPP's own, or any TPP's for the operator", tag: tagControl, who: mine, status: 200, result: "OperatorPaymentDetail"},
	"POST /v1/sandbox/payments/{paymentId}/status": {id: "forcePaymentStatus", summary: "Force a payment's status, recorded as forced; no money moves", tag: tagControl, who: operator, body: "ForceStatusInput", status: 200, result: "OperatorPaymentDetail"},
	"GET /v1/sandbox/baskets":                      {id: "listOperatorBaskets", summary: "Signing baskets, newest first: a TPP's own, or every TPP's for the operator", tag: tagControl, who: mine, status: 200, result: "OperatorBasketList"},
	"GET /v1/sandbox/grants":                       {id: "listGrants", summary: "What each TPP may read: the grants of its consents (a TPP's own, or every TPP's for the operator)", tag: tagControl, who: mine, params: []string{"tppId", "psuId"}, status: 200, result: "GrantList"},
	"DELETE /v1/sandbox/grants/{grantId}":          {id: "revokeGrant", summary: "Revoke a grant, as the PSU would: its consent becomes revokedByPsu (a TPP its own; the operator any)", tag: tagControl, who: mine, status: 204},
	"GET /v1/sandbox/sca-sessions":                 {id: "listScaSessions", summary: "The SCA sessions of every TPP", tag: tagControl, who: operator, status: 200, result: "ScaSessionList"},
	"GET /v1/sandbox/authorisations":               {id: "listOpenAuthorisations", summary: "The authorisations that wait for a PSU, oldest first", tag: tagControl, who: operator, params: []string{"authorisationStatus"}, status: 200, result: "OpenAuthorisationList"},
	"POST /v1/sandbox/initialize":                  {id: "initialize", summary: "Reset the sandbox data to the known state", tag: tagControl, who: sandbox, status: 200, result: "InitializeCounts"},
	"GET /v1/sandbox/bank-certificate":             {id: "getBankCertificate", summary: "The certificate that signs the bank's responses (PEM)", tag: tagControl, who: sandbox, status: 200, result: resultPEM},
	"GET /v1/sandbox/ca-certificate":               {id: "getCACertificate", summary: "Sandbank's local CA certificate (PEM), to trust its HTTPS listener", tag: tagControl, who: sandbox, status: 200, result: resultPEM},
	"POST /v1/sandbox/tpp-certificates":            {id: "issueTPPCertificate", summary: "Issue a TPP test certificate for a public key", tag: tagControl, who: sandbox, body: "CertificateRequest", status: 201, result: "CertificateIssued"},
	"POST /v1/sandbox/operator-certificates":       {id: "issueOperatorCertificate", summary: "Issue an operator certificate for a public key: a TPP certificate that may also do what concerns every TPP", tag: tagControl, who: operator, body: "CertificateRequest", status: 201, result: "CertificateIssued"},
	"GET /v1/sandbox/scenario":                     {id: "exportScenario", summary: "Export the sandbox data as a scenario", tag: tagControl, who: operator, params: []string{"note"}, status: 200, result: "Scenario"},
	"PUT /v1/sandbox/scenario":                     {id: "importScenario", summary: "Replace the sandbox data with a scenario", tag: tagControl, who: operator, body: "Scenario", status: 200, result: "ScenarioCounts"},
	"PUT /v1/tpps/{tppId}/contact-information":     {id: "setContact", summary: "Set the calling TPP's contact address", tag: tagControl, who: sandbox, body: "Contact", status: 200, result: "Contact"},
	"GET /v1/tpps/{tppId}/contact-information":     {id: "getContact", summary: "The calling TPP's contact address", tag: tagControl, who: sandbox, status: 200, result: "Contact"},
	"GET /v1/sandbox/requests":                     {id: "listRequests", summary: "The request log: the requests the bank answered, newest first, filtered and paged (the log's own operations left out)", tag: tagControl, who: mine, params: requestLogFilter("requestLogLimit", "requestLogBefore"), status: 200, result: "RequestLogList"},
	"DELETE /v1/sandbox/requests":                  {id: "clearRequests", summary: "Clear the request log (and the desktop app's Traffic screen)", tag: tagControl, who: operator, status: 204},
	"GET /v1/sandbox/requests.har":                 {id: "exportRequestsHAR", summary: "The request log as a HAR 1.2 file, oldest first, with the bodies and the bank's signature check in _sandbank", tag: tagControl, who: mine, params: requestLogFilter(), status: 200, result: "Har"},
	"GET /v1/sandbox/requests/{id}":                {id: "getRequest", summary: "One request of the log by the id of its answer's error body: headers, bodies, the signature check step by step with the signing string the bank rebuilt, client notes", tag: tagControl, who: mine, status: 200, result: "RequestLogEntry"},

	"POST /v1/sandbox/customers":                {id: "createCustomer", summary: "Create a customer", tag: tagSandbox, who: sandbox, body: "CustomerInput", status: 201, result: "Customer", location: true},
	"GET /v1/sandbox/customers":                 {id: "listCustomers", summary: "Every customer", tag: tagSandbox, who: sandbox, params: []string{"withAccounts", "withAgreements"}, status: 200, result: "CustomerList"},
	"GET /v1/sandbox/customers/{customerId}":    {id: "getCustomer", summary: "One customer with their accounts and agreements", tag: tagSandbox, who: sandbox, status: 200, result: "Customer"},
	"DELETE /v1/sandbox/customers/{customerId}": {id: "deleteCustomer", summary: "Delete a customer and what they own", tag: tagSandbox, who: sandbox, status: 204},

	"POST /v1/sandbox/accounts":                                                      {id: "createSandboxAccount", summary: "Create an account", tag: tagSandbox, who: sandbox, body: "SandboxAccountInput", status: 201, result: "SandboxAccount", location: true},
	"GET /v1/sandbox/accounts":                                                       {id: "listSandboxAccounts", summary: "Every account", tag: tagSandbox, who: sandbox, status: 200, result: "SandboxAccountList"},
	"GET /v1/sandbox/accounts/{mockAccountId}":                                       {id: "getSandboxAccount", summary: "One account (an array of one)", tag: tagSandbox, who: sandbox, status: 200, result: "SandboxAccountList"},
	"DELETE /v1/sandbox/accounts/{mockAccountId}":                                    {id: "deleteSandboxAccount", summary: "Delete an account", tag: tagSandbox, who: sandbox, status: 204},
	"PUT /v1/sandbox/accounts/{mockAccountId}/balances":                              {id: "setSandboxBalances", summary: "Set an account's balances", tag: tagSandbox, who: sandbox, body: "SandboxBalanceInputs", status: 200, result: "SandboxAccount"},
	"POST /v1/sandbox/accounts/{mockAccountId}/transactions":                         {id: "postSandboxTransactions", summary: "Add transactions to an account, all or none", tag: tagSandbox, who: sandbox, body: "SandboxTransactionInputs", status: 201, result: "SandboxTransactionList"},
	"GET /v1/sandbox/accounts/{mockAccountId}/transactions":                          {id: "listSandboxTransactions", summary: "An account's transactions", tag: tagSandbox, who: sandbox, params: []string{"fromDate", "toDate", "offset", "limit"}, status: 200, result: "SandboxTransactionList"},
	"DELETE /v1/sandbox/accounts/{mockAccountId}/transactions":                       {id: "deleteSandboxTransactions", summary: "Delete every transaction of an account", tag: tagSandbox, who: sandbox, status: 204},
	"GET /v1/sandbox/accounts/{mockAccountId}/transactions/{mockTransactionId}":      {id: "getSandboxTransaction", summary: "One transaction", tag: tagSandbox, who: sandbox, status: 200, result: "SandboxTransaction"},
	"POST /v1/sandbox/card-accounts":                                                 {id: "createSandboxCardAccount", summary: "Create a card account", tag: tagSandbox, who: sandbox, body: "SandboxCardAccountInput", status: 201, result: "SandboxCardAccountResponse", location: true},
	"GET /v1/sandbox/card-accounts":                                                  {id: "listSandboxCardAccounts", summary: "Every card account", tag: tagSandbox, who: sandbox, status: 200, result: "SandboxCardAccountList"},
	"GET /v1/sandbox/card-accounts/{mockCardAccountId}":                              {id: "getSandboxCardAccount", summary: "One card account", tag: tagSandbox, who: sandbox, status: 200, result: "SandboxCardAccountResponse"},
	"DELETE /v1/sandbox/card-accounts/{mockCardAccountId}":                           {id: "deleteSandboxCardAccount", summary: "Delete a card account", tag: tagSandbox, who: sandbox, status: 204},
	"PUT /v1/sandbox/card-accounts/{mockCardAccountId}/balances":                     {id: "setSandboxCardBalances", summary: "Set a card account's balances", tag: tagSandbox, who: sandbox, body: "SandboxCardBalanceInputs", status: 200, result: "SandboxCardAccountResponse"},
	"POST /v1/sandbox/card-accounts/{mockCardAccountId}/transactions":                {id: "postSandboxCardTransactions", summary: "Add card transactions, all or none", tag: tagSandbox, who: sandbox, body: "SandboxCardTransactionInputs", status: 201, result: "CardTransactionsPosted"},
	"GET /v1/sandbox/card-accounts/{mockCardAccountId}/transactions":                 {id: "listSandboxCardTransactions", summary: "A card account's transactions", tag: tagSandbox, who: sandbox, params: []string{"bookingStatus", "fromDate", "toDate", "offset", "limit"}, status: 200, result: "SandboxCardTransactions"},
	"DELETE /v1/sandbox/card-accounts/{mockCardAccountId}/transactions":              {id: "deleteSandboxCardTransactions", summary: "Delete every transaction of a card account", tag: tagSandbox, who: sandbox, status: 204},
	"POST /v1/sandbox/agreements":                                                    {id: "createAgreement", summary: "Create a corporate agreement", tag: tagSandbox, who: sandbox, body: "AgreementInput", status: 201, result: "Agreement", location: true},
	"GET /v1/sandbox/agreements":                                                     {id: "listAgreements", summary: "Every agreement", tag: tagSandbox, who: sandbox, status: 200, result: "AgreementList"},
	"GET /v1/sandbox/agreements/{mockAgreementId}":                                   {id: "getAgreement", summary: "One agreement", tag: tagSandbox, who: sandbox, status: 200, result: "Agreement"},
	"DELETE /v1/sandbox/agreements/{mockAgreementId}":                                {id: "deleteAgreement", summary: "Delete an agreement", tag: tagSandbox, who: sandbox, status: 204},
	"POST /v1/sandbox/agreements/{mockAgreementId}/engagements":                      {id: "createEngagement", summary: "Engage a PSU on one of the owner's accounts", tag: tagSandbox, who: sandbox, body: "EngagementInput", status: 201, result: "Engagement", location: true},
	"GET /v1/sandbox/agreements/{mockAgreementId}/engagements":                       {id: "listEngagements", summary: "An agreement's engagements", tag: tagSandbox, who: sandbox, status: 200, result: "EngagementList"},
	"GET /v1/sandbox/agreements/{mockAgreementId}/engagements/{mockEngagementId}":    {id: "getEngagement", summary: "One engagement", tag: tagSandbox, who: sandbox, status: 200, result: "Engagement"},
	"DELETE /v1/sandbox/agreements/{mockAgreementId}/engagements/{mockEngagementId}": {id: "deleteEngagement", summary: "Delete an engagement", tag: tagSandbox, who: sandbox, status: 204},
}

// notOfferedOperations documents the Berlin Group operations the real
// bank does not offer (routes.go, notoffered.go).
func notOfferedOperations() map[string]operation {
	op := func(id, summary string) operation {
		return operation{id: id, summary: summary + ": not offered by the bank; answers 405 SERVICE_INVALID saying what to do instead (docs/CONFORMANCE.md)", tag: tagService, who: sandbox, status: 405, notOffered: true}
	}
	out := map[string]operation{
		"POST /v1/funds-confirmations":                                        op("checkAvailabilityOfFunds", "Confirmation of funds"),
		"POST /v1/consents/{consentId}/authorisations":                        op("startConsentAuthorisation", "An explicit start of a consent's authorisation"),
		"PUT /v1/consents/{consentId}/authorisations/{authorisationId}":       op("updateConsentsPsuData", "The embedded SCA's PSU data for a consent"),
		"PUT /v1/signing-baskets/{basketId}/authorisations/{authorisationId}": op("updateSigningBasketPsuData", "The embedded SCA's PSU data for a basket"),
	}
	for _, service := range bank.Services {
		one := "/v1/" + service + "/{product}/{paymentId}"
		name := map[string]string{bank.ServiceSingle: "Payment", bank.ServicePeriodic: "PeriodicPayment", bank.ServiceBulk: "BulkPayment"}[service]
		out["PUT "+one+"/authorisations/{authorisationId}"] = op("update"+name+"PsuData", "The embedded SCA's PSU data for a payment")
		out["POST "+one+"/cancellation-authorisations"] = op("start"+name+"CancellationAuthorisation", "A cancellation authorisation")
		out["GET "+one+"/cancellation-authorisations"] = op("list"+name+"CancellationAuthorisations", "The cancellation authorisations")
		out["GET "+one+"/cancellation-authorisations/{authorisationId}"] = op("get"+name+"CancellationAuthorisation", "A cancellation authorisation's SCA status")
		out["PUT "+one+"/cancellation-authorisations/{authorisationId}"] = op("update"+name+"CancellationPsuData", "The embedded SCA's PSU data for a cancellation")
	}
	return out
}

// requestLogFilter lists the filter parameters of the request log's list
// and export, then more.
func requestLogFilter(more ...string) []string {
	return append([]string{"requestLogQ", "requestLogTppId", "requestLogMethod", "requestLogStatus", "requestLogErrorsOnly"}, more...)
}

// paymentOperations documents the routes of one payment service.
func paymentOperations(service string) map[string]operation {
	name := map[string]string{bank.ServiceSingle: "Payment", bank.ServicePeriodic: "PeriodicPayment", bank.ServiceBulk: "BulkPayment"}[service]
	noun := map[string]string{bank.ServiceSingle: "a payment", bank.ServicePeriodic: "a periodic payment", bank.ServiceBulk: "a bulk payment"}[service]
	base := "/v1/" + service + "/{product}"
	one := base + "/{paymentId}"
	create := operation{id: "create" + name, summary: "Initiate " + noun + "; its SCA starts at once", tag: tagPIS, who: pis, startsSCA: true,
		params: []string{"allowLogicalDuplicate", "x-accept-fix"}, body: name + "Initiation", status: 201, result: "PaymentCreated", location: true}
	if service == bank.ServiceSingle {
		create.params = append(create.params, "PSU-Context-NCBCT")
	}
	return map[string]operation{
		"POST " + base:                    create,
		"GET " + one:                      {id: "get" + name, summary: "Read " + noun, tag: tagPIS, who: pis, params: []string{"x-accept-fix"}, status: 200, result: "Payment"},
		"GET " + one + "/status":          {id: "get" + name + "Status", summary: "The status of " + noun, tag: tagPIS, who: pis, status: 200, result: "PaymentStatus"},
		"DELETE " + one:                   {id: "cancel" + name, summary: "Cancel " + noun, tag: tagPIS, who: pis, status: 204},
		"POST " + one + "/authorisations": {id: "start" + name + "Authorisation", summary: "Start another authorisation of " + noun + " (a second approver)", tag: tagPIS, who: pis, startsSCA: true, status: 201, result: "ScaStarted", location: true},
		"GET " + one + "/authorisations":  {id: "list" + name + "Authorisations", summary: "The authorisation ids of " + noun + ", readable before any PSU approved it", tag: tagPIS, who: pis, status: 200, result: "AuthorisationList"},
		"GET " + one + "/authorisations/{authorisationId}": {id: "get" + name + "Authorisation", summary: "An authorisation's SCA status", tag: tagPIS, who: pis, status: 200, result: "ScaStatusResponse"},
	}
}

// operationOf returns the documentation of a route pattern.
func operationOf(pattern string) (operation, bool) {
	if op, ok := operations[pattern]; ok {
		return op, true
	}
	for _, service := range bank.Services {
		if op, ok := paymentOperations(service)[pattern]; ok {
			return op, true
		}
	}
	op, ok := notOfferedOperations()[pattern]
	return op, ok
}

var pathParam = regexp.MustCompile(`\{([A-Za-z]+)\}`)

// openAPIDocument builds the document for the given routes. It fails when
// a route has no operation, so a new route cannot go undocumented.
func openAPIDocument(routes []route) ([]byte, error) {
	var components map[string]any
	if err := json.Unmarshal(openAPIComponents, &components); err != nil {
		return nil, fmt.Errorf("openapi/components.json: %w", err)
	}
	paths := map[string]map[string]any{}
	for _, rt := range routes {
		op, ok := operationOf(rt.pattern)
		if !ok {
			return nil, fmt.Errorf("route %q has no entry in the operations table of openapi.go", rt.pattern)
		}
		method, path, _ := strings.Cut(rt.pattern, " ")
		path = strings.TrimSuffix(path, "{$}") // "/{$}" is the root alone
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(method)] = op.document(path)
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "Sandbank PSD2 API",
			"version": "1.3",
			"description": "A Norwegian bank's PSD2 interface (Berlin Group NextGenPSD2 1.3) as Sandbank serves it on localhost: " +
				"the README and docs/ of its repository describe every operation and rule. Every /v1 path also answers under /api/v1 and /api-sandbox/v1. " +
				"Every /v1 request is signed (Signature, TPP-Signature-Certificate, Digest when there is a body); " +
				"every response carries Date, Digest and the bank's Signature (RSA, or ECDSA or none as the setting responseSigning says). Amounts on the PSD2 API are strings " +
				"with the currency's minor units; on the sandbox API they are JSON numbers.\n\n" +
				"Tolerance (docs/TPP-GUIDE.md, section 9): the bank refuses only what the real bank refuses. What is odd but accepted is a " +
				"client note in the request log (the desktop app's Traffic screen, GET /v1/sandbox/requests/{id}), a Sandbank-Notes header on the answer " +
				"with their count and that entry's path (on every answer, also an array, an error body or a 204), and, on a 2xx answer that is a JSON " +
				"object, a WARNING tppMessage. The notes: a body field the bank does not use, or a key given twice; " +
				"a payment amount sent as a JSON number; a Date header that is not an HTTP date, or more than 5 minutes " +
				"from the bank's clock; a PSU-IP-Address that is not an IP address; a PSU-Device-ID that is not a UUID; " +
				"a PSU-HTTP-Method that is not a method; an X-Request-ID the TPP sent in the last hour; a bodyless " +
				"request whose signature covers neither date nor (request-target); a keyId that writes only some " +
				"attributes of the issuer; and the sandbox data oddities of docs/SANDBOX-API.md. Each note says what " +
				"to change. Strict mode (the setting strict, sandbankd --strict) refuses every one of them: 400 with " +
				"the note's text.",
		},
		"servers":    []any{map[string]any{"url": "/", "description": "the Sandbank that served this document"}},
		"tags":       tags(),
		"paths":      paths,
		"components": components,
	}
	return json.MarshalIndent(doc, "", " ")
}

// openAPI answers GET /v1/openapi.json.
func (s *server) openAPI(w http.ResponseWriter, r *http.Request) {
	doc, err := s.openAPIDoc()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", jsonType)
	_, _ = w.Write(doc)
}

func tags() []any {
	var out []any
	for _, t := range []string{tagConsent, tagAIS, tagPIS, tagBaskets, tagSandbox, tagControl, tagSCAPage, tagService} {
		out = append(out, map[string]any{"name": t})
	}
	return out
}

func ref(kind, name string) map[string]any {
	return map[string]any{"$ref": "#/components/" + kind + "/" + name}
}

// document is the OpenAPI operation object of op at path.
func (op operation) document(path string) map[string]any {
	var params []any
	for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
		schema := map[string]any{"type": "string", "minLength": 1}
		if m[1] == "product" {
			schema["enum"] = productsOf(path)
		}
		params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": schema})
	}
	var names []string
	if op.who != open {
		names = append(names, "X-Request-ID", "Signature", "TPP-Signature-Certificate")
		if op.body != "" {
			names = append(names, "Digest")
		}
	}
	switch {
	case op.who == ais && !op.startsSCA:
		names = append(names, strings.Fields(aisHeaders)...)
	case op.who == pis:
		names = append(names, strings.Fields(pisHeaders)...)
	}
	if op.startsSCA {
		names = append(slices.DeleteFunc(names, func(n string) bool { return n == "TPP-Session-ID" }),
			"TPP-Redirect-URI-required", "TPP-Session-ID-required", "TPP-Redirect-Preferred")
	}
	for _, p := range append(names, op.params...) {
		if p == "PSU-Context-NCBCT" {
			params = append(params, map[string]any{"name": "PSU-Context", "in": "header",
				"description": "PRIVATE or CORPORATE; required on NCBCT creation. Another value is taken with a WARNING (docs/TPP-GUIDE.md, section 9): lower case is read as the value, anything else as no context. Strict mode refuses it.",
				"schema":      map[string]any{"type": "string", "examples": []string{"PRIVATE", "CORPORATE"}}})
			continue
		}
		params = append(params, ref("parameters", p))
	}
	out := map[string]any{"operationId": op.id, "summary": op.summary, "tags": []string{op.tag}, "responses": op.responses()}
	switch c := callers[op.who]; c {
	case "operator":
		out["x-sandbank-caller"] = c
		out["description"] = "Only the bank's operator may call this: it concerns every TPP. A TPP gets 403 FORBIDDEN."
	case "tpp-own":
		out["x-sandbank-caller"] = c
		out["description"] = "A TPP gets its own records only; the operator gets every TPP's."
	case "tpp":
		out["x-sandbank-caller"] = c
	}
	if op.notOffered {
		out["x-sandbank-not-offered"] = true
	}
	if len(params) > 0 {
		out["parameters"] = params
	}
	if op.body != "" {
		content := map[string]any{"application/json": map[string]any{"schema": ref("schemas", op.body)}}
		if op.mergePatch {
			content["application/merge-patch+json"] = map[string]any{"schema": ref("schemas", op.body)}
		}
		out["requestBody"] = map[string]any{"required": true, "content": content}
	}
	return out
}

// productsOf lists the payment products a payment path takes.
func productsOf(path string) []string {
	if strings.HasPrefix(path, "/v1/"+bank.ServiceSingle+"/") {
		return bank.Products
	}
	return []string{bank.ProductNDCT}
}

// responses is the responses object: the success answer and every error
// status the operation can answer with.
func (op operation) responses() map[string]any {
	out := map[string]any{}
	if op.notOffered {
		for _, status := range []int{400, 403, 405, 413, 415, 500, 503} {
			out[strconv.Itoa(status)] = ref("responses", "Error")
		}
		return out
	}
	success := map[string]any{"description": http.StatusText(op.status)}
	signedHeaders := map[string]any{}
	if op.who != open {
		for _, h := range []string{"X-Request-ID", "Date", "Digest", "Signature", "Sandbank-Notes"} {
			signedHeaders[h] = ref("headers", h)
		}
		success["headers"] = signedHeaders
		if op.location {
			signedHeaders["Location"] = ref("headers", "Location")
		}
		if op.startsSCA || op.approach {
			signedHeaders["ASPSP-SCA-Approach"] = ref("headers", "ASPSP-SCA-Approach")
		}
	}
	switch op.result {
	case "":
	case resultPEM:
		success["content"] = map[string]any{"application/x-pem-file": map[string]any{"schema": map[string]any{"type": "string"}}}
	case resultHTML:
		success["content"] = map[string]any{"text/html": map[string]any{"schema": map[string]any{"type": "string"}}}
	case resultCSS:
		success["content"] = map[string]any{"text/css": map[string]any{"schema": map[string]any{"type": "string"}}}
	case resultAny:
		success["content"] = map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object"}}}
	case "Landing":
		success["content"] = map[string]any{"application/json": map[string]any{"schema": ref("schemas", op.result)},
			"text/html": map[string]any{"schema": map[string]any{"type": "string"}}}
	default:
		success["content"] = map[string]any{"application/json": map[string]any{"schema": ref("schemas", op.result)}}
	}
	out[strconv.Itoa(op.status)] = success
	var errs []int
	switch op.who {
	case open:
		errs = append(errs, 403, 503)
	case sandbox, operator, mine:
		errs = append(errs, 400, 403, 404, 406, 409, 413, 415, 500, 503)
	case ais:
		errs = append(errs, 400, 401, 403, 404, 406, 413, 415, 429, 500, 503)
	case pis:
		errs = append(errs, 400, 401, 403, 404, 406, 409, 413, 415, 500, 503)
	}
	for _, status := range errs {
		out[strconv.Itoa(status)] = ref("responses", "Error")
	}
	for _, status := range op.more {
		switch status {
		case 303:
			out["303"] = map[string]any{"description": "Back to TPP-Redirect-URI, with the outcome in its query (docs/ACCOUNT-INFORMATION.md, section 3)",
				"headers": map[string]any{"Location": map[string]any{"required": true, "schema": map[string]any{"type": "string", "format": "uri"}}}}
		case 401:
			out["401"] = ref("responses", "Error")
		default:
			out[strconv.Itoa(status)] = map[string]any{"description": http.StatusText(status) + ": the SCA page says why",
				"content": map[string]any{"text/html": map[string]any{"schema": map[string]any{"type": "string"}}}}
		}
	}
	return out
}
