package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank/replay"
	"sandbank/bank/reqlog"
)

// BenchmarkReplay_1000 replays a HAR of 1,000 exchanges (the guide's
// walkthrough, then the payments' status read again and again) against a
// running bank, and reports, per replay of the whole HAR, its wall time
// (replay-s), the time the bank took to answer its requests (bank-s, the
// request log's durations) and the replay's own share (overhead-s: the
// wall time less the bank's). Each replay goes to a fresh bank. The
// target is overhead-s under 10.
func BenchmarkReplay_1000(b *testing.B) {
	recorded := apptest.Start(b, apptest.Options{})
	walkthrough(b, recorded)
	// The walkthrough ends with the three payments' status after the
	// batch run: read again, they answer the same.
	var doc map[string]any
	if err := json.Unmarshal(har(b, recorded), &doc); err != nil {
		b.Fatal(err)
	}
	log := doc["log"].(map[string]any)
	entries := log["entries"].([]any)
	tail := entries[len(entries)-3:]
	for i := 0; len(entries) < 1000; i++ {
		entries = append(entries, tail[i%len(tail)])
	}
	log["entries"] = entries
	data, err := json.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	rec, err := replay.ReadHAR(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	if len(rec.Entries) != 1000 {
		b.Fatalf("%d entries", len(rec.Entries))
	}
	var wall, bankTime time.Duration
	b.ResetTimer()
	for range b.N {
		// Each replay goes to a fresh bank, as sandbankd replay --fresh
		// does; starting it is not timed.
		b.StopTimer()
		bank := apptest.Start(b, apptest.Options{})
		var took atomic.Int64
		unsub := bank.RequestLog().Subscribe(func(c reqlog.Change) {
			if !c.Cleared {
				took.Add(int64(c.Entry.Duration))
			}
		})
		b.StartTimer()
		start := time.Now()
		rep, err := replay.Run(context.Background(), rec, target(bank), replay.Options{})
		wall += time.Since(start)
		b.StopTimer()
		unsub()
		bankTime += time.Duration(took.Load())
		if err != nil {
			b.Fatal(err)
		}
		if !rep.OK() || rep.Matched != 1000 {
			b.Fatalf("the replay does not match:\n%s", table(rep))
		}
	}
	n := float64(b.N)
	bankS := bankTime.Seconds() / n
	b.ReportMetric(wall.Seconds()/n, "replay-s")
	b.ReportMetric(bankS, "bank-s")
	b.ReportMetric(wall.Seconds()/n-bankS, "overhead-s")
}
