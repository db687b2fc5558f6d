package scenario_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

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
func mixedList(t *testing.T, s *bank.Bank, n, k int, broken string) []byte {
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
		switch i % 7 {
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

func TestImport_LaneTakesWhatTheDecoderTakes(t *testing.T) {
	s, _ := newBank(t)
	data := mixedList(t, s, 3000, -1, "")
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
	if !strings.Contains(strings.Join(warningPaths(n.Warnings), "\n"), "accounts[0].transactions[345].nope") {
		t.Fatalf("no warning names the field of no name of item 345: %v", n.Warnings)
	}
}

func TestImport_LaneGivesTheDecoderSyntaxErrors(t *testing.T) {
	for name, broken := range map[string]string{
		"an item cut short":   `{"amount":1`,
		"no comma":            `{"amount":1} {"amount":2}`,
		"a comma too many":    `{"amount":1},`,
		"a bracket too many":  "ITEM]",
		"a string never ends": `{"amount":"1}`,
		"not a value":         `{"amount":1x}`,
	} {
		t.Run(name, func(t *testing.T) {
			s, db := newBank(t)
			before := exportJSON(t, s)
			data := mixedList(t, s, 500, 300, broken)
			_, streamed := importStream(t, s, data)
			var sc scenario.Scenario
			_, whole := bank.DecodeTolerant(data, &sc)
			if streamed == nil || whole == nil || streamed.Error() != whole.Error() {
				t.Fatalf("streamed %v, whole %v", streamed, whole)
			}
			unchanged(t, s, db, before)
		})
	}
}

// TestImport_LaneSaysWhereALargeDocumentBreaks checks the byte a syntax
// error of a document too large to be read again whole is placed at: the
// lane hands the decoder the rest of the document, whose offsets it counts
// from there.
func TestImport_LaneSaysWhereALargeDocumentBreaks(t *testing.T) {
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
			var syntax *json.SyntaxError
			if err := json.Unmarshal(data, &v); !errors.As(err, &syntax) {
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
