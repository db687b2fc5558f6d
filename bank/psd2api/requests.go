package psd2api

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"sandbank/bank/apierr"
	"sandbank/bank/reqlog"
)

// Handlers of the request log under /v1/sandbox/requests: what the bank
// saw of each request and what it decided, for a bank without a window.
// The operator reads every request; a TPP reads only the requests made
// with its certificate (scoped, as its PSD2 reads are), and only the
// operator clears the log.
// The list and the HAR export leave out the requests to these operations
// themselves (reqlog.Filter.LeaveOutOwn); the log keeps them like any
// other, and GET /v1/sandbox/requests/{id} finds them.

// Page sizes of GET /v1/sandbox/requests.
const (
	defaultRequestsPage = 100
	maxRequestsPage     = 1000
)

// requestsAPI answers the request log's routes.
type requestsAPI struct {
	log *reqlog.Log
	// version is Sandbank's, the HAR export's creator version.
	version string
}

// requestFilter reads the filter of the list and the HAR export: q,
// tppId, method, status and errorsOnly. It adds every bad value to v.
func requestFilter(r *http.Request, v *apierr.Violations) reqlog.Filter {
	q := r.URL.Query()
	f := reqlog.Filter{Text: q.Get("q"), TPPID: q.Get("tppId"), LeaveOutOwn: true}

	if m := q.Get("method"); m != "" {
		if strings.Trim(strings.ToUpper(m), "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" || len(m) > 16 {
			v.Format("method", "%q is not an HTTP method; give one such as GET, POST or DELETE", clipNote(m))
		}
		f.Method = m
	}
	if s := q.Get("status"); s != "" {
		n, ok := wholeNumber(s)
		if !ok || n < 100 || n > 599 {
			v.Format("status", "%q is not an HTTP status; give one from 100 to 599, e.g. 400", clipNote(s))
		}
		f.Status = n
	}
	switch s := q.Get("errorsOnly"); strings.ToLower(s) {
	case "", "false":
	case "true":
		f.ErrorsOnly = true
	default:
		v.Format("errorsOnly", "%q is not a boolean; give true or false", clipNote(s))
	}
	return f
}

// ownRequests narrows a TPP's filter to the requests made with its
// certificate; a tppId that names another TPP is refused. The operator's
// filter stays as it is.
func ownRequests(r *http.Request, f *reqlog.Filter) error {
	if fromOperator(r) {
		return nil
	}
	caller := callerTPP(r)
	if f.TPPID != "" && f.TPPID != caller {
		return apierr.PathError(apierr.CodeForbidden, "tppId", fmt.Sprintf("a TPP reads only its own requests: this certificate is TPP %s, not %s; leave tppId out, or ask the bank's operator", clipNote(caller), clipNote(f.TPPID)))
	}
	f.TPPID = caller
	return nil
}

// wholeNumber reads a number written in digits only, of at most six.
func wholeNumber(s string) (int, bool) {
	if s == "" || len(s) > 6 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// list answers GET /v1/sandbox/requests: a page of the kept requests that
// match the filter, newest first, with a next link to the older ones.
func (h *requestsAPI) list(w http.ResponseWriter, r *http.Request) error {
	var v apierr.Violations
	f := requestFilter(r, &v)
	limit := defaultRequestsPage
	if s := r.URL.Query().Get("limit"); s != "" {
		n, ok := wholeNumber(s)
		if !ok || n < 1 || n > maxRequestsPage {
			v.Format("limit", "%q is not a page size; give a whole number from 1 to %d", clipNote(s), maxRequestsPage)
		}
		limit = n
	}
	before := r.URL.Query().Get("before")
	if err := v.Err(); err != nil {
		return err
	}
	if err := ownRequests(r, &f); err != nil {
		return err
	}
	page, ok := h.log.Page(f, before, limit)
	if !ok {
		return apierr.PathError(apierr.CodeFormatError, "before", fmt.Sprintf("%q is not the id of a request in the log: it was cleared, or dropped as newer requests came; list again without before", clipNote(before)))
	}
	list := make([]reqlog.Summary, len(page.Entries))
	for i, e := range page.Entries {
		list[i] = e.Summary()
	}
	links := map[string]link{}
	if page.More {
		q := r.URL.Query()
		q.Set("before", page.Entries[len(page.Entries)-1].ID)
		q.Set("limit", strconv.Itoa(limit))
		links["next"] = linkTo(reqlog.APIPath+"?"+q.Encode(), http.MethodGet)
	}
	writeJSON(w, http.StatusOK, map[string]any{"requests": list, "total": page.Total, "_links": links})
	return nil
}

// get answers GET /v1/sandbox/requests/{id}: everything the log keeps of
// one request.
func (h *requestsAPI) get(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	e, ok := h.log.Get(id)
	if ok && !fromOperator(r) && e.TPPID != callerTPP(r) {
		ok = false // another TPP's request is unknown, as its payments are
	}
	if !ok {
		return apierr.Errorf(apierr.CodeResourceUnknown, "no request with id %s is in the request log; it keeps only the most recent requests, none from before the bank started or the log was cleared. List the kept ones with GET %s", clipNote(id), reqlog.APIPath)
	}
	writeJSON(w, http.StatusOK, e.Detail())
	return nil
}

// har answers GET /v1/sandbox/requests.har: the kept requests that match
// the filter, oldest first, as a HAR 1.2 file.
func (h *requestsAPI) har(w http.ResponseWriter, r *http.Request) error {
	var v apierr.Violations
	f := requestFilter(r, &v)
	if err := v.Err(); err != nil {
		return err
	}
	if err := ownRequests(r, &f); err != nil {
		return err
	}
	entries := h.log.Select(f)
	w.Header().Set("Content-Type", jsonType)
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="sandbank-%s.har"`, time.Now().Format("20060102-150405")))
	w.WriteHeader(http.StatusOK)
	_ = reqlog.WriteHAR(w, entries, h.version) // the recorder buffers; writing cannot fail
	return nil
}

// clear answers DELETE /v1/sandbox/requests: the log forgets every
// request, and the Traffic screen with it.
func (h *requestsAPI) clear(w http.ResponseWriter, r *http.Request) error {
	h.log.Clear()
	w.WriteHeader(http.StatusNoContent)
	return nil
}
