package bank

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// DecodeJSON decodes one JSON document into v, strictly: the text must be
// UTF-8, hold exactly one value of the expected shape and no unknown
// fields. A failure is a BAD_REQUEST *Error whose message and path say
// where the document went wrong.
func DecodeJSON(data []byte, v any) error {
	if !utf8.Valid(data) {
		return Errorf(CodeBadRequest, "the body is not valid UTF-8; send JSON in UTF-8")
	}
	return decodeStrict(data, v)
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return describeJSONError(data, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Errorf(CodeBadRequest, "the body holds more than one JSON value; send exactly one")
	}
	return nil
}

// describeJSONError turns a decoding error into a BAD_REQUEST that a client
// can act on, without Go type names.
func describeJSONError(data []byte, err error) *Error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return Errorf(CodeBadRequest, "the body is empty; send a JSON document")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return Errorf(CodeBadRequest, "the JSON document ends too early; check for a missing bracket or quote")
	case errors.As(err, &syntax):
		line, col := position(data, syntax.Offset)
		return Errorf(CodeBadRequest, "the body is not valid JSON: %s at line %d, column %d", strings.TrimPrefix(syntax.Error(), "json: "), line, col)
	case errors.As(err, &typ):
		path := typ.Field
		return PathError(CodeBadRequest, path, fmt.Sprintf("must be %s, not a JSON %s", jsonKind(typ.Type.Kind().String()), typ.Value))
	}
	msg := err.Error()
	if field, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		field = strings.Trim(field, `"`)
		return PathError(CodeBadRequest, field, "is not a field of this request; check the spelling against the API reference")
	}
	return Errorf(CodeBadRequest, "the body does not have the expected shape")
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
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
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
