package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"sandbank/bank/httpsig"
)

// SCA. The recorded SCA page cannot be replayed: its address holds a
// secret the recording does not have (Sandbank's log redacts it; a
// browser's is another bank's), and its form tokens are bound to the
// browser that opened it. The replay completes each new authorisation
// through automated SCA (POST /v1/sandbox/sca/{authorisationId}) instead,
// with what the PSU posted on the recorded page (national id, context,
// accounts, decision) when the HAR holds the page's form posts, and with
// Options.NationalID otherwise: at the PSU's return to the TPP (another
// address, psu-id in its query), or before the first request that shows
// the recorded SCA finished (a PSU-ID it has not learned, an answer
// after the PSU approved).

// noteAuthorisation notes an SCA that a new answer started: its new
// authorisation id (from the scaRedirect link or authorisationId), the
// recorded one, the signer that owns it and what it authorises. An
// automated SCA the recording sent itself completes it.
func (r *run) noteAuthorisation(e *Entry, got answer, signer *httpsig.Signer) {
	p := canonicalPath(e.URL.Path)
	if e.Method == http.MethodPost && strings.HasPrefix(p, "/v1/sandbox/sca/") {
		if a := r.authByNew(r.ids.value(strings.TrimPrefix(p, "/v1/sandbox/sca/"))); a != nil && got.status == http.StatusOK {
			a.done = true
			var out struct {
				Redirect string `json:"redirect"`
			}
			if json.Unmarshal(got.body, &out) == nil {
				a.redirect = out.Redirect
			}
		}
		return
	}
	newJSON, ok := parseJSON(got.body)
	if !ok {
		return
	}
	newID := authorisationOf(newJSON)
	if newID == "" || r.authByNew(newID) != nil {
		return
	}
	a := &authorisation{newID: newID, signer: signer, sessionID: e.Get("TPP-Session-ID"), form: url.Values{}}
	if a.signer == nil {
		a.signer = r.signers.def
	}
	if recJSON, ok := parseJSON(e.ResponseBody); ok {
		a.recordedID = authorisationOf(recJSON)
		for _, key := range []string{"consentId", "paymentId", "basketId"} {
			if v := recJSON.get(key); v != nil && v.kind == kindString {
				a.resources = append(a.resources, v.text)
			}
		}
	}
	for _, seg := range strings.Split(e.URL.Path, "/") {
		if len(seg) >= minIDLength {
			a.resources = append(a.resources, seg)
		}
	}
	r.auths = append(r.auths, a)
}

// authorisationOf is the authorisation an answer starts: the id of its
// scaRedirect link's SCA page, else its authorisationId.
func authorisationOf(n *node) string {
	if sca := n.get("_links").get("scaRedirect"); sca != nil {
		href := sca
		if h := sca.get("href"); h != nil {
			href = h
		}
		if href.kind == kindString {
			if u, err := url.Parse(href.text); err == nil {
				if id := scaPageID(u.Path); id != "" {
					return id
				}
			}
		}
	}
	if a := n.get("authorisationId"); a != nil && a.kind == kindString {
		return a.text
	}
	return ""
}

func (r *run) authByNew(id string) *authorisation {
	for _, a := range r.auths {
		if a.newID == id {
			return a
		}
	}
	return nil
}

// open returns the latest authorisation not yet completed that matches,
// nil when none does.
func (r *run) open(match func(*authorisation) bool) *authorisation {
	for i := len(r.auths) - 1; i >= 0; i-- {
		if a := r.auths[i]; !a.done && match(a) {
			return a
		}
	}
	return nil
}

// scaPage handles an entry of the SCA page: a page load or a form post
// is gathered; the post the bank answered with a redirect to the TPP (the
// PSU's last step) completes the new authorisation through automated SCA
// with what the PSU posted, and its redirect is compared with the
// recorded one.
func (r *run) scaPage(ctx context.Context, pe planned, res Result) (Result, error) {
	e := pe.entry
	a := r.authByNew(r.ids.value(pe.authID))
	if a == nil {
		for _, x := range r.auths {
			if x.recordedID == pe.authID {
				a = x
			}
		}
	}
	if e.Method == http.MethodPost && a != nil {
		form, _ := url.ParseQuery(string(e.Body))
		for _, k := range []string{"nationalId", "context", "decision"} {
			if v := form.Get(k); v != "" {
				a.form.Set(k, v)
			}
		}
		if form.Has("accounts") {
			a.form["accounts"] = form["accounts"]
		}
	}
	if e.Method != http.MethodPost || e.Status != http.StatusSeeOther {
		res.Verdict, res.Note = VerdictSkipped, "a step of the SCA page; the replay completes the authorisation through automated SCA at the PSU's last step"
		return res, nil
	}
	if a == nil {
		res.Verdict = VerdictDiffers
		res.Differences = []Difference{{Path: "sca", Recorded: "the PSU finished the SCA page of authorisation " + pe.authID, New: absent,
			Note: "the recording does not show the answer that started this authorisation, so the replay has none to complete"}}
		return res, nil
	}
	if a.done {
		res.Verdict, res.Note = VerdictSkipped, "the replay completed this authorisation before"
		return res, nil
	}
	decision := a.form.Get("decision")
	if decision == "" {
		decision = "approve"
	}
	return r.complete(ctx, e, a, a.form.Get("nationalId"), decision, e.ResponseGet("Location"), res)
}

// scaReturn handles the PSU's return to the TPP: it completes the latest
// open authorisation of its TPP session with Options.NationalID when no
// form post did, and compares where the PSU was sent.
func (r *run) scaReturn(ctx context.Context, pe planned, res Result) (Result, error) {
	e := pe.entry
	q := e.URL.Query()
	session := q.Get("tpp-session-id")
	a := r.open(func(a *authorisation) bool { return session == "" || a.sessionID == session })
	if a == nil {
		a = r.open(func(*authorisation) bool { return true })
	}
	if a == nil {
		// Completed by the SCA page's posts already: compare where that
		// sent the PSU.
		for i := len(r.auths) - 1; i >= 0 && a == nil; i-- {
			if r.auths[i].redirect != "" {
				a = r.auths[i]
			}
		}
		if a == nil {
			res.Verdict = VerdictDiffers
			res.Differences = []Difference{{Path: "sca", Recorded: quote(e.URL.String()), New: absent, Note: "no authorisation of the replay sent the PSU back to the TPP"}}
			return res, nil
		}
		res.Note = "the PSU's return to the TPP, compared with where the replay's SCA sent the PSU"
		rec := answer{status: http.StatusOK, body: redirectBody(e.URL.String()), bodyKnown: true}
		got := answer{status: http.StatusOK, body: redirectBody(a.redirect), bodyKnown: true}
		r.judge(&res, r.comparer(e).compare(rec, got))
		res.RecordedStatus, res.NewStatus = 0, 0
		return res, nil
	}
	decision := "approve"
	if q.Get("psu-id") == "" {
		decision = "reject"
	}
	return r.complete(ctx, e, a, r.opts.NationalID, decision, e.URL.String(), res)
}

// unfinished returns the authorisation whose SCA the recording shows
// finished by the time of an entry without showing how: the entry
// carries a PSU-ID the replay has not learned (the latest open
// authorisation), or its recorded answer is one that follows an approval
// (the open authorisation of what the entry's path names). Nil when
// there is none.
func (r *run) unfinished(e *Entry) *authorisation {
	psu := e.Get("PSU-ID")
	if psu != "" && r.ids.toNew[psu] == "" && r.ids.toOld[psu] == "" {
		return r.open(func(*authorisation) bool { return true })
	}
	if !approvedIn(e.ResponseBody) {
		return nil
	}
	segs := strings.Split(e.URL.Path, "/")
	return r.open(func(a *authorisation) bool {
		return slices.ContainsFunc(a.resources, func(s string) bool { return slices.Contains(segs, s) })
	})
}

// completeFor completes an authorisation through automated SCA as the
// PSU of Options.NationalID before an entry is sent again, learns the
// PSU-ID the entry carries as the one the new redirect gives, and says
// so in a note.
func (r *run) completeFor(ctx context.Context, e *Entry, a *authorisation) (string, error) {
	done, err := r.complete(ctx, e, a, r.opts.NationalID, "approve", "", Result{})
	if err != nil {
		return "", err
	}
	note := fmt.Sprintf("the recording shows an SCA finished before this request without showing how; the replay completed authorisation %s through automated SCA as national id %s, then sent the request again", a.newID, r.opts.NationalID)
	if done.Verdict == VerdictDiffers && len(done.Differences) > 0 {
		note += "; the automated SCA answered " + done.Differences[0].New + " " + done.Differences[0].Note
	}
	if psu := e.Get("PSU-ID"); psu != "" && a.redirect != "" {
		if u, err := url.Parse(a.redirect); err == nil && u.Query().Get("psu-id") != "" {
			r.ids.learn(psu, u.Query().Get("psu-id"))
		}
	}
	return note, nil
}

// approvedStatuses are the statuses a recorded answer shows only after
// the PSU approved: a consent, an SCA, a payment.
var approvedStatuses = []string{"valid", "finalised", "ACTC", "ACCP", "ACSP", "ACSC", "ACWC", "ACWP", "PATC", "PDNG", "PART"}

// approvedIn reports whether a recorded answer shows an approval.
func approvedIn(body []byte) bool {
	n, ok := parseJSON(body)
	if !ok {
		return false
	}
	for _, key := range []string{"consentStatus", "scaStatus", "transactionStatus"} {
		if v := n.get(key); v != nil && v.kind == kindString && slices.ContainsFunc(approvedStatuses, func(s string) bool { return strings.EqualFold(s, v.text) }) {
			return true
		}
	}
	return false
}

// complete runs automated SCA on a new authorisation as the PSU with a
// national id and a decision, and compares where it sends the PSU with
// the recorded redirect (none: nothing to compare).
func (r *run) complete(ctx context.Context, e *Entry, a *authorisation, nationalID, decision, recordedRedirect string, res Result) (Result, error) {
	if err := r.followClock(ctx, e); err != nil {
		return res, err
	}
	in := map[string]any{"nationalId": nationalID, "decision": decision}
	if c := a.form.Get("context"); c != "" {
		in["context"] = r.ids.value(c)
	}
	if accounts, ok := a.form["accounts"]; ok {
		mapped := make([]string, len(accounts))
		for i, s := range accounts {
			mapped[i] = r.ids.value(s)
		}
		in["accounts"] = mapped
	}
	body, err := json.Marshal(in)
	if err != nil {
		return res, err
	}
	signer := a.signer
	if signer == nil {
		signer = r.signers.def
	}
	path := "/v1/sandbox/sca/" + a.newID
	got, requestID, err := r.setupID(ctx, signer, http.MethodPost, path, body)
	if err != nil {
		return res, fmt.Errorf("%s: %w; nothing after it was sent", e.Label(), err)
	}
	a.done = true
	var out struct {
		Redirect string `json:"redirect"`
	}
	if got.status == http.StatusOK && json.Unmarshal(got.body, &out) == nil {
		a.redirect = out.Redirect
	}
	res.Sent = fmt.Sprintf("POST %s %s (automated SCA as national id %s, %s)", path, string(body), nationalID, decision)
	res.RequestID = requestID
	res.New = &Message{Status: got.status, Header: got.header, Body: got.body}
	if recordedRedirect == "" {
		r.judge(&res, outcome{})
		if got.status != http.StatusOK {
			r.judge(&res, outcome{diffs: []Difference{{Path: "status", Recorded: "200", New: fmt.Sprint(got.status), Note: errorText(got.body)}}})
		}
		return res, nil
	}
	// The recorded page answered 303 to the TPP; automated SCA answers
	// 200 with the same redirect.
	rec := answer{status: http.StatusOK, body: redirectBody(recordedRedirect), bodyKnown: true}
	r.judge(&res, r.comparer(e).compare(rec, got))
	return res, nil
}

// redirectBody is automated SCA's answer for a redirect.
func redirectBody(u string) []byte {
	b, _ := json.Marshal(map[string]string{"redirect": u})
	return b
}
