package psd2api_test

import (
	"encoding/pem"
	"fmt"
	"slices"
	"strings"
	"testing"

	"sandbank/app/apptest"
)

// A TPP-Signature-Certificate sent as PEM, its line breaks removed or
// written as \n escapes (as a PEM file read into a JSON or .env value
// comes), is accepted as the real bank may accept it, with a client note
// that the header takes the base64 DER without the armour: a WARNING
// tppMessage in the answer, a note in the request log and in the
// certificate step of the verdict. Strict mode refuses it as 400
// CERTIFICATE_INVALID with the note's text. The base64 DER alone is no
// note, lenient or strict.
func TestCertificateHeader_PEMIsNotedThenRefusedWhenStrict(t *testing.T) {
	b, tpp := setup(t)
	pemText := strings.TrimSuffix(string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tpp.Cert.Raw})), "\n")
	forms := []struct{ name, value string }{
		{"PEM with \\n escapes", strings.ReplaceAll(pemText, "\n", `\n`)},
		{"PEM with its line breaks removed", strings.ReplaceAll(pemText, "\n", "")},
	}
	n := 0
	// send creates a customer, a write whose answer is a JSON object that
	// carries the warnings, with the certificate header value.
	send := func(value string) apptest.Response {
		t.Helper()
		n++
		body := fmt.Appendf(nil, `{"customerNumber":"8%04d","name":"PEM TPP kunde","type":"private"}`, n)
		req := b.Request("POST", "/v1/sandbox/customers", body, "Content-Type: application/json")
		if err := tpp.Signer.SignRequest(req, body); err != nil {
			t.Fatal(err)
		}
		req.Header.Set("TPP-Signature-Certificate", value) // not signed: any form keeps the signature
		return b.Send(req)
	}
	const note = "TPP-Signature-Certificate holds the certificate with PEM armour (-----BEGIN CERTIFICATE-----)"
	for _, f := range forms {
		r := send(f.value)
		expect(t, r, 201, "")
		if got := warningPaths(t, r); !slices.Equal(got, []string{"TPP-Signature-Certificate"}) {
			t.Errorf("%s: WARNING tppMessages at %v, want one at TPP-Signature-Certificate\n%s", f.name, got, r.Body)
		}
		e := logged(t, b, r)
		if got := notePaths(e); !slices.Equal(got, []string{"TPP-Signature-Certificate"}) {
			t.Errorf("%s: the request log notes %v", f.name, got)
		}
		if len(e.Notes) != 1 || !strings.HasPrefix(e.Notes[0].Text, note) || !strings.Contains(e.Notes[0].Text, "the header takes the base64 DER alone, without the armour") {
			t.Errorf("%s: notes %+v", f.name, e.Notes)
		}
		if v := e.Verdict; v == nil || v.Steps[0].Check != "certificate" || !strings.Contains(v.Steps[0].Detail, "with a warning: "+note) {
			t.Errorf("%s: verdict %+v does not show the note at the certificate step", f.name, v)
		}
	}
	if r := send(tpp.Signer.CertificateHeader()); len(warningPaths(t, r)) != 0 || len(logged(t, b, r).Notes) != 0 {
		t.Errorf("base64 DER alone: %d %s", r.Status, r.Body)
	}

	setStrict(t, b, true)
	for _, f := range forms {
		e := expect(t, send(f.value), 400, "CERTIFICATE_INVALID")
		if !strings.HasPrefix(e.Message, note) || !strings.Contains(e.Message, "(strict mode refuses what the bank accepts with a warning)") {
			t.Errorf("%s in strict mode: %+v", f.name, e)
		}
	}
	expect(t, send(tpp.Signer.CertificateHeader()), 201, "")
}
