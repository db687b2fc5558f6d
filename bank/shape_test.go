package bank

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

func TestQuickShape_FindsWhatWalkShapeFinds(t *testing.T) {
	for _, doc := range []string{
		`{"amount":"1","currency":"NOK","bookingDate":"2026-01-01","valueDate":"2026-01-01"}`,
		`{"amount":"1","Currency":"NOK","amount":"2","nope":{"a":[1,{"b":2}]},"creditorAccount":{"iban":"x","iban":"y","z":[]}}`,
		` { "creditorAccount" : { "iban" : "x" } , "x" : [ {"a":1} , {"a":1,"a":2} ] , "remittanceInformationUnstructured":"a\"b}" } `,
		`{"amount":-1.5e3,"bankTransactionCode":"A","bankTransactionCode":"B","ultimateDebtor":null,"id":true}`,
		`{}`,
		`{"a":[],"b":{},"c":[[]]}`,
	} {
		var w shapeWalker
		quick, ok := w.quickShape([]byte(doc), reflect.TypeFor[*ScenarioTransaction](), "accounts[0].transactions[3]")
		if !ok {
			t.Fatalf("%s: quickShape gave up", doc)
		}
		var walked []Message
		dec := json.NewDecoder(bytes.NewReader([]byte(doc)))
		if err := walkShape(dec, reflect.TypeFor[*ScenarioTransaction](), "accounts[0].transactions[3]", &walked); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(quick) != fmt.Sprint(walked) {
			t.Errorf("%s:\nquick %v\nwalk  %v", doc, quick, walked)
		}
	}
	var w shapeWalker
	if _, ok := w.quickShape([]byte(`{"a\u0062":1}`), reflect.TypeFor[ScenarioTransaction](), ""); ok {
		t.Error("quickShape read a key with an escape")
	}
}
