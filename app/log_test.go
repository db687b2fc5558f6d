package app_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sandbank/app"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// lockedBuffer is the bank's log output, written by its server while the
// test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serveWithFlags runs a bank on 127.0.0.1:0 configured by a command line
// as both binaries parse it, logging to out.
func serveWithFlags(t *testing.T, out *lockedBuffer, args ...string) *app.App {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := app.AddFlags(fs)
	args = append([]string{"--data", filepath.Join(t.TempDir(), "sandbank.db"), "--addr", "127.0.0.1:0", "--tls-addr", ""}, args...)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.Config(out)
	if err != nil {
		t.Fatal(err)
	}
	a := open(t, cfg)
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	return a
}

// sendRefused sends a request whose X-Request-ID changed after it was
// signed, so that its signature fails after the bank rebuilt the signing
// string; it returns that signing string and the error body's id.
func sendRefused(t *testing.T, a *app.App) (signing, id string) {
	t.Helper()
	cert, key, err := a.Authority.NewTPP(pki.TPPRequestFor("Log TPP", "987654321", nil, 1, time.Now()), false)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := httpsig.NewSigner(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", a.URLs()[0]+"/v1/sandbox/clock?x=1", nil)
	req.Header.Set("X-Request-ID", "signed")
	if err := signer.SignRequest(req, nil); err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Request-ID", "changed after signing")
	if signing, err = httpsig.SigningString(req, []string{"(request-target)", "date", "x-request-id"}); err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var body struct{ ID, Code string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 400 || body.Code != "SIGNATURE_INVALID" {
		t.Fatalf("the changed request: %d %+v %v", resp.StatusCode, body, err)
	}
	return signing, body.ID
}

// --log-level debug prints the signing string the bank rebuilt for each
// refused signature, under the request's id, so that a bank without a
// window shows it; at the default level only the request line.
func TestLogLevel_DebugPrintsTheRefusedSigningString(t *testing.T) {
	var out lockedBuffer
	a := serveWithFlags(t, &out, "--log-level", "debug")
	signing, id := sendRefused(t, a)
	if !strings.Contains(signing, "x-request-id: changed after signing") || !strings.Contains(signing, "(request-target): get /v1/sandbox/clock?x=1") {
		t.Fatalf("the test's signing string %q", signing)
	}
	var line string
	for l := range strings.SplitSeq(out.String(), "\n") {
		if strings.Contains(l, `msg="signature refused"`) {
			line = l
		}
	}
	for _, want := range []string{"level=DEBUG", "id=" + id, "step=signature", "signing_string=" + strconv.Quote(signing), `signed_headers="(request-target) date x-request-id"`} {
		if !strings.Contains(line, want) {
			t.Errorf("the debug line lacks %s:\n%s\nall output:\n%s", want, line, out.String())
		}
	}
	if !strings.Contains(out.String(), "msg=request") || !strings.Contains(out.String(), "code=SIGNATURE_INVALID") {
		t.Fatalf("no request line:\n%s", out.String())
	}

	// A request refused before the signing string was rebuilt says so.
	req, _ := http.NewRequest("GET", a.URLs()[0]+"/v1/sandbox/clock", nil)
	req.Header.Set("X-Request-ID", "unsigned")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if !strings.Contains(out.String(), `request_id=unsigned step=signature detail="the request has no Signature header`) || !strings.Contains(out.String(), "signing_string=\"(not rebuilt") {
		t.Fatalf("an unsigned request's debug line:\n%s", out.String())
	}

	var quiet lockedBuffer
	a = serveWithFlags(t, &quiet)
	sendRefused(t, a)
	if !strings.Contains(quiet.String(), "code=SIGNATURE_INVALID") || strings.Contains(quiet.String(), "signing_string") {
		t.Fatalf("at the default level:\n%s", quiet.String())
	}
}
