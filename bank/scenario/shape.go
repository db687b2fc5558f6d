package scenario

import (
	"encoding/json"
	"fmt"
	"reflect"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

// shapeWalker finds the oddities walkShape finds (keys given twice, keys
// of no field) in a JSON value that is known to be valid, walking its
// bytes instead of its tokens: the streamed import checks every one of a
// million transactions with it.
type shapeWalker struct {
	data []byte
	i    int
	// path holds the path's parts, joined only for an oddity.
	path [][]byte
	odd  apierr.Warnings
	// fields caches fieldOf by type and key, up to maxCachedKeys keys a
	// type.
	fields map[reflect.Type]map[string]fieldType
}

// maxCachedKeys bounds the keys a cache of fields by key holds per type:
// every field and a few spellings, not each of a million unknown keys.
const maxCachedKeys = 256

// fieldType is what fieldOf answers.
type fieldType struct {
	t  reflect.Type
	ok bool
}

// quickShape returns the oddities of data, a valid JSON value decoded
// into t, with path in front of their paths: at most MaxWarnings and a
// line for the rest (Warnings).
func (w *shapeWalker) quickShape(data []byte, t reflect.Type, path string) []apierr.Message {
	if w.fields == nil {
		w.fields = map[reflect.Type]map[string]fieldType{}
	}
	w.data, w.i, w.path, w.odd = data, 0, append(w.path[:0], []byte(path)), apierr.Warnings{}
	w.value(t)
	return w.odd.List()
}

func (w *shapeWalker) space() { w.i = skipSpace(w.data, w.i) }

func (w *shapeWalker) value(t reflect.Type) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	w.space()
	switch w.data[w.i] {
	case '{':
		w.object(t)
		return
	case '[':
		w.array(t)
		return
	case '"':
		w.str()
		return
	}
	for w.i < len(w.data) {
		switch w.data[w.i] {
		case ',', ']', '}', ' ', '\t', '\r', '\n':
			return
		}
		w.i++
	}
}

// str reads a string and returns its text between the quotes, with its
// escapes decoded.
func (w *shapeWalker) str() []byte {
	w.i++
	start, plain := w.i, true
	for w.data[w.i] != '"' {
		if w.data[w.i] == '\\' {
			plain = false
			w.i++
		}
		w.i++
	}
	w.i++
	if plain {
		return w.data[start : w.i-1]
	}
	var s string
	_ = json.Unmarshal(w.data[start-1:w.i], &s) // valid: the value decoded
	return []byte(s)
}

func (w *shapeWalker) array(t reflect.Type) {
	var elem reflect.Type
	if !bank.LeafType(t) && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	w.i++
	w.space()
	if w.data[w.i] == ']' {
		w.i++
		return
	}
	for n := 0; ; n++ {
		w.path = append(w.path, fmt.Appendf(nil, "[%d]", n))
		w.value(elem)
		w.path = w.path[:len(w.path)-1]
		w.space()
		w.i++ // ',' or ']'
		if w.data[w.i-1] == ']' {
			return
		}
	}
}

func (w *shapeWalker) object(t reflect.Type) {
	leaf := bank.LeafType(t)
	w.i++
	w.space()
	if w.data[w.i] == '}' {
		w.i++
		return
	}
	var seen bank.KeySet
	for {
		w.space()
		key := w.str()
		w.space()
		w.i++ // ':'
		if !seen.Add(key) {
			w.note(key, bank.GivenTwice)
		}
		var field reflect.Type
		switch {
		case leaf:
		case t.Kind() == reflect.Map:
			field = t.Elem()
		case t.Kind() == reflect.Struct:
			f := w.field(t, key)
			if !f.ok {
				w.note(key, bank.UnusedField)
			}
			field = f.t
		}
		w.path = append(w.path, key)
		w.value(field)
		w.path = w.path[:len(w.path)-1]
		w.space()
		w.i++ // ',' or '}'
		if w.data[w.i-1] == '}' {
			return
		}
	}
}

// field returns fieldOf(t, key), cached.
func (w *shapeWalker) field(t reflect.Type, key []byte) fieldType {
	m := w.fields[t]
	if m == nil {
		m = map[string]fieldType{}
		w.fields[t] = m
	}
	f, ok := m[string(key)]
	if !ok {
		f.t, f.ok = bank.FieldOf(t, string(key))
		if len(m) < maxCachedKeys {
			m[string(key)] = f
		}
	}
	return f
}

// note records an oddity of key in the object at the current path.
func (w *shapeWalker) note(key []byte, text string) {
	path := ""
	for _, part := range w.path {
		path = apierr.JoinPath(path, string(part))
	}
	w.odd.Add(apierr.Oddity(apierr.CodeBadRequest, apierr.JoinPath(path, string(key)), text))
}
