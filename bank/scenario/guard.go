package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"unicode/utf8"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

// The bounds of a scenario read as a stream (the import, the scenarios
// folder's list): what the bank holds of a document at once, whatever its
// size. The limits of the text fields are those their checks keep
// (textLimits); the rest bound what no field needs.
const (
	// MaxNote is the most bytes a scenario's note may have, 64
	// KiB. A longer one is refused: by import, by export and in the
	// scenarios folder's list.
	MaxNote = 64 << 10
	// maxText is the most bytes of a string without a limit of its own
	// (an id, a code, a time, a string in a value the bank takes whole):
	// 1 MiB, the largest body any request may have.
	maxText = 1 << 20
	// maxKey is the most bytes of an object's key, but in a value the
	// bank takes whole (maxText).
	maxKey = 64 << 10
	// maxUnknown is the most bytes of the value of a field the bank does
	// not use, which it skips with a warning.
	maxUnknown = 64 << 10
	// maxRecord is the most bytes of one record the stream decodes at
	// once: a customer, an account without its transactions, a
	// transaction, a payment, the settings.
	maxRecord = 24 << 20
	// maxHeldParts is the most bytes of the parts of version 2 (payments,
	// baskets, ..., TPP contacts) of a document in another order than an
	// export's, which the bank holds decoded until the sandbox data are
	// in; in the order of an export they are restored as they are read.
	maxHeldParts = 32 << 20
)

// heldParts is maxHeldParts, which a test makes small (export_test.go).
var heldParts int64 = maxHeldParts

// textLimits are the most characters of each text field of a scenario
// whose check has a limit (bank.CheckText, bank.CheckName), by the struct that
// declares it and its JSON name: the guard refuses a longer one as its
// check would, before it is read whole. TestTextLimits_AreTheChecks holds
// them to the checks.
var textLimits = map[reflect.Type]map[string]int{
	reflect.TypeFor[bank.NewCustomer]():      {"name": 70},
	reflect.TypeFor[bank.NewAccount]():       {"accountName": 70, "product": 70},
	reflect.TypeFor[bank.NewTransaction]():   {"remittanceInformationUnstructured": 140, "creditorId": 35, "creditorName": 70, "ultimateCreditor": 70, "debtorName": 70, "ultimateDebtor": 70, "purposeCode": 4, "endToEndId": 35, "proprietaryBankTransactionCode": 35},
	reflect.TypeFor[bank.NewCardAccount]():   {"cardId": 35, "cardIdVNo": 35, "accountNumber": 34, "name": 70, "product": 70},
	reflect.TypeFor[bank.CardBalanceInput](): {"lastCommittedTransaction": 35},
	reflect.TypeFor[bank.NewCardTransaction](): {"cardTransactionId": 35, "terminalId": 35, "cardAcceptorId": 35, "transactionDetails": 140,
		"proprietaryBankTransactionCode": 35},
	reflect.TypeFor[bank.Address]():       {"street": 70, "buildingNumber": 16, "postalCode": 16, "city": 35},
	reflect.TypeFor[Agreement]():          {"name": 70},
	reflect.TypeFor[bank.Payment]():       {"tppId": 200},
	reflect.TypeFor[bank.StatusChange]():  {"by": 200},
	reflect.TypeFor[bank.Basket]():        {"tppId": 200},
	reflect.TypeFor[bank.Consent]():       {"tppId": 200},
	reflect.TypeFor[bank.Authorisation](): {"tppId": 200, "tppName": 200, "sessionId": 200, "failMessage": 500},
	reflect.TypeFor[bank.Grant]():         {"tppId": 200},
	reflect.TypeFor[bank.Session]():       {"tppId": 200, "sessionId": 200},
	reflect.TypeFor[bank.PSU]():           {"tppId": 200},
	reflect.TypeFor[Use]():                {"tppId": 200},
	reflect.TypeFor[bank.TPPContact]():    {"tppId": 200},
}

// maxSpace is the most white space in a row a scenario may have: a
// decoder holds a run of it whole while it looks for the next token.
const maxSpace = maxRecord

// maxDepth is as deep as the guard follows a document: encoding/json
// refuses one nested deeper (10,000 levels).
const maxDepth = 10_000

// guard passes a scenario document on from r and refuses, as it passes,
// a string longer than its field may be, a number or a run of white space
// longer than any value needs, the value of an unknown field over
// maxUnknown and a record over what hold allows: the bytes past a limit
// are never passed on, so the decoder above never holds them. It follows
// the document byte by byte alongside the Go type it decodes into (as
// walkShape does), with the path of each value for its refusal. A refusal
// is the Read error: a readError holding a *Error at the path,
// FORMAT_ERROR for a text too long (read on to its end without keeping
// it, to say how long it is), BAD_REQUEST for the rest. Text that is not
// JSON the guard can follow is passed on unchecked from there, for the
// decoder to refuse.
type guard struct {
	r   io.Reader
	pos int64 // the offset of the next byte of r
	err error // what Read returns once the bytes before it are passed on
	off bool  // lost the document's structure: pass on unchecked

	// end is the offset no byte at or past is passed on (hold); -1 for
	// none. endPath and endWhat name the record held.
	end     int64
	endPath string
	endWhat string

	stack []frame
	root  slot
	str   stringState
	// run is the kind of the run of bytes outside strings being passed
	// (a number or literal, white space, or none) and where it began.
	run      runKind
	runStart int64
	// unknownDepth is the depth of the object whose member is the value
	// of an unknown field being passed, 0 for none; the value began at
	// unknownStart.
	unknownDepth int
	unknownStart int64
	// draining is set once a string passed its limit: the rest of it is
	// read, counted and dropped.
	draining bool
	scratch  []byte
	fields   map[reflect.Type]*members
	// passing is set while a lane checks what it reads itself: the bytes
	// pass unchecked until resume, from the list at depth passDepth.
	passing   bool
	passDepth int
}

// newGuard returns a guard of the JSON document r holds, which decodes
// into a value of type t.
func newGuard(r io.Reader, t reflect.Type) *guard {
	g := &guard{r: r, end: -1, fields: map[reflect.Type]*members{}}
	g.root = typed(t, 0)
	return g
}

// A mode is how the guard follows a value: by the Go type it decodes
// into, as a value the bank takes whole (a json.Unmarshaler, or a type
// the JSON does not match), or as the value of a field the bank does not
// use.
type mode uint8

const (
	typedValue mode = iota
	wholeValue
	unknownValue
)

// slot is where a value goes: its Go type (pointers removed), its mode
// and the limit of a string there: at most limit characters, or with
// bytes at most limit bytes; 0 for maxText bytes.
type slot struct {
	t     reflect.Type
	mode  mode
	limit int
	bytes bool
}

// member is a struct's field as the guard knows it: where its value goes
// and its JSON name, the one its check's path has.
type member struct {
	slot
	name  string
	known bool
}

// typed returns the slot of a value of type t, with a limit of limit
// characters for a string.
func typed(t reflect.Type, limit int) slot {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if bank.LeafType(t) {
		return slot{t: t, mode: wholeValue}
	}
	return slot{t: t, limit: limit}
}

// frame is an object or array being passed.
type frame struct {
	object bool
	t      reflect.Type
	mode   mode
	// In an object, expectKey is set before a key, key is the current
	// member's name for the path and member where its value goes. In an
	// array, member is where every item goes and index is the current
	// item's.
	expectKey bool
	key       []byte
	member    slot
	index     int
	// fields is the guard's cache of the members of t, a struct, and
	// keys how many keys of the object were read.
	fields *members
	keys   int
}

// members caches the members of a struct by key, and by their place in
// the last objects of it: the records of a list come with their keys in
// the same order, which a comparison finds quicker than a map.
type members struct {
	byKey map[string]member
	order []keyMember
}

// keyMember is a key and its member.
type keyMember struct {
	key string
	m   member
}

// maxOrdered is how many places members keeps.
const maxOrdered = 64

// lookup returns the member key of struct t, the k-th key of its object.
func (ms *members) lookup(t reflect.Type, key []byte, k int) member {
	if k < len(ms.order) && ms.order[k].key == string(key) {
		return ms.order[k].m
	}
	f := field(ms.byKey, t, key)
	if k < maxOrdered {
		for len(ms.order) <= k {
			ms.order = append(ms.order, keyMember{})
		}
		ms.order[k] = keyMember{string(key), f}
	}
	return f
}

// runKind is a kind of run of bytes outside strings.
type runKind uint8

const (
	noRun runKind = iota
	scalarRun
	spaceRun
)

// stringState is the string being passed.
type stringState struct {
	in, key bool
	escape  bool // after a backslash
	hex     int  // the hex digits of a \u still to come
	code    rune
	high    bool // the last character was a \u high surrogate
	slot    slot // where a value goes, for its limit
	chars   int64
	bytes   int64  // as decoded, in UTF-8
	raw     []byte // a key's text as written
	escaped bool   // the key has an escape
	path    string // where a string found too long is
}

// hold lets no byte at or past offset end be passed on until release: the
// record at path (what names it: "record", or "parts" for the parts of
// version 2 together) may not reach it.
func (g *guard) hold(end int64, path, what string) { g.end, g.endPath, g.endWhat = end, path, what }

// release ends a hold.
func (g *guard) release() { g.end = -1 }

func (g *guard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.end >= 0 {
		left := g.end - g.pos
		if left <= 0 {
			g.err = readError{g.heldError()}
			return 0, g.err
		}
		if int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := g.r.Read(p)
	if g.off || g.passing {
		g.pos += int64(n)
		return n, err
	}
	pass := g.scan(p[:n])
	if g.draining && g.err == nil {
		g.drain()
	}
	if g.err != nil {
		if pass > 0 {
			return pass, nil
		}
		return 0, g.err
	}
	return n, err
}

// listDepth is the depth of a list of an account's transactions in the
// guard's frames: the document, its accounts, the account, the list.
const listDepth = 4

// bypass lets the bytes pass unchecked until resume, for a lane that
// keeps the limits of what it takes itself, reading the transactions of
// accounts[account]. It reports whether it does: not once the guard lost
// the structure or refused, nor when the bytes it read ahead took it out
// of that list (into the account's next field or the next account), where
// resume could not find its place again.
func (g *guard) bypass(account int) bool {
	if g.off || g.err != nil || g.draining || len(g.stack) < listDepth {
		return false
	}
	accounts, acct, list := g.stack[1], g.stack[2], g.stack[listDepth-1]
	if accounts.object || accounts.index != account || !acct.object || string(acct.key) != "transactions" || list.object {
		return false
	}
	g.passing, g.passDepth = true, listDepth
	return true
}

// resume checks the bytes again from offset at, where the lane that
// bypassed the guard stopped: after items items of its list, or after the
// list when ended. parts are the bytes the guard passed after at, in
// order, which it checks now; it returns how many of them may go on, as
// Read does (all, unless a limit broke: then Read returns the refusal).
func (g *guard) resume(at int64, items int, ended bool, parts ...[]byte) int {
	g.passing = false
	g.stack = g.stack[:g.passDepth]
	switch {
	case ended:
		g.stack = g.stack[:g.passDepth-1]
	case items > 0:
		g.stack[g.passDepth-1].index = items - 1
	default:
		g.stack[g.passDepth-1].index = 0
	}
	g.run, g.unknownDepth, g.draining = noRun, 0, false
	g.str = stringState{raw: g.str.raw[:0]}
	end := g.pos
	g.pos = at
	pass := 0
	for _, b := range parts {
		n := g.scan(b)
		pass += n
		if n < len(b) || g.err != nil || g.draining {
			break
		}
	}
	switch {
	case g.draining && g.err == nil:
		g.drain()
	case g.err == nil && g.pos != end:
		g.err = readError{fmt.Errorf("the guard of the scenario lost its place: at byte %d, not %d", g.pos, end)}
	}
	return pass
}

// heldError is the refusal of a record that reached its hold.
func (g *guard) heldError() *apierr.Error {
	if g.endWhat == "parts" {
		return apierr.Errorf(apierr.CodeBadRequest, "the parts of version 2 of this scenario (payments, baskets, consents, authorisations, grants, sessions, psus, usage, batchRuns, tppContacts) come in another order than an export writes them and are over %d MiB together, more than the bank holds while it restores them; put them in the order of an export, after the sandbox data, the clock and the settings, or import the sandbox data without them (format %s)", heldParts>>20, FormatV1)
	}
	return apierr.PathError(apierr.CodeBadRequest, g.endPath, fmt.Sprintf("is over %d MiB, more than a %s of a scenario may have; the bank reads one record at a time", maxRecord>>20, g.endWhat))
}

// drain reads the rest of a string found too long, counting and dropping
// it, and sets the refusal once it ends, or the text does.
func (g *guard) drain() {
	if g.scratch == nil {
		g.scratch = make([]byte, 32<<10)
	}
	for g.err == nil {
		n, err := g.r.Read(g.scratch)
		g.scan(g.scratch[:n])
		if err != nil && g.err == nil {
			g.err = readError{g.tooLong()}
		}
	}
}

// refuse sets the refusal err.
func (g *guard) refuse(err *apierr.Error) { g.err = readError{err} }

// scan follows the bytes of b and returns how many of them may be passed
// on: all, unless a limit broke (g.err is set, or g.draining).
func (g *guard) scan(b []byte) int {
	base := g.pos
	g.pos += int64(len(b))
	pass := len(b)
	if g.draining {
		pass = 0
	}
	for i := 0; i < len(b); {
		if g.str.in {
			next, broke := g.scanString(b, i, base)
			if broke >= 0 {
				pass = min(pass, broke)
			}
			if g.err != nil {
				return pass
			}
			i = next
			continue
		}
		c := b[i]
		switch c {
		case ' ', '\t', '\r', '\n':
			g.startRun(spaceRun, base+int64(i))
		case '"', '{', '[', '}', ']', ',', ':':
			g.run = noRun
		default:
			g.startRun(scalarRun, base+int64(i))
		}
		i++
		if !g.withinRuns(base + int64(i)) {
			return min(pass, i-1)
		}
		if !g.token(c) {
			return pass
		}
	}
	return pass
}

// token follows the document's structure through the byte c outside a
// string: a string's start, an object or array opened or closed, the next
// item or the value of a key. It returns false, turning the guard off,
// where the structure breaks (deeper than maxDepth, a close without an
// open): the decoder refuses such a document itself.
func (g *guard) token(c byte) bool {
	switch c {
	case '"':
		g.startString()
	case '{', '[':
		if len(g.stack) >= maxDepth {
			g.off = true
			return false
		}
		g.open(c == '{')
	case '}', ']':
		if len(g.stack) == 0 {
			g.off = true
			return false
		}
		if g.unknownDepth == len(g.stack) {
			g.unknownDepth = 0
		}
		g.stack = g.stack[:len(g.stack)-1]
	case ',':
		if top := g.top(); top != nil && top.object {
			top.expectKey, top.member = true, slot{mode: wholeValue}
			if g.unknownDepth == len(g.stack) {
				g.unknownDepth = 0
			}
		} else if top != nil {
			top.index++
		}
	case ':':
		if top := g.top(); top != nil && top.object {
			top.expectKey = false
		}
	}
	return true
}

// startRun notes a byte of a run of kind at offset at.
func (g *guard) startRun(kind runKind, at int64) {
	if g.run != kind {
		g.run, g.runStart = kind, at
	}
}

// withinRuns reports whether the run of bytes outside strings, and the
// value of an unknown field, keep their limits at offset at; it refuses
// them when they do not.
func (g *guard) withinRuns(at int64) bool {
	switch {
	case g.unknownDepth > 0 && at-g.unknownStart > maxUnknown:
		g.refuse(apierr.PathError(apierr.CodeBadRequest, g.path(g.unknownDepth), bank.UnusedField+"; its value is over 64 KiB, more than the bank reads to ignore it: remove the field"))
	case g.run == scalarRun && at-g.runStart > maxText:
		g.refuse(apierr.PathError(apierr.CodeBadRequest, g.path(len(g.stack)), "holds a number (or a word) over 1 MiB long; no value of a scenario is that long"))
	case g.run == spaceRun && at-g.runStart > maxSpace:
		g.refuse(apierr.PathError(apierr.CodeBadRequest, g.path(len(g.stack)), fmt.Sprintf("is followed by over %d MiB of white space in a row; remove it", maxSpace>>20)))
	default:
		return true
	}
	return false
}

// open begins an object or an array where the current value goes.
func (g *guard) open(object bool) {
	s := g.slot()
	f := frame{object: object, t: s.t, mode: s.mode, expectKey: object}
	if n := len(g.stack); n < cap(g.stack) {
		f.key = g.stack[:n+1][n].key[:0] // the buffer of the last frame this deep
	}
	f.member = slot{mode: wholeValue} // until a key says otherwise
	if object && s.mode == typedValue && s.t != nil && s.t.Kind() == reflect.Struct {
		f.fields = g.fields[s.t]
		if f.fields == nil {
			f.fields = &members{byKey: map[string]member{}}
			g.fields[s.t] = f.fields
		}
	}
	if !object {
		f.member = g.itemSlot(s)
	}
	g.stack = append(g.stack, f)
}

// top is the innermost object or array, nil at the top level.
func (g *guard) top() *frame {
	if len(g.stack) == 0 {
		return nil
	}
	return &g.stack[len(g.stack)-1]
}

// slot is where the value that begins now goes.
func (g *guard) slot() slot {
	top := g.top()
	switch {
	case top == nil:
		return g.root
	case top.object && top.expectKey:
		return slot{mode: wholeValue} // a value where a key belongs: the decoder refuses it
	}
	return top.member
}

// itemSlot is where the items of an array in slot s go.
func (g *guard) itemSlot(s slot) slot {
	switch {
	case s.mode != typedValue:
		return slot{mode: s.mode}
	case s.t.Kind() == reflect.Slice || s.t.Kind() == reflect.Array:
		return typed(s.t.Elem(), 0)
	}
	return slot{mode: wholeValue} // not an array: the decoder refuses it
}

// field returns the member key of struct t, cached in m, the cache of t
// (up to maxCachedKeys keys a type).
func field(m map[string]member, t reflect.Type, key []byte) member {
	if f, ok := m[string(key)]; ok {
		return f
	}
	f := member{slot: slot{mode: unknownValue}}
	if sf, ok := bank.StructField(t, string(key)); ok {
		owner := t
		if len(sf.Index) > 1 {
			owner = t.FieldByIndex(sf.Index[:len(sf.Index)-1]).Type
			for owner.Kind() == reflect.Pointer {
				owner = owner.Elem()
			}
		}
		f.name, f.known = bank.JSONName(sf), true
		if f.name == "" {
			f.name = sf.Name
		}
		f.slot = typed(sf.Type, textLimits[owner][f.name])
		if owner == reflect.TypeFor[Scenario]() && f.name == "note" {
			f.limit, f.bytes = MaxNote, true
		}
	}
	if len(m) < maxCachedKeys {
		m[string(key)] = f
	}
	return f
}

// setMember sets where the value of the member key of the innermost
// object goes, once the key ended at offset at.
func (g *guard) setMember(key []byte, at int64) {
	top := g.top()
	switch {
	case top.mode != typedValue:
		top.member = slot{mode: top.mode}
	case top.t.Kind() == reflect.Struct:
		f := top.fields.lookup(top.t, key, top.keys)
		top.keys++
		top.member = f.slot
		if f.known {
			top.key = append(top.key[:0], f.name...) // the path names the field as its check does
			return
		}
		if g.unknownDepth == 0 {
			g.unknownDepth, g.unknownStart = len(g.stack), at
		}
	case top.t.Kind() == reflect.Map:
		top.member = typed(top.t.Elem(), 0)
	default:
		top.member = slot{mode: wholeValue} // not an object: the decoder refuses it
	}
	top.key = append(top.key[:0], key[:min(len(key), maxPathKey)]...)
}

// maxPathKey is the most of a key the guard keeps for a path: a refusal
// names it, and a document nested 10,000 deep may have a long key at each
// level.
const maxPathKey = 256

// path is the path of the current member or item of the depth outermost
// frames: depth 1 is within the top-level value.
func (g *guard) path(depth int) string {
	path := ""
	for _, f := range g.stack[:depth] {
		if f.object {
			path = apierr.JoinPath(path, string(f.key))
		} else {
			path += fmt.Sprintf("[%d]", f.index)
		}
	}
	return path
}

// startString begins a string: a key, or a value with the limit of where
// it goes.
func (g *guard) startString() {
	top := g.top()
	key := top != nil && top.object && top.expectKey
	g.str = stringState{in: true, key: key, raw: g.str.raw[:0]}
	if !key {
		g.str.slot = g.slot()
	}
}

// scanString follows the string being passed from b[i] to its end or
// b's, and returns where it stopped; broke is the index where it broke a
// limit, or -1.
func (g *guard) scanString(b []byte, i int, base int64) (next, broke int) {
	s := &g.str
	broke = -1
	for i < len(b) {
		at := i
		switch {
		case s.hex > 0:
			s.code = s.code<<4 | rune(unhex(b[i]))
			if s.hex--; s.hex == 0 {
				g.decoded(s.code)
			}
			i++
		case s.escape:
			s.escape = false
			if b[i] == 'u' {
				s.hex, s.code = 4, 0
			} else {
				s.chars, s.bytes, s.high = s.chars+1, s.bytes+1, false
			}
			i++
		case b[i] == '\\':
			s.escape, s.escaped = true, true
			i++
		case b[i] == '"':
			g.endString(base + int64(i) + 1)
			return i + 1, broke
		default:
			run := b[i:]
			if q := bytes.IndexByte(run, '"'); q >= 0 {
				run = run[:q]
			}
			if e := bytes.IndexByte(run, '\\'); e >= 0 {
				run = run[:e]
			}
			s.bytes += int64(len(run))
			if s.slot.limit > 0 && !s.slot.bytes {
				s.chars += runeStarts(run)
			}
			s.high = false
			i += len(run)
		}
		if s.key && len(s.raw) <= maxKey {
			s.raw = append(s.raw, b[at:i]...)
		}
		if !g.draining && !g.withinString(base+int64(i)) && broke < 0 {
			broke = at
			if g.err != nil {
				return i, broke
			}
		}
	}
	return i, broke
}

// decoded counts a \u escape as encoding/json decodes it: a surrogate
// pair is one character of four bytes, a lone surrogate one of three
// (U+FFFD).
func (g *guard) decoded(r rune) {
	s := &g.str
	switch {
	case r >= 0xDC00 && r < 0xE000 && s.high:
		s.bytes, s.high = s.bytes+1, false // the pair's fourth byte
	case r >= 0xD800 && r < 0xDC00:
		s.chars, s.bytes, s.high = s.chars+1, s.bytes+3, true
	case r >= 0xDC00 && r < 0xE000:
		s.chars, s.bytes, s.high = s.chars+1, s.bytes+3, false
	default:
		s.chars, s.bytes, s.high = s.chars+1, s.bytes+int64(utf8.RuneLen(r)), false
	}
}

// runeStarts counts the bytes of b that begin a character: its
// characters, where a read may have cut one.
func runeStarts(b []byte) int64 {
	n := int64(len(b))
	for _, c := range b {
		if c&0xC0 == 0x80 {
			n--
		}
	}
	return n
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}

// withinString reports whether the string being passed keeps its limit,
// and the value of an unknown field its own, at offset at. A value over
// its limit is drained for its length; the rest are refused at once.
func (g *guard) withinString(at int64) bool {
	s := &g.str
	top := g.top()
	switch {
	case g.unknownDepth > 0 && at-g.unknownStart > maxUnknown:
		g.refuse(apierr.PathError(apierr.CodeBadRequest, g.path(g.unknownDepth), bank.UnusedField+"; its value is over 64 KiB, more than the bank reads to ignore it: remove the field"))
	case s.key && top.mode != wholeValue && s.bytes > maxKey:
		g.refuse(apierr.PathError(apierr.CodeBadRequest, g.path(len(g.stack)-1), "holds a key over 64 KiB long; no field has such a name: remove it"))
	case s.key && s.bytes > maxText:
		g.refuse(apierr.PathError(apierr.CodeBadRequest, g.path(len(g.stack)-1), "holds a key over 1 MiB long; no value of a scenario is that long"))
	case s.key || s.slot.mode == unknownValue:
		return true
	case s.slot.limit > 0 && !s.slot.bytes && s.chars > int64(s.slot.limit),
		s.slot.limit > 0 && s.slot.bytes && s.bytes > int64(s.slot.limit),
		s.slot.limit == 0 && s.bytes > maxText:
		g.draining, s.path = true, g.path(len(g.stack))
	default:
		return true
	}
	return false
}

// endString ends the string being passed at offset at: a key sets where
// its value goes; a string drained sets its refusal.
func (g *guard) endString(at int64) {
	s := &g.str
	s.in = false
	switch {
	case g.draining:
		g.refuse(g.tooLong())
	case s.key:
		key := s.raw
		if s.escaped {
			var k string
			if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &k) == nil {
				key = []byte(k)
			}
		}
		g.setMember(key, at)
	}
}

// tooLong is the refusal of the string drained: its path, its limit and
// how long it is.
func (g *guard) tooLong() *apierr.Error {
	s := &g.str
	switch {
	case s.slot.limit > 0 && !s.slot.bytes:
		return apierr.PathError(apierr.CodeFormatError, s.path, fmt.Sprintf("must be at most %d characters, not %d", s.slot.limit, s.chars))
	case s.slot.limit > 0:
		return tooManyBytes(s.path, s.slot.limit, s.bytes)
	}
	return apierr.PathError(apierr.CodeFormatError, s.path, fmt.Sprintf("must be at most %d bytes (1 MiB), not %d; no value of a scenario is that long", maxText, s.bytes))
}

// tooManyBytes is the refusal of a text at path of n bytes, over its
// limit of limit bytes (a note's).
func tooManyBytes(path string, limit int, n int64) *apierr.Error {
	return apierr.PathError(apierr.CodeFormatError, path, fmt.Sprintf("must be at most %d bytes (%d KiB), not %d; keep a longer text in a file beside the scenario", limit, limit>>10, n))
}
