package psd2api

import (
	"encoding/json"
	"net/http"
	"strings"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

// Handlers of payments and signing baskets (docs/PAYMENTS.md).

// requireHeaders reports every missing header as HTTP_HEADER_REQUIRED.
func requireHeaders(r *http.Request, why string, names ...string) error {
	var v apierr.Violations
	for _, h := range names {
		if r.Header.Get(h) == "" {
			v.Add(apierr.CodeHeaderRequired, h, h+" is required "+why)
		}
	}
	return v.Err()
}

// scaRequest reads the redirect headers of a request that starts SCA.
func scaRequest(r *http.Request, kind string) bank.SCARequest {
	return bank.SCARequest{
		TPPID: callerTPP(r), TPPName: callerName(r), Kind: kind,
		RedirectURI: r.Header.Get("TPP-Redirect-URI"), SessionID: r.Header.Get("TPP-Session-ID"),
		RedirectPreferred: !strings.EqualFold(strings.TrimSpace(r.Header.Get("TPP-Redirect-Preferred")), "false"),
	}
}

func paymentPath(service, product, id string) string {
	return "/v1/" + service + "/" + product + "/" + id
}

type paymentCreated struct {
	PaymentID               string           `json:"paymentId"`
	TransactionStatus       string           `json:"transactionStatus"`
	TransactionFees         any              `json:"transactionFees,omitempty"`
	TransactionFeeIndicator *bool            `json:"transactionFeeIndicator,omitempty"`
	TPPMessages             []apierr.Message `json:"tppMessages,omitempty"`
	PSUMessage              string           `json:"psuMessage,omitempty"`
	Links                   map[string]link  `json:"_links"`
}

// createPayment answers POST /v1/{service}/{product}.
func (h *psd2API) createPayment(service string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		product := r.PathValue("product")
		if err := bank.CheckProduct(service, product); err != nil {
			return err
		}
		required := []string{"TPP-Redirect-URI", "TPP-Session-ID"}
		if product == bank.ProductNCBCT {
			required = append(required, "x-accept-fix", "PSU-Context", "PSU-IP-Address")
			if r.Header.Get("X-PSU-IDENTITY") == "" {
				required = append(required, "PSU-ID")
			}
		}
		if err := requireHeaders(r, "on this payment initiation", required...); err != nil {
			return err
		}
		allow, err := queryBool(r, "allowLogicalDuplicate")
		if err != nil {
			return err
		}
		body, err := decode[bank.PaymentRequest](r)
		if err != nil {
			return err
		}
		sca := scaRequest(r, bank.AuthPayment)
		if err := bank.CheckSCARequest(sca); err != nil {
			return err
		}
		made, err := h.bank.CreatePayment(bank.PaymentInit{
			TPPID: sca.TPPID, TPPName: sca.TPPName, Service: service, Product: product, Body: body,
			PSUID: r.Header.Get("PSU-ID"), CorporateID: r.Header.Get("PSU-Corporate-ID"), NationalID: r.Header.Get("X-PSU-IDENTITY"),
			PSUContext:  psuContext(r.Header.Get("PSU-Context")),
			RedirectURI: sca.RedirectURI, SessionID: sca.SessionID, RedirectPreferred: sca.RedirectPreferred, AllowDuplicate: allow,
		})
		if err != nil {
			return err
		}
		p, a := made.Payment, made.Authorisation
		self := paymentPath(service, product, p.ID)
		var messages apierr.Warnings
		messages.Add(warnings(r)...)
		messages.Add(p.Warnings...)
		out := paymentCreated{
			PaymentID: p.ID, TransactionStatus: p.Status, TPPMessages: messages.List(),
			Links: map[string]link{"self": linkTo(self, "GET", "DELETE"), "status": linkTo(self+"/status", "GET"), "scaStatus": linkTo(self+"/authorisations/"+a.ID, "GET")},
		}
		if a.Status == bank.ScaExempted {
			out.PSUMessage = "No SCA needed: a transfer between the PSU's own accounts is exempt."
		} else {
			out.Links["scaRedirect"] = linkTo(h.scaURL(r, a), "GET")
			out.PSUMessage = "Approve the payment with Sandbank's SCA."
		}
		if product == bank.ProductNCBCT {
			yes := true
			out.TransactionFeeIndicator = &yes
			out.TransactionFees = amount(p.Fee, "NOK", h.bank.FixesFor(r.Header.Get("x-accept-fix")))
		}
		noteAccepted(r, p.Warnings)
		created(w, self, true)
		writeJSON(w, http.StatusCreated, out)
		return nil
	}
}

// listPaymentAuthorisations answers GET .../{paymentId}/authorisations.
func (h *psd2API) listPaymentAuthorisations(service string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ids, err := h.bank.PaymentAuthorisations(callerTPP(r), service, r.PathValue("product"), r.PathValue("paymentId"))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, authorisationList{ids})
		return nil
	}
}

// paymentBody writes a payment as GET returns it: the request's fields,
// with amounts in the currency's minor digits, and its status.
func (h *psd2API) paymentBody(r *http.Request, p bank.Payment) (map[string]any, error) {
	raw, err := json.Marshal(p.Request)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	f := h.bank.FixesFor(r.Header.Get("x-accept-fix"))
	if p.Service == bank.ServiceBulk {
		items, _ := out["payments"].([]any)
		for i, item := range items {
			if m, ok := item.(map[string]any); ok && i < len(p.Items) {
				m["instructedAmount"] = amount(p.Items[i].Amount, p.Items[i].Currency, f)
				if p.Items[i].Status != "" {
					m["transactionStatus"] = p.Items[i].Status
				}
			}
		}
	} else if len(p.Items) == 1 {
		out["instructedAmount"] = amount(p.Items[0].Amount, p.Items[0].Currency, f)
	}
	out["paymentId"] = p.ID
	out["transactionStatus"] = p.Status
	out["requestedExecutionDate"] = p.ExecutionDate
	if p.Periodic() {
		delete(out, "requestedExecutionDate")
	}
	if p.Product == bank.ProductNCBCT {
		out["transactionFees"] = amount(p.Fee, "NOK", f)
		out["transactionFeeIndicator"] = true
	}
	self := paymentPath(p.Service, p.Product, p.ID)
	out["_links"] = map[string]link{"self": linkTo(self, "GET", "DELETE"), "status": linkTo(self+"/status", "GET")}
	if why := rejection(p); why != nil {
		out["tppMessages"] = why
	}
	return out, nil
}

// rejection says why a payment was rejected, as a tppMessage of the
// answers that read it; nil for a payment that was not.
func rejection(p bank.Payment) []apierr.Message {
	if p.Status != bank.StatusRJCT || len(p.History) == 0 {
		return nil
	}
	return []apierr.Message{{Category: "WARNING", Code: apierr.CodePaymentFailed, Path: "transactionStatus", Text: "rejected: " + p.History[len(p.History)-1].Reason}}
}

func (h *psd2API) getPayment(service string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := h.bank.Payment(callerTPP(r), service, r.PathValue("product"), r.PathValue("paymentId"))
		if err != nil {
			return err
		}
		body, err := h.paymentBody(r, p)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, body)
		return nil
	}
}

func (h *psd2API) getPaymentStatus(service string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := h.bank.Payment(callerTPP(r), service, r.PathValue("product"), r.PathValue("paymentId"))
		if err != nil {
			return err
		}
		funds := p.FundsAvailable == nil || *p.FundsAvailable
		out := map[string]any{"transactionStatus": p.Status, "fundsAvailable": funds}
		if why := rejection(p); why != nil {
			out["tppMessages"] = why
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	}
}

func (h *psd2API) cancelPayment(service string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := h.bank.CancelPayment(callerTPP(r), service, r.PathValue("product"), r.PathValue("paymentId")); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

type authorisationStarted struct {
	AuthorisationID string          `json:"authorisationId"`
	ScaStatus       string          `json:"scaStatus"`
	Links           map[string]link `json:"_links"`
}

func (h *psd2API) startPaymentAuthorisation(service string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := requireHeaders(r, "to start SCA", "TPP-Redirect-URI", "TPP-Session-ID"); err != nil {
			return err
		}
		product, id := r.PathValue("product"), r.PathValue("paymentId")
		a, err := h.bank.StartPaymentAuthorisation(scaRequest(r, bank.AuthPayment), service, product, id)
		if err != nil {
			return err
		}
		status := paymentPath(service, product, id) + "/authorisations/" + a.ID
		created(w, status, true)
		writeJSON(w, http.StatusCreated, authorisationStarted{AuthorisationID: a.ID, ScaStatus: a.Status, Links: map[string]link{
			"scaRedirect": linkTo(h.scaURL(r, a), "GET"), "scaStatus": linkTo(status, "GET"),
		}})
		return nil
	}
}

func (h *psd2API) getPaymentAuthorisation(service string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		a, err := h.bank.PaymentAuthorisation(callerTPP(r), service, r.PathValue("product"), r.PathValue("paymentId"), r.PathValue("authorisationId"))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]string{"scaStatus": a.Status})
		return nil
	}
}

func basketLinks(id string) map[string]link {
	self := "/v1/signing-baskets/" + id
	return map[string]link{"self": linkTo(self, "GET", "DELETE"), "status": linkTo(self+"/status", "GET"), "startAuthorisation": linkTo(self+"/authorisations", "POST")}
}

func (h *psd2API) createBasket(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[struct {
		PaymentIDs []string `json:"paymentIds"`
	}](r)
	if err != nil {
		return err
	}
	b, err := h.bank.CreateBasket(callerTPP(r), r.Header.Get("PSU-ID"), in.PaymentIDs)
	if err != nil {
		return err
	}
	created(w, "/v1/signing-baskets/"+b.ID, true)
	writeJSON(w, http.StatusCreated, map[string]any{"basketId": b.ID, "transactionStatus": b.Status, "_links": basketLinks(b.ID)})
	return nil
}

func (h *psd2API) getBasket(w http.ResponseWriter, r *http.Request) error {
	b, err := h.bank.Basket(callerTPP(r), r.PathValue("basketId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"basketId": b.ID, "payments": b.PaymentIDs, "transactionStatus": b.Status, "_links": basketLinks(b.ID)})
	return nil
}

func (h *psd2API) getBasketStatus(w http.ResponseWriter, r *http.Request) error {
	b, err := h.bank.Basket(callerTPP(r), r.PathValue("basketId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"transactionStatus": b.Status})
	return nil
}

func (h *psd2API) deleteBasket(w http.ResponseWriter, r *http.Request) error {
	if err := h.bank.DeleteBasket(callerTPP(r), r.PathValue("basketId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *psd2API) startBasketAuthorisation(w http.ResponseWriter, r *http.Request) error {
	if err := requireHeaders(r, "on a basket authorisation", "x-accept-fix", "TPP-Redirect-URI", "TPP-Session-ID", "PSU-ID", "PSU-IP-Address"); err != nil {
		return err
	}
	id := r.PathValue("basketId")
	a, err := h.bank.StartBasketAuthorisation(scaRequest(r, bank.AuthBasket), id)
	if err != nil {
		return err
	}
	status := "/v1/signing-baskets/" + id + "/authorisations/" + a.ID
	created(w, status, true)
	writeJSON(w, http.StatusCreated, authorisationStarted{AuthorisationID: a.ID, ScaStatus: a.Status, Links: map[string]link{
		"scaRedirect": linkTo(h.scaURL(r, a), "GET"), "scaStatus": linkTo(status, "GET"),
	}})
	return nil
}

// listBasketAuthorisations answers GET
// /v1/signing-baskets/{basketId}/authorisations: the basket's
// authorisations, oldest first.
func (h *psd2API) listBasketAuthorisations(w http.ResponseWriter, r *http.Request) error {
	b, err := h.bank.Basket(callerTPP(r), r.PathValue("basketId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, authorisationList{AuthorisationIDs: append([]string{}, b.Authorisations...)})
	return nil
}

func (h *psd2API) getBasketAuthorisation(w http.ResponseWriter, r *http.Request) error {
	a, err := h.bank.BasketAuthorisation(callerTPP(r), r.PathValue("basketId"), r.PathValue("authorisationId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"scaStatus": a.Status})
	return nil
}
