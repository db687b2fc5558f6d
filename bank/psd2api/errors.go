package psd2api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"sandbank/bank/apierr"
)

// statusOf maps an error code to its HTTP status: the one table of
// docs/SANDBOX-API.md 1.4. A code missing here maps to 500.
var statusOf = map[string]int{
	apierr.CodeBadRequest:            http.StatusBadRequest,
	apierr.CodeFormatError:           http.StatusBadRequest,
	apierr.CodeHeaderRequired:        http.StatusBadRequest,
	apierr.CodeQueryParamRequired:    http.StatusBadRequest,
	apierr.CodePeriodInvalid:         http.StatusBadRequest,
	apierr.CodeSignatureMissing:      http.StatusBadRequest,
	apierr.CodeSignatureInvalid:      http.StatusBadRequest,
	apierr.CodeCertificateInvalid:    http.StatusBadRequest,
	apierr.CodeCertificateExpired:    http.StatusBadRequest,
	apierr.CodeCorporateIDRequired:   http.StatusBadRequest,
	apierr.CodeProductInvalid:        http.StatusBadRequest,
	apierr.CodeKIDMissing:            http.StatusBadRequest,
	apierr.CodeKIDInvalid:            http.StatusBadRequest,
	apierr.CodeExecutionDateInvalid:  http.StatusBadRequest,
	apierr.CodeReferenceMixInvalid:   http.StatusBadRequest,
	apierr.CodePSUCredentialsInvalid: http.StatusUnauthorized,
	apierr.CodeConsentInvalid:        http.StatusUnauthorized,
	apierr.CodeConsentExpired:        http.StatusUnauthorized,
	apierr.CodeSCAInvalid:            http.StatusUnauthorized,
	apierr.CodeSCAExpired:            http.StatusUnauthorized,
	apierr.CodePaymentFailed:         http.StatusUnauthorized,
	apierr.CodeForbidden:             http.StatusForbidden,
	apierr.CodeConsentUnknown:        http.StatusForbidden,
	apierr.CodeNotFound:              http.StatusNotFound,
	apierr.CodeResourceUnknown:       http.StatusNotFound,
	apierr.CodeProductUnknown:        http.StatusNotFound,
	apierr.CodeSCANotFound:           http.StatusNotFound,
	apierr.CodeConflict:              http.StatusConflict,
	apierr.CodeAccessExceeded:        http.StatusTooManyRequests,
	apierr.CodeSystemError:           http.StatusInternalServerError,
	apierr.CodeServiceInvalid:        http.StatusMethodNotAllowed,
}

// StatusOf returns the HTTP status the API answers a bank error with: 503
// when the bank is busy (RetryAfter), 400 for findings about the
// request's fields (Invalid), whatever their codes, else its code's
// status.
func StatusOf(e *apierr.Error) int {
	if e.RetryAfter > 0 {
		return http.StatusServiceUnavailable
	}
	if e.Invalid {
		return http.StatusBadRequest
	}
	if s, ok := statusOf[e.Code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// statusError is an error the API answers with a status its code does not
// have in the table: BAD_REQUEST as 405, 406, 413 and 415, SYSTEM_ERROR as
// 503 during a simulated outage.
type statusError struct {
	err    *apierr.Error
	status int
}

func (e *statusError) Error() string { return e.err.Error() }

// Unwrap gives the bank error, so that bank.AsError finds it.
func (e *statusError) Unwrap() error { return e.err }

// withStatus returns e answered with status.
func withStatus(e *apierr.Error, status int) error { return &statusError{e, status} }

// errorStatus returns the bank error in err and the status to answer it
// with; ok is false for an error that is not the bank's.
func errorStatus(err error) (e *apierr.Error, status int, ok bool) {
	e, ok = apierr.AsError(err)
	if !ok {
		return nil, http.StatusInternalServerError, false
	}
	var se *statusError
	if errors.As(err, &se) {
		return e, se.status, true
	}
	return e, StatusOf(e), true
}

// setRetryAfter tells the client when to send a request refused as busy
// again, in whole seconds (RFC 9110 section 10.2.3).
func setRetryAfter(h http.Header, e *apierr.Error) {
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
}
