package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"sandbank/app"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
	"sandbank/storage"
)

const certUsage = `Test certificates.

Usage:
  sandbankd cert new --org 933012867 --name "Test TPP" --roles PSP_AI,PSP_PI --out DIR
  sandbankd cert ca [> ca.pem]

Both read the bank's CA from the data file. When a running bank holds the
data file, they ask that bank instead (--url).
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

// withAuthority runs fn with the CA from the data file. It reports
// inUse when another process holds the file.
func withAuthority(dataPath string, fn func(*pki.Authority) error) (inUse bool, err error) {
	a, err := app.Open(app.Config{DataPath: dataPath})
	if errors.Is(err, storage.ErrInUse) {
		return true, err
	}
	if err != nil {
		return false, err
	}
	defer func() { _ = a.Close() }()
	return false, fn(a.Authority)
}

func certNew(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sandbankd cert new", flag.ContinueOnError)
	fs.SetOutput(stderr)
	org := fs.String("org", "", "the TPP's organisation number, e.g. 933012867 (organizationIdentifier PSDNO-FSA-<org>)")
	name := fs.String("name", "", "the TPP's name")
	roles := fs.String("roles", "PSP_AI,PSP_PI", "PSD2 roles, comma separated: PSP_AS, PSP_PI, PSP_AI, PSP_IC")
	out := fs.String("out", "", "folder to write cert.pem and key.pem to")
	days := fs.Int("days", 730, "days the certificate is valid")
	data := dataFlag(fs)
	base := fs.String("url", defaultURL, "the running bank to ask when another process holds the data file")
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
	var cert *x509.Certificate
	inUse, err := withAuthority(*data, func(ca *pki.Authority) error {
		cert, err = ca.IssueTPP(req, key.Public())
		return err
	})
	issuer := "in the data file " + *data
	if inUse {
		fmt.Fprintf(stderr, "The data file is in use by a running bank; asking it at %s.\n", *base)
		cert, err = issueRemote(ctx, *base, key, *name, *org, roleList, *days)
		issuer = "of the bank at " + *base
	}
	if err != nil {
		return err
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
	if *base != defaultURL {
		try += " --url " + *base
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

// issueRemote asks a running bank to certify key, signing the request with
// a self-signed certificate for the same key (accepted in trust mode any).
func issueRemote(ctx context.Context, base string, key *rsa.PrivateKey, name, org string, roles []string, days int) (*x509.Certificate, error) {
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
	resp, err := remote(ctx, base, key, http.MethodPost, "/v1/sandbox/tpp-certificates", body)
	if err != nil {
		return nil, err
	}
	var out struct {
		Certificate string `json:"certificate"`
	}
	if err := json.Unmarshal(resp, &out); err != nil {
		return nil, fmt.Errorf("read the bank's answer: %w", err)
	}
	return pki.DecodeCert([]byte(out.Certificate))
}

// remote sends one request signed with a self-signed certificate for key
// and returns the body of a 2xx answer.
func remote(ctx context.Context, base string, key *rsa.PrivateKey, method, path string, body []byte) ([]byte, error) {
	self, err := pki.SelfSigned(key, "sandbankd cert", time.Now())
	if err != nil {
		return nil, err
	}
	signer, err := httpsig.NewSigner(self, key)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(base, "/")+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if len(body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	if err := signer.SignRequest(req, body); err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the data file is in use and no bank answers at %s (stop the other process or pass --url): %w", base, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("the bank at %s answered %s: %s (in trust mode store, stop the bank and run this again)", base, resp.Status, strings.TrimSpace(string(data)))
	}
	return data, nil
}

func certCA(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sandbankd cert ca", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := dataFlag(fs)
	base := fs.String("url", defaultURL, "the running bank to ask when another process holds the data file")
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	var caPEM []byte
	inUse, err := withAuthority(*data, func(ca *pki.Authority) error {
		caPEM = pki.EncodeCert(ca.Cert)
		return nil
	})
	if inUse {
		fmt.Fprintf(stderr, "The data file is in use by a running bank; asking it at %s.\n", *base)
		key, kerr := rsa.GenerateKey(rand.Reader, 2048)
		if kerr != nil {
			return kerr
		}
		caPEM, err = remote(ctx, *base, key, http.MethodGet, "/v1/sandbox/ca-certificate", nil)
	}
	if err != nil {
		return err
	}
	_, err = stdout.Write(caPEM)
	return err
}
