package psd2api_test

import (
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
	"sandbank/bank/reqlog"
)

// notesHeader matches a Sandbank-Notes header: the count and the request
// log entry's path.
var notesHeader = regexp.MustCompile(`^([1-9][0-9]*); (/v1/sandbox/requests/[^/?#]+)$`)

// notesOf reads an answer's Sandbank-Notes header, checks that it names
// the request log entry of the answer, that the response signature
// covers it, and that the TPP that sent the request reads that entry at
// its path with the same notes; it returns the count.
func notesOf(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, r apptest.Response) int {
	t.Helper()
	values := r.Header.Values(apierr.NotesHeader)
	if len(values) != 1 {
		t.Fatalf("%d Sandbank-Notes headers, want 1: %v", len(values), r.Header)
	}
	m := notesHeader.FindStringSubmatch(values[0])
	if m == nil {
		t.Fatalf("Sandbank-Notes %q is not \"<count>; /v1/sandbox/requests/<id>\"", values[0])
	}
	e := logged(t, b, r)
	if m[2] != reqlog.APIPath+"/"+e.ID {
		t.Fatalf("Sandbank-Notes links %s, but the request's log entry is %s", m[2], e.ID)
	}
	if e.ResponseHeader.Get(apierr.NotesHeader) != values[0] {
		t.Fatalf("the request log keeps the answer's Sandbank-Notes as %q", e.ResponseHeader.Get(apierr.NotesHeader))
	}
	p, err := httpsig.ParseSignature(r.Header.Get("Signature"))
	if err != nil || !slices.Equal(p.Headers, []string{"date", "digest", "x-request-id", "sandbank-notes"}) {
		t.Fatalf("the response signature covers %v (%v); want date digest x-request-id sandbank-notes", p.Headers, err)
	}
	own := b.Do(tpp, "GET", m[2], nil)
	expect(t, own, 200, "")
	var d reqlog.Detail
	own.JSON(t, &d)
	n, _ := strconv.Atoi(m[1]) // digits, by the pattern
	if d.ID != e.ID || d.Notes != n || apierr.CountNotes(d.ClientNotes) != n {
		t.Fatalf("the linked entry %s has %d notes (%d listed); the header says %s", d.ID, d.Notes, len(d.ClientNotes), m[1])
	}
	return n
}

// Every answer to a request that got client notes says how many and where
// to read them, in a header its signature covers: an array answer, an
// error body and a 204, which have no room for WARNING tppMessages, and an
// object answer that lists them too. The link leads the TPP to its own
// request log entry, and no other TPP; the request log, its list and its
// HAR export keep the header.
func TestClientNotes_HeaderSaysHowManyAndWhere(t *testing.T) {
	b, tpp := setup(t)
	other := b.NewTPP("987654321", 1, pki.RoleAI, pki.RolePI)

	// An array answer: posted account transactions, one with a field the
	// bank does not use and a purpose code in lower case.
	day := time.Now().AddDate(0, 0, -3).Format(time.DateOnly)
	item := tx(-120, day, day, map[string]string{"iban": ibanT1Bruk}, map[string]string{"iban": "NO9386011117947"})
	item["purposeCode"] = "othr"
	item["transactionId"] = "seed-1"
	r := b.Do(tpp, "POST", "/v1/sandbox/accounts/"+t1Brukskonto+"/transactions", []any{item})
	expect(t, r, 201, "")
	if !strings.HasPrefix(strings.TrimSpace(string(r.Body)), "[") {
		t.Fatalf("the answer is not an array: %s", r.Body)
	}
	if n := notesOf(t, b, tpp, r); n != 2 {
		t.Fatalf("%d notes, want 2 (transactionId, purposeCode)", n)
	}
	link := strings.TrimPrefix(r.Header.Get(apierr.NotesHeader), "2; ")
	// The link is the TPP's own: another TPP's certificate does not read
	// it; the operator does.
	expect(t, b.Do(other, "GET", link, nil), 404, "RESOURCE_UNKNOWN")
	expect(t, b.Do(b.Operator(), "GET", link, nil), 200, "")

	// An error body: a field the bank does not use beside a field that
	// breaks its rule. Nothing is stored, and the note is still counted.
	before := b.FileSum()
	r = b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]any{"customerNumber": "12AB", "name": "Kari", "type": "private", "nickname": "K"})
	e := expect(t, r, 400, "FORMAT_ERROR")
	if n := notesOf(t, b, tpp, r); n != 1 || b.FileSum() != before {
		t.Fatalf("%d notes on the refusal, or the data file changed", n)
	}
	if slices.ContainsFunc(e.TPPMessages, func(m apierr.Message) bool { return m.Category == "WARNING" }) {
		t.Fatalf("the error body lists warnings: %s", r.Body)
	}

	// A 204: a DELETE with a header that is noted.
	r = b.Do(tpp, "DELETE", "/v1/sandbox/accounts/"+t1Sparekonto+"/transactions", nil, "PSU-Device-ID: phone-1")
	expect(t, r, 204, "")
	if len(r.Body) != 0 {
		t.Fatalf("a 204 with a body: %s", r.Body)
	}
	if n := notesOf(t, b, tpp, r); n != 1 {
		t.Fatalf("%d notes on the 204", n)
	}

	// An object answer carries the header beside its WARNING tppMessages,
	// through an alias prefix too: the link is the /v1 path.
	r = b.Do(tpp, "POST", "/api/v1/sandbox/customers", map[string]any{"customerNumber": "5150", "name": "Kari", "type": "private", "nickname": "K"}, "PSU-IP-Address: localhost")
	expect(t, r, 201, "")
	if got := warningPaths(t, r); !slices.Equal(got, []string{"PSU-IP-Address", "nickname"}) {
		t.Fatalf("warnings at %v", got)
	}
	if n := notesOf(t, b, tpp, r); n != 2 {
		t.Fatalf("%d notes on the object answer", n)
	}

	// An answer without notes has no header.
	r = b.Do(tpp, "GET", "/v1/sandbox/customers", nil)
	expect(t, r, 200, "")
	if h := r.Header.Values(apierr.NotesHeader); h != nil {
		t.Fatalf("an answer without notes carries Sandbank-Notes %q", h)
	}
	p, err := httpsig.ParseSignature(r.Header.Get("Signature"))
	if err != nil || !slices.Equal(p.Headers, []string{"date", "digest", "x-request-id"}) {
		t.Fatalf("without notes the signature covers %v (%v)", p.Headers, err)
	}

	// The signature binds the header: another count does not verify.
	r = b.Do(tpp, "GET", "/v1/sandbox/customers", nil, "PSU-Device-ID: phone-2")
	expect(t, r, 200, "")
	signer, _ := b.ResponseSigner()
	forged := r.Header.Clone()
	forged.Set(apierr.NotesHeader, strings.Replace(r.Header.Get(apierr.NotesHeader), "1; ", "0; ", 1))
	if err := httpsig.VerifyResponse(forged, r.Body, signer.Cert); err == nil {
		t.Fatal("a changed Sandbank-Notes verifies")
	}
	stripped := r.Header.Clone()
	stripped.Set("Signature", strings.Replace(r.Header.Get("Signature"), " sandbank-notes", "", 1))
	if err := httpsig.VerifyResponse(stripped, r.Body, signer.Cert); err == nil || !strings.Contains(err.Error(), "sandbank-notes") {
		t.Fatalf("a signature that leaves the header out: %v", err)
	}

	// The TPP's own list and HAR export show the count and the header.
	var page struct {
		Requests []reqlog.Summary `json:"requests"`
	}
	b.Do(tpp, "GET", "/v1/sandbox/requests?method=DELETE", nil).JSON(t, &page)
	if len(page.Requests) != 1 || page.Requests[0].Notes != 1 {
		t.Fatalf("the list shows %+v", page.Requests)
	}
	har := b.Do(tpp, "GET", "/v1/sandbox/requests.har?method=DELETE", nil)
	expect(t, har, 200, "")
	apptest.CheckHAR(t, har.Body)
	var h struct {
		Log struct {
			Entries []struct {
				Response struct {
					Headers []struct{ Name, Value string }
				}
			}
		}
	}
	har.JSON(t, &h)
	if len(h.Log.Entries) != 1 || !slices.ContainsFunc(h.Log.Entries[0].Response.Headers, func(p struct{ Name, Value string }) bool {
		return strings.EqualFold(p.Name, apierr.NotesHeader) && notesHeader.MatchString(p.Value)
	}) {
		t.Fatalf("the HAR's response headers lack Sandbank-Notes: %+v", h.Log.Entries)
	}

	// Strict mode refuses what would be noted: the oddities are the
	// refusal's ERRORs, and there are no notes to count.
	setStrict(t, b, true)
	defer setStrict(t, b, false)
	r = b.Do(tpp, "DELETE", "/v1/sandbox/accounts/"+t1Sparekonto+"/transactions", nil, "PSU-Device-ID: phone-1")
	expect(t, r, 400, "FORMAT_ERROR")
	if h := r.Header.Get(apierr.NotesHeader); h != "" {
		t.Fatalf("a strict refusal carries Sandbank-Notes %q", h)
	}
}

// With response signing off the header is still there, with Date and
// Digest and no Signature; with ECDSA the signature covers it as with
// RSA.
func TestClientNotes_HeaderInEverySigningMode(t *testing.T) {
	b, tpp := setup(t)
	for _, mode := range []string{"ecdsa", "off"} {
		expect(t, b.Do(b.Operator(), "PATCH", "/v1/sandbox/settings", map[string]string{"responseSigning": mode}), 200, "")
		r := b.Do(tpp, "GET", "/v1/sandbox/clock", nil, "PSU-HTTP-Method: FETCH")
		expect(t, r, 200, "")
		if !notesHeader.MatchString(r.Header.Get(apierr.NotesHeader)) || r.Header.Get("Digest") != httpsig.Digest(r.Body) {
			t.Fatalf("%s: Sandbank-Notes %q, Digest %q", mode, r.Header.Get(apierr.NotesHeader), r.Header.Get("Digest"))
		}
		sig := r.Header.Get("Signature")
		switch mode {
		case "off":
			if sig != "" {
				t.Fatalf("responseSigning off, but a Signature: %s", sig)
			}
		default:
			if !strings.Contains(sig, `algorithm="ecdsa-sha256",headers="date digest x-request-id sandbank-notes"`) {
				t.Fatalf("%s: Signature %s", mode, sig)
			}
		}
	}
	expect(t, b.Do(b.Operator(), "PATCH", "/v1/sandbox/settings", map[string]string{"responseSigning": "rsa"}), 200, "")
	if r := b.Do(tpp, "GET", "/v1/sandbox/clock", nil, "PSU-HTTP-Method: FETCH"); r.Status != http.StatusOK || notesOf(t, b, tpp, r) != 1 {
		t.Fatalf("back to rsa: %d", r.Status)
	}
}
