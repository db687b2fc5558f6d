package reqlog_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"sandbank/bank/reqlog"
)

// The request log keeps the newest requests within both of its bounds:
// their count and the bytes of their bodies.
func TestLog_KeepsTheNewestWithinCountAndBytes(t *testing.T) {
	l := reqlog.NewLog(10, 3<<20)
	seqs := func() []uint64 {
		var out []uint64
		for _, e := range l.Entries() {
			out = append(out, e.Seq)
		}
		return out
	}
	for range 15 {
		l.Add(reqlog.Entry{ResponseBody: make([]byte, 100)})
	}
	if got := seqs(); len(got) != 10 || got[0] != 6 || got[9] != 15 {
		t.Fatalf("small entries kept: %v", got)
	}
	// Entries of 1 MiB (request and response body): three fill the 3 MiB,
	// and everything older goes.
	for range 4 {
		l.Add(reqlog.Entry{RequestBody: make([]byte, 512<<10), ResponseBody: make([]byte, 512<<10)})
	}
	if got := seqs(); len(got) != 3 || got[0] != 17 || got[2] != 19 {
		t.Fatalf("after four 1 MiB entries: %v", got)
	}
	// One entry larger than the whole budget still stays, alone.
	l.Add(reqlog.Entry{ResponseBody: make([]byte, 5<<20)})
	if got := seqs(); len(got) != 1 || got[0] != 20 {
		t.Fatalf("after a 5 MiB entry: %v", got)
	}
	// Trim clears what it drops, so the bodies can be freed.
	entries := []reqlog.Entry{{ResponseBody: make([]byte, 10)}, {ResponseBody: make([]byte, 10)}, {ResponseBody: make([]byte, 10)}}
	kept := reqlog.Trim(entries, 2, 1<<20)
	if len(kept) != 2 || entries[0].ResponseBody != nil {
		t.Fatalf("kept %d, dropped entry %v", len(kept), entries[0].ResponseBody != nil)
	}
}

// New limits apply at once: the oldest entries they no longer allow go,
// and later requests are kept within them.
func TestLog_SetLimitsTrimsAtOnce(t *testing.T) {
	l := reqlog.NewLog(2000, 32<<20)
	for range 8 {
		l.Add(reqlog.Entry{ResponseBody: make([]byte, 100)})
	}
	l.SetLimits(3, 1<<20)
	if n, b := l.Limits(); n != 3 || b != 1<<20 {
		t.Fatalf("limits %d %d", n, b)
	}
	if got := l.Entries(); len(got) != 3 || got[0].Seq != 6 {
		t.Fatalf("after SetLimits(3): %d entries, the oldest %d", len(got), got[0].Seq)
	}
	l.Add(reqlog.Entry{})
	if got := l.Entries(); len(got) != 3 || got[2].Seq != 9 {
		t.Fatalf("after one more: %+v", got)
	}
	l.SetLimits(10, 1<<20)
	for range 5 {
		l.Add(reqlog.Entry{})
	}
	if got := l.Entries(); len(got) != 8 {
		t.Fatalf("with room for 10: %d entries", len(got))
	}
}

// The log keeps what Trim keeps of every request added, whatever the
// order of sizes and limits: it counts its bodies' bytes as entries come
// and go rather than adding them up again for each request.
func TestLog_KeepsWhatTrimKeeps(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	l := reqlog.NewLog(50, 64<<10)
	maxCount, maxBytes := 50, 64<<10
	var want []reqlog.Entry // Trim after every change
	for i := range 5000 {
		switch rng.IntN(100) {
		case 0:
			maxCount, maxBytes = 1+rng.IntN(80), 1+rng.IntN(128<<10)
			l.SetLimits(maxCount, maxBytes)
		case 1:
			l.Clear()
			want = nil
		default:
			e := reqlog.Entry{RequestBody: make([]byte, rng.IntN(4<<10)), ResponseBody: make([]byte, rng.IntN(16<<10))}
			l.Add(e)
			want = append(slices.Clone(want), e)
		}
		want = reqlog.Trim(want, maxCount, maxBytes)
		got := l.Entries()
		if len(got) != len(want) {
			t.Fatalf("step %d: the log keeps %d entries, Trim %d", i, len(got), len(want))
		}
		for j := range got {
			if len(got[j].RequestBody) != len(want[j].RequestBody) || len(got[j].ResponseBody) != len(want[j].ResponseBody) {
				t.Fatalf("step %d: entry %d differs", i, j)
			}
		}
	}
}
