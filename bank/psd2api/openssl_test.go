package psd2api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"sandbank/app/apptest"
	"sandbank/bank/httpsig"
)

// repoFile returns the path of a file in the repository.
func repoFile(t *testing.T, rel string) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", rel)
}

// run runs a command and returns its standard output.
func run(t *testing.T, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s is not installed; scripts/install-deps installs it", name)
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// parseHTTP splits curl -i output into status, headers and body.
func parseHTTP(t *testing.T, raw []byte) (int, http.Header, []byte) {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
	if err != nil {
		t.Fatalf("read curl output: %v\n%s", err, raw)
	}
	var body bytes.Buffer
	_, _ = body.ReadFrom(resp.Body)
	return resp.StatusCode, resp.Header, body.Bytes()
}

// opensslCall runs the openssl script (METHOD PATH [BODY_FILE]) and
// checks the answer against the bank's OpenAPI document, as Bank.Send
// does for the project's own client.
func opensslCall(t *testing.T, b *apptest.Bank, dir string, env []string, script, method, path string, bodyFile ...string) (int, http.Header, []byte) {
	t.Helper()
	status, h, body := parseHTTP(t, run(t, dir, env, script, append([]string{method, path}, bodyFile...)...))
	b.CheckResponse(method, path, status, h, body)
	return status, h, body
}

// TestOpenSSL_SignsRequests signs with the openssl command line, through
// the script the README shows, so that our signer and our verifier cannot
// agree on a mistake. It also checks the bank's response signatures with
// openssl alone.
func TestOpenSSL_SignsRequests(t *testing.T) {
	b := apptest.Start(t, apptest.Options{})
	dir := t.TempDir()
	// A key and a self-signed certificate made by openssl, with the
	// organizationIdentifier a PSD2 certificate carries.
	run(t, dir, nil, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem",
		"-days", "2", "-subj", "/C=NO/O=OpenSSL TPP AS/organizationIdentifier=PSDNO-FSA-911911911/CN=OpenSSL TPP")
	script := repoFile(t, "scripts/openssl-call.sh")
	env := []string{"CERT=" + filepath.Join(dir, "cert.pem"), "KEY=" + filepath.Join(dir, "key.pem"), "URL=" + b.URL}

	status, h, body := opensslCall(t, b, dir, env, script, "GET", "/v1/sandbox/customers?withAccounts=true")
	if status != 200 || !bytes.Contains(body, []byte("13039319955")) {
		t.Fatalf("openssl-signed GET: %d %s", status, body)
	}
	if err := httpsig.VerifyResponse(h, body, b.BankCert.Cert); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "body.json"), []byte(`{"customerNumber": "19019012345", "name": "Signert med OpenSSL", "type": "private"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	status, _, body = opensslCall(t, b, dir, env, script, "POST", "/v1/sandbox/customers", filepath.Join(dir, "body.json"))
	if status != 201 || !bytes.Contains(body, []byte("Signert med OpenSSL")) {
		t.Fatalf("openssl-signed POST: %d %s", status, body)
	}
	// The TPP identity comes from the organizationIdentifier openssl wrote.
	if err := os.WriteFile(filepath.Join(dir, "contact.json"), []byte(`{"email": "ops@example.com"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	status, _, body = opensslCall(t, b, dir, env, script, "PUT", "/v1/tpps/NO-FSA-911911911/contact-information", filepath.Join(dir, "contact.json"))
	if status != 200 {
		t.Fatalf("TPP id from an openssl certificate: %d %s", status, body)
	}

	// Account information with the PSU headers signed by openssl: a
	// consent, the SCA, and the accounts.
	sca := append(env, "TPP_REDIRECT_URI=https://openssl.example/cb", "TPP_SESSION_ID=openssl-1")
	status, _, body = opensslCall(t, b, dir, sca, script, "POST", "/v1/consents")
	if status != 201 {
		t.Fatalf("openssl-signed consent: %d %s", status, body)
	}
	var started struct {
		AuthorisationID string `json:"authorisationId"`
		Links           map[string]struct {
			Href string `json:"href"`
		} `json:"_links"`
	}
	if err := json.Unmarshal(body, &started); err != nil {
		t.Fatal(err)
	}
	q := b.CompleteSCA(started.Links["scaRedirect"].Href, t1Number, "", []string{t1Brukskonto}, "approve").Query
	read := append(sca, "PSU_ID="+q.Get("psu-id"), "PSU_IP_ADDRESS=192.0.2.7")
	status, _, body = opensslCall(t, b, dir, read, script, "GET", "/v1/accounts?withBalance=true")
	if status != 200 || !bytes.Contains(body, []byte(t1Brukskonto)) || bytes.Contains(body, []byte(t1Sparekonto)) {
		t.Fatalf("openssl-signed accounts: %d %s", status, body)
	}

	// A key that does not belong to the certificate is refused.
	run(t, dir, nil, "openssl", "genrsa", "-out", "other.pem", "2048")
	env[1] = "KEY=" + filepath.Join(dir, "other.pem")
	status, _, body = opensslCall(t, b, dir, env, script, "GET", "/v1/sandbox/customers")
	if status != 400 || !bytes.Contains(body, []byte("SIGNATURE_INVALID")) {
		t.Fatalf("wrong key: %d %s", status, body)
	}

	// The bank's response signature, checked with openssl only.
	env[1] = "KEY=" + filepath.Join(dir, "key.pem")
	status, _, body = opensslCall(t, b, dir, env, script, "GET", "/v1/sandbox/bank-certificate")
	if status != 200 {
		t.Fatalf("bank certificate: %d %s", status, body)
	}
	if err := os.WriteFile(filepath.Join(dir, "bank.pem"), body, 0o600); err != nil {
		t.Fatal(err)
	}
	pub := run(t, dir, nil, "openssl", "x509", "-in", "bank.pem", "-pubkey", "-noout")
	if err := os.WriteFile(filepath.Join(dir, "bank-pub.pem"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	status, h, body = opensslCall(t, b, dir, env, script, "GET", "/v1/sandbox/accounts")
	if status != 200 {
		t.Fatalf("accounts: %d", status)
	}
	if err := os.WriteFile(filepath.Join(dir, "resp.json"), body, 0o600); err != nil {
		t.Fatal(err)
	}
	opensslVerifyResponse(t, dir, h, "resp.json", "bank-pub.pem")
}

// opensslVerifyResponse checks a response of the bank with openssl
// alone: the Digest of its body, in the file body of dir, and the
// Signature over the headers it names, with the bank's public key in the
// file pub of dir.
func opensslVerifyResponse(t *testing.T, dir string, h http.Header, body, pub string) {
	t.Helper()
	digest := "SHA-256=" + strings.TrimSpace(string(run(t, dir, nil, "sh", "-c", "openssl dgst -sha256 -binary "+body+" | openssl base64 -A")))
	if h.Get("Digest") != digest {
		t.Fatalf("response Digest %q, openssl computes %q", h.Get("Digest"), digest)
	}
	p, err := httpsig.ParseSignature(h.Get("Signature"))
	if err != nil {
		t.Fatal(err)
	}
	var signing []string
	for _, name := range p.Headers {
		signing = append(signing, name+": "+h.Get(textproto.CanonicalMIMEHeaderKey(name)))
	}
	if err := os.WriteFile(filepath.Join(dir, "resp-signing.txt"), []byte(strings.Join(signing, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "resp-sig.b64"), []byte(p.Signature+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, dir, nil, "openssl", "base64", "-d", "-A", "-in", "resp-sig.b64", "-out", "resp-sig.bin")
	out := run(t, dir, nil, "openssl", "dgst", "-sha256", "-verify", pub, "-signature", "resp-sig.bin", "resp-signing.txt")
	if !bytes.Contains(out, []byte("Verified OK")) {
		t.Fatalf("openssl does not verify the response signature: %s", out)
	}
}
