package reqlog

import (
	"strconv"
	"strings"
)

// APIPath is where the bank serves its request log: GET and DELETE
// APIPath, GET APIPath/{id} and GET APIPath.har.
const APIPath = "/v1/sandbox/requests"

// ForTheLog reports whether e is a request to the request log's own
// operations (APIPath and below), answered or refused.
func (e Entry) ForTheLog() bool {
	rest, ok := strings.CutPrefix(e.Path, APIPath)
	return ok && (rest == "" || strings.ContainsRune("/.?", rune(rest[0])))
}

// Filter chooses requests of the log: the Traffic screen's filter and the
// query of GET /v1/sandbox/requests. Its zero value matches every request.
type Filter struct {
	// Text is found, in any case, in the TPP id, method, path, status,
	// signature summary, error code, X-Request-ID, entry id, or the PSU
	// and grant of a request.
	Text string
	// TPPID is the TPP id of the signing certificate, exactly.
	TPPID string
	// Method is the HTTP method, in any case.
	Method string
	// Status is the answer's status; 0 is any.
	Status int
	// ErrorsOnly keeps the answers with a status of 400 or more.
	ErrorsOnly bool
	// LeaveOutOwn leaves out the requests to the request log's own
	// operations (ForTheLog), so that reading the log does not fill it
	// with the reads.
	LeaveOutOwn bool
}

// Match reports whether the filter keeps e.
func (f Filter) Match(e Entry) bool {
	switch {
	case f.ErrorsOnly && e.Status < 400,
		f.Status != 0 && e.Status != f.Status,
		f.TPPID != "" && e.TPPID != f.TPPID,
		f.Method != "" && !strings.EqualFold(e.Method, f.Method),
		f.LeaveOutOwn && e.ForTheLog():
		return false
	}
	q := strings.ToLower(strings.TrimSpace(f.Text))
	if q == "" {
		return true
	}
	text := strings.Join([]string{e.TPPID, e.Method, e.Path, strconv.Itoa(e.Status), e.SignatureSummary(), e.ErrorCode, e.RequestID, e.ID, e.Access}, " ")
	return strings.Contains(strings.ToLower(text), q)
}
