package psd2api

import (
	"fmt"
	"hash/maphash"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
)

// Client notes (docs/TPP-GUIDE.md 9): what a request does that the bank accepts, as
// the real bank does, but a stricter bank might not. Each says in one line
// what to change; strict mode refuses them.

// dateSkew is how far a request's Date may be from the bank's clock
// without a note.
const dateSkew = 5 * time.Minute

// requestIDWindow is how long an X-Request-ID is remembered per TPP.
const requestIDWindow = time.Hour

// httpMethods are the methods PSU-HTTP-Method may name.
var httpMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"}

// clientNotes are the notes on a verified request's headers and
// signature.
func (s *server) clientNotes(r *http.Request, v *httpsig.Verdict, body []byte) []apierr.Message {
	var notes []apierr.Message
	odd := func(refuse, path, format string, args ...any) {
		notes = append(notes, apierr.Oddity(refuse, path, fmt.Sprintf(format, args...)))
	}
	now := s.Now()
	if h := r.Header.Get("Date"); h != "" {
		t, err := http.ParseTime(h)
		switch {
		case err != nil:
			odd(apierr.CodeFormatError, "Date", "%q is not an HTTP date; send RFC 7231's form, e.g. %s", clipNote(h), now.UTC().Format(http.TimeFormat))
		case t.Sub(now).Abs() > dateSkew && t.Sub(s.Bank.Ops.Now()).Abs() > dateSkew:
			odd(apierr.CodeFormatError, "Date", "is %s away from the bank's clock (and the sandbox clock); sign with the current time", t.Sub(now).Round(time.Second).Abs())
		}
	}
	if h := r.Header.Get("PSU-IP-Address"); h != "" && net.ParseIP(strings.TrimSpace(h)) == nil {
		odd(apierr.CodeFormatError, "PSU-IP-Address", "%q is not an IP address; send the PSU's address, e.g. 192.0.2.10 or 2001:db8::1", clipNote(h))
	}
	if h := r.Header.Get("PSU-Device-ID"); h != "" {
		if _, err := uuid.Parse(strings.TrimSpace(h)); err != nil {
			odd(apierr.CodeFormatError, "PSU-Device-ID", "%q is not a UUID; send the device's UUID", clipNote(h))
		}
	}
	if h := r.Header.Get("PSU-Context"); h != "" && h != psuContext(h) {
		if ctx := psuContext(h); ctx != "" {
			odd(apierr.CodeFormatError, "PSU-Context", "%q is not written in capitals; the bank reads it as %s. Send PRIVATE or CORPORATE as written", clipNote(h), ctx)
		} else {
			odd(apierr.CodeFormatError, "PSU-Context", "%q is neither PRIVATE nor CORPORATE, the only values the bank takes; it is ignored, so PSU-Corporate-ID or the PSU at SCA decides the context. Send PRIVATE or CORPORATE, or leave the header out", clipNote(h))
		}
	}
	if h := r.Header.Get("PSU-HTTP-Method"); h != "" && !slices.Contains(httpMethods, strings.TrimSpace(h)) {
		odd(apierr.CodeFormatError, "PSU-HTTP-Method", "%q is not an HTTP method; send the method of the PSU's request, e.g. GET", clipNote(h))
	}
	if !v.Signed {
		return notes
	}
	if id := r.Header.Get("X-Request-ID"); s.requestIDs.reused(v.TPPID, id, now) {
		odd(apierr.CodeFormatError, "X-Request-ID", "%q was sent by your TPP in the last hour already; send a new one (a UUID) with every request", clipNote(id))
	}
	if len(body) == 0 && !slices.Contains(v.SignedHeaders, "date") && !slices.Contains(v.SignedHeaders, "(request-target)") {
		odd(apierr.CodeSignatureInvalid, "Signature", "covers neither date nor (request-target), so it binds neither the time nor the method and path, and could be sent again on another route; sign (request-target) and date")
	}
	return notes
}

// psuContext reads a PSU-Context header (spec 4.1): PRIVATE or CORPORATE,
// in any case, or "" for any other value and for none. clientNotes notes
// every value that is not one of the two as written.
func psuContext(h string) string {
	switch v := strings.ToUpper(strings.TrimSpace(h)); v {
	case "PRIVATE", "CORPORATE":
		return v
	}
	return ""
}

// clipNote shortens a header value quoted in a note.
func clipNote(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// requestIDs remembers the X-Request-IDs each TPP sent in the last
// requestIDWindow, in arrival order, so that a reused one is noted. It
// keeps at most maxRequestIDs, dropping the oldest, and of each only a
// 64-bit hash of TPP and id and the time, 16 bytes, so that an hour of
// requests costs little memory (a false match is about one in 10^14 with
// the list full).
type requestIDs struct {
	mu    sync.Mutex
	seed  maphash.Seed
	seen  map[uint64]int64 // hash → unix nanoseconds of the last sending
	order []seenID
}

type seenID struct {
	hash uint64
	at   int64
}

const maxRequestIDs = 100_000

// reused records an X-Request-ID of a TPP and reports whether the TPP sent
// it in the window before.
func (ids *requestIDs) reused(tppID, id string, now time.Time) bool {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	if ids.seen == nil {
		ids.seen, ids.seed = map[uint64]int64{}, maphash.MakeSeed()
	}
	var h maphash.Hash
	h.SetSeed(ids.seed)
	_, _ = h.WriteString(tppID)
	_ = h.WriteByte(0)
	_, _ = h.WriteString(id)
	key, t := h.Sum64(), now.UnixNano()
	drop := 0
	for drop < len(ids.order) && (t-ids.order[drop].at > int64(requestIDWindow) || len(ids.order)-drop >= maxRequestIDs) {
		if old := ids.order[drop]; ids.seen[old.hash] == old.at {
			delete(ids.seen, old.hash)
		}
		drop++
	}
	ids.order = ids.order[drop:]
	at, ok := ids.seen[key]
	ids.seen[key] = t
	ids.order = append(ids.order, seenID{key, t})
	return ok && t-at <= int64(requestIDWindow)
}
