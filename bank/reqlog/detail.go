package reqlog

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
)

// Summary is an entry in a few fields, as GET /v1/sandbox/requests lists
// it.
type Summary struct {
	ID         string    `json:"id"`
	Time       time.Time `json:"time"`
	Method     string    `json:"method"`
	Path       string    `json:"path"`
	Status     int       `json:"status"`
	DurationMS float64   `json:"durationMs"`
	RequestID  string    `json:"requestId"`
	TPPID      string    `json:"tppId,omitempty"`
	Signature  string    `json:"signature"`
	ErrorCode  string    `json:"errorCode,omitempty"`
	// Notes counts the client notes, those past the first
	// apierr.MaxWarnings too: the count of the answer's Sandbank-Notes
	// header.
	Notes int `json:"notes"`
}

// Summary returns the entry's summary.
func (e Entry) Summary() Summary {
	return Summary{
		ID: e.ID, Time: e.Time, Method: e.Method, Path: e.Path, Status: e.Status, DurationMS: ms(e.Duration),
		RequestID: e.RequestID, TPPID: e.TPPID, Signature: e.SignatureSummary(), ErrorCode: e.ErrorCode, Notes: apierr.CountNotes(e.Notes),
	}
}

// Detail is everything the log keeps of an entry, as GET
// /v1/sandbox/requests/{id} answers it and the JSON export writes it.
type Detail struct {
	Summary
	URL         string `json:"url,omitempty"`
	HTTPVersion string `json:"httpVersion,omitempty"`
	// Verdict is the signature check step by step, with the signing
	// string the bank rebuilt; nil for a route that is not signed.
	Verdict *httpsig.Verdict `json:"verdict,omitempty"`
	Access  string           `json:"access,omitempty"`
	GrantID string           `json:"grantId,omitempty"`
	// ClientNotes are the oddities the bank accepted with a warning.
	ClientNotes []apierr.Message `json:"clientNotes"`
	Request     Message          `json:"request"`
	Response    Message          `json:"response"`
	// BodiesCut is set when a body is longer than the log keeps
	// (MaxLoggedBody): Body holds its start.
	BodiesCut bool `json:"bodiesCut"`
}

// Message is the headers and body of a request or response.
type Message struct {
	Headers http.Header `json:"headers"`
	// Body is the body as text when it is UTF-8, else in base64, as
	// BodyEncoding says: "text" or "base64"; both are left out when there
	// is no body.
	Body         string `json:"body,omitempty"`
	BodyEncoding string `json:"bodyEncoding,omitempty"`
	// BodySize is the size of the whole body in bytes; -1 when unknown.
	BodySize int64 `json:"bodySize"`
}

// Detail returns everything the log keeps of the entry.
func (e Entry) Detail() Detail {
	d := Detail{
		Summary: e.Summary(), URL: e.URL, HTTPVersion: e.Proto, Verdict: e.Verdict, Access: e.Access, GrantID: e.GrantID,
		ClientNotes: e.Notes, Request: message(e.RequestHeader, e.RequestBody, e.RequestBodySize),
		Response: message(e.ResponseHeader, e.ResponseBody, int64(e.ResponseBodySize)), BodiesCut: e.BodiesCut,
	}
	if d.ClientNotes == nil {
		d.ClientNotes = []apierr.Message{}
	}
	return d
}

// Explain writes what the bank decided about the request, for a person:
// the answer, the client notes, and the signature check step by step with
// the signing string the bank rebuilt. The Traffic screen and sandbankd
// log show it.
func (d Detail) Explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s answered %d in %.1f ms, X-Request-ID %s\n", d.Method, d.Path, d.Status, d.DurationMS, d.RequestID)
	fmt.Fprintf(&b, "Id %s (an error body's id; GET %s/{id} shows this through the API)\n", d.ID, APIPath)
	if d.ErrorCode != "" {
		fmt.Fprintf(&b, "Error %s\n", d.ErrorCode)
	}
	if d.Access != "" {
		fmt.Fprintf(&b, "PSU and grant: %s\n", d.Access)
	}
	if len(d.ClientNotes) > 0 {
		b.WriteString("\n")
		WriteClientNotes(&b, d.ClientNotes)
	}
	v := d.Verdict
	if v == nil {
		b.WriteString("\nThis route is not signed (the health check, the SCA page, or no such route), so no signature was checked.\n")
		return b.String()
	}
	if n := len(v.Steps); n > 0 && !v.Steps[n-1].OK {
		fmt.Fprintf(&b, "\nRefused at the %s step: %s\n", v.Steps[n-1].Check, v.Steps[n-1].Detail)
	}
	b.WriteString("\n")
	WriteSteps(&b, v)
	if v.SigningString != "" {
		fmt.Fprintf(&b, "\nSigning string (what the signature must cover, lines joined by \\n):\n%s\n", v.SigningString)
	}
	if v.Digest != "" {
		fmt.Fprintf(&b, "\nDigest of the body as the bank computed it: %s\n", v.Digest)
	}
	return b.String()
}

// HeaderText writes headers one a line, "Name: value", sorted by name.
func HeaderText(h http.Header) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[name] {
			fmt.Fprintf(&b, "%s: %s\n", name, v)
		}
	}
	return b.String()
}

// PrettyBody indents a JSON body; anything else is as it is.
func PrettyBody(body []byte) string {
	var out bytes.Buffer
	if json.Indent(&out, body, "", "  ") == nil {
		return out.String()
	}
	return string(body)
}

func message(h http.Header, body []byte, size int64) Message {
	if h == nil {
		h = http.Header{}
	}
	text, enc := bodyText(body)
	return Message{Headers: h, Body: text, BodyEncoding: enc, BodySize: size}
}

// bodyText returns a body as text when it is UTF-8, else in base64, and
// which of the two it is; "" for no body.
func bodyText(b []byte) (text, encoding string) {
	switch {
	case len(b) == 0:
		return "", ""
	case utf8.Valid(b):
		return string(b), "text"
	}
	return base64.StdEncoding.EncodeToString(b), "base64"
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// WriteJSON writes entries as a JSON array of their details, for a bug
// report or a diff.
func WriteJSON(w io.Writer, entries []Entry) error {
	out := make([]Detail, len(entries))
	for i, e := range entries {
		out[i] = e.Detail()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// WriteClientNotes writes the client notes of a request as a list under
// its heading, as Explain and the Traffic screen show them.
func WriteClientNotes(b *strings.Builder, notes []apierr.Message) {
	b.WriteString("Client notes (accepted, as the real bank would; strict mode refuses them):\n")
	for _, n := range notes {
		if n.Path != "" {
			fmt.Fprintf(b, "- %s: %s\n", n.Path, n.Text)
		} else {
			fmt.Fprintf(b, "- %s\n", n.Text)
		}
	}
}

// WriteSteps writes the steps of a signature check, numbered, each ok or
// FAILED with its detail, and then the headers the signature covered, as
// Explain and the Traffic screen show them.
func WriteSteps(b *strings.Builder, v *httpsig.Verdict) {
	b.WriteString("Signature check, step by step:\n")
	for i, st := range v.Steps {
		mark := "ok"
		if !st.OK {
			mark = "FAILED"
		}
		fmt.Fprintf(b, "%d. %s: %s\n   %s\n", i+1, st.Check, mark, st.Detail)
	}
	if len(v.SignedHeaders) > 0 {
		fmt.Fprintf(b, "\nSigned headers: %s\n", strings.Join(v.SignedHeaders, " "))
	}
}
