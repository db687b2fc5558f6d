package bank

import (
	"encoding/json"
	"reflect"
	"testing"
)

// mergePatch follows RFC 7396: the examples of its appendix A.
func TestMergePatch_RFC7396Examples(t *testing.T) {
	for _, c := range []struct{ target, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
		{`{"fee":"250.00"}`, `{"fee":12345678901234567890.5}`, `{"fee":12345678901234567890.5}`},
	} {
		got, err := mergePatch([]byte(c.target), []byte(c.patch), nil)
		if err != nil {
			t.Fatalf("%s + %s: %v", c.target, c.patch, err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(c.want), &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s + %s = %s, want %s", c.target, c.patch, got, c.want)
		}
	}
	// A number keeps its text, so that an amount sent as a number is read
	// exactly.
	if got, _ := mergePatch([]byte(`{}`), []byte(`{"fee":0.1000000000000000055511151231257827}`), nil); string(got) != `{"fee":0.1000000000000000055511151231257827}` {
		t.Fatalf("the number became %s", got)
	}
	// A field named in other letter case, as encoding/json reads it,
	// replaces the document's member, at every level of the document.
	got, err := mergePatch([]byte(`{"batchMode":"schedule","requestLog":{"maxCount":2000,"maxBytes":1}}`),
		[]byte(`{"BatchMode":"immediate","RequestLog":{"MAXCOUNT":5},"other":1}`), reflect.TypeFor[SettingsDoc]())
	if err != nil || string(got) != `{"batchMode":"immediate","other":1,"requestLog":{"maxBytes":1,"maxCount":5}}` {
		t.Fatalf("merged %s, %v", got, err)
	}
}
