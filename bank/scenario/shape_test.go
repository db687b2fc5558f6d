package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

func TestQuickShape_FindsWhatWalkShapeFinds(t *testing.T) {
	var many, twice bytes.Buffer
	many.WriteString(`{"amount":"1"`)
	twice.WriteString(`{"amount":"1"`)
	for i := range 40 {
		fmt.Fprintf(&many, `,"k%d":%d`, i, i) // past the keys a list holds, a map
		twice.WriteString(`,"amount":"2"`)    // past MaxWarnings
	}
	many.WriteString(`,"k35":1,"amount":"2"}`)
	for range 200 {
		twice.WriteString(`,"amount":"2"`)
	}
	twice.WriteString(`}`)
	for _, doc := range []string{
		many.String(), twice.String(),
		`{"amount":"1","currency":"NOK","bookingDate":"2026-01-01","valueDate":"2026-01-01"}`,
		`{"amount":"1","Currency":"NOK","amount":"2","nope":{"a":[1,{"b":2}]},"creditorAccount":{"iban":"x","iban":"y","z":[]}}`,
		` { "creditorAccount" : { "iban" : "x" } , "x" : [ {"a":1} , {"a":1,"a":2} ] , "remittanceInformationUnstructured":"a\"b}" } `,
		`{"amount":-1.5e3,"bankTransactionCode":"A","bankTransactionCode":"B","ultimateDebtor":null,"id":true}`,
		`{}`,
		`{"a\u0062":1,"ab":2,"\u0061mount":"1","creditorAccount":{"i\"ban":"x"}}`,
		`{"a":[],"b":{},"c":[[]]}`,
	} {
		var w shapeWalker
		quick := w.quickShape([]byte(doc), reflect.TypeFor[*Transaction](), "accounts[0].transactions[3]")
		var walked apierr.Warnings
		dec := json.NewDecoder(bytes.NewReader([]byte(doc)))
		if err := bank.WalkShape(dec, reflect.TypeFor[*Transaction](), "accounts[0].transactions[3]", &walked); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(quick) != fmt.Sprint(walked.List()) {
			t.Errorf("%s:\nquick %v\nwalk  %v", doc, quick, walked.List())
		}
	}
}
