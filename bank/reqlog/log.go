// Package reqlog is the request log: the bank's HTTP server hands it each
// finished request, and it keeps the most recent ones in memory, bounded by
// their count and the bytes of their bodies, for the traffic screen and an
// export.
package reqlog

import (
	"net/http"
	"slices"
	"sync"
	"time"

	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
	"sandbank/bank/hub"
)

// MaxLoggedBody is how much of each request and response body the request
// log keeps.
const MaxLoggedBody = 64 << 10

// Entry is one finished request, as the request log keeps it.
type Entry struct {
	// ID names the entry for good: a UUID the server gives the request,
	// which an error answer's body carries as its id.
	ID  string
	Seq uint64
	// Time is when the request came in; Duration how long the bank took
	// to answer it.
	Time     time.Time
	Method   string
	Path     string // the path with its query, an alias prefix written as /v1
	Status   int
	Duration time.Duration
	// URL is the request's absolute URL as the client sent it; Proto its
	// HTTP version, e.g. HTTP/1.1.
	URL       string
	Proto     string
	RequestID string
	TPPID     string
	// Verdict explains the signature check; nil for unsigned routes.
	Verdict   *httpsig.Verdict
	ErrorCode string
	// Access names the PSU, context and grant an account-information
	// request used; GrantID is that grant.
	Access  string
	GrantID string
	// Notes are the oddities the bank accepted with a warning (docs/TPP-GUIDE.md 9):
	// client notes on the headers and signature, and the body's warnings.
	Notes []apierr.Message

	RequestHeader  http.Header
	RequestBody    []byte
	ResponseHeader http.Header
	ResponseBody   []byte
	// RequestBodySize and ResponseBodySize are the sizes of the whole
	// bodies in bytes, which may be more than the log keeps; a request
	// body the bank did not read (it refused the request first) has the
	// size its Content-Length announced, -1 when unknown.
	RequestBodySize  int64
	ResponseBodySize int
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
// subscribers about each new one and about clearing.
type Log struct {
	// publish orders the changes subscribers hear as they happen: an
	// entry added just before a clear is never announced after it.
	publish  sync.Mutex
	mu       sync.Mutex
	entries  []Entry
	max      int
	maxBytes int
	// bytes is what the bodies of entries hold, kept as they come and go,
	// so that adding an entry costs the same however many are kept.
	bytes   int
	seq     uint64
	changes hub.Hub[Change]
}

// Change is what a subscriber of the log hears: a new entry, or that the
// log was cleared.
type Change struct {
	// Entry is the new entry, unless Cleared.
	Entry   Entry
	Cleared bool
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
		bytes += bodyBytes(entries[i])
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
	l.trim()
}

// trim drops the oldest entries until the bounds hold, as Trim does,
// keeping the newest entry.
func (l *Log) trim() {
	drop := 0
	for n := len(l.entries); n-drop > 1 && (n-drop > l.max || l.bytes > l.maxBytes); drop++ {
		l.bytes -= bodyBytes(l.entries[drop])
	}
	clear(l.entries[:drop]) // let the dropped bodies go
	l.entries = l.entries[drop:]
}

// bodyBytes is what an entry's bodies hold, as the bytes bound counts it.
func bodyBytes(e Entry) int { return len(e.RequestBody) + len(e.ResponseBody) }

// Limits returns the bounds in force, for the screens that keep a copy of
// the log and trim it with Trim.
func (l *Log) Limits() (maxCount, maxBytes int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.max, l.maxBytes
}

// Add records a request and tells subscribers.
func (l *Log) Add(e Entry) {
	l.publish.Lock()
	defer l.publish.Unlock()
	l.mu.Lock()
	l.seq++
	e.Seq = l.seq
	l.entries = append(l.entries, e)
	l.bytes += bodyBytes(e)
	l.trim()
	l.mu.Unlock()
	l.changes.Publish(Change{Entry: e})
}

// Entries returns the kept requests, oldest first.
func (l *Log) Entries() []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Entry(nil), l.entries...)
}

// Get returns the kept request with an id.
func (l *Log) Get(id string) (Entry, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.entries) - 1; i >= 0; i-- {
		if l.entries[i].ID == id {
			return l.entries[i], true
		}
	}
	return Entry{}, false
}

// Select returns the kept requests that match f, oldest first.
func (l *Log) Select(f Filter) []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Entry
	for _, e := range l.entries {
		if f.Match(e) {
			out = append(out, e)
		}
	}
	return out
}

// Page is a part of the requests that match a filter, newest first.
type Page struct {
	Entries []Entry
	// Total counts every kept request that matches, on every page.
	Total int
	// More is set when older requests that match follow the last one.
	More bool
}

// Page returns up to limit requests that match f, newest first: the
// newest ones, or, when before is an entry's id, those older than it.
// ok is false when before names no kept request.
func (l *Log) Page(f Filter, before string, limit int) (p Page, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	start := len(l.entries) - 1
	if before != "" {
		start = slices.IndexFunc(l.entries, func(e Entry) bool { return e.ID == before }) - 1
		if start < -1 {
			return Page{}, false
		}
	}
	for i := len(l.entries) - 1; i >= 0; i-- {
		e := l.entries[i]
		if !f.Match(e) {
			continue
		}
		p.Total++
		if i > start {
			continue
		}
		if len(p.Entries) == limit {
			p.More = true
			continue
		}
		p.Entries = append(p.Entries, e)
	}
	return p, true
}

// Clear forgets every kept request and tells subscribers.
func (l *Log) Clear() {
	l.publish.Lock()
	defer l.publish.Unlock()
	l.mu.Lock()
	l.entries, l.bytes = nil, 0
	l.mu.Unlock()
	l.changes.Publish(Change{Cleared: true})
}

// Subscribe calls fn with each change from now on, until cancel. fn must
// not block, nor add to the log or clear it.
func (l *Log) Subscribe(fn func(Change)) (cancel func()) {
	return l.changes.Subscribe(fn)
}
