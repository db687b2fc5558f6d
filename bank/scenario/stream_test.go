package scenario_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"sandbank/app/apptest"
	"sandbank/assets"
	"sandbank/bank"
	"sandbank/bank/apierr"
	"sandbank/bank/scenario"
	"sandbank/storage"
)

// exportJSON exports the sandbox as JSON.
func exportJSON(t *testing.T, s *bank.Bank) []byte {
	t.Helper()
	sc, err := scenario.ExportScenario(s.Sandbox, "note")
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// importStream imports data through the streaming path.
func importStream(t *testing.T, s *bank.Bank, data []byte) (scenario.Counts, error) {
	t.Helper()
	return scenario.Import(s.Sandbox, bytes.NewReader(data))
}

func TestImport_RoundTrip(t *testing.T) {
	example, err := fs.ReadFile(assets.Scenarios, "scenarios/payments-in-every-status.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"known state": nil, "version 2 example": example} {
		t.Run(name, func(t *testing.T) {
			a, _ := newBank(t)
			if data == nil {
				// An export of a new bank has no last batch run; its
				// import starts the schedule at the clock.
				data = exportJSON(t, a)
			}
			if _, err := importStream(t, a, data); err != nil {
				t.Fatalf("import: %v", err)
			}
			first := exportJSON(t, a)
			b, _ := newBank(t)
			if _, err := importStream(t, b, first); err != nil {
				t.Fatalf("import the export: %v", err)
			}
			if second := exportJSON(t, b); !bytes.Equal(first, second) {
				at := 0
				for at < min(len(first), len(second)) && first[at] == second[at] {
					at++
				}
				t.Fatalf("export, import, export differ at byte %d:\n%s\n%s", at, first[max(at-300, 0):min(at+200, len(first))], second[max(at-300, 0):min(at+200, len(second))])
			}
		})
	}
}

// bigScenario returns the known state with n more transactions on its
// first account, the one at bad (if bad >= 0) with an amount of zero.
func bigScenario(t *testing.T, s *bank.Bank, n, bad int) []byte {
	t.Helper()
	sc, err := scenario.ExportScenario(s.Sandbox, "")
	if err != nil {
		t.Fatal(err)
	}
	acct := &sc.Accounts[0]
	template := acct.Transactions[len(acct.Transactions)-1]
	template.ID = ""
	zero := bank.NumberOf(decimal.Zero)
	for i := range n {
		tr := template
		if i == bad {
			tr.Amount = zero
		}
		acct.Transactions = append(acct.Transactions, tr)
	}
	data, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// unchanged checks that a refused import left the data and the folder as
// they were, and that the bank still takes writes.
func unchanged(t *testing.T, s *bank.Bank, db *storage.DB, before []byte) {
	t.Helper()
	if after := exportJSON(t, s); !bytes.Equal(before, after) {
		t.Fatal("a refused import changed the data")
	}
	if _, err := os.Stat(db.Path() + ".importing"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the new data file of a refused import is left: %v", err)
	}
	if _, err := s.Sandbox.CreateCustomer(bank.NewCustomer{CustomerNumber: "99887766554", Name: "After Refusal", Type: bank.Private}); err != nil {
		t.Fatalf("a write after a refused import: %v", err)
	}
}

func TestImport_RefusalAfterChunks(t *testing.T) {
	scenario.ChunkRecords(t, 500) // five chunks of 2,500 transactions
	s, db := newBank(t)
	before := exportJSON(t, s)
	data := bigScenario(t, s, 2_500, 2_300)
	_, err := importStream(t, s, data)
	e, ok := apierr.AsError(err)
	if !ok || !strings.Contains(e.Message, ".amount") || !strings.HasPrefix(e.Messages[0].Path, "accounts[0].transactions[") {
		t.Fatalf("want the zero amount refused with its path, got %v", err)
	}
	unchanged(t, s, db, before)
}

// failingReader fails once its first n bytes are read.
type failingReader struct {
	*bytes.Reader
	n int64
}

func (f *failingReader) Read(p []byte) (int, error) {
	at, _ := f.Seek(0, io.SeekCurrent)
	if at >= f.n {
		return 0, errors.New("the disk is gone")
	}
	return f.Reader.Read(p[:min(int64(len(p)), f.n-at)])
}

func TestImport_ReadErrorHalfway(t *testing.T) {
	scenario.ChunkRecords(t, 500)
	s, db := newBank(t)
	before := exportJSON(t, s)
	data := bigScenario(t, s, 2_500, -1)
	_, err := scenario.Import(s.Sandbox, &failingReader{bytes.NewReader(data), int64(len(data)) * 9 / 10})
	if err == nil || !strings.Contains(err.Error(), "the disk is gone") {
		t.Fatalf("want the read error, got %v", err)
	}
	unchanged(t, s, db, before)
}

func TestImport_Large(t *testing.T) {
	scenario.ChunkRecords(t, 500)
	s, _ := newBank(t)
	data := bigScenario(t, s, 2_500, -1)
	n, err := importStream(t, s, data)
	if err != nil {
		t.Fatal(err)
	}
	if n.Transactions < 2_500 {
		t.Fatalf("%d transactions imported", n.Transactions)
	}
	again := bigScenario(t, s, 0, -1)
	if len(again) < len(data)-1000 {
		t.Fatalf("the export after the import is %d bytes, the import %d", len(again), len(data))
	}
	// Many pages of transactions written as a stream are the same bytes.
	var written bytes.Buffer
	if err := scenario.Write(s.Sandbox, &written, "", ""); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSuffix(written.Bytes(), []byte("\n")), again) {
		t.Fatal("Write and ExportScenario differ")
	}
}

func TestImport_Oddities(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		paths     []string
	}{
		{"unknown fields", `{"format":"sandbank-scenario/1","nope":1,"customers":[{"customerNumber":"12345678901","name":"A B","type":"private","x":1}],"accounts":[],"cardAccounts":[],"agreements":[]}`,
			[]string{"nope", "customers[0].x"}},
		{"records before the format, read whole", `{"customers":[{"customerNumber":"12345678901","name":"A B","type":"private"}],"format":"sandbank-scenario/1","accounts":[],"cardAccounts":[],"agreements":[],"customers ":1}`,
			[]string{"customers "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newBank(t)
			n, err := importStream(t, s, []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range n.Warnings {
				got = append(got, m.Path)
			}
			if strings.Join(got, ",") != strings.Join(tc.paths, ",") {
				t.Fatalf("warnings at %v, want %v", got, tc.paths)
			}
			if n.Customers != 1 {
				t.Fatalf("%d customers", n.Customers)
			}
		})
	}
}

func TestImport_SameErrorsAsWhole(t *testing.T) {
	for _, doc := range []string{
		``,
		`{"format":"sandbank-scenario/1",`,
		"{\"format\":\"sandbank-scenario/1\",\n\"customers\":[}",
		`{"format":"sandbank-scenario/9"}`,
		`{"format":"sandbank-scenario/1","accounts":[{"iban":7}]}`,
		`{"format":"sandbank-scenario/1"} {}`,
		"{\"format\":\"sandbank-scenario/1\",\"note\":\"\xff\"}",
		`[]`,
	} {
		s, db := newBank(t)
		before := exportJSON(t, s)
		_, streamed := importStream(t, s, []byte(doc))
		var sc scenario.Scenario
		_, whole := bank.DecodeTolerant([]byte(doc), &sc)
		if whole == nil {
			_, whole = scenario.ImportScenario(s.Sandbox, sc)
		}
		if streamed == nil || whole == nil || streamed.Error() != whole.Error() {
			t.Errorf("%q: streamed %v, whole %v", doc, streamed, whole)
		}
		unchanged(t, s, db, before)
	}
}

func TestWrite_SameBytesAsTheEncoder(t *testing.T) {
	for _, file := range []string{"", "payments-in-every-status.json", "empty-bank.json", "corporate-two-approvers.json"} {
		s, _ := newBank(t)
		if file != "" {
			data, err := fs.ReadFile(assets.Scenarios, "scenarios/"+file)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := importStream(t, s, data); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
		}
		const note = `a <b> & "c"`
		sc, err := scenario.ExportScenario(s.Sandbox, note)
		if err != nil {
			t.Fatal(err)
		}
		for _, indent := range []string{"", "  "} {
			var want, got bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", indent)
			if err := enc.Encode(sc); err != nil {
				t.Fatal(err)
			}
			if err := scenario.Write(s.Sandbox, &got, note, indent); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want.Bytes(), got.Bytes()) {
				a, b := want.Bytes(), got.Bytes()
				at := 0
				for at < min(len(a), len(b)) && a[at] == b[at] {
					at++
				}
				t.Fatalf("%q, indent %q: differ at byte %d:\n%s\n---\n%s", file, indent, at, a[max(at-200, 0):min(at+100, len(a))], b[max(at-200, 0):min(at+100, len(b))])
			}
		}
	}
}

// TestImport_KilledHalfway kills a process halfway through an
// import, after chunks went into the new data file: the next open removes
// that file, and the data are the old data.
func TestImport_KilledHalfway(t *testing.T) {
	if path := os.Getenv("SANDBANK_IMPORT_CHILD"); path != "" {
		db, err := storage.Open(path, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		s := bank.New(db, fixedClock{testNow})
		for { // until killed
			f, err := os.Open(path + ".json")
			if err != nil {
				t.Fatal(err)
			}
			_, _ = scenario.Import(s.Sandbox, f)
			_ = f.Close()
		}
	}
	path := filepath.Join(t.TempDir(), "sandbank.db")
	db, err := storage.Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s := bank.New(db, fixedClock{testNow})
	if _, err := scenario.Initialize(s.Sandbox); err != nil {
		t.Fatal(err)
	}
	before := exportJSON(t, s)
	// The last transaction breaks a rule, so that however slow the parent
	// is to kill it, no run of the child's import replaces the data.
	if err := os.WriteFile(path+".json", bigScenario(t, s, 100_000, 100_000-1), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestImport_KilledHalfway$")
	cmd.Env = append(os.Environ(), "SANDBANK_IMPORT_CHILD="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if info, err := os.Stat(path + ".importing"); err == nil && info.Size() > 4<<20 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("the import wrote no chunks into its new data file")
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	db, err = storage.Open(path, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	if _, err := os.Stat(path + ".importing"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the new data file of the killed import is left: %v", err)
	}
	if after := exportJSON(t, bank.New(db, fixedClock{testNow})); !bytes.Equal(before, after) {
		t.Fatal("the killed import changed the data")
	}
}

// TestImport_LargeFileIsNeverReadWhole: a file of the
// scenarios folder may be up to 2 GiB. One over the 256 MiB a document
// read whole may have, with a syntax error or its keys in an order the
// single pass does not take, is refused with what to change, rather than
// read into memory; the data stay as they were. (The files are sparse.)
func TestImport_LargeFileIsNeverReadWhole(t *testing.T) {
	s, db := newBank(t)
	before := exportJSON(t, s)
	for _, c := range []struct{ name, head, want string }{
		{"a syntax error", `{"format": "sandbank-scenario/2", "customers": [x`, "not valid at byte"},
		{"records before the format", `{"customers": [], "format": "sandbank-scenario/2"`, "put format first"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "big.json")
			if err := os.WriteFile(path, []byte(c.head), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, 300<<20); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = f.Close() }()
			_, err = scenario.Import(s.Sandbox, f)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want a refusal saying %q, got %v", c.want, err)
			}
			t.Log(err)
		})
	}
	unchanged(t, s, db, before)
}

// TestTextLimits_AreTheChecks holds the limits the streamed import keeps
// while it reads (scenario.TextLimits) to the checks of the fields: a text
// one character over a limit is refused by the check of its record, read
// whole, with the same finding at the same path as the stream gives, and
// a text at the limit is not.
func TestTextLimits_AreTheChecks(t *testing.T) {
	example, err := fs.ReadFile(assets.Scenarios, "scenarios/payments-in-every-status.json")
	if err != nil {
		t.Fatal(err)
	}
	var v2 map[string]any
	if err := json.Unmarshal(example, &v2); err != nil {
		t.Fatal(err)
	}
	v2["tppContacts"] = []any{map[string]any{"tppId": "NO-FSA-933012867", "email": "psd2-ops@example.com"}}
	s, _ := newBank(t)
	var known map[string]any
	if err := json.Unmarshal(exportJSON(t, s), &known); err != nil {
		t.Fatal(err)
	}
	// Two transactions of each account and card keep every record type
	// while each of the many imports below stays small.
	for _, list := range []string{"accounts", "cardAccounts"} {
		for _, a := range known[list].([]any) {
			a := a.(map[string]any)
			if txs, _ := a["transactions"].([]any); len(txs) > 2 {
				a["transactions"] = txs[:2]
			}
		}
	}
	// Where a record of each type is, in the known state or the version-2
	// example.
	where := map[reflect.Type]struct {
		doc  map[string]any
		path string
	}{
		reflect.TypeFor[bank.NewCustomer]():        {known, "customers[0]"},
		reflect.TypeFor[bank.NewAccount]():         {known, "accounts[0]"},
		reflect.TypeFor[bank.NewTransaction]():     {known, "accounts[0].transactions[0]"},
		reflect.TypeFor[bank.NewCardAccount]():     {known, "cardAccounts[0]"},
		reflect.TypeFor[bank.CardBalanceInput]():   {known, "cardAccounts[0].balances[0]"},
		reflect.TypeFor[bank.NewCardTransaction](): {known, "cardAccounts[0].transactions[0]"},
		reflect.TypeFor[bank.Address]():            {known, "cardAccounts[0].transactions[0].cardAcceptorAddress"},
		reflect.TypeFor[scenario.Agreement]():      {known, "agreements[0]"},
		reflect.TypeFor[bank.Payment]():            {v2, "payments[0]"},
		reflect.TypeFor[bank.StatusChange]():       {v2, "payments[0].history[0]"},
		reflect.TypeFor[bank.Basket]():             {v2, "baskets[0]"},
		reflect.TypeFor[bank.Consent]():            {v2, "consents[0]"},
		reflect.TypeFor[bank.Authorisation]():      {v2, "authorisations[0]"},
		reflect.TypeFor[bank.Grant]():              {v2, "grants[0]"},
		reflect.TypeFor[bank.Session]():            {v2, "sessions[0]"},
		reflect.TypeFor[bank.PSU]():                {v2, "psus[0]"},
		reflect.TypeFor[scenario.Use]():            {v2, "usage[0]"},
		reflect.TypeFor[bank.TPPContact]():         {v2, "tppContacts[0]"},
	}
	for typ, fields := range scenario.TextLimits {
		at, ok := where[typ]
		if !ok {
			t.Errorf("%v has limits, but the test has no record of it", typ)
			continue
		}
		for field, limit := range fields {
			path := apierr.JoinPath(at.path, field)
			finding := fmt.Sprintf("must be at most %d characters, not %d", limit, limit+1)
			t.Run(path, func(t *testing.T) {
				t.Parallel()
				checkTextLimit(t, at.doc, at.path, field, path, limit, finding)
			})
		}
	}
}

// checkTextLimit imports doc with the field at path, limit characters long
// and one more, wholly and streamed, and checks that only the longer text
// gets finding.
func checkTextLimit(t *testing.T, doc map[string]any, at, field, path string, limit int, finding string) {
	for _, n := range []int{limit, limit + 1} {
		data := withText(t, doc, at, field, strings.Repeat("a", n))
		var sc scenario.Scenario
		if _, err := bank.DecodeTolerant(data, &sc); err != nil {
			t.Fatal(err)
		}
		b, _ := newBank(t)
		_, whole := scenario.ImportScenario(b.Sandbox, sc)
		checked := findingAt(whole, path)
		_, streamed := scenario.Import(b.Sandbox, bytes.NewReader(data))
		switch {
		case n == limit && strings.HasPrefix(checked, "must be at most"):
			t.Errorf("%s of %d characters: the check says %q", path, n, checked)
		case n == limit && strings.HasPrefix(findingAt(streamed, path), "must be at most"):
			t.Errorf("%s of %d characters: the stream says %v", path, n, streamed)
		case n > limit && (checked != finding || findingAt(streamed, path) != finding):
			t.Errorf("%s of %d characters: the check says %q, the stream %v; want %q", path, n, checked, streamed, finding)
		}
	}
}

// withText returns doc as JSON with the field of the object at path set to
// text.
func withText(t *testing.T, doc map[string]any, path, field, text string) []byte {
	t.Helper()
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	var obj any = c
	for _, part := range strings.Split(strings.NewReplacer("[", ".", "]", "").Replace(path), ".") {
		if i, err := strconv.Atoi(part); err == nil {
			obj = obj.([]any)[i]
		} else {
			obj = obj.(map[string]any)[part]
		}
	}
	obj.(map[string]any)[field] = text
	if data, err = json.Marshal(c); err != nil {
		t.Fatal(err)
	}
	return data
}

// findingAt returns the text of err's finding at path, "" for none.
func findingAt(err error, path string) string {
	e, ok := apierr.AsError(err)
	if !ok {
		return ""
	}
	for _, m := range e.Messages {
		if m.Path == path {
			return m.Text
		}
	}
	return ""
}

// TestImport_WarningsAreCapped: a scenario with thousands of
// oddities is taken with the first bank.MaxWarnings of them and a line for
// the rest; strict mode refuses the first, and only it.
func TestImport_WarningsAreCapped(t *testing.T) {
	var doc strings.Builder
	doc.WriteString(`{"format":"sandbank-scenario/1","customers":[{"customerNumber":"01017012345","type":"private","name":"Kari Nordmann"`)
	for range 3000 {
		doc.WriteString(`,"name":"Kari Nordmann"`)
	}
	doc.WriteString(`}],"accounts":[{"customerNumber":"01017012345","accountName":"Brukskonto","bban":"15030123457","currency":"NOK","product":"Brukskonto","cashAccountType":"CACC","creditLine":0,"balances":[],"transactions":[`)
	for i := range 2000 {
		if i > 0 {
			doc.WriteString(",")
		}
		fmt.Fprintf(&doc, `{"amount":-1,"currency":"NOK","bookingDate":"2026-01-05","valueDate":"2026-01-05","remittanceInformationUnstructured":"","creditorId":"","creditorName":"","ultimateCreditor":"","debtorName":"","ultimateDebtor":"","purposeCode":"","bankTransactionCode":"PMNT-RCDT-ESCT","creditorAccount":{"iban":"NO1615030123465"},"debtorAccount":{"bban":"15030123457"},"x%d":1}`, i)
	}
	doc.WriteString(`]}]}`)

	s, db := newBank(t)
	if _, err := s.Ops.UpdateSettings(func(st *bank.Settings) { st.Strict = true }); err != nil {
		t.Fatal(err)
	}
	before := exportJSON(t, s)
	_, err := importStream(t, s, []byte(doc.String()))
	if e, ok := apierr.AsError(err); !ok || len(e.Messages) != 1 || e.Messages[0].Path != "customers[0].name" || !strings.Contains(e.Messages[0].Text, "strict mode refuses") {
		t.Fatalf("strict mode: %v", err)
	}
	unchanged(t, s, db, before)

	if _, err := s.Ops.UpdateSettings(func(st *bank.Settings) { st.Strict = false }); err != nil {
		t.Fatal(err)
	}
	n, err := importStream(t, s, []byte(doc.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Warnings) != apierr.MaxWarnings+1 || n.Warnings[0].Path != "customers[0].name" || n.Warnings[apierr.MaxWarnings].Rest() != 3000+2000-apierr.MaxWarnings {
		t.Fatalf("%d warnings, the first at %s, the last for %d more", len(n.Warnings), n.Warnings[0].Path, n.Warnings[len(n.Warnings)-1].Rest())
	}
}

// TestWrite_RefusesANoteImportWouldRefuse: a note over 64 KiB is
// refused before anything is written.
func TestWrite_RefusesANoteImportWouldRefuse(t *testing.T) {
	s, _ := newBank(t)
	var out bytes.Buffer
	err := scenario.Write(s.Sandbox, &out, strings.Repeat("n", scenario.MaxNote+1), "")
	if findingAt(err, "note") != "must be at most 65536 bytes (64 KiB), not 65537; keep a longer text in a file beside the scenario" || out.Len() != 0 {
		t.Fatalf("%v, wrote %d bytes", err, out.Len())
	}
	if err := scenario.Write(s.Sandbox, &out, strings.Repeat("n", scenario.MaxNote), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := importStream(t, s, out.Bytes()); err != nil {
		t.Fatalf("a note of 64 KiB: %v", err)
	}
}

// TestSummarise_NeverReadsALongNoteWholeAtScale: the scenarios folder's
// list refuses a note of 300 MB as import would, reading it through
// without holding more than its limit.
func TestSummarise_NeverReadsALongNoteWholeAtScale(t *testing.T) {
	apptest.AtScale(t)
	const size = 300_000_000
	doc := io.MultiReader(strings.NewReader(`{"format":"sandbank-scenario/1","note":"`), io.LimitReader(endless('n'), size), strings.NewReader(`"}`))
	err := summariseWithin(t, doc, 4<<20)
	if err == nil || err.Error() != fmt.Sprintf("note: must be at most 65536 bytes (64 KiB), not %d; keep a longer text in a file beside the scenario", size) {
		t.Fatalf("the summary of a note of %d bytes: %v", size, err)
	}
}

// TestSummarise_HoldsAValueItDecodesToARecordAtScale: a format that is
// an array of 300 MB, which a decoder would hold whole, is refused at 24
// MiB, the most of a record.
func TestSummarise_HoldsAValueItDecodesToARecordAtScale(t *testing.T) {
	apptest.AtScale(t)
	doc := io.MultiReader(strings.NewReader(`{"format":[`), strings.NewReader("0"), &repeat{s: ",0", n: 150_000_000}, strings.NewReader(`]}`))
	if err := summariseWithin(t, doc, 128<<20); err == nil || !strings.HasPrefix(err.Error(), "format: is over 24 MiB") {
		t.Fatalf("a format of 300 MB: %v", err)
	}
}

// TestSummarise_HoldsAnItemItCountsToARecordAtScale: a transaction of 300 MB
// in a list the summary counts is refused at 24 MiB, the most of a
// record, and named by its place.
func TestSummarise_HoldsAnItemItCountsToARecordAtScale(t *testing.T) {
	apptest.AtScale(t)
	doc := io.MultiReader(strings.NewReader(`{"format":"sandbank-scenario/1","accounts":[{"transactions":[{},{`), &repeat{s: "  ", n: 150_000_000}, strings.NewReader(`}]}]}`))
	if err := summariseWithin(t, doc, 128<<20); err == nil || !strings.HasPrefix(err.Error(), "accounts[0].transactions[1]: is over 24 MiB") {
		t.Fatalf("a transaction of 300 MB: %v", err)
	}
}

// summariseWithin summarises doc, failing the test when that allocates
// more than limit bytes, and returns the summary's error.
func summariseWithin(t *testing.T, doc io.Reader, limit uint64) error {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := scenario.Summarise(doc)
	runtime.ReadMemStats(&after)
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > limit {
		t.Fatalf("the summary allocated %d MiB (%v)", allocated>>20, err)
	}
	return err
}

// repeat reads s n times.
type repeat struct {
	s   string
	n   int
	off int
}

func (r *repeat) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && r.n > 0 {
		k := copy(p[n:], r.s[r.off:])
		n += k
		if r.off += k; r.off == len(r.s) {
			r.off, r.n = 0, r.n-1
		}
	}
	return n, nil
}

// endless reads the byte b for ever.
type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}
