// Package psd2api is the bank's HTTP interface: the signed /v1 API the
// README and docs/ describe (also under /api/v1 and /api-sandbox/v1) and the unsigned
// health check. Every route is in routes.go; handlers decode, call one
// bank service and encode.
package psd2api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"sandbank/bank"
	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
	"sandbank/bank/reqlog"
)

// Request body limits. Every body is at most MaxBody, held in memory,
// except a scenario import: a scenario the bank exported must import
// back, and one with some thousands of transactions is larger than 1 MiB.
// A body a route allows more than MaxBody of is spooled to a temporary
// file instead (spool).
const (
	MaxBody         = 1 << 20
	MaxScenarioBody = 256 << 20
)

// Config holds what the server needs.
type Config struct {
	// Bank is the bank: the PSD2 routes get its PSD2 door only, the
	// sandbox routes its Sandbox door and the operator's routes its Ops.
	Bank     *bank.Bank
	Verifier *httpsig.Verifier
	// BankSigner returns the signer of the bank's responses in force,
	// and whether responses are signed: with the responseSigning setting
	// off it returns the RSA signer and false, and responses carry Date
	// and Digest but no Signature. GET /v1/sandbox/bank-certificate serves
	// the signer's certificate. It is called for every response. Nil:
	// responses carry neither Digest nor Signature.
	BankSigner func() (signer *httpsig.Signer, sign bool)
	// Authority is the local CA: its certificate is served, and it issues
	// TPP test certificates.
	Authority *pki.Authority
	Logger    *slog.Logger
	// Now is the real clock (Date headers, certificate validity).
	Now func() time.Time
	// Version is Sandbank's version, for GET /.
	Version string
	// RequestLog receives every finished request, and the sandbox API
	// serves it (GET /v1/sandbox/requests); nil gives the server a log of
	// its own, of the default size.
	RequestLog *reqlog.Log
	// PublicURL, when set, is the scheme, host and port TPPs and PSUs
	// reach the bank at, like https://bank.example:8443: scaRedirect links
	// point there, and every listener answers to its host name.
	PublicURL string
}

type server struct {
	Config
	mux *http.ServeMux
	// The handlers of each kind of route, each with its door of the bank;
	// psd2 also starts the fresh SCA of a 401's scaRedirect.
	psd2     *psd2API
	sandbox  *sandboxAPI
	ops      *opsAPI
	requests *requestsAPI
	// publicHost is the host name of PublicURL, lower case; empty when
	// there is none.
	publicHost string
	// requestIDs notes an X-Request-ID a TPP sends again.
	requestIDs requestIDs
	// openAPIDoc builds the document of GET /v1/openapi.json from the
	// routes on first use, not at start-up.
	openAPIDoc func() ([]byte, error)
}

// NewServer returns the bank's HTTP handler.
func NewServer(cfg Config) http.Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.RequestLog == nil {
		cfg.RequestLog = reqlog.NewLog(bank.DefaultRequestLogCount, bank.DefaultRequestLogBytes)
	}
	s := &server{Config: cfg, mux: http.NewServeMux()}
	if u, err := url.Parse(cfg.PublicURL); err == nil {
		s.publicHost = strings.ToLower(u.Hostname())
	}
	s.psd2 = &psd2API{bank: cfg.Bank.PSD2, fail: s.fail, publicURL: strings.TrimSuffix(cfg.PublicURL, "/")}
	s.sandbox = &sandboxAPI{bank: cfg.Bank.Sandbox, signer: cfg.BankSigner, authority: cfg.Authority, now: cfg.Now}
	s.ops = &opsAPI{bank: cfg.Bank.Ops}
	s.requests = &requestsAPI{log: cfg.RequestLog, version: cfg.Version}
	routes := s.routes()
	for _, rt := range routes {
		s.mux.Handle(rt.pattern, rt.handler)
	}
	s.openAPIDoc = sync.OnceValues(func() ([]byte, error) { return openAPIDocument(routes) })
	return s
}

// aliases are the path prefixes that answer like /v1.
var aliases = []string{"/api/v1/", "/api-sandbox/v1/"}

// ServeHTTP runs every request through the request log, response signing
// and panic recovery, then routes it.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &recorder{header: http.Header{}, status: http.StatusOK, body: bodies.Get().(*bytes.Buffer)}
	defer rec.release()
	st := &state{id: uuid.NewString(), url: absoluteURL(r)}
	r = r.WithContext(context.WithValue(r.Context(), stateKey{}, st))
	for _, a := range aliases {
		if rest, ok := strings.CutPrefix(r.URL.Path, a); ok {
			r2 := r.Clone(r.Context())
			r2.URL.Path = "/v1/" + rest
			r2.URL.RawPath = ""
			r = r2
			break
		}
	}
	func() {
		if err := checkHost(r, s.publicHost); err != nil {
			s.fail(rec, r, err)
			return
		}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				rec.reset()
				s.fail(rec, r, fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
			}
		}()
		if !s.fault(rec, r) {
			s.route(rec, r)
		}
	}()
	s.finish(w, r, rec, st, start)
}

// absoluteURL is the URL a request was sent to, as the client wrote it.
func absoluteURL(r *http.Request) string {
	uri := r.RequestURI
	switch {
	case uri == "":
		uri = r.URL.RequestURI()
	case !strings.HasPrefix(uri, "/"):
		return uri // the absolute form, or * of OPTIONS
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + uri
}

// checkHost refuses a request that reached a loopback listener under a
// Host that is neither a loopback name nor public, the host name of
// PublicURL. A web page that rebinds its own DNS name to 127.0.0.1 could
// otherwise use the bank from the tester's browser as if it were the
// page's own origin; browsers always send the page's name as Host. A
// listener on another address answers to every name.
func checkHost(r *http.Request, public string) error {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || r.Host == "" {
		return nil
	}
	if tcp, ok := local.(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		return nil
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || (public != "" && host == public) {
		return nil
	}
	if public != "" {
		return apierr.Errorf(apierr.CodeForbidden, "this bank listens on loopback only and answers only to a loopback Host (127.0.0.1, localhost or [::1]) or to %s (--public-url), not %q; to serve other names, listen on another address (--addr) or change --public-url", public, r.Host)
	}
	return apierr.Errorf(apierr.CodeForbidden, "this bank listens on loopback only and answers only to a loopback Host (127.0.0.1, localhost or [::1]), not %q; to serve other names, give the name TPPs use as --public-url, or listen on another address (--addr)", r.Host)
}

// fault applies the simulated faults of the settings to a /v1 request:
// added latency, then an outage (503) or a random 500. The faults
// endpoint itself is spared, so that faults can be turned off.
func (s *server) fault(w http.ResponseWriter, r *http.Request) bool {
	if !strings.HasPrefix(r.URL.Path, "/v1/") || r.URL.Path == "/v1/sandbox/faults" {
		return false
	}
	f := s.Bank.Ops.Faults()
	if f.LatencyMs > 0 {
		select {
		case <-time.After(time.Duration(f.LatencyMs) * time.Millisecond):
		case <-r.Context().Done():
		}
	}
	switch {
	case f.Outage:
		s.fail(w, r, withStatus(apierr.Errorf(apierr.CodeSystemError, "simulated outage (the faults setting): the bank answers 503 to everything; turn it off with PUT /v1/sandbox/faults {\"outage\": false} or on the Server screen"), http.StatusServiceUnavailable))
	case f.ErrorRate > 0 && rand.Float64() < f.ErrorRate:
		s.fail(w, r, apierr.Errorf(apierr.CodeSystemError, "simulated fault (the faults setting answers %.0f%% of requests with 500); retry, or turn it off with PUT /v1/sandbox/faults", f.ErrorRate*100))
	default:
		return false
	}
	return true
}

// route dispatches to the matching route, or answers 404/405 itself.
func (s *server) route(w http.ResponseWriter, r *http.Request) {
	h, pattern := s.mux.Handler(r)
	if pattern != "" {
		s.mux.ServeHTTP(w, r) // sets the path values
		return
	}
	probe := &recorder{header: http.Header{}, body: new(bytes.Buffer)}
	h.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		s.fail(w, r, withStatus(apierr.Errorf(apierr.CodeBadRequest, "%s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, probe.header.Get("Allow")), http.StatusMethodNotAllowed))
		return
	}
	s.fail(w, r, apierr.Errorf(apierr.CodeNotFound, "there is no route %s %s; paths start with /v1, and GET /v1/openapi.json lists every operation", r.Method, r.URL.Path))
}

// finish signs the recorded response, logs the request and writes the
// response. The request is in the log before its answer leaves, so that
// a client can look it up by the id of its answer at once.
func (s *server) finish(w http.ResponseWriter, r *http.Request, rec *recorder, st *state, start time.Time) {
	reqID := r.Header.Get("X-Request-ID")
	if reqID == "" {
		reqID = uuid.NewString()
	}
	if rec.header.Get("Content-Type") == "" && rec.size() > 0 {
		rec.header.Set("Content-Type", jsonType)
	}
	if r.Method == http.MethodHead {
		rec.dropBody() // the answer has no body; its Digest says so
	}
	digest, err := s.seal(rec, st)
	if err != nil {
		// The temporary file of a large body failed (recorder): the
		// bank's error answers instead.
		rec.reset()
		s.fail(rec, r, err)
		digest, _ = s.seal(rec, st) // in memory: it cannot fail
	}
	h := w.Header()
	for k, v := range rec.header {
		h[k] = v
	}
	h.Set("X-Request-ID", reqID)
	// Account data, consents and errors must not stay in a shared or
	// browser cache; only the SCA page's style sheet says otherwise.
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-store")
	}
	h.Set("X-Content-Type-Options", "nosniff")
	// An answer to a request with client notes says how many and where
	// they are, whether or not its body has room for them (an array, an
	// error body, a 204 has none); the signature covers it.
	if n := st.notes.Len(); n > 0 {
		h.Set(apierr.NotesHeader, notesValue(n, st.id))
	}
	s.sign(h, digest, reqID)
	if rec.status != http.StatusNoContent && rec.status != http.StatusNotModified {
		h.Set("Content-Length", strconv.FormatInt(rec.size(), 10))
	}
	e := logEntry(r, rec, st, start, reqID, h)
	s.log(e)
	s.RequestLog.Add(e)
	w.WriteHeader(rec.status)
	if r.Method != http.MethodHead {
		_ = rec.writeTo(w)
	}
}

// notesValue is the Sandbank-Notes header of an answer to a request with
// n client notes, whose request log id is id: the count, and the path of
// the request log entry that lists them, which the TPP that sent the
// request may read (GET /v1/sandbox/requests/{id}).
func notesValue(n int, id string) string {
	return strconv.Itoa(n) + "; " + reqlog.APIPath + "/" + id
}

// seal finishes the recorded body: the request's oddities become WARNING
// tppMessages of a JSON object answer that succeeded. It returns the
// body's Digest header value ("" when the bank signs nothing), and fails
// when the temporary file of a large body (recorder) could not be
// written or read.
func (s *server) seal(rec *recorder, st *state) (string, error) {
	if rec.err != nil {
		return "", rec.err
	}
	if st.notes.Len() > 0 && rec.status < 300 && rec.header.Get("Content-Type") == jsonType {
		if err := rec.withWarnings(st.notes.List()); err != nil {
			return "", err
		}
	}
	if s.BankSigner == nil {
		return "", nil
	}
	return rec.digest()
}

// sign adds the bank's Date, Digest (digest) and Signature to the
// response headers h, as the responseSigning setting says.
func (s *server) sign(h http.Header, digest, reqID string) {
	if s.BankSigner == nil {
		return
	}
	if signer, sign := s.BankSigner(); sign {
		if err := signer.SignResponseDigest(h, digest, s.Now()); err != nil {
			s.Logger.Error("sign response", "err", err, "request_id", reqID)
		}
		return
	}
	h.Set("Date", s.Now().UTC().Format(http.TimeFormat))
	h.Set("Digest", digest)
}

// logEntry is the request log's entry of a finished request, its
// answer's headers h, its secrets redacted.
func logEntry(r *http.Request, rec *recorder, st *state, start time.Time, reqID string, h http.Header) reqlog.Entry {
	e := reqlog.Entry{
		ID: st.id, Time: start, Method: r.Method, Path: r.URL.RequestURI(), Status: rec.status, Duration: time.Since(start),
		URL: st.url, Proto: r.Proto, RequestID: reqID, Verdict: st.verdict, ErrorCode: st.errCode, Access: st.access, GrantID: st.grantID,
		Notes: st.notes.List(), RequestHeader: r.Header.Clone(), ResponseHeader: h.Clone(),
		RequestBodySize: int64(len(st.body)), ResponseBodySize: int(rec.size()),
	}
	logged := st.body // a spooled body's first bytes, and its size
	switch {
	case st.spool != nil:
		e.RequestBodySize, logged = st.size, st.head
	case st.body == nil && r.ContentLength != 0: // not read: refused first
		e.RequestBodySize = r.ContentLength
	}
	if st.verdict != nil {
		e.TPPID = st.verdict.TPPID
	}
	e.RequestHeader.Set("Host", r.Host)
	var cut1, cut2 bool
	e.RequestBody, cut1 = capBody(logged)
	e.ResponseBody, cut2 = rec.logged()
	e.BodiesCut = cut1 || cut2 || (st.spool != nil && st.size > int64(len(logged)))
	redact(&e, st.secrets)
	return e
}

// capBody copies at most reqlog.MaxLoggedBody bytes of a body.
func capBody(b []byte) ([]byte, bool) {
	if len(b) > reqlog.MaxLoggedBody {
		return append([]byte(nil), b[:reqlog.MaxLoggedBody]...), true
	}
	return append([]byte(nil), b...), false
}

// log writes a request to the bank's log: one line at level info, and for
// a refused signature one more at level debug with the failed step and
// the signing string the bank rebuilt, for a bank without a window.
func (s *server) log(e reqlog.Entry) {
	if !s.Logger.Enabled(context.Background(), slog.LevelInfo) {
		return // below level info nothing is written: build no line
	}
	attrs := []any{"method", e.Method, "path", e.Path, "status", e.Status, "ms", float64(e.Duration.Microseconds()) / 1000, "request_id", e.RequestID, "id", e.ID}
	if e.TPPID != "" {
		attrs = append(attrs, "tpp", e.TPPID)
	}
	if e.ErrorCode != "" {
		attrs = append(attrs, "code", e.ErrorCode)
	}
	v := e.Verdict
	if v != nil && v.Err != nil {
		attrs = append(attrs, "signature", v.Err.Message)
	}
	s.Logger.Info("request", attrs...)
	if v == nil || v.Err == nil || len(v.Steps) == 0 {
		return
	}
	step := v.Steps[len(v.Steps)-1]
	debug := []any{"id", e.ID, "request_id", e.RequestID, "step", step.Check, "detail", step.Detail}
	if len(v.SignedHeaders) > 0 {
		debug = append(debug, "signed_headers", strings.Join(v.SignedHeaders, " "))
	}
	if v.SigningString != "" {
		debug = append(debug, "signing_string", v.SigningString)
	} else {
		debug = append(debug, "signing_string", "(not rebuilt: the check stopped before it)")
	}
	if v.Digest != "" {
		debug = append(debug, "digest", v.Digest)
	}
	s.Logger.Debug("signature refused", debug...)
}

// state is what the middleware learns about a request, for the log.
type state struct {
	// id names the request in the log and is its error body's id.
	id string
	// url is the absolute URL the client sent the request to.
	url  string
	body []byte
	// spool holds the body of a route that spools it (a scenario
	// import's) instead of body, while the handler runs; head is its
	// first bytes, for the log, and size its length.
	spool   *spoolFile
	head    []byte
	size    int64
	verdict *httpsig.Verdict
	errCode string
	access  string // the PSU and grant an account-information request used
	grantID string
	// notes are the oddities the bank accepted (docs/TPP-GUIDE.md 9): the request's
	// client notes and the warnings of the body, capped (bank.Warnings);
	// strict refuses them.
	notes  apierr.Warnings
	strict bool
	// operator is set when the request comes from the operator
	// (server.isOperator); a TPP's reads are scoped to it.
	operator bool
	// sca is the kind of SCA a 401 of the route starts (caller.sca).
	sca string
	// secrets are what the log entry must not hold (keepSecret).
	secrets []string
}

// note records oddities of a request. In strict mode it returns the
// refusal the request gets instead.
func note(r *http.Request, odd ...apierr.Message) error {
	st := stateOf(r)
	if st.strict {
		return apierr.Refusal(odd)
	}
	st.notes.Add(odd...)
	return nil
}

// noteAccepted adds the oddities a bank service accepted to the request's
// client notes; in strict mode the service refused them itself.
func noteAccepted(r *http.Request, msgs []apierr.Message) {
	st := stateOf(r)
	for _, m := range msgs {
		if m.Refuse != "" || m.Rest() > 0 {
			st.notes.Add(m)
		}
	}
}

// warnings are the request's oddities, for the tppMessages of an answer
// that has them: at most bank.MaxWarnings and a line for the rest.
func warnings(r *http.Request) []apierr.Message {
	return stateOf(r).notes.List()
}

type stateKey struct{}

func stateOf(r *http.Request) *state {
	if st, ok := r.Context().Value(stateKey{}).(*state); ok {
		return st
	}
	return &state{}
}

// caller is who may call a signed route (docs/SECURITY.md, "Two kinds of
// caller"): a TPP whose certificate names one of roles (none: any
// certificate the trust mode accepts), or only the operator. sca is the
// SCA a 401 of the route starts for its scaRedirect: a consent's on
// account information, the PSU's identification (as GET /v1/users) on
// payments and baskets, whose own SCA comes with their authorisation.
type caller struct {
	roles    []string
	operator bool
	sca      string
}

// The callers of the signed routes.
var (
	anyTPP       = caller{}
	aisTPP       = caller{roles: []string{pki.RoleAI}, sca: bank.AuthConsent}
	pisTPP       = caller{roles: []string{pki.RolePI}, sca: bank.AuthUsers}
	userTPP      = caller{roles: []string{pki.RoleAI, pki.RolePI}}
	operatorOnly = caller{operator: true}
)

// errNotOperator is the refusal of a TPP on an operator's route: what it
// needs, and how to become the operator.
func errNotOperator(r *http.Request) error {
	return apierr.Errorf(apierr.CodeForbidden, "%s %s concerns every TPP: only the bank's operator may call it, and this certificate is a TPP's. "+
		"Sign with an operator certificate of this bank's CA (sandbankd cert new --operator --data FILE, or the files of --operator-cert-out), "+
		"or use sandbankd on the data file or the desktop window; or run the bank with --operator-access any-tpp", r.Method, r.URL.Path)
}

// isOperator reports whether a request that passed verification comes
// from the operator: signed with an operator certificate of the bank's
// CA, or any caller while operatorAccess is any-tpp.
func (s *server) isOperator(v *httpsig.Verdict) bool {
	return v.Operator || s.Bank.Ops.AnyTPPIsOperator()
}

// fromOperator reports whether the request being handled comes from the
// operator (isOperator); a TPP's request is scoped to that TPP.
func fromOperator(r *http.Request) bool { return stateOf(r).operator }

// signed wraps a handler of the signed API: it requires X-Request-ID,
// checks content negotiation, verifies the signature and that the
// certificate may call the route (who), then reads the body (at most
// maxBody bytes) and checks its digest.
func (s *server) signed(who caller, produces string, maxBody int64, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Request-ID") == "" {
			s.fail(w, r, apierr.PathError(apierr.CodeHeaderRequired, "X-Request-ID", "the X-Request-ID header is required on every /v1 request; send any unique string, e.g. a UUID"))
			return
		}
		if !accepts(r.Header.Values("Accept"), produces) {
			s.fail(w, r, withStatus(apierr.Errorf(apierr.CodeBadRequest, "Accept %q excludes %s, the only type this operation answers with", strings.Join(r.Header.Values("Accept"), ", "), produces), http.StatusNotAcceptable))
			return
		}
		if r.ContentLength > maxBody { // refused before a byte of it is read
			s.fail(w, r, errTooLarge(maxBody))
			return
		}
		// The certificate and the signature over the headers are checked
		// before the body is read, so a request that fails them is answered
		// at once, whatever body it announces; the digest after it.
		st := stateOf(r)
		st.strict = s.Bank.Ops.Strict()
		v := s.Verifier.VerifyHeaders(r, r.ContentLength != 0)
		st.verdict = v
		if v.Err != nil {
			s.fail(w, r, v.Err)
			return
		}
		if err := s.mayCall(who, r, v); err != nil {
			s.fail(w, r, err)
			return
		}
		body, size, digest, release, err := readBody(r, maxBody)
		defer release()
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if size > 0 {
			if err := checkContentType(r.Header.Get("Content-Type"), body); err != nil {
				s.fail(w, r, err)
				return
			}
		}
		if digest != nil {
			s.Verifier.VerifyBodyDigest(v, r, digest)
		} else {
			s.Verifier.VerifyBody(v, r, body)
		}
		if v.Err != nil {
			s.fail(w, r, v.Err)
			return
		}
		if err := note(r, append(slices.Clone(v.Notes), s.clientNotes(r, v, body)...)...); err != nil {
			s.fail(w, r, err)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// spool reads a body of at most maxBody bytes (one more tells it is
// over) into a temporary file as it comes, and into digest for its
// Digest, rather than into memory: a scenario import's body may have
// 256 MiB. It returns the file, at its start, the body's first bytes (up
// to reqlog.MaxLoggedBody, for the log and the Content-Type check) and
// its size. An error of the file is a *spoolError; another is the
// client's.
func spool(body io.Reader, maxBody int64, digest *httpsig.BodyDigest) (f *spoolFile, head []byte, size int64, err error) {
	f, err = newSpoolFile("sandbank-body-*.json")
	if err != nil {
		return nil, nil, 0, err
	}
	var first headWriter
	size, err = io.Copy(io.MultiWriter(fileWriter{f.File}, digest, &first), io.LimitReader(body, maxBody+1))
	if err == nil {
		if _, err = f.Seek(0, io.SeekStart); err != nil {
			err = &spoolError{err}
		}
	}
	return f, first.b, size, err
}

// spoolFile is a body spooled to a temporary file: a request's
// (spool) or an answer's (recorder).
type spoolFile struct {
	*os.File
	removed bool // its name is gone already
}

// newSpoolFile creates a temporary file named after pattern. Its name is
// removed at once where the system lets an open file go (it stays until
// closed), so that a crash leaves nothing behind.
func newSpoolFile(pattern string) (*spoolFile, error) {
	file, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, &spoolError{err}
	}
	return &spoolFile{File: file, removed: os.Remove(file.Name()) == nil}, nil
}

// close closes the file and removes it, unless it was removed at once;
// nil is no file.
func (f *spoolFile) close() {
	if f == nil {
		return
	}
	_ = f.Close()
	if !f.removed {
		_ = os.Remove(f.Name())
	}
}

// spoolError is a failure of the file a body is spooled to: the bank's.
type spoolError struct{ err error }

func (e *spoolError) Error() string { return "spool the body to a temporary file: " + e.err.Error() }
func (e *spoolError) Unwrap() error { return e.err }

// fileWriter writes to a spool file, marking its errors as the bank's.
type fileWriter struct{ f *os.File }

func (w fileWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		err = &spoolError{err}
	}
	return n, err
}

// headWriter keeps the first reqlog.MaxLoggedBody bytes written to it.
type headWriter struct{ b []byte }

func (w *headWriter) Write(p []byte) (int, error) {
	if room := reqlog.MaxLoggedBody - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// mayCall refuses a request whose certificate may not call the route:
// it names none of the PSD2 roles who needs, or it is a TPP's where only
// the operator may call. It notes whether the request comes from the
// operator.
func (s *server) mayCall(who caller, r *http.Request, v *httpsig.Verdict) error {
	if roles := who.roles; len(roles) > 0 && !slices.ContainsFunc(roles, func(role string) bool { return slices.Contains(v.Roles, role) }) {
		return apierr.Errorf(apierr.CodeForbidden, "this operation needs the PSD2 role %s; the certificate has %s", strings.Join(roles, " or "), listOrNone(v.Roles))
	}
	st := stateOf(r)
	st.operator, st.sca = s.isOperator(v), who.sca
	if who.operator && !st.operator {
		return errNotOperator(r)
	}
	return nil
}

// errTooLarge is the refusal of a body over maxBody bytes.
func errTooLarge(maxBody int64) error {
	return withStatus(apierr.Errorf(apierr.CodeBadRequest, "the body is over %d MiB; send less at a time", maxBody>>20), http.StatusRequestEntityTooLarge)
}

// readBody reads the body of a signed request whose headers verified, at
// most maxBody bytes: held in memory, or, for a route that takes more
// than MaxBody (a scenario), spooled to a temporary file while its digest
// is computed (digest, for VerifyBodyDigest). It returns the body (of a
// spooled one, its first bytes) and its size, notes them in the request's
// state, and release, which drops the spool once the request is answered.
func readBody(r *http.Request, maxBody int64) (body []byte, size int64, digest *httpsig.BodyDigest, release func(), err error) {
	st := stateOf(r)
	release = func() {}
	if maxBody > MaxBody {
		digest = httpsig.NewBodyDigest(r.Header.Get("Digest"))
		var f *spoolFile
		f, body, size, err = spool(r.Body, maxBody, digest)
		release = f.close
		if err == nil && size <= maxBody {
			st.spool, st.head, st.size = f, body, size
		}
	} else {
		body, err = io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		size = int64(len(body))
		if err == nil && size <= maxBody {
			st.body = body
		}
	}
	var bankFault *spoolError
	switch {
	case errors.As(err, &bankFault):
		return nil, 0, nil, release, err
	case err != nil:
		return nil, 0, nil, release, apierr.Errorf(apierr.CodeBadRequest, "the request body could not be read")
	case size > maxBody:
		return nil, 0, nil, release, errTooLarge(maxBody)
	}
	return body, size, digest, release, nil
}

func listOrNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

const (
	jsonType = "application/json; charset=utf-8"
	pemType  = "application/x-pem-file"
)

// accepts reports whether an Accept header allows the media type
// produces (its parameters aside).
func accepts(values []string, produces string) bool {
	if len(values) == 0 {
		return true
	}
	want, _, _ := mime.ParseMediaType(produces)
	wantMain, _, _ := strings.Cut(want, "/")
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(item))
			if err != nil {
				continue
			}
			if q := params["q"]; q == "0" || q == "0.0" || q == "0.00" || q == "0.000" {
				continue
			}
			main, _, _ := strings.Cut(mt, "/")
			if mt == "*/*" || mt == want || (strings.HasSuffix(mt, "/*") && main == wantMain) {
				return true
			}
		}
	}
	return false
}

// checkContentType refuses bodies that are not JSON in UTF-8: XML types or
// an XML-looking body get 415, as does a charset other than UTF-8.
func checkContentType(ct string, body []byte) error {
	mt, params, _ := mime.ParseMediaType(ct)
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	switch {
	case strings.Contains(mt, "xml") || (len(trimmed) > 0 && trimmed[0] == '<'):
		return withStatus(apierr.Errorf(apierr.CodeBadRequest, "XML bodies are not supported; send JSON with Content-Type: application/json"), http.StatusUnsupportedMediaType)
	case params["charset"] != "" && !strings.EqualFold(params["charset"], "utf-8"):
		return withStatus(apierr.Errorf(apierr.CodeBadRequest, "charset %s is not supported; send JSON in UTF-8", params["charset"]), http.StatusUnsupportedMediaType)
	}
	return nil
}

// errorBody is the error body of docs/SANDBOX-API.md 1.4.
type errorBody struct {
	// ID is the request's id in the request log: GET
	// /v1/sandbox/requests/{id} shows what the bank saw and decided.
	ID          string           `json:"id"`
	System      string           `json:"system"`
	Status      int              `json:"status"`
	Code        string           `json:"code"`
	Message     string           `json:"message"`
	TPPMessages []apierr.Message `json:"tppMessages"`
	// Links is set on a 401 only: written even when empty.
	Links any `json:"_links,omitempty"`
}

// fail answers with the error body for err. An error that is not a
// *bank.Error is a fault of the bank: it is logged with its id and the
// client sees only SYSTEM_ERROR and that id.
func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	st := stateOf(r)
	id := st.id
	if id == "" {
		id = uuid.NewString()
	}
	e, status, ok := errorStatus(err)
	if !ok {
		s.Logger.Error("internal error", "error_id", id, "method", r.Method, "path", r.URL.Path, "err", err)
		e = apierr.Errorf(apierr.CodeSystemError, "the bank failed to handle this request; quote error id %s when you report it", id)
	}
	st.errCode = e.Code
	body := errorBody{ID: id, System: "sandbank", Status: status, Code: e.Code, Message: e.Message, TPPMessages: e.Messages}
	if v := st.verdict; v != nil && v.Err != nil && e == v.Err {
		what := "the bank's check step by step"
		if v.SigningString != "" {
			what += ", with the signing string it rebuilt"
		}
		body.Message += fmt.Sprintf(" (%s: GET %s/%s)", what, reqlog.APIPath, id)
	}
	if body.TPPMessages == nil {
		body.TPPMessages = []apierr.Message{}
	}
	setRetryAfter(w.Header(), e)
	if status == http.StatusUnauthorized {
		links := map[string]link{}
		if e.NeedSCA {
			if href := s.psd2.freshSCA(r); href != "" {
				links["scaRedirect"] = linkTo(href, "GET")
			}
		}
		body.Links = links
	}
	writeJSON(w, status, body)
}

// errBadQuery is a FORMAT_ERROR about a query parameter.
func errBadQuery(name, text string) error {
	return apierr.PathError(apierr.CodeFormatError, name, text)
}
