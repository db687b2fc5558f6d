package psd2api

import "net/http"

// Handlers of a TPP's contact information (docs/SANDBOX-API.md).

// contactBody is the body of PUT and GET /v1/tpps/{tppId}/contact-information.
type contactBody struct {
	Email string `json:"email"`
}

func (h *psd2API) putContact(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[contactBody](r)
	if err != nil {
		return err
	}
	c, odd, err := h.bank.SetTPPContact(callerTPP(r), r.PathValue("tppId"), in.Email)
	if err != nil {
		return err
	}
	accepted(r, odd)
	writeJSON(w, http.StatusOK, contactBody{c.Email})
	return nil
}

func (h *psd2API) getContact(w http.ResponseWriter, r *http.Request) error {
	c, err := h.bank.TPPContact(callerTPP(r), r.PathValue("tppId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, contactBody{c.Email})
	return nil
}
