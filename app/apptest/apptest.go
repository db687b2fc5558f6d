// Package apptest starts a real Sandbank for tests: a temp data file, the
// HTTP server on 127.0.0.1:0, TPP certificates from the bank's CA, and a
// client that signs requests with the project's signer.
package apptest

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"sandbank/app"
	"sandbank/bank"
	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
	"sandbank/bank/reqlog"
)

// Bank is a running bank under test.
type Bank struct {
	*app.App
	URL  string // base URL of the HTTP listener
	Path string // the data file
	TB   testing.TB

	opOnce sync.Once
	op     *TPP
}

// Options change how Start runs the bank.
type Options struct {
	Trust            string
	RequireSignature *bool
	Clock            bank.Clock
	// DataPath reuses a data file instead of a new temp one.
	DataPath string
	// PublicURL is the bank's --public-url.
	PublicURL string
	// Logger receives the bank's log; nil: none.
	Logger *slog.Logger
	// ResponseSigning is the bank's --response-signing; empty: the data
	// file's (rsa). A test that sends many requests and does not check
	// RSA response signatures may choose the cheaper ecdsa.
	ResponseSigning string
}

// Start runs a bank on 127.0.0.1:0 over a new data file and stops it when
// the test ends. Without a Clock, the new data file is a copy of
// DataFile's; with one, the bank is made on that clock.
func Start(tb testing.TB, opts Options) *Bank {
	tb.Helper()
	path := opts.DataPath
	switch {
	case path != "":
	case opts.Clock == nil:
		path = DataFile(tb)
	default:
		path = filepath.Join(tb.TempDir(), "sandbank.db")
	}
	a, err := app.Open(app.Config{
		DataPath: path, Addr: "127.0.0.1:0", Trust: opts.Trust,
		RequireSignature: opts.RequireSignature, Clock: opts.Clock, PublicURL: opts.PublicURL, Logger: opts.Logger,
		ResponseSigning: opts.ResponseSigning,
	})
	if err != nil {
		tb.Fatalf("start the bank: %v", err)
	}
	if err := a.Start(); err != nil {
		_ = a.Close()
		tb.Fatalf("serve: %v", err)
	}
	tb.Cleanup(func() {
		if err := a.Close(); err != nil {
			tb.Errorf("close the bank: %v", err)
		}
	})
	return &Bank{App: a, URL: a.URLs()[0], Path: path, TB: tb}
}

// TPP is a test TPP: a certificate and key from the bank's CA.
type TPP struct {
	Signer *httpsig.Signer
	Key    *rsa.PrivateKey
	Cert   *x509.Certificate
	ID     string
}

var (
	keyMu    sync.Mutex
	keyCache []*rsa.PrivateKey
)

// Key returns the i-th of a few RSA keys made once per test binary (RSA key
// generation is slow under -race).
func Key(tb testing.TB, i int) *rsa.PrivateKey {
	tb.Helper()
	keyMu.Lock()
	defer keyMu.Unlock()
	for len(keyCache) <= i {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			tb.Fatal(err)
		}
		keyCache = append(keyCache, k)
	}
	return keyCache[i]
}

// NewTPP issues a TPP certificate from the bank's CA with the given roles
// for test key number keyIndex.
func (b *Bank) NewTPP(org string, keyIndex int, roles ...string) *TPP {
	b.TB.Helper()
	return b.NewTPPWith(pki.TPPRequestFor("Test TPP "+org, org, roles, 30, time.Now()), keyIndex)
}

// NewTPPWith issues a TPP certificate for request r.
func (b *Bank) NewTPPWith(r pki.TPPRequest, keyIndex int) *TPP {
	b.TB.Helper()
	key := Key(b.TB, keyIndex)
	cert, err := b.Authority.IssueTPP(r, key.Public())
	if err != nil {
		b.TB.Fatalf("issue TPP certificate: %v", err)
	}
	return TPPFor(b.TB, cert, key)
}

// Operator returns the bank's operator: a client that signs with an
// operator certificate of the bank's CA, as sandbankd does on the data
// file. Its TPP id is NO-FSA-0.
func (b *Bank) Operator() *TPP {
	b.TB.Helper()
	b.opOnce.Do(func() {
		cert, key, err := b.OperatorCert()
		if err != nil {
			b.TB.Fatalf("issue the operator certificate: %v", err)
		}
		b.op = TPPFor(b.TB, cert, key)
	})
	return b.op
}

// TPPFor wraps a certificate and key.
func TPPFor(tb testing.TB, cert *x509.Certificate, key *rsa.PrivateKey) *TPP {
	tb.Helper()
	s, err := httpsig.NewSigner(cert, key)
	if err != nil {
		tb.Fatal(err)
	}
	return &TPP{Signer: s, Key: key, Cert: cert, ID: pki.TPPID(cert)}
}

// Response is an answered request.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test when it cannot.
func (r Response) JSON(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		tb.Fatalf("decode %s: %v", r.Body, err)
	}
}

// ErrorBody is the API's error body.
type ErrorBody struct {
	ID          string           `json:"id"`
	System      string           `json:"system"`
	Status      int              `json:"status"`
	Code        string           `json:"code"`
	Message     string           `json:"message"`
	TPPMessages []apierr.Message `json:"tppMessages"`
	// Links is there on a 401 only.
	Links json.RawMessage `json:"_links"`
}

// Err decodes the error body.
func (r Response) Err(tb testing.TB) ErrorBody {
	tb.Helper()
	var e ErrorBody
	r.JSON(tb, &e)
	return e
}

// Do sends a request signed by tpp (unsigned when tpp is nil) and returns
// the answer. body may be nil, a []byte or a value to encode as JSON.
// Headers are "Name: value" strings.
func (b *Bank) Do(tpp *TPP, method, path string, body any, headers ...string) Response {
	b.TB.Helper()
	req := b.Request(method, path, body, headers...)
	raw := requestBody(b.TB, body)
	if tpp != nil {
		if err := tpp.Signer.SignRequest(req, raw); err != nil {
			b.TB.Fatal(err)
		}
	}
	return b.Send(req)
}

// Request builds a request with X-Request-ID set, unsigned.
func (b *Bank) Request(method, path string, body any, headers ...string) *http.Request {
	b.TB.Helper()
	raw := requestBody(b.TB, body)
	req, err := http.NewRequest(method, b.URL+path, bytes.NewReader(raw))
	if err != nil {
		b.TB.Fatal(err)
	}
	req.Header.Set("X-Request-ID", "test-"+strings.ReplaceAll(time.Now().Format("150405.000000"), ".", ""))
	if len(raw) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	return req
}

// Send sends a prepared request and verifies the bank's response
// signature in the responseSigning mode in force: an RSA or ECDSA
// signature that verifies with the bank certificate of that mode, or with
// off no Signature and a Digest that matches the body.
func (b *Bank) Send(req *http.Request) Response {
	b.TB.Helper()
	before, signed := b.ResponseSigner()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.TB.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		b.TB.Fatal(err)
	}
	if err := b.checkSignature(resp.Header, data, before, signed); err != nil {
		b.TB.Errorf("%s %s: the response signature does not verify: %v", req.Method, req.URL.Path, err)
	}
	b.checkContract(req, sentBody(req), resp.StatusCode, resp.Header, data)
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
}

// checkSignature checks a response's signature against the signing mode
// in force when the request was sent (before, signed) and the one in
// force now, so that a test that changes the mode meanwhile passes with
// either.
func (b *Bank) checkSignature(h http.Header, body []byte, before *httpsig.Signer, signed bool) error {
	after, signedAfter := b.ResponseSigner()
	if h.Get("Signature") == "" {
		if signed && signedAfter {
			return errors.New("the response has no Signature, but responseSigning is not off")
		}
		if want := httpsig.Digest(body); h.Get("Digest") != want {
			return fmt.Errorf("response Digest %q does not match the body (%s)", h.Get("Digest"), want)
		}
		return nil
	}
	err := errors.New("the response has a Signature, but responseSigning is off")
	for _, s := range []struct {
		signer *httpsig.Signer
		signs  bool
	}{{before, signed}, {after, signedAfter}} {
		if s.signs {
			if err = httpsig.VerifyResponse(h, body, s.signer.Cert); err == nil {
				return nil
			}
		}
	}
	return err
}

// Logged returns the request log's entry of the request with X-Request-ID
// requestID, the newest when it was sent more than once. The bank logs a
// request before its answer leaves, so an answered request is there.
func (b *Bank) Logged(requestID string) reqlog.Entry {
	b.TB.Helper()
	entries := b.App.RequestLog().Entries()
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].RequestID == requestID {
			return entries[i]
		}
	}
	b.TB.Fatalf("request %s is not in the request log", requestID)
	return reqlog.Entry{}
}

// sentBody returns the body of a request built with a bytes reader.
func sentBody(req *http.Request) []byte {
	if req.GetBody == nil {
		return nil
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer func() { _ = rc.Close() }()
	data, _ := io.ReadAll(rc)
	return data
}

func requestBody(tb testing.TB, body any) []byte {
	switch v := body.(type) {
	case nil:
		return nil
	case []byte:
		return v
	case string:
		return []byte(v)
	}
	raw, err := json.Marshal(body)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// MetaPages returns the first two pages of a bbolt data file, its meta
// pages: every committed storage transaction rewrites one of them, so two
// equal reads show that nothing was committed in between. Cheaper than
// FileSum on a large file.
func MetaPages(tb testing.TB, path string) []byte {
	tb.Helper()
	file, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = file.Close() }()
	buf := make([]byte, 2*os.Getpagesize())
	n, err := file.ReadAt(buf, 0)
	if err != nil && n == 0 {
		tb.Fatal(err)
	}
	return buf[:n]
}

// FileSum returns a digest of the data file, to show that a request
// changed nothing in it.
func (b *Bank) FileSum() [32]byte {
	b.TB.Helper()
	data, err := os.ReadFile(b.Path)
	if err != nil {
		b.TB.Fatal(err)
	}
	return sha256.Sum256(data)
}
