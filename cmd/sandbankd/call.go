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
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// repeated collects the values of a repeatable flag (-H, --ignore).
type repeated []string

func (h *repeated) String() string     { return strings.Join(*h, ", ") }
func (h *repeated) Set(v string) error { *h = append(*h, v); return nil }

const callUsage = `Sign and send one request to the bank, like curl, and print the status,
headers and body.

Usage:
  sandbankd call METHOD PATH [--body FILE] [-H 'Name: value']... [--data FILE | --url BASE] [--cert FILE --key FILE] [--body-only] [--fail] [-o FILE]

Which bank, and how the request is signed, as for the other commands,
except that without --data call asks the bank at --url:
  --data FILE          the bank of that data file: the running bank that
                       holds it (wherever it serves), else the data file
                       itself, opened by this command; signed as the bank's
                       operator
  --url BASE           that bank (default http://127.0.0.1:7380), signed
                       with a self-signed certificate of the command's own,
                       a TPP's
  --cert F --key F     sign with this certificate instead, e.g. one from
                       sandbankd cert new

Examples:
  sandbankd call GET /v1/sandbox/customers --cert tpp/cert.pem --key tpp/key.pem
  sandbankd call GET /v1/sandbox/settings --data ci.db
  sandbankd call GET /v1/sandbox/customers --cert tpp/cert.pem --key tpp/key.pem --body-only --fail | jq -r '.[].customerName'
  sandbankd call GET /v1/sandbox/requests.har -o traffic.har --data ci.db

Flags:
`

// callFlags are the flags of sandbankd call besides the bank flags.
type callFlags struct {
	bodyFile, outFile     string
	headers               repeated
	bodyOnly, failOnError bool
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
	fs.BoolVar(&c.bodyOnly, "body-only", false, "write only the body to standard output, byte for byte as received; the status line and headers go to standard error")
	fs.BoolVar(&c.failOnError, "fail", false, "exit with status 22 when the bank answers 400 or more; the answer then goes to standard error, and nothing to standard output")
	fs.StringVar(&c.outFile, "o", "", "write the response body to this file as it came (e.g. a HAR export) and print only the status and headers")
	bf := addBankFlags(fs)
	bf.urlFirst = true
	fs.Lookup("url").Usage = "the bank's base URL, asked when --data is not given; with --data, the address of the bank that holds the data file (default: where its running file says it serves)"
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageErr(err)
	}
	usageLine := "\n  " + strings.TrimSpace(usageLines(callUsage, "sandbankd call")[0])
	if len(pos) != 2 {
		return fmt.Errorf("%w: give METHOD and PATH, e.g. sandbankd call GET /v1/sandbox/customers --data FILE%s", errUsage, usageLine)
	}
	method, path := strings.ToUpper(pos[0]), pos[1]
	header, err := c.header()
	if err == nil {
		err = checkRequestLine(method, path)
	}
	if err != nil {
		return fmt.Errorf("%w: %v%s", errUsage, err, usageLine)
	}
	body, err := c.body(stdin)
	if err != nil {
		return err
	}
	cl, err := bf.connect(stderr, fileOrBank)
	if err != nil {
		return err
	}
	defer func() { _ = cl.Close() }()
	resp, err := cl.sendHeaders(ctx, method, path, body, header)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	respBody, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("read the answer of %s: %w", cl.where, err)
	}
	if resp.StatusCode >= 400 {
		defer func() {
			if hint := cl.refusal(resp, respBody).hint; hint != "" {
				fmt.Fprintf(stderr, "sandbankd: %s\n", hint)
			}
		}()
	}
	return c.write(resp, respBody, stdout, stderr)
}

// checkRequestLine refuses a METHOD that is not a method's name and a
// PATH that is not a path of the bank.
func checkRequestLine(method, path string) error {
	if method == "" || strings.IndexFunc(method, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
		return fmt.Errorf("METHOD %q is not a method: write GET, POST, PUT, PATCH or DELETE", method)
	}
	if !strings.HasPrefix(path, "/") {
		return fmt.Errorf("PATH must start with /, e.g. /v1/sandbox/customers, not %q", path)
	}
	if u, err := url.Parse(path); err != nil || u.Host != "" || strings.ContainsAny(path, " \t\r\n#") {
		return fmt.Errorf("PATH %q is not a path and query: write spaces and # escaped (%%20, %%23)", path)
	}
	return nil
}

// header returns the -H headers; one that is not 'Name: value' is an
// error.
func (c callFlags) header() (http.Header, error) {
	h := http.Header{}
	for _, line := range c.headers {
		name, value, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(name) == "" || strings.ContainsAny(strings.TrimSpace(name), " \t") {
			return nil, fmt.Errorf("-H %q is not 'Name: value'", line)
		}
		h.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	return h, nil
}

// body reads the request body: --body FILE, standard input for -, or
// none.
func (c callFlags) body(stdin io.Reader) ([]byte, error) {
	switch c.bodyFile {
	case "":
		return nil, nil
	case "-":
		body, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("read the body from standard input: %w", err)
		}
		return body, nil
	}
	body, err := os.ReadFile(c.bodyFile)
	if err != nil {
		return nil, fmt.Errorf("read the body: %w; give --body an existing file, or - for standard input", err)
	}
	return body, nil
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
