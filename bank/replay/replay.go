// Package replay sends a recorded session (a HAR file) to a bank again
// and compares each new answer with the recorded one: Sandbank's own
// Traffic export replayed against a new version, a TPP's traffic with the
// bank's hosted sandbox replayed against Sandbank, a customer's case
// replayed on a fresh bank. It is a client of the bank's signed HTTP API,
// as a TPP is: each request is signed anew, the ids the answers hand out
// are followed, an SCA is completed through automated SCA, and the
// sandbox clock may follow the recording. sandbankd replay and the
// desktop app's Traffic screen both run it.
package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"sandbank/bank/httpsig"
)

// Target is the bank a replay sends to.
type Target struct {
	// Base is the bank's base URL: scheme and host (http://127.0.0.1:7380),
	// or a prefix the routes follow.
	Base string
	// Client sends the requests; it must not follow redirects (a 303 is
	// an answer to compare). Nil: a client of its own.
	Client *http.Client
	// Operator signs what only the operator may do (the clock, batch
	// runs, settings) and the recording's requests that an operator
	// certificate signed; nil when the replay is not the bank's
	// operator: those requests are signed as a TPP, and the recorded
	// clock cannot be followed.
	Operator *httpsig.Signer
}

// Options say how to replay.
type Options struct {
	// Signer signs every TPP's requests; nil: a new test certificate like
	// each recorded one, issued by the bank.
	Signer *httpsig.Signer
	// NationalID is the PSU's national id, to complete through automated
	// SCA an authorisation whose completion the HAR does not show (no
	// form posts of the SCA page).
	NationalID string
	// RecordedClock sets the sandbox clock to each request's recorded
	// time before it is sent, and back to where it was at the end.
	RecordedClock bool
	// Ignore are the ignore rules.
	Ignore []Rule
	// Progress, when set, is told after each entry how many of the total
	// are done; it must not block.
	Progress func(done, total int)
}

// ErrNoOperator is the refusal of a recorded clock without the operator.
var ErrNoOperator = errors.New("replaying with the recorded clock moves the sandbox clock, which only the bank's operator may do, and this replay has no operator certificate")

// maxAnswer bounds the body of a new answer the replay reads.
const maxAnswer = 256 << 20

// run is one replay.
type run struct {
	target  Target
	opts    Options
	rec     *Recording
	ids     *ids
	norm    normaliser
	signers *signers
	auths   []*authorisation
	report  *Report
}

// authorisation is an SCA the replay saw started.
type authorisation struct {
	recordedID, newID string
	signer            *httpsig.Signer
	sessionID         string
	// resources are the recorded ids of what it authorises, and of the
	// path of the request that started it.
	resources []string
	// form gathers what the PSU posted on the recorded SCA page.
	form url.Values
	done bool
	// redirect is where the replay's SCA sent the PSU.
	redirect string
}

// Run replays a recording against a bank. The report lists every entry;
// the error is what stopped the replay before its end: a HAR that cannot
// be replayed (an *InputError, before anything was sent), a bank that
// does not answer or refuses to issue certificates. A cancelled ctx
// stops the replay between two entries; the report says so
// (Report.Cancelled), and the bank keeps what the entries sent did.
func Run(ctx context.Context, rec *Recording, t Target, o Options) (*Report, error) {
	base, err := url.Parse(strings.TrimRight(t.Base, "/"))
	if err != nil || !base.IsAbs() || base.Host == "" {
		return nil, fmt.Errorf("the bank's base URL %q is not an absolute http or https URL", t.Base)
	}
	t.Base = base.String()
	if t.Client == nil {
		t.Client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if o.RecordedClock && t.Operator == nil {
		return nil, ErrNoOperator
	}
	r := &run{target: t, opts: o, rec: rec, ids: newIDs()}
	r.report = &Report{Bank: t.Base, RecordedWith: rec.Creator, Started: time.Now()}
	// A cancel while the replay prepares (its route table, its
	// certificates) ends it before the first entry: nothing was sent.
	cancelled := func(err error) (*Report, error) {
		if ctx.Err() != nil {
			r.report.Cancelled = true
			r.report.finish(0, 0)
			return r.report, nil
		}
		return nil, err
	}
	rs, err := r.routes(ctx)
	if err != nil {
		return cancelled(err)
	}
	r.norm.origins = append(bankOrigins(rec, rs), strings.ToLower(base.Scheme+"://"+base.Host))
	steps, err := plan(rec, rs, o.NationalID, o.RecordedClock)
	if err != nil {
		return nil, err
	}
	if err := r.prepareSigners(ctx, steps); err != nil {
		return cancelled(err)
	}
	var restore int64
	if o.RecordedClock {
		if restore, err = r.clockOffset(ctx); err != nil {
			return cancelled(err)
		}
	}
	err = r.replay(ctx, steps)
	if o.RecordedClock {
		rerr := r.setClock(context.WithoutCancel(ctx), map[string]any{"offsetSeconds": restore})
		r.report.ClockRestored = rerr == nil
		if rerr != nil && err == nil {
			err = fmt.Errorf("set the sandbox clock back to where it was: %w", rerr)
		}
	}
	r.report.finish(r.signers.issued, len(r.ids.toNew))
	return r.report, err
}

// replay goes through the plan, entry by entry.
func (r *run) replay(ctx context.Context, steps []planned) error {
	for i, pe := range steps {
		if ctx.Err() != nil {
			r.report.Cancelled = true
			return nil
		}
		// An entry, once begun, finishes: a cancel waits for its answer,
		// so the report says what the bank did with every entry sent.
		res, err := r.entry(context.WithoutCancel(ctx), pe)
		if err != nil {
			return err
		}
		r.report.Exchanges = append(r.report.Exchanges, res)
		if r.opts.Progress != nil {
			r.opts.Progress(i+1, len(steps))
		}
	}
	return nil
}

// entry replays one planned entry.
func (r *run) entry(ctx context.Context, pe planned) (Result, error) {
	e := pe.entry
	// The report names an SCA page without its secret, as the bank's
	// request log does, whatever the recording held.
	res := Result{Entry: e.Index, Method: e.Method, URL: scaSecret.ReplaceAllString(e.URL.String(), "$1<secret>"), RecordedStatus: e.Status,
		Recorded: &Message{Status: e.Status, Header: e.ResponseHeader, Body: e.ResponseBody}}
	switch pe.action {
	case actSkip:
		res.Verdict, res.Note = VerdictSkipped, pe.why
		return res, nil
	case actSCAPage:
		return r.scaPage(ctx, pe, res)
	case actSCAReturn:
		return r.scaReturn(ctx, pe, res)
	}
	a := r.unfinished(e)
	var saved *ids
	if a != nil {
		saved = r.ids.clone() // what a first answer teaches is forgotten when it is sent again
	}
	got, signer, err := r.send(ctx, e, &res)
	if err != nil {
		return res, err
	}
	// The recording shows an SCA finished that the replay has not
	// completed, and the answer differs: complete it, and send the entry
	// again when that is safe (a read, or a refusal, which changed
	// nothing).
	if a != nil && res.Verdict == VerdictDiffers && (e.Method == http.MethodGet || e.Method == http.MethodHead || got.status/100 == 4) {
		if r.opts.NationalID == "" {
			res.Notes = append(res.Notes, "the recording shows an SCA finished before this request without showing how (no SCA page form posts, no automated SCA): give --national-id, the PSU's national id, to have the replay complete it")
		} else {
			r.ids = saved
			note, err := r.completeFor(ctx, e, a)
			if err != nil {
				return res, err
			}
			res = Result{Entry: res.Entry, Method: res.Method, URL: res.URL, RecordedStatus: res.RecordedStatus, Recorded: res.Recorded, Notes: []string{note}}
			if got, signer, err = r.send(ctx, e, &res); err != nil {
				return res, err
			}
		}
	}
	r.noteAuthorisation(e, got, signer)
	return res, nil
}

// send sends an entry's request and compares the answer.
func (r *run) send(ctx context.Context, e *Entry, res *Result) (answer, *httpsig.Signer, error) {
	if err := r.followClock(ctx, e); err != nil {
		return answer{}, nil, err
	}
	req, signer, err := r.build(ctx, e)
	if err != nil {
		return answer{}, nil, err
	}
	res.RequestID = req.Header.Get("X-Request-ID")
	got, err := r.do(req)
	if err != nil {
		return answer{}, nil, fmt.Errorf("%s: the bank at %s did not answer: %w; nothing after it was sent", e.Label(), r.target.Base, err)
	}
	res.New = &Message{Status: got.status, Header: got.header, Body: got.body}
	rec := answer{status: e.Status, header: e.ResponseHeader, body: e.ResponseBody, bodyKnown: e.responseBodyKnown()}
	r.judge(res, r.comparer(e).compare(rec, got))
	return got, signer, nil
}

// comparer is a comparer for the answers of an entry, with the ignore
// rules for its request.
func (r *run) comparer(e *Entry) *comparer {
	c := &comparer{ids: r.ids, norm: r.norm}
	for _, rule := range r.opts.Ignore {
		if rule.forRequest(e.Method, e.URL.Path) {
			c.rules = append(c.rules, rule)
		}
	}
	return c
}

// judge puts what the comparison found into a result.
func (r *run) judge(res *Result, out outcome) {
	res.Differences, res.Ignored, res.Matched = out.diffs, out.ignored, out.matched
	res.Notes = append(res.Notes, out.notes...)
	if res.New != nil {
		res.NewStatus = res.New.Status
	}
	res.Verdict = VerdictMatch
	if len(out.diffs) > 0 {
		res.Verdict = VerdictDiffers
	}
}

// dropped are the recorded headers the replay does not send: those the
// transport writes, those it makes anew (Date, X-Request-ID, Digest and
// the signature when it signs), and the browser's cookies, which the
// recording holds redacted or from another session.
var dropped = []string{"host", "content-length", "connection", "keep-alive", "transfer-encoding", "upgrade", "te", "trailer",
	"proxy-connection", "proxy-authorization", "accept-encoding", "cookie"}

// signatureRefusals are the error codes of a recorded answer that
// refused the request's signature: such a request is sent as it was
// recorded, signature and all, for the bank to judge the same signature.
var signatureRefusals = []string{"SIGNATURE_INVALID", "CERTIFICATE_INVALID", "CERTIFICATE_EXPIRED"}

// build makes the request of an entry: the recorded method, path, query,
// headers and body, with the ids followed, to the bank replayed to; a new
// X-Request-ID and Date where the recording had them; signed anew over
// the headers the recorded signature covered.
func (r *run) build(ctx context.Context, e *Entry) (*http.Request, *httpsig.Signer, error) {
	asRecorded := e.Get("Signature") != "" && slices.Contains(signatureRefusals, errorCode(e.ResponseBody))
	body := e.Body
	if !asRecorded {
		body = r.ids.body(e.Body, e.Get("Content-Type"))
	}
	target := r.target.Base + r.ids.path(e.URL.EscapedPath())
	if q := e.URL.RawQuery; q != "" {
		target += "?" + r.ids.query(q)
	}
	req, err := http.NewRequestWithContext(ctx, e.Method, target, bytes.NewReader(body))
	if err != nil {
		return nil, nil, entryError(e, "cannot be sent: %v", err)
	}
	for _, f := range e.Header {
		name := strings.ToLower(f.Name)
		if slices.Contains(dropped, name) {
			continue
		}
		v := f.Value
		if !asRecorded {
			switch name {
			case "x-request-id":
				v = uuid.NewString()
				r.ids.learn(f.Value, v)
			case "date":
				v = time.Now().UTC().Format(http.TimeFormat)
			default:
				v = r.ids.value(v)
			}
		}
		req.Header.Add(f.Name, v)
	}
	if len(body) == 0 {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	if asRecorded || e.Get("Signature") == "" {
		if !asRecorded && e.Get("Digest") != "" {
			req.Header.Set("Digest", httpsig.DigestAs(e.Get("Digest"), body))
		}
		return req, nil, nil
	}
	signer := r.signers.forEntry(e)
	headers := []string{"(request-target)", "date", "digest", "x-request-id"}
	if p, err := httpsig.ParseSignature(e.Get("Signature")); err == nil && len(p.Headers) > 0 {
		headers = p.Headers
	}
	// A header the new request lacks is not signed: the recorded
	// signature listed it, but the recording does not hold it.
	headers = slices.DeleteFunc(slices.Clone(headers), func(h string) bool {
		switch h {
		case "(request-target)", "host":
			return false
		case "digest":
			return len(body) == 0 && req.Header.Get(h) == ""
		}
		return req.Header.Get(h) == ""
	})
	if err := signer.SignRequestOver(req, body, headers); err != nil {
		return nil, nil, entryError(e, "cannot be signed again: %v", err)
	}
	return req, signer, nil
}

// errorCode is an error answer's code: the code of Sandbank's error
// body, else the first tppMessage's.
func errorCode(body []byte) string {
	var e struct {
		Code string `json:"code"`
		TPP  []struct {
			Code string `json:"code"`
		} `json:"tppMessages"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	if e.Code == "" && len(e.TPP) > 0 {
		return e.TPP[0].Code
	}
	return e.Code
}

// do sends a request and reads the whole answer.
func (r *run) do(req *http.Request) (answer, error) {
	resp, err := r.target.Client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return answer{}, err
	}
	var header []Field
	for name, vs := range resp.Header {
		for _, v := range vs {
			header = append(header, Field{name, v})
		}
	}
	slices.SortStableFunc(header, func(a, b Field) int { return strings.Compare(a.Name, b.Name) })
	return answer{status: resp.StatusCode, header: header, body: data, bodyKnown: true}, nil
}

// setup sends a request of the replay's own (a certificate, the clock, an
// automated SCA), signed by signer, with a JSON body.
func (r *run) setup(ctx context.Context, signer *httpsig.Signer, method, path string, body []byte) (answer, error) {
	got, _, err := r.setupID(ctx, signer, method, path, body)
	return got, err
}

// setupID is setup, also returning the X-Request-ID it sent.
func (r *run) setupID(ctx context.Context, signer *httpsig.Signer, method, path string, body []byte) (answer, string, error) {
	req, err := http.NewRequestWithContext(ctx, method, r.target.Base+path, bytes.NewReader(body))
	if err != nil {
		return answer{}, "", err
	}
	if len(body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	if err := signer.SignRequest(req, body); err != nil {
		return answer{}, "", err
	}
	got, err := r.do(req)
	if err != nil {
		return answer{}, "", fmt.Errorf("the bank at %s did not answer %s %s: %w", r.target.Base, method, path, err)
	}
	return got, req.Header.Get("X-Request-ID"), nil
}

// routes reads the bank's route table from its OpenAPI document.
func (r *run) routes(ctx context.Context) (routes, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.target.Base+"/v1/openapi.json", nil)
	if err != nil {
		return nil, err
	}
	got, err := r.do(req)
	if err != nil {
		return nil, fmt.Errorf("no bank answers at %s (%w): start it, or give the address it serves", r.target.Base, err)
	}
	if got.status != http.StatusOK {
		return nil, fmt.Errorf("the bank at %s answered GET /v1/openapi.json with %d: is it a Sandbank?", r.target.Base, got.status)
	}
	rs, err := parseRoutes(got.body)
	if err != nil {
		return nil, fmt.Errorf("the bank at %s: %w", r.target.Base, err)
	}
	return rs, nil
}

// clockOffset reads the sandbox clock's offset, to set it back to.
func (r *run) clockOffset(ctx context.Context) (int64, error) {
	got, err := r.setup(ctx, r.target.Operator, http.MethodGet, "/v1/sandbox/clock", nil)
	if err != nil {
		return 0, err
	}
	var c struct {
		OffsetSeconds int64 `json:"offsetSeconds"`
	}
	if got.status != http.StatusOK || json.Unmarshal(got.body, &c) != nil {
		return 0, fmt.Errorf("the bank at %s answered GET /v1/sandbox/clock with %d %s", r.target.Base, got.status, errorText(got.body))
	}
	return c.OffsetSeconds, nil
}

// setClock puts the sandbox clock (PUT /v1/sandbox/clock) as the operator.
func (r *run) setClock(ctx context.Context, body map[string]any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	got, err := r.setup(ctx, r.target.Operator, http.MethodPut, "/v1/sandbox/clock", data)
	if err != nil {
		return err
	}
	if got.status != http.StatusOK {
		return fmt.Errorf("the bank at %s refused PUT /v1/sandbox/clock: %d %s", r.target.Base, got.status, errorText(got.body))
	}
	return nil
}

// followClock sets the sandbox clock to the entry's recorded time when
// the replay follows the recorded clock.
func (r *run) followClock(ctx context.Context, e *Entry) error {
	if !r.opts.RecordedClock {
		return nil
	}
	if err := r.setClock(ctx, map[string]any{"now": e.Started.Format(time.RFC3339Nano)}); err != nil {
		return fmt.Errorf("%s: %w", e.Label(), err)
	}
	return nil
}
