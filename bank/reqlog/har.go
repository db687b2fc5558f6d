package reqlog

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
)

// The HAR 1.2 export (http://www.softwareishard.com/blog/har-12-spec/),
// which browsers' developer tools, proxies and HAR viewers import. Each
// entry is one request as the bank saw it: its bodies as the log keeps
// them, the bank's time to answer as the wait, and what Sandbank knows
// beyond HAR in the custom field _sandbank.

type har struct {
	Log harLog `json:"log"`
}

type harLog struct {
	Version string     `json:"version"`
	Creator harCreator `json:"creator"`
	Entries []harEntry `json:"entries"`
	Comment string     `json:"comment"`
}

type harCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type harEntry struct {
	StartedDateTime string      `json:"startedDateTime"`
	Time            float64     `json:"time"`
	Request         harRequest  `json:"request"`
	Response        harResponse `json:"response"`
	Cache           struct{}    `json:"cache"`
	Timings         harTimings  `json:"timings"`
	Sandbank        harSandbank `json:"_sandbank"`
}

type harRequest struct {
	Method      string      `json:"method"`
	URL         string      `json:"url"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []harCookie `json:"cookies"`
	Headers     []harPair   `json:"headers"`
	QueryString []harPair   `json:"queryString"`
	PostData    *harPost    `json:"postData,omitempty"`
	HeadersSize int         `json:"headersSize"`
	BodySize    int64       `json:"bodySize"`
}

type harPost struct {
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
	// Encoding is "base64" for a body that is not UTF-8 (a field of HAR
	// 1.3, custom in 1.2).
	Encoding string `json:"_encoding,omitempty"`
}

type harResponse struct {
	Status      int         `json:"status"`
	StatusText  string      `json:"statusText"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []harCookie `json:"cookies"`
	Headers     []harPair   `json:"headers"`
	Content     harContent  `json:"content"`
	RedirectURL string      `json:"redirectURL"`
	HeadersSize int         `json:"headersSize"`
	BodySize    int         `json:"bodySize"`
}

type harContent struct {
	Size     int    `json:"size"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
	Encoding string `json:"encoding,omitempty"`
}

type harPair struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type harCookie struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Path     string `json:"path,omitempty"`
	Domain   string `json:"domain,omitempty"`
	Expires  string `json:"expires,omitempty"`
	HTTPOnly bool   `json:"httpOnly"`
	Secure   bool   `json:"secure"`
}

// harTimings: the bank knows only how long it took to answer, the wait;
// the network's parts did not happen in the bank (-1, as HAR writes it).
type harTimings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	SSL     float64 `json:"ssl"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
}

// harSandbank is what the bank knows of a request beyond HAR.
type harSandbank struct {
	ID        string           `json:"id"`
	RequestID string           `json:"requestId"`
	TPPID     string           `json:"tppId,omitempty"`
	Signature string           `json:"signature"`
	Verdict   *httpsig.Verdict `json:"verdict,omitempty"`
	ErrorCode string           `json:"errorCode,omitempty"`
	Access    string           `json:"access,omitempty"`
	GrantID   string           `json:"grantId,omitempty"`
	Notes     []apierr.Message `json:"clientNotes"`
	BodiesCut bool             `json:"bodiesCut,omitempty"`
}

// WriteHAR writes entries, oldest first, as a HAR 1.2 log whose creator is
// Sandbank at version.
func WriteHAR(w io.Writer, entries []Entry, version string) error {
	out := har{Log: harLog{
		Version: "1.2",
		Creator: harCreator{Name: "Sandbank", Version: version},
		Entries: make([]harEntry, 0, len(entries)),
		Comment: fmt.Sprintf("Requests as the Sandbank bank received and answered them. time is the bank's time to answer (timings.wait). "+
			"A body longer than %d KiB holds its start (_sandbank.bodiesCut); a request refused before its body was read has none. "+
			"_sandbank holds the bank's signature check with the signing string it rebuilt, the error code and the client notes.", MaxLoggedBody>>10),
	}}
	for _, e := range entries {
		out.Log.Entries = append(out.Log.Entries, harEntryOf(e))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

func harEntryOf(e Entry) harEntry {
	wait := ms(e.Duration)
	proto := e.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	req := harRequest{
		Method: e.Method, URL: e.URL, HTTPVersion: proto,
		Cookies: requestCookies(e.RequestHeader), Headers: harHeaders(e.RequestHeader), QueryString: queryOf(e.URL),
		HeadersSize: -1, BodySize: e.RequestBodySize,
	}
	if req.URL == "" {
		req.URL = e.Path
	}
	if text, enc := bodyText(e.RequestBody); enc != "" {
		req.PostData = &harPost{MimeType: mimeType(e.RequestHeader), Text: text}
		if enc == "base64" {
			req.PostData.Encoding = enc
		}
	}
	resp := harResponse{
		Status: e.Status, StatusText: http.StatusText(e.Status), HTTPVersion: proto,
		Cookies: responseCookies(e.ResponseHeader), Headers: harHeaders(e.ResponseHeader),
		Content:     harContent{Size: e.ResponseBodySize, MimeType: mimeType(e.ResponseHeader)},
		RedirectURL: e.ResponseHeader.Get("Location"), HeadersSize: -1, BodySize: e.ResponseBodySize,
	}
	if text, enc := bodyText(e.ResponseBody); enc != "" {
		resp.Content.Text = text
		if enc == "base64" {
			resp.Content.Encoding = enc
		}
	}
	notes := e.Notes
	if notes == nil {
		notes = []apierr.Message{}
	}
	return harEntry{
		StartedDateTime: e.Time.Format("2006-01-02T15:04:05.000Z07:00"),
		Time:            wait,
		Request:         req,
		Response:        resp,
		Timings:         harTimings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1, Wait: wait},
		Sandbank: harSandbank{
			ID: e.ID, RequestID: e.RequestID, TPPID: e.TPPID, Signature: e.SignatureSummary(), Verdict: e.Verdict,
			ErrorCode: e.ErrorCode, Access: e.Access, GrantID: e.GrantID, Notes: notes, BodiesCut: e.BodiesCut,
		},
	}
}

// mimeType is the Content-Type of a message, x-unknown when it has none
// (as browsers write it).
func mimeType(h http.Header) string {
	if ct := h.Get("Content-Type"); ct != "" {
		return ct
	}
	return "x-unknown"
}

// harHeaders lists headers by name, each value on its own.
func harHeaders(h http.Header) []harPair {
	out := []harPair{}
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, v := range h[name] {
			out = append(out, harPair{Name: name, Value: v})
		}
	}
	return out
}

// queryOf lists the query parameters of a URL in their order; a part
// that cannot be unescaped is kept as it was sent.
func queryOf(rawURL string) []harPair {
	out := []harPair{}
	_, query, ok := strings.Cut(rawURL, "?")
	if !ok {
		return out
	}
	for part := range strings.SplitSeq(query, "&") {
		if part == "" {
			continue
		}
		name, value, _ := strings.Cut(part, "=")
		out = append(out, harPair{Name: unescape(name), Value: unescape(value)})
	}
	return out
}

func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

func requestCookies(h http.Header) []harCookie {
	out := []harCookie{}
	for _, c := range (&http.Request{Header: h}).Cookies() {
		out = append(out, harCookie{Name: c.Name, Value: c.Value})
	}
	return out
}

func responseCookies(h http.Header) []harCookie {
	out := []harCookie{}
	for _, line := range h.Values("Set-Cookie") {
		c, err := http.ParseSetCookie(line)
		if err != nil {
			continue
		}
		hc := harCookie{Name: c.Name, Value: c.Value, Path: c.Path, Domain: c.Domain, HTTPOnly: c.HttpOnly, Secure: c.Secure}
		if !c.Expires.IsZero() {
			hc.Expires = c.Expires.UTC().Format(time.RFC3339)
		}
		out = append(out, hc)
	}
	return out
}
