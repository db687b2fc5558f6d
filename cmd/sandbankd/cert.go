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
  sandbankd cert ca [> ca.pem]

Both ask the bank in the data file (--data); when a running bank holds
the data file, or --url is given without --data, they ask that bank.
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
	org := fs.String("org", "", "the TPP's organisation number, e.g. 933012867 (organizationIdentifier PSDNO-FSA-<org>)")
	name := fs.String("name", "", "the TPP's name")
	roles := fs.String("roles", "PSP_AI,PSP_PI", "PSD2 roles, comma separated: PSP_AS, PSP_PI, PSP_AI, PSP_IC")
	out := fs.String("out", "", "folder to write cert.pem and key.pem to")
	days := fs.Int("days", 730, "days the certificate is valid")
	bf := addBankFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if *org == "" || *name == "" || *out == "" {
		fs.Usage()
		return fmt.Errorf("%w: --org, --name and --out are required", errUsage)
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
	cert, err := issue(ctx, c, stderr, key, *name, *org, roleList, *days)
	if err != nil {
		return err
	}
	issuer := "of the bank at " + c.base
	if c.app != nil {
		issuer = "in the data file " + *bf.data
	}
	certPath, keyPath, err := app.WriteTPPFiles(*out, cert, key)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Wrote %s and %s\n", certPath, keyPath)
	fmt.Fprintf(stdout, "Issued by the test CA %s (%s)\n", issuer, caName(cert))
	fmt.Fprintf(stdout, "  TPP id:   %s\n  roles:    %s\n  serial:   %X\n  issuer:   %s\n  valid to: %s\n",
		pki.TPPID(cert), strings.Join(roleList, ", "), cert.SerialNumber, httpsig.FormatDN(cert.Issuer), cert.NotAfter.Format(time.DateOnly))
	try := fmt.Sprintf("sandbankd call GET /v1/sandbox/customers --cert %s --key %s", certPath, keyPath)
	if *bf.url != defaultURL {
		try += " --url " + *bf.url
	}
	fmt.Fprintf(stdout, "Try: %s\n", try)
	return nil
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

// issue asks the bank to certify key (POST /v1/sandbox/tpp-certificates).
func issue(ctx context.Context, c *bankClient, stderr io.Writer, key *rsa.PrivateKey, name, org string, roles []string, days int) (*x509.Certificate, error) {
	pubDER, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(map[string]any{
		"name": name, "organisationNumber": org, "roles": roles, "validDays": days,
		"publicKey": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})),
	})
	if err != nil {
		return nil, err
	}
	var out struct {
		Certificate string `json:"certificate"`
	}
	if _, _, err := c.callJSON(ctx, stderr, http.MethodPost, "/v1/sandbox/tpp-certificates", body, &out); err != nil {
		return nil, err
	}
	return pki.DecodeCert([]byte(out.Certificate))
}

func certCA(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sandbankd cert ca", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bf := addBankFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
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
