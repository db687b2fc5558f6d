package psd2api_test

import (
	"crypto/x509/pkix"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
	"sandbank/bank/reqlog"
)

// setStrict turns the strict setting on or off, as the desktop app does.
func setStrict(t *testing.T, b *apptest.Bank, on bool) {
	t.Helper()
	if _, err := b.Bank.Ops.UpdateSettings(func(s *bank.Settings) { s.Strict = on }); err != nil {
		t.Fatal(err)
	}
}

// keyIDNote returns the verdict's one client note about the keyId and
// checks that the keyId step of the verdict shows it; "" when the verdict
// has no note.
func keyIDNote(t *testing.T, e reqlog.Entry) string {
	t.Helper()
	v := e.Verdict
	if v == nil || v.Err != nil {
		t.Fatalf("request %s: verdict %+v, want a passed one", e.RequestID, v)
	}
	if len(v.Notes) == 0 {
		return ""
	}
	if len(v.Notes) != 1 {
		t.Fatalf("request %s: notes %+v, want one", e.RequestID, v.Notes)
	}
	n := v.Notes[0]
	if n.Category != "WARNING" || n.Path != "keyId" || n.Refuse != apierr.CodeSignatureInvalid {
		t.Errorf("note %+v: want a WARNING about keyId that strict mode refuses with SIGNATURE_INVALID", n)
	}
	for _, st := range v.Steps {
		if st.Check == "keyId" && !strings.Contains(st.Detail, n.Text) {
			t.Errorf("keyId step %q does not show the note %q", st.Detail, n.Text)
		}
	}
	return n.Text
}

// refused checks a 400 SIGNATURE_INVALID whose message mentions mention.
func refused(t *testing.T, status int, body []byte, mention string) {
	t.Helper()
	if status != 400 || !strings.Contains(string(body), `"SIGNATURE_INVALID"`) || !strings.Contains(string(body), mention) {
		t.Errorf("status %d %s; want 400 SIGNATURE_INVALID mentioning %q", status, body, mention)
	}
}

// TestKeyID_IssuerInPart: a keyId whose CA leaves out the issuer's
// organizationIdentifier, as signers that write a fixed list of attributes
// (CN, O, OU, L, S, C) do, is accepted with a client note in the request
// log naming what was left out: for a self-signed certificate, and for one
// the bank's test CA issues as sandbankd cert new does. Strict mode
// refuses it with the note's text. A CA with a value that differs, a wrong
// serial and a wrong signature stay refused.
func TestKeyID_IssuerInPart(t *testing.T) {
	b := apptest.Start(t, apptest.Options{})
	key := apptest.Key(t, 1)
	self := apptest.TPPFor(t, selfSigned(t, key, pkix.Name{
		CommonName: "Selvsignert TPP", Organization: []string{"Selvsignert TPP AS"}, Locality: []string{"Tromsø"},
		Province: []string{"Troms"}, Country: []string{"NO"},
		ExtraNames: []pkix.AttributeTypeAndValue{{Type: pki.OrganizationIdentifierOID, Value: "PSDNO-FSA-912345678"}},
	}), key)
	issued := b.NewTPP("933012867", 0, pki.RoleAI, pki.RolePI)
	other := apptest.Key(t, 2)

	cases := []struct {
		name  string
		tpp   *apptest.TPP
		orgID string
		part  string // the issuer as a fixed-list signer writes it
		wrong string // part with a value that differs
	}{
		{"self-signed", self, "PSDNO-FSA-912345678",
			`CN=Selvsignert TPP,O=Selvsignert TPP AS,L=Troms\C3\B8,S=Troms,C=NO`, `CN=Selvsignert TPP,O=Selvsignert TPP AS,L=Troms\C3\B6,S=Troms,C=NO`},
		{"issued by the test CA", issued, "NTRNO-999999999",
			"CN=Sandbank Sandbox CA,O=Sandbank Sandbox,C=NO", "CN=Sandbank Sandbox CA,O=Sandbank Sandbox AS,C=NO"},
	}
	n := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			serial := fmt.Sprintf("%X", tc.tpp.Cert.SerialNumber)
			send := func(s sig) (int, []byte, reqlog.Entry) {
				t.Helper()
				n++
				id := fmt.Sprintf("keyid-%d", n)
				resp := b.Send(handSigned(t, b, tc.tpp, "GET", "/v1/sandbox/customers", nil, s, "X-Request-ID: "+id))
				return resp.Status, resp.Body, b.Logged(id)
			}
			whole := sig{keyID: "SN=" + serial + ",CA=" + httpsig.FormatDN(tc.tpp.Cert.Issuer)}
			part := sig{keyID: "SN=" + serial + ",CA=" + tc.part}

			status, body, e := send(whole)
			if status != 200 || keyIDNote(t, e) != "" {
				t.Fatalf("whole issuer: %d %s, notes %+v", status, body, e.Verdict.Notes)
			}
			if tc.tpp == self {
				// S and ST both name stateOrProvinceName.
				s := sig{keyID: strings.Replace(whole.keyID, "ST=Troms", "S=Troms", 1)}
				if status, body, e := send(s); !strings.Contains(s.keyID, "S=Troms") || status != 200 || keyIDNote(t, e) != "" {
					t.Fatalf("keyId %s: %d %s", s.keyID, status, body)
				}
			}

			status, body, e = send(part)
			if status != 200 {
				t.Fatalf("issuer in part: %d %s", status, body)
			}
			note := keyIDNote(t, e)
			if want := "keyId CA leaves out the issuer's organizationIdentifier=" + tc.orgID; !strings.Contains(note, want) {
				t.Errorf("note %q, want one with %q", note, want)
			}

			status, body, _ = send(sig{keyID: "SN=" + serial + ",CA=" + tc.wrong})
			refused(t, status, body, "differs from the issuer's")
			status, body, _ = send(sig{keyID: "SN=1234ABCD,CA=" + tc.part})
			refused(t, status, body, "not the certificate's serial")
			status, body, _ = send(sig{keyID: part.keyID, cert: tc.tpp.Cert, key: other})
			refused(t, status, body, "does not verify")

			setStrict(t, b, true)
			defer setStrict(t, b, false)
			status, body, e = send(part)
			refused(t, status, body, note+" (strict mode refuses what the bank accepts with a warning)")
			if v := e.Verdict; v == nil || v.Err == nil || len(v.Notes) != 0 || v.Steps[len(v.Steps)-1].Check != "keyId" {
				t.Errorf("strict verdict %+v", v)
			}
			if status, body, _ := send(whole); status != 200 {
				t.Errorf("whole issuer in strict mode: %d %s", status, body)
			}
		})
	}
}

// TestKeyID_OpenSSLEscapedIssuers signs with the openssl command line,
// with the issuer as openssl's default -nameopt RFC2253 prints it put in
// the keyId unchanged: a comma escaped as \, and æøå as \XX hex pairs of
// their UTF-8. That keyId is accepted without a note; without its
// organizationIdentifier, with a note; in strict mode the second is
// refused. A value that differs, a wrong serial and a wrong key stay
// refused.
func TestKeyID_OpenSSLEscapedIssuers(t *testing.T) {
	b := apptest.Start(t, apptest.Options{})
	script := repoFile(t, "scripts/openssl-call.sh")
	keys := t.TempDir()
	run(t, keys, nil, "openssl", "genrsa", "-out", "other.pem", "2048")

	cases := []struct {
		name, subj, orgID string
		escaped, changed  string // as openssl writes a part of the issuer; that part with a value that differs
	}{
		{"escaped comma", `/C=NO/O=Eksempel\, Holding AS/organizationIdentifier=PSDNO-FSA-911911911/CN=Eksempel TPP`, "PSDNO-FSA-911911911",
			`O=Eksempel\, Holding AS`, `O=Eksempel\, Holding ASA`},
		{"æøå", `/C=NO/ST=Troms/L=Tromsø/O=Blåbær og Rødgrøt AS/organizationIdentifier=PSDNO-FSA-922922922/CN=Tromsø TPP`, "PSDNO-FSA-922922922",
			`O=Bl\C3\A5b\C3\A6r og R\C3\B8dgr\C3\B8t AS`, `O=Bl\C3\A5b\C3\A6r og R\C3\B8dgr\C3\B6t AS`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			run(t, dir, nil, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem",
				"-days", "2", "-utf8", "-subj", tc.subj)
			issuer := strings.TrimPrefix(strings.TrimSpace(string(run(t, dir, nil, "openssl", "x509", "-in", "cert.pem", "-noout", "-issuer", "-nameopt", "RFC2253"))), "issuer=")
			if !strings.Contains(issuer, tc.escaped) || !strings.Contains(issuer, "organizationIdentifier="+tc.orgID+",") {
				t.Fatalf("openssl writes the issuer %s; want it with %s and organizationIdentifier=%s", issuer, tc.escaped, tc.orgID)
			}
			part := strings.Replace(issuer, "organizationIdentifier="+tc.orgID+",", "", 1)
			env := []string{"CERT=" + filepath.Join(dir, "cert.pem"), "KEY=" + filepath.Join(dir, "key.pem"), "URL=" + b.URL}
			call := func(extra ...string) (int, []byte, reqlog.Entry) {
				t.Helper()
				status, h, body := opensslCall(t, b, dir, append(env, extra...), script, "GET", "/v1/sandbox/customers")
				return status, body, b.Logged(h.Get("X-Request-ID"))
			}

			status, body, e := call()
			if status != 200 || keyIDNote(t, e) != "" {
				t.Fatalf("openssl's issuer unchanged: %d %s, notes %+v", status, body, e.Verdict.Notes)
			}
			if sent := e.RequestHeader.Get("Signature"); !strings.Contains(sent, ",CA="+issuer+`"`) {
				t.Errorf("Signature %s does not carry openssl's issuer %s unchanged", sent, issuer)
			}

			status, body, e = call("KEYID_CA=" + part)
			if status != 200 {
				t.Fatalf("issuer without organizationIdentifier: %d %s", status, body)
			}
			if note := keyIDNote(t, e); !strings.Contains(note, "leaves out the issuer's organizationIdentifier="+tc.orgID) {
				t.Errorf("note %q", note)
			}

			status, body, _ = call("KEYID_CA=" + strings.Replace(issuer, tc.escaped, tc.changed, 1))
			refused(t, status, body, "its O differs from the issuer's")
			status, body, _ = call("KEYID_CA="+part, "KEYID_SERIAL=1234ABCD")
			refused(t, status, body, "not the certificate's serial")
			status, body, _ = call("KEYID_CA="+part, "KEY="+filepath.Join(keys, "other.pem"))
			refused(t, status, body, "does not verify")

			setStrict(t, b, true)
			defer setStrict(t, b, false)
			status, body, e = call("KEYID_CA=" + part)
			refused(t, status, body, "leaves out the issuer's organizationIdentifier="+tc.orgID)
			if !strings.Contains(string(body), "strict mode") || e.Verdict == nil || e.Verdict.Err == nil {
				t.Errorf("strict refusal %s, verdict %+v", body, e.Verdict)
			}
			if status, body, _ := call(); status != http.StatusOK {
				t.Errorf("openssl's issuer unchanged in strict mode: %d %s", status, body)
			}
		})
	}
}
