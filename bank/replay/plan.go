package replay

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"sandbank/bank/reqlog"
)

// The plan: what the replay does with each entry, worked out before it
// sends anything, so that a HAR it cannot replay is refused whole, with
// the entry named, and nothing of it reaches the bank.

// action is what the replay does with an entry.
type action int

const (
	// actSend: a request to the bank, sent again, signed anew.
	actSend action = iota
	// actSCAPage: the SCA page, a page load or a form post; the PSU's
	// steps are done again through automated SCA.
	actSCAPage
	// actSCAReturn: the PSU's return to the TPP after SCA, on another
	// address, with psu-id (or code) in the query.
	actSCAReturn
	// actSkip: not the bank's: another address (the TPP's own pages), a
	// style sheet, a CORS preflight.
	actSkip
)

// planned is an entry and what the replay does with it.
type planned struct {
	entry  *Entry
	action action
	// why says why a skipped entry is skipped.
	why string
	// authID is the recorded authorisation of an SCA page.
	authID string
	// needsNationalID is set on an SCA return that no form post or
	// automated SCA before it completed: it takes --national-id.
	needsNationalID bool
}

// aliases are the path prefixes that answer like /v1.
var aliases = []string{"/api/v1/", "/api-sandbox/v1/"}

// canonicalPath writes an alias prefix as /v1.
func canonicalPath(p string) string {
	for _, a := range aliases {
		if rest, ok := strings.CutPrefix(p, a); ok {
			return "/v1/" + rest
		}
	}
	return p
}

// origin is the scheme and host of a URL: http://127.0.0.1:7380.
func origin(u *url.URL) string { return strings.ToLower(u.Scheme + "://" + u.Host) }

// bankOrigins are the addresses of the bank in a recording: those where
// a request went to a route the bank serves, or to its SCA page.
func bankOrigins(rec *Recording, rs routes) []string {
	var out []string
	for _, e := range rec.Entries {
		p := canonicalPath(e.URL.Path)
		if (strings.HasPrefix(p, "/sca/") || strings.HasPrefix(p, "/v1/") && rs.serves(e.Method, p)) && !slices.Contains(out, origin(e.URL)) {
			out = append(out, origin(e.URL))
		}
	}
	return out
}

// routes is the route table of the bank replayed to: each path template
// of its OpenAPI document (GET /v1/openapi.json) with its methods.
type routes []route

type route struct {
	segments []string // a {param} segment matches any one segment
	methods  []string
}

// parseRoutes reads the route table from an OpenAPI document.
func parseRoutes(doc []byte) (routes, error) {
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil || len(d.Paths) == 0 {
		return nil, fmt.Errorf("its /v1/openapi.json is not an OpenAPI document with paths")
	}
	var rs routes
	for p, ops := range d.Paths {
		r := route{segments: strings.Split(strings.Trim(p, "/"), "/")}
		for m := range ops {
			r.methods = append(r.methods, strings.ToUpper(m))
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// serves reports whether the bank answers method on path (an alias
// prefix is /v1).
func (rs routes) serves(method, p string) bool {
	segs := strings.Split(strings.Trim(canonicalPath(p), "/"), "/")
	for _, r := range rs {
		if len(r.segments) != len(segs) || !slices.Contains(r.methods, method) {
			continue
		}
		match := true
		for i, s := range r.segments {
			if strings.HasPrefix(s, "{") {
				match = match && segs[i] != ""
			} else {
				match = match && s == segs[i]
			}
		}
		if match {
			return true
		}
	}
	return false
}

// plan works out what to do with each entry and refuses what cannot be
// replayed: an entry to the bank without an answer, a request to a path
// the bank does not serve, a request whose recorded body was cut, an SCA
// the PSU completed where the HAR does not show how when there is no
// national id to complete it with.
func plan(rec *Recording, rs routes, nationalID string, recordedClock bool) ([]planned, error) {
	if len(rec.Entries) == 0 {
		return nil, &InputError{Text: "the HAR holds no entries: export it again with the requests to replay"}
	}
	banks := bankOrigins(rec, rs)
	if len(banks) == 0 {
		return nil, &InputError{Text: "no entry of the HAR is a request to a route of the bank's API (GET /v1/openapi.json lists them; also under /api/v1/ and /api-sandbox/v1/) or to its SCA page (/sca/): nothing to replay"}
	}
	out := make([]planned, 0, len(rec.Entries))
	// completed is set once an SCA page's form post named a national id
	// or an automated SCA was sent since the last return to the TPP.
	completed := false
	for _, e := range rec.Entries {
		pe := planned{entry: e}
		p := canonicalPath(e.URL.Path)
		switch {
		case !slices.Contains(banks, origin(e.URL)):
			pe.action, pe.why = actSkip, "another address than the bank's ("+origin(e.URL)+"): the TPP's own page or a resource"
			if q := e.URL.Query(); q.Get("psu-id") != "" || (q.Get("code") != "" && q.Get("system") != "") {
				pe.action, pe.why = actSCAReturn, ""
				pe.needsNationalID = !completed
				completed = false
			}
		case e.Method == "OPTIONS":
			pe.action, pe.why = actSkip, "a CORS preflight the browser sent before the request after it"
		case strings.HasPrefix(p, "/sca/static/"):
			pe.action, pe.why = actSkip, "the SCA page's style sheet"
		case strings.HasPrefix(p, "/sca/"):
			pe.action, pe.authID = actSCAPage, scaPageID(p)
			if e.Method == "POST" {
				if e.Status == 0 {
					return nil, noAnswer(e)
				}
				form, _ := url.ParseQuery(string(e.Body))
				completed = completed || form.Get("nationalId") != ""
			}
		default:
			if e.Status == 0 {
				return nil, noAnswer(e)
			}
			if !rs.serves(e.Method, p) {
				return nil, entryError(e, "Sandbank does not serve %s %s: no route of its API (GET /v1/openapi.json) matches it. Remove the entry from the HAR, or replay the entries before it", e.Method, p)
			}
			if e.BodyCut && len(e.Body) >= reqlog.MaxLoggedBody {
				return nil, entryError(e, "the recording holds only the first %d KiB of the request's body (_sandbank.bodiesCut), so it cannot be sent again as it was; record it again with a smaller body", reqlog.MaxLoggedBody>>10)
			}
			if e.Method == "POST" && strings.HasPrefix(p, "/v1/sandbox/sca/") {
				completed = true
			}
		}
		if recordedClock && pe.action != actSkip && e.Started.IsZero() {
			return nil, entryError(e, "has no startedDateTime the replay can read (RFC 3339), which --clock recorded needs; replay with the real clock instead")
		}
		out = append(out, pe)
	}
	for _, pe := range out {
		if pe.needsNationalID && nationalID == "" {
			return nil, entryError(pe.entry, "is the PSU's return to the TPP after SCA (%s), and the HAR holds neither the SCA page's form posts nor an automated SCA before it: give the national id the PSU typed (--national-id, e.g. 13039319955), and the replay approves the new authorisation with it through automated SCA", pe.entry.URL.RawQuery)
		}
	}
	return out, nil
}

func noAnswer(e *Entry) error {
	return entryError(e, "has no answer (response.status is 0 or missing: the request failed, was blocked, or never ran), and the replay compares every answer with the recorded one; record it again, or remove the entry from the HAR")
}
