package bank_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

func TestID_RoundTripAndKinds(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range []struct {
		kind        bank.Kind
		parent, seq uint64
	}{{bank.KindCustomer, 0, 1}, {bank.KindAccount, 0, bank.FirstUserSeq}, {bank.KindTransaction, 7, 1 << 40}, {bank.KindEngagement, 3, 2}} {
		id := bank.FormatID(c.kind, c.parent, c.seq)
		if !strings.HasPrefix(id, "enc!!") || len(id) != 27 || seen[id] {
			t.Fatalf("id %q", id)
		}
		seen[id] = true
		parent, seq, ok := bank.ParseID(c.kind, id)
		if !ok || parent != c.parent || seq != c.seq {
			t.Fatalf("ParseID(%q) = %d %d %v", id, parent, seq, ok)
		}
		other := bank.KindCustomer
		if c.kind == other {
			other = bank.KindAccount
		}
		if _, _, ok := bank.ParseID(other, id); ok {
			t.Fatalf("a %d id parses as kind %d", c.kind, other)
		}
		// Any change to the text makes it another id or no id.
		for i := 5; i < len(id); i++ {
			b := []byte(id)
			b[i] = 'A' + (b[i]-'A'+1)%26
			if string(b) == id {
				continue
			}
			if p, s, ok := bank.ParseID(c.kind, string(b)); ok && p == c.parent && s == c.seq {
				t.Fatalf("tampered id %q still names the record", b)
			}
		}
	}
	for _, bad := range []string{"", "enc!!", "enc!!short", "xyz!!BMqoT2eLQOgt-DAQsuGXRQ", "enc!!BMqoT2eLQOgt-DAQsuGXRQ=", "enc!!BMqoT2eLQOgt-DAQsuGX+Q", strings.Repeat("x", 5000)} {
		if _, _, ok := bank.ParseID(bank.KindAccount, bad); ok {
			t.Errorf("ParseID(%q) ok", bad)
		}
	}
	if _, ok := bank.SeqOf(bank.KindTransaction, bank.FormatID(bank.KindTransaction, 5, 9)); ok {
		t.Error("SeqOf takes an id with a parent")
	}
}

func TestDate_ParseAndArithmetic(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"2026-11-22", "2026-11-22", true},
		{"2024-02-29", "2024-02-29", true},
		{"2026-02-29", "", false},
		{"2026-13-01", "", false},
		{"2026-1-01", "", false},
		{"26-11-22", "", false},
		{"2026/11/22", "", false},
		{"1899-12-31", "", false},
		{"", "", false},
		{"2026-11-22T10:00:00Z", "", false},
	} {
		d, err := bank.ParseDate(c.in)
		if (err == nil) != c.ok || (c.ok && d.String() != c.want) {
			t.Errorf("ParseDate(%q) = %v, %v", c.in, d, err)
		}
	}
	d := bank.Date{Year: 2024, Month: time.January, Day: 31}
	if got := d.AddMonths(1).String(); got != "2024-02-29" {
		t.Errorf("AddMonths clamps to the month's end: %s", got)
	}
	if got := d.AddDays(-31).String(); got != "2023-12-31" {
		t.Errorf("AddDays across a year: %s", got)
	}
	if bank.DateFromKey(d.Key()) != d || !d.Before(d.AddDays(1)) || d.Compare(d) != 0 {
		t.Error("Key, Before or Compare")
	}
	// Just after midnight in Oslo is already the next day there.
	utc := time.Date(2026, 11, 21, 23, 30, 0, 0, time.UTC)
	if got := bank.DateOf(utc).String(); got != "2026-11-22" {
		t.Errorf("DateOf uses Europe/Oslo: %s", got)
	}
	var j bank.Date
	if err := json.Unmarshal([]byte(`"2026-02-30"`), &j); err == nil {
		t.Error("a bad stored date decodes")
	}
}

func TestAmount_ParseAndFormat(t *testing.T) {
	for _, c := range []struct {
		in, currency string
		ok           bool
	}{
		{"100.30", "NOK", true}, {"100.3", "NOK", true}, {"100", "NOK", true}, {"100.301", "NOK", false},
		{"1500", "JPY", true}, {"1500.5", "JPY", false}, {"12.345", "BHD", true},
		{"1e3", "NOK", false}, {"+1", "NOK", false}, {"1.", "NOK", false}, {".5", "NOK", false},
		{"", "NOK", false}, {"1 000", "NOK", false}, {"1,5", "NOK", false}, {strings.Repeat("9", 19), "NOK", false},
	} {
		_, err := bank.ParseAmount(c.in, c.currency)
		if (err == nil) != c.ok {
			t.Errorf("ParseAmount(%q, %s): %v", c.in, c.currency, err)
		}
	}
	for _, c := range []struct{ amount, currency, want string }{
		{"100.3", "NOK", "100.30"}, {"-5", "NOK", "-5.00"}, {"1500", "JPY", "1500"}, {"12.3", "BHD", "12.300"},
	} {
		if got := bank.FormatAmount(decimal.RequireFromString(c.amount), c.currency); got != c.want {
			t.Errorf("FormatAmount(%s %s) = %s, want %s", c.amount, c.currency, got, c.want)
		}
	}
}

// TestFormatAmount_AsStringFixed checks the formatting of amounts against
// decimal's StringFixed, which it avoids for speed: amounts of every
// scale and size, negative, zero, with more decimals than the currency
// has (rounded) and too large for 64 bits, in currencies of 0, 2 and 3
// minor digits and in one that is unknown (2).
func TestFormatAmount_AsStringFixed(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	currencies := map[string]int32{"NOK": 2, "JPY": 0, "BHD": 3, "XXZ": 2}
	check := func(d decimal.Decimal) {
		t.Helper()
		for c, minor := range currencies {
			if got, want := bank.FormatAmount(d, c), d.StringFixed(minor); got != want {
				t.Fatalf("FormatAmount(%s, %s) = %s, want %s", d, c, got, want)
			}
		}
	}
	for _, s := range []string{"0", "-0.00", "0.001", "-0.005", "0.005", "1", "-1", "100.3", "999999999999999.99", "-999999999999999.99",
		"9999999999999999.99", "99999999999999999999.99", "123456789012345678901234567890.12345", "1e3", "-1.5e-1", "1e17", "1e18"} {
		check(decimal.RequireFromString(s))
	}
	for range 20_000 {
		coefficient := rng.Int64N(1 << uint(rng.IntN(63)))
		if rng.IntN(2) == 0 {
			coefficient = -coefficient
		}
		check(decimal.New(coefficient, int32(rng.IntN(25)-20)))
	}
}

// TestDate_StringAsFmt checks the formatting of dates against fmt, which
// it avoids for speed.
func TestDate_StringAsFmt(t *testing.T) {
	for _, d := range []bank.Date{
		{Year: 2026, Month: 11, Day: 22}, {Year: 1, Month: 1, Day: 1}, {Year: 9999, Month: 12, Day: 31}, {Year: 999, Month: 2, Day: 3},
		{Year: 10000, Month: 1, Day: 1}, {Year: -5, Month: 1, Day: 1}, {Year: 2026, Month: 13, Day: 1}, {Year: 2026, Month: 0, Day: 7},
		{Year: 2026, Month: 1, Day: 100}, {Year: 2026, Month: 1, Day: -1}, {Year: 0, Month: 0, Day: 1},
	} {
		want := fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
		if got := d.String(); got != want {
			t.Errorf("%#v.String() = %s, want %s", d, got, want)
		}
		if got, err := d.MarshalJSON(); err != nil || string(got) != `"`+want+`"` {
			t.Errorf("%#v.MarshalJSON() = %s, %v", d, got, err)
		}
	}
}

func TestNumber_KeepsValueOrWrongType(t *testing.T) {
	var v struct {
		A *bank.Number `json:"a"`
		B *bank.Number `json:"b"`
		C *bank.Number `json:"c"`
	}
	if err := bank.DecodeJSON([]byte(`{"a": 0.1, "b": "7", "c": 123456789012345678901234567890.123}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.A.Value.String() != "0.1" || v.C.Value.String() != "123456789012345678901234567890.123" {
		t.Fatalf("exact values: %s %s", v.A.Value, v.C.Value)
	}
	out, _ := json.Marshal(v.A)
	if string(out) != "0.1" {
		t.Fatalf("marshal %s", out)
	}
}

func TestDecodeJSON_Messages(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	type stamped struct {
		At  time.Time       `json:"at"`
		Day bank.Date       `json:"day"`
		Sum decimal.Decimal `json:"sum"`
	}
	var v struct {
		Name   string    `json:"name"`
		Inner  inner     `json:"inner"`
		List   []inner   `json:"list"`
		Stamps []stamped `json:"stamps"`
	}
	for _, c := range []struct {
		body, path, mention string
	}{
		{`{"name": 1}`, "name", "string"},
		{`{"inner": {"n": "x"}}`, "inner.n", "number"},
		{`{"list": {}}`, "list", "array"},
		{`{"list": [{"n": 1}, {"n": 2}, {"n": "3"}]}`, "list[2].n", "number"},
		{`{"list": [{"n": 1}, {"n": {}}]}`, "list[1].n", "number"},
		{`{"stamps": [{"at": "2026-03-10T10:30:00Z"}, {"at": "yesterday"}]}`, "stamps[1].at", "RFC 3339"},
		{`{"stamps": [{"day": "2026-03-10"}, {"day": "10.03.2026"}]}`, "stamps[1].day", "YYYY-MM-DD"},
		{`{"stamps": [{"day": "2026-03-10", "sum": true}]}`, "stamps[0].sum", "decimal"},
		{`{"nmae": "x"}`, "nmae", "not a field"},
		{"{\n\"name\": \"x\",\n}", "", "line 3"},
		{`{"name": "x"`, "", "ends too early"},
		{``, "", "empty"},
		{`{} {}`, "", "more than one"},
		{"{\"name\": \"\xff\"}", "", "UTF-8"},
	} {
		err := bank.DecodeJSON([]byte(c.body), &v)
		e, ok := apierr.AsError(err)
		if !ok || e.Code != apierr.CodeBadRequest || !strings.Contains(e.Message, c.mention) {
			t.Errorf("%q: %v", c.body, err)
			continue
		}
		if c.path != "" && (len(e.Messages) != 1 || e.Messages[0].Path != c.path) {
			t.Errorf("%q: messages %+v, want path %s", c.body, e.Messages, c.path)
		}
		if strings.Contains(e.Message, "json:") || strings.Contains(e.Message, "Go value") {
			t.Errorf("%q: the message leaks Go's wording: %s", c.body, e.Message)
		}
	}
}

func TestViolations_ReportsAllAndClips(t *testing.T) {
	var v apierr.Violations
	if v.Err() != nil {
		t.Fatal("no violations is no error")
	}
	v.Format("a", "first")
	v.Add(apierr.CodeResourceUnknown, "b", strings.Repeat("x", 600))
	v.Format("c", "third")
	v.Format("d", "fourth")
	e, _ := apierr.AsError(v.Err())
	if !e.Invalid || e.Code != apierr.CodeFormatError || len(e.Messages) != 4 {
		t.Fatalf("%+v", e)
	}
	if len(e.Messages[1].Text) > apierr.MaxMessageText || len(e.Message) > apierr.MaxMessageText {
		t.Fatal("texts are not clipped to 512 bytes")
	}
	var short apierr.Violations
	for _, p := range []string{"a", "b", "c", "d", "e"} {
		short.Format(p, "is wrong")
	}
	if e, _ := apierr.AsError(short.Err()); !strings.HasSuffix(e.Message, "and 2 more") || len(e.Messages) != 5 {
		t.Fatalf("message %q", e.Message)
	}
	if got := apierr.JoinPath("accounts[2]", "[0].iban"); got != "accounts[2][0].iban" {
		t.Fatalf("JoinPath %s", got)
	}
}

// The known state's history is the same for the same day in any data file,
// ids included.
func TestInitialize_Deterministic(t *testing.T) {
	a, _ := newBank(t)
	b, _ := newBank(t)
	sa := exportScenario(t, a.Sandbox)
	sb := exportScenario(t, b.Sandbox)
	ja, _ := json.Marshal(sa)
	jb, _ := json.Marshal(sb)
	if string(ja) != string(jb) {
		t.Fatal("two initializes on the same day differ")
	}
	// Every account's history ends yesterday and reaches back months.
	for _, acct := range sa.Accounts {
		if len(acct.Transactions) == 0 {
			t.Fatalf("%s has no history", acct.AccountName)
		}
		newest, oldest := acct.Transactions[0].BookingDate, acct.Transactions[len(acct.Transactions)-1].BookingDate
		today := bank.DateOf(testNow)
		if newest > today.AddDays(-1).String() || oldest > today.AddMonths(-3).String() {
			t.Errorf("%s history runs %s to %s", acct.AccountName, oldest, newest)
		}
	}
}

func TestSettings_DefaultsAndCheck(t *testing.T) {
	s, _ := newBank(t)
	st, err := s.Ops.Settings()
	if err != nil || !reflect.DeepEqual(st, bank.DefaultSettings()) {
		t.Fatalf("%+v %v", st, err)
	}
	if _, err := s.Ops.UpdateSettings(func(st *bank.Settings) { st.TrustMode = "maybe" }); err == nil {
		t.Fatal("a bad trust mode is stored")
	}
	if st, _ := s.Ops.Settings(); st.TrustMode != bank.TrustAny {
		t.Fatal("a refused change was stored")
	}
	st, err = s.Ops.UpdateSettings(func(st *bank.Settings) { st.TrustMode, st.RequireSignature = bank.TrustStore, false })
	if err != nil || st.TrustMode != bank.TrustStore || st.RequireSignature {
		t.Fatalf("%+v %v", st, err)
	}
}

func TestSettings_FXRemovalSticks(t *testing.T) {
	s, _ := newBank(t)
	if _, err := s.Ops.UpdateSettings(func(st *bank.Settings) { delete(st.FX, "EUR") }); err != nil {
		t.Fatal(err)
	}
	st, err := s.Ops.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.FX["EUR"]; ok || len(st.FX) != len(bank.DefaultFX())-1 {
		t.Fatalf("EUR came back from the defaults: %v", st.FX)
	}
}
