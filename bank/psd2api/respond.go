package psd2api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"sandbank/bank"
	"sandbank/bank/apierr"
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
	body, err := jsonBody(r)
	if err != nil {
		return v, err
	}
	odd, err := bank.DecodeTolerant(body, &v)
	if err != nil {
		return v, err
	}
	return v, note(r, odd...)
}

// jsonBody returns the request body the middleware read and verified,
// refusing an empty one.
func jsonBody(r *http.Request) ([]byte, error) {
	body := stateOf(r).body
	if len(body) == 0 {
		return nil, apierr.Errorf(apierr.CodeBadRequest, "this operation needs a JSON body")
	}
	return body, nil
}

// accepted records the oddities a service accepted a change with
// (docs/TPP-GUIDE.md 9) as notes of the request. The change is made, so they are noted
// even if strict mode came on while the request ran.
func accepted(r *http.Request, odd []apierr.Message) {
	stateOf(r).notes.Add(odd...)
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
func withWarnings(body *bytes.Buffer, notes []apierr.Message) {
	b := bytes.TrimRight(body.Bytes(), " \t\r\n")
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return
	}
	scan := keyScan{key: "tppMessages"}
	if _, _ = scan.Write(b[:len(b)-1]); scan.found {
		return
	}
	add, err := warningsMember(notes, scan.members)
	if err != nil {
		return
	}
	body.Truncate(len(b) - 1)
	body.Write(add)
}

// isKey reports whether the JSON string quoted (with its quotes) is key.
func isKey(quoted []byte, key string) bool {
	raw := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == key
	}
	var s string
	return json.Unmarshal(quoted, &s) == nil && s == key
}
