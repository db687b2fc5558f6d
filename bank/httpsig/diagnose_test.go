package httpsig_test

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
)

// opensslSign signs data with the PEM key file key by the openssl command
// line, RSA PKCS#1 v1.5 with the hash algorithm names (rsa-sha256 or
// rsa-sha512), and returns the signature in base64.
func opensslSign(t *testing.T, key, algorithm, data string) string {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Fatalf("openssl is not installed: %v", err)
	}
	cmd := exec.Command("openssl", "dgst", "-"+strings.TrimPrefix(algorithm, "rsa-"), "-sign", key)
	cmd.Stdin = strings.NewReader(data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	sig, err := cmd.Output()
	if err != nil {
		t.Fatalf("openssl dgst -sign: %v\n%s", err, stderr.String())
	}
	return base64.StdEncoding.EncodeToString(sig)
}

// TestVerifyNamesTheSigningMistake signs, with the openssl command line,
// the signing string as each common mistake writes it, and sends it with
// a request whose signing string is
//
//	(request-target): get /v1/accounts?withBalance=true
//	date: Tue, 07 Jan 2025 10:00:00 GMT
//	x-request-id: id-1
//
// The refusal names the mistake, in the error and in the signature step.
// A signature by another key, or over other values, gets the generic
// message. The signing strings are written out here, not built by the
// package, so that the verifier's variants cannot agree with themselves.
func TestVerifyNamesTheSigningMistake(t *testing.T) {
	f := getFixture(t)
	dir := t.TempDir()
	pkcs8, err := x509.MarshalPKCS8PrivateKey(f.tppKey)
	if err != nil {
		t.Fatal(err)
	}
	tppKey := filepath.Join(dir, "tpp.pem")
	if err := os.WriteFile(tppKey, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), 0o600); err != nil {
		t.Fatal(err)
	}
	otherKey := filepath.Join(dir, "other.pem")
	if out, err := exec.Command("openssl", "genrsa", "-out", otherKey, "2048").CombinedOutput(); err != nil {
		t.Fatalf("openssl genrsa: %v\n%s", err, out)
	}
	const (
		target = "(request-target): get /v1/accounts?withBalance=true"
		date   = "date: Tue, 07 Jan 2025 10:00:00 GMT"
		id     = "x-request-id: id-1"
		lower  = "(request-target) date x-request-id"
		// generic is the message when no mistake explains the signature.
		generic = "the RSA signature does not verify over the signing string with the certificate's key; sign exactly the signing string shown, with the key of this certificate"
		// named starts the message of a mistake that explains it.
		named = "the RSA signature does not verify over the signing string, but it does over the signing string "
	)
	cases := []struct {
		name    string
		headers string // the headers parameter
		signing string // what openssl signs
		key     string
		want    string // the whole message
	}{
		{"trailing newline", lower, target + "\n" + date + "\n" + id + "\n", tppKey,
			named + "with a trailing newline; sign the signing string without it (printf '%s', not echo, which adds one)"},
		{"CRLF line ends", lower, target + "\r\n" + date + "\r\n" + id, tppKey,
			named + `with its lines joined by \r\n; join them with \n alone`},
		{"CRLF after every line", lower, target + "\r\n" + date + "\r\n" + id + "\r\n", tppKey,
			named + `with \r\n after every line, the last one too; join the lines with \n alone, with nothing after the last`},
		{"two lines swapped", lower, date + "\n" + target + "\n" + id, tppKey,
			named + "with its lines in the order date (request-target) x-request-id, not in the order headers lists them; sign them in the order of headers, (request-target) date x-request-id (or list them in the order you sign them)"},
		{"lines reversed", lower, id + "\n" + date + "\n" + target, tppKey,
			named + "with its lines in the order x-request-id date (request-target), not in the order headers lists them; sign them in the order of headers, (request-target) date x-request-id (or list them in the order you sign them)"},
		{"header names as the specification writes them", lower, target + "\nDate: Tue, 07 Jan 2025 10:00:00 GMT\nX-Request-ID: id-1", tppKey,
			named + "with the header names written Date: X-Request-ID:; write every name in lower case: date: x-request-id:"},
		{"header names as Go writes them", lower, target + "\nDate: Tue, 07 Jan 2025 10:00:00 GMT\nX-Request-Id: id-1", tppKey,
			named + "with the header names written Date: X-Request-Id:; write every name in lower case: date: x-request-id:"},
		{"header names as the headers parameter writes them", "(request-target) Date X-Request-ID", target + "\nDate: Tue, 07 Jan 2025 10:00:00 GMT\nX-Request-ID: id-1", tppKey,
			named + "with the header names written Date: X-Request-ID:; write every name in lower case: date: x-request-id:"},
		{"method in upper case", lower, "(request-target): GET /v1/accounts?withBalance=true\n" + date + "\n" + id, tppKey,
			named + "with the method in upper case, (request-target): GET /v1/accounts?withBalance=true; write the method in lower case: (request-target): get /v1/accounts?withBalance=true"},
		{"request target without the query", lower, "(request-target): get /v1/accounts\n" + date + "\n" + id, tppKey,
			named + "with (request-target) without the query, (request-target): get /v1/accounts; the query belongs to it: (request-target): get /v1/accounts?withBalance=true"},
		{"another key", lower, target + "\n" + date + "\n" + id, otherKey, generic},
		{"another key and a trailing newline", lower, target + "\n" + date + "\n" + id + "\n", otherKey, generic},
		{"another X-Request-ID", lower, target + "\n" + date + "\nx-request-id: id-2", tppKey, generic},
		{"two mistakes at once", lower, "(request-target): GET /v1/accounts?withBalance=true\n" + date + "\n" + id + "\n", tppKey, generic},
	}
	vf := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, f.clock(0))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := serverRequest("GET", "/v1/accounts?withBalance=true", nil, "Date", "Tue, 07 Jan 2025 10:00:00 GMT", "X-Request-ID", "id-1",
				"TPP-Signature-Certificate", certHeader(f.tpp),
				"Signature", `keyId="`+keyID(f.tpp)+`",algorithm="rsa-sha256",headers="`+tc.headers+`",signature="`+opensslSign(t, tc.key, "rsa-sha256", tc.signing)+`"`)
			v := vf.Verify(r, nil)
			assertFailed(t, v, apierr.CodeSignatureInvalid, "signature", "does not verify")
			if v.Err.Message != tc.want {
				t.Errorf("message\n %s\nwant\n %s", v.Err.Message, tc.want)
			}
			if v.SigningString != target+"\n"+date+"\n"+id {
				t.Errorf("the verdict's signing string is %q, want the bank's own", v.SigningString)
			}
		})
	}

	// The signing string as the bank rebuilds it verifies, signed by openssl
	// with the same key: the mistakes above are the only difference. With
	// rsa-sha512 a mistake is named as with rsa-sha256.
	for _, alg := range []string{"rsa-sha256", "rsa-sha512"} {
		signed := func(signing string) *http.Request {
			return serverRequest("GET", "/v1/accounts?withBalance=true", nil, "Date", "Tue, 07 Jan 2025 10:00:00 GMT", "X-Request-ID", "id-1",
				"TPP-Signature-Certificate", certHeader(f.tpp),
				"Signature", `keyId="`+keyID(f.tpp)+`",algorithm="`+alg+`",headers="`+lower+`",signature="`+opensslSign(t, tppKey, alg, signing)+`"`)
		}
		assertPassed(t, vf.Verify(signed(target+"\n"+date+"\n"+id), nil))
		v := vf.Verify(signed(target+"\n"+date+"\n"+id+"\n"), nil)
		assertFailed(t, v, apierr.CodeSignatureInvalid, "signature", named+"with a trailing newline")
	}
}

// A request with a body: the digest line takes part in the order and the
// case of the names, and the signing mistakes are named as for a GET.
func TestVerifyNamesTheSigningMistakeWithABody(t *testing.T) {
	f := getFixture(t)
	dir := t.TempDir()
	pkcs8, err := x509.MarshalPKCS8PrivateKey(f.tppKey)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "tpp.pem")
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), 0o600); err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"a":1}`)
	digest := httpsig.Digest(body)
	// Sorted by name, as a signer that walks a sorted map of headers
	// writes them.
	sorted := "(request-target): post /v1/x\ndate: Tue, 07 Jan 2025 10:00:00 GMT\ndigest: " + digest + "\npsu-id: PSU-1\nx-request-id: id-1"
	r := serverRequest("POST", "/v1/x", body, "Date", "Tue, 07 Jan 2025 10:00:00 GMT", "X-Request-ID", "id-1", "PSU-ID", "PSU-1",
		"Digest", digest, "TPP-Signature-Certificate", certHeader(f.tpp),
		"Signature", `keyId="`+keyID(f.tpp)+`",algorithm="rsa-sha256",headers="(request-target) date digest x-request-id psu-id",signature="`+opensslSign(t, key, "rsa-sha256", sorted)+`"`)
	v := httpsig.NewVerifier(httpsig.Policy{RequireSignature: true}, f.clock(0)).Verify(r, body)
	assertFailed(t, v, apierr.CodeSignatureInvalid, "signature", "with its lines in the order (request-target) date digest psu-id x-request-id, not in the order headers lists them")
}
