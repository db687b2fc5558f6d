package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

// File is the summary of a scenario file in the desktop app's
// scenarios folder, or why it cannot be loaded.
type File struct {
	Name     string // the file name, e.g. corporate-two-approvers.json
	Path     string
	Modified time.Time
	Size     int64
	Note     string
	Format   string
	Counts   Counts
	// History is set when the file asks for generated history; those
	// transactions are counted only when Count is given.
	History bool
	// Settings is set when the file holds the bank's settings; Clock is
	// the sandbox time it sets, zero when it leaves the clock alone.
	Settings bool
	Clock    time.Time
	// Err says why the file cannot be loaded; nothing is loaded from it.
	Err error
}

// Summary describes the file in one line.
func (f File) Summary() string {
	if f.Err != nil {
		return "cannot be loaded: " + f.Err.Error()
	}
	c := f.Counts
	s := strings.Join([]string{
		count(c.Customers, "customer"), count(c.Accounts, "account"), count(c.CardAccounts, "card account"),
		count(c.Agreements, "agreement"), count(c.Transactions+c.CardTransactions, "transaction"),
	}, ", ")
	if f.History {
		s += " plus generated history"
	}
	var more []string
	for _, n := range []struct {
		n    int
		noun string
	}{{c.Payments, "payment"}, {c.Baskets, "basket"}, {c.Consents, "consent"}, {c.Grants, "grant"}} {
		if n.n > 0 {
			more = append(more, count(n.n, n.noun))
		}
	}
	if f.Settings {
		more = append(more, "settings")
	}
	if !f.Clock.IsZero() {
		more = append(more, "clock at "+f.Clock.In(bank.Oslo).Format("2006-01-02 15:04"))
	}
	if len(more) > 0 {
		s += "; " + strings.Join(more, ", ")
	}
	return s
}

// Replaces says what loading the file replaces besides the sandbox data,
// for the question asked before it is loaded.
func (f File) Replaces() string {
	switch {
	case f.Settings && !f.Clock.IsZero():
		return "The file's settings replace the current ones and the sandbox clock is set to " + f.Clock.In(bank.Oslo).Format("2006-01-02 15:04:05") + ". Certificates stay."
	case f.Settings:
		return "The file's settings replace the current ones; the clock and certificates stay."
	case !f.Clock.IsZero():
		return "The sandbox clock is set to " + f.Clock.In(bank.Oslo).Format("2006-01-02 15:04:05") + ". Settings and certificates stay."
	}
	return "Settings, the clock, certificates and TPP contacts stay."
}

// count writes n and a noun, plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Summarise reads a scenario file's format, note and counts as a
// stream, holding no more than a token, or a value it decodes (format,
// note, clock, history) or an item of a list it counts, of at most one
// record's 24 MiB, at a time, so that a large file in the scenarios
// folder costs time to list but not memory: a string longer than its
// field may be (a note over MaxNote) is refused as the import refuses
// it, without being read whole (guard). A file that is not a Sandbank
// scenario, or that import would refuse so, is an error saying why.
func Summarise(r io.Reader) (File, error) {
	var f File
	g := newGuard(r, reflect.TypeFor[Scenario]())
	dec := json.NewDecoder(g)
	// decode decodes a value of at most maxRecord bytes, as import
	// decodes a record.
	decode := func(v any, path string) error {
		g.hold(dec.InputOffset()+maxRecord, path, "record")
		defer g.release()
		return dec.Decode(v)
	}
	// item reads the item at path whole, as import reads a record, in
	// one pass of the decoder rather than a token at a time.
	item := func(path string, i int) error { return decode(&anyValue{}, path+"["+strconv.Itoa(i)+"]") }
	format := ""
	err := eachField(dec, func(key string) error {
		switch key {
		case "format":
			return decode(&format, key)
		case "settings":
			f.Settings = true
			return skip(dec)
		case "clock":
			var c bank.ScenarioClock
			if err := decode(&c, key); err != nil {
				return err
			}
			f.Clock = c.Now
			return nil
		case "payments", "baskets", "consents", "grants", "authorisations":
			n := map[string]*int{"payments": &f.Counts.Payments, "baskets": &f.Counts.Baskets, "consents": &f.Counts.Consents,
				"grants": &f.Counts.Grants, "authorisations": &f.Counts.Authorisations}[key]
			return eachItem(dec, func() error { *n++; return item(key, *n-1) })
		case "note":
			return decode(&f.Note, key)
		case "customers":
			return eachItem(dec, func() error { f.Counts.Customers++; return item(key, f.Counts.Customers-1) })
		case "agreements":
			return eachItem(dec, func() error {
				f.Counts.Agreements++
				agreement := key + "[" + strconv.Itoa(f.Counts.Agreements-1) + "]"
				return eachField(dec, func(key string) error {
					if key == "engagements" {
						i := 0
						return eachItem(dec, func() error { f.Counts.Engagements++; i++; return item(agreement+"."+key, i-1) })
					}
					return skip(dec)
				})
			})
		case "accounts", "cardAccounts":
			records, txs := &f.Counts.Accounts, &f.Counts.Transactions
			if key == "cardAccounts" {
				records, txs = &f.Counts.CardAccounts, &f.Counts.CardTransactions
			}
			return eachItem(dec, func() error {
				*records++
				account := key + "[" + strconv.Itoa(*records-1) + "]"
				return eachField(dec, func(key string) error {
					switch key {
					case "transactions":
						i := 0
						return eachItem(dec, func() error { *txs++; i++; return item(account+"."+key, i-1) })
					case "history":
						var h struct {
							Count int `json:"count"`
						}
						if err := decode(&h, "history"); err != nil {
							return err
						}
						*txs += h.Count
						f.History = f.History || h.Count == 0
					default:
						return skip(dec)
					}
					return nil
				})
			})
		}
		return skip(dec)
	})
	if e, ok := guardError(err); ok {
		return f, errors.New(e.Message)
	} else if err != nil {
		return f, fmt.Errorf("the file is not a scenario: %w", err)
	}
	f.Format = format
	if err := CheckFormat(format); err != nil {
		e, _ := apierr.AsError(err)
		return f, errors.New(e.Message)
	}
	return f, nil
}

// eachField calls fn with each key of the JSON object dec is at; fn reads
// the key's value.
func eachField(dec *json.Decoder, fn func(key string) error) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if err := fn(key); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// eachItem calls fn for each item of the JSON array dec is at; fn reads
// the item. null is an empty array.
func eachItem(dec *json.Decoder, fn func() error) error {
	tok, err := dec.Token()
	if err != nil || tok == nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("an array was expected, not %v", tok)
	}
	for dec.More() {
		if err := fn(); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

// anyValue is any JSON value, read whole and not kept.
type anyValue struct{}

// UnmarshalJSON takes any value.
func (*anyValue) UnmarshalJSON([]byte) error { return nil }

// skip reads one JSON value a token at a time, without keeping it.
func skip(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("%q was expected, not %v", want, tok)
	}
	return nil
}
