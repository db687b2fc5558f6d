package bank

import (
	"bytes"
	"fmt"
	"reflect"
)

// shapeWalker finds the oddities walkShape finds (keys given twice, keys
// of no field) in a JSON value that is known to be valid, walking its
// bytes instead of its tokens: the streamed import checks every one of a
// million transactions with it. It gives up (ok false) on a key with an
// escape, which walkShape then reads.
type shapeWalker struct {
	data []byte
	i    int
	// path holds the path's parts, joined only for an oddity.
	path [][]byte
	odd  []Message
	// fields caches fieldOf by type and key.
	fields map[reflect.Type]map[string]fieldType
}

// fieldType is what fieldOf answers.
type fieldType struct {
	t  reflect.Type
	ok bool
}

// quickShape returns the oddities of data, a valid JSON value decoded
// into t, with path in front of their paths; ok false when it cannot
// tell.
func (w *shapeWalker) quickShape(data []byte, t reflect.Type, path string) (odd []Message, ok bool) {
	if w.fields == nil {
		w.fields = map[reflect.Type]map[string]fieldType{}
	}
	w.data, w.i, w.path, w.odd = data, 0, append(w.path[:0], []byte(path)), nil
	if !w.value(t) {
		return nil, false
	}
	return w.odd, true
}

func (w *shapeWalker) space() {
	for w.i < len(w.data) {
		switch w.data[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

func (w *shapeWalker) value(t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	w.space()
	switch w.data[w.i] {
	case '{':
		return w.object(t)
	case '[':
		return w.array(t)
	case '"':
		w.str()
		return true
	}
	for w.i < len(w.data) {
		switch w.data[w.i] {
		case ',', ']', '}', ' ', '\t', '\r', '\n':
			return true
		}
		w.i++
	}
	return true
}

// str reads a string and returns its bytes between the quotes; plain is
// false when it holds an escape.
func (w *shapeWalker) str() (s []byte, plain bool) {
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
	return w.data[start : w.i-1], plain
}

func (w *shapeWalker) array(t reflect.Type) bool {
	var elem reflect.Type
	if !leafType(t) && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	w.i++
	w.space()
	if w.data[w.i] == ']' {
		w.i++
		return true
	}
	for n := 0; ; n++ {
		w.path = append(w.path, fmt.Appendf(nil, "[%d]", n))
		if !w.value(elem) {
			return false
		}
		w.path = w.path[:len(w.path)-1]
		w.space()
		w.i++ // ',' or ']'
		if w.data[w.i-1] == ']' {
			return true
		}
	}
}

func (w *shapeWalker) object(t reflect.Type) bool {
	leaf := leafType(t)
	w.i++
	w.space()
	if w.data[w.i] == '}' {
		w.i++
		return true
	}
	var seen [][]byte
	for {
		w.space()
		key, plain := w.str()
		if !plain {
			return false
		}
		w.space()
		w.i++ // ':'
		if containsKey(seen, key) {
			w.note(key, givenTwice)
		}
		seen = append(seen, key)
		var field reflect.Type
		switch {
		case leaf:
		case t.Kind() == reflect.Map:
			field = t.Elem()
		case t.Kind() == reflect.Struct:
			f := w.field(t, key)
			if !f.ok {
				w.note(key, unusedField)
			}
			field = f.t
		}
		w.path = append(w.path, key)
		if !w.value(field) {
			return false
		}
		w.path = w.path[:len(w.path)-1]
		w.space()
		w.i++ // ',' or '}'
		if w.data[w.i-1] == '}' {
			return true
		}
	}
}

func containsKey(seen [][]byte, key []byte) bool {
	for _, k := range seen {
		if bytes.Equal(k, key) {
			return true
		}
	}
	return false
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
		f.t, f.ok = fieldOf(t, string(key))
		m[string(key)] = f
	}
	return f
}

// note records an oddity of key in the object at the current path.
func (w *shapeWalker) note(key []byte, text string) {
	path := ""
	for _, part := range w.path {
		path = JoinPath(path, string(part))
	}
	w.odd = append(w.odd, Oddity(CodeBadRequest, JoinPath(path, string(key)), text))
}
