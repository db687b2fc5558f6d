package scenario

import (
	"encoding/json"
	"io"
	"reflect"
	"slices"
	"unicode/utf8"

	"sandbank/bank"
)

// quickTransaction decodes a transaction of a scenario by hand when it has
// the shape an export writes: an object of known keys, each once and in
// its exact spelling, whose values are strings and numbers (and the two
// account objects). That is nearly every transaction of a large file, and
// decoding it so costs a fraction of what encoding/json and the walk for
// oddities cost. Anything else (null, arrays, escapes in a key, a key of
// another spelling or none) is left to the general path, which decodes it
// as DecodeTolerant does and notes its oddities: raw keeps its bytes for
// that. What the quick path decodes, encoding/json decodes to the same
// value with no oddity (FuzzQuickTransaction).
type quickTransaction struct {
	t   *Transaction
	ok  bool
	raw []byte
}

// UnmarshalJSON takes one JSON value, whole, as encoding/json hands it to
// an Unmarshaler.
func (q *quickTransaction) UnmarshalJSON(b []byte) error {
	if q.ok = decodeTransaction(b, q.t); !q.ok {
		*q.t = Transaction{}
		q.raw = append(q.raw[:0], b...)
	}
	return nil
}

// The fields of a transaction, as bits of the set of those seen.
const (
	fID = 1 << iota
	fAmount
	fCurrency
	fValueDate
	fBookingDate
	fRemittance
	fCreditorID
	fCreditorName
	fCreditorAccount
	fUltimateCreditor
	fDebtorName
	fDebtorAccount
	fUltimateDebtor
	fPurposeCode
	fBankTransactionCode
	fEndToEndID
	fCreditorAgent
	fDebtorAgent
	fProprietaryCode
	fBookingStatus
	fLines
	fReferences
	fExchanges
)

// quickDecoder reads a transaction from the start of data. Its texts are
// noted as spans and cut at the end from one string of the transaction's
// bytes, so that its strings cost one copy. short is set when data ended
// before the value did.
type quickDecoder struct {
	data  []byte
	i     int
	short bool
	spans []span
}

// span is a text of the value being decoded, data[start:end], for into.
type span struct {
	into       *string
	start, end int
}

// decodeTransaction decodes data, one JSON value, into t (which is zero)
// and reports whether it could: false leaves t in any state.
func decodeTransaction(data []byte, t *Transaction) bool {
	d := quickDecoder{spans: make([]span, 0, 24)}
	return d.transaction(data, t) && d.end()
}

// transaction decodes the transaction at the start of data into t (which
// is zero) and reports whether it could; false leaves t in any state.
func (d *quickDecoder) transaction(data []byte, t *Transaction) bool {
	d.data, d.i, d.short, d.spans = data, 0, false, d.spans[:0]
	d.space()
	start := d.i
	// The optional texts of a transaction, in one allocation.
	texts := new([7]string)
	refs := new([2]bank.AccountRef)
	seen := 0
	// once notes a field read and reports whether it is the first time.
	once := func(bit int) bool {
		first := seen&bit == 0
		seen |= bit
		return first
	}
	ok := d.object(func(key []byte) bool {
		var bit int
		var into *string
		switch string(key) {
		case "id":
			bit, into = fID, &t.ID
		case "amount":
			if !once(fAmount) {
				return false
			}
			return d.amount(t)
		case "currency":
			bit, into = fCurrency, &t.Currency
		case "valueDate":
			bit, into = fValueDate, &t.ValueDate
		case "bookingDate":
			bit, into = fBookingDate, &t.BookingDate
		case "remittanceInformationUnstructured":
			bit, into = fRemittance, &texts[0]
			t.RemittanceInformationUnstructured = into
		case "creditorId":
			bit, into = fCreditorID, &texts[1]
			t.CreditorID = into
		case "creditorName":
			bit, into = fCreditorName, &texts[2]
			t.CreditorName = into
		case "ultimateCreditor":
			bit, into = fUltimateCreditor, &texts[3]
			t.UltimateCreditor = into
		case "debtorName":
			bit, into = fDebtorName, &texts[4]
			t.DebtorName = into
		case "ultimateDebtor":
			bit, into = fUltimateDebtor, &texts[5]
			t.UltimateDebtor = into
		case "purposeCode":
			bit, into = fPurposeCode, &texts[6]
			t.PurposeCode = into
		case "bankTransactionCode":
			bit, into = fBankTransactionCode, &t.BankTransactionCode
		case "endToEndId":
			bit, into = fEndToEndID, &t.EndToEndID
		case "creditorAgent":
			bit, into = fCreditorAgent, &t.CreditorAgent
		case "debtorAgent":
			bit, into = fDebtorAgent, &t.DebtorAgent
		case "proprietaryBankTransactionCode":
			bit, into = fProprietaryCode, &t.ProprietaryBankTransactionCode
		case "bookingStatus":
			bit, into = fBookingStatus, &t.BookingStatus
		case "remittanceInformationUnstructuredArray":
			if !once(fLines) {
				return false
			}
			t.RemittanceInformationUnstructuredArray = []string{}
			return d.array(func() bool {
				line, ok := d.textNow()
				t.RemittanceInformationUnstructuredArray = append(t.RemittanceInformationUnstructuredArray, line)
				return ok
			})
		case "remittanceInformationStructuredArray":
			if !once(fReferences) {
				return false
			}
			return textObjects(d, &t.RemittanceInformationStructuredArray, func(r *bank.StructuredRemittance, key []byte) *string {
				switch string(key) {
				case "reference":
					return &r.Reference
				case "referenceType":
					return &r.ReferenceType
				case "referenceIssuer":
					return &r.ReferenceIssuer
				}
				return nil
			})
		case "currencyExchange":
			if !once(fExchanges) {
				return false
			}
			return textObjects(d, &t.CurrencyExchange, func(x *bank.NewExchangeRate, key []byte) *string {
				switch string(key) {
				case "sourceCurrency":
					return &x.SourceCurrency
				case "exchangeRate":
					return &x.ExchangeRate
				case "unitCurrency":
					return &x.UnitCurrency
				case "targetCurrency":
					return &x.TargetCurrency
				case "quotationDate":
					return &x.QuotationDate
				case "contractIdentification":
					return &x.ContractIdentification
				}
				return nil
			})
		case "creditorAccount":
			if !once(fCreditorAccount) {
				return false
			}
			t.CreditorAccount = &refs[0]
			return d.accountRef(t.CreditorAccount)
		case "debtorAccount":
			if !once(fDebtorAccount) {
				return false
			}
			t.DebtorAccount = &refs[1]
			return d.accountRef(t.DebtorAccount)
		default:
			return false
		}
		return once(bit) && d.str(into)
	})
	if !ok {
		return false
	}
	text := string(d.data[start:d.i])
	for _, sp := range d.spans {
		*sp.into = text[sp.start-start : sp.end-start]
	}
	return withinLimits(t)
}

// limitedText is a text of a transaction with a limit of its own.
type limitedText struct {
	name  string
	limit int
	text  func(t *Transaction) *string
}

// limitedTexts are the texts of a transaction with a limit of their own,
// the guard's (textLimits), by their JSON names.
var limitedTexts = func() []limitedText {
	limits := textLimits[reflect.TypeFor[bank.NewTransaction]()]
	list := []limitedText{
		{name: "remittanceInformationUnstructured", text: func(t *Transaction) *string { return t.RemittanceInformationUnstructured }},
		{name: "creditorId", text: func(t *Transaction) *string { return t.CreditorID }},
		{name: "creditorName", text: func(t *Transaction) *string { return t.CreditorName }},
		{name: "ultimateCreditor", text: func(t *Transaction) *string { return t.UltimateCreditor }},
		{name: "debtorName", text: func(t *Transaction) *string { return t.DebtorName }},
		{name: "ultimateDebtor", text: func(t *Transaction) *string { return t.UltimateDebtor }},
		{name: "purposeCode", text: func(t *Transaction) *string { return t.PurposeCode }},
		{name: "endToEndId", text: func(t *Transaction) *string { return &t.EndToEndID }},
		{name: "proprietaryBankTransactionCode", text: func(t *Transaction) *string { return &t.ProprietaryBankTransactionCode }},
	}
	for i := range list {
		list[i].limit = limits[list[i].name]
	}
	return list
}()

// withinLimits reports whether t's texts keep the limits the guard keeps
// (textLimits): a lane that bypasses the guard leaves a longer one to the
// decoder, for the guard's refusal.
func withinLimits(t *Transaction) bool {
	for _, f := range limitedTexts {
		if s := f.text(t); s != nil && len(*s) > f.limit && utf8.RuneCountInString(*s) > f.limit {
			return false
		}
	}
	return true
}

// accountRef decodes an object of iban and bban into r.
func (d *quickDecoder) accountRef(r *bank.AccountRef) bool {
	seen := 0
	return d.object(func(key []byte) bool {
		var bit int
		var into *string
		switch string(key) {
		case "iban":
			bit, into = 1, &r.IBAN
		case "bban":
			bit, into = 2, &r.BBAN
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return d.str(into)
	})
}

// array reads an array, calling item for each item with the decoder at
// it; item reads it.
func (d *quickDecoder) array(item func() bool) bool {
	d.space()
	if !d.next('[') {
		return false
	}
	d.space()
	if d.next(']') {
		return true
	}
	for {
		if !item() {
			return false
		}
		d.space()
		switch {
		case d.next(','):
		case d.next(']'):
			return true
		default:
			return false
		}
	}
}

// textObjects reads an array of objects of text fields into *out (an
// empty array as one): field names the field of an object that key is,
// nil for none (texts).
func textObjects[T any](d *quickDecoder, out *[]T, field func(v *T, key []byte) *string) bool {
	*out = []T{}
	return d.array(func() bool {
		var v T
		ok := d.texts(func(key []byte) *string { return field(&v, key) })
		*out = append(*out, v)
		return ok
	})
}

// texts reads an object of strings, each into where field says (nil for
// a key of no field), each key once. Its strings are copied at once: the
// items of a list are few.
func (d *quickDecoder) texts(field func(key []byte) *string) bool {
	var seen []*string
	return d.object(func(key []byte) bool {
		into := field(key)
		if into == nil || slices.Contains(seen, into) {
			return false
		}
		seen = append(seen, into)
		var ok bool
		*into, ok = d.textNow()
		return ok
	})
}

// textNow reads a string without escapes and returns it.
func (d *quickDecoder) textNow() (string, bool) {
	d.space()
	start, ok := d.text()
	if !ok {
		return "", false
	}
	return string(d.data[start : d.i-1]), true
}

// amount decodes a number, or a string, into t.Amount as Number's
// UnmarshalJSON does, which encoding/json hands the value's bytes to.
func (d *quickDecoder) amount(t *Transaction) bool {
	d.space()
	start := d.i
	if d.i < len(d.data) && d.data[d.i] == '"' {
		if _, ok := d.text(); !ok {
			return false
		}
	} else if !d.number() {
		return false
	}
	t.Amount = new(bank.Number)
	return t.Amount.UnmarshalJSON(d.data[start:d.i]) == nil
}

// object reads an object, calling field for each key with the decoder at
// its value; field reads the value. Keys with escapes are not taken.
func (d *quickDecoder) object(field func(key []byte) bool) bool {
	d.space()
	if !d.next('{') {
		return false
	}
	d.space()
	if d.next('}') {
		return true
	}
	for {
		d.space()
		start, ok := d.text()
		if !ok {
			return false
		}
		key := d.data[start : d.i-1]
		d.space()
		if !d.next(':') || !field(key) {
			return false
		}
		d.space()
		switch {
		case d.next(','):
		case d.next('}'):
			return true
		default:
			return false
		}
	}
}

// str reads a string without escapes, to be cut into s at the end.
func (d *quickDecoder) str(s *string) bool {
	d.space()
	start, ok := d.text()
	if ok {
		d.spans = append(d.spans, span{into: s, start: start, end: d.i - 1})
	}
	return ok
}

// text reads a string without escapes and returns where its text starts;
// it ends before d.i's closing quote.
func (d *quickDecoder) text() (int, bool) {
	if !d.next('"') {
		return 0, false
	}
	start := d.i
	for d.i < len(d.data) {
		switch c := d.data[d.i]; {
		case c == '"':
			d.i++
			return start, true
		case c == '\\' || c < 0x20:
			return 0, false
		}
		d.i++
	}
	d.short = true
	return 0, false
}

// number reads a JSON number.
func (d *quickDecoder) number() bool {
	d.next('-')
	switch {
	case d.next('0'):
	case d.digits() == 0:
		return false
	}
	if d.next('.') && d.digits() == 0 {
		return false
	}
	if d.next('e') || d.next('E') {
		if !d.next('+') {
			d.next('-')
		}
		if d.digits() == 0 {
			return false
		}
	}
	if d.i == len(d.data) {
		d.short = true // the number may go on
		return false
	}
	return true
}

// digits reads digits and returns how many.
func (d *quickDecoder) digits() int {
	start := d.i
	for d.i < len(d.data) && d.data[d.i] >= '0' && d.data[d.i] <= '9' {
		d.i++
	}
	return d.i - start
}

// next reads c if it comes next.
func (d *quickDecoder) next(c byte) bool {
	if d.i == len(d.data) {
		d.short = true
		return false
	}
	if d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *quickDecoder) space() { d.i = skipSpace(d.data, d.i) }

// skipSpace returns where the first byte of data from i on that is not
// JSON white space is, or len(data).
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// end reports whether nothing but white space is left.
func (d *quickDecoder) end() bool {
	d.space()
	return d.i == len(d.data)
}

// maxQuick is the most bytes a transaction may have to be taken by the
// lane; a longer one goes to the decoder, with its hold (maxRecord).
const maxQuick = 64 << 10

// lane reads the transactions of an account straight from the document's
// bytes while they have the shape an export writes, by hand, in place of
// the JSON decoder, which would scan each one twice more (once for its
// end, once to hand it to quickTransaction). It stops at the end of the
// list, at a transaction the quick path does not take, and at an error of
// reading; the decoder goes on from there (leave).
type lane struct {
	src io.Reader
	buf []byte
	pos int   // the next byte to take, in buf
	at  int64 // the document's offset of buf[0]
	err error // what src returned last, once it failed or ended
	d   quickDecoder
	t   Transaction // the one being decoded, where d's texts go
}

// minFill is the least room a lane reads into: the readers below want
// room for a whole character at least (utf8Reader).
const minFill = 4 << 10

// offset is the document's offset of the next byte to take.
func (l *lane) offset() int64 { return l.at + int64(l.pos) }

// fill reads more of the document and reports whether it did.
func (l *lane) fill() bool {
	if l.err != nil {
		return false
	}
	if l.pos > 0 && l.pos >= len(l.buf)/2 {
		n := copy(l.buf, l.buf[l.pos:])
		l.buf, l.at, l.pos = l.buf[:n], l.at+int64(l.pos), 0
	}
	if cap(l.buf)-len(l.buf) < minFill {
		l.buf = slices.Grow(l.buf, max(32<<10, len(l.buf)))
	}
	n, err := l.src.Read(l.buf[len(l.buf):cap(l.buf)])
	l.buf = l.buf[:len(l.buf)+n]
	if err != nil {
		l.err = err
	}
	return n > 0 || err == nil
}

// peek returns the next byte but white space, reading on for it; it
// takes no run of white space over maxQuick, which is left with the rest
// to the decoder and the guard (maxSpace).
func (l *lane) peek() (byte, bool) {
	for {
		limit := min(len(l.buf), l.pos+maxQuick+1)
		if i := skipSpace(l.buf[:limit], l.pos); i < limit {
			l.pos = i
			return l.buf[i], true
		}
		if limit-l.pos > maxQuick || !l.fill() {
			return 0, false
		}
	}
}

// transaction takes the transaction skip bytes on (past a comma) into
// l.t when the quick path can, reading on for its end up to maxQuick
// bytes; otherwise it takes nothing.
func (l *lane) transaction(skip int) bool {
	for {
		l.t = Transaction{}
		if l.d.transaction(l.buf[l.pos+skip:], &l.t) {
			l.pos += skip + l.d.i
			return true
		}
		if !l.d.short || len(l.buf)-l.pos > maxQuick || !l.fill() {
			return false
		}
	}
}

// laneDepth is the nesting a lane runs at, as JSON the decoder that goes
// on after it reads first: the document, its accounts and an account,
// whose transactions the lane reads (holder). inList ends it in the list
// before its first item, afterItem after one, afterList after the list.
// (An item is null there, which no byte the document may have next
// continues.)
const (
	laneDepth = `{"accounts":[{"transactions":`
	inList    = laneDepth + `[`
	afterItem = inList + `null`
	afterList = laneDepth + `null`
)

// quickList reads the transactions of accounts[account] from item i on,
// as the lane takes them, handing each to add. It returns the next item's
// index and whether the list ended; otherwise the decoder takes the next
// item. With bypass, the guard lets the lane's bytes pass unchecked, as
// the quick path keeps the limits of what it takes (withinLimits), and
// checks what the lane did not take when it stops (resume).
func (s *streamSource) quickList(account, i int, bypass bool, add func(Transaction) error) (next int, end bool, err error) {
	buf, err := io.ReadAll(s.dec.Buffered())
	if err != nil {
		return i, false, err
	}
	src := s.src
	if sp, ok := src.(*spliced); ok {
		buf, src = append(buf, sp.rest()...), sp.tail
	}
	l := &lane{src: src, buf: buf, at: s.offset()}
	s.lane = l
	bypassed := bypass && s.guard.bypass(account)
	defer func() { s.leave(l, i, end, bypassed) }()
	for {
		c, ok := l.peek()
		switch {
		case !ok:
			return i, false, nil
		case c == ']':
			l.pos++
			return i, true, nil
		}
		skip := 0
		if i > 0 {
			if c != ',' {
				return i, false, nil
			}
			skip = 1
		}
		if !l.transaction(skip) {
			return i, false, nil
		}
		if err := add(l.t); err != nil {
			return i, false, err
		}
		i++
	}
}

// leave hands the document back from lane l to a new decoder, in the
// state the lane left it in: in the list after items items, or after
// the list when ended. A guard the lane bypassed checks the bytes the
// lane read ahead, first.
func (s *streamSource) leave(l *lane, items int, ended, bypassed bool) {
	state := inList
	switch {
	case ended:
		state = afterList
	case items > 0:
		state = afterItem
	}
	rest, tail := l.buf[l.pos:], l.src
	if l.err != nil {
		tail = failed{l.err}
	}
	if bypassed {
		held := s.utf8.held
		pass := s.guard.resume(l.offset(), items, ended, rest, held)
		if s.guard.err != nil {
			if pass < len(rest) {
				rest, s.utf8.held = rest[:pass], held[:0]
			} else {
				s.utf8.held = held[:pass-len(rest)]
			}
			tail = failed{s.guard.err}
		}
	}
	s.lane = nil
	s.base = l.offset() - int64(len(state))
	s.src = &spliced{parts: [][]byte{[]byte(state), rest}, tail: tail}
	s.dec = json.NewDecoder(s.src)
	s.dec.UseNumber()
	for s.dec.InputOffset() < int64(len(state)) {
		if _, err := s.dec.Token(); err != nil {
			return // the document's own error, which the decoder gives again
		}
	}
}

// spliced reads its parts, then tail: what a lane hands the decoder.
type spliced struct {
	parts [][]byte
	tail  io.Reader
}

func (r *spliced) Read(p []byte) (int, error) {
	for len(r.parts) > 0 {
		if n := copy(p, r.parts[0]); n > 0 || len(p) == 0 {
			r.parts[0] = r.parts[0][n:]
			return n, nil
		}
		r.parts = r.parts[1:]
	}
	return r.tail.Read(p)
}

// rest returns the bytes of the parts not read yet, which it gives up.
func (r *spliced) rest() []byte {
	var b []byte
	for _, part := range r.parts {
		b = append(b, part...)
	}
	r.parts = nil
	return b
}

// failed is a reader that failed: it returns err.
type failed struct{ err error }

func (f failed) Read([]byte) (int, error) { return 0, f.err }
