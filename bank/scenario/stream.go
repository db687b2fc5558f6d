package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

// Import replaces all sandbox data with the scenario document
// r holds, and a version-2 scenario also restores the bank's other
// records, its settings and its clock (see restore). When any record
// breaks a rule, nothing changes and the error names the record by its
// path, e.g. accounts[2].iban. It reads r as a stream: one customer,
// account header, transaction or other record at a time, each decoded as
// DecodeTolerant decodes a request, so that memory does not grow with the
// file. The records are written in chunks into new data that replace the
// old ones only when every record passed (Store.Rebuild): a refusal, a
// read error or a crash halfway leaves the data as they were.
//
// The JSON's oddities (fields the bank does not use, keys given twice,
// with their paths) are warnings in Counts, the first MaxWarnings and a
// line for the rest (Warnings); in strict mode (the bank's strict setting)
// the first one refuses the import.
//
// What the bank holds at once is bounded whatever the document (see
// guard): a string longer than its field may be, the value of an unknown
// field over 64 KiB and a record over maxRecord (24 MiB) are refused as
// they are read, at their paths. The parts of version 2 are restored
// record by record as they are read when they come, as an export writes
// them, after the sandbox data, the clock and the settings and in the
// order their references need; in another order they are held until the
// document is read, and may have maxHeldParts (32 MiB) together.
//
// A document read best in one pass has format as its first key and an
// account's (or card account's) fields before its transactions, as export
// writes it. Another order is taken too, by reading the document whole,
// which costs the memory of the whole scenario: up to maxWholeScenario.
func Import(s *bank.Sandbox, r io.ReadSeeker) (Counts, error) {
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return Counts{}, fmt.Errorf("read the scenario: %w", err)
	}
	src := &streamSource{r: r, strict: s.Strict(), p: bank.NewImportProgress(0, max(size, 1))}
	n, err := load(s, "import scenario", src, false)
	if err == nil && src.notes.Len() > 0 {
		var all apierr.Warnings
		all.Add(src.notes.List()...)
		all.Add(n.Warnings...)
		n.Warnings = all.List()
	}
	return n, err
}

// streamSource reads a scenario document from r as a stream.
type streamSource struct {
	r io.ReadSeeker
	// strict refuses the first oddity; otherwise they are notes.
	strict bool
	notes  apierr.Warnings
	p      *bank.ImportProgress
	guard  *guard
	dec    *json.Decoder
	l      *loader
	rest   Scenario
	shape  shapeWalker
	hist   *history
	// src is what the decoder reads from, base the document's offset of
	// its first byte, and lane the lane reading in its place, if any
	// (quickList).
	src  io.Reader
	base int64
	lane *lane
	utf8 *utf8Reader
	// held is how many bytes of the parts of version 2 may still come.
	held int64
	// seen holds the top-level fields read so far; live is the index in
	// partSteps of the last part restored as it was read (-1: none), and
	// holding is set once a part is held instead (restoreAsRead).
	seen    map[string]bool
	live    int
	holding bool
	// syntax is the stream's JSON syntax error, if any.
	syntax *json.SyntaxError
}

func (s *streamSource) progress() *bank.ImportProgress { return s.p }

// maxWholeScenario is the largest document whole reads: a document of
// another key order than the stream takes is held in memory, with what
// it decodes into, so that a larger one would take more memory than an
// import may (docs/SECURITY.md, "Large imports").
const maxWholeScenario = 16 << 20

// whole reads the document at once, as DecodeTolerant does, through a
// guard of its own. A document over maxWholeScenario is refused instead,
// saying what to change.
func (s *streamSource) whole() (Scenario, error) {
	var sc Scenario
	if s.p.Size() > maxWholeScenario {
		if s.syntax != nil {
			return sc, apierr.Errorf(apierr.CodeBadRequest, "the JSON document is not valid at byte %d: %s; check the file with a JSON tool, e.g. jq . FILE", s.syntax.Offset, s.syntax.Error())
		}
		return sc, apierr.Errorf(apierr.CodeBadRequest, "this scenario of %d MiB has its keys in an order the bank reads only whole, which it does up to %d MiB: put format first and each account's fields before its transactions, as an export writes them", s.p.Size()>>20, maxWholeScenario>>20)
	}
	if _, err := s.r.Seek(0, io.SeekStart); err != nil {
		return sc, fmt.Errorf("read the scenario: %w", err)
	}
	data, err := readAll(make([]byte, 0, s.p.Size()+1), newGuard(s.r, reflect.TypeFor[Scenario]()))
	if e, ok := guardError(err); ok {
		return sc, e
	} else if err != nil {
		return sc, fmt.Errorf("read the scenario: %w", err)
	}
	odd, err := bank.DecodeTolerant(data, &sc)
	if err != nil {
		return sc, err
	}
	s.notes = apierr.Warnings{}
	return sc, s.noted(odd)
}

// readAll appends what r holds to b, as io.ReadAll does.
func readAll(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, nil
		} else if err != nil {
			return b, err
		}
	}
}

// guardError returns the refusal of a guard in an error of reading
// through it.
func guardError(err error) (*apierr.Error, bool) {
	var read readError
	if errors.As(err, &read) {
		return apierr.AsError(read.err)
	}
	return nil, false
}

// noted takes the oddities of a record: the first refuses the import in
// strict mode; otherwise they are notes.
func (s *streamSource) noted(odd []apierr.Message) error {
	if len(odd) == 0 {
		return nil
	}
	if s.strict {
		return apierr.Refusal(odd[:1])
	}
	s.notes.Add(odd...)
	return nil
}

func (s *streamSource) feed(l *loader) (Scenario, error) {
	if _, err := s.r.Seek(0, io.SeekStart); err != nil {
		return Scenario{}, fmt.Errorf("read the scenario: %w", err)
	}
	s.p.ReadAgain()
	s.l, s.rest, s.notes, s.held = l, Scenario{}, apierr.Warnings{}, heldParts
	s.seen, s.live, s.holding = map[string]bool{}, -1, false
	s.guard = newGuard(&countingReader{r: s.r, p: s.p}, reflect.TypeFor[Scenario]())
	s.utf8 = &utf8Reader{r: s.guard}
	s.hist = &history{r: s.utf8}
	s.src, s.base, s.lane = s.hist, 0, nil
	s.dec = json.NewDecoder(s.src)
	s.dec.UseNumber()
	s.hist.offset = s.offset
	if err := s.document(); err != nil {
		return s.rest, s.fail(err)
	}
	return s.rest, nil
}

// offset is the document's offset of the next byte to decode.
func (s *streamSource) offset() int64 {
	if s.lane != nil {
		return s.lane.offset()
	}
	return s.base + s.dec.InputOffset()
}

// decode decodes the next value into v, holding the guard at the most
// bytes max it may have; path and what name it in a refusal.
func (s *streamSource) decode(v any, max int64, path, what string) error {
	s.guard.hold(s.offset()+max, path, what)
	defer s.guard.release()
	return s.dec.Decode(v)
}

// document reads the top-level object, key by key.
func (s *streamSource) document() error {
	tok, err := s.dec.Token()
	if errors.Is(err, io.EOF) {
		return apierr.Errorf(apierr.CodeBadRequest, "the body is empty; send a JSON document")
	} else if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return errReadWhole
	}
	seen := s.seen
	for first := true; s.dec.More(); first = false {
		key, err := s.key()
		if err != nil {
			return err
		}
		name := scenarioField(key)
		if seen[name] || (first && name != "format") {
			return errReadWhole // a key given twice, or records before the format
		}
		seen[name] = name != ""
		if err := s.part(key, name); err != nil {
			return err
		}
	}
	if !seen["format"] {
		return errReadWhole
	}
	if _, err := s.dec.Token(); err != nil {
		return err
	}
	if _, err := s.dec.Token(); !errors.Is(err, io.EOF) {
		var syntax *json.SyntaxError
		if err == nil || errors.As(err, &syntax) {
			return apierr.Errorf(apierr.CodeBadRequest, "the body holds more than one JSON value; send exactly one")
		}
		return err
	}
	return nil
}

// scenarioField returns the JSON name of the field of Scenario a
// top-level key decodes into, "" for none.
func scenarioField(key string) string {
	f, _ := bank.StructField(reflect.TypeFor[Scenario](), key)
	return bank.JSONName(f)
}

// part reads the value of the top-level key, whose field is name ("" for
// none).
func (s *streamSource) part(key, name string) error {
	l := s.l
	switch name {
	case "format":
		if err := s.record(name, &s.rest.Format); err != nil {
			return err
		}
		return l.begin(s.rest.Format, nil)
	case "clock":
		if err := s.record(name, &s.rest.Clock); err != nil {
			return err
		}
		return l.setClock(s.rest.Clock)
	case "customers":
		return s.items(name, func(i int, path string) error {
			var c Customer
			if err := s.record(path, &c); err != nil {
				return err
			}
			return l.customer(i, c)
		})
	case "accounts":
		return s.items(name, s.account)
	case "cardAccounts":
		return s.items(name, s.cardAccount)
	case "agreements":
		return s.items(name, func(i int, path string) error {
			var a Agreement
			if err := s.record(path, &a); err != nil {
				return err
			}
			return l.agreement(i, a)
		})
	case "":
		return s.unknown(key)
	}
	// The note, the clock, the settings and the parts of version 2, which
	// the loader restores after the sandbox data: as they are read, in the
	// order of an export (restoreAsRead); otherwise held, within
	// maxHeldParts together, and restored once the document is read.
	f, _ := bank.StructField(reflect.TypeFor[Scenario](), name)
	field := reflect.ValueOf(&s.rest).Elem().FieldByIndex(f.Index)
	if field.Kind() != reflect.Slice {
		return s.record(name, field.Addr().Interface())
	}
	if step, ok, err := s.restoreAsRead(name); err != nil {
		return err
	} else if ok {
		return s.items(name, func(i int, path string) error {
			item := reflect.New(field.Type().Elem())
			if err := s.record(path, item.Interface()); err != nil {
				return err
			}
			return step.item(i, item.Interface(), &l.n)
		})
	}
	s.holding = true
	return s.items(name, func(_ int, path string) error {
		start := s.offset()
		item := reflect.New(field.Type().Elem())
		if err := s.value(path, item.Interface(), min(maxRecord, s.held), "parts"); err != nil {
			return err
		}
		s.held -= s.offset() - start
		field.Set(reflect.Append(field, item.Elem()))
		return nil
	})
}

// restoreAsRead returns the restore of the part of version 2 name, and
// true, when its items may be restored as they are read: those of a
// version-2 document in the order of an export, whose sandbox data, clock
// and settings came before its parts, and whose parts come in the order
// their references need, none held. A part that comes out of that order
// after one was restored as read makes the document one to read whole.
func (s *streamSource) restoreAsRead(name string) (partStep, bool, error) {
	steps := s.l.partSteps()
	k := slices.IndexFunc(steps, func(p partStep) bool { return p.name == name })
	if s.live >= 0 && k <= s.live {
		return partStep{}, false, errReadWhole
	}
	for _, before := range []string{"customers", "accounts", "cardAccounts", "agreements", "clock", "settings"} {
		if !s.seen[before] {
			return partStep{}, false, nil
		}
	}
	if !s.l.restored || s.holding {
		return partStep{}, false, nil
	}
	if err := s.l.restoreState(s.rest.Clock, s.rest.Settings); err != nil {
		return partStep{}, false, err
	}
	s.live = k
	return steps[k], true, nil
}

// account reads accounts[i]: its fields, then its transactions one by
// one, loaded in chunks (listLoader).
func (s *streamSource) account(i int, path string) error {
	var acct scenarioAccount
	list := &listLoader[Transaction]{load: func(first int, batch []Transaction) error {
		return s.l.transactions(acct, first, batch)
	}}
	defer list.stop()
	return s.holder(path, reflect.TypeFor[Account](), func(header []byte) error {
		var a Account
		if err := s.decodeRecord(path, header, &a); err != nil {
			return err
		}
		var err error
		acct, err = s.l.account(i, a)
		return err
	}, func(path string) error {
		return s.transactions(i, path, list.add)
	}, list.end)
}

// lanes is set but in a test that compares an import with and without
// them (export_test.go).
var lanes = true

// transactions reads the list of transactions of accounts[account] at path,
// handing each to add: those the lane takes (quickList) straight from the
// bytes, the others through the decoder (transaction).
func (s *streamSource) transactions(account int, path string, add func(Transaction) error) error {
	if open, err := s.openList(); !open {
		return err
	}
	// After a lane that took none, the decoder takes twice as many items
	// as the last time before the next lane: a list the lane cannot take
	// costs few of them. The guard is left to the lane (bypass) at first,
	// and after a lane
	// that took many: a list with many items the lane leaves to the
	// decoder would have the guard check the bytes the lane read ahead
	// at each of them.
	for i, run, took := 0, 1, 0; ; {
		from := i
		var end bool
		var err error
		if lanes {
			if i, end, err = s.quickList(account, i, from == 0 || took >= 100, add); err != nil || end {
				return err
			}
		}
		if took = i - from; took > 0 {
			run = 1
		} else {
			run = min(2*run, 1024)
		}
		for range run {
			if !s.dec.More() {
				_, err := s.dec.Token()
				return err
			}
			var t Transaction
			if err := s.transaction(fmt.Sprintf("%s[%d]", path, i), &t); err != nil {
				return err
			}
			if err := add(t); err != nil {
				return err
			}
			i++
		}
	}
}

// transaction decodes the next value, a transaction, into t as record
// does: by hand when it has the shape an export writes (quickTransaction),
// else as record does with the value's bytes.
func (s *streamSource) transaction(path string, t *Transaction) error {
	q := quickTransaction{t: t}
	if err := s.decode(&q, maxRecord, path, "record"); err != nil {
		return err
	}
	if q.ok {
		return nil
	}
	return s.decodeRecord(path, q.raw, t)
}

// cardAccount reads cardAccounts[i] as account reads an account.
func (s *streamSource) cardAccount(i int, path string) error {
	var card scenarioCard
	list := &listLoader[bank.NewCardTransaction]{load: func(first int, batch []bank.NewCardTransaction) error {
		return s.l.cardTransactions(card, first, batch)
	}}
	defer list.stop()
	return s.holder(path, reflect.TypeFor[CardAccount](), func(header []byte) error {
		var c CardAccount
		if err := s.decodeRecord(path, header, &c); err != nil {
			return err
		}
		var err error
		card, err = s.l.cardAccount(i, c)
		return err
	}, func(path string) error {
		return s.items(path, func(_ int, path string) error {
			var t bank.NewCardTransaction
			if err := s.record(path, &t); err != nil {
				return err
			}
			return list.add(t)
		})
	}, list.end)
}

// listLoader loads a list of transactions in chunks of chunkRecords, in a
// goroutine of its own: the next chunk is decoded while this one is
// checked and written, so that an import uses two cores. Until end (or
// stop) returned, only that goroutine uses the loader.
type listLoader[T any] struct {
	load   func(first int, batch []T) error
	batch  []T
	work   chan []T
	done   chan error
	failed chan struct{}
	err    error
	// free holds the chunks loaded, for the next ones.
	free chan []T
}

// add adds an item, handing a full chunk over; it fails once loading
// failed, with loading's error.
func (q *listLoader[T]) add(t T) error {
	if q.batch == nil {
		select {
		case q.batch = <-q.free:
		default:
			q.batch = make([]T, 0, chunkRecords)
		}
	}
	if q.batch = append(q.batch, t); len(q.batch) < chunkRecords {
		return nil
	}
	return q.send()
}

func (q *listLoader[T]) send() error {
	if q.work == nil {
		q.work, q.done, q.failed, q.free = make(chan []T, 1), make(chan error, 1), make(chan struct{}), make(chan []T, 2)
		go q.run()
	}
	select {
	case q.work <- q.batch:
		q.batch = nil
		return nil
	case <-q.failed:
		return q.stop()
	}
}

func (q *listLoader[T]) run() {
	first := 0
	var err error
	for batch := range q.work {
		if err == nil {
			if err = q.load(first, batch); err != nil {
				close(q.failed)
			}
		}
		first += len(batch)
		select {
		case q.free <- batch[:0]:
		default:
		}
	}
	q.done <- err
}

// end hands the last chunk over and waits until the list is loaded.
func (q *listLoader[T]) end() error {
	if len(q.batch) > 0 {
		if err := q.send(); err != nil {
			return err
		}
	}
	return q.stop()
}

// stop waits for the chunks handed over and returns loading's error; it
// may be called again.
func (q *listLoader[T]) stop() error {
	if q.work != nil {
		close(q.work)
		q.err, q.work = <-q.done, nil
	}
	return q.err
}

// holder reads an object of type t with a list of transactions: its other
// fields are gathered and handed to open as one JSON object, before the
// first transaction; then list reads the list at its path, and flush
// ends it. A field of t after the list (or the list given twice) cannot
// be taken in one pass: errReadWhole.
func (s *streamSource) holder(path string, t reflect.Type, open func(header []byte) error, list func(path string) error, flush func() error) error {
	tok, err := s.dec.Token()
	switch {
	case err != nil:
		return err
	case tok == nil:
		return open([]byte("null"))
	case tok != json.Delim('{'):
		return errReadWhole
	}
	header := []byte{'{'}
	opened := false
	for s.dec.More() {
		key, err := s.key()
		if err != nil {
			return err
		}
		_, known := bank.FieldOf(t, key)
		switch {
		case opened && known:
			return errReadWhole
		case opened:
			err = s.unknown(apierr.JoinPath(path, key))
		case strings.EqualFold(key, "transactions"):
			if err := open(append(header, '}')); err != nil {
				return err
			}
			opened = true
			if err := list(apierr.JoinPath(path, "transactions")); err != nil {
				return err
			}
			err = flush()
		default:
			header, err = s.appendField(header, key, path)
		}
		if err != nil {
			return err
		}
	}
	if _, err := s.dec.Token(); err != nil {
		return err
	}
	if !opened {
		return open(append(header, '}'))
	}
	return nil
}

// appendField reads the value of key and adds both to the JSON object
// being gathered in header, the fields of the record at path, which may
// have maxRecord bytes together.
func (s *streamSource) appendField(header []byte, key, path string) ([]byte, error) {
	var raw json.RawMessage
	if err := s.decode(&raw, maxRecord-int64(len(header)), path, "record"); err != nil {
		return header, err
	}
	name, err := json.Marshal(key)
	if err != nil {
		return header, err
	}
	if len(header) > 1 {
		header = append(header, ',')
	}
	header = append(append(append(header, name...), ':'), raw...)
	return header, nil
}

// items calls fn with each item of the array the decoder is at and its
// path; null is an empty array.
func (s *streamSource) items(path string, fn func(i int, path string) error) error {
	if open, err := s.openList(); !open {
		return err
	}
	for i := 0; s.dec.More(); i++ {
		if err := fn(i, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	_, err := s.dec.Token()
	return err
}

// openList reads the start of an array and reports whether one began:
// not for null, which is an empty array, nor on an error; what is not an
// array is errReadWhole.
func (s *streamSource) openList() (bool, error) {
	tok, err := s.dec.Token()
	switch {
	case err != nil:
		return false, err
	case tok == nil:
		return false, nil
	case tok != json.Delim('['):
		return false, errReadWhole
	}
	return true, nil
}

// key reads an object key.
func (s *streamSource) key() (string, error) {
	tok, err := s.dec.Token()
	if err != nil {
		return "", err
	}
	key, _ := tok.(string)
	return key, nil
}

// record decodes the next value, a record of at most maxRecord bytes,
// into v at path, as DecodeTolerant does but quicker: straight from the
// stream, once, with its oddities found by a walk of its bytes
// (shapeWalker, on the bytes history kept) rather than of its tokens. A
// value that fails to decode goes the way of decodeRecord, for the same
// errors.
func (s *streamSource) record(path string, v any) error {
	return s.value(path, v, maxRecord, "record")
}

// value is record for a value of at most max bytes, which what names in
// the refusal of a longer one (guard.hold).
func (s *streamSource) value(path string, v any, max int64, what string) error {
	start := s.offset()
	err := s.decode(v, max, path, what)
	if err != nil && streamError(err) {
		return err
	}
	raw := bytes.TrimLeft(s.hist.span(start, s.offset()), ", \t\r\n")
	if err != nil {
		return s.decodeRecord(path, raw, v)
	}
	return s.noted(s.shape.quickShape(raw, reflect.TypeOf(v), path))
}

// streamError reports whether a Decode failed reading the stream (and
// read nothing), rather than decoding a value it read.
func streamError(err error) bool {
	var syntax *json.SyntaxError
	var read readError
	return errors.As(err, &syntax) || errors.As(err, &read) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// decodeRecord decodes raw, one valid JSON value, into v as DecodeTolerant
// does, with path in front of the paths of its error and oddities; the
// oddities are found by quickShape, and a value that does not decode is
// described as DecodeTolerant describes it. (The types of a scenario hold
// no interface, where json.Decoder's UseNumber would matter, and the text
// is UTF-8: utf8Reader saw to it.)
func (s *streamSource) decodeRecord(path string, raw []byte, v any) error {
	err := json.Unmarshal(raw, v)
	if err == nil {
		return s.noted(s.shape.quickShape(raw, reflect.TypeOf(v), path))
	}
	e := bank.DescribeJSONError(raw, err, v)
	m := e.Messages[0]
	return apierr.PathError(e.Code, apierr.JoinPath(path, m.Path), m.Text)
}

// unknown skips the value of a key the bank does not use, of at most
// maxUnknown bytes (guard), and notes it.
func (s *streamSource) unknown(path string) error {
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		return err
	}
	return s.noted([]apierr.Message{apierr.Oddity(apierr.CodeBadRequest, path, bank.UnusedField)})
}

// fail turns an error of reading the stream into what DecodeTolerant
// answers for the same document (a syntax error is described by reading
// the document whole); the loader's own errors stay as they are.
func (s *streamSource) fail(err error) error {
	var syntax *json.SyntaxError
	var read readError
	switch {
	case errors.As(err, &read):
		if e, ok := apierr.AsError(read.err); ok {
			return e // the text is not UTF-8
		}
		return fmt.Errorf("read the scenario: %w", read.err)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return apierr.Errorf(apierr.CodeBadRequest, "the JSON document ends too early; check for a missing bracket or quote")
	case errors.As(err, &syntax):
		copied := *syntax
		copied.Offset = s.syntaxOffset(syntax)
		s.syntax = &copied
		return errReadWhole // for the error DecodeTolerant gives, with its line and column
	}
	return err
}

// syntaxOffset returns the document's offset of the decoder's syntax
// error e, as encoding/json's Unmarshal counts it: the bytes up to the
// wrong one and it. An error of a delimiter counts from the decoder's
// input, without the wrong byte; one in a value counts only the bytes the
// decoder scanned in values, so the value, which begins at the decoder's
// offset, is scanned again for it.
func (s *streamSource) syntaxOffset(e *json.SyntaxError) int64 {
	at := s.offset()
	if e.Offset == s.dec.InputOffset() {
		return s.base + e.Offset + 1
	}
	raw := s.hist.span(at, s.hist.base+int64(len(s.hist.buf)))
	value := bytes.TrimLeft(raw, ", \t\r\n")
	var skip json.RawMessage
	var inner *json.SyntaxError
	if errors.As(json.Unmarshal(value, &skip), &inner) {
		return at + int64(len(raw)-len(value)) + inner.Offset
	}
	return at
}

// countingReader counts the bytes read, for the import's progress, and
// marks read errors as such.
type countingReader struct {
	r io.Reader
	p *bank.ImportProgress
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.p.ReadBytes(int64(n))
	if err != nil && !errors.Is(err, io.EOF) {
		err = readError{err}
	}
	return n, err
}

// readError is a failure of the reader a scenario is read from.
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }
func (e readError) Unwrap() error { return e.err }

// history keeps the bytes the decoder read from the offset it reached
// (offset, its InputOffset), so that a value decoded straight from the
// stream can be walked by its bytes too: the decoder reads on from the
// start of the value it decodes, so the bytes before are not needed.
type history struct {
	r      io.Reader
	offset func() int64
	buf    []byte
	base   int64 // the offset of buf[0]
	// err is what r returned once it failed or ended, returned again on:
	// a lane may read on where a decoder stopped (quickList).
	err error
}

func (h *history) Read(p []byte) (int, error) {
	if h.err != nil {
		return 0, h.err
	}
	h.forget(h.offset())
	n, err := h.r.Read(p)
	h.buf = append(h.buf, p[:n]...)
	h.err = err
	return n, err
}

// span returns the bytes from offset start to end; of those before the
// decoder's offset at its last read, which are what came before the
// value (a comma, white space), only those kept.
func (h *history) span(start, end int64) []byte {
	return h.buf[max(start, h.base)-h.base : end-h.base]
}

// forget lets the bytes before offset at go, once there are enough of
// them to be worth a copy.
func (h *history) forget(at int64) {
	if k := at - h.base; k > 64<<10 {
		h.buf = append(h.buf[:0], h.buf[k:]...)
		h.base = at
	}
}

// utf8Reader passes text on while it is UTF-8 and fails with a
// BAD_REQUEST when it is not. A character cut by the end of a read is
// held back for the next.
type utf8Reader struct {
	r    io.Reader
	held []byte
}

func (u *utf8Reader) Read(p []byte) (int, error) {
	if len(p) < utf8.UTFMax {
		return 0, io.ErrShortBuffer
	}
	n := copy(p, u.held)
	m, err := u.r.Read(p[n:])
	n += m
	cut := 0
	if err == nil {
		cut = cutRune(p[:n])
	}
	if !utf8.Valid(p[:n-cut]) {
		return 0, readError{apierr.Errorf(apierr.CodeBadRequest, "the body is not valid UTF-8; send JSON in UTF-8")}
	}
	u.held = append(u.held[:0], p[n-cut:n]...)
	return n - cut, err
}

// cutRune returns how many bytes at the end of b begin a character that
// does not end in b.
func cutRune(b []byte) int {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if c := b[len(b)-i]; utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-i:]) {
				return 0
			}
			return i
		}
	}
	return 0
}
