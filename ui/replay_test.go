package ui

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"sandbank/bank/replay"
	"sandbank/bank/reqlog"
)

// chromeHAR writes a copy of bank/replay's Chrome fixture into dir, its
// accounts answer edited to hold another first balance when edit is set,
// and its card accounts read repeated n more times.
func chromeHAR(t *testing.T, dir string, edit bool, more int) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "bank", "replay", "testdata", "chrome-devtools.har"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	log := doc["log"].(map[string]any)
	entries := log["entries"].([]any)
	if edit {
		content := entries[3].(map[string]any)["response"].(map[string]any)["content"].(map[string]any)
		text, err := base64.StdEncoding.DecodeString(content["text"].(string))
		if err != nil {
			t.Fatal(err)
		}
		content["text"] = base64.StdEncoding.EncodeToString([]byte(strings.Replace(string(text), `"24512.37"`, `"1.00"`, 1)))
	}
	for range more {
		entries = append(entries, entries[4])
	}
	log["entries"] = entries
	out, _ := json.Marshal(doc)
	path := filepath.Join(dir, "chrome.har")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// segmentWith returns the rich text's segment whose text holds s.
func segmentWith(t *testing.T, rt *widget.RichText, s string) *widget.TextSegment {
	t.Helper()
	for _, seg := range rt.Segments {
		if ts, ok := seg.(*widget.TextSegment); ok && strings.Contains(ts.Text, s) {
			return ts
		}
	}
	t.Fatalf("no line holds %q:\n%s", s, rt.String())
	return nil
}

// TestTraffic_ReplayHAR: Replay HAR… on the Traffic screen sends a HAR
// to the running bank and shows each entry; the entry that differs is
// selected, its recorded and new answers side by side with the differing
// line in the error colour, and the signature check of its new request
// one click away.
func TestTraffic_ReplayHAR(t *testing.T) {
	h := newHarness(t, true)
	s := h.u.traffic
	har := chromeHAR(t, t.TempDir(), true, 0)
	test.Tap(widgetIn(t, h.u.tabs, "Replay HAR…"))
	h.typeInto("HAR file", har)
	test.Tap(h.modal().submit)
	h.u.work.Wait()
	v := s.replay
	if v == nil {
		t.Fatal("no report opened")
	}
	if len(v.rep.Exchanges) != 5 || v.rep.Differed != 1 || v.rep.Matched != 3 || !strings.HasPrefix(v.summary.Text, "5 entries replayed against http://127.0.0.1:") {
		t.Fatalf("the report: %s", v.summary.Text)
	}
	if got := []string{v.cell(v.rep.Exchanges[3], 1), v.cell(v.rep.Exchanges[3], 4), v.cell(v.rep.Exchanges[0], 4)}; got[0] != "GET /api-sandbox/v1/accounts?withBalance=true" || got[1] != "differs" || got[2] != "not sent" {
		t.Fatalf("rows %q", got)
	}
	if v.selected != 3 || !strings.Contains(v.found.Text, `Differs at $.accounts[0].balances[0].balanceAmount.amount: recorded "1.00", new "24512.37"`) {
		t.Fatalf("selected %d: %s", v.selected, v.found.Text)
	}
	for rt, amount := range map[*widget.RichText]string{v.recorded: `"amount": "1.00"`, v.fresh: `"amount": "24512.37"`} {
		if seg := segmentWith(t, rt, amount); seg.Style.ColorName != theme.ColorNameError || !strings.HasPrefix(seg.Text, "! ") {
			t.Errorf("the differing line %q is not marked: %+v", seg.Text, seg.Style)
		}
		if seg := segmentWith(t, rt, `"iban": "NO3815030123457"`); seg.Style.ColorName == theme.ColorNameError || !strings.HasPrefix(seg.Text, "  ") {
			t.Errorf("a matching line is marked: %q", seg.Text)
		}
	}
	// The signature check of the new request, from the request log.
	open := len(h.u.dialogs)
	test.Tap(v.sigBtn)
	if len(h.u.dialogs) != open+1 {
		t.Fatal("the signature check did not open")
	}
	e, ok := loggedRequest(h.core.RequestLog(), v.rep.Exchanges[3].RequestID)
	if !ok || !strings.HasPrefix(explain(e.Detail()).verdict, "GET /v1/accounts?withBalance=true answered 200") || !strings.Contains(explain(e.Detail()).verdict, "The signature verified") {
		t.Fatalf("the new request's log entry: %v %+v", ok, explain(e.Detail()))
	}
	// An entry that was not sent says why.
	v.table.Select(widget.TableCellID{Row: 0, Col: 0})
	if !strings.Contains(v.found.Text, "Not sent: another address than the bank's (https://telemetry.fjordpay.example)") || v.sigBtn.Disabled() == false {
		t.Fatalf("entry 1: %s", v.found.Text)
	}
}

// A file that is not a HAR is refused at the form's field, and the
// dialog stays open.
func TestTraffic_ReplayRefusesWhatIsNotAHAR(t *testing.T) {
	h := newHarness(t, true)
	notHAR := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notHAR, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	test.Tap(widgetIn(t, h.u.tabs, "Replay HAR…"))
	h.typeInto("HAR file", notHAR)
	test.Tap(h.modal().submit)
	h.u.work.Wait()
	m := h.modal()
	if f := m.form.fieldFor("file"); f == nil || !strings.Contains(f.err.Text, "not a HAR file") || h.u.traffic.replay != nil {
		t.Fatalf("the field says %q", f.err.Text)
	}
}

// Cancelling a replay stops it between two entries: the report shows what
// was replayed and says that the bank keeps what those entries did.
// Every answer takes 300 ms (a fault), so the replay of 35 entries lasts
// seconds after the cancel comes.
func TestTraffic_ReplayCancel(t *testing.T) {
	h := newHarness(t, true)
	cert, key, err := h.core.OperatorCert()
	if err != nil {
		t.Fatal(err)
	}
	if st := h.sendSigned(cert, key, "PUT", "/v1/sandbox/faults", []byte(`{"latencyMs": 300, "errorRate": 0, "outage": false}`), false); st != 200 {
		t.Fatalf("faults: %d", st)
	}
	har := chromeHAR(t, t.TempDir(), false, 30)
	rec, err := os.Open(har)
	if err != nil {
		t.Fatal(err)
	}
	r, err := replay.ReadHAR(rec)
	_ = rec.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The cancel comes once the bank has logged the third card accounts
	// read of the replay.
	third := make(chan struct{})
	var reads atomic.Int32
	unsub := h.core.RequestLog().Subscribe(func(c reqlog.Change) {
		if strings.HasSuffix(c.Entry.Path, "/card-accounts") && reads.Add(1) == 3 {
			close(third)
		}
	})
	defer unsub()
	h.u.traffic.runReplay(har, r, replay.Options{})
	ended := make(chan struct{})
	go func() {
		h.u.work.Wait()
		close(ended)
	}()
	select {
	case <-third:
	case <-ended:
		t.Fatalf("the replay ended before the third card accounts read: %+v", h.u.traffic.replay)
	}
	h.u.closeTop() // the progress dialog's Cancel, as Escape
	h.u.work.Wait()
	v := h.u.traffic.replay
	if v == nil || !v.rep.Cancelled || len(v.rep.Exchanges) < 7 || len(v.rep.Exchanges) >= len(r.Entries) ||
		!strings.Contains(v.summary.Text, "Cancelled before the end: the bank keeps what the entries sent did; nothing was undone.") {
		t.Fatalf("after the cancel: %+v", v)
	}
}
