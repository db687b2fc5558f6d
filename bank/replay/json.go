package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A JSON document as the comparison walks it: objects keep their keys in
// the order the answer wrote them, so that differences and the window's
// side-by-side view follow the answer from top to bottom.

type kind int

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// node is one JSON value.
type node struct {
	kind    kind
	boolean bool
	text    string // a string's value, a number's literal
	items   []*node
	members []member
}

// member is a key of an object and its value.
type member struct {
	key   string
	value *node
}

// get returns an object's member, nil when it has none.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kindObject {
		return nil
	}
	for _, m := range n.members {
		if m.key == key {
			return m.value
		}
	}
	return nil
}

// parseJSON parses a JSON document; ok is false when data is not one
// (empty, HTML, a PEM).
func parseJSON(data []byte) (n *node, ok bool) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	n, err := decodeNode(dec)
	if err != nil {
		return nil, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return n, true
}

// maxDepth bounds the nesting a recorded answer may have.
const maxDepth = 200

func decodeNode(dec *json.Decoder) (*node, error) {
	return decodeDepth(dec, 0)
}

func decodeDepth(dec *json.Decoder, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{kind: kindObject, members: []member{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				v, err := decodeDepth(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.members = append(n.members, member{key, v})
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := &node{kind: kindArray, items: []*node{}}
			for dec.More() {
				v, err := decodeDepth(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
			_, err := dec.Token()
			return n, err
		}
	case string:
		return &node{kind: kindString, text: t}, nil
	case json.Number:
		return &node{kind: kindNumber, text: t.String()}, nil
	case bool:
		return &node{kind: kindBool, boolean: t}, nil
	case nil:
		return &node{kind: kindNull}, nil
	}
	return nil, fmt.Errorf("unexpected %v", tok)
}

// text writes a value as compact JSON, for the report.
func (n *node) String() string {
	if n == nil {
		return absent
	}
	var b strings.Builder
	n.write(&b, "", "")
	return b.String()
}

// absent stands in the report for a value one side does not have.
const absent = "(absent)"

// write writes n as JSON; with indent, one member or item a line.
func (n *node) write(b *strings.Builder, prefix, indent string) {
	switch n.kind {
	case kindNull:
		b.WriteString("null")
	case kindBool:
		b.WriteString(strconv.FormatBool(n.boolean))
	case kindNumber:
		b.WriteString(n.text)
	case kindString:
		b.WriteString(quote(n.text))
	case kindArray:
		if len(n.items) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[")
		for i, item := range n.items {
			if i > 0 {
				b.WriteString(",")
			}
			if indent != "" {
				b.WriteString("\n" + prefix + indent)
			}
			item.write(b, prefix+indent, indent)
		}
		if indent != "" {
			b.WriteString("\n" + prefix)
		}
		b.WriteString("]")
	case kindObject:
		if len(n.members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{")
		for i, m := range n.members {
			if i > 0 {
				b.WriteString(",")
			}
			if indent != "" {
				b.WriteString("\n" + prefix + indent)
			}
			b.WriteString(quote(m.key))
			b.WriteString(":")
			if indent != "" {
				b.WriteString(" ")
			}
			m.value.write(b, prefix+indent, indent)
		}
		if indent != "" {
			b.WriteString("\n" + prefix)
		}
		b.WriteString("}")
	}
}

// quote writes a JSON string without escaping HTML characters.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// Path is where a value is in a JSON document: object keys and array
// indexes from the top.
type path []step

// step is one key (index < 0) or one index.
type step struct {
	key   string
	index int
}

func (p path) key(k string) path { return append(p[:len(p):len(p)], step{key: k, index: -1}) }
func (p path) at(i int) path     { return append(p[:len(p):len(p)], step{index: i}) }

// String writes the path as JSONPath: $.balances[0].balanceAmount.amount;
// a key that is not a plain name is written ['key'].
func (p path) String() string {
	var b strings.Builder
	b.WriteString("$")
	for _, s := range p {
		switch {
		case s.index >= 0:
			fmt.Fprintf(&b, "[%d]", s.index)
		case plainName(s.key):
			b.WriteString("." + s.key)
		default:
			b.WriteString("['" + strings.ReplaceAll(strings.ReplaceAll(s.key, `\`, `\\`), "'", `\'`) + "']")
		}
	}
	return b.String()
}

// last is the key of the path's last step, "" for an index or the root.
func (p path) last() string {
	if len(p) == 0 || p[len(p)-1].index >= 0 {
		return ""
	}
	return p[len(p)-1].key
}

// plainName reports whether a key can be written .key in a path.
func plainName(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		switch {
		case r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
		case r == '-' && i > 0, r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// Line is one line of an answer's body written for reading, and the
// JSON path of the value it holds ("" for a line that holds none: a
// closing bracket, a body that is not JSON).
type Line struct {
	Text string
	Path string
}

// Outline writes a body for the window's side-by-side view: JSON
// indented, one member or item a line, each line with the path of the
// value it starts; another body line by line.
func Outline(body []byte) []Line {
	n, ok := parseJSON(body)
	if !ok {
		var lines []Line
		for _, l := range strings.Split(strings.TrimRight(string(body), "\n"), "\n") {
			lines = append(lines, Line{Text: l})
		}
		return lines
	}
	var lines []Line
	outline(&lines, n, nil, "", "")
	return lines
}

// outline adds the lines of n, which is at p, after label ("key": or
// nothing) and indented by prefix.
func outline(lines *[]Line, n *node, p path, prefix, label string) {
	open := func(bracket string) {
		*lines = append(*lines, Line{Text: prefix + label + bracket, Path: p.String()})
	}
	switch {
	case n.kind == kindObject && len(n.members) > 0:
		open("{")
		for i, m := range n.members {
			outline(lines, m.value, p.key(m.key), prefix+"  ", quote(m.key)+": ")
			if i < len(n.members)-1 {
				(*lines)[len(*lines)-1].Text += ","
			}
		}
		*lines = append(*lines, Line{Text: prefix + "}"})
	case n.kind == kindArray && len(n.items) > 0:
		open("[")
		for i, item := range n.items {
			outline(lines, item, p.at(i), prefix+"  ", "")
			if i < len(n.items)-1 {
				(*lines)[len(*lines)-1].Text += ","
			}
		}
		*lines = append(*lines, Line{Text: prefix + "]"})
	default:
		open(n.String())
	}
}
