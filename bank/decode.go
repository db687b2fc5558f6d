package bank

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"sandbank/bank/apierr"
)

// DecodeJSON decodes one JSON document into v, strictly: the text must be
// UTF-8, hold exactly one value of the expected shape and no unknown
// fields. A failure is a BAD_REQUEST *Error whose message and path say
// where the document went wrong.
func DecodeJSON(data []byte, v any) error {
	if !utf8.Valid(data) {
		return apierr.Errorf(apierr.CodeBadRequest, "the body is not valid UTF-8; send JSON in UTF-8")
	}
	return decodeStrict(data, v)
}

// DecodeTolerant decodes one JSON document into v as the real bank does:
// the text must be UTF-8 and hold exactly one value of the expected shape,
// but fields v does not have are ignored, and a key given twice in an
// object takes its last value. Both are returned as oddities (docs/TPP-GUIDE.md 9),
// one per field, with the JSON path, so that a typo is still visible: at
// most MaxWarnings and a line for the rest (Warnings).
func DecodeTolerant(data []byte, v any) ([]apierr.Message, error) {
	if !utf8.Valid(data) {
		return nil, apierr.Errorf(apierr.CodeBadRequest, "the body is not valid UTF-8; send JSON in UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return nil, DescribeJSONError(data, err, v)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, apierr.Errorf(apierr.CodeBadRequest, "the body holds more than one JSON value; send exactly one")
	}
	var odd apierr.Warnings
	shape := json.NewDecoder(bytes.NewReader(data))
	shape.UseNumber()
	if err := WalkShape(shape, reflect.TypeOf(v), "", &odd); err != nil {
		return nil, DescribeJSONError(data, err, v)
	}
	return odd.List(), nil
}

// WalkShape reads one JSON value from dec and compares it with type t:
// an object key t has no field for, and a key given twice, is an oddity.
func WalkShape(dec *json.Decoder, t reflect.Type, path string, odd *apierr.Warnings) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return nil // a scalar
	}
	leaf := LeafType(t)
	switch delim {
	case '[':
		var elem reflect.Type
		if !leaf && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := WalkShape(dec, elem, fmt.Sprintf("%s[%d]", path, i), odd); err != nil {
				return err
			}
		}
	case '{':
		var seen KeySet
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := tok.(string)
			at := apierr.JoinPath(path, key)
			if !seen.Add([]byte(key)) {
				odd.Add(apierr.Oddity(apierr.CodeBadRequest, at, GivenTwice))
			}
			var field reflect.Type
			switch {
			case leaf:
			case t.Kind() == reflect.Map:
				field = t.Elem()
			case t.Kind() == reflect.Struct:
				f, ok := FieldOf(t, key)
				if !ok {
					odd.Add(apierr.Oddity(apierr.CodeBadRequest, at, UnusedField))
				}
				field = f
			}
			if err := WalkShape(dec, field, at, odd); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token() // the closing delimiter
	return err
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

// GivenTwice is the oddity of a key given twice in an object.
const GivenTwice = "is given twice in this object; the bank takes the last value. Send each field once"

// UnusedField is the oddity of a field the bank does not have.
const UnusedField = "is not a field the bank uses; it is ignored. Check the spelling against the API reference if you meant one"

// FieldOf finds the type of the field of struct t that encoding/json
// decodes key into (see structField). nil with ok false: no such field.
func FieldOf(t reflect.Type, key string) (reflect.Type, bool) {
	f, ok := StructField(t, key)
	return f.Type, ok
}

// StructField finds the field of struct t that encoding/json decodes key
// into: the exact name first, else one that matches without regard to
// case. A field of an embedded struct counts; Index leads to it from t.
func StructField(t reflect.Type, key string) (reflect.StructField, bool) {
	var folded reflect.StructField
	found := false
	for i := range t.NumField() {
		f := t.Field(i)
		name := JSONName(f)
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if inner, ok := StructField(ft, key); ok {
					inner.Index = append([]int{i}, inner.Index...)
					return inner, true
				}
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f, true
		}
		if !found && strings.EqualFold(name, key) {
			folded, found = f, true
		}
	}
	return folded, found
}

// JSONName is the name a field's json tag gives it, "" for none.
func JSONName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// LeafType reports whether a JSON value decoded into t is taken whole:
// no type, or one that decodes itself.
func LeafType(t reflect.Type) bool {
	return t == nil || t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler)
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return DescribeJSONError(data, err, v)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apierr.Errorf(apierr.CodeBadRequest, "the body holds more than one JSON value; send exactly one")
	}
	return nil
}

// DescribeJSONError turns a decoding error into a BAD_REQUEST that a client
// can act on, without Go type names, at the path of the value that failed
// (with the index of each array item on the way, e.g. payments[3].created);
// v is what the document was decoded into.
func DescribeJSONError(data []byte, err error, v any) *apierr.Error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return apierr.Errorf(apierr.CodeBadRequest, "the body is empty; send a JSON document")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apierr.Errorf(apierr.CodeBadRequest, "the JSON document ends too early; check for a missing bracket or quote")
	case errors.As(err, &syntax):
		line, col := position(data, syntax.Offset)
		return apierr.Errorf(apierr.CodeBadRequest, "the body is not valid JSON: %s at line %d, column %d", strings.TrimPrefix(syntax.Error(), "json: "), line, col)
	case errors.As(err, &typ):
		path := typ.Field
		locate(data, reflect.TypeOf(v), func(at string, _ reflect.Type, _ []byte, end int64) bool {
			if end >= typ.Offset && samePath(at, typ.Field) {
				path = at
				return true
			}
			return false
		})
		return apierr.PathError(apierr.CodeBadRequest, path, fmt.Sprintf("must be %s, not a JSON %s", jsonKind(typ.Type.Kind().String()), typ.Value))
	}
	msg := err.Error()
	if field, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		field = strings.Trim(field, `"`)
		return apierr.PathError(apierr.CodeBadRequest, field, "is not a field of this request; check the spelling against the API reference")
	}
	if e := badValue(data, v); e != nil {
		return e
	}
	return apierr.Errorf(apierr.CodeBadRequest, "the body does not have the expected shape")
}

// badValue finds the first value a type of its own (a time, a date, an
// amount) refuses, and says why at its path; nil when none does.
func badValue(data []byte, v any) *apierr.Error {
	var found *apierr.Error
	locate(data, reflect.TypeOf(v), func(path string, t reflect.Type, raw []byte, _ int64) bool {
		if t == nil || raw == nil || !reflect.PointerTo(t).Implements(jsonUnmarshaler) {
			return false
		}
		err := reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(raw)
		if err == nil {
			return false
		}
		text := "cannot be read: " + err.Error()
		switch t {
		case reflect.TypeFor[time.Time]():
			text = "must be an RFC 3339 date-time, e.g. 2026-03-10T10:30:00+01:00"
		case reflect.TypeFor[Date]():
			text = "must be a date, YYYY-MM-DD"
		case reflect.TypeFor[decimal.Decimal]():
			text = "must be a decimal number, e.g. \"125.50\""
		}
		found = apierr.PathError(apierr.CodeBadRequest, path, text)
		return true
	})
	return found
}

// locate walks a JSON document alongside the Go type it decodes into and
// calls at with each value: its path, the Go type it decodes into (nil
// when none), its text when it is not an object or array, and the offset
// where it ends (just after the bracket that opens an object or array).
// at returns true to stop the walk.
func locate(data []byte, t reflect.Type, at func(path string, t reflect.Type, raw []byte, end int64) bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var walk func(t reflect.Type, path string) bool
	walk = func(t reflect.Type, path string) bool {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		tok, err := dec.Token()
		if err != nil {
			return true
		}
		delim, composite := tok.(json.Delim)
		if !composite {
			raw, err := json.Marshal(tok)
			if err != nil {
				return true
			}
			return at(path, t, raw, dec.InputOffset())
		}
		if at(path, t, nil, dec.InputOffset()) {
			return true
		}
		leaf := t == nil || reflect.PointerTo(t).Implements(jsonUnmarshaler)
		for i := 0; dec.More(); i++ {
			var inner reflect.Type
			sub := fmt.Sprintf("%s[%d]", path, i)
			if delim == '{' {
				key, err := dec.Token()
				if err != nil {
					return true
				}
				name, _ := key.(string)
				sub = apierr.JoinPath(path, name)
				switch {
				case leaf:
				case t.Kind() == reflect.Map:
					inner = t.Elem()
				case t.Kind() == reflect.Struct:
					inner, _ = FieldOf(t, name)
				}
			} else if !leaf && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
				inner = t.Elem()
			}
			if walk(inner, sub) {
				return true
			}
		}
		_, err = dec.Token() // the closing bracket
		return err != nil
	}
	walk(t, "")
}

// samePath reports whether a document's path names the field encoding/json
// names: without the array indexes, and where the field's name has the
// names of embedded structs, without those (authorisations[2].attempts is
// authorisations.Authorisation.attempts). Letter case does not matter, as
// for encoding/json.
func samePath(path, field string) bool {
	want := strings.Split(strings.ToLower(field), ".")
	i := 0
	for _, seg := range strings.Split(strings.ToLower(withoutIndexes(path)), ".") {
		for i < len(want) && want[i] != seg {
			i++
		}
		if i == len(want) {
			return false
		}
		i++
	}
	return i == len(want)
}

// withoutIndexes drops the array indexes from a path: payments[3].created
// is payments.created.
func withoutIndexes(path string) string {
	var b strings.Builder
	skip := false
	for _, r := range path {
		switch {
		case r == '[':
			skip = true
		case r == ']':
			skip = false
		case !skip:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// jsonKind names a Go kind in JSON terms.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "a whole number"
	case "float32", "float64":
		return "a number"
	}
	return "another type"
}

// position returns the 1-based line and column of a byte offset.
func position(data []byte, offset int64) (int, int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// KeySet is the keys of an object seen so far: a list while it is short,
// as a transaction's is, and once it is long a set of their 64-bit hashes,
// so that an object of millions of keys costs one lookup and 8 bytes a
// key. Two keys of one object with the same hash (about one chance in
// 10^7 with 2,000,000 keys) are taken for one key given twice.
type KeySet struct {
	list [][]byte
	seed maphash.Seed
	m    map[uint64]struct{}
}

// Add adds key and reports whether it was new.
func (s *KeySet) Add(key []byte) bool {
	if s.m != nil {
		h := maphash.Bytes(s.seed, key)
		if _, ok := s.m[h]; ok {
			return false
		}
		s.m[h] = struct{}{}
		return true
	}
	for _, k := range s.list {
		if bytes.Equal(k, key) {
			return false
		}
	}
	if s.list = append(s.list, key); len(s.list) > 32 {
		s.seed, s.m = maphash.MakeSeed(), make(map[uint64]struct{}, 2*len(s.list))
		for _, k := range s.list {
			s.m[maphash.Bytes(s.seed, k)] = struct{}{}
		}
		s.list = nil
	}
	return true
}
