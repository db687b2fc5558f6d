package reqlog_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
	"sandbank/bank/reqlog"
)

// The HAR export is HAR 1.2 as the spec and the browsers read it: every
// required field, the bodies (base64 when not UTF-8), query, cookies,
// timings that add up, and the bank's own view in _sandbank.
func TestWriteHAR(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 4, 5, 123_000_000, time.UTC)
	binary := []byte{0xff, 0xfe, 0x00, 0x01}
	verdict := &httpsig.Verdict{Signed: true, Steps: []httpsig.Step{{Check: "signature", OK: false, Detail: "does not verify"}},
		SigningString: "(request-target): post /v1/sandbox/customers\nx-request-id: r-1", Err: apierr.Errorf(apierr.CodeSignatureInvalid, "no")}
	entries := []reqlog.Entry{
		{
			ID: "id-1", Time: start, Method: "POST", Path: "/v1/sandbox/customers?a=1", Status: 400, Duration: 1500 * time.Microsecond,
			URL: "http://127.0.0.1:7380/api/v1/sandbox/customers?a=1&b=x%20y&flag", Proto: "HTTP/1.1", RequestID: "r-1", TPPID: "NO-FSA-1",
			Verdict: verdict, ErrorCode: "SIGNATURE_INVALID", Notes: []apierr.Message{apierr.Oddity(apierr.CodeFormatError, "Date", "is odd")},
			RequestHeader:  http.Header{"Content-Type": {"application/json"}, "Cookie": {"sca=s3cret; other=1"}, "X-Request-Id": {"r-1"}},
			RequestBody:    []byte(`{"name":"Åse"}`),
			ResponseHeader: http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Set-Cookie": {"sca=; Path=/sca; HttpOnly; Secure; Expires=Thu, 01 Jan 2026 00:00:00 GMT"}},
			ResponseBody:   []byte(`{"code":"SIGNATURE_INVALID"}`), RequestBodySize: 15, ResponseBodySize: 28,
		},
		{
			ID: "id-2", Time: start.Add(time.Second), Method: "PUT", Path: "/v1/x", Status: 303, Duration: 2 * time.Millisecond,
			URL: "https://localhost:7343/v1/x", Proto: "HTTP/2.0", RequestID: "r-2",
			RequestHeader: http.Header{}, RequestBody: binary, RequestBodySize: 4,
			ResponseHeader: http.Header{"Location": {"https://tpp.example/cb"}}, ResponseBody: binary, ResponseBodySize: 70000, BodiesCut: true,
		},
		{
			ID: "id-3", Time: start.Add(2 * time.Second), Method: "POST", Path: "/v1/y", Status: 400, URL: "http://127.0.0.1:7380/v1/y",
			RequestHeader: http.Header{"Content-Length": {"10"}}, RequestBodySize: 10, ResponseHeader: http.Header{},
		},
	}
	var buf bytes.Buffer
	if err := reqlog.WriteHAR(&buf, entries, "v9.9.9"); err != nil {
		t.Fatal(err)
	}
	doc := apptest.CheckHAR(t, buf.Bytes())

	var h struct {
		Log struct {
			Version string
			Creator struct{ Name, Version string }
			Entries []struct {
				StartedDateTime string
				Time            float64
				Request         struct {
					Method, URL, HTTPVersion string
					Cookies                  []struct{ Name, Value string }
					Headers                  []struct{ Name, Value string }
					QueryString              []struct{ Name, Value string }
					PostData                 *struct {
						MimeType, Text string
						Encoding       string `json:"_encoding"`
					}
					BodySize int64
				}
				Response struct {
					Status     int
					StatusText string
					Cookies    []struct {
						Name, Value, Path, Expires string
						HTTPOnly, Secure           bool
					}
					Content struct {
						Size                     int
						MimeType, Text, Encoding string
					}
					RedirectURL string
					BodySize    int
				}
				Timings  struct{ Send, Wait, Receive, DNS float64 }
				Sandbank struct {
					ID, RequestID, TPPID, Signature, ErrorCode string
					Verdict                                    *httpsig.Verdict
					ClientNotes                                []apierr.Message
					BodiesCut                                  bool
				} `json:"_sandbank"`
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &h); err != nil {
		t.Fatal(err)
	}
	if h.Log.Version != "1.2" || h.Log.Creator.Name != "Sandbank" || h.Log.Creator.Version != "v9.9.9" || len(h.Log.Entries) != 3 {
		t.Fatalf("log %+v", h.Log)
	}
	if doc["log"].(map[string]any)["entries"].([]any)[0].(map[string]any)["cache"] == nil {
		t.Fatal("no cache object")
	}
	e := h.Log.Entries[0]
	if e.StartedDateTime != "2026-11-22T10:04:05.123Z" || e.Time != 1.5 || e.Timings.Wait != 1.5 || e.Timings.Send != 0 || e.Timings.DNS != -1 {
		t.Fatalf("times %q %v %+v", e.StartedDateTime, e.Time, e.Timings)
	}
	r := e.Request
	if r.Method != "POST" || r.URL != entries[0].URL || r.HTTPVersion != "HTTP/1.1" || r.BodySize != 15 {
		t.Fatalf("request %+v", r)
	}
	if r.PostData == nil || r.PostData.Text != `{"name":"Åse"}` || r.PostData.MimeType != "application/json" || r.PostData.Encoding != "" {
		t.Fatalf("postData %+v", r.PostData)
	}
	if q := r.QueryString; len(q) != 3 || q[0].Name != "a" || q[0].Value != "1" || q[1].Value != "x y" || q[2].Name != "flag" || q[2].Value != "" {
		t.Fatalf("queryString %+v", q)
	}
	if c := r.Cookies; len(c) != 2 || c[0].Name != "sca" || c[0].Value != "s3cret" {
		t.Fatalf("request cookies %+v", c)
	}
	if len(r.Headers) != 3 || r.Headers[0].Name != "Content-Type" {
		t.Fatalf("request headers %+v", r.Headers)
	}
	resp := e.Response
	if resp.Status != 400 || resp.StatusText != "Bad Request" || resp.BodySize != 28 || resp.Content.Size != 28 ||
		resp.Content.Text != `{"code":"SIGNATURE_INVALID"}` || resp.Content.MimeType != "application/json; charset=utf-8" || resp.Content.Encoding != "" {
		t.Fatalf("response %+v", resp)
	}
	if c := resp.Cookies; len(c) != 1 || c[0].Path != "/sca" || !c[0].HTTPOnly || !c[0].Secure || !strings.HasPrefix(c[0].Expires, "2026-01-01T00:00:00") {
		t.Fatalf("response cookies %+v", c)
	}
	sb := e.Sandbank
	if sb.ID != "id-1" || sb.RequestID != "r-1" || sb.TPPID != "NO-FSA-1" || sb.Signature != "failed: signature" || sb.ErrorCode != "SIGNATURE_INVALID" ||
		len(sb.ClientNotes) != 1 || sb.Verdict == nil || sb.Verdict.SigningString != verdict.SigningString || len(sb.Verdict.Steps) != 1 {
		t.Fatalf("_sandbank %+v", sb)
	}

	// Bodies that are not UTF-8 are base64; a cut body is marked.
	e = h.Log.Entries[1]
	if e.Request.PostData == nil || e.Request.PostData.Encoding != "base64" || e.Request.PostData.Text != base64.StdEncoding.EncodeToString(binary) || e.Request.PostData.MimeType != "x-unknown" {
		t.Fatalf("binary postData %+v", e.Request.PostData)
	}
	if c := e.Response.Content; c.Encoding != "base64" || c.Text != base64.StdEncoding.EncodeToString(binary) || c.Size != 70000 || c.MimeType != "x-unknown" {
		t.Fatalf("binary content %+v", c)
	}
	if !e.Sandbank.BodiesCut || e.Response.RedirectURL != "https://tpp.example/cb" || e.Request.HTTPVersion != "HTTP/2.0" || e.Sandbank.Signature != "not checked" {
		t.Fatalf("second entry %+v", e)
	}
	// A body the bank did not read: its announced size, no postData.
	if e = h.Log.Entries[2]; e.Request.PostData != nil || e.Request.BodySize != 10 || e.Response.Content.Text != "" {
		t.Fatalf("unread body %+v", e.Request)
	}

	// No entries is still a HAR file, with an empty list.
	buf.Reset()
	if err := reqlog.WriteHAR(&buf, nil, "v1"); err != nil {
		t.Fatal(err)
	}
	apptest.CheckHAR(t, buf.Bytes())
	if !strings.Contains(buf.String(), `"entries": []`) {
		t.Fatalf("empty HAR %s", buf.String())
	}
}

// The JSON export writes each entry as GET /v1/sandbox/requests/{id}
// answers it: bodies as text or base64, saying which.
func TestWriteJSON(t *testing.T) {
	entries := []reqlog.Entry{
		{ID: "id-1", Method: "POST", Path: "/v1/x", Status: 201, RequestBody: []byte(`{"a":"<b>"}`), RequestBodySize: 11, ResponseBody: []byte{0x80}, ResponseBodySize: 1},
		{ID: "id-2", Method: "GET", Path: "/v1/y", Status: 200, RequestBodySize: 0},
	}
	var buf bytes.Buffer
	if err := reqlog.WriteJSON(&buf, entries); err != nil {
		t.Fatal(err)
	}
	var out []reqlog.Detail
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].ID != "id-1" || out[0].Request.Body != `{"a":"<b>"}` || out[0].Request.BodyEncoding != "text" ||
		out[0].Response.Body != "gA==" || out[0].Response.BodyEncoding != "base64" || out[0].Response.BodySize != 1 {
		t.Fatalf("export %s", buf.String())
	}
	if out[1].Request.BodyEncoding != "" || out[1].Request.Body != "" || out[1].ClientNotes == nil || out[1].Request.Headers == nil {
		t.Fatalf("no bodies %+v", out[1])
	}
}
