package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
	"sandbank/storage"
)

// binary is sandbankd built for the tests, pure Go (CGO_ENABLED=0).
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sandbankd-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "sandbankd")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "CGO_ENABLED=0 go build ./cmd/sandbankd: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// startDaemon runs sandbankd serve on loopback ports chosen by the kernel
// and waits until it has printed its URLs.
func startDaemon(t testing.TB, data string, extra ...string) *apptest.Process {
	t.Helper()
	args := append([]string{"--data", data, "--addr", "127.0.0.1:0", "--tls-addr", "127.0.0.1:0"}, extra...)
	return apptest.StartProcess(t, binary, nil, args...)
}

// sandbankd runs the binary to completion.
func sandbankd(t testing.TB, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Stdin = strings.NewReader(stdin)
	return runCommand(t, cmd)
}

// runCommand runs cmd to completion and returns what it wrote and its
// exit code.
func runCommand(t testing.TB, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// newTPP issues a TPP certificate with cert new into dir/tpp, registered in
// the data file, and returns the paths of its certificate and key. flags
// are further flags of cert new.
func newTPP(t testing.TB, dir, data, name string, flags ...string) (cert, key string) {
	t.Helper()
	args := append([]string{"cert", "new", "--org", "933012867", "--name", name, "--out", filepath.Join(dir, "tpp"), "--data", data}, flags...)
	if out, stderr, code := sandbankd(t, "", args...); code != 0 {
		t.Fatalf("cert new: %d %s %s", code, out, stderr)
	}
	return filepath.Join(dir, "tpp", "cert.pem"), filepath.Join(dir, "tpp", "key.pem")
}

// newSigner issues a TPP certificate as newTPP does and loads it to sign
// requests.
func newSigner(t testing.TB, dir, data, name string, flags ...string) *httpsig.Signer {
	t.Helper()
	signer, err := loadSigner(newTPP(t, dir, data, name, flags...))
	if err != nil {
		t.Fatal(err)
	}
	return signer
}

func TestServe_PrintsURLsAndServesHTTPAndHTTPS(t *testing.T) {
	data := filepath.Join(t.TempDir(), "sub", "sandbank.db")
	d := startDaemon(t, data)
	if len(d.URLs) != 2 || !strings.HasPrefix(d.URLs[0], "http://127.0.0.1:") || !strings.HasPrefix(d.URLs[1], "https://localhost:") {
		t.Fatalf("printed URLs %q", d.URLs)
	}
	resp, err := http.Get(d.URLs[0] + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	_ = resp.Body.Close()
	// The CA comes from the running bank; HTTPS verifies against it.
	caPEM, stderr, code := sandbankd(t, "", "cert", "ca", "--data", data, "--url", d.URLs[0], "-v")
	if code != 0 || !strings.Contains(stderr, "in use") {
		t.Fatalf("cert ca while running: %d %s", code, stderr)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(caPEM)) {
		t.Fatalf("cert ca printed no certificate: %q", caPEM)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err = client.Get(d.URLs[1] + "/healthz")
	if err != nil {
		t.Fatalf("HTTPS with the exported CA: %v", err)
	}
	_ = resp.Body.Close()
	if resp.TLS.Version < tls.VersionTLS12 {
		t.Fatalf("TLS version %x", resp.TLS.Version)
	}
}

// "sandbankd serve" is the same as "sandbankd".
func TestServe_ServeSubcommand(t *testing.T) {
	d := apptest.StartProcess(t, binary, nil, "serve", "--data", filepath.Join(t.TempDir(), "sandbank.db"), "--addr", "127.0.0.1:0", "--tls-addr", "")
	resp, err := http.Get(d.URLs[0] + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	_ = resp.Body.Close()
}

func TestServe_SecondInstanceIsRefused(t *testing.T) {
	data := filepath.Join(t.TempDir(), "sandbank.db")
	startDaemon(t, data)
	start := time.Now()
	_, stderr, code := sandbankd(t, "", "--data", data, "--addr", "127.0.0.1:0", "--tls-addr", "")
	if code == 0 || !strings.Contains(stderr, "in use by another Sandbank") {
		t.Fatalf("second instance: exit %d, %q", code, stderr)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("the second instance took %s to give up", took)
	}
}

// A listen address that cannot be bound stops sandbankd with exit 4 and a
// message naming the listener, its address and what to do; it serves
// nothing, not even the listener that could start.
func TestServe_BusyAddressExits4(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busy.Close() }()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freeAddr := free.Addr().String()
	_ = free.Close()
	dir := t.TempDir()
	for _, c := range []struct {
		addr, tlsAddr, flag string
	}{
		{busy.Addr().String(), freeAddr, "--addr"},
		{freeAddr, busy.Addr().String(), "--tls-addr"},
	} {
		stdout, stderr, code := sandbankd(t, "", "--data", filepath.Join(dir, "sandbank.db"), "--addr", c.addr, "--tls-addr", c.tlsAddr)
		if code != 4 || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "sandbankd: the HTTP") ||
			!strings.Contains(stderr, "listener did not start on "+busy.Addr().String()+": address already in use") ||
			!strings.Contains(stderr, "choose another") || !strings.Contains(stderr, c.flag) {
			t.Errorf("--addr %s --tls-addr %s: exit %d, stderr %q", c.addr, c.tlsAddr, code, stderr)
		}
		if strings.Contains(stdout, "/healthz") {
			t.Errorf("it printed URLs as if it served: %s", stdout)
		}
		// The free address was released again.
		ln, err := net.Listen("tcp", freeAddr)
		if err != nil {
			t.Fatalf("the free address is still held: %v", err)
		}
		_ = ln.Close()
	}
}

func TestServe_GracefulShutdownClosesTheFile(t *testing.T) {
	data := filepath.Join(t.TempDir(), "sandbank.db")
	d := startDaemon(t, data)
	if err := d.Stop(t); err != nil {
		t.Fatalf("SIGTERM exit: %v\n%s", err, d.Stderr())
	}
	if !strings.Contains(d.Stdout(), "stopped") {
		t.Fatalf("no shutdown message: %s", d.Stdout())
	}
	db, err := storage.Open(data, 100*time.Millisecond)
	if err != nil {
		t.Fatalf("the data file is still held after shutdown: %v", err)
	}
	defer func() { _ = db.Close() }()
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestServe_DataSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sandbank.db")
	cert, key := newTPP(t, dir, data, "Restart TPP", "--roles", "PSP_AI")
	d := startDaemon(t, data)
	out, stderr, code := sandbankd(t, `{"customerNumber": "24047912345", "name": "Persistent Person", "type": "private"}`,
		"call", "POST", "/v1/sandbox/customers", "--body", "-", "--cert", cert, "--key", key, "--url", d.URLs[0])
	if code != 0 || !strings.Contains(out, "201 Created") {
		t.Fatalf("create: %d\n%s\n%s", code, out, stderr)
	}
	if err := d.Stop(t); err != nil {
		t.Fatal(err)
	}
	d = startDaemon(t, data)
	out, _, _ = sandbankd(t, "", "call", "GET", "/v1/sandbox/customers", "--cert", cert, "--key", key, "--url", d.URLs[0])
	if !strings.Contains(out, "Persistent Person") || !strings.Contains(out, "Test Testperson 1") {
		t.Fatalf("after a restart the customer is gone:\n%s", out)
	}
}

func TestCall_SignsAndPrints(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sandbank.db")
	d := startDaemon(t, data)
	// cert new asks the running bank, which holds the data file.
	out, stderr, code := sandbankd(t, "", "cert", "new", "--org", "933012867", "--name", "Call TPP", "--out", filepath.Join(dir, "tpp"), "--data", data, "--url", d.URLs[0], "--verbose")
	if code != 0 || !strings.Contains(stderr, "in use") || !strings.Contains(out, "NO-FSA-933012867") {
		t.Fatalf("cert new through the running bank: %d\n%s\n%s", code, out, stderr)
	}
	cert, key := filepath.Join(dir, "tpp", "cert.pem"), filepath.Join(dir, "tpp", "key.pem")
	body := filepath.Join(dir, "contact.json")
	if err := os.WriteFile(body, []byte(`{"email":"ops@example.com"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code = sandbankd(t, "", "call", "PUT", "/v1/tpps/NO-FSA-933012867/contact-information", "--body", body,
		"-H", "PSU-ID: 9d6d8a52-8a4b-4a8e-9b43-1e9d3a2c0f11", "--cert", cert, "--key", key, "--url", d.URLs[0])
	if code != 0 || !strings.Contains(out, "200 OK") || !strings.Contains(out, "Signature: keyId=") || !strings.Contains(out, "\n  \"email\": \"ops@example.com\"") {
		t.Fatalf("call output:\n%s", out)
	}
	// -o writes the body as it came, here the request log as HAR.
	har := filepath.Join(dir, "traffic.har")
	out, _, code = sandbankd(t, "", "call", "GET", "/v1/sandbox/requests.har?method=PUT", "-o", har, "--cert", cert, "--key", key, "--url", d.URLs[0])
	if code != 0 || !strings.Contains(out, "200 OK") || !strings.Contains(out, "bytes of body written to "+har) || strings.Contains(out, `"log"`) {
		t.Fatalf("call -o output:\n%s", out)
	}
	harData, err := os.ReadFile(har)
	if err != nil {
		t.Fatal(err)
	}
	if entries := apptest.CheckHAR(t, harData)["log"].(map[string]any)["entries"].([]any); len(entries) != 1 {
		t.Fatalf("the HAR of the PUT holds %d entries", len(entries))
	}
	// Flags may come first; an error answer is printed too.
	out, _, code = sandbankd(t, "", "call", "--cert", cert, "--key", key, "--url", d.URLs[0], "GET", "/v1/sandbox/customers/nope")
	if code != 0 || !strings.Contains(out, "404 Not Found") || !strings.Contains(out, "RESOURCE_UNKNOWN") {
		t.Fatalf("call 404:\n%s", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"call", "GET", "/v1/sandbox/customers", "--cert", cert}, "--cert and --key go together"},
		{[]string{"call", "GET"}, "give METHOD and PATH"},
		{[]string{"call", "GET", "v1/x", "--cert", cert, "--key", key}, "must start with /"},
		{[]string{"call", "GET", "/v1/x", "--cert", cert, "--key", cert}, "private key"},
		{[]string{"call", "GET", "/v1/x", "--cert", cert, "--key", key, "-H", "nocolon"}, "Name: value"},
		{[]string{"call", "GET", "/v1/x", "--cert", cert, "--key", key, "--url", "http://127.0.0.1:1"}, "no bank answers at http://127.0.0.1:1: start it"},
		{[]string{"--trust", "maybe"}, "--trust must be any or store"},
		{[]string{"cert", "new", "--org", "12", "--name", "X", "--out", dir, "--roles", "PSP_XX"}, "not a PSD2 role"},
		{[]string{"cert", "new", "--org", "12", "--name", "Fjord\nPay", "--out", dir}, "name: contains U+000A LINE FEED at character 6; remove it"},
		{[]string{"cert", "new", "--org", "12", "--name", "Fjord Pay\u202E", "--out", dir}, "name: contains U+202E RIGHT-TO-LEFT OVERRIDE at character 10; remove it"},
		{[]string{"cert", "frob"}, "unknown command"},
	} {
		_, stderr, code := sandbankd(t, "", c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("sandbankd %s: exit %d, stderr %q; want it to mention %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}

// --body-only writes the body byte for byte to standard output and the
// rest to standard error; --fail exits 22 on an answer of 400 or more and
// writes it all to standard error. Both work in a pipe.
func TestCall_BodyOnlyAndFail(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sandbank.db")
	cert, key := newTPP(t, dir, data, "Pipe TPP", "--roles", "PSP_AI")
	d := startDaemon(t, data)
	call := func(args ...string) (string, string, int) {
		return sandbankd(t, "", append([]string{"call", "--cert", cert, "--key", key, "--url", d.URLs[0]}, args...)...)
	}

	out, stderr, code := call("GET", "/v1/sandbox/customers", "--body-only")
	if code != 0 || !strings.HasPrefix(stderr, "HTTP/1.1 200 OK\n") || strings.Contains(out, "HTTP/1.1") {
		t.Fatalf("--body-only: exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	var customers []struct {
		Name string `json:"customerName"`
	}
	if err := json.Unmarshal([]byte(out), &customers); err != nil || len(customers) != 4 || customers[0].Name == "" {
		t.Fatalf("--body-only printed no JSON array of the four customers: %v\n%s", err, out)
	}
	// Byte for byte: the body's hash is the one the bank's Digest header
	// (on standard error) gives.
	sum := sha256.Sum256([]byte(out))
	if digest := "Digest: SHA-256=" + base64.StdEncoding.EncodeToString(sum[:]) + "\n"; !strings.Contains(stderr, digest) {
		t.Fatalf("the body on standard output is not the one the bank signed: want %q in\n%s", digest, stderr)
	}

	// --fail: a success is printed as usual.
	out, _, code = call("GET", "/v1/sandbox/customers", "--fail")
	if code != 0 || !strings.HasPrefix(out, "HTTP/1.1 200 OK\n") {
		t.Fatalf("--fail on a 200: exit %d\n%s", code, out)
	}
	// An error: exit 22, nothing on standard output, the answer on
	// standard error, with or without --body-only.
	for _, extra := range [][]string{{"--fail"}, {"--fail", "--body-only"}} {
		out, stderr, code = call(append([]string{"GET", "/v1/sandbox/customers/nope"}, extra...)...)
		if code != 22 || out != "" || !strings.HasPrefix(stderr, "HTTP/1.1 404 Not Found\n") || !strings.Contains(stderr, "RESOURCE_UNKNOWN") ||
			!strings.HasSuffix(stderr, "sandbankd: the bank answered 404 Not Found (--fail exits 22; the answer is above)\n") {
			t.Errorf("%v on a 404: exit %d\nstdout %q\nstderr %s", extra, code, out, stderr)
		}
	}
	// In a shell pipe: the body goes through jq, the head does not.
	script := fmt.Sprintf("set -o pipefail; %q call GET /v1/sandbox/customers --cert %q --key %q --url %q --body-only --fail 2>/dev/null | jq -r '.[0].customerName'",
		binary, cert, key, d.URLs[0])
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatal("jq is not installed: run scripts/install-deps test")
	}
	piped, err := exec.Command("bash", "-c", script).Output()
	if err != nil || strings.TrimSpace(string(piped)) != customers[0].Name {
		t.Fatalf("pipe: %v %q, want %q", err, piped, customers[0].Name)
	}
	script = fmt.Sprintf("set -o pipefail; %q call GET /v1/sandbox/customers/nope --cert %q --key %q --url %q --body-only --fail 2>/dev/null | jq .",
		binary, cert, key, d.URLs[0])
	err = exec.Command("bash", "-c", script).Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 22 {
		t.Fatalf("a failing call in a pipe with pipefail: %v, want exit 22", err)
	}
}

func TestCert_NewWritesAUsablePair(t *testing.T) {
	dir := t.TempDir()
	out, stderr, code := sandbankd(t, "", "cert", "new", "--org", "912345678", "--name", "Pair TPP", "--roles", "psp_pi", "--days", "10", "--out", filepath.Join(dir, "out"), "--data", filepath.Join(dir, "sandbank.db"))
	if code != 0 {
		t.Fatalf("%d %s %s", code, out, stderr)
	}
	info, err := os.Stat(filepath.Join(dir, "out", "key.pem"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key.pem: %v %v", info, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "out", "cert.pem"))
	if err != nil {
		t.Fatal(err)
	}
	cert, err := pki.DecodeCert(data)
	if err != nil {
		t.Fatal(err)
	}
	roles, named, err := pki.PSD2Roles(cert)
	if err != nil || !named || len(roles) != 1 || roles[0] != pki.RolePI || pki.TPPID(cert) != "NO-FSA-912345678" {
		t.Fatalf("roles %v named %v err %v id %s", roles, named, err, pki.TPPID(cert))
	}
	if days := time.Until(cert.NotAfter).Hours() / 24; days < 9 || days > 10.1 {
		t.Fatalf("valid for %.1f days", days)
	}
	// The hint names the bank's URL when it is not the default one.
	if !strings.Contains(out, "Try: sandbankd call GET /v1/sandbox/customers --cert ") || strings.Contains(out, "--url") {
		t.Fatalf("hint: %s", out)
	}
	out, _, _ = sandbankd(t, "", "cert", "new", "--org", "912345678", "--name", "Pair TPP", "--out", filepath.Join(dir, "out2"), "--data", filepath.Join(dir, "sandbank.db"), "--url", "http://127.0.0.1:7390")
	if !strings.Contains(out, " --url http://127.0.0.1:7390\n") {
		t.Fatalf("hint without the bank's URL: %s", out)
	}
	if _, _, code := sandbankd(t, "", "cert", "new", "--org", "1", "--name", "X", "--out", dir, "--days", "0"); code != 2 {
		t.Fatalf("--days 0: exit %d", code)
	}
}

// BenchmarkStartup measures sandbankd from exec to the first answered
// signed request, on a data file holding 1,000,000 transactions.
func BenchmarkStartup(b *testing.B) {
	dir := b.TempDir()
	data := apptest.BigFixture(b, 1_000_000)
	signer := newSigner(b, dir, data, "Bench TPP")
	b.Run("exec-to-first-signed-answer-1M", func(b *testing.B) {
		for b.Loop() {
			// The signature covers the path, not the host, so the request
			// is signed before the clock starts and pointed at the port
			// the bank prints.
			b.StopTimer()
			req, _ := http.NewRequestWithContext(context.Background(), "GET", "http://bank/v1/sandbox/customers", nil)
			req.Header.Set("X-Request-ID", "bench")
			if err := signer.SignRequest(req, nil); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			d := startDaemon(b, data)
			req.URL.Host = strings.TrimPrefix(d.URLs[0], "http://")
			req.Host = "" // the Host header follows the URL
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != 200 {
				b.Fatalf("first request: %v %v", resp, err)
			}
			_ = resp.Body.Close()
			b.StopTimer()
			if err := d.Stop(b); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
}

// TestTPPGuide_WalkthroughScript runs scripts/tpp-walkthrough.sh, the curl
// and openssl path of docs/TPP-GUIDE.md, against a real sandbankd, so the
// guide's commands keep working.
func TestTPPGuide_WalkthroughScript(t *testing.T) {
	for _, tool := range []string{"bash", "openssl", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: run scripts/install-deps", tool)
		}
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "sandbank.db")
	cert, key := newTPP(t, dir, data, "Guide TPP", "--roles", "PSP_AI,PSP_PI")
	d := startDaemon(t, data)
	script, err := filepath.Abs("../../scripts/tpp-walkthrough.sh")
	if err != nil {
		t.Fatal(err)
	}
	// Without the operator's certificate the script says what it skips,
	// and exits 0.
	cmd := exec.Command(script)
	cmd.Env = append(os.Environ(), "BANK="+d.URLs[0], "CERT="+cert, "KEY="+key, "OPERATOR_CERT_PEM=", "OPERATOR_KEY_PEM=")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "skipped: the batch run and the sandbox clock are the operator's") || strings.Contains(string(out), "is ACSC") {
		t.Fatalf("%s without the operator: %v\n%s", script, err, out)
	}
	// With it, the payments settle.
	op := filepath.Join(dir, "operator")
	if out, stderr, code := sandbankd(t, "", "cert", "new", "--operator", "--name", "Guide operator", "--out", op, "--data", data); code != 0 {
		t.Fatalf("cert new --operator: %d %s %s", code, out, stderr)
	}
	cmd = exec.Command(script)
	cmd.Env = append(os.Environ(), "BANK="+d.URLs[0], "CERT="+cert, "KEY="+key,
		"OPERATOR_CERT_PEM="+filepath.Join(op, "cert.pem"), "OPERATOR_KEY_PEM="+filepath.Join(op, "key.pem"))
	out, err = cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "is ACSC") {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	t.Logf("%s", out)
}

// TestCert_NewSaysWhichCAIssuedIt: cert new names the CA it used: the one
// in the data file, or, when a running bank holds the file, that bank's,
// with the URL it asked.
func TestCert_NewSaysWhichCAIssuedIt(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sandbank.db")
	out, stderr, code := sandbankd(t, "", "cert", "new", "--org", "933012867", "--name", "Local TPP", "--out", filepath.Join(dir, "local"), "--data", data)
	if code != 0 || !strings.Contains(out, "\nIssued by the test CA in the data file "+data+" (CN=Sandbank Sandbox CA, key id ") {
		t.Fatalf("cert new from the data file: %d\n%s\n%s", code, out, stderr)
	}
	local, err := os.ReadFile(filepath.Join(dir, "local", "cert.pem"))
	if err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, data)
	out, stderr, code = sandbankd(t, "", "cert", "new", "--org", "933012867", "--name", "Remote TPP", "--out", filepath.Join(dir, "remote"), "--data", data, "--url", d.URLs[0])
	want := "\nIssued by the test CA of the bank at " + d.URLs[0] + " (CN=Sandbank Sandbox CA, key id "
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("cert new through the running bank: %d; want %q in\n%s\n%s", code, want, out, stderr)
	}
	// Both name the same CA: the one in the data file.
	cert, err := pki.DecodeCert(local)
	if err != nil {
		t.Fatal(err)
	}
	if id := fmt.Sprintf("key id %X)", cert.AuthorityKeyId[:4]); !strings.Contains(out, id) {
		t.Errorf("the running bank's CA is not the one in its data file (%s):\n%s", id, out)
	}
}
