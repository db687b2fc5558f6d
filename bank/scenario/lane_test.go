package scenario_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/apierr"
	"sandbank/bank/scenario"
)

// mixedList returns the known state's export with n transactions more on
// its first account, every seventh in a shape the quick path leaves to the
// decoder (an escape, a field of no name, a key twice, another spelling,
// null) and the rest as an export writes them, with white space of every
// kind between the items; broken, when not empty, replaces item k's text
// (ITEM in it stands for the text it replaces).
func mixedList(t testing.TB, s *bank.Bank, n, k int, broken string) []byte {
	return itemList(t, s, n, k, broken, 7)
}

// itemList is mixedList with every odd-th item in a shape the quick path
// leaves to the decoder; none when odd is 0.
func itemList(t testing.TB, s *bank.Bank, n, k int, broken string, odd int) []byte {
	t.Helper()
	sc, err := scenario.ExportScenario(s.Sandbox, "")
	if err != nil {
		t.Fatal(err)
	}
	a := sc.Accounts[0]
	sc.Accounts[0].Transactions = nil
	head, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	var list bytes.Buffer
	list.WriteString("[\n")
	for i := range n {
		if i > 0 {
			list.WriteString([]string{",", " ,\n\t", ",\r\n  "}[i%3])
		}
		date := testNow.AddDate(0, 0, -1-i/50).Format("2006-01-02")
		item := fmt.Sprintf(`{"amount":-%d.%02d,"currency":"NOK","valueDate":%q,"bookingDate":%q,"remittanceInformationUnstructured":"Varekjøp %d","creditorId":"","creditorName":"KIWI","creditorAccount":{"iban":"NO9098393368403","bban":"98393368403"},"ultimateCreditor":"","debtorName":"Brukskonto","debtorAccount":{"iban":%q},"ultimateDebtor":"","purposeCode":"","bankTransactionCode":"PMNT-CCRD-POSD"}`,
			1+i%900, i%100, date, date, i, a.IBAN)
		kind := 0
		if odd > 0 && i%odd > 0 {
			kind = i % odd
		}
		switch kind {
		case 1:
			item = strings.Replace(item, `"KIWI"`, `"H\u0026M"`, 1)
		case 2:
			item = strings.Replace(item, `{"amount"`, `{"nope":[1,{"x":2}],"amount"`, 1)
		case 3:
			item = strings.Replace(item, `"currency":"NOK"`, `"currency":"NOK","currency":"NOK"`, 1)
		case 4:
			item = strings.Replace(item, `"creditorName"`, `"CreditorName"`, 1)
		case 5:
			item = strings.Replace(item, `"creditorName":"KIWI"`, `"creditorName":"KIWI","remittanceInformationUnstructuredArray":["a","b"]`, 1)
		case 6:
			item = strings.Replace(item, `{"amount"`, `{"endToEndId":null,"amount"`, 1)
		}
		if i == k && broken != "" {
			item = strings.ReplaceAll(broken, "ITEM", item)
		}
		list.WriteString(item)
	}
	list.WriteString("\n]")
	// The account's transactions come last among its fields, as in an export.
	acct, err := json.Marshal(sc.Accounts[0])
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(head, acct)
	if at < 0 {
		t.Fatal("the first account is not in the export")
	}
	end := at + len(acct) - 1 // its closing brace
	return append(append(append([]byte{}, head[:end]...), `,"transactions":`+list.String()...), head[end:]...)
}

// wholeImport imports data as a document read whole, the path the lane
// must agree with.
func wholeImport(t *testing.T, data []byte) ([]byte, []string, error) {
	t.Helper()
	s, _ := newBank(t)
	var sc scenario.Scenario
	odd, err := bank.DecodeTolerant(data, &sc)
	if err != nil {
		return nil, nil, err
	}
	n, err := scenario.ImportScenario(s.Sandbox, sc)
	if err != nil {
		return nil, nil, err
	}
	return exportJSON(t, s), warningPaths(append(odd, n.Warnings...)), nil
}

func warningPaths(ms []apierr.Message) []string {
	var paths []string
	for _, m := range ms {
		paths = append(paths, m.Path+": "+m.Text)
	}
	return paths
}

// TestImport_LaneTakesWhatTheDecoderTakes imports lists with items the
// lane leaves to the decoder often (every 7th: the guard checks every
// byte) and seldom (every 301st: the lane bypasses the guard), and
// compares them with the documents read whole.
func TestImport_LaneTakesWhatTheDecoderTakes(t *testing.T) {
	for _, odd := range []int{7, 301} {
		t.Run(fmt.Sprint(odd), func(t *testing.T) { laneTakesWhatTheDecoderTakes(t, odd) })
	}
}

func laneTakesWhatTheDecoderTakes(t *testing.T, odd int) {
	s, _ := newBank(t)
	data := itemList(t, s, 3000, -1, "", odd)
	n, err := importStream(t, s, data)
	if err != nil {
		t.Fatal(err)
	}
	wantData, wantOdd, err := wholeImport(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if got := exportJSON(t, s); !bytes.Equal(got, wantData) {
		t.Fatal("the streamed import holds other data than the document read whole")
	}
	if got := warningPaths(n.Warnings); strings.Join(got, "\n") != strings.Join(wantOdd, "\n") {
		t.Fatalf("streamed warnings:\n%s\nread whole:\n%s", strings.Join(got, "\n"), strings.Join(wantOdd, "\n"))
	}
	if odd == 7 && !strings.Contains(strings.Join(warningPaths(n.Warnings), "\n"), "accounts[0].transactions[345].nope") {
		t.Fatalf("no warning names the field of no name of item 345: %v", n.Warnings)
	}
}

// TestImport_LaneGivesTheDecoderWhatItRefuses breaks an item amid those
// the lane takes, with the guard left to the lane: the import refuses it
// as the document read whole is refused (syntax errors), or as the guard
// refuses it (limits), and changes nothing.
func TestImport_LaneGivesTheDecoderWhatItRefuses(t *testing.T) {
	for name, broken := range map[string]string{
		"an item cut short":   `{"amount":1`,
		"no comma":            `{"amount":1} {"amount":2}`,
		"a comma too many":    `{"amount":1},`,
		"a bracket too many":  "ITEM]",
		"a string never ends": `{"amount":"1}`,
		"not a value":         `{"amount":1x}`,
	} {
		t.Run(name, func(t *testing.T) {
			for _, odd := range []int{7, 0} { // the guard checking, or bypassed
				s, db := newBank(t)
				before := exportJSON(t, s)
				data := itemList(t, s, 500, 300, broken, odd)
				_, streamed := importStream(t, s, data)
				var sc scenario.Scenario
				_, whole := bank.DecodeTolerant(data, &sc)
				if whole == nil {
					_, whole = scenario.ImportScenario(s.Sandbox, sc)
				}
				if streamed == nil || whole == nil || clip(streamed.Error()) != clip(whole.Error()) {
					t.Fatalf("every %d odd: streamed %v, whole %v", odd, clip(fmt.Sprint(streamed)), clip(fmt.Sprint(whole)))
				}
				unchanged(t, s, db, before)
			}
		})
	}
}

// TestImport_LaneSaysWhereALargeDocumentBreaksAtScale checks the byte a
// syntax error of a document too large to be read again whole (over 16
// MiB) is placed at: the lane hands the decoder the rest of the document,
// whose offsets it counts from there.
func TestImport_LaneSaysWhereALargeDocumentBreaksAtScale(t *testing.T) {
	apptest.AtScale(t)
	for name, broken := range map[string]string{
		"in a value":     `{"amount":1 "currency":"NOK"}`,
		"between values": "ITEM ITEM",
		"for a value":    "ITEM,:",
	} {
		t.Run(name, func(t *testing.T) {
			s, _ := newBank(t)
			data := mixedList(t, s, 60_000, 400, broken)
			if len(data) <= 16<<20 {
				t.Fatalf("the document has %d bytes; it must be larger than what is read whole", len(data))
			}
			var v any
			var syntax *json.SyntaxError // at item 400, in the document's first tenth
			if err := json.Unmarshal(data[:len(data)/10], &v); !errors.As(err, &syntax) {
				t.Fatalf("encoding/json: %v", err)
			}
			_, err := importStream(t, s, data)
			// The decoder words some errors its own way: the byte is the same.
			if want := fmt.Sprintf("not valid at byte %d: ", syntax.Offset); err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("got %v, want %q", err, want)
			}
		})
	}
}

// TestImport_LaneLeavesTheGuardItsLimits breaks a limit in an item amid
// those the lane takes, with the guard left to the lane: the guard refuses
// it as it does without a lane, and nothing changes.
func TestImport_LaneLeavesTheGuardItsLimits(t *testing.T) {
	for _, tc := range []struct{ broken, want string }{
		{`{"creditorName":"` + strings.Repeat("ø", 71) + `"}`, "FORMAT_ERROR: accounts[0].transactions[300].creditorName: must be at most 70 characters, not 71"},
		{`{"remittanceInformationUnstructured":"` + strings.Repeat("x", 300<<10) + `"}`, "FORMAT_ERROR: accounts[0].transactions[300].remittanceInformationUnstructured: must be at most 140 characters, not 307200"},
		{`{"id":"` + strings.Repeat("x", 2<<20) + `"}`, "FORMAT_ERROR: accounts[0].transactions[300].id: must be at most 1048576 bytes (1 MiB), not 2097152"},
		{`{"nope":"` + strings.Repeat("x", 100<<10) + `"}`, "BAD_REQUEST: accounts[0].transactions[300].nope: " + bank.UnusedField + "; its value is over 64 KiB"},
	} {
		s, db := newBank(t)
		before := exportJSON(t, s)
		_, err := importStream(t, s, itemList(t, s, 500, 300, tc.broken, 0))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("got %v, want %s", err, tc.want)
		}
		unchanged(t, s, db, before)
	}
}

// clip shortens a message that quotes a long value, for a failure's text.
func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}

// TestImport_LaneLeavesLongSpaceToTheGuard puts more white space between
// two items than the lane skips: the decoder and the guard take it, and
// the import holds what the document read whole holds.
func TestImport_LaneLeavesLongSpaceToTheGuard(t *testing.T) {
	s, _ := newBank(t)
	data := mixedList(t, s, 500, 300, "ITEM"+strings.Repeat(" ", 200<<10))
	if _, err := importStream(t, s, data); err != nil {
		t.Fatal(err)
	}
	want, _, err := wholeImport(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(exportJSON(t, s), want) {
		t.Fatal("the streamed import holds other data than the document read whole")
	}
}

// TestImport_AnIdTwiceIsRefused gives an item the id of an earlier one, in
// its chunk and in an earlier chunk: the import refuses it at its path.
func TestImport_AnIdTwiceIsRefused(t *testing.T) {
	for _, earlier := range []int{5990, 10} { // the same chunk, an earlier one
		s, db := newBank(t)
		before := exportJSON(t, s)
		accounts, err := s.Sandbox.Accounts()
		if err != nil {
			t.Fatal(err)
		}
		seq, _ := bank.SeqOf(bank.KindAccount, accounts[0].ID)
		data := itemList(t, s, 6000, -1, "", 0)
		list := bytes.Index(data, []byte("\"transactions\":[\n")) // the list itemList writes
		i := 0
		items := regexp.MustCompile(`\{"amount"`).ReplaceAllFunc(data[list:], func(m []byte) []byte {
			n := 1_000_000 + i
			if i == 5995 {
				n = 1_000_000 + earlier
			}
			i++
			return []byte(fmt.Sprintf(`{"id":%q,"amount"`, bank.FormatID(bank.KindTransaction, seq, uint64(n))))
		})
		data = append(data[:list:list], items...)
		_, err = importStream(t, s, data)
		want := fmt.Sprintf("accounts[0].transactions[5995].id: two transactions have the id %s", bank.FormatID(bank.KindTransaction, seq, uint64(1_000_000+earlier)))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("id of item %d again: got %v, want %s", earlier, err, want)
		}
		unchanged(t, s, db, before)
	}
}

// FuzzLane imports a document whose first account's transactions are
// the fuzzer's text, with lanes and without (the decoder alone, as
// before them): the two imports answer the same, and hold the same data.
func FuzzLane(f *testing.F) {
	withLane, _ := newBank(f)
	alone, _ := newBank(f)
	doc := mixedList(f, withLane, 3, -1, "")
	at := bytes.Index(doc, []byte(`"transactions":[`)) + len(`"transactions":`)
	end := bytes.Index(doc[at:], []byte("\n]")) + at + 2
	head, list, tail := doc[:at], doc[at:end], doc[end:]
	f.Add(list)
	f.Add([]byte(`[]`))
	f.Add([]byte(`null`))
	f.Add(mixedList(f, withLane, 20, 9, "ITEM,")[at:])
	f.Add([]byte(`[{"amount":-1,"currency":"NOK","creditorName":"H\u0026M"}, {"amount":"1.00"} ,{"Amount":1}]`))
	f.Fuzz(func(t *testing.T, list []byte) {
		doc := append(append(append([]byte{}, head...), list...), tail...)
		a, errA := importStream(t, withLane, doc)
		var b scenario.Counts
		var errB error
		scenario.WithoutLanes(func() { b, errB = importStream(t, alone, doc) })
		if fmt.Sprint(errA) != fmt.Sprint(errB) {
			t.Fatalf("with lanes: %v\nwithout: %v", errA, errB)
		}
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("with lanes: %v\nwithout: %v", a, b)
		}
		if errA == nil && !bytes.Equal(exportJSON(t, withLane), exportJSON(t, alone)) {
			t.Fatal("the two banks hold other data") // a refused import changes nothing (unchanged)
		}
	})
}

// TestImport_ANewIdComesAfterTheGivenOnes lists a transaction with an id
// of a high sequence number, then one without an id: the new id comes
// after the given one, as the given ones are reserved before a new one
// is made.
func TestImport_ANewIdComesAfterTheGivenOnes(t *testing.T) {
	s, _ := newBank(t)
	accounts, err := s.Sandbox.Accounts()
	if err != nil {
		t.Fatal(err)
	}
	seq, _ := bank.SeqOf(bank.KindAccount, accounts[0].ID)
	const high = 1 << 40
	data := itemList(t, s, 2, -1, "", 0)
	list := bytes.Index(data, []byte("\"transactions\":[\n"))
	first := bytes.Index(data[list:], []byte(`{"amount"`)) + list
	data = append(data[:first:first], append([]byte(fmt.Sprintf(`{"id":%q,`, bank.FormatID(bank.KindTransaction, seq, high))), data[first+1:]...)...)
	if _, err := importStream(t, s, data); err != nil {
		t.Fatal(err)
	}
	page, err := s.Sandbox.Transactions(accounts[0].ID, bank.TxQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var seqs []uint64
	for _, tr := range page.Transactions {
		_, n, _ := bank.ParseID(bank.KindTransaction, tr.ID)
		seqs = append(seqs, n)
	}
	if !slices.Contains(seqs, high) || !slices.Contains(seqs, high+1) {
		t.Fatalf("sequence numbers %v: want %d given and %d made after it", seqs, uint64(high), uint64(high+1))
	}
}

// TestImport_LaneNamesTheRecordOfARefusal gives every account one
// transaction, so that the bytes read ahead at the start of a list reach
// the next account, and breaks a limit in one of them: the refusal names
// the record it names without lanes.
func TestImport_LaneNamesTheRecordOfARefusal(t *testing.T) {
	s, _ := newBank(t)
	sc, err := scenario.ExportScenario(s.Sandbox, "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range sc.Accounts {
		sc.Accounts[i].Transactions = sc.Accounts[i].Transactions[:min(1, len(sc.Accounts[i].Transactions))]
	}
	data, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, broken := range []string{
		`"nope":"` + strings.Repeat("x", 100<<10) + `",`,
		`"creditorName":"` + strings.Repeat("ø", 71) + `",`,
	} {
		for list := range 3 {
			doc := string(data)
			at := 0
			for range list + 1 {
				at += strings.Index(doc[at:], `"transactions":[{`) + len(`"transactions":[{`)
			}
			doc = doc[:at] + broken + doc[at:]
			_, withLanes := importStream(t, s, []byte(doc))
			var without error
			scenario.WithoutLanes(func() { _, without = importStream(t, s, []byte(doc)) })
			if withLanes == nil || without == nil || withLanes.Error() != without.Error() {
				t.Errorf("list %d: with lanes %v\nwithout %v", list, clip(fmt.Sprint(withLanes)), clip(fmt.Sprint(without)))
			}
		}
	}
}
