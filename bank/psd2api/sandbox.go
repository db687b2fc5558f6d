package psd2api

import (
	"crypto"
	"crypto/x509"
	"net/http"
	"strconv"
	"strings"

	"sandbank/bank"
	"sandbank/bank/apierr"
	"sandbank/bank/pki"
	"sandbank/bank/scenario"
)

// Handlers of the sandbox data API (docs/SANDBOX-API.md).

func (h *sandboxAPI) initialize(w http.ResponseWriter, r *http.Request) error {
	n, err := scenario.Initialize(h.bank)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]int{"customers": n.Customers, "accounts": n.Accounts, "cardAccounts": n.CardAccounts})
	return nil
}

func (h *sandboxAPI) createCustomer(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[bank.NewCustomer](r)
	if err != nil {
		return err
	}
	c, err := h.bank.CreateCustomer(in)
	if err != nil {
		return err
	}
	d, err := h.bank.Customer(c.ID)
	if err != nil {
		return err
	}
	created(w, "/v1/sandbox/customers/"+d.ID, false)
	writeJSON(w, http.StatusCreated, customerOf(d))
	return nil
}

func (h *sandboxAPI) listCustomers(w http.ResponseWriter, r *http.Request) error {
	withAccounts, err := queryBool(r, "withAccounts")
	if err != nil {
		return err
	}
	withAgreements, err := queryBool(r, "withAgreements")
	if err != nil {
		return err
	}
	list, err := h.bank.Customers(withAccounts, withAgreements)
	if err != nil {
		return err
	}
	out := make([]customerView, len(list))
	for i, d := range list {
		out[i] = customerOf(d)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *sandboxAPI) getCustomer(w http.ResponseWriter, r *http.Request) error {
	d, err := h.bank.Customer(r.PathValue("customerId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, customerOf(d))
	return nil
}

func (h *sandboxAPI) deleteCustomer(w http.ResponseWriter, r *http.Request) error {
	if err := h.bank.DeleteCustomer(r.PathValue("customerId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *sandboxAPI) createAccount(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[bank.NewAccount](r)
	if err != nil {
		return err
	}
	d, err := h.bank.CreateAccount(in)
	if err != nil {
		return err
	}
	accepted(r, d.Warnings)
	created(w, "/v1/sandbox/accounts/"+d.ID, false)
	writeJSON(w, http.StatusCreated, accountOf(d))
	return nil
}

func (h *sandboxAPI) listAccounts(w http.ResponseWriter, r *http.Request) error {
	list, err := h.bank.Accounts()
	if err != nil {
		return err
	}
	out := make([]accountView, len(list))
	for i, d := range list {
		out[i] = accountOf(d)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getAccount answers an array of one account, as spec E15 says.
func (h *sandboxAPI) getAccount(w http.ResponseWriter, r *http.Request) error {
	d, err := h.bank.Account(r.PathValue("mockAccountId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, []accountView{accountOf(d)})
	return nil
}

func (h *sandboxAPI) deleteAccount(w http.ResponseWriter, r *http.Request) error {
	if err := h.bank.DeleteAccount(r.PathValue("mockAccountId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *sandboxAPI) setAccountBalances(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[[]bank.BalanceInput](r)
	if err != nil {
		return err
	}
	d, err := h.bank.SetAccountBalances(r.PathValue("mockAccountId"), in)
	if err != nil {
		return err
	}
	accepted(r, d.Warnings)
	writeJSON(w, http.StatusOK, accountOf(d))
	return nil
}

func (h *sandboxAPI) postTransactions(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[[]bank.NewTransaction](r)
	if err != nil {
		return err
	}
	id := r.PathValue("mockAccountId")
	posted, err := h.bank.AddTransactions(id, in)
	if err != nil {
		return err
	}
	accepted(r, posted.Warnings)
	out := make([]transactionView, len(posted.Transactions))
	for i, t := range posted.Transactions {
		out[i] = transactionOf(id, t)
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// txQuery reads fromDate, toDate, offset and limit.
func txQuery(r *http.Request) (bank.TxQuery, error) {
	var q bank.TxQuery
	var err error
	if q.From, err = queryDate(r, "fromDate"); err != nil {
		return q, err
	}
	if q.To, err = queryDate(r, "toDate"); err != nil {
		return q, err
	}
	if q.Offset, err = queryInt(r, "offset"); err != nil {
		return q, err
	}
	if q.Limit, err = queryInt(r, "limit"); err != nil {
		return q, err
	}
	if r.URL.Query().Get("limit") != "" && q.Limit == 0 {
		return q, errBadQuery("limit", "must be at least 1")
	}
	return q, nil
}

func (h *sandboxAPI) listTransactions(w http.ResponseWriter, r *http.Request) error {
	q, err := txQuery(r)
	if err != nil {
		return err
	}
	id := r.PathValue("mockAccountId")
	page, err := h.bank.Transactions(id, q)
	if err != nil {
		return err
	}
	out := make([]transactionView, len(page.Transactions))
	for i, t := range page.Transactions {
		out[i] = transactionOf(id, t)
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(page.Total))
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *sandboxAPI) getTransaction(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("mockAccountId")
	t, err := h.bank.Transaction(id, r.PathValue("mockTransactionId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, transactionOf(id, t))
	return nil
}

func (h *sandboxAPI) deleteTransactions(w http.ResponseWriter, r *http.Request) error {
	if err := h.bank.DeleteTransactions(r.PathValue("mockAccountId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *sandboxAPI) createCardAccount(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[bank.NewCardAccount](r)
	if err != nil {
		return err
	}
	d, err := h.bank.CreateCardAccount(in)
	if err != nil {
		return err
	}
	accepted(r, d.Warnings)
	created(w, "/v1/sandbox/card-accounts/"+d.ID, false)
	writeJSON(w, http.StatusCreated, cardWrap{cardAccountOf(d)})
	return nil
}

func (h *sandboxAPI) listCardAccounts(w http.ResponseWriter, r *http.Request) error {
	list, err := h.bank.CardAccounts()
	if err != nil {
		return err
	}
	out := make([]cardAccountView, len(list))
	for i, d := range list {
		out[i] = cardAccountOf(d)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *sandboxAPI) getCardAccount(w http.ResponseWriter, r *http.Request) error {
	d, err := h.bank.CardAccount(r.PathValue("mockCardAccountId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, cardWrap{cardAccountOf(d)})
	return nil
}

func (h *sandboxAPI) deleteCardAccount(w http.ResponseWriter, r *http.Request) error {
	if err := h.bank.DeleteCardAccount(r.PathValue("mockCardAccountId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *sandboxAPI) setCardBalances(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[[]bank.CardBalanceInput](r)
	if err != nil {
		return err
	}
	d, err := h.bank.SetCardBalances(r.PathValue("mockCardAccountId"), in)
	if err != nil {
		return err
	}
	accepted(r, d.Warnings)
	writeJSON(w, http.StatusOK, cardWrap{cardAccountOf(d)})
	return nil
}

type cardPostView struct {
	CardAccount struct {
		MaskedPan string `json:"maskedPan"`
	} `json:"cardAccount"`
	CardTransactions struct {
		Booked  []cardTransactionSummary `json:"booked"`
		Pending []string                 `json:"pending"`
	} `json:"cardTransactions"`
}

func (h *sandboxAPI) postCardTransactions(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[[]bank.NewCardTransaction](r)
	if err != nil {
		return err
	}
	res, err := h.bank.AddCardTransactions(r.PathValue("mockCardAccountId"), in)
	if err != nil {
		return err
	}
	accepted(r, res.Warnings)
	var out cardPostView
	out.CardAccount.MaskedPan = res.MaskedPan
	out.CardTransactions.Booked = make([]cardTransactionSummary, len(res.Booked))
	for i, t := range res.Booked {
		out.CardTransactions.Booked[i] = cardTransactionSummary{
			CardTransactionID: t.CardTransactionID, BookingDate: t.BookingDate, TransactionDate: t.TransactionDate,
			TransactionAmount: moneyOf(t.TransactionAmount), OriginalAmount: moneyOf(t.OriginalAmount),
			MerchantCategoryCode: t.MerchantCategoryCode,
		}
	}
	out.CardTransactions.Pending = res.Pending
	writeJSON(w, http.StatusCreated, out)
	return nil
}

type cardListView struct {
	CardAccount struct {
		MaskedPan string `json:"maskedPan"`
	} `json:"cardAccount"`
	CardTransactions struct {
		Booked  []cardTransactionView `json:"booked"`
		Pending []cardTransactionView `json:"pending"`
	} `json:"cardTransactions"`
}

func (h *sandboxAPI) listCardTransactions(w http.ResponseWriter, r *http.Request) error {
	q, err := txQuery(r)
	if err != nil {
		return err
	}
	status := strings.ToLower(r.URL.Query().Get("bookingStatus"))
	if status == "" {
		status = "both"
	}
	if status != "booked" && status != "pending" && status != "both" && status != "all" {
		return errBadQuery("bookingStatus", "must be booked, pending, both or all")
	}
	card, page, err := h.bank.CardTransactions(r.PathValue("mockCardAccountId"), q)
	if err != nil {
		return err
	}
	var out cardListView
	out.CardAccount.MaskedPan = card.MaskedPan
	out.CardTransactions.Booked = []cardTransactionView{}
	out.CardTransactions.Pending = []cardTransactionView{}
	if status != "pending" {
		for _, t := range page.Booked {
			out.CardTransactions.Booked = append(out.CardTransactions.Booked, cardTransactionOf(t))
		}
	}
	total := 0
	if status != "pending" {
		total = page.Total
	}
	if status != "booked" {
		for _, t := range page.Pending {
			out.CardTransactions.Pending = append(out.CardTransactions.Pending, cardTransactionOf(t))
		}
		total += len(page.Pending)
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(total))
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *sandboxAPI) deleteCardTransactions(w http.ResponseWriter, r *http.Request) error {
	if err := h.bank.DeleteCardTransactions(r.PathValue("mockCardAccountId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *sandboxAPI) createAgreement(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[bank.NewAgreement](r)
	if err != nil {
		return err
	}
	d, err := h.bank.CreateAgreement(in)
	if err != nil {
		return err
	}
	accepted(r, d.Warnings)
	created(w, "/v1/sandbox/agreements/"+d.ID, false)
	writeJSON(w, http.StatusCreated, agreementOf(d))
	return nil
}

func (h *sandboxAPI) listAgreements(w http.ResponseWriter, r *http.Request) error {
	list, err := h.bank.Agreements()
	if err != nil {
		return err
	}
	out := make([]agreementView, len(list))
	for i, d := range list {
		out[i] = agreementOf(d)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *sandboxAPI) getAgreement(w http.ResponseWriter, r *http.Request) error {
	d, err := h.bank.Agreement(r.PathValue("mockAgreementId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, agreementOf(d))
	return nil
}

func (h *sandboxAPI) deleteAgreement(w http.ResponseWriter, r *http.Request) error {
	if err := h.bank.DeleteAgreement(r.PathValue("mockAgreementId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *sandboxAPI) createEngagement(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[bank.NewEngagement](r)
	if err != nil {
		return err
	}
	d, err := h.bank.CreateEngagement(r.PathValue("mockAgreementId"), in)
	if err != nil {
		return err
	}
	accepted(r, d.Warnings)
	created(w, "/v1/sandbox/agreements/"+d.AgreementID+"/engagements/"+d.ID, false)
	writeJSON(w, http.StatusCreated, engagementOf(d))
	return nil
}

func (h *sandboxAPI) listEngagements(w http.ResponseWriter, r *http.Request) error {
	list, err := h.bank.Engagements(r.PathValue("mockAgreementId"))
	if err != nil {
		return err
	}
	out := make([]engagementView, len(list))
	for i, d := range list {
		out[i] = engagementOf(d)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *sandboxAPI) getEngagement(w http.ResponseWriter, r *http.Request) error {
	d, err := h.bank.Engagement(r.PathValue("mockAgreementId"), r.PathValue("mockEngagementId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, engagementOf(d))
	return nil
}

func (h *sandboxAPI) deleteEngagement(w http.ResponseWriter, r *http.Request) error {
	if err := h.bank.DeleteEngagement(r.PathValue("mockAgreementId"), r.PathValue("mockEngagementId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// callerTPP returns the TPP identity the signature check established.
func callerTPP(r *http.Request) string {
	if v := stateOf(r).verdict; v != nil {
		return v.TPPID
	}
	return ""
}

func writePEM(w http.ResponseWriter, pem []byte) {
	w.Header().Set("Content-Type", pemType)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(pem)
}

// bankCertificate serves the certificate of the response signing mode in
// force: RSA with rsa and off, ECDSA with ecdsa.
func (h *sandboxAPI) bankCertificate(w http.ResponseWriter, r *http.Request) error {
	signer, _ := h.signer()
	writePEM(w, pki.EncodeCert(signer.Cert))
	return nil
}

func (h *sandboxAPI) caCertificate(w http.ResponseWriter, r *http.Request) error {
	writePEM(w, pki.EncodeCert(h.authority.Cert))
	return nil
}

// certRequest asks the bank's test CA for a TPP certificate for a public
// key (PEM "PUBLIC KEY"); the private key never leaves the TPP.
type certRequest struct {
	Name               string   `json:"name"`
	OrganisationNumber string   `json:"organisationNumber"`
	Roles              []string `json:"roles"`
	PublicKey          string   `json:"publicKey"`
	ValidDays          int      `json:"validDays,omitempty"`
}

// issueCertificate answers POST /v1/sandbox/tpp-certificates. Every
// finding comes at once, each at its field: a missing roles list and an
// unreadable public key here, the rest from pki.CheckTPPIssue, the rule
// IssueTPP keeps.
// It never carries the operator's policy, whatever the request asks for.
func (h *sandboxAPI) issueCertificate(w http.ResponseWriter, r *http.Request) error {
	return h.certify(w, r, h.authority.IssueTPP)
}

// issueOperatorCertificate answers POST
// /v1/sandbox/operator-certificates, which only the operator may call:
// the same request and answer as a TPP certificate's, with a certificate
// that is the operator's too (pki.Authority.IssueOperator).
func (h *sandboxAPI) issueOperatorCertificate(w http.ResponseWriter, r *http.Request) error {
	return h.certify(w, r, h.authority.IssueOperator)
}

// certify checks a certificate request and answers with the certificate
// issue makes of it.
func (h *sandboxAPI) certify(w http.ResponseWriter, r *http.Request, issue func(pki.TPPRequest, crypto.PublicKey) (*x509.Certificate, error)) error {
	in, err := decode[certRequest](r)
	if err != nil {
		return err
	}
	var v apierr.Violations
	if in.Roles == nil {
		v.Format("roles", `is required: the PSD2 roles, e.g. ["PSP_AI", "PSP_PI"], or [] for none`)
	}
	req := pki.TPPRequestFor(in.Name, in.OrganisationNumber, in.Roles, in.ValidDays, h.now())
	var problems pki.Problems
	pub, err := pki.DecodePublicKey([]byte(in.PublicKey))
	if err != nil {
		v.Format("publicKey", "%v; send the PEM of an RSA public key", err)
		problems = pki.CheckTPPRequest(req)
	} else {
		problems = pki.CheckTPPIssue(req, pub)
	}
	for _, p := range problems {
		v.Format(p.Field, "%s", p.Text)
	}
	if err := v.Err(); err != nil {
		return err
	}
	cert, err := issue(req, pub)
	if err != nil {
		return err // CheckTPPIssue passed: an unexpected failure
	}
	writeJSON(w, http.StatusCreated, map[string]string{"certificate": string(pki.EncodeCert(cert)), "tppId": pki.TPPID(cert)})
	return nil
}

// exportScenario writes the scenario account by account
// (scenario.Write), the same bytes writeJSON writes for it. A
// failure halfway drops what was written for the error answer.
func (h *sandboxAPI) exportScenario(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", jsonType)
	w.WriteHeader(http.StatusOK)
	err := scenario.Write(h.bank, w, r.URL.Query().Get("note"), "")
	if rec, ok := w.(*recorder); ok && err != nil {
		rec.reset()
	}
	return err
}

// importScenario streams the scenario from the body, which the middleware
// spooled to a file, through the same loader as a scenario file; the
// body's oddities are notes of the request (the first refused in strict
// mode).
func (h *sandboxAPI) importScenario(w http.ResponseWriter, r *http.Request) error {
	st := stateOf(r)
	if st.spool == nil || st.size == 0 {
		return apierr.Errorf(apierr.CodeBadRequest, "this operation needs a JSON body")
	}
	n, err := scenario.Import(h.bank, st.spool)
	if err != nil {
		return err
	}
	accepted(r, n.Warnings)
	writeJSON(w, http.StatusOK, n)
	return nil
}

func healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
