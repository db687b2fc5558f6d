package reqlog_test

import (
	"fmt"
	"slices"
	"testing"

	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
	"sandbank/bank/reqlog"
)

// sample is a small log's worth of requests, oldest first.
func sample() []reqlog.Entry {
	refused := &httpsig.Verdict{Signed: true, Steps: []httpsig.Step{{Check: "certificate", OK: true}, {Check: "digest", OK: false}}, Err: apierr.Errorf(apierr.CodeSignatureInvalid, "digest")}
	return []reqlog.Entry{
		{ID: "id-1", Method: "GET", Path: "/v1/sandbox/customers", Status: 200, TPPID: "NO-FSA-1", RequestID: "r-1", Verdict: &httpsig.Verdict{Signed: true}},
		{ID: "id-2", Method: "POST", Path: "/v1/sandbox/customers", Status: 400, TPPID: "NO-FSA-1", RequestID: "r-2", Verdict: refused, ErrorCode: "SIGNATURE_INVALID"},
		{ID: "id-3", Method: "GET", Path: "/v1/accounts?withBalance=true", Status: 200, TPPID: "NO-FSA-22", RequestID: "r-3", Access: "PSU 13039319955 (grant g-7)"},
		{ID: "id-4", Method: "GET", Path: "/v1/sandbox/requests?status=400", Status: 200, TPPID: "NO-FSA-1", RequestID: "r-4"},
		{ID: "id-5", Method: "GET", Path: "/v1/sandbox/requests/id-2", Status: 200, TPPID: "NO-FSA-1", RequestID: "r-5"},
		{ID: "id-6", Method: "GET", Path: "/v1/sandbox/requests.har", Status: 200, TPPID: "NO-FSA-1", RequestID: "r-6"},
		{ID: "id-7", Method: "DELETE", Path: "/v1/sandbox/requests", Status: 204, TPPID: "NO-FSA-1", RequestID: "r-7"},
		{ID: "id-8", Method: "GET", Path: "/v1/sandbox/requestsXYZ", Status: 404, ErrorCode: "NOT_FOUND", RequestID: "r-8"},
		{ID: "id-9", Method: "get", Path: "/healthz", Status: 503, RequestID: "r-9"},
	}
}

func matching(f reqlog.Filter) []string {
	var ids []string
	for _, e := range sample() {
		if f.Match(e) {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// Each field of the filter keeps the requests it names, and they combine.
func TestFilter_Match(t *testing.T) {
	all := []string{"id-1", "id-2", "id-3", "id-4", "id-5", "id-6", "id-7", "id-8", "id-9"}
	cases := []struct {
		name string
		f    reqlog.Filter
		want []string
	}{
		{"zero", reqlog.Filter{}, all},
		{"text in any case, across fields", reqlog.Filter{Text: "  post /V1/SANDBOX "}, []string{"id-2"}},
		{"text: signature summary", reqlog.Filter{Text: "failed: digest"}, []string{"id-2"}},
		{"text: error code", reqlog.Filter{Text: "not_found"}, []string{"id-8"}},
		{"text: X-Request-ID", reqlog.Filter{Text: "r-3"}, []string{"id-3"}},
		{"text: id", reqlog.Filter{Text: "id-9"}, []string{"id-9"}},
		{"text: PSU and grant", reqlog.Filter{Text: "grant g-7"}, []string{"id-3"}},
		{"text: status", reqlog.Filter{Text: "503"}, []string{"id-9"}},
		{"text that nothing has", reqlog.Filter{Text: "nothing like this"}, nil},
		{"TPP exactly, not a part of it", reqlog.Filter{TPPID: "NO-FSA-2"}, nil},
		{"TPP", reqlog.Filter{TPPID: "NO-FSA-22"}, []string{"id-3"}},
		{"method in any case", reqlog.Filter{Method: "Get"}, []string{"id-1", "id-3", "id-4", "id-5", "id-6", "id-8", "id-9"}},
		{"status", reqlog.Filter{Status: 400}, []string{"id-2"}},
		{"errors only", reqlog.Filter{ErrorsOnly: true}, []string{"id-2", "id-8", "id-9"}},
		{"errors only and a status under 400", reqlog.Filter{ErrorsOnly: true, Status: 200}, nil},
		{"the log's own requests left out", reqlog.Filter{LeaveOutOwn: true}, []string{"id-1", "id-2", "id-3", "id-8", "id-9"}},
		{"combined", reqlog.Filter{TPPID: "NO-FSA-1", Method: "GET", LeaveOutOwn: true}, []string{"id-1"}},
	}
	for _, c := range cases {
		if got := matching(c.f); !slices.Equal(got, c.want) {
			t.Errorf("%s: %+v matches %v, want %v", c.name, c.f, got, c.want)
		}
	}
}

// Pages list the newest requests first; before continues after a listed
// one; the total counts every match.
func TestLog_Page(t *testing.T) {
	l := reqlog.NewLog(100, 1<<20)
	for _, e := range sample() {
		l.Add(e)
	}
	ids := func(p reqlog.Page) []string {
		var out []string
		for _, e := range p.Entries {
			out = append(out, e.ID)
		}
		return out
	}
	f := reqlog.Filter{LeaveOutOwn: true}
	p, ok := l.Page(f, "", 2)
	if !ok || !slices.Equal(ids(p), []string{"id-9", "id-8"}) || p.Total != 5 || !p.More {
		t.Fatalf("first page %v, total %d, more %v", ids(p), p.Total, p.More)
	}
	p, ok = l.Page(f, "id-8", 2)
	if !ok || !slices.Equal(ids(p), []string{"id-3", "id-2"}) || p.Total != 5 || !p.More {
		t.Fatalf("second page %v, total %d, more %v", ids(p), p.Total, p.More)
	}
	p, ok = l.Page(f, "id-2", 2)
	if !ok || !slices.Equal(ids(p), []string{"id-1"}) || p.More {
		t.Fatalf("last page %v, more %v", ids(p), p.More)
	}
	// before may name a request the filter leaves out.
	if p, ok = l.Page(f, "id-5", 10); !ok || !slices.Equal(ids(p), []string{"id-3", "id-2", "id-1"}) {
		t.Fatalf("before a left-out request: %v", ids(p))
	}
	if p, ok = l.Page(f, "id-1", 10); !ok || len(p.Entries) != 0 || p.More {
		t.Fatalf("before the oldest: %v", ids(p))
	}
	if _, ok = l.Page(f, "no-such-id", 10); ok {
		t.Fatal("a page before an unknown id")
	}
	if e, ok := l.Get("id-3"); !ok || e.Path != "/v1/accounts?withBalance=true" {
		t.Fatalf("Get id-3: %+v %v", e, ok)
	}
	if _, ok := l.Get("no-such-id"); ok {
		t.Fatal("Get of an unknown id")
	}
	if got := l.Select(reqlog.Filter{ErrorsOnly: true}); len(got) != 3 || got[0].ID != "id-2" || got[2].ID != "id-9" {
		t.Fatalf("Select: %v", got)
	}
}

// Subscribers hear each entry and the clearing, in the order they
// happened, also when requests and clearing race.
func TestLog_SubscribersHearAddsAndClear(t *testing.T) {
	l := reqlog.NewLog(100, 1<<20)
	var heard []string
	cancel := l.Subscribe(func(c reqlog.Change) {
		if c.Cleared {
			heard = append(heard, "cleared")
		} else {
			heard = append(heard, c.Entry.ID)
		}
	})
	l.Add(reqlog.Entry{ID: "a"})
	l.Clear()
	l.Add(reqlog.Entry{ID: "b"})
	cancel()
	l.Add(reqlog.Entry{ID: "c"})
	if want := []string{"a", "cleared", "b"}; !slices.Equal(heard, want) {
		t.Fatalf("heard %v, want %v", heard, want)
	}
	if got := l.Entries(); len(got) != 2 || got[0].ID != "b" {
		t.Fatalf("kept %v", got)
	}

	// Racing: what a subscriber keeps, replaying what it heard, is what
	// the log keeps.
	l = reqlog.NewLog(1000, 1<<20)
	var mirror []string
	replay := make(chan reqlog.Change, 4096)
	l.Subscribe(func(c reqlog.Change) { replay <- c })
	done := make(chan struct{})
	for w := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 200 {
				l.Add(reqlog.Entry{ID: fmt.Sprintf("%d-%d", w, i)})
				if i%50 == 49 && w == 0 {
					l.Clear()
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	close(replay)
	for c := range replay {
		if c.Cleared {
			mirror = nil
		} else {
			mirror = append(mirror, c.Entry.ID)
		}
	}
	var kept []string
	for _, e := range l.Entries() {
		kept = append(kept, e.ID)
	}
	if !slices.Equal(mirror, kept) {
		t.Fatalf("the subscriber keeps %d requests, the log %d", len(mirror), len(kept))
	}
}

// A refused request's summary names the step that failed.
func TestEntry_Summary(t *testing.T) {
	e := sample()[1]
	e.Notes = []apierr.Message{apierr.Oddity(apierr.CodeFormatError, "Date", "odd")}
	s := e.Summary()
	if s.ID != "id-2" || s.Signature != "failed: digest" || s.ErrorCode != "SIGNATURE_INVALID" || s.Notes != 1 || s.TPPID != "NO-FSA-1" {
		t.Fatalf("summary %+v", s)
	}
}
