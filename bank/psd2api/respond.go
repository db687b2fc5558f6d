package psd2api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"sandbank/bank"
)

// link is a Link object: {"href": ..., "verbs": [...]}.
type link struct {
	Href  string   `json:"href"`
	Verbs []string `json:"verbs"`
}

func linkTo(href string, verbs ...string) link { return link{Href: href, Verbs: verbs} }

// writeJSON writes v as the JSON body with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", jsonType)
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the recorder buffers; writing cannot fail
}

// decode reads the request body, already read and verified by the
// middleware, into a value of type T, as the real bank does: fields the
// bank does not use and keys given twice are oddities (client notes and
// WARNING tppMessages), refused in strict mode.
func decode[T any](r *http.Request) (T, error) {
	var v T
	body := stateOf(r).body
	if len(body) == 0 {
		return v, bank.Errorf(bank.CodeBadRequest, "this operation needs a JSON body")
	}
	odd, err := bank.DecodeTolerant(body, &v)
	if err != nil {
		return v, err
	}
	return v, note(r, odd...)
}

// accepted records the oddities a service accepted a change with
// (docs/TPP-GUIDE.md 9) as notes of the request. The change is made, so they are noted
// even if strict mode came on while the request ran.
func accepted(r *http.Request, odd []bank.Message) {
	st := stateOf(r)
	st.notes = append(st.notes, odd...)
}

// number writes a sandbox amount as a JSON number.
func number(d decimal.Decimal) json.Number { return json.Number(d.String()) }

// queryBool reads an optional boolean query parameter.
func queryBool(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	switch strings.ToLower(v) {
	case "":
		return false, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errBadQuery(name, "must be true or false")
}

// queryInt reads an optional non-negative integer query parameter.
func queryInt(r *http.Request, name string) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, errBadQuery(name, "must be a whole number of 0 or more")
	}
	return n, nil
}

// queryDate reads an optional YYYY-MM-DD query parameter.
func queryDate(r *http.Request, name string) (bank.Date, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return bank.Date{}, nil
	}
	d, err := bank.ParseDate(v)
	if err != nil {
		return bank.Date{}, errBadQuery(name, err.Error())
	}
	return d, nil
}

// handlerFunc is a handler that returns an error instead of writing one.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle turns a handlerFunc into an http.Handler that answers errors
// with the error body.
func (s *server) handle(f handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := f(w, r); err != nil {
			s.fail(w, r, err)
		}
	})
}

// withWarnings adds the request's oddities to a JSON object answer as
// WARNING tppMessages (docs/TPP-GUIDE.md 9). An answer that writes tppMessages
// itself, and one that is not an object (an array), is left as it is.
func withWarnings(body *bytes.Buffer, notes []bank.Message) {
	b := bytes.TrimRight(body.Bytes(), " \t\r\n")
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' || hasTopLevelKey(b, "tppMessages") {
		return
	}
	list, err := json.Marshal(notes)
	if err != nil {
		return
	}
	out := append([]byte(nil), b[:len(b)-1]...)
	if len(bytes.TrimSpace(out)) > 1 {
		out = append(out, ',')
	}
	out = append(append(append(out, `"tppMessages":`...), list...), "}\n"...)
	body.Reset()
	body.Write(out)
}

// hasTopLevelKey reports whether a JSON object has key at its top level.
func hasTopLevelKey(object []byte, key string) bool {
	dec := json.NewDecoder(bytes.NewReader(object))
	if _, err := dec.Token(); err != nil {
		return false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if tok == key {
			return true
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return false
		}
	}
	return false
}
