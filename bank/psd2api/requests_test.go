package psd2api_test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"sandbank/app/apptest"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
	"sandbank/bank/reqlog"
)

// logList is the answer of GET /v1/sandbox/requests.
type logList struct {
	Requests []struct {
		ID         string  `json:"id"`
		Time       string  `json:"time"`
		Method     string  `json:"method"`
		Path       string  `json:"path"`
		Status     int     `json:"status"`
		DurationMS float64 `json:"durationMs"`
		RequestID  string  `json:"requestId"`
		TPPID      string  `json:"tppId"`
		Signature  string  `json:"signature"`
		ErrorCode  string  `json:"errorCode"`
		Notes      int     `json:"notes"`
	} `json:"requests"`
	Total int `json:"total"`
	Links struct {
		Next *struct {
			Href string `json:"href"`
		} `json:"next"`
	} `json:"_links"`
}

func (l logList) ids() []string {
	var out []string
	for _, r := range l.Requests {
		out = append(out, r.ID)
	}
	return out
}

// listLog lists the request log with a query.
func listLog(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, query string) logList {
	t.Helper()
	r := b.Do(b.Operator(), "GET", "/v1/sandbox/requests"+query, nil)
	expect(t, r, 200, "")
	var l logList
	r.JSON(t, &l)
	return l
}

// logMessage is the request or response of GET /v1/sandbox/requests/{id}.
type logMessage struct {
	Headers      http.Header `json:"headers"`
	Body         string      `json:"body"`
	BodyEncoding string      `json:"bodyEncoding"`
	BodySize     int64       `json:"bodySize"`
}

// logEntry is the answer of GET /v1/sandbox/requests/{id}.
type logEntry struct {
	ID          string           `json:"id"`
	Method      string           `json:"method"`
	Path        string           `json:"path"`
	URL         string           `json:"url"`
	Status      int              `json:"status"`
	RequestID   string           `json:"requestId"`
	TPPID       string           `json:"tppId"`
	Signature   string           `json:"signature"`
	ErrorCode   string           `json:"errorCode"`
	Verdict     *httpsig.Verdict `json:"verdict"`
	ClientNotes []struct {
		Path string `json:"path"`
		Text string `json:"text"`
	} `json:"clientNotes"`
	Request  logMessage `json:"request"`
	Response logMessage `json:"response"`
}

func getLogged(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, id string) logEntry {
	t.Helper()
	r := b.Do(b.Operator(), "GET", "/v1/sandbox/requests/"+url.PathEscape(id), nil)
	expect(t, r, 200, "")
	var e logEntry
	r.JSON(t, &e)
	return e
}

// The list: newest first, in summary, filtered as the Traffic screen
// filters, paged by before, and without the log's own operations.
func TestRequests_ListFiltersAndPages(t *testing.T) {
	b, tpp := setup(t)
	other := b.NewTPP("911111111", 1, pki.RoleAI)
	expect(t, b.Do(tpp, "GET", "/v1/sandbox/clock", nil), 200, "") // the contract check loads its document
	expect(t, b.Do(b.Operator(), "DELETE", "/v1/sandbox/requests", nil), 204, "")
	expect(t, b.Do(tpp, "GET", "/v1/sandbox/customers", nil), 200, "")
	bad := expect(t, b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]any{"customerNumber": "x", "name": "", "type": "private"}), 400, "FORMAT_ERROR")
	expect(t, b.Do(other, "GET", "/v1/sandbox/clock", nil, "PSU-IP-Address: not-an-ip"), 200, "")
	expect(t, b.Do(nil, "GET", "/api/v1/sandbox/clock", nil), 400, "SIGNATURE_MISSING")

	l := listLog(t, b, tpp, "")
	if l.Total != 4 || len(l.Requests) != 4 || l.Links.Next != nil {
		t.Fatalf("list of %d, total %d (the log's own requests must be left out): %+v", len(l.Requests), l.Total, l)
	}
	newest, first := l.Requests[0], l.Requests[3]
	if newest.Method != "GET" || newest.Path != "/v1/sandbox/clock" || newest.Status != 400 || newest.Signature != "missing" || newest.ErrorCode != "SIGNATURE_MISSING" || newest.TPPID != "" {
		t.Fatalf("newest %+v", newest)
	}
	if first.Path != "/v1/sandbox/customers" || first.Status != 200 || first.Signature != "verified" || first.TPPID != tpp.ID || first.RequestID == "" || first.Time == "" || first.DurationMS < 0 {
		t.Fatalf("oldest %+v", first)
	}
	if l.Requests[2].ID != bad.ID || l.Requests[2].ErrorCode != "FORMAT_ERROR" {
		t.Fatalf("the refused POST is listed under another id than its error body's %s: %+v", bad.ID, l.Requests[2])
	}
	if l.Requests[1].TPPID != other.ID || l.Requests[1].Notes != 1 {
		t.Fatalf("the request with a client note %+v", l.Requests[1])
	}

	for _, c := range []struct {
		query string
		want  []string
	}{
		{"?tppId=" + url.QueryEscape(other.ID), []string{l.Requests[1].ID}},
		{"?method=post", []string{bad.ID}},
		{"?status=400", []string{l.Requests[0].ID, bad.ID}},
		{"?errorsOnly=true", []string{l.Requests[0].ID, bad.ID}},
		{"?errorsOnly=false&status=200", []string{l.Requests[1].ID, l.Requests[3].ID}},
		{"?q=SIGNATURE_missing", []string{l.Requests[0].ID}},
		{"?q=" + bad.ID, []string{bad.ID}},
		{"?q=customers&errorsOnly=true", []string{bad.ID}},
		{"?q=nothing+like+this", nil},
		{"?q=&tppId=&method=&status=&errorsOnly=&limit=&before=", l.ids()}, // empty is not given
	} {
		got := listLog(t, b, tpp, c.query)
		if !slices.Equal(got.ids(), c.want) || got.Total != len(c.want) {
			t.Errorf("%s: %v (total %d), want %v", c.query, got.ids(), got.Total, c.want)
		}
	}

	// Pages of 3: the next link carries the filter, and no request comes
	// twice though the listing requests themselves are logged in between.
	page := listLog(t, b, tpp, "?limit=3&errorsOnly=false")
	if len(page.Requests) != 3 || page.Total != 4 || page.Links.Next == nil {
		t.Fatalf("first page %+v", page)
	}
	next, err := url.Parse(page.Links.Next.Href)
	if err != nil || next.Path != "/v1/sandbox/requests" || next.Query().Get("errorsOnly") != "false" || next.Query().Get("before") != page.Requests[2].ID {
		t.Fatalf("next link %q", page.Links.Next.Href)
	}
	rest := listLog(t, b, tpp, "?"+next.RawQuery)
	if got := append(page.ids(), rest.ids()...); !slices.Equal(got, l.ids()) || rest.Links.Next != nil {
		t.Fatalf("pages %v then %v, want %v", page.ids(), rest.ids(), l.ids())
	}

	// The log's own requests are in the log, and found by their id.
	var own []reqlog.Entry
	for _, e := range b.RequestLog().Entries() {
		if e.ForTheLog() {
			own = append(own, e)
		}
	}
	if len(own) < 10 || own[0].Method != "DELETE" {
		t.Fatalf("the log's own requests are not logged: %d", len(own))
	}
	if e := getLogged(t, b, tpp, own[1].ID); e.Path != own[1].Path || e.Status != 200 {
		t.Fatalf("an own request by id: %+v", e)
	}
}

// Bad filter values are 400 FORMAT_ERROR naming each parameter, on the
// list and the export; an unknown id is 404 RESOURCE_UNKNOWN.
func TestRequests_BadQueries(t *testing.T) {
	b, tpp := setup(t)
	for _, c := range []struct {
		query string
		paths []string
	}{
		{"?status=abc", []string{"status"}},
		{"?status=700", []string{"status"}},
		{"?status=%2B200", []string{"status"}},
		{"?status=-1", []string{"status"}},
		{"?method=G3T", []string{"method"}},
		{"?method=" + strings.Repeat("A", 17), []string{"method"}},
		{"?errorsOnly=yes", []string{"errorsOnly"}},
		{"?errorsOnly=1", []string{"errorsOnly"}},
		{"?status=1e3&method=%20GET&errorsOnly=", []string{"status", "method"}},
	} {
		for _, path := range []string{"/v1/sandbox/requests", "/v1/sandbox/requests.har"} {
			e := rejects(t, b, tpp, "GET", path+c.query, nil, 400, "FORMAT_ERROR", c.paths...)
			if len(e.TPPMessages) != len(c.paths) {
				t.Errorf("%s%s: %d findings, want %d: %s", path, c.query, len(e.TPPMessages), len(c.paths), e.Message)
			}
		}
	}
	for _, q := range []string{"?limit=0", "?limit=1001", "?limit=ten", "?limit=99999999999"} {
		rejects(t, b, b.Operator(), "GET", "/v1/sandbox/requests"+q, nil, 400, "FORMAT_ERROR", "limit")
	}
	e := rejects(t, b, b.Operator(), "GET", "/v1/sandbox/requests?before=not-an-id", nil, 400, "FORMAT_ERROR", "before")
	if !strings.Contains(e.Message, "without before") {
		t.Errorf("before: %s", e.Message)
	}
	e = rejects(t, b, b.Operator(), "GET", "/v1/sandbox/requests/0b1e7e2a-0000-4000-8000-000000000000", nil, 404, "RESOURCE_UNKNOWN")
	if !strings.Contains(e.Message, "GET /v1/sandbox/requests") {
		t.Errorf("unknown id: %s", e.Message)
	}
	// A cleared log forgets what it held: the id of an earlier error too.
	gone := expect(t, b.Do(tpp, "GET", "/v1/sandbox/customers/nope", nil), 404, "RESOURCE_UNKNOWN")
	getLogged(t, b, tpp, gone.ID)
	expect(t, b.Do(b.Operator(), "DELETE", "/v1/sandbox/requests", nil), 204, "")
	rejects(t, b, b.Operator(), "GET", "/v1/sandbox/requests/"+gone.ID, nil, 404, "RESOURCE_UNKNOWN")
	// The operations are signed like the rest of the sandbox API, and
	// DELETE is the only other method.
	missing := expect(t, b.Do(nil, "GET", "/v1/sandbox/requests", nil), 400, "SIGNATURE_MISSING")
	if want := "(the bank's check step by step: GET /v1/sandbox/requests/" + missing.ID + ")"; !strings.HasSuffix(missing.Message, want) {
		t.Errorf("a missing signature's message %q does not end with %q", missing.Message, want)
	}
	expect(t, b.Do(nil, "DELETE", "/v1/sandbox/requests", nil), 400, "SIGNATURE_MISSING")
	expect(t, b.Do(b.Operator(), "POST", "/v1/sandbox/requests", nil), 405, "BAD_REQUEST")
	if n := len(b.RequestLog().Entries()); n < 3 {
		t.Fatalf("an unsigned DELETE cleared the log: %d entries", n)
	}
}

// A refused signature's error body names the request's id and where the
// bank's whole check is; GET /v1/sandbox/requests/{id} shows every step,
// the signing string the bank rebuilt, and the request as it came.
func TestRequests_RefusedSignatureLeadsToItsSigningString(t *testing.T) {
	b, tpp := setup(t)
	body := []byte(`{"customerNumber":"4242","name":"Sig Test","type":"private"}`)
	// Signed with another key than the certificate's: the signature step
	// fails after the bank rebuilt the signing string.
	req := handSigned(t, b, tpp, "POST", "/api-sandbox/v1/sandbox/customers?x=1", body, sig{key: apptest.Key(t, 1), cert: tpp.Cert}, "PSU-IP-Address: somewhere")
	want, err := httpsig.SigningString(req, []string{"(request-target)", "x-request-id", "digest"})
	if err != nil {
		t.Fatal(err)
	}
	refused := expect(t, b.Send(req), 400, "SIGNATURE_INVALID")
	if !strings.Contains(refused.Message, "GET /v1/sandbox/requests/"+refused.ID) {
		t.Fatalf("the message does not say where the diagnosis is: %s", refused.Message)
	}
	if len(refused.TPPMessages) != 1 || strings.Contains(refused.TPPMessages[0].Text, "/v1/sandbox/requests") {
		t.Fatalf("tppMessages %+v", refused.TPPMessages)
	}

	e := getLogged(t, b, tpp, refused.ID)
	if e.ID != refused.ID || e.Method != "POST" || e.Path != "/v1/sandbox/customers?x=1" || !strings.HasSuffix(e.URL, "/api-sandbox/v1/sandbox/customers?x=1") ||
		e.Status != 400 || e.ErrorCode != "SIGNATURE_INVALID" || e.Signature != "failed: signature" || e.TPPID != tpp.ID {
		t.Fatalf("entry %+v", e)
	}
	v := e.Verdict
	if v == nil || !v.Signed || v.SigningString != want || !strings.Contains(v.SigningString, "(request-target): post /api-sandbox/v1/sandbox/customers?x=1") {
		t.Fatalf("the signing string the bank rebuilt:\n%v\nwant\n%s", v, want)
	}
	if last := v.Steps[len(v.Steps)-1]; last.Check != "signature" || last.OK || len(v.Steps) < 4 || !v.Steps[0].OK {
		t.Fatalf("steps %+v", v.Steps)
	}
	if !slices.Equal(v.SignedHeaders, []string{"(request-target)", "x-request-id", "digest"}) {
		t.Fatalf("signed headers %v", v.SignedHeaders)
	}
	// The body was not read (the signature over the headers failed first);
	// its size is what Content-Length announced.
	if e.Request.Body != "" || e.Request.BodySize != int64(len(body)) || e.Request.Headers.Get("Psu-Ip-Address") != "somewhere" || e.Request.Headers.Get("Host") == "" {
		t.Fatalf("request %+v", e.Request)
	}
	if e.Response.BodyEncoding != "text" || !strings.Contains(e.Response.Body, refused.ID) || e.Response.Headers.Get("Signature") == "" {
		t.Fatalf("response %+v", e.Response)
	}

	// A request that verified but whose body is not UTF-8 keeps its body,
	// in base64, and its client note.
	raw := []byte{'"', 0xff, 0xfe, '"'}
	bin := expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/faults", raw, "Date: yesterday"), 400, "BAD_REQUEST")
	e = getLogged(t, b, tpp, bin.ID)
	if e.Request.BodyEncoding != "base64" || e.Request.Body != base64.StdEncoding.EncodeToString(raw) || e.Request.BodySize != 4 || e.Signature != "verified" {
		t.Fatalf("binary body %+v", e)
	}
	if len(e.ClientNotes) != 1 || e.ClientNotes[0].Path != "Date" {
		t.Fatalf("client notes %+v", e.ClientNotes)
	}
	if e.Verdict == nil || !strings.Contains(e.Verdict.SigningString, "x-request-id: ") {
		t.Fatalf("a verified request's signing string: %+v", e.Verdict)
	}
}

// The HAR export: HAR 1.2 with every required field, request and response
// bodies, the filter applied, the log's own requests left out.
func TestRequests_HARExport(t *testing.T) {
	b, tpp := setup(t)
	expect(t, b.Do(tpp, "GET", "/v1/sandbox/clock", nil), 200, "") // the contract check loads its document
	expect(t, b.Do(b.Operator(), "DELETE", "/v1/sandbox/requests", nil), 204, "")
	created := b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]any{"customerNumber": "5150", "name": "HAR Test", "type": "private"})
	expect(t, created, 201, "")
	refused := expect(t, b.Do(tpp, "GET", "/v1/sandbox/customers/nope", nil), 404, "RESOURCE_UNKNOWN")
	listLog(t, b, tpp, "") // the log's own: left out of the export

	r := b.Do(b.Operator(), "GET", "/v1/sandbox/requests.har", nil)
	expect(t, r, 200, "")
	if cd := r.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="sandbank-`) || !strings.HasSuffix(cd, `.har"`) {
		t.Fatalf("Content-Disposition %q", cd)
	}
	apptest.CheckHAR(t, r.Body)
	var h struct {
		Log struct {
			Version string
			Creator struct{ Name, Version string }
			Entries []struct {
				Request struct {
					Method, URL string
					PostData    *struct{ MimeType, Text string }
					BodySize    int
				}
				Response struct {
					Status  int
					Content struct {
						Size int
						Text string
					}
				}
				Sandbank struct{ ID, Signature, ErrorCode string } `json:"_sandbank"`
			}
		}
	}
	r.JSON(t, &h)
	if h.Log.Version != "1.2" || h.Log.Creator.Name != "Sandbank" || h.Log.Creator.Version == "" || len(h.Log.Entries) != 2 {
		t.Fatalf("log %+v", h.Log)
	}
	post := h.Log.Entries[0]
	if post.Request.Method != "POST" || post.Request.URL != b.URL+"/v1/sandbox/customers" || post.Request.PostData == nil ||
		!strings.Contains(post.Request.PostData.Text, `"HAR Test"`) || post.Request.BodySize != len(post.Request.PostData.Text) {
		t.Fatalf("request %+v", post.Request)
	}
	if post.Response.Status != 201 || post.Response.Content.Text != string(created.Body) || post.Response.Content.Size != len(created.Body) || post.Sandbank.Signature != "verified" {
		t.Fatalf("response %+v", post.Response)
	}
	if got := h.Log.Entries[1].Sandbank; got.ID != refused.ID || got.ErrorCode != "RESOURCE_UNKNOWN" {
		t.Fatalf("second entry %+v", got)
	}

	// The same filters as the list.
	r = b.Do(b.Operator(), "GET", "/v1/sandbox/requests.har?errorsOnly=true", nil)
	expect(t, r, 200, "")
	apptest.CheckHAR(t, r.Body)
	r.JSON(t, &h)
	if len(h.Log.Entries) != 1 || h.Log.Entries[0].Sandbank.ID != refused.ID {
		t.Fatalf("errors only: %+v", h.Log.Entries)
	}
	// An empty log is an empty HAR.
	expect(t, b.Do(b.Operator(), "DELETE", "/v1/sandbox/requests", nil), 204, "")
	r = b.Do(b.Operator(), "GET", "/v1/sandbox/requests.har", nil)
	expect(t, r, 200, "")
	apptest.CheckHAR(t, r.Body)
	r.JSON(t, &h)
	if len(h.Log.Entries) != 0 {
		t.Fatalf("after a clear: %d entries", len(h.Log.Entries))
	}
}
