// Package reqlog is the request log: the bank's HTTP server hands it each
// finished request, and it keeps the most recent ones in memory, bounded by
// their count and the bytes of their bodies, for the traffic screen and an
// export.
package reqlog

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	"sandbank/bank"
	"sandbank/bank/httpsig"
	"sandbank/bank/hub"
)

// MaxLoggedBody is how much of each request and response body the request
// log keeps.
const MaxLoggedBody = 64 << 10

// The bounds a log keeps by default: the last DefaultMaxCount requests,
// fewer when their bodies (at most MaxLoggedBody each) hold more than
// DefaultMaxBytes. They are the defaults of the requestLog setting, which
// changes them (SetLimits).
const (
	DefaultMaxCount = bank.DefaultRequestLogCount
	DefaultMaxBytes = bank.DefaultRequestLogBytes
)

// Entry is one finished request, as the request log keeps it.
type Entry struct {
	Seq       uint64
	Time      time.Time
	Method    string
	Path      string
	Status    int
	Duration  time.Duration
	RequestID string
	TPPID     string
	// Verdict explains the signature check; nil for unsigned routes.
	Verdict   *httpsig.Verdict
	ErrorCode string
	ErrorID   string
	// Access names the PSU, context and grant an account-information
	// request used; GrantID is that grant.
	Access  string
	GrantID string
	// Notes are the oddities the bank accepted with a warning (API.md 11):
	// client notes on the headers and signature, and the body's warnings.
	Notes []bank.Message

	RequestHeader  http.Header
	RequestBody    []byte
	ResponseHeader http.Header
	ResponseBody   []byte
	// BodiesCut is set when a body was longer than MaxLoggedBody.
	BodiesCut bool
}

// SignatureSummary is the verdict in a few words: "verified", "unsigned",
// "missing", "not checked" or "failed: <check>".
func (e Entry) SignatureSummary() string {
	switch v := e.Verdict; {
	case v == nil:
		return "not checked"
	case v.Err != nil && !v.Signed:
		return "missing"
	case v.Err != nil:
		step := "signature"
		if n := len(v.Steps); n > 0 {
			step = v.Steps[n-1].Check
		}
		return "failed: " + step
	case !v.Signed:
		return "unsigned"
	}
	return "verified"
}

// Log keeps the most recent requests in memory for the traffic screen,
// bounded by their count and by the bytes of their bodies, and tells
// subscribers about each new one.
type Log struct {
	mu       sync.Mutex
	entries  []Entry
	max      int
	maxBytes int
	seq      uint64
	added    hub.Hub[Entry]
}

// NewLog returns a log that keeps the last max requests, fewer when their
// bodies hold more than maxBytes.
func NewLog(max, maxBytes int) *Log {
	return &Log{max: max, maxBytes: maxBytes}
}

// Trim drops the oldest entries until at most maxCount are left and their
// bodies hold at most maxBytes; the newest entry always stays. The request
// log and every screen that keeps a copy of it trim with it, so they keep
// the same requests.
func Trim(entries []Entry, maxCount, maxBytes int) []Entry {
	drop := max(len(entries)-maxCount, 0)
	bytes := 0
	for i := len(entries) - 1; i >= drop; i-- {
		bytes += len(entries[i].RequestBody) + len(entries[i].ResponseBody)
		if bytes > maxBytes && i < len(entries)-1 {
			drop = i + 1
			break
		}
	}
	clear(entries[:drop]) // let the dropped bodies go
	return entries[drop:]
}

// SetLimits changes the bounds and drops at once the oldest entries they
// no longer allow.
func (l *Log) SetLimits(maxCount, maxBytes int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.max, l.maxBytes = maxCount, maxBytes
	if len(l.entries) > 0 {
		l.entries = Trim(l.entries, l.max, l.maxBytes)
	}
}

// Limits returns the bounds in force, for the screens that keep a copy of
// the log and trim it with Trim.
func (l *Log) Limits() (maxCount, maxBytes int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.max, l.maxBytes
}

// Add records a request and tells subscribers.
func (l *Log) Add(e Entry) {
	l.mu.Lock()
	l.seq++
	e.Seq = l.seq
	l.entries = Trim(append(l.entries, e), l.max, l.maxBytes)
	l.mu.Unlock()
	l.added.Publish(e)
}

// Entries returns the kept requests, oldest first.
func (l *Log) Entries() []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Entry(nil), l.entries...)
}

// Clear forgets every kept request.
func (l *Log) Clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = nil
}

// Subscribe calls fn with each request added from now on, until cancel.
// fn must not block.
func (l *Log) Subscribe(fn func(Entry)) (cancel func()) {
	return l.added.Subscribe(fn)
}

// exportEntry is an Entry as the JSON export writes it.
type exportEntry struct {
	Time           time.Time        `json:"time"`
	Method         string           `json:"method"`
	Path           string           `json:"path"`
	Status         int              `json:"status"`
	DurationMS     float64          `json:"durationMs"`
	RequestID      string           `json:"requestId"`
	TPPID          string           `json:"tppId,omitempty"`
	Signature      string           `json:"signature"`
	Verdict        *httpsig.Verdict `json:"verdict,omitempty"`
	ErrorCode      string           `json:"errorCode,omitempty"`
	ErrorID        string           `json:"errorId,omitempty"`
	Access         string           `json:"access,omitempty"`
	GrantID        string           `json:"grantId,omitempty"`
	Notes          []bank.Message   `json:"clientNotes,omitempty"`
	RequestHeader  http.Header      `json:"requestHeaders"`
	RequestBody    string           `json:"requestBody,omitempty"`
	ResponseHeader http.Header      `json:"responseHeaders"`
	ResponseBody   string           `json:"responseBody,omitempty"`
	BodiesCut      bool             `json:"bodiesCut,omitempty"`
}

// WriteJSON writes entries as a JSON array, for a bug report or a diff.
func WriteJSON(w io.Writer, entries []Entry) error {
	out := make([]exportEntry, len(entries))
	for i, e := range entries {
		out[i] = exportEntry{
			Time: e.Time, Method: e.Method, Path: e.Path, Status: e.Status,
			DurationMS: float64(e.Duration.Microseconds()) / 1000, RequestID: e.RequestID, TPPID: e.TPPID,
			Signature: e.SignatureSummary(), Verdict: e.Verdict, ErrorCode: e.ErrorCode, ErrorID: e.ErrorID, Access: e.Access, GrantID: e.GrantID, Notes: e.Notes,
			RequestHeader: e.RequestHeader, RequestBody: string(e.RequestBody),
			ResponseHeader: e.ResponseHeader, ResponseBody: string(e.ResponseBody), BodiesCut: e.BodiesCut,
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
