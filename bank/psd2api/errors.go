package psd2api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"sandbank/bank"
)

// statusOf maps an error code to its HTTP status: the one table of
// docs/SANDBOX-API.md 1.4. A code missing here maps to 500.
var statusOf = map[string]int{
	bank.CodeBadRequest:            http.StatusBadRequest,
	bank.CodeFormatError:           http.StatusBadRequest,
	bank.CodeHeaderRequired:        http.StatusBadRequest,
	bank.CodeQueryParamRequired:    http.StatusBadRequest,
	bank.CodePeriodInvalid:         http.StatusBadRequest,
	bank.CodeSignatureMissing:      http.StatusBadRequest,
	bank.CodeSignatureInvalid:      http.StatusBadRequest,
	bank.CodeCertificateInvalid:    http.StatusBadRequest,
	bank.CodeCertificateExpired:    http.StatusBadRequest,
	bank.CodeCorporateIDRequired:   http.StatusBadRequest,
	bank.CodeProductInvalid:        http.StatusBadRequest,
	bank.CodeKIDMissing:            http.StatusBadRequest,
	bank.CodeKIDInvalid:            http.StatusBadRequest,
	bank.CodeExecutionDateInvalid:  http.StatusBadRequest,
	bank.CodeReferenceMixInvalid:   http.StatusBadRequest,
	bank.CodePSUCredentialsInvalid: http.StatusUnauthorized,
	bank.CodeConsentInvalid:        http.StatusUnauthorized,
	bank.CodeConsentExpired:        http.StatusUnauthorized,
	bank.CodeSCAInvalid:            http.StatusUnauthorized,
	bank.CodeSCAExpired:            http.StatusUnauthorized,
	bank.CodePaymentFailed:         http.StatusUnauthorized,
	bank.CodeForbidden:             http.StatusForbidden,
	bank.CodeNotFound:              http.StatusNotFound,
	bank.CodeResourceUnknown:       http.StatusNotFound,
	bank.CodeProductUnknown:        http.StatusNotFound,
	bank.CodeSCANotFound:           http.StatusNotFound,
	bank.CodeConflict:              http.StatusConflict,
	bank.CodeAccessExceeded:        http.StatusTooManyRequests,
	bank.CodeSystemError:           http.StatusInternalServerError,
}

// StatusOf returns the HTTP status the API answers a bank error with: 503
// when the bank is busy (RetryAfter), 400 for findings about the
// request's fields (Invalid), whatever their codes, else its code's
// status.
func StatusOf(e *bank.Error) int {
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
	err    *bank.Error
	status int
}

func (e *statusError) Error() string { return e.err.Error() }

// Unwrap gives the bank error, so that bank.AsError finds it.
func (e *statusError) Unwrap() error { return e.err }

// withStatus returns e answered with status.
func withStatus(e *bank.Error, status int) error { return &statusError{e, status} }

// errorStatus returns the bank error in err and the status to answer it
// with; ok is false for an error that is not the bank's.
func errorStatus(err error) (e *bank.Error, status int, ok bool) {
	e, ok = bank.AsError(err)
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
func setRetryAfter(h http.Header, e *bank.Error) {
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
}
