package psd2api

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"sandbank/bank"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
	"sandbank/storage"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testServer builds the real server over a temp data file, with two extra
// routes that only tests have: one that panics and one that needs PSP_AI.
func testServer(t *testing.T) (*httptest.Server, *pki.Authority, *syncBuffer) {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "sandbank.db"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	b := bank.New(db, bank.SystemClock{})
	ca, err := pki.NewAuthority(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	bankKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	bankCert, err := ca.IssueBank(bankKey, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	signer, err := httpsig.NewSigner(bankCert, bankKey)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	h := NewServer(Config{
		Bank: b, Verifier: httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, time.Now),
		BankSigner: func() (*httpsig.Signer, bool) { return signer, true }, Authority: ca, Logger: slog.New(slog.NewTextHandler(logs, nil)),
	})
	s := h.(*server)
	s.mux.Handle("GET /v1/test/panic", s.signed(anyTPP, jsonType, MaxBody, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		var list []int
		_ = list[len(list)] // an index out of range: a real bug in a handler
	})))
	s.mux.Handle("GET /v1/test/ais", s.signed(aisTPP, jsonType, MaxBody, http.HandlerFunc(healthz)))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, ca, logs
}

func signedGet(t *testing.T, url string, signer *httpsig.Signer) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Request-ID", "internal-test")
	if err := signer.SignRequest(req, nil); err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func tppSigner(t *testing.T, ca *pki.Authority, roles ...string) *httpsig.Signer {
	t.Helper()
	cert, key, err := ca.NewTPP(pki.TPPRequestFor("Role TPP", "123", roles, 1, time.Now()), false)
	if err != nil {
		t.Fatal(err)
	}
	s, err := httpsig.NewSigner(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestServer_PanicBecomesSystemError(t *testing.T) {
	srv, ca, logs := testServer(t)
	signer := tppSigner(t, ca, pki.RoleAI)
	resp, body := signedGet(t, srv.URL+"/v1/test/panic", signer)
	if resp.StatusCode != 500 || body["code"] != "SYSTEM_ERROR" {
		t.Fatalf("panic answered %d %v", resp.StatusCode, body)
	}
	id, _ := body["id"].(string)
	msg, _ := body["message"].(string)
	if id == "" || !strings.Contains(msg, id) || strings.Contains(msg, "index out of range") || strings.Contains(msg, ".go") {
		t.Fatalf("the body must name the error id and leak nothing: %v", body)
	}
	if !strings.Contains(logs.String(), "error_id="+id) || !strings.Contains(logs.String(), "index out of range") {
		t.Fatalf("the panic is not logged with its error id:\n%s", logs.String())
	}
	if resp.Header.Get("Signature") == "" {
		t.Fatal("the 500 response is not signed")
	}
	// The server goes on.
	resp, body = signedGet(t, srv.URL+"/v1/test/ais", signer)
	if resp.StatusCode != 200 {
		t.Fatalf("after a panic: %d %v", resp.StatusCode, body)
	}
}

func TestServer_RoleRequired(t *testing.T) {
	srv, ca, _ := testServer(t)
	resp, body := signedGet(t, srv.URL+"/v1/test/ais", tppSigner(t, ca, pki.RolePI))
	if resp.StatusCode != 403 || body["code"] != "FORBIDDEN" || !strings.Contains(body["message"].(string), "PSP_AI") {
		t.Fatalf("a PSP_PI certificate on an AIS route: %d %v", resp.StatusCode, body)
	}
	resp, _ = signedGet(t, srv.URL+"/v1/test/ais", tppSigner(t, ca, pki.RoleAI, pki.RolePI))
	if resp.StatusCode != 200 {
		t.Fatalf("a PSP_AI certificate: %d", resp.StatusCode)
	}
	// No QCStatement: every role in trust mode any.
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	self, err := pki.SelfSigned(key, "No roles", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	s, _ := httpsig.NewSigner(self, key)
	if resp, _ = signedGet(t, srv.URL+"/v1/test/ais", s); resp.StatusCode != 200 {
		t.Fatalf("a certificate without QCStatement in trust mode any: %d", resp.StatusCode)
	}
}

func TestSCAPage_ListsAtMost25Customers(t *testing.T) {
	v := bank.SCAView{Step: bank.StepIdentify, Authorisation: bank.Authorisation{ID: "enc!!x", TPPName: "TPP", Created: time.Now()}}
	for i := range 30 {
		v.Hints = append(v.Hints, bank.Customer{Number: fmt.Sprint(10000000000 + i), Name: fmt.Sprint("Kunde ", i)})
	}
	d := pageData(v)
	if len(d.Hints) != maxHints || d.MoreHints != 5 {
		t.Fatalf("%d hints, %d more", len(d.Hints), d.MoreHints)
	}
	rec := httptest.NewRecorder()
	renderSCA(rec, 200, d)
	body := rec.Body.String()
	if !strings.Contains(body, "Kunde 24") || strings.Contains(body, "Kunde 25") || !strings.Contains(body, "and 5 more") {
		t.Fatalf("page lists the wrong customers:\n%s", body)
	}
}

// TestRequestIDs_WindowTPPAndBound: an X-Request-ID is reused when the
// same TPP sent it within the hour, not when another TPP did or the hour
// is over, and the list forgets the oldest beyond maxRequestIDs.
func TestRequestIDs_WindowTPPAndBound(t *testing.T) {
	var ids requestIDs
	t0 := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	if ids.reused("A", "x", t0) {
		t.Fatal("the first sending is not a reuse")
	}
	if !ids.reused("A", "x", t0.Add(time.Minute)) {
		t.Error("the same TPP's id a minute later is a reuse")
	}
	if ids.reused("B", "x", t0.Add(2*time.Minute)) {
		t.Error("another TPP's same id is not a reuse")
	}
	if ids.reused("A", "x", t0.Add(time.Minute+requestIDWindow+time.Second)) {
		t.Error("after the hour the id is not a reuse")
	}
	later := t0.Add(3 * requestIDWindow)
	ids.reused("A", "first", later)
	for i := range maxRequestIDs {
		ids.reused("A", fmt.Sprint(i), later)
	}
	if len(ids.order) > maxRequestIDs || len(ids.seen) > maxRequestIDs {
		t.Fatalf("%d in order, %d seen; at most %d", len(ids.order), len(ids.seen), maxRequestIDs)
	}
	if ids.reused("A", "first", later) {
		t.Error("the oldest id, dropped beyond the bound, is not a reuse")
	}
	if !ids.reused("A", fmt.Sprint(maxRequestIDs-1), later) {
		t.Error("the newest id is still known")
	}
}
