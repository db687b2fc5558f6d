package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"sandbank/app"
	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
	"sandbank/storage"
)

// The commands that work on a bank (cert, settings, scenario, payments,
// batch, clock, log, grants) are thin clients of its signed HTTP API, in
// one of three ways, with the same requests:
//
//   - the data file is free: they open it (app.Open) for their lifetime and
//     hand the requests to the bank's HTTP handler in this process, signed
//     as the bank's operator, with a certificate from the file's own CA;
//   - a running bank holds the data file (storage.ErrInUse): they read
//     where it serves and its operator credential from the running file
//     beside the data file (app.RunningPath), and send the requests there,
//     signed as its operator;
//   - --url is given without --data: they send the requests to that bank,
//     signed with --cert and --key, or else with a self-signed certificate
//     of their own, which is a TPP's and not the operator's.
//
// call works the same way, except that without --data it asks the bank
// at --url (urlFirst): a TPP's tool, like curl.

// bankFlags are the flags that say which bank a command works on and how
// it signs.
type bankFlags struct {
	fs                       *flag.FlagSet
	data, url, cert, key, ca *string
	verbose                  *bool
	// urlFirst asks the bank at --url unless --data is given (call),
	// instead of the data file's bank unless --url alone is given.
	urlFirst bool
}

// addBankFlags adds --data, --url, --cert, --key, --ca and -v
// (--verbose) to fs.
func addBankFlags(fs *flag.FlagSet) *bankFlags {
	f := &bankFlags{
		fs:      fs,
		data:    dataFlag(fs),
		url:     fs.String("url", defaultURL, "the running bank: asked when another process holds the data file; given without --data, the only bank asked"),
		cert:    fs.String("cert", "", "sign with this TPP certificate (PEM) instead of a certificate of the command's own; a running bank in trust mode store needs one from its CA"),
		key:     fs.String("key", "", "the private key (PEM) of --cert"),
		ca:      fs.String("ca", "", "CA certificate (PEM) to trust for an https --url, e.g. from sandbankd cert ca"),
		verbose: new(bool),
	}
	fs.BoolVar(f.verbose, "v", false, "say on standard error which running bank is asked when one holds the data file (said without -v when standard error is a terminal)")
	fs.BoolVar(f.verbose, "verbose", false, "the same as -v")
	return f
}

// given reports whether the flag was set on the command line.
func (f *bankFlags) given(name string) bool {
	found := false
	f.fs.Visit(func(fl *flag.Flag) { found = found || fl.Name == name })
	return found
}

// reach is which bank a command may work on.
type reach int

const (
	fileOrBank  reach = iota // the data file itself, or the running bank that holds it
	runningOnly              // a running bank only: what the command reads is in its memory
)

// inUseNote is what a command says on standard error when it asks the
// running bank that holds the data file: with -v, or when standard error
// is a terminal, so that a pipeline's log gets no line per command.
const inUseNote = "The data file is in use by a running bank; asking it at %s.\n"

// isTerminal reports whether w is a terminal (a character device, which
// a pipe or a file is not).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// connect returns a client of the bank the flags name.
func (f *bankFlags) connect(stderr io.Writer, r reach) (*bankClient, error) {
	var signer *httpsig.Signer
	if *f.cert != "" || *f.key != "" {
		if *f.cert == "" || *f.key == "" {
			return nil, fmt.Errorf("%w: --cert and --key go together: the certificate and its private key", errUsage)
		}
		var err error
		if signer, err = loadSigner(*f.cert, *f.key); err != nil {
			return nil, err
		}
	}
	if !f.given("data") && (f.urlFirst || f.given("url")) {
		return f.remote(signer, *f.url, nil, fmt.Sprintf("no bank answers at %s: start it (sandbankd --data FILE), give the --url it prints, or give --data FILE to ask the bank of that data file wherever it serves", *f.url))
	}
	if r == runningOnly {
		if err := heldByBank(*f.data); err != nil {
			return nil, err
		}
		return f.running(stderr, signer)
	}
	c, err := openLocal(*f.data, signer)
	if errors.Is(err, storage.ErrInUse) {
		return f.running(stderr, signer)
	}
	return c, err
}

// openLocal opens a data file in this process and returns a client of
// its bank, which signs with signer or, when nil, as the bank's operator.
func openLocal(data string, signer *httpsig.Signer) (*bankClient, error) {
	a, err := app.Open(app.Config{DataPath: data})
	if err != nil {
		return nil, err
	}
	if signer == nil {
		cert, key, err := a.OperatorCert()
		if err == nil {
			signer, err = httpsig.NewSigner(cert, key)
		}
		if err != nil {
			_ = a.Close()
			return nil, err
		}
	}
	return &bankClient{
		base:   localBase,
		http:   &http.Client{Transport: handlerTransport{a.Handler()}, CheckRedirect: keepRedirect},
		signer: signer, app: a, where: "the bank in the data file " + data,
	}, nil
}

// running returns a client of the running bank that holds the data file:
// at the address its running file gives (--url, when given, wins), signed
// as its operator with the running file's credential unless --cert and
// --key are given. A bank that wrote no running file (one of an older
// Sandbank) is asked at --url, signed as a TPP.
func (f *bankFlags) running(stderr io.Writer, signer *httpsig.Signer) (*bankClient, error) {
	run, err := waitRunning(*f.data)
	base, caPEM := *f.url, []byte(nil)
	if err == nil && len(run.URLs) > 0 {
		if !f.given("url") {
			base = run.URLs[0]
		}
		caPEM = []byte(run.CACert)
		if signer == nil {
			signer, err = runningSigner(run)
			if err != nil {
				return nil, fmt.Errorf("the running file %s: %w", app.RunningPath(*f.data), err)
			}
		}
	}
	if *f.verbose || isTerminal(stderr) {
		fmt.Fprintf(stderr, inUseNote, base)
	}
	unreachable := fmt.Sprintf("the data file %s is in use, and no bank answers at %s: give the --url of the bank that serves it, or stop the process that holds it", *f.data, base)
	if err != nil {
		unreachable = fmt.Sprintf("the data file %s is in use by a process that does not serve it (no running file %s: a desktop app whose bank is stopped, or a command), and no bank answers at %s: start serving on the desktop app's Server screen, give the --url of the bank that serves it, or stop the process that holds it", *f.data, app.RunningPath(*f.data), base)
	}
	return f.remote(signer, base, caPEM, unreachable)
}

// waitRunning reads the running file of a data file a bank holds, waiting
// for it while the bank may be starting (app.RunningWait).
func waitRunning(dataPath string) (app.Running, error) {
	deadline := time.Now().Add(app.RunningWait)
	for {
		run, err := app.ReadRunning(dataPath)
		if !errors.Is(err, fs.ErrNotExist) || time.Now().After(deadline) {
			return run, err
		}
		if heldByBank(dataPath) != nil {
			return run, err // the bank let go of the data file: nobody writes it
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runningSigner signs with the operator credential of a running file.
func runningSigner(run app.Running) (*httpsig.Signer, error) {
	cert, err := pki.DecodeCert([]byte(run.OperatorCert))
	if err != nil {
		return nil, fmt.Errorf("its operator certificate: %w", err)
	}
	key, err := pki.DecodeKey([]byte(run.OperatorKey))
	if err != nil {
		return nil, fmt.Errorf("its operator key: %w", err)
	}
	return httpsig.NewSigner(cert, key)
}

// heldByBank returns nil when a running bank holds the data file, and
// otherwise an error that says what to do.
func heldByBank(path string) error {
	what := "no bank holds the data file " + path
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		what = "the data file " + path + " does not exist"
	} else if db, err := storage.OpenReadOnly(path, 100*time.Millisecond); errors.Is(err, storage.ErrInUse) {
		return nil
	} else if err == nil {
		_ = db.Close()
	}
	return fmt.Errorf("the request log is in the memory of the bank that serves the data file, and %s: start the bank (sandbankd --data %s, or the desktop app), send the requests, and run this again; or give the --url of the bank that serves it", what, path)
}

// remote returns a client of the running bank at base, which signs with
// signer or, when nil, a self-signed certificate of its own (a TPP's). An
// https base is trusted through --ca, else caPEM. unreachable says what to
// do when no bank answers.
func (f *bankFlags) remote(signer *httpsig.Signer, base string, caPEM []byte, unreachable string) (*bankClient, error) {
	self := signer == nil
	if self {
		key, err := rsa.GenerateKey(rand.Reader, pki.MinRSABits)
		if err != nil {
			return nil, fmt.Errorf("generate a key: %w", err)
		}
		cert, err := pki.SelfSigned(key, "sandbankd", time.Now())
		if err != nil {
			return nil, err
		}
		if signer, err = httpsig.NewSigner(cert, key); err != nil {
			return nil, err
		}
	}
	client, err := httpClient(*f.ca)
	if *f.ca == "" && len(caPEM) > 0 {
		client, err = httpClientTrusting(caPEM, "the running file's CA")
	}
	if err != nil {
		return nil, err
	}
	client.Timeout = 0 // a scenario of 256 MiB takes its time; Ctrl-C ends the command
	base = strings.TrimRight(base, "/")
	var again string
	for _, name := range []string{"data", "url"} {
		if f.given(name) {
			again += " --" + name + " " + f.fs.Lookup(name).Value.String()
		}
	}
	return &bankClient{base: base, http: client, signer: signer, selfSigned: self, where: "the bank at " + base, unreachable: unreachable, again: again}, nil
}

// keepRedirect hands a redirect to the caller instead of following it.
func keepRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// bankClient sends signed requests to one bank.
type bankClient struct {
	base   string
	http   *http.Client
	signer *httpsig.Signer
	// app is the data file opened in this process; nil for a running bank.
	app *app.App
	// selfSigned is set when the client signs with a certificate of its own
	// that no CA issued.
	selfSigned bool
	// where names the bank in messages; unreachable says what to do when
	// it does not answer; again is the flags that name it once more, for
	// a command the messages suggest.
	where, unreachable, again string
}

// Close closes the data file the client opened, if any.
func (c *bankClient) Close() error {
	if c.app == nil {
		return nil
	}
	return c.app.Close()
}

// send signs and sends one request with a JSON body (none when nil) and
// returns the answer, whatever its status.
func (c *bankClient) send(ctx context.Context, method, path string, body []byte) (*http.Response, error) {
	return c.sendHeaders(ctx, method, path, body, nil)
}

// sendHeaders is send, with further headers, which replace those of the
// same name send would set (Content-Type).
func (c *bankClient) sendHeaders(ctx context.Context, method, path string, body []byte, header http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	if len(body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	for name, values := range header {
		req.Header[name] = values
	}
	if err := c.signer.SignRequest(req, body); err != nil {
		return nil, err
	}
	return c.do(req)
}

// sendFile signs and sends one request whose JSON body is the file f,
// read as it goes (twice: once for its digest), not held in memory.
func (c *bankClient) sendFile(ctx context.Context, method, path string, f *os.File) (*http.Response, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	digest, err := httpsig.DigestReader(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, io.NopCloser(f))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	req.ContentLength = info.Size()
	req.Header.Set("Content-Type", "application/json")
	if info.Size() > 0 {
		req.Header.Set("Digest", digest)
	}
	if err := c.signer.SignRequest(req, nil); err != nil {
		return nil, err
	}
	return c.do(req)
}

func (c *bankClient) do(req *http.Request) (*http.Response, error) {
	resp, err := c.http.Do(req)
	if err != nil && c.unreachable != "" && req.Context().Err() == nil {
		return nil, fmt.Errorf("%s (%w)", c.unreachable, err)
	}
	return resp, err
}

// call sends one request and returns the body of a 2xx answer; another
// answer is an *apiError. Warnings of a JSON answer go to warn.
func (c *bankClient) call(ctx context.Context, warn io.Writer, method, path string, body []byte) ([]byte, http.Header, error) {
	resp, err := c.send(ctx, method, path, body)
	if err != nil {
		return nil, nil, err
	}
	return c.read(resp, warn)
}

// read reads an answer: the body of a 2xx one, whose warnings go to warn,
// or an *apiError.
func (c *bankClient) read(resp *http.Response, warn io.Writer) ([]byte, http.Header, error) {
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("read the answer of %s: %w", c.where, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, nil, c.refusal(resp, data)
	}
	var w struct {
		TPPMessages []apierr.Message `json:"tppMessages"`
	}
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) && json.Unmarshal(data, &w) == nil {
		for _, m := range w.TPPMessages {
			fmt.Fprintf(warn, "sandbankd: %s\n", messageText(m))
		}
	}
	return data, resp.Header, nil
}

// getJSON sends a GET and decodes the 2xx answer into out; it returns the
// answer as it came too, for --json.
func (c *bankClient) getJSON(ctx context.Context, warn io.Writer, path string, out any) ([]byte, http.Header, error) {
	return c.callJSON(ctx, warn, http.MethodGet, path, nil, out)
}

// callJSON is call, with the 2xx answer decoded into out as well.
func (c *bankClient) callJSON(ctx context.Context, warn io.Writer, method, path string, body []byte, out any) ([]byte, http.Header, error) {
	data, h, err := c.call(ctx, warn, method, path, body)
	if err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return nil, nil, fmt.Errorf("read the answer of %s to %s %s: %w", c.where, method, path, err)
	}
	return data, h, nil
}

// refusal turns an answer other than 2xx into an *apiError.
func (c *bankClient) refusal(resp *http.Response, data []byte) *apiError {
	path := resp.Request.URL.Path // as it was written, ids unescaped
	if q := resp.Request.URL.RawQuery; q != "" {
		path += "?" + q
	}
	e := &apiError{method: resp.Request.Method, path: path, status: resp.Status, where: c.where}
	if json.Unmarshal(data, &e.body) != nil || e.body.Code == "" {
		e.body.Message = strings.TrimSpace(string(data))
		if len(e.body.Message) > 500 {
			e.body.Message = e.body.Message[:500] + "…"
		}
	}
	switch {
	case c.selfSigned && strings.HasPrefix(e.body.Code, "CERTIFICATE_"):
		e.hint = "this command signed with a self-signed certificate; a bank in trust mode store wants one from its CA: --cert FILE --key FILE (sandbankd cert new makes a pair)"
	case c.selfSigned && resp.StatusCode == http.StatusForbidden:
		e.hint = "this command signed with a self-signed certificate, a TPP's: give --data with the bank's data file (on the machine that holds it), or --cert and --key of an operator certificate (sandbankd cert new --operator --data FILE makes one)"
	case c.app == nil && e.body.ID != "":
		e.hint = "sandbankd log " + e.body.ID + c.again + " shows what the bank saw and decided"
	}
	return e
}

// apiError is the bank's refusal of a request: its status, its error
// body's code, message and tppMessages.
type apiError struct {
	method, path, status, where string
	body                        struct {
		ID          string           `json:"id"`
		Code        string           `json:"code"`
		Message     string           `json:"message"`
		TPPMessages []apierr.Message `json:"tppMessages"`
	}
	// hint says what to do next, when the client knows.
	hint string
}

// Error writes the refusal on one line, then each finding of the bank
// (path: text) on a line of its own.
func (e *apiError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s refused %s %s: %s", e.where, e.method, e.path, e.status)
	if e.body.Code != "" {
		b.WriteString(" " + e.body.Code)
	}
	if len(e.body.TPPMessages) == 0 && e.body.Message != "" {
		b.WriteString("\n  " + e.body.Message)
	}
	for _, m := range e.body.TPPMessages {
		b.WriteString("\n  " + messageText(m))
	}
	if e.hint != "" {
		b.WriteString("\n  " + e.hint)
	}
	return b.String()
}

// messageText writes a tppMessage as path: text, a warning marked.
func messageText(m apierr.Message) string {
	s := m.Text
	if m.Path != "" {
		s = m.Path + ": " + s
	}
	if m.Category == "WARNING" {
		s = "warning: " + s
	}
	return s
}

// localBase is the base URL of a bank opened in this process: a loopback
// name, as a listener of the bank would be asked.
const localBase = "http://localhost"

// handlerTransport hands each request to the bank's HTTP handler in this
// process, as a listener would, and streams its answer back.
type handlerTransport struct{ h http.Handler }

// RoundTrip serves req with the handler.
func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	in := req.Clone(req.Context())
	in.URL = &url.URL{Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: req.URL.RawQuery}
	in.RequestURI = req.URL.RequestURI()
	in.Host = req.URL.Host
	in.RemoteAddr = "127.0.0.1:1"
	in.Proto, in.ProtoMajor, in.ProtoMinor = "HTTP/1.1", 1, 1
	if in.Body == nil {
		in.Body = http.NoBody
	}
	pr, pw := io.Pipe()
	w := &pipeWriter{header: http.Header{}, req: req, body: pr, out: pw, ready: make(chan *http.Response, 1)}
	go func() {
		t.h.ServeHTTP(w, in)
		w.WriteHeader(http.StatusOK) // when the handler wrote nothing
		_ = pw.Close()
		_ = in.Body.Close()
	}()
	select {
	case resp := <-w.ready:
		return resp, nil
	case <-req.Context().Done():
		_ = pr.CloseWithError(req.Context().Err())
		return nil, req.Context().Err()
	}
}

// pipeWriter is the http.ResponseWriter of handlerTransport: the status
// and headers become the response, the body flows through a pipe.
type pipeWriter struct {
	header http.Header
	req    *http.Request
	body   *io.PipeReader
	out    *io.PipeWriter
	ready  chan *http.Response
	wrote  bool
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(status int) {
	if w.wrote || status < 200 {
		return // an informational status is not the answer
	}
	w.wrote = true
	size, err := strconv.ParseInt(w.header.Get("Content-Length"), 10, 64)
	if err != nil {
		size = -1
	}
	w.ready <- &http.Response{
		Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: w.header.Clone(), Body: w.body, ContentLength: size, Request: w.req,
	}
}

func (w *pipeWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.out.Write(p)
}
