package psd2api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"sandbank/bank"
	"sandbank/bank/scenario"
)

// A version-2 export whose payments take more than the bank would hold
// of them at once (25,000 payments, over 32 MiB of them in the indented
// form of the window's saved files) imports back: its parts are restored
// record by record as they are read, in the order the export writes
// them. The payments are one payment a TPP made, copied with ids of their
// own into the export's own form; the bank that imports them exports
// them all again, and that export imports back as it is.
func TestScenario_ExportWithManyPaymentsImportsBack(t *testing.T) {
	b, tpp := setup(t)
	onBankingMorning(t, b)
	c := createPayment(t, b, tpp, ndctPath, ndct("100.3", ibanT1Bruk, ibanT2Bruk))
	r := b.Do(b.Operator(), "GET", "/v1/sandbox/scenario", nil)
	expect(t, r, 200, "")

	// The export, with its one payment copied 20,000 times: every key in
	// the order the export wrote it, as raw JSON.
	var doc []struct {
		key   string
		value json.RawMessage
	}
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("export: %v %v", tok, err)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		doc = append(doc, struct {
			key   string
			value json.RawMessage
		}{key.(string), v})
	}
	const copies = 25_000
	var body bytes.Buffer
	body.WriteByte('{')
	for i, kv := range doc {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, "%q:", kv.key)
		if kv.key != "payments" {
			body.Write(kv.value)
			continue
		}
		var payments []map[string]json.RawMessage
		if err := json.Unmarshal(kv.value, &payments); err != nil || len(payments) != 1 || string(payments[0]["id"]) != `"`+c.PaymentID+`"` {
			t.Fatalf("the export's payments: %v %.300s", err, kv.value)
		}
		body.WriteByte('[')
		body.Write(kv.value[1 : len(kv.value)-1])
		for n := range copies {
			p := payments[0]
			p["id"] = json.RawMessage(`"` + bank.FormatID(bank.KindPayment, 0, uint64(1_000_000+n)) + `"`)
			data, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			body.WriteByte(',')
			body.Write(data)
		}
		body.WriteByte(']')
	}
	body.WriteString("}")
	var indented bytes.Buffer
	if err := json.Indent(&indented, body.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	indented.WriteByte('\n')
	t.Logf("a scenario of %d MiB with %d payments", indented.Len()>>20, copies+1)
	if indented.Len() <= 32<<20 {
		t.Fatalf("the scenario has %d MiB, not more than the 32 MiB the bank holds of parts in another order", indented.Len()>>20)
	}

	imported := b.Do(b.Operator(), "PUT", "/v1/sandbox/scenario", indented.Bytes())
	expect(t, imported, 200, "")
	var n scenario.Counts
	imported.JSON(t, &n)
	if n.Payments != copies+1 {
		t.Fatalf("imported %d payments, want %d", n.Payments, copies+1)
	}
	again := b.Do(b.Operator(), "GET", "/v1/sandbox/scenario", nil)
	expect(t, again, 200, "")
	var sc scenario.Scenario
	again.JSON(t, &sc)
	ids := map[string]bool{}
	for _, p := range sc.Payments {
		ids[p.ID] = true
	}
	if len(sc.Payments) != copies+1 || len(ids) != copies+1 || !ids[c.PaymentID] {
		t.Fatalf("the bank exports %d payments (%d ids) after the import, want %d with %s", len(sc.Payments), len(ids), copies+1, c.PaymentID)
	}
	// And the same export imports back once more, as it is.
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/scenario", again.Body), 200, "")
}
