package scenario

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"sandbank/bank"
)

// quickSeeds are transactions in and out of the shape the quick path
// takes.
var quickSeeds = []string{
	`{"id":"enc!!abc","amount":-302.54,"currency":"NOK","valueDate":"2026-11-18","bookingDate":"2026-11-18","remittanceInformationUnstructured":"Varekjøp","creditorId":"","creditorName":"Vinmonopolet","creditorAccount":{"iban":"NO6492376542388","bban":"92376542388"},"ultimateCreditor":"","debtorName":"Brukskonto","debtorAccount":{"iban":"NO3815030123457","bban":"15030123457"},"ultimateDebtor":"","purposeCode":"","bankTransactionCode":"PMNT-CCRD-POSD","endToEndId":"E2E1"}`,
	` { "amount" : "1.00" , "currency":"NOK", "bookingStatus":"pending" } `,
	`{"amount":1e2,"remittanceInformationUnstructuredArray":["a","b"],"remittanceInformationStructuredArray":[{"reference":"1234","referenceType":"KID"}],"currencyExchange":[{"sourceCurrency":"EUR","exchangeRate":"11.5","unitCurrency":"EUR","targetCurrency":"NOK","quotationDate":"2026-01-01"}]}`,
	`{"amount":-0,"remittanceInformationUnstructuredArray":[],"remittanceInformationStructuredArray":[],"currencyExchange":[]}`,
	`{"amount":0.5,"creditorAgent":"DNBANOKKXXX","debtorAgent":"","proprietaryBankTransactionCode":"x"}`,
	`{"creditorName":"H\u0026M"}`, // an escape: the general path
	`{"amount":1,"amount":2}`,     // given twice
	`{"Amount":1}`,                // another spelling
	`{"amount":null}`,             // null
	`{"nope":1}`,                  // no such field
	`{"amount":01}`,               // not JSON
	`{"amount":1,}`,               // not JSON
	`{"creditorAccount":{"iban":"x","iban":"y"}}`,
	`{"remittanceInformationStructuredArray":[{"reference":"1","reference":"2"}]}`,
	`{"amount":true}`,
	`{"amount":"1"`,
	`[]`,
	`{"amount":1e}`,
	`{"amount":1.}`,
	`{"amount":-}`,
}

// FuzzQuickTransaction holds the quick path to encoding/json: what it
// takes, encoding/json decodes to the same transaction, with no oddity
// for the walk to note.
func FuzzQuickTransaction(f *testing.F) {
	for _, s := range quickSeeds {
		f.Add([]byte(s))
	}
	var w shapeWalker
	f.Fuzz(func(t *testing.T, data []byte) {
		var quick Transaction
		if !decodeTransaction(data, &quick) || !utf8.Valid(data) {
			return // text that is not UTF-8 never gets here: utf8Reader refuses it
		}
		var want Transaction
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("took %q, which encoding/json refuses: %v", data, err)
		}
		if !reflect.DeepEqual(quick, want) {
			t.Fatalf("%q:\nquick %#v\nwant  %#v", data, quick, want)
		}
		if odd := w.quickShape(data, reflect.TypeFor[Transaction](), ""); len(odd) > 0 {
			t.Fatalf("took %q, which has oddities: %v", data, odd)
		}
	})
}

func TestQuickTransaction_TakesTheExportShapeOnly(t *testing.T) {
	taken := map[string]bool{}
	for _, s := range quickSeeds[:5] {
		taken[s] = true
	}
	for _, s := range quickSeeds {
		var tr Transaction
		if got := decodeTransaction([]byte(s), &tr); got != taken[s] {
			t.Errorf("%s: taken %v, want %v", s, got, taken[s])
		}
	}
}

func TestQuickTransaction_KeepsTheGuardsLimits(t *testing.T) {
	limits := textLimits[reflect.TypeFor[bank.NewTransaction]()]
	if len(limitedTexts) != len(limits) {
		t.Fatalf("the quick path keeps %d limits, the guard %d", len(limitedTexts), len(limits))
	}
	for name, limit := range limits {
		for _, n := range []int{limit, limit + 1} {
			doc := fmt.Sprintf(`{"amount":1,%q:%q}`, name, strings.Repeat("ø", n))
			var tr Transaction
			if got := decodeTransaction([]byte(doc), &tr); got != (n <= limit) {
				t.Errorf("%s of %d characters (limit %d): taken %v", name, n, limit, got)
			}
		}
	}
}

// BenchmarkDecodeTransaction decodes one transaction as an export writes
// it: by hand (the quick path), and as the general path does, with
// encoding/json and the walk for oddities (docs/BENCHMARKS.md); walk is
// the walk alone.
func BenchmarkDecodeTransaction(b *testing.B) {
	data := []byte(quickSeeds[0])
	b.Run("quick", func(b *testing.B) {
		var d quickDecoder // as a lane holds it
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			var tr Transaction
			if !d.transaction(data, &tr) {
				b.Fatal("not taken")
			}
		}
	})
	b.Run("walk", func(b *testing.B) { // what a library's decoding would need besides
		var w shapeWalker
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if odd := w.quickShape(data, reflect.TypeFor[Transaction](), ""); len(odd) > 0 {
				b.Fatal(odd)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		var w shapeWalker
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			var tr Transaction
			if err := json.Unmarshal(data, &tr); err != nil {
				b.Fatal(err)
			}
			if odd := w.quickShape(data, reflect.TypeFor[Transaction](), ""); len(odd) > 0 {
				b.Fatal(odd)
			}
		}
	})
}

// TestLane_ReadsIntoRoomEnoughForACharacter fills a lane whose buffer has
// less room than a character: the UTF-8 check below refuses such reads.
func TestLane_ReadsIntoRoomEnoughForACharacter(t *testing.T) {
	l := &lane{src: &utf8Reader{r: strings.NewReader(`,{"amount":"ø"}`)}, buf: make([]byte, 3, 5)}
	if !l.fill() || l.err != nil || len(l.buf) <= 3 {
		t.Fatalf("fill: %d bytes, %v", len(l.buf), l.err)
	}
}
