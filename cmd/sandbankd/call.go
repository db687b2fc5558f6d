package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// headerList collects repeated -H flags.
type headerList []string

func (h *headerList) String() string     { return strings.Join(*h, ", ") }
func (h *headerList) Set(v string) error { *h = append(*h, v); return nil }

const callUsage = `Sign and send one request to the bank, like curl, and print the status,
headers and body.

Usage:
  sandbankd call METHOD PATH [--body FILE] [-H 'Name: value']... --cert FILE --key FILE [--url BASE] [--body-only] [--fail] [-o FILE]

Examples:
  sandbankd call GET /v1/sandbox/customers --cert tpp/cert.pem --key tpp/key.pem
  sandbankd call GET /v1/sandbox/customers --cert tpp/cert.pem --key tpp/key.pem --body-only --fail | jq -r '.[].customerName'
  sandbankd call GET /v1/sandbox/requests.har -o traffic.har --cert tpp/cert.pem --key tpp/key.pem

Flags:
`

// callFlags are the flags of sandbankd call.
type callFlags struct {
	bodyFile, certFile, keyFile, base, caFile, outFile string
	headers                                            headerList
	bodyOnly, failOnError                              bool
}

func runCall(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var c callFlags
	fs := flag.NewFlagSet("sandbankd call", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, callUsage)
		fs.PrintDefaults()
	}
	fs.StringVar(&c.bodyFile, "body", "", "file with the request body; - reads standard input")
	fs.Var(&c.headers, "H", "an extra header 'Name: value' (repeatable)")
	fs.StringVar(&c.certFile, "cert", "", "the TPP certificate (PEM)")
	fs.StringVar(&c.keyFile, "key", "", "the certificate's private key (PEM)")
	fs.StringVar(&c.base, "url", defaultURL, "the bank's base URL")
	fs.StringVar(&c.caFile, "ca", "", "CA certificate (PEM) to trust for an https URL, e.g. from sandbankd cert ca")
	fs.BoolVar(&c.bodyOnly, "body-only", false, "write only the body to standard output, byte for byte as received; the status line and headers go to standard error")
	fs.BoolVar(&c.failOnError, "fail", false, "exit with status 22 when the bank answers 400 or more; the answer then goes to standard error, and nothing to standard output")
	fs.StringVar(&c.outFile, "o", "", "write the response body to this file as it came (e.g. a HAR export) and print only the status and headers")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageErr(err)
	}
	if len(pos) != 2 {
		fs.Usage()
		return fmt.Errorf("%w: give METHOD and PATH, e.g. sandbankd call GET /v1/sandbox/customers --cert cert.pem --key key.pem", errUsage)
	}
	req, body, err := c.request(ctx, strings.ToUpper(pos[0]), pos[1], stdin)
	if err != nil {
		return err
	}
	signer, err := loadSigner(c.certFile, c.keyFile)
	if err != nil {
		return err
	}
	if err := signer.SignRequest(req, body); err != nil {
		return err
	}
	client, err := httpClient(c.caFile)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("send the request (is the bank running at %s?): %w", c.base, err)
	}
	defer func() { _ = resp.Body.Close() }()
	respBody, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("read the response: %w", err)
	}
	return c.write(resp, respBody, stdout, stderr)
}

// request builds the unsigned request of method and path, with its body
// and extra headers.
func (c callFlags) request(ctx context.Context, method, path string, stdin io.Reader) (*http.Request, []byte, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, nil, fmt.Errorf("%w: PATH must start with /, e.g. /v1/sandbox/customers", errUsage)
	}
	if c.certFile == "" || c.keyFile == "" {
		return nil, nil, fmt.Errorf("%w: --cert and --key are required; make a pair with sandbankd cert new --org 933012867 --name 'Test TPP' --roles PSP_AI,PSP_PI --out tpp", errUsage)
	}
	var body []byte
	var err error
	switch c.bodyFile {
	case "":
	case "-":
		if body, err = io.ReadAll(stdin); err != nil {
			return nil, nil, fmt.Errorf("read the body from standard input: %w", err)
		}
	default:
		if body, err = os.ReadFile(c.bodyFile); err != nil {
			return nil, nil, fmt.Errorf("read the body: %w", err)
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.base, "/")+path, bytes.NewReader(body))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	if len(body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range c.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, nil, fmt.Errorf("%w: -H %q is not 'Name: value'", errUsage, h)
		}
		req.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	return req, body, nil
}

// write prints the answer as the flags say: to standard error under
// --fail for a status of 400 or more, the body to a file with -o, only
// the body with --body-only, else status, headers and body.
func (c callFlags) write(resp *http.Response, body []byte, stdout, stderr io.Writer) error {
	switch {
	case c.failOnError && resp.StatusCode >= 400:
		printResponse(stderr, resp, body)
		return &statusError{status: resp.Status}
	case c.outFile != "":
		if err := os.WriteFile(c.outFile, body, 0o600); err != nil {
			return fmt.Errorf("write the response body: %w", err)
		}
		out := stdout
		if c.bodyOnly {
			out = stderr
		}
		printResponse(out, resp, nil)
		fmt.Fprintf(out, "(%d bytes of body written to %s)\n", len(body), c.outFile)
		return nil
	case c.bodyOnly:
		printHead(stderr, resp)
		_, err := stdout.Write(body)
		return err
	}
	printResponse(stdout, resp, body)
	return nil
}

// statusError is an answer of 400 or more under --fail.
type statusError struct{ status string }

func (e *statusError) Error() string {
	return "the bank answered " + e.status + " (--fail exits 22; the answer is above)"
}

// parseInterspersed parses flags that may stand before, between or after
// the positional arguments, which it returns.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// loadSigner reads a certificate and key pair for signing.
func loadSigner(certFile, keyFile string) (*httpsig.Signer, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return nil, fmt.Errorf("read the certificate: %w", err)
	}
	cert, err := pki.DecodeCert(certPEM)
	if err != nil {
		return nil, fmt.Errorf("read the certificate %s: %w", certFile, err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("read the key: %w", err)
	}
	key, err := pki.DecodeKey(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("read the key %s: %w", keyFile, err)
	}
	s, err := httpsig.NewSigner(cert, key)
	if err != nil {
		return nil, fmt.Errorf("%s and %s: %w", certFile, keyFile, err)
	}
	return s, nil
}

// httpClient returns a client that trusts caFile, when given, for HTTPS.
func httpClient(caFile string) (*http.Client, error) {
	if caFile == "" {
		return &http.Client{Timeout: 60 * time.Second, CheckRedirect: keepRedirect}, nil
	}
	pemData, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("read --ca: %w", err)
	}
	return httpClientTrusting(pemData, "--ca "+caFile)
}

// httpClientTrusting is httpClient, trusting the CA certificates of
// pemData (what names where they came from, for the error).
func httpClientTrusting(pemData []byte, what string) (*http.Client, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemData) {
		return nil, fmt.Errorf("%s holds no PEM certificate", what)
	}
	return &http.Client{Timeout: 60 * time.Second, CheckRedirect: keepRedirect,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}, nil
}

// printResponse writes the status line, the headers in order and the body,
// indented when it is JSON.
func printResponse(w io.Writer, resp *http.Response, body []byte) {
	printHead(w, resp)
	fmt.Fprintln(w)
	var pretty bytes.Buffer
	if json.Valid(body) && json.Indent(&pretty, body, "", "  ") == nil {
		pretty.WriteByte('\n')
		_, _ = w.Write(pretty.Bytes())
		return
	}
	_, _ = w.Write(body)
}

// printHead writes the status line and the headers in order.
func printHead(w io.Writer, resp *http.Response) {
	fmt.Fprintf(w, "%s %s\n", resp.Proto, resp.Status)
	names := make([]string, 0, len(resp.Header))
	for name := range resp.Header {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, v := range resp.Header[name] {
			fmt.Fprintf(w, "%s: %s\n", name, v)
		}
	}
}
