package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"sandbank/app"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

const certUsage = `Test certificates.

Usage:
  sandbankd cert new --org 933012867 --name "Test TPP" --roles PSP_AI,PSP_PI --out DIR
  sandbankd cert new --operator --name "CI operator" --out DIR --data FILE
  sandbankd cert ca [> ca.pem]

Both ask the bank in the data file (--data); when a running bank holds
the data file, or --url is given without --data, they ask that bank.
--operator issues an operator certificate, which may also do what
concerns every TPP (settings, the clock, batch runs, every TPP's payments
and traffic): only the data file's owner gets one, so it needs --data.
`

func runCert(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, certUsage)
		return fmt.Errorf("%w: give a command: cert new or cert ca", errUsage)
	}
	switch args[0] {
	case "new":
		return certNew(ctx, args[1:], stdout, stderr)
	case "ca":
		return certCA(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stderr, certUsage)
		return flag.ErrHelp
	}
	fmt.Fprint(stderr, certUsage)
	return fmt.Errorf("%w: unknown command cert %s", errUsage, args[0])
}

func certNew(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sandbankd cert new", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, certUsage+"\nFlags:\n")
		fs.PrintDefaults()
	}
	org := fs.String("org", "", "the TPP's organisation number, e.g. 933012867 (organizationIdentifier PSDNO-FSA-<org>)")
	name := fs.String("name", "", "the TPP's name")
	roles := fs.String("roles", "PSP_AI,PSP_PI", "PSD2 roles, comma separated: PSP_AS, PSP_PI, PSP_AI, PSP_IC")
	out := fs.String("out", "", "folder to write cert.pem and key.pem to")
	days := fs.Int("days", 730, "days the certificate is valid")
	operator := fs.Bool("operator", false, "issue an operator certificate (needs --data): it may also do what concerns every TPP; --org defaults to "+app.OperatorOrg)
	bf := addBankFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if *operator && *org == "" {
		*org = app.OperatorOrg
	}
	usageLine := "\n" + strings.Join(usageLines(certUsage, "sandbankd cert new"), "\n") + "\n  see sandbankd cert new -h"
	if *org == "" || *name == "" || *out == "" {
		return fmt.Errorf("%w: --org, --name and --out are required%s", errUsage, usageLine)
	}
	if *operator && (!bf.given("data") || bf.given("cert")) {
		return fmt.Errorf("%w: --operator needs --data, the bank's data file, and signs as its operator: only whoever holds the data file may make the bank's operator (the bank need not stop; a running bank's running file is read), and --cert cannot stand in for it", errUsage)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: cert new takes no arguments, not %q%s", errUsage, fs.Arg(0), usageLine)
	}
	if *days < 1 || *days > 3650 {
		return fmt.Errorf("%w: --days must be between 1 and 3650", errUsage)
	}
	roleList := []string{} // an empty list, not none: the API requires roles
	for _, r := range strings.Split(*roles, ",") {
		if r = strings.TrimSpace(r); r != "" {
			roleList = append(roleList, strings.ToUpper(r))
		}
	}
	req := pki.TPPRequestFor(*name, *org, roleList, *days, time.Now())
	if problems := pki.CheckTPPRequest(req); problems != nil {
		return fmt.Errorf("%w: %v", errUsage, problems)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("generate the key: %w", err)
	}
	c, err := bf.connect(stderr, fileOrBank)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	cert, err := issue(ctx, c, stderr, key, certRequest{name: *name, org: *org, roles: roleList, days: *days, operator: *operator})
	if err != nil {
		return err
	}
	certPath, keyPath, err := app.WriteTPPFiles(*out, cert, key)
	if err != nil {
		return err
	}
	printIssued(stdout, c, bf, cert, certPath, keyPath, roleList, *operator)
	return nil
}

// printIssued says what cert new wrote and issued, by which bank's CA,
// and how to try it.
func printIssued(stdout io.Writer, c *bankClient, bf *bankFlags, cert *x509.Certificate, certPath, keyPath string, roles []string, operator bool) {
	issuer := "of the bank at " + c.base
	if c.app != nil {
		issuer = "in the data file " + *bf.data
	}
	fmt.Fprintf(stdout, "Wrote %s and %s\n", certPath, keyPath)
	what, try := "Issued", "GET /v1/sandbox/customers"
	if operator {
		what, try = "An operator certificate: it may do what concerns every TPP; keep its key to yourself. Issued", "GET /v1/sandbox/settings"
	}
	fmt.Fprintf(stdout, "%s by the test CA %s (%s)\n", what, issuer, caName(cert))
	fmt.Fprintf(stdout, "  TPP id:   %s\n  roles:    %s\n  serial:   %X\n  issuer:   %s\n  valid to: %s\n",
		pki.TPPID(cert), strings.Join(roles, ", "), cert.SerialNumber, httpsig.FormatDN(cert.Issuer), cert.NotAfter.Format(time.DateOnly))
	try = fmt.Sprintf("sandbankd call %s --cert %s --key %s", try, certPath, keyPath)
	switch {
	case bf.given("url"):
		try += " --url " + *bf.url
	case c.app == nil && c.base != defaultURL: // the running file's bank
		try += " --url " + c.base
	}
	fmt.Fprintf(stdout, "Try: %s\n", try)
}

// caName names the CA that issued cert: its CN and the start of its key
// id, which tells one bank's CA from another's (they share the CN).
func caName(cert *x509.Certificate) string {
	name := "CN=" + cert.Issuer.CommonName
	if id := cert.AuthorityKeyId; len(id) >= 4 {
		name += fmt.Sprintf(", key id %X", id[:4])
	}
	return name
}

// certRequest is what cert new asks the bank to certify.
type certRequest struct {
	name, org string
	roles     []string
	days      int
	operator  bool
}

// issue asks the bank to certify key: POST /v1/sandbox/tpp-certificates,
// or /v1/sandbox/operator-certificates for an operator certificate.
func issue(ctx context.Context, c *bankClient, stderr io.Writer, key *rsa.PrivateKey, r certRequest) (*x509.Certificate, error) {
	pubDER, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(map[string]any{
		"name": r.name, "organisationNumber": r.org, "roles": r.roles, "validDays": r.days,
		"publicKey": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})),
	})
	if err != nil {
		return nil, err
	}
	var out struct {
		Certificate string `json:"certificate"`
	}
	path := "/v1/sandbox/tpp-certificates"
	if r.operator {
		path = "/v1/sandbox/operator-certificates"
	}
	if _, _, err := c.callJSON(ctx, stderr, http.MethodPost, path, body, &out); err != nil {
		return nil, err
	}
	return pki.DecodeCert([]byte(out.Certificate))
}

func certCA(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sandbankd cert ca", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, certUsage+"\nFlags:\n")
		fs.PrintDefaults()
	}
	bf := addBankFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: cert ca takes no arguments, not %q; it prints the CA certificate: sandbankd cert ca > ca.pem", errUsage, fs.Arg(0))
	}
	c, err := bf.connect(stderr, fileOrBank)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	caPEM, _, err := c.call(ctx, stderr, http.MethodGet, "/v1/sandbox/ca-certificate", nil)
	if err != nil {
		return err
	}
	_, err = stdout.Write(caPEM)
	return err
}
