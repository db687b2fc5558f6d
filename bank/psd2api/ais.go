package psd2api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

// Handlers of consents and account information (docs/ACCOUNT-INFORMATION.md).

// aisRequest reads who asks: the TPP the signature established and the
// PSU headers.
func aisRequest(r *http.Request) bank.AISRequest {
	return bank.AISRequest{
		TPPID: callerTPP(r), PSUID: r.Header.Get("PSU-ID"), CorporateID: r.Header.Get("PSU-Corporate-ID"),
		SessionID: r.Header.Get("TPP-Session-ID"), PSUPresent: r.Header.Get("PSU-IP-Address") != "",
		ConsentID: r.Header.Get("Consent-ID"),
	}
}

var hostPattern = regexp.MustCompile(`^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$`)

// scaURL is the SCA page of an authorisation, its id and its secret: on
// the public URL when there is one, else on the listener the request came
// in on. The request's log entry holds no secret (keepSecret).
func (h *psd2API) scaURL(r *http.Request, a bank.Authorisation) string {
	keepSecret(r, a.Secret)
	if h.publicURL != "" {
		return h.publicURL + a.PagePath() // ids and secrets are URL-safe
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := r.Host
	if !hostPattern.MatchString(host) {
		if addr, ok := r.Context().Value(http.LocalAddrContextKey).(fmt.Stringer); ok {
			host = addr.String()
		}
	}
	return scheme + "://" + host + a.PagePath()
}

// scaRequestOf reads the redirect headers of a request that starts SCA,
// which are required.
func scaRequestOf(r *http.Request, kind string) (bank.SCARequest, error) {
	var v apierr.Violations
	for _, h := range []string{"TPP-Redirect-URI", "TPP-Session-ID"} {
		if r.Header.Get(h) == "" {
			v.Add(apierr.CodeHeaderRequired, h, h+" is required on every request that can start SCA")
		}
	}
	return bank.SCARequest{
		TPPID: callerTPP(r), TPPName: callerName(r), Kind: kind,
		RedirectURI: r.Header.Get("TPP-Redirect-URI"), SessionID: r.Header.Get("TPP-Session-ID"),
		RedirectPreferred: !strings.EqualFold(strings.TrimSpace(r.Header.Get("TPP-Redirect-Preferred")), "false"),
	}, v.Err()
}

// callerName is the name the PSU sees for the TPP: the certificate
// subject's organisation, else its common name.
func callerName(r *http.Request) string {
	v := stateOf(r).verdict
	if v == nil || v.Cert == nil {
		return ""
	}
	if o := v.Cert.Subject.Organization; len(o) > 0 && o[0] != "" {
		return o[0]
	}
	return v.Cert.Subject.CommonName
}

// freshSCA starts the SCA of a 401 and returns its SCA page, or "" when
// the request does not say where to send the PSU or its route starts
// none: a consent on account information, the PSU's identification on
// payments and baskets (caller.sca).
func (h *psd2API) freshSCA(r *http.Request) string {
	kind := stateOf(r).sca
	if kind == "" {
		return ""
	}
	sca, err := scaRequestOf(r, kind)
	if err != nil || sca.TPPID == "" {
		return ""
	}
	a, err := h.bank.StartSCA(sca)
	if err != nil {
		return ""
	}
	return h.scaURL(r, a)
}

type scaStarted struct {
	AuthorisationID string          `json:"authorisationId"`
	ScaStatus       string          `json:"scaStatus"`
	Links           map[string]link `json:"_links"`
}

// consentCreated is the answer to POST /v1/consents: the consent resource
// and its SCA.
type consentCreated struct {
	ConsentID     string `json:"consentId"`
	ConsentStatus string `json:"consentStatus"`
	scaStarted
}

// created sets the headers of a 201 that creates a resource: its Location
// and, when the resource is authorised by SCA (a consent, a payment, a
// basket, an authorisation), the SCA approach, which is always redirect
// (Berlin Group: the header is there once the approach is fixed).
func created(w http.ResponseWriter, location string, scaApproach bool) {
	if location != "" {
		w.Header().Set("Location", location)
	}
	if scaApproach {
		w.Header().Set("ASPSP-SCA-Approach", "REDIRECT")
	}
}

// startConsent answers POST /v1/consents and POST
// /v1/bank-offered-consents. The PSU chooses the accounts at SCA, so the
// bank uses nothing of a body: each field it has is a client note.
func (h *psd2API) startConsent(w http.ResponseWriter, r *http.Request) error {
	sca, err := scaRequestOf(r, bank.AuthConsent)
	if err != nil {
		return err
	}
	if err := noteConsentBody(r); err != nil {
		return err
	}
	cn, a, err := h.bank.StartConsent(sca)
	if err != nil {
		return err
	}
	self := "/v1/consents/" + cn.ID
	out := consentCreated{ConsentID: cn.ID, ConsentStatus: cn.Status, scaStarted: scaStarted{
		AuthorisationID: a.ID, ScaStatus: a.Status, Links: map[string]link{
			"scaRedirect": linkTo(h.scaURL(r, a), "GET"), "self": linkTo(self, "GET", "DELETE"),
			"status": linkTo(self+"/status", "GET"), "scaStatus": linkTo(self+"/authorisations/"+a.ID, "GET"),
		},
	}}
	created(w, self, true)
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// noteConsentBody notes each field of a consent's body: the bank asks the
// PSU instead.
func noteConsentBody(r *http.Request) error {
	body := stateOf(r).body
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return note(r, apierr.Oddity(apierr.CodeBadRequest, "", "the body is not a JSON object; a consent needs no body, so the bank ignores it"))
	}
	var odd []apierr.Message
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		odd = append(odd, apierr.Oddity(apierr.CodeBadRequest, name, "is ignored: the PSU chooses the accounts to share at SCA, so a consent needs no body"))
	}
	return note(r, odd...)
}

// identifyUser answers GET /v1/users: an SCA that only identifies the PSU.
func (h *psd2API) identifyUser(w http.ResponseWriter, r *http.Request) error {
	sca, err := scaRequestOf(r, bank.AuthUsers)
	if err != nil {
		return err
	}
	a, err := h.bank.StartSCA(sca)
	if err != nil {
		return err
	}
	created(w, "", true)
	writeJSON(w, http.StatusCreated, scaStarted{AuthorisationID: a.ID, ScaStatus: a.Status, Links: map[string]link{"scaRedirect": linkTo(h.scaURL(r, a), "GET")}})
	return nil
}

// consentView is a consent as GET /v1/consents/{consentId} answers it.
type consentView struct {
	Access             consentAccess   `json:"access"`
	RecurringIndicator bool            `json:"recurringIndicator"`
	ValidUntil         string          `json:"validUntil"`
	FrequencyPerDay    int             `json:"frequencyPerDay"`
	LastActionDate     string          `json:"lastActionDate"`
	ConsentStatus      string          `json:"consentStatus"`
	Links              map[string]link `json:"_links"`
}

// consentAccess lists what a consent covers: the same accounts for
// details, balances and transactions (the PSU grants all three).
type consentAccess struct {
	Accounts     []accountRefView `json:"accounts"`
	Balances     []accountRefView `json:"balances"`
	Transactions []accountRefView `json:"transactions"`
}

func (h *psd2API) getConsent(w http.ResponseWriter, r *http.Request) error {
	v, err := h.bank.Consent(callerTPP(r), r.PathValue("consentId"))
	if err != nil {
		return err
	}
	refs := []accountRefView{}
	for _, a := range v.Accounts {
		refs = append(refs, accountRefView{IBAN: a.IBAN, Currency: a.Currency})
	}
	for _, c := range v.CardAccounts {
		refs = append(refs, accountRefView{MaskedPan: c.MaskedPan, Currency: c.Currency})
	}
	self := "/v1/consents/" + v.ID
	out := consentView{
		Access: consentAccess{Accounts: refs, Balances: refs, Transactions: refs}, RecurringIndicator: true,
		FrequencyPerDay: bank.DailyUses, ConsentStatus: v.Status,
		ValidUntil: v.Until.String(), LastActionDate: v.LastAction.String(),
		Links: map[string]link{"self": linkTo(self, "GET", "DELETE"), "status": linkTo(self+"/status", "GET"), "authorisations": linkTo(self+"/authorisations", "GET")},
	}
	if v.Status == bank.ConsentValid {
		out.Links["account"] = linkTo("/v1/accounts", "GET")
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *psd2API) getConsentStatus(w http.ResponseWriter, r *http.Request) error {
	v, err := h.bank.Consent(callerTPP(r), r.PathValue("consentId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"consentStatus": v.Status})
	return nil
}

func (h *psd2API) deleteConsent(w http.ResponseWriter, r *http.Request) error {
	if err := h.bank.DeleteConsent(callerTPP(r), r.PathValue("consentId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// authorisationList is the answer of GET .../authorisations.
type authorisationList struct {
	AuthorisationIDs []string `json:"authorisationIds"`
}

func (h *psd2API) listConsentAuthorisations(w http.ResponseWriter, r *http.Request) error {
	v, err := h.bank.Consent(callerTPP(r), r.PathValue("consentId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, authorisationList{v.AuthorisationIDs})
	return nil
}

func (h *psd2API) getConsentAuthorisation(w http.ResponseWriter, r *http.Request) error {
	a, err := h.bank.ConsentAuthorisation(callerTPP(r), r.PathValue("consentId"), r.PathValue("authorisationId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"scaStatus": a.Status})
	return nil
}

// amount writes a PSD2 amount: a string with the currency's minor digits
// (amount-as-string), or a JSON number before that fix: an amountText or
// an amountNumber.
func amount(d decimal.Decimal, currency string, f bank.Fixes) any {
	text := json.Number(bank.FormatAmount(d, currency))
	if f[bank.FixAmountAsString] {
		return amountText{text, currency}
	}
	return amountNumber{text, currency}
}

// amountNumber is a PSD2 amount whose amount is a JSON number.
type amountNumber struct {
	Amount   json.Number `json:"amount"`
	Currency string      `json:"currency"`
}

// amountText is a PSD2 amount whose amount is a string (amount-as-string).
type amountText struct {
	Amount   json.Number `json:"amount,string"`
	Currency string      `json:"currency"`
}

// getLink is a link that answers GET. Its verbs are shared: a link is only
// encoded, never changed.
func getLink(href string) link { return link{Href: href, Verbs: verbsGet} }

var verbsGet = []string{"GET"}

type accountRefView struct {
	IBAN      string `json:"iban,omitempty"`
	BBAN      string `json:"bban,omitempty"`
	MaskedPan string `json:"maskedPan,omitempty"`
	Currency  string `json:"currency,omitempty"`
}

func refOf(a bank.AccountRef) *accountRefView {
	if a.IsZero() {
		return nil
	}
	return &accountRefView{IBAN: a.IBAN, BBAN: a.BBAN}
}

type aisBalance struct {
	BalanceType              string     `json:"balanceType"`
	BalanceAmount            any        `json:"balanceAmount"`
	CreditLimitIncluded      *bool      `json:"creditLimitIncluded,omitempty"`
	ReferenceDate            *bank.Date `json:"referenceDate,omitempty"`
	LastChangeDateTime       *time.Time `json:"lastChangeDateTime,omitempty"`
	LastCommittedTransaction string     `json:"lastCommittedTransaction,omitempty"`
}

// aisBalances writes an account's balances: closingBooked, expected, and
// what is available (expected plus the credit line or limit) as
// interimAvailable.
func aisBalances(b bank.Balances, available decimal.Decimal, currency string, today bank.Date, f bank.Fixes) []aisBalance {
	yes := true
	return []aisBalance{
		{BalanceType: "closingBooked", BalanceAmount: amount(b.ClosingBooked, currency, f), ReferenceDate: &today},
		{BalanceType: "expected", BalanceAmount: amount(b.Expected, currency, f)},
		{BalanceType: "interimAvailable", BalanceAmount: amount(available, currency, f), CreditLimitIncluded: &yes},
	}
}

// aisCardBalances writes a card account's balances like aisBalances, each
// with the detail the sandbox data gave it: its own referenceDate,
// lastChangeDateTime and lastCommittedTransaction.
func aisCardBalances(c bank.CardAccount, today bank.Date, f bank.Fixes) []aisBalance {
	out := aisBalances(c.Balances.Balances, c.Available(), c.Currency, today, f)
	for i := range out {
		d := c.Balances.Detail(out[i].BalanceType)
		if !d.ReferenceDate.IsZero() {
			out[i].ReferenceDate = &d.ReferenceDate
		}
		if !d.LastChangeDateTime.IsZero() {
			out[i].LastChangeDateTime = &d.LastChangeDateTime
		}
		out[i].LastCommittedTransaction = d.LastCommittedTransaction
	}
	return out
}

type aisAccountView struct {
	ResourceID      string          `json:"resourceId"`
	IBAN            string          `json:"iban"`
	BBAN            string          `json:"bban"`
	Currency        string          `json:"currency"`
	Name            string          `json:"name"`
	Product         string          `json:"product"`
	CashAccountType string          `json:"cashAccountType"`
	Status          string          `json:"status"`
	Balances        []aisBalance    `json:"balances,omitempty"`
	Links           aisAccountLinks `json:"_links"`
}

// aisAccountLinks are the links of an account or card account.
type aisAccountLinks struct {
	Balances     link `json:"balances"`
	Transactions link `json:"transactions"`
}

func accountLinks(self string) aisAccountLinks {
	return aisAccountLinks{Balances: getLink(self + "/balances"), Transactions: getLink(self + "/transactions")}
}

func aisAccountOf(a bank.Account, withBalance bool, f bank.Fixes, today bank.Date) aisAccountView {
	v := aisAccountView{
		ResourceID: a.ID, IBAN: a.IBAN, BBAN: a.BBAN, Currency: a.Currency, Name: f.Name(a.Name), Product: a.Product,
		CashAccountType: f.CashAccountType(a.CashAccountType), Status: a.Status,
		Links: accountLinks("/v1/accounts/" + a.ID),
	}
	if withBalance {
		v.Balances = aisBalances(a.Balances, a.Available(), a.Currency, today, f)
	}
	return v
}

func (h *psd2API) listAISAccounts(w http.ResponseWriter, r *http.Request) error {
	withBalance, err := queryBool(r, "withBalance")
	if err != nil {
		return err
	}
	list, a, err := h.bank.Accounts(aisRequest(r))
	noteAccess(r, a)
	if err != nil {
		return err
	}
	f, today := h.bank.FixesFor(r.Header.Get("x-accept-fix")), h.bank.Today()
	out := make([]aisAccountView, 0, len(list))
	for _, acct := range list {
		out = append(out, aisAccountOf(acct, withBalance, f, today))
	}
	writeJSON(w, http.StatusOK, struct {
		Accounts []aisAccountView `json:"accounts"`
	}{out})
	return nil
}

func (h *psd2API) getAISAccount(w http.ResponseWriter, r *http.Request) error {
	withBalance, err := queryBool(r, "withBalance")
	if err != nil {
		return err
	}
	acct, a, err := h.bank.Account(aisRequest(r), r.PathValue("id"))
	noteAccess(r, a)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		Account aisAccountView `json:"account"`
	}{aisAccountOf(acct, withBalance, h.bank.FixesFor(r.Header.Get("x-accept-fix")), h.bank.Today())})
	return nil
}

func (h *psd2API) getAISBalances(w http.ResponseWriter, r *http.Request) error {
	acct, a, err := h.bank.Balances(aisRequest(r), r.PathValue("id"))
	noteAccess(r, a)
	if err != nil {
		return err
	}
	f := h.bank.FixesFor(r.Header.Get("x-accept-fix"))
	writeJSON(w, http.StatusOK, aisBalancesView{
		Account:  accountRefView{IBAN: acct.IBAN, BBAN: acct.BBAN, Currency: acct.Currency},
		Balances: aisBalances(acct.Balances, acct.Available(), acct.Currency, h.bank.Today(), f),
	})
	return nil
}

// aisBalancesView is the answer of GET /v1/accounts/{id}/balances.
type aisBalancesView struct {
	Account  accountRefView `json:"account"`
	Balances []aisBalance   `json:"balances"`
}

// aisQuery reads bookingStatus, dateFrom, dateTo, limit and offset.
func aisQuery(r *http.Request) (bank.AISQuery, error) {
	var q bank.AISQuery
	var err error
	if q.From, err = queryDate(r, "dateFrom"); err != nil {
		return q, err
	}
	if q.To, err = queryDate(r, "dateTo"); err != nil {
		return q, err
	}
	if q.Offset, err = queryInt(r, "offset"); err != nil {
		return q, err
	}
	if q.Limit, err = queryInt(r, "limit"); err != nil {
		return q, err
	}
	if q.WithBalance, err = queryBool(r, "withBalance"); err != nil {
		return q, err
	}
	if r.URL.Query().Get("limit") != "" && (q.Limit < 1 || q.Limit > bank.MaxAISPageSize) {
		return q, errBadQuery("limit", fmt.Sprintf("must be between 1 and %d", bank.MaxAISPageSize))
	}
	q.Status = strings.ToLower(r.URL.Query().Get("bookingStatus"))
	switch q.Status {
	case "":
		q.Status = "booked"
	case "both", "all":
		q.Status = "both"
	case "booked", "pending":
	default:
		return q, errBadQuery("bookingStatus", "must be booked, pending, both or all")
	}
	return q, nil
}

// pageLinks are the account and paging links of a transaction list; they
// carry limit=200 when the request gave no limit.
func pageLinks(base, account string, q bank.AISQuery, from bank.Date, total int) map[string]link {
	limit := q.Limit
	if limit == 0 {
		limit = bank.MaxAISPageSize
	}
	at := func(offset int) link {
		v := url.Values{}
		v.Set("bookingStatus", q.Status)
		if !from.IsZero() {
			v.Set("dateFrom", from.String())
		}
		if !q.To.IsZero() {
			v.Set("dateTo", q.To.String())
		}
		v.Set("limit", strconv.Itoa(limit))
		v.Set("offset", strconv.Itoa(offset))
		if q.WithBalance {
			v.Set("withBalance", "true")
		}
		return linkTo(base+"?"+v.Encode(), "GET")
	}
	links := map[string]link{"account": linkTo(account, "GET"), "first": at(0)}
	last := 0
	if total > 0 {
		last = (total - 1) / limit * limit
	}
	links["last"] = at(last)
	if q.Offset+limit < total {
		links["next"] = at(q.Offset + limit)
	}
	if q.Offset > 0 {
		links["previous"] = at(max(0, q.Offset-limit))
	}
	return links
}

type aisTxView struct {
	TransactionID                     string          `json:"transactionId"`
	BookingDate                       *bank.Date      `json:"bookingDate,omitempty"`
	ValueDate                         bank.Date       `json:"valueDate"`
	TransactionAmount                 any             `json:"transactionAmount"`
	CreditorName                      string          `json:"creditorName,omitempty"`
	CreditorAccount                   *accountRefView `json:"creditorAccount,omitempty"`
	DebtorName                        string          `json:"debtorName,omitempty"`
	DebtorAccount                     *accountRefView `json:"debtorAccount,omitempty"`
	RemittanceInformationUnstructured string          `json:"remittanceInformationUnstructured,omitempty"`
	Links                             detailsLink     `json:"_links"`
}

// detailsLink is the _links object of a listed transaction.
type detailsLink struct {
	TransactionDetails link `json:"transactionDetails"`
}

func aisTxOf(accountID string, t bank.Transaction, f bank.Fixes) aisTxView {
	v := aisTxView{
		TransactionID: t.ID, ValueDate: t.ValueDate, TransactionAmount: amount(t.Amount, t.Currency, f),
		CreditorName: f.Name(t.CreditorName), CreditorAccount: refOf(t.CreditorAccount),
		DebtorName: f.Name(t.DebtorName), DebtorAccount: refOf(t.DebtorAccount),
		RemittanceInformationUnstructured: t.RemittanceInformationUnstructured,
		Links:                             detailsLink{getLink("/v1/accounts/" + accountID + "/transactions/" + t.ID)},
	}
	if !t.Pending {
		d := t.BookingDate
		v.BookingDate = &d
	}
	return v
}

func (h *psd2API) listAISTransactions(w http.ResponseWriter, r *http.Request) error {
	q, err := aisQuery(r)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	page, a, err := h.bank.Transactions(aisRequest(r), id, q)
	noteAccess(r, a)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, aisTxPageOf(id, page, q, h.bank.FixesFor(r.Header.Get("x-accept-fix")), h.bank.Today()))
	return nil
}

// aisTxPageOf writes a page of an account's transactions.
func aisTxPageOf(id string, page bank.AISTxPage, q bank.AISQuery, f bank.Fixes, today bank.Date) aisTxPage {
	acct := page.Account
	out := aisTxPage{
		Account:      accountRefView{IBAN: acct.IBAN, BBAN: acct.BBAN, Currency: acct.Currency},
		Transactions: txLists[aisTxView]{Links: pageLinks("/v1/accounts/"+id+"/transactions", "/v1/accounts/"+id, q, page.From, page.Booked.Total)},
	}
	if q.Status != "pending" {
		booked := make([]aisTxView, 0, len(page.Booked.Transactions))
		for _, t := range page.Booked.Transactions {
			booked = append(booked, aisTxOf(id, t, f))
		}
		out.Transactions.Booked = &booked
	}
	if q.Status != "booked" {
		pending := make([]aisTxView, 0, len(page.Pending))
		for _, t := range page.Pending {
			pending = append(pending, aisTxOf(id, t, f))
		}
		out.Transactions.Pending = &pending
	}
	if q.WithBalance {
		out.Balances = aisBalances(acct.Balances, acct.Available(), acct.Currency, today, f)
	}
	return out
}

// aisTxPage is the answer of GET /v1/accounts/{id}/transactions. Its
// fields, like those of the types it holds, are in the order of their
// names, as encoding/json wrote the maps it replaces.
type aisTxPage struct {
	Account      accountRefView     `json:"account"`
	Balances     []aisBalance       `json:"balances,omitempty"`
	Transactions txLists[aisTxView] `json:"transactions"`
}

// txLists are the booked and pending transactions of a page and its
// links; a list the query left out is nil.
type txLists[T any] struct {
	Links   map[string]link `json:"_links"`
	Booked  *[]T            `json:"booked,omitempty"`
	Pending *[]T            `json:"pending,omitempty"`
}

type aisDetailsView struct {
	TransactionID                     string          `json:"transactionId"`
	EndToEndID                        string          `json:"endToEndId,omitempty"`
	BookingDate                       *bank.Date      `json:"bookingDate,omitempty"`
	ValueDate                         bank.Date       `json:"valueDate"`
	TransactionAmount                 any             `json:"transactionAmount"`
	CreditorID                        string          `json:"creditorId,omitempty"`
	CreditorName                      string          `json:"creditorName,omitempty"`
	UltimateCreditor                  string          `json:"ultimateCreditor,omitempty"`
	CreditorAccount                   *accountRefView `json:"creditorAccount,omitempty"`
	CreditorAgent                     string          `json:"creditorAgent,omitempty"`
	DebtorName                        string          `json:"debtorName,omitempty"`
	UltimateDebtor                    string          `json:"ultimateDebtor,omitempty"`
	DebtorAccount                     *accountRefView `json:"debtorAccount,omitempty"`
	DebtorAgent                       string          `json:"debtorAgent,omitempty"`
	RemittanceInformationUnstructured string          `json:"remittanceInformationUnstructured,omitempty"`
	// RemittanceInformationUnstructuredArray, RemittanceInformationStructuredArray
	// and CurrencyExchange are Berlin Group's, in its shapes (remittance,
	// reportExchangeRate).
	RemittanceInformationUnstructuredArray []string                    `json:"remittanceInformationUnstructuredArray,omitempty"`
	RemittanceInformationStructuredArray   []bank.StructuredRemittance `json:"remittanceInformationStructuredArray,omitempty"`
	CurrencyExchange                       []bank.ExchangeRate         `json:"currencyExchange,omitempty"`
	PurposeCode                            string                      `json:"purposeCode,omitempty"`
	BankTransactionCode                    string                      `json:"bankTransactionCode,omitempty"`
	ProprietaryBankTransactionCode         string                      `json:"proprietaryBankTransactionCode,omitempty"`
	Links                                  map[string]link             `json:"_links,omitempty"`
}

func (h *psd2API) getAISTransaction(w http.ResponseWriter, r *http.Request) error {
	if r.Header.Get("x-accept-fix") == "" {
		return apierr.PathError(apierr.CodeHeaderRequired, "x-accept-fix", "x-accept-fix is required on transaction details; send the fixes you support, e.g. x-accept-fix: longer-names,cash-account-type-iso")
	}
	id, txID := r.PathValue("id"), r.PathValue("transactionId")
	_, t, a, err := h.bank.Transaction(aisRequest(r), id, txID)
	noteAccess(r, a)
	if err != nil {
		return err
	}
	f := h.bank.FixesFor(r.Header.Get("x-accept-fix"))
	v := aisDetailsView{
		TransactionID: t.ID, EndToEndID: t.EndToEndID, ValueDate: t.ValueDate, TransactionAmount: amount(t.Amount, t.Currency, f),
		CreditorID: t.CreditorID, CreditorName: f.Name(t.CreditorName), UltimateCreditor: t.UltimateCreditor,
		CreditorAccount: refOf(t.CreditorAccount), CreditorAgent: t.CreditorAgent,
		DebtorName: f.Name(t.DebtorName), UltimateDebtor: t.UltimateDebtor, DebtorAccount: refOf(t.DebtorAccount), DebtorAgent: t.DebtorAgent,
		RemittanceInformationUnstructured:      t.RemittanceInformationUnstructured,
		RemittanceInformationUnstructuredArray: t.RemittanceInformationUnstructuredArray,
		RemittanceInformationStructuredArray:   t.RemittanceInformationStructuredArray,
		CurrencyExchange:                       t.CurrencyExchange,
		PurposeCode:                            t.PurposeCode,
		BankTransactionCode:                    t.BankTransactionCode, ProprietaryBankTransactionCode: t.ProprietaryBankTransactionCode,
	}
	if !t.Pending {
		d := t.BookingDate
		v.BookingDate = &d
	}
	if a.Corporate() {
		v.Links = map[string]link{"transactionDetails": linkTo("/v1/accounts/"+id+"/transactions/"+t.ID, "GET")}
	}
	writeJSON(w, http.StatusOK, map[string]any{"transactionsDetails": v})
	return nil
}

type aisCardView struct {
	ResourceID  string          `json:"resourceId"`
	MaskedPan   string          `json:"maskedPan"`
	Currency    string          `json:"currency"`
	Name        string          `json:"name"`
	Product     string          `json:"product"`
	Status      string          `json:"status"`
	CreditLimit any             `json:"creditLimit"`
	Balances    []aisBalance    `json:"balances,omitempty"`
	Links       aisAccountLinks `json:"_links"`
}

func aisCardOf(c bank.CardAccount, withBalance bool, f bank.Fixes, today bank.Date) aisCardView {
	v := aisCardView{
		ResourceID: c.ID, MaskedPan: c.MaskedPan, Currency: c.Currency, Name: f.Name(c.Name), Product: c.Product, Status: c.Status,
		CreditLimit: amount(c.CreditLimit, c.Currency, f),
		Links:       accountLinks("/v1/card-accounts/" + c.ID),
	}
	if withBalance {
		v.Balances = aisCardBalances(c, today, f)
	}
	return v
}

func (h *psd2API) listAISCards(w http.ResponseWriter, r *http.Request) error {
	withBalance, err := queryBool(r, "withBalance")
	if err != nil {
		return err
	}
	list, a, err := h.bank.CardAccounts(aisRequest(r))
	noteAccess(r, a)
	if err != nil {
		return err
	}
	f, today := h.bank.FixesFor(r.Header.Get("x-accept-fix")), h.bank.Today()
	out := make([]aisCardView, 0, len(list))
	for _, c := range list {
		out = append(out, aisCardOf(c, withBalance, f, today))
	}
	writeJSON(w, http.StatusOK, struct {
		CardAccounts []aisCardView `json:"cardAccounts"`
	}{out})
	return nil
}

func (h *psd2API) getAISCard(w http.ResponseWriter, r *http.Request) error {
	withBalance, err := queryBool(r, "withBalance")
	if err != nil {
		return err
	}
	c, a, err := h.bank.CardAccount(aisRequest(r), r.PathValue("id"), "")
	noteAccess(r, a)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		CardAccount aisCardView `json:"cardAccount"`
	}{aisCardOf(c, withBalance, h.bank.FixesFor(r.Header.Get("x-accept-fix")), h.bank.Today())})
	return nil
}

func (h *psd2API) getAISCardBalances(w http.ResponseWriter, r *http.Request) error {
	c, a, err := h.bank.CardAccount(aisRequest(r), r.PathValue("id"), bank.UseBalances)
	noteAccess(r, a)
	if err != nil {
		return err
	}
	f := h.bank.FixesFor(r.Header.Get("x-accept-fix"))
	writeJSON(w, http.StatusOK, aisCardBalancesView{
		Balances:    aisCardBalances(c, h.bank.Today(), f),
		CardAccount: maskedPanView{c.MaskedPan},
	})
	return nil
}

// aisCardBalancesView is the answer of GET
// /v1/card-accounts/{id}/balances.
type aisCardBalancesView struct {
	Balances    []aisBalance  `json:"balances"`
	CardAccount maskedPanView `json:"cardAccount"`
}

// maskedPanView names a card account by its masked PAN.
type maskedPanView struct {
	MaskedPan string `json:"maskedPan"`
}

type aisCardTxView struct {
	CardTransactionID              string            `json:"cardTransactionId"`
	TerminalID                     string            `json:"terminalId,omitempty"`
	TransactionDate                bank.Date         `json:"transactionDate"`
	BookingDate                    *bank.Date        `json:"bookingDate,omitempty"`
	TransactionAmount              any               `json:"transactionAmount"`
	OriginalAmount                 any               `json:"originalAmount"`
	CurrencyExchange               []aisExchangeView `json:"currencyExchange,omitempty"`
	MarkupFee                      any               `json:"markupFee,omitempty"`
	MarkupFeePercentage            string            `json:"markupFeePercentage,omitempty"`
	CardAcceptorID                 string            `json:"cardAcceptorId,omitempty"`
	CardAcceptorAddress            bank.Address      `json:"cardAcceptorAddress"`
	MerchantCategoryCode           string            `json:"merchantCategoryCode"`
	MaskedPan                      string            `json:"maskedPan"`
	TransactionDetails             string            `json:"transactionDetails,omitempty"`
	Invoiced                       bool              `json:"invoiced"`
	ProprietaryBankTransactionCode string            `json:"proprietaryBankTransactionCode,omitempty"`
	Links                          map[string]string `json:"-"`
}

// aisCardTxOf writes a card transaction. The
// cardaccount-switch-originalamount-and-transactionamount fix puts the
// card account's currency in transactionAmount and the merchant's in
// originalAmount; before it, the two were the other way round.
func aisCardTxOf(t bank.CardTransaction, f bank.Fixes) aisCardTxView {
	txAmount, original := t.TransactionAmount, t.OriginalAmount
	if !f[bank.FixCardSwitch] {
		txAmount, original = original, txAmount
	}
	v := aisCardTxView{
		CardTransactionID: t.CardTransactionID, TerminalID: t.TerminalID, TransactionDate: t.TransactionDate,
		TransactionAmount: amount(txAmount.Amount, txAmount.Currency, f), OriginalAmount: amount(original.Amount, original.Currency, f),
		CardAcceptorID: t.CardAcceptorID, CardAcceptorAddress: t.CardAcceptorAddress, MerchantCategoryCode: t.MerchantCategoryCode,
		MaskedPan: t.MaskedPan, TransactionDetails: t.TransactionDetails, Invoiced: t.Invoiced,
		ProprietaryBankTransactionCode: t.ProprietaryBankTransactionCode,
	}
	if !t.Pending() {
		d := t.BookingDate
		v.BookingDate = &d
	}
	if x := t.CurrencyExchange; x != nil {
		v.CurrencyExchange = []aisExchangeView{{
			SourceCurrency: x.SourceCurrency, TargetCurrency: x.TargetCurrency, UnitCurrency: x.UnitCurrency,
			ExchangeRate: x.ExchangeRate, QuotationDate: x.QuotationDate,
		}}
		if x.MarkupFee != nil {
			v.MarkupFee = amount(x.MarkupFee.Amount, x.MarkupFee.Currency, f)
		}
		v.MarkupFeePercentage = x.MarkupFeePercentage
	}
	return v
}

func (h *psd2API) listAISCardTransactions(w http.ResponseWriter, r *http.Request) error {
	q, err := aisQuery(r)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	page, a, err := h.bank.CardTransactions(aisRequest(r), id, q)
	noteAccess(r, a)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, aisCardTxPageOf(id, page, q, h.bank.FixesFor(r.Header.Get("x-accept-fix")), h.bank.Today()))
	return nil
}

// aisCardTxPageOf writes a page of a card account's transactions.
func aisCardTxPageOf(id string, page bank.AISCardPage, q bank.AISQuery, f bank.Fixes, today bank.Date) aisCardTxPage {
	out := aisCardTxPage{
		CardAccount:      maskedPanView{page.Card.MaskedPan},
		CardTransactions: txLists[aisCardTxView]{Links: pageLinks("/v1/card-accounts/"+id+"/transactions", "/v1/card-accounts/"+id, q, page.From, page.Total)},
	}
	if q.Status != "pending" {
		booked := make([]aisCardTxView, 0, len(page.Booked))
		for _, t := range page.Booked {
			booked = append(booked, aisCardTxOf(t, f))
		}
		out.CardTransactions.Booked = &booked
	}
	if q.Status != "booked" {
		pending := make([]aisCardTxView, 0, len(page.Pending))
		for _, t := range page.Pending {
			pending = append(pending, aisCardTxOf(t, f))
		}
		out.CardTransactions.Pending = &pending
	}
	if q.WithBalance {
		out.Balances = aisCardBalances(page.Card, today, f)
	}
	return out
}

// aisCardTxPage is the answer of GET
// /v1/card-accounts/{id}/transactions, its fields in the order of their
// names, like aisTxPage.
type aisCardTxPage struct {
	Balances         []aisBalance           `json:"balances,omitempty"`
	CardAccount      maskedPanView          `json:"cardAccount"`
	CardTransactions txLists[aisCardTxView] `json:"cardTransactions"`
}

// aisExchangeView is the currency exchange of a card transaction, its
// fields in the order of their names.
type aisExchangeView struct {
	ExchangeRate   string    `json:"exchangeRate"`
	QuotationDate  bank.Date `json:"quotationDate"`
	SourceCurrency string    `json:"sourceCurrency"`
	TargetCurrency string    `json:"targetCurrency"`
	UnitCurrency   string    `json:"unitCurrency"`
}

// noteAccess records, for the request log, which PSU and grant a request
// used.
func noteAccess(r *http.Request, a bank.Access) {
	st := stateOf(r)
	st.access, st.grantID = a.String(), a.Grant.ID
}
