package replay

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// Certificates. Each certificate the recording's requests were signed
// with stands for a TPP; the replay signs that TPP's requests with a new
// test certificate like it, issued by the bank replayed to (POST
// /v1/sandbox/tpp-certificates): the same name, the same roles and,
// when it is a Norwegian one (organizationIdentifier PSDNO-FSA-<number>),
// the same organisation number, so the same TPP id. An operator
// certificate's requests are signed by the operator. Options.Signer,
// when given, signs every TPP's requests instead.

// replayOrg is the organisation number of a test certificate for a
// recorded certificate that names none the bank's CA can issue.
const replayOrg = "999999999"

// replayName is the name of a test certificate for a recorded certificate
// without a usable name.
const replayName = "Sandbank replay"

// signers gives each recorded request the signer the replay signs it with.
type signers struct {
	fixed    *httpsig.Signer
	operator *httpsig.Signer
	// byCert maps a recorded certificate's DER to its new signer.
	byCert map[string]*httpsig.Signer
	// def signs a request whose certificate the recording lacks, or which
	// does not read.
	def *httpsig.Signer
	// issuer signs the requests that issue certificates: the operator, or
	// a self-signed certificate, which trust mode any accepts.
	issuer *httpsig.Signer
	// issued counts the certificates issued, for the report.
	issued int
}

// forEntry returns the signer of a recorded request that was signed.
func (s *signers) forEntry(e *Entry) *httpsig.Signer {
	der, err := httpsig.DecodeCertificateHeader(e.Get("TPP-Signature-Certificate"))
	if err == nil {
		if cert, err := x509.ParseCertificate(der); err == nil && isOperator(cert) && s.operator != nil {
			return s.operator
		}
		if sg := s.byCert[string(der)]; sg != nil {
			return sg
		}
	}
	if s.fixed != nil {
		return s.fixed
	}
	return s.def
}

// isOperator reports whether a recorded certificate is a Sandbank
// operator's (it carries pki.OperatorPolicy).
func isOperator(cert *x509.Certificate) bool {
	return slices.ContainsFunc(cert.Policies, pki.OperatorPolicy.Equal)
}

// prepare issues, before anything of the recording is sent, a test
// certificate for each certificate the requests to send were signed
// with, so that a bank that refuses to issue them is found at once.
func (r *run) prepareSigners(ctx context.Context, steps []planned) error {
	s := &signers{fixed: r.opts.Signer, operator: r.target.Operator, byCert: map[string]*httpsig.Signer{}}
	r.signers = s
	needDefault := false
	for _, pe := range steps {
		e := pe.entry
		if pe.action != actSend || e.Get("Signature") == "" {
			continue
		}
		der, err := httpsig.DecodeCertificateHeader(e.Get("TPP-Signature-Certificate"))
		var cert *x509.Certificate
		if err == nil {
			cert, err = x509.ParseCertificate(der)
		}
		switch {
		case err != nil:
			needDefault = true
		case isOperator(cert) && s.operator != nil:
		case s.fixed != nil:
		case s.byCert[string(der)] == nil:
			sg, err := r.issue(ctx, requestLike(cert))
			if err != nil {
				return err
			}
			s.byCert[string(der)] = sg
		}
	}
	if needDefault && s.fixed == nil {
		roles := append([]string(nil), pki.Roles...)
		sg, err := r.issue(ctx, pki.TPPRequestFor(replayName, replayOrg, roles, 30, time.Now()))
		if err != nil {
			return err
		}
		s.def = sg
	}
	if s.def == nil {
		s.def = s.fixed
	}
	return nil
}

// requestLike is a test certificate request like a recorded certificate:
// its name, organisation number and roles.
func requestLike(cert *x509.Certificate) pki.TPPRequest {
	name := cert.Subject.CommonName
	if o := cert.Subject.Organization; len(o) > 0 && strings.TrimSpace(o[0]) != "" {
		name = o[0]
	}
	if utf8.RuneCountInString(name) > 64 {
		name = string([]rune(name)[:64])
	}
	org := replayOrg
	for _, n := range cert.Subject.Names {
		if n.Type.Equal(pki.OrganizationIdentifierOID) {
			if v, ok := n.Value.(string); ok {
				if i := strings.LastIndexByte(v, '-'); i >= 0 && strings.HasPrefix(strings.ToUpper(v), "PSDNO-FSA-") {
					org = v[i+1:]
				}
			}
		}
	}
	roles, named, err := pki.PSD2Roles(cert)
	if !named || err != nil {
		roles = append([]string(nil), pki.Roles...) // what trust mode any grants a certificate that names none
	}
	req := pki.TPPRequestFor(name, org, roles, 30, time.Now())
	for _, p := range pki.CheckTPPRequest(req) {
		switch p.Field {
		case "name":
			req.Name = replayName
		case "organisationNumber":
			req.OrgNumber = replayOrg
		}
	}
	return req
}

// issue makes a key and asks the bank for a test certificate of it.
func (r *run) issue(ctx context.Context, req pki.TPPRequest) (*httpsig.Signer, error) {
	if r.signers.issuer == nil {
		r.signers.issuer = r.target.Operator
		if r.signers.issuer == nil {
			sg, err := selfSigned()
			if err != nil {
				return nil, err
			}
			r.signers.issuer = sg
		}
	}
	key, err := rsa.GenerateKey(rand.Reader, pki.MinRSABits)
	if err != nil {
		return nil, fmt.Errorf("generate a key: %w", err)
	}
	pub, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(map[string]any{
		"name": req.Name, "organisationNumber": req.OrgNumber, "roles": req.Roles, "validDays": 30,
		"publicKey": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})),
	})
	if err != nil {
		return nil, err
	}
	got, err := r.setup(ctx, r.signers.issuer, http.MethodPost, "/v1/sandbox/tpp-certificates", body)
	if err != nil {
		return nil, err
	}
	if got.status != http.StatusCreated {
		return nil, fmt.Errorf("the bank at %s refused to issue a test certificate for %s (organisation %s): %d %s; give --cert and --key of a certificate it accepts", r.target.Base, req.Name, req.OrgNumber, got.status, errorText(got.body))
	}
	var out struct {
		Certificate string `json:"certificate"`
	}
	if err := json.Unmarshal(got.body, &out); err != nil {
		return nil, fmt.Errorf("the bank's answer to POST /v1/sandbox/tpp-certificates: %w", err)
	}
	cert, err := pki.DecodeCert([]byte(out.Certificate))
	if err != nil {
		return nil, fmt.Errorf("the certificate the bank issued: %w", err)
	}
	r.signers.issued++
	return httpsig.NewSigner(cert, key)
}

// selfSigned is a signer of a certificate of its own, for a bank in trust
// mode any.
func selfSigned() (*httpsig.Signer, error) {
	key, err := rsa.GenerateKey(rand.Reader, pki.MinRSABits)
	if err != nil {
		return nil, fmt.Errorf("generate a key: %w", err)
	}
	cert, err := pki.SelfSigned(key, replayName, time.Now())
	if err != nil {
		return nil, err
	}
	return httpsig.NewSigner(cert, key)
}

// errorText is an error answer's code and message, for a message.
func errorText(body []byte) string {
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil && e.Code != "" {
		return e.Code + ": " + e.Message
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
