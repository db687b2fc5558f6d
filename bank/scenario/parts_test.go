package scenario_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"testing"

	"sandbank/assets"
	"sandbank/bank"
	"sandbank/bank/scenario"
)

// TestScenario_ExportWithManyPaymentsImportsBack exports a bank with
// payments, copies one of them until the payments are over what the bank
// holds of parts in another order than an export's (made 1 MiB here,
// HoldParts, for the 32 MiB of a real import), and imports the document:
// in the order of an export its parts are restored as they are read, so
// it imports, exports every payment back and imports again.
func TestScenario_ExportWithManyPaymentsImportsBack(t *testing.T) {
	const held = 1 << 20
	scenario.HoldParts(t, held)
	example, err := fs.ReadFile(assets.Scenarios, "scenarios/payments-in-every-status.json")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newBank(t)
	if _, err := importStream(t, s, example); err != nil {
		t.Fatal(err)
	}
	var export bytes.Buffer
	if err := scenario.Write(s.Sandbox, &export, "note", "  "); err != nil {
		t.Fatal(err)
	}

	// The export, with its first payment copied: every key in the order
	// the export wrote it, as raw JSON.
	var doc []struct {
		key   string
		value json.RawMessage
	}
	dec := json.NewDecoder(&export)
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
	const copies = 2_000
	var body bytes.Buffer
	before, firstID := 0, ""
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
		if err := json.Unmarshal(kv.value, &payments); err != nil || len(payments) == 0 {
			t.Fatalf("the export's payments: %v %.300s", err, kv.value)
		}
		before = len(payments)
		if err := json.Unmarshal(payments[0]["id"], &firstID); err != nil {
			t.Fatal(err)
		}
		start := body.Len()
		body.WriteByte('[')
		body.Write(bytes.TrimSpace(kv.value)[1 : len(bytes.TrimSpace(kv.value))-1])
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
		if size := body.Len() - start; size <= held {
			t.Fatalf("the payments take %d bytes, not more than the %d the bank holds of parts in another order", size, held)
		}
	}
	body.WriteString("}")
	t.Logf("a scenario of %d KiB with %d payments", body.Len()>>10, copies+before)

	n, err := importStream(t, s, body.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if n.Payments != copies+before {
		t.Fatalf("imported %d payments, want %d", n.Payments, copies+before)
	}
	var again bytes.Buffer
	if err := scenario.Write(s.Sandbox, &again, "note", ""); err != nil {
		t.Fatal(err)
	}
	var sc scenario.Scenario
	if err := json.Unmarshal(again.Bytes(), &sc); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, p := range sc.Payments {
		ids[p.ID] = true
	}
	if len(sc.Payments) != copies+before || len(ids) != copies+before || !ids[firstID] {
		t.Fatalf("the bank exports %d payments (%d ids) after the import, want %d with %s", len(sc.Payments), len(ids), copies+before, firstID)
	}
	// And the same export imports back once more, as it is.
	if _, err := importStream(t, s, again.Bytes()); err != nil {
		t.Fatal(err)
	}
}
