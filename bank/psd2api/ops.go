package psd2api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

// Handlers of the operator's API under /v1/sandbox: the settings, the
// clock, faults, payments and forced statuses, baskets, batch runs,
// grants, SCA sessions and open authorisations: what the desktop window's
// Server, Payments and Consents & sessions screens do. They hold bank.Ops
// only, and every rule is the bank's.

// opsAPI answers the operator's routes.
type opsAPI struct {
	bank *bank.Ops
}

func (h *opsAPI) getClock(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, h.bank.Clock())
	return nil
}

func (h *opsAPI) putClock(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[bank.ClockChange](r)
	if err != nil {
		return err
	}
	c, err := h.bank.SetClock(in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

// runBatch answers POST /v1/sandbox/batch-runs: a batch run now, with the
// number of payments that ended in each status.
func (h *opsAPI) runBatch(w http.ResponseWriter, r *http.Request) error {
	run, err := h.bank.RunBatch()
	if err != nil {
		return err
	}
	errs := run.Errors
	if errs == nil {
		errs = []string{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"runId": run.ID, "time": run.Time, "counts": run.Counts, "errors": errs})
	return nil
}

func (h *opsAPI) getFaults(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, h.bank.Faults())
	return nil
}

func (h *opsAPI) putFaults(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[bank.Faults](r)
	if err != nil {
		return err
	}
	f, err := h.bank.SetFaults(in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, f)
	return nil
}

// getSettings answers GET /v1/sandbox/settings: the settings document.
func (h *opsAPI) getSettings(w http.ResponseWriter, r *http.Request) error {
	st, err := h.bank.Settings()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st.Doc())
	return nil
}

// putSettings answers PUT /v1/sandbox/settings: the document replaces the
// settings, and what it leaves out takes its default.
func (h *opsAPI) putSettings(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[bank.SettingsDoc](r)
	if err != nil {
		return err
	}
	st, odd, err := h.bank.PutSettings(in)
	if err != nil {
		return err
	}
	accepted(r, odd)
	writeJSON(w, http.StatusOK, st.Doc())
	return nil
}

// patchSettings answers PATCH /v1/sandbox/settings: a JSON merge patch
// (RFC 7396) over the settings document.
func (h *opsAPI) patchSettings(w http.ResponseWriter, r *http.Request) error {
	body := stateOf(r).body
	if len(body) == 0 {
		return apierr.Errorf(apierr.CodeBadRequest, "this operation needs a JSON merge patch, e.g. {\"batchMode\": \"immediate\"}")
	}
	st, odd, err := h.bank.PatchSettings(body)
	if err != nil {
		return err
	}
	accepted(r, odd)
	writeJSON(w, http.StatusOK, st.Doc())
	return nil
}

// page reads the offset and limit query parameters of a list; a limit
// given must be at least 1 (the bank bounds it above).
func page(r *http.Request) (offset, limit int, err error) {
	if offset, err = queryInt(r, "offset"); err != nil {
		return 0, 0, err
	}
	if limit, err = queryInt(r, "limit"); err != nil {
		return 0, 0, err
	}
	if r.URL.Query().Get("limit") != "" && limit == 0 {
		return 0, 0, errBadQuery("limit", "must be at least 1")
	}
	return offset, limit, nil
}

// listPayments answers GET /v1/sandbox/payments: every TPP's payments,
// newest first, filtered and paged, with X-Total-Count.
// A TPP's own reads of these lists (own.go) answer with the same
// shapes.
func (h *opsAPI) listPayments(w http.ResponseWriter, r *http.Request) error {
	f, err := paymentFilter(r)
	if err != nil {
		return err
	}
	list, err := h.bank.Payments(f)
	if err != nil {
		return err
	}
	writePaymentList(w, list)
	return nil
}

// paymentFilter reads the query of GET /v1/sandbox/payments.
func paymentFilter(r *http.Request) (bank.PaymentFilter, error) {
	q := r.URL.Query()
	f := bank.PaymentFilter{Status: q.Get("status"), TPPID: q.Get("tppId"), PSUID: q.Get("psuId"), Product: q.Get("product")}
	var err error
	if f.CreatedFrom, err = queryDate(r, "createdFrom"); err != nil {
		return f, err
	}
	if f.CreatedTo, err = queryDate(r, "createdTo"); err != nil {
		return f, err
	}
	f.Offset, f.Limit, err = page(r)
	return f, err
}

// writePaymentList answers with a page of payments and X-Total-Count.
func writePaymentList(w http.ResponseWriter, list bank.PaymentList) {
	out := make([]opsPaymentView, len(list.Payments))
	for i, p := range list.Payments {
		out[i] = opsPaymentOf(p, list.Parties)
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(list.Total))
	writeJSON(w, http.StatusOK, out)
}

// getOpsPayment answers GET /v1/sandbox/payments/{paymentId}.
func (h *opsAPI) getOpsPayment(w http.ResponseWriter, r *http.Request) error {
	d, err := h.bank.Payment(r.PathValue("paymentId"))
	if err != nil {
		return err
	}
	return writeOpsPayment(w, d)
}

// forceStatus answers POST /v1/sandbox/payments/{paymentId}/status: a
// status set by hand, recorded as forced in the history.
func (h *opsAPI) forceStatus(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[struct {
		Status string `json:"status"`
		Note   string `json:"note"`
	}](r)
	if err != nil {
		return err
	}
	d, err := h.bank.ForcePaymentStatus(r.PathValue("paymentId"), in.Status, in.Note)
	if err != nil {
		return err
	}
	return writeOpsPayment(w, d)
}

// listBaskets answers GET /v1/sandbox/baskets: every TPP's signing
// baskets, newest first.
func (h *opsAPI) listBaskets(w http.ResponseWriter, r *http.Request) error {
	baskets, err := h.bank.Baskets()
	if err != nil {
		return err
	}
	writeBaskets(w, baskets)
	return nil
}

// writeBaskets answers with a list of baskets.
func writeBaskets(w http.ResponseWriter, baskets []bank.BasketView) {
	out := make([]opsBasketView, len(baskets))
	for i, b := range baskets {
		out[i] = opsBasketView{BasketID: b.ID, TPPID: b.TPPID, Created: b.Created, TransactionStatus: b.Status,
			Payments: make([]basketPaymentView, len(b.Payments)), AuthorisationIDs: nonNil(b.Authorisations)}
		for j, p := range b.Payments {
			out[i].Payments[j] = basketPaymentView{PaymentID: p.ID, TransactionStatus: p.Status, InstructedAmount: totalOf(p)}
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// listBatchRuns answers GET /v1/sandbox/batch-runs: the kept batch run
// reports, newest first, paged, with X-Total-Count.
func (h *opsAPI) listBatchRuns(w http.ResponseWriter, r *http.Request) error {
	offset, limit, err := page(r)
	if err != nil {
		return err
	}
	runs, err := h.bank.BatchRuns(offset, limit)
	if err != nil {
		return err
	}
	out := make([]batchRunView, len(runs.Runs))
	for i, run := range runs.Runs {
		out[i] = batchRunOf(run)
		out[i].Outcomes = nil // the list is short; GET .../{runId} has them
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(runs.Total))
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getBatchRun answers GET /v1/sandbox/batch-runs/{runId}: one report, with
// what the run did to each payment.
func (h *opsAPI) getBatchRun(w http.ResponseWriter, r *http.Request) error {
	run, err := h.bank.BatchRun(r.PathValue("runId"))
	if err != nil {
		return err
	}
	v := batchRunOf(run)
	if v.Outcomes == nil {
		v.Outcomes = &[]bank.BatchOutcome{}
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// listGrants answers GET /v1/sandbox/grants: what each TPP may read.
func (h *opsAPI) listGrants(w http.ResponseWriter, r *http.Request) error {
	grants, err := h.bank.Grants(grantFilter(r))
	if err != nil {
		return err
	}
	writeGrants(w, grants)
	return nil
}

// grantFilter reads the query of GET /v1/sandbox/grants.
func grantFilter(r *http.Request) bank.GrantFilter {
	q := r.URL.Query()
	return bank.GrantFilter{TPPID: q.Get("tppId"), PSUID: q.Get("psuId")}
}

// writeGrants answers with a list of grants.
func writeGrants(w http.ResponseWriter, grants []bank.GrantInfo) {
	out := make([]grantView, len(grants))
	for i, g := range grants {
		out[i] = grantView{
			GrantID: g.ID, TPPID: g.TPPID, PSU: psuOf(g.Customer, g.PSUID), PSUCorporateID: g.CorporateID,
			Context: g.Context, ContextName: g.ContextName, ConsentID: g.ConsentID,
			Created: g.Created, Expires: g.Expires(), Expired: g.Expired, Accounts: make([]grantAccountView, len(g.Accounts)),
			Links: map[string]link{"self": linkTo("/v1/sandbox/grants/"+g.ID, "DELETE")},
		}
		for j, id := range g.Accounts {
			out[i].Accounts[j] = grantAccountView{ID: id, Name: g.AccountNames[j]}
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// deleteGrant answers DELETE /v1/sandbox/grants/{grantId}: the grant is
// revoked, as the PSU would revoke it in the bank.
func (h *opsAPI) deleteGrant(w http.ResponseWriter, r *http.Request) error {
	if err := h.bank.RevokeGrant(r.PathValue("grantId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// listSessions answers GET /v1/sandbox/sca-sessions.
func (h *opsAPI) listSessions(w http.ResponseWriter, r *http.Request) error {
	sessions, err := h.bank.Sessions()
	if err != nil {
		return err
	}
	out := make([]sessionView, len(sessions))
	for i, s := range sessions {
		out[i] = sessionView{TPPID: s.TPPID, PSU: psuOf(s.Customer, bank.PSUID(s.TPPID, s.CustomerID)), SessionID: s.SessionID, Expires: s.Expires, Valid: s.Valid}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// listAuthorisations answers GET /v1/sandbox/authorisations?status=open:
// the authorisations that wait for a PSU, oldest first.
func (h *opsAPI) listAuthorisations(w http.ResponseWriter, r *http.Request) error {
	if s := r.URL.Query().Get("status"); s != "" && s != "open" {
		return errBadQuery("status", "only open authorisations are listed: leave status out or send status=open")
	}
	auths, err := h.bank.OpenAuthorisations()
	if err != nil {
		return err
	}
	out := make([]authorisationView, len(auths))
	for i, a := range auths {
		out[i] = authorisationView{
			AuthorisationID: a.ID, TPPID: a.TPPID, Kind: a.Kind, SCAStatus: a.Status, Created: a.Created, Expires: a.Expires(), Expired: a.Expired,
			ConsentID: a.ConsentID, PaymentIDs: a.PaymentIDs, BasketID: a.BasketID,
		}
		if a.CustomerID != "" {
			p := psuOf(a.Customer, bank.PSUID(a.TPPID, a.CustomerID))
			out[i].PSU = &p
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// The operator's response shapes. Amounts are decimal strings, as in the
// PSD2 API.

// moneyText is an amount with its currency, the amount a string with the
// currency's minor digits.
type moneyText struct {
	Currency string `json:"currency"`
	Amount   string `json:"amount"`
}

// psuView names a PSU: their customerNumber and name, and the PSU-ID the
// TPP knows them by.
type psuView struct {
	CustomerNumber string `json:"customerNumber,omitempty"`
	Name           string `json:"name"`
	PSUID          string `json:"psuId,omitempty"`
}

func psuOf(c bank.Customer, psuID string) psuView {
	return psuView{CustomerNumber: c.Number, Name: c.Name, PSUID: psuID}
}

// opsPaymentView is a payment in the operator's list.
type opsPaymentView struct {
	PaymentID            string          `json:"paymentId"`
	TPPID                string          `json:"tppId"`
	PaymentService       string          `json:"paymentService"`
	PaymentProduct       string          `json:"paymentProduct"`
	TransactionStatus    string          `json:"transactionStatus"`
	FundsAvailable       *bool           `json:"fundsAvailable,omitempty"`
	Created              time.Time       `json:"created"`
	ExecutionDate        string          `json:"executionDate,omitempty"`
	PSU                  *psuView        `json:"psu,omitempty"`
	Context              string          `json:"context,omitempty"`
	DebtorAccount        bank.AccountRef `json:"debtorAccount"`
	DebtorAccountName    string          `json:"debtorAccountName,omitempty"`
	InstructedAmount     moneyText       `json:"instructedAmount"`
	NumberOfTransactions int             `json:"numberOfTransactions"`
	TransactionFees      *moneyText      `json:"transactionFees,omitempty"`
	BasketID             string          `json:"basketId,omitempty"`
	Links                map[string]link `json:"_links"`
}

// opsPaymentDetail is one payment: the list's fields and its items,
// approvals, status history and the request body the TPP sent.
type opsPaymentDetail struct {
	opsPaymentView
	Items            []paymentItemView   `json:"items"`
	Approvals        []approvalView      `json:"approvals"`
	AuthorisationIDs []string            `json:"authorisationIds"`
	RetryUntil       string              `json:"retryUntil,omitempty"`
	Warnings         []apierr.Message    `json:"warnings"`
	StatusHistory    []bank.StatusChange `json:"statusHistory"`
	Request          json.RawMessage     `json:"request"`
}

type paymentItemView struct {
	InstructedAmount moneyText       `json:"instructedAmount"`
	CreditorName     string          `json:"creditorName"`
	CreditorAccount  bank.AccountRef `json:"creditorAccount"`
	Remittance       string          `json:"remittanceInformationUnstructured,omitempty"`
	KID              string          `json:"kid,omitempty"`
	EndToEndID       string          `json:"endToEndId,omitempty"`
	Status           string          `json:"transactionStatus,omitempty"`
}

type approvalView struct {
	PSU  psuView   `json:"psu"`
	Time time.Time `json:"time"`
	// Full is false for a first approval that needed a second approver.
	Full bool `json:"full"`
}

func totalOf(p bank.Payment) moneyText {
	return moneyText{Currency: p.Currency(), Amount: bank.FormatAmount(p.Total(), p.Currency())}
}

// customerOrID is a customer of the parties, or one known by id only (a
// deleted customer).
func customerOrID(pt bank.Parties, id string) bank.Customer {
	if c, ok := pt.Customers[id]; ok {
		return c
	}
	return bank.Customer{ID: id, Name: "(deleted customer " + id + ")"}
}

func opsPaymentOf(p bank.Payment, pt bank.Parties) opsPaymentView {
	v := opsPaymentView{
		PaymentID: p.ID, TPPID: p.TPPID, PaymentService: p.Service, PaymentProduct: p.Product, TransactionStatus: p.Status,
		FundsAvailable: p.FundsAvailable, Created: p.Created, ExecutionDate: p.ExecutionDate.String(), Context: p.Context,
		DebtorAccount: p.DebtorAccount, InstructedAmount: totalOf(p), NumberOfTransactions: len(p.Items), BasketID: p.BasketID,
		Links: map[string]link{"self": linkTo("/v1/sandbox/payments/"+p.ID, "GET"), "status": linkTo("/v1/sandbox/payments/"+p.ID+"/status", "POST")},
	}
	if p.CustomerID != "" {
		psu := psuOf(customerOrID(pt, p.CustomerID), bank.PSUID(p.TPPID, p.CustomerID))
		v.PSU = &psu
	}
	if a, ok := pt.Accounts[p.DebtorAccountID]; ok {
		v.DebtorAccountName = a.Name
	}
	if p.Fee.IsPositive() {
		v.TransactionFees = &moneyText{Currency: "NOK", Amount: bank.FormatAmount(p.Fee, "NOK")}
	}
	return v
}

// writeOpsPayment answers with one payment: the list's fields, its items,
// approvals, status history and the request body the TPP sent.
func writeOpsPayment(w http.ResponseWriter, d bank.PaymentDetail) error {
	request, err := json.Marshal(d.Request)
	if err != nil {
		return err
	}
	x := opsPaymentDetail{
		Items: make([]paymentItemView, len(d.Items)), Approvals: make([]approvalView, len(d.Approvals)),
		AuthorisationIDs: nonNil(d.Authorisations), RetryUntil: d.RetryUntil.String(),
		Warnings: nonNil(d.Warnings), StatusHistory: nonNil(d.History), Request: request,
	}
	for i, it := range d.Items {
		x.Items[i] = paymentItemView{
			InstructedAmount: moneyText{Currency: it.Currency, Amount: bank.FormatAmount(it.Amount, it.Currency)},
			CreditorName:     it.CreditorName, CreditorAccount: it.CreditorAccount, Remittance: it.Remittance, KID: it.KID, EndToEndID: it.EndToEndID, Status: it.Status,
		}
	}
	for i, a := range d.Approvals {
		x.Approvals[i] = approvalView{PSU: psuOf(customerOrID(d.Parties, a.CustomerID), bank.PSUID(d.TPPID, a.CustomerID)), Time: a.Time, Full: a.Full}
	}
	x.opsPaymentView = opsPaymentOf(d.Payment, d.Parties)
	writeJSON(w, http.StatusOK, x)
	return nil
}

// nonNil returns an empty list for nil, so that JSON writes [].
func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

type basketPaymentView struct {
	PaymentID         string    `json:"paymentId"`
	TransactionStatus string    `json:"transactionStatus"`
	InstructedAmount  moneyText `json:"instructedAmount"`
}

type opsBasketView struct {
	BasketID          string              `json:"basketId"`
	TPPID             string              `json:"tppId"`
	Created           time.Time           `json:"created"`
	TransactionStatus string              `json:"transactionStatus"`
	Payments          []basketPaymentView `json:"payments"`
	AuthorisationIDs  []string            `json:"authorisationIds"`
}

type batchRunView struct {
	RunID      string               `json:"runId"`
	Time       time.Time            `json:"time"`
	Trigger    string               `json:"trigger"`
	DurationMs float64              `json:"durationMs"`
	Counts     map[string]int       `json:"counts"`
	Errors     []string             `json:"errors"`
	Outcomes   *[]bank.BatchOutcome `json:"outcomes,omitempty"`
}

func batchRunOf(r bank.BatchRun) batchRunView {
	v := batchRunView{RunID: r.ID, Time: r.Time, Trigger: r.Trigger, DurationMs: float64(r.Duration.Microseconds()) / 1000, Counts: r.Counts, Errors: nonNil(r.Errors)}
	if v.Counts == nil {
		v.Counts = map[string]int{}
	}
	if r.Outcomes != nil {
		v.Outcomes = &r.Outcomes
	}
	return v
}

type grantAccountView struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type grantView struct {
	GrantID        string             `json:"grantId"`
	TPPID          string             `json:"tppId"`
	PSU            psuView            `json:"psu"`
	PSUCorporateID string             `json:"psuCorporateId,omitempty"`
	Context        string             `json:"context"`
	ContextName    string             `json:"contextName"`
	Accounts       []grantAccountView `json:"accounts"`
	ConsentID      string             `json:"consentId,omitempty"`
	Created        time.Time          `json:"created"`
	Expires        time.Time          `json:"expires"`
	Expired        bool               `json:"expired"`
	Links          map[string]link    `json:"_links"`
}

type sessionView struct {
	TPPID     string    `json:"tppId"`
	PSU       psuView   `json:"psu"`
	SessionID string    `json:"tppSessionId"`
	Expires   time.Time `json:"expires"`
	Valid     bool      `json:"valid"`
}

// authorisationView is an open authorisation. Its SCA page's address is
// left out: only the TPP that started it gets that.
type authorisationView struct {
	AuthorisationID string    `json:"authorisationId"`
	TPPID           string    `json:"tppId"`
	Kind            string    `json:"kind"`
	SCAStatus       string    `json:"scaStatus"`
	Created         time.Time `json:"created"`
	Expires         time.Time `json:"expires"`
	Expired         bool      `json:"expired"`
	PSU             *psuView  `json:"psu,omitempty"`
	ConsentID       string    `json:"consentId,omitempty"`
	PaymentIDs      []string  `json:"paymentIds,omitempty"`
	BasketID        string    `json:"basketId,omitempty"`
}
