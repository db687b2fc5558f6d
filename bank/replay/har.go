package replay

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"sandbank/bank/reqlog"
)

// The HAR reader. It reads HAR 1.2 (and 1.3) as the tools that write it
// do: Sandbank's own export (the Traffic screen's Export HAR…, GET
// /v1/sandbox/requests.har), the browsers' developer tools (Chrome's
// _initiator, _resourceType, HTTP/2 pseudo-headers, bodies in base64 with
// content.encoding), Insomnia and Postman (a form body as postData.params
// without text, every entry with the export's time) and proxies. What a
// tool adds beyond HAR (fields that start with _) is left alone, but for
// Sandbank's _sandbank.bodiesCut.

// maxHAR is the largest HAR file read: a request log of 2,000 requests
// with bodies of 64 KiB each, and room to spare.
const maxHAR = 512 << 20

// Field is one header of a recorded message, as the HAR lists it.
type Field struct {
	Name, Value string
}

// Entry is one recorded exchange: the request as it was sent and the
// answer as it came.
type Entry struct {
	// Index is the entry's place in the HAR, from 1: entry 1 is
	// log.entries[0].
	Index int
	// Started is when the request was sent; zero when the HAR does not
	// say (or says it in a form that cannot be read).
	Started time.Time
	Method  string
	URL     *url.URL
	// Header lists the request's headers in the HAR's order, without
	// HTTP/2's pseudo-headers (:authority, :method, :path, :scheme).
	Header []Field
	Body   []byte
	// BodyCut is set when the recording holds the start of the bodies
	// only (Sandbank's _sandbank.bodiesCut).
	BodyCut bool
	// Status is the answer's status; 0 when the HAR holds no answer.
	Status         int
	ResponseHeader []Field
	ResponseBody   []byte
	// noResponseBody is set when the answer had a body the HAR does not
	// hold (content.size above 0, no content.text).
	noResponseBody bool
}

// responseBodyKnown reports whether the HAR holds the answer's whole body.
func (e *Entry) responseBodyKnown() bool {
	return !e.noResponseBody && !(e.BodyCut && len(e.ResponseBody) >= reqlog.MaxLoggedBody)
}

// Get returns the first value of a header of the request, in any case.
func (e *Entry) Get(name string) string { return get(e.Header, name) }

// ResponseGet returns the first value of a header of the answer.
func (e *Entry) ResponseGet(name string) string { return get(e.ResponseHeader, name) }

func get(fields []Field, name string) string {
	for _, f := range fields {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Label names the entry in messages: its number, where it is in the
// file and its request line.
func (e *Entry) Label() string {
	target := "(no URL)"
	if e.URL != nil {
		target = e.URL.String()
	}
	return fmt.Sprintf("entry %d (log.entries[%d], %s %s)", e.Index, e.Index-1, e.Method, target)
}

// Recording is a HAR file read.
type Recording struct {
	// Creator is the tool that wrote the file, with its version.
	Creator string
	Entries []*Entry
}

// InputError is a HAR that cannot be replayed: not a HAR, or an entry
// that cannot be sent again. Entry is nil when the whole file is at
// fault.
type InputError struct {
	Entry *Entry
	Text  string
}

// Error names the entry at fault and what to do.
func (e *InputError) Error() string {
	if e.Entry == nil {
		return e.Text
	}
	return e.Entry.Label() + ": " + e.Text
}

func entryError(e *Entry, format string, args ...any) error {
	return &InputError{Entry: e, Text: fmt.Sprintf(format, args...)}
}

// The JSON of a HAR file, as much of it as the replay reads.
type harFile struct {
	Log *struct {
		Version *string `json:"version"`
		Creator struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"creator"`
		Entries *[]json.RawMessage `json:"entries"`
	} `json:"log"`
}

type harEntry struct {
	StartedDateTime string       `json:"startedDateTime"`
	Request         *harRequest  `json:"request"`
	Response        *harResponse `json:"response"`
	Sandbank        *struct {
		BodiesCut bool `json:"bodiesCut"`
	} `json:"_sandbank"`
}

type harRequest struct {
	Method   string    `json:"method"`
	URL      string    `json:"url"`
	Headers  []harPair `json:"headers"`
	PostData *harBody  `json:"postData"`
}

type harResponse struct {
	Status      int       `json:"status"`
	Headers     []harPair `json:"headers"`
	Content     *harBody  `json:"content"`
	RedirectURL string    `json:"redirectURL"`
}

// harBody is a request's postData or a response's content.
type harBody struct {
	MimeType string     `json:"mimeType"`
	Size     int64      `json:"size"`
	Text     *string    `json:"text"`
	Params   []harParam `json:"params"`
	// Encoding is content.encoding (HAR 1.2), or postData.encoding (HAR
	// 1.3); Sandbank's export writes postData._encoding.
	Encoding       string `json:"encoding"`
	CustomEncoding string `json:"_encoding"`
}

type harParam struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	FileName string `json:"fileName"`
}

type harPair struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ReadHAR reads a HAR file. Every entry must have an absolute URL and,
// for the replay to compare it, an answer; an entry that lacks one is
// refused when the replay plans, where it knows whether the entry is the
// bank's (see Plan).
func ReadHAR(r io.Reader) (*Recording, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxHAR+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxHAR {
		return nil, &InputError{Text: fmt.Sprintf("the file is larger than %d MiB; export fewer requests (a filter on the Traffic screen, or sandbankd log --har with --tpp or --filter)", maxHAR>>20)}
	}
	var f harFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, &InputError{Text: "not a HAR file: " + jsonProblem(data, err) + ". A HAR is the JSON file a browser's developer tools (Network, Export HAR), Insomnia, Postman, a proxy or Sandbank (Traffic, Export HAR…; sandbankd log --har) write"}
	}
	switch {
	case f.Log == nil:
		return nil, &InputError{Text: "not a HAR file: it has no log object. A HAR is the JSON file a browser's developer tools (Network, Export HAR), Insomnia, Postman, a proxy or Sandbank (Traffic, Export HAR…; sandbankd log --har) write"}
	case f.Log.Version == nil:
		return nil, &InputError{Text: "not a HAR file: log.version is missing; a HAR 1.2 file says \"version\": \"1.2\""}
	case *f.Log.Version != "1.2" && *f.Log.Version != "1.3":
		return nil, &InputError{Text: fmt.Sprintf("a HAR %s file: the replay reads HAR 1.2 and 1.3, whose content.encoding tells a body in base64 from one in text; export the HAR again from a current tool (browsers, Insomnia, Postman and Sandbank write 1.2)", *f.Log.Version)}
	case f.Log.Entries == nil:
		return nil, &InputError{Text: "not a HAR file: log.entries is missing"}
	}
	rec := &Recording{Creator: strings.TrimSpace(f.Log.Creator.Name + " " + f.Log.Creator.Version)}
	for i, raw := range *f.Log.Entries {
		e, err := readEntry(i+1, raw)
		if err != nil {
			return nil, err
		}
		rec.Entries = append(rec.Entries, e)
	}
	return rec, nil
}

// jsonProblem says where JSON data fails to parse: the line and column.
func jsonProblem(data []byte, err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var offset int64
	switch {
	case errors.As(err, &syntax):
		offset = syntax.Offset
	case errors.As(err, &typ):
		return fmt.Sprintf("%s is a JSON %s, not what HAR has there", typ.Field, typ.Value)
	default:
		return err.Error()
	}
	before := data[:min(max(int(offset)-1, 0), len(data))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("%v at line %d, column %d", err, line, col)
}

// readEntry reads one entry of log.entries.
func readEntry(index int, raw json.RawMessage) (*Entry, error) {
	e := &Entry{Index: index}
	var h harEntry
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, entryError(e, "not a HAR entry: %s", jsonProblem(raw, err))
	}
	if h.Request == nil {
		return nil, entryError(e, "has no request object")
	}
	e.Method = strings.ToUpper(strings.TrimSpace(h.Request.Method))
	u, err := url.Parse(h.Request.URL)
	if err != nil || !u.IsAbs() || u.Host == "" {
		e.URL = u
		return nil, entryError(e, "request.url %q is not an absolute URL (scheme, host and path), as HAR requires", h.Request.URL)
	}
	e.URL = u
	if e.Method == "" {
		return nil, entryError(e, "request.method is empty")
	}
	if t, err := time.Parse(time.RFC3339Nano, h.StartedDateTime); err == nil {
		e.Started = t
	}
	for _, p := range h.Request.Headers {
		if !strings.HasPrefix(p.Name, ":") {
			e.Header = append(e.Header, Field(p))
		}
	}
	if h.Sandbank != nil {
		e.BodyCut = h.Sandbank.BodiesCut
	}
	if pd := h.Request.PostData; pd != nil {
		body, err := pd.bytes()
		if err != nil {
			return nil, entryError(e, "request.postData: %v", err)
		}
		e.Body = body
	}
	if resp := h.Response; resp != nil && resp.Status > 0 {
		e.Status = resp.Status
		e.ResponseHeader = make([]Field, 0, len(resp.Headers))
		for _, p := range resp.Headers {
			if !strings.HasPrefix(p.Name, ":") {
				e.ResponseHeader = append(e.ResponseHeader, Field(p))
			}
		}
		if resp.RedirectURL != "" && get(e.ResponseHeader, "Location") == "" {
			e.ResponseHeader = append(e.ResponseHeader, Field{"Location", resp.RedirectURL})
		}
		if c := resp.Content; c != nil {
			body, err := c.bytes()
			if err != nil {
				return nil, entryError(e, "response.content: %v", err)
			}
			e.ResponseBody = body
			e.noResponseBody = c.Text == nil && c.Size > 0
		}
	}
	return e, nil
}

// bytes returns a body as it went over the wire, decoded: text as it is,
// or base64 when the encoding says so; a form sent as params only
// (Insomnia, Postman) is encoded as the form it was; a body in base64 that
// holds the gzip or deflate bytes of the wire (some proxies keep them) is
// inflated.
func (b *harBody) bytes() ([]byte, error) {
	if b.Text == nil {
		if len(b.Params) == 0 {
			return nil, nil
		}
		form := url.Values{}
		for _, p := range b.Params {
			if p.FileName != "" {
				return nil, fmt.Errorf("the form sends the file %q as %s, which the HAR does not hold", p.FileName, p.Name)
			}
			form.Add(p.Name, p.Value)
		}
		return []byte(form.Encode()), nil
	}
	enc := b.Encoding
	if enc == "" {
		enc = b.CustomEncoding
	}
	if !strings.EqualFold(enc, "base64") {
		return []byte(*b.Text), nil
	}
	data, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(*b.Text), ""))
	if err != nil {
		return nil, fmt.Errorf("encoding is base64, but the text is not base64: %v", err)
	}
	return inflate(data)
}

// inflate undoes the gzip or zlib wrapping of a body when it has one.
func inflate(data []byte) ([]byte, error) {
	var r io.Reader
	switch {
	case len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b:
		z, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("the body is gzip, which does not read: %v", err)
		}
		r = z
	case len(data) > 2 && data[0] == 0x78 && (uint16(data[0])<<8|uint16(data[1]))%31 == 0 && !utf8.Valid(data):
		r = flate.NewReader(bytes.NewReader(data[2:]))
	default:
		return data, nil
	}
	out, err := io.ReadAll(io.LimitReader(r, maxHAR))
	if err != nil {
		return nil, fmt.Errorf("the compressed body does not inflate: %v", err)
	}
	return out, nil
}
