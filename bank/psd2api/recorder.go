package psd2api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"

	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
	"sandbank/bank/reqlog"
)

// recorder records a response so that it can be signed before it is
// sent: in memory, or, once it passes spillAt bytes, in a temporary file
// (spill), so that an answer of hundreds of MiB (a scenario export of a
// million transactions) never sits in memory. The signature's Digest is
// taken where the body is, and the request log keeps its first
// reqlog.MaxLoggedBody bytes either way.
type recorder struct {
	header http.Header
	status int
	body   *bytes.Buffer
	wrote  bool
	// spill holds the whole body once it passed spillAt bytes, and the
	// body buffer is no longer written; spilled is its size, head its
	// first bytes for the log and err the first failure to write it, which
	// makes the answer the bank's error.
	spill   *spoolFile
	spilled int64
	head    []byte
	err     error
}

// bodies are the buffers responses are recorded in, kept for the next
// response once one is sent: a page of transactions then needs no buffer
// of its own. Nothing keeps a recorded body: the signature takes its
// digest, the request log a copy (capBody) and the connection a copy.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody bounds the buffers kept in bodies.
const maxPooledBody = 2 << 20

// spillAt is the size past which a body is recorded in a temporary file
// rather than in memory. A bytes.Buffer grows to at most twice it, within
// maxPooledBody.
const spillAt = 1 << 20

// release gives the recorder's buffer back to bodies, and drops its
// temporary file, once the response was written.
func (r *recorder) release() {
	r.dropSpill()
	if b := r.body; b != nil && b.Cap() <= maxPooledBody {
		r.body = nil
		b.Reset()
		bodies.Put(b)
	}
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	switch {
	case r.err != nil:
		return 0, r.err
	case r.spill == nil && r.body.Len()+len(b) <= spillAt:
		return r.body.Write(b)
	case r.spill == nil:
		if r.err = r.startSpill(); r.err != nil {
			return 0, r.err
		}
	}
	n, err := r.spill.Write(b)
	r.spilled += int64(n)
	if err != nil {
		r.err = &spoolError{err}
	}
	return n, r.err
}

// startSpill moves the body recorded so far to a temporary file, which
// takes the rest of it.
func (r *recorder) startSpill() error {
	f, err := newSpoolFile("sandbank-answer-*.json")
	if err != nil {
		return err
	}
	r.spill, r.head = f, bytes.Clone(r.body.Bytes()[:min(r.body.Len(), reqlog.MaxLoggedBody)])
	n, err := f.Write(r.body.Bytes())
	r.spilled = int64(n)
	r.body.Reset()
	if err != nil {
		return &spoolError{err}
	}
	return nil
}

// dropSpill closes and removes the temporary file, if any.
func (r *recorder) dropSpill() {
	r.spill.close()
	r.spill, r.spilled, r.head = nil, 0, nil
}

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status = status
		r.wrote = true
	}
}

// reset drops what was recorded, for an error answer instead.
func (r *recorder) reset() {
	r.header = http.Header{}
	r.status = http.StatusOK
	r.body.Reset()
	r.dropSpill()
	r.err = nil
	r.wrote = false
}

// size is the length of the recorded body.
func (r *recorder) size() int64 {
	if r.spill != nil {
		return r.spilled
	}
	return int64(r.body.Len())
}

// dropBody drops the body and keeps the rest: the answer to HEAD.
func (r *recorder) dropBody() {
	r.body.Reset()
	r.dropSpill()
}

// logged returns a copy of what the request log keeps of the body, its
// first reqlog.MaxLoggedBody bytes, and whether that is less than the
// body.
func (r *recorder) logged() ([]byte, bool) {
	if r.spill != nil {
		return bytes.Clone(r.head), true
	}
	return capBody(r.body.Bytes())
}

// digest returns the Digest header value of the body: of a spilled one,
// read from its file.
func (r *recorder) digest() (string, error) {
	if r.spill == nil {
		return httpsig.Digest(r.body.Bytes()), nil
	}
	d, err := httpsig.DigestReader(io.NewSectionReader(r.spill, 0, r.spilled))
	if err != nil {
		return "", &spoolError{err}
	}
	return d, nil
}

// writeTo writes the body to w.
func (r *recorder) writeTo(w io.Writer) error {
	if r.spill == nil {
		_, err := w.Write(r.body.Bytes())
		return err
	}
	_, err := io.Copy(w, io.NewSectionReader(r.spill, 0, r.spilled))
	return err
}

// withWarnings adds the request's oddities to a JSON object answer as
// WARNING tppMessages (docs/TPP-GUIDE.md 9), as withWarnings does to one
// in memory: a spilled body is scanned in its file, and its closing brace
// is replaced there.
func (r *recorder) withWarnings(notes []apierr.Message) error {
	if r.spill == nil {
		withWarnings(r.body, notes)
		return nil
	}
	if len(r.head) == 0 || r.head[0] != '{' {
		return nil
	}
	var tail [64]byte
	at := max(r.spilled-int64(len(tail)), 0)
	n, err := r.spill.ReadAt(tail[:r.spilled-at], at)
	if err != nil {
		return &spoolError{err}
	}
	end := bytes.TrimRight(tail[:n], " \t\r\n")
	if len(end) == 0 || end[len(end)-1] != '}' {
		return nil
	}
	closing := at + int64(len(end)) - 1
	scan := keyScan{key: "tppMessages"}
	if _, err := io.Copy(&scan, io.NewSectionReader(r.spill, 0, closing)); err != nil && !errors.Is(err, errKeyFound) {
		return &spoolError{err}
	}
	if scan.found {
		return nil
	}
	add, err := warningsMember(notes, scan.members)
	if err != nil {
		return nil
	}
	if _, err := r.spill.WriteAt(add, closing); err != nil {
		return &spoolError{err}
	}
	r.spilled = closing + int64(len(add))
	if err := r.spill.Truncate(r.spilled); err != nil {
		return &spoolError{err}
	}
	return nil
}

// warningsMember is what replaces the closing brace of a JSON object
// answer to add notes as its tppMessages member: after a comma when the
// object has members.
func warningsMember(notes []apierr.Message, members bool) ([]byte, error) {
	list, err := json.Marshal(notes)
	if err != nil {
		return nil, err
	}
	var b []byte
	if members {
		b = append(b, ',')
	}
	b = append(b, `"tppMessages":`...)
	b = append(b, list...)
	return append(b, "}\n"...), nil
}

// errKeyFound stops a keyScan fed by io.Copy once it found its key.
var errKeyFound = errors.New("key found")

// keyScan looks for key at the top level of a JSON object, given to it
// in pieces through Write (a body in memory in one piece, a spilled one
// in many): it steps over strings and nested values without decoding
// them, so that a body costs one pass over its bytes. The object's
// opening brace is its first byte.
type keyScan struct {
	key   string
	depth int
	// str is set inside a string, escaped when the last byte was a
	// backslash that escapes the next; isKey when the string is a key of
	// the object, whose bytes name gathers (up to what can spell key).
	str, escaped, isKey bool
	wantKey             bool
	name                []byte
	// found is set once key was found; members once the object has a
	// member.
	found, members bool
}

// Write scans p, the next piece of the object. Once the key is found it
// answers errKeyFound.
func (k *keyScan) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i++ {
		if k.str {
			i = k.inString(p, i)
			if k.found {
				return len(p), errKeyFound
			}
			continue
		}
		switch p[i] {
		case '"':
			k.str, k.isKey, k.name = true, k.depth == 1 && k.wantKey, k.name[:0]
		case '{', '[':
			k.depth++
			k.wantKey = k.depth == 1
		case '}', ']':
			k.depth--
		case ',':
			k.wantKey = k.depth == 1
		}
	}
	return len(p), nil
}

// inString steps over the bytes of a string from p[i] and returns the
// index of the last byte it took: the closing quote, or the end of p.
func (k *keyScan) inString(p []byte, i int) int {
	from := i
	if k.escaped { // the byte the last piece's backslash escapes
		k.escaped = false
		i++
	}
	for {
		n := bytes.IndexByte(p[i:], '"')
		if n < 0 {
			k.escaped = backslashesBefore(p, i, len(p))%2 == 1
			k.gather(p[from:])
			return len(p) - 1
		}
		end := i + n
		if backslashesBefore(p, i, end)%2 == 1 {
			i = end + 1
			continue
		}
		k.gather(p[from:end])
		k.str = false
		if k.isKey {
			k.members, k.wantKey = true, false
			k.found = isKey(append(append([]byte{'"'}, k.name...), '"'), k.key)
		}
		return end
	}
}

// gather adds the bytes of a key to name, up to the most that can spell
// key (six for each of its characters, as \uXXXX); a longer name is not
// key.
func (k *keyScan) gather(b []byte) {
	if k.isKey && len(k.name) <= 6*len(k.key) {
		k.name = append(k.name, b[:min(len(b), 6*len(k.key)+1-len(k.name))]...)
	}
}

// backslashesBefore counts the backslashes right before p[end], from
// p[start] on.
func backslashesBefore(p []byte, start, end int) int {
	n := 0
	for j := end - 1; j >= start && p[j] == '\\'; j-- {
		n++
	}
	return n
}
