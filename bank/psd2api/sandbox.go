package psd2api

import (
	"net/http"
	"strconv"
	"strings"

	"sandbank/bank"
	"sandbank/bank/pki"
)

// Handlers of the sandbox data API (API.md 9).

func (s *server) initialize(w http.ResponseWriter, r *http.Request) error {
	n, err := s.Bank.Initialize()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]int{"customers": n.Customers, "accounts": n.Accounts, "cardAccounts": n.CardAccounts})
	return nil
}

func (s *server) createCustomer(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[bank.NewCustomer](r)
	if err != nil {
		return err
	}
	c, err := s.Bank.CreateCustomer(in)
	if err != nil {
		return err
	}
	d, err := s.Bank.Customer(c.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, customerOf(d))
	return nil
}

func (s *server) listCustomers(w http.ResponseWriter, r *http.Request) error {
	withAccounts, err := queryBool(r, "withAccounts")
	if err != nil {
		return err
	}
	withAgreements, err := queryBool(r, "withAgreements")
	if err != nil {
		return err
	}
	list, err := s.Bank.Customers(withAccounts, withAgreements)
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

func (s *server) getCustomer(w http.ResponseWriter, r *http.Request) error {
	d, err := s.Bank.Customer(r.PathValue("customerId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, customerOf(d))
	return nil
}

func (s *server) deleteCustomer(w http.ResponseWriter, r *http.Request) error {
	if err := s.Bank.DeleteCustomer(r.PathValue("customerId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *server) createAccount(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[bank.NewAccount](r)
	if err != nil {
		return err
	}
	d, err := s.Bank.CreateAccount(in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, accountOf(d))
	return nil
}

func (s *server) listAccounts(w http.ResponseWriter, r *http.Request) error {
	list, err := s.Bank.Accounts()
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
func (s *server) getAccount(w http.ResponseWriter, r *http.Request) error {
	d, err := s.Bank.Account(r.PathValue("mockAccountId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, []accountView{accountOf(d)})
	return nil
}

func (s *server) deleteAccount(w http.ResponseWriter, r *http.Request) error {
	if err := s.Bank.DeleteAccount(r.PathValue("mockAccountId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *server) setAccountBalances(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[[]bank.BalanceInput](r)
	if err != nil {
		return err
	}
	d, err := s.Bank.SetAccountBalances(r.PathValue("mockAccountId"), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, accountOf(d))
	return nil
}

func (s *server) postTransactions(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[[]bank.NewTransaction](r)
	if err != nil {
		return err
	}
	id := r.PathValue("mockAccountId")
	list, err := s.Bank.AddTransactions(id, in)
	if err != nil {
		return err
	}
	out := make([]transactionView, len(list))
	for i, t := range list {
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

func (s *server) listTransactions(w http.ResponseWriter, r *http.Request) error {
	q, err := txQuery(r)
	if err != nil {
		return err
	}
	id := r.PathValue("mockAccountId")
	page, err := s.Bank.Transactions(id, q)
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

func (s *server) getTransaction(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("mockAccountId")
	t, err := s.Bank.Transaction(id, r.PathValue("mockTransactionId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, transactionOf(id, t))
	return nil
}

func (s *server) deleteTransactions(w http.ResponseWriter, r *http.Request) error {
	if err := s.Bank.DeleteTransactions(r.PathValue("mockAccountId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *server) createCardAccount(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[bank.NewCardAccount](r)
	if err != nil {
		return err
	}
	d, err := s.Bank.CreateCardAccount(in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, cardWrap{cardAccountOf(d)})
	return nil
}

func (s *server) listCardAccounts(w http.ResponseWriter, r *http.Request) error {
	list, err := s.Bank.CardAccounts()
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

func (s *server) getCardAccount(w http.ResponseWriter, r *http.Request) error {
	d, err := s.Bank.CardAccount(r.PathValue("mockCardAccountId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, cardWrap{cardAccountOf(d)})
	return nil
}

func (s *server) deleteCardAccount(w http.ResponseWriter, r *http.Request) error {
	if err := s.Bank.DeleteCardAccount(r.PathValue("mockCardAccountId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *server) setCardBalances(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[[]bank.BalanceInput](r)
	if err != nil {
		return err
	}
	d, err := s.Bank.SetCardBalances(r.PathValue("mockCardAccountId"), in)
	if err != nil {
		return err
	}
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

func (s *server) postCardTransactions(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[[]bank.NewCardTransaction](r)
	if err != nil {
		return err
	}
	res, err := s.Bank.AddCardTransactions(r.PathValue("mockCardAccountId"), in)
	if err != nil {
		return err
	}
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

func (s *server) listCardTransactions(w http.ResponseWriter, r *http.Request) error {
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
	card, page, err := s.Bank.CardTransactions(r.PathValue("mockCardAccountId"), q)
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

func (s *server) deleteCardTransactions(w http.ResponseWriter, r *http.Request) error {
	if err := s.Bank.DeleteCardTransactions(r.PathValue("mockCardAccountId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *server) createAgreement(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[bank.NewAgreement](r)
	if err != nil {
		return err
	}
	d, err := s.Bank.CreateAgreement(in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, agreementOf(d))
	return nil
}

func (s *server) listAgreements(w http.ResponseWriter, r *http.Request) error {
	list, err := s.Bank.Agreements()
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

func (s *server) getAgreement(w http.ResponseWriter, r *http.Request) error {
	d, err := s.Bank.Agreement(r.PathValue("mockAgreementId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, agreementOf(d))
	return nil
}

func (s *server) deleteAgreement(w http.ResponseWriter, r *http.Request) error {
	if err := s.Bank.DeleteAgreement(r.PathValue("mockAgreementId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *server) createEngagement(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[bank.NewEngagement](r)
	if err != nil {
		return err
	}
	d, err := s.Bank.CreateEngagement(r.PathValue("mockAgreementId"), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, engagementOf(d))
	return nil
}

func (s *server) listEngagements(w http.ResponseWriter, r *http.Request) error {
	list, err := s.Bank.Engagements(r.PathValue("mockAgreementId"))
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

func (s *server) getEngagement(w http.ResponseWriter, r *http.Request) error {
	d, err := s.Bank.Engagement(r.PathValue("mockAgreementId"), r.PathValue("mockEngagementId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, engagementOf(d))
	return nil
}

func (s *server) deleteEngagement(w http.ResponseWriter, r *http.Request) error {
	if err := s.Bank.DeleteEngagement(r.PathValue("mockAgreementId"), r.PathValue("mockEngagementId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type contactBody struct {
	Email string `json:"email"`
}

func (s *server) putContact(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[contactBody](r)
	if err != nil {
		return err
	}
	c, err := s.Bank.SetTPPContact(callerTPP(r), r.PathValue("tppId"), in.Email)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, contactBody{c.Email})
	return nil
}

func (s *server) getContact(w http.ResponseWriter, r *http.Request) error {
	c, err := s.Bank.TPPContact(callerTPP(r), r.PathValue("tppId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, contactBody{c.Email})
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

func (s *server) bankCertificate(w http.ResponseWriter, r *http.Request) error {
	writePEM(w, pki.EncodeCert(s.BankSigner.Cert))
	return nil
}

func (s *server) caCertificate(w http.ResponseWriter, r *http.Request) error {
	writePEM(w, pki.EncodeCert(s.Authority.Cert))
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

func (s *server) issueCertificate(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[certRequest](r)
	if err != nil {
		return err
	}
	pub, err := pki.DecodePublicKey([]byte(in.PublicKey))
	if err != nil {
		return bank.PathError(bank.CodeFormatError, "publicKey", err.Error()+"; send the PEM of an RSA public key")
	}
	req := pki.TPPRequestFor(in.Name, in.OrganisationNumber, in.Roles, in.ValidDays, s.Now())
	cert, err := s.Authority.IssueTPP(req, pub)
	if err != nil {
		return bank.Errorf(bank.CodeFormatError, "%v", err)
	}
	writeJSON(w, http.StatusCreated, map[string]string{"certificate": string(pki.EncodeCert(cert)), "tppId": pki.TPPID(cert)})
	return nil
}

func (s *server) exportScenario(w http.ResponseWriter, r *http.Request) error {
	sc, err := s.Bank.ExportScenario(r.URL.Query().Get("note"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sc)
	return nil
}

func (s *server) importScenario(w http.ResponseWriter, r *http.Request) error {
	sc, err := decode[bank.Scenario](r)
	if err != nil {
		return err
	}
	n, err := s.Bank.ImportScenario(sc)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, n)
	return nil
}

func healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
