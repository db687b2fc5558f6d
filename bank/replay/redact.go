package replay

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Redaction: a report to send out of the house, with personal data
// blanked consistently. Every name, account number and national id the
// answers hold (by their keys: creditorName, iban, nationalId, ...) and
// every number that looks like one (an IBAN, eleven digits: a Norwegian
// BBAN or national id) becomes a placeholder, the same value the same
// placeholder everywhere in the report: <name 1>, <account 2>,
// <national id 1>. So a reader still sees that two places hold the same
// account, and not which account it is.

// redactKinds say what the values of a key are, for the placeholder.
var redactKinds = []struct {
	kind string
	keys []string
	// suffixes are key endings of the kind.
	suffixes []string
}{
	{"name", []string{"name", "ultimateCreditor", "ultimateDebtor"}, []string{"Name"}},
	{"account", []string{"iban", "bban", "pan", "maskedPan", "msisdn", "accountNumber"}, []string{"Iban", "Bban", "Pan"}},
	{"national id", []string{"nationalId", "customerNumber", "owner"}, nil},
}

// kindOfKey says what a key's values are, "" when they are not personal.
func kindOfKey(key string) string {
	for _, k := range redactKinds {
		if slices.Contains(k.keys, key) || slices.ContainsFunc(k.suffixes, func(s string) bool { return strings.HasSuffix(key, s) }) {
			return k.kind
		}
	}
	return ""
}

var (
	ibanText   = regexp.MustCompile(`\b[A-Z]{2}\d{2}[A-Z0-9]{11,30}\b`)
	digits11   = regexp.MustCompile(`\b\d{11}\b`)
	panText    = regexp.MustCompile(`\b\d{6}\*{4,6}\d{4}\b`)
	nationalID = regexp.MustCompile(`(?i)national id \d+`)
)

// redactor gives each personal value its placeholder.
type redactor struct {
	values  map[string]string // value → placeholder
	counts  map[string]int    // kind → placeholders given
	ordered []string          // the values, longest first
}

func (rd *redactor) note(kind, v string) {
	v = strings.TrimSpace(v)
	if kind == "" || utf8.RuneCountInString(v) < 2 || rd.values[v] != "" {
		return
	}
	rd.counts[kind]++
	rd.values[v] = fmt.Sprintf("<%s %d>", kind, rd.counts[kind])
	i, _ := slices.BinarySearchFunc(rd.ordered, v, func(a, b string) int { return utf8.RuneCountInString(b) - utf8.RuneCountInString(a) })
	rd.ordered = slices.Insert(rd.ordered, i, v)
}

// gather notes the personal values of a JSON body.
func (rd *redactor) gather(n *node, key string) {
	switch n.kind {
	case kindString:
		rd.note(kindOfKey(key), n.text)
	case kindNumber:
		if kindOfKey(key) != "" {
			rd.note(kindOfKey(key), n.text)
		}
	case kindArray:
		for _, item := range n.items {
			rd.gather(item, key)
		}
	case kindObject:
		for _, m := range n.members {
			rd.gather(m.value, m.key)
		}
	}
}

// text blanks the personal values in s: those noted, then the numbers
// that look like account numbers or national ids.
func (rd *redactor) text(s string) string {
	for _, v := range rd.ordered {
		if strings.Contains(s, v) {
			s = replaceWord(s, v, rd.values[v])
		}
	}
	s = ibanText.ReplaceAllStringFunc(s, func(m string) string { rd.note("account", m); return rd.values[m] })
	s = panText.ReplaceAllStringFunc(s, func(m string) string { rd.note("account", m); return rd.values[m] })
	s = nationalID.ReplaceAllStringFunc(s, func(m string) string {
		num := m[len("national id "):]
		rd.note("national id", num)
		return m[:len("national id ")] + rd.values[num]
	})
	return digits11.ReplaceAllStringFunc(s, func(m string) string { rd.note("number", m); return rd.values[m] })
}

// replaceWord replaces v in s where it is not part of a longer word.
func replaceWord(s, v, with string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, v)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(v):])
		b.WriteString(s[:i])
		if wordRune(before) || wordRune(after) {
			b.WriteString(v)
		} else {
			b.WriteString(with)
		}
		s = s[i+len(v):]
	}
}

func wordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// Redacted returns a copy of the report with the names, account numbers
// and national ids of its answers blanked consistently, for sending out
// of the house: in the URLs, the values of the differences, the notes,
// and the answers themselves.
func (rp *Report) Redacted() *Report {
	rd := &redactor{values: map[string]string{}, counts: map[string]int{}}
	for _, x := range rp.Exchanges {
		for _, m := range []*Message{x.Recorded, x.New} {
			if m == nil {
				continue
			}
			if n, ok := parseJSON(m.Body); ok {
				rd.gather(n, "")
			}
		}
	}
	out := *rp
	out.File = rd.text(rp.File)
	out.Exchanges = make([]Result, len(rp.Exchanges))
	for i, x := range rp.Exchanges {
		x.URL, x.Sent, x.Note = rd.text(x.URL), rd.text(x.Sent), rd.text(x.Note)
		x.Notes = redactAll(rd, x.Notes)
		x.Differences = slices.Clone(x.Differences)
		for j, d := range x.Differences {
			d.Path, d.Recorded, d.New, d.Note = rd.text(d.Path), rd.text(d.Recorded), rd.text(d.New), rd.text(d.Note)
			x.Differences[j] = d
		}
		x.Ignored = slices.Clone(x.Ignored)
		for j, d := range x.Ignored {
			d.Path, d.Recorded, d.New = rd.text(d.Path), rd.text(d.Recorded), rd.text(d.New)
			x.Ignored[j] = d
		}
		x.Recorded, x.New = rd.message(x.Recorded), rd.message(x.New)
		out.Exchanges[i] = x
	}
	return &out
}

func redactAll(rd *redactor, list []string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = rd.text(s)
	}
	return out
}

func (rd *redactor) message(m *Message) *Message {
	if m == nil {
		return nil
	}
	out := &Message{Status: m.Status, Body: []byte(rd.text(string(m.Body)))}
	for _, f := range m.Header {
		out.Header = append(out.Header, Field{f.Name, rd.text(f.Value)})
	}
	return out
}
