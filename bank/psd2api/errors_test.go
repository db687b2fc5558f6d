package psd2api

import (
	"net/http"
	"testing"

	"sandbank/bank/apierr"
)

// Every code the bank has is in the status table: a code added to the
// bank without a status would answer 500.
func TestStatusOf_EveryCode(t *testing.T) {
	for _, code := range apierr.Codes {
		if _, ok := statusOf[code]; !ok {
			t.Errorf("code %s has no HTTP status in statusOf", code)
		}
	}
	if len(statusOf) != len(apierr.Codes) {
		t.Errorf("statusOf has %d codes, the bank %d", len(statusOf), len(apierr.Codes))
	}
}

// Findings about a request's fields are a 400 whatever their codes; the
// same code alone has its own status; a status the table does not pair
// with a code is kept through the wrapping.
func TestStatusOf_FindingsAndPairings(t *testing.T) {
	var v apierr.Violations
	v.Add(apierr.CodeResourceUnknown, "customerNumber", "no customer has this number")
	findings, _ := apierr.AsError(v.Err())
	alone := apierr.PathError(apierr.CodeResourceUnknown, "paymentIds[0]", "no such payment")
	for _, c := range []struct {
		err  error
		want int
	}{
		{findings, http.StatusBadRequest},
		{alone, http.StatusNotFound},
		{apierr.Errorf(apierr.CodePaymentFailed, "rejected"), http.StatusUnauthorized},
		{withStatus(apierr.Errorf(apierr.CodeBadRequest, "XML"), http.StatusUnsupportedMediaType), http.StatusUnsupportedMediaType},
	} {
		e, status, ok := errorStatus(c.err)
		if !ok || status != c.want || e == nil {
			t.Errorf("%v: status %d (bank error %v), want %d", c.err, status, ok, c.want)
		}
	}
	if _, status, ok := errorStatus(http.ErrBodyNotAllowed); ok || status != http.StatusInternalServerError {
		t.Errorf("a Go error: %d, %v", status, ok)
	}
}
