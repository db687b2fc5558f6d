package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	bolt "go.etcd.io/bbolt"

	"sandbank/bank"
)

// The schema tests pin the stored form of every record. Each record type
// is filled, field by field, by reflection, stored through bank.Tx on a
// real data file and read back; the bytes the store wrote are compared
// with a golden file under testdata/schema. Renaming a JSON tag, removing
// a field or changing the transaction codec changes those bytes, and old
// data files would then lose data: the test says so, and says which fields
// an old record loses when this code reads it.
//
//	go test ./storage -run Schema -update   rewrites the golden files

var updateSchema = flag.Bool("update", false, "rewrite the golden files of the stored forms under testdata/schema")

const schemaDir = "testdata/schema"

// schemaKeptElsewhere lists the fields tagged json:"-": the record's JSON
// leaves them out, so the store must keep them in another way. The round
// trip checks that it does.
var schemaKeptElsewhere = map[string]string{
	"Payment.Request": "the payments bucket beside the payment, under <seq>r (golden file paymentRequest.json); Payment does not return it, PaymentRequest does",
	"Transaction.ID":  "the key: <booking date><tx seq> in b, <tx seq> in p, under the account's sub-bucket",
}

// schemaNotKept lists the fields a record legitimately loses in the store,
// with the reason. The round trip ignores them; every other field must come
// back as it was stored.
var schemaNotKept = map[string]string{
	"Payment.Warnings[0].Refuse": "the code strict mode refuses an oddity with matters only while its request is answered; a stored warning is shown, never refused again",
}

// schemaUnexported lists the unexported fields of stored types, which
// encoding/json leaves out, with why the store need not keep them.
var schemaUnexported = map[string]string{
	"bank.AmountText.bad":    "set only when a request's amount is neither a string nor a number; validation rejects such a request, so it is never stored",
	"bank.AmountText.number": "whether a request sent its amount as a JSON number; noted when the request is answered, and never needed again",
	"apierr.Message.rest":    "how many warnings the last line of a capped list stands for, while warnings are gathered into one answer; a stored list keeps that line, whose text gives the count",
}

// storedValue is one value a record leaves in the data file.
type storedValue struct {
	golden string   // file under testdata/schema: .json for JSON, .hex for the binary codec
	path   [][]byte // bucket names, from the top level down
	key    []byte
}

// schemaRecord is a stored record type: a value with every field filled,
// how to store it and how to read it back.
type schemaRecord struct {
	name   string
	puts   []string // the bank.Tx methods that store it
	want   any
	put    func(bank.Tx) error
	get    func(bank.Tx) (any, error)
	stored []storedValue
}

func asAny[T any](v T, err error) (any, error) { return v, err }

func bucketPath(names ...[]byte) [][]byte { return names }

// schemaRecords returns every stored record type. ids and the fields the
// store reads to make keys are set to valid values after filling; a pending
// card transaction is one without a booking date, so that one is zero.
func schemaRecords(t *testing.T, f *schemaFills) []schemaRecord {
	t.Helper()
	const seq = bank.FirstUserSeq + 1
	customerID := bank.FormatID(bank.KindCustomer, 0, seq)
	agreementID := bank.FormatID(bank.KindAgreement, 0, seq)
	accountID := bank.FormatID(bank.KindAccount, 0, seq)
	cardID := bank.FormatID(bank.KindCardAccount, 0, seq)
	key := u64(seq)

	c := fillRecord[bank.Customer](t, f, false)
	c.ID = customerID

	a := fillRecord[bank.Agreement](t, f, false)
	a.ID, a.OwnerID = agreementID, customerID

	e := fillRecord[bank.Engagement](t, f, false)
	e.ID = bank.FormatID(bank.KindEngagement, seq, seq)
	e.AgreementID, e.CustomerID, e.AccountID = agreementID, customerID, accountID

	acct := fillRecord[bank.Account](t, f, false)
	acct.ID, acct.OwnerID = accountID, customerID

	card := fillRecord[bank.CardAccount](t, f, false)
	card.ID, card.OwnerID = cardID, customerID

	// Transactions use the binary codec, so JSON names mean nothing to
	// their stored form: fill them by Go names.
	booked := fillRecord[bank.Transaction](t, f, true)
	booked.ID, booked.Pending = bank.FormatID(bank.KindTransaction, seq, 1), false
	pending := fillRecord[bank.Transaction](t, f, true)
	pending.ID, pending.Pending = bank.FormatID(bank.KindTransaction, seq, 2), true

	cardBooked := fillRecord[bank.CardTransaction](t, f, false)
	cardPending := fillRecord[bank.CardTransaction](t, f, false)
	cardPending.BookingDate = bank.Date{}

	contact := fillRecord[bank.TPPContact](t, f, false)

	auth := fillRecord[bank.Authorisation](t, f, false)
	auth.ID = bank.FormatID(bank.KindAuthorisation, 0, seq)

	consent := fillRecord[bank.Consent](t, f, false)
	consent.ID = bank.FormatID(bank.KindConsent, 0, seq)

	grant := fillRecord[bank.Grant](t, f, false)
	grant.ID, grant.CustomerID = bank.FormatID(bank.KindGrant, 0, seq), customerID

	session := fillRecord[bank.Session](t, f, false)
	session.CustomerID = customerID

	psu := fillRecord[bank.PSU](t, f, false)
	psu.CustomerID, psu.AgreementID = customerID, agreementID

	pay := fillRecord[bank.Payment](t, f, false)
	pay.ID = bank.FormatID(bank.KindPayment, 0, seq)

	basket := fillRecord[bank.Basket](t, f, false)
	basket.ID = bank.FormatID(bank.KindBasket, 0, seq)

	run := fillRecord[bank.BatchRun](t, f, false)
	run.ID = bank.FormatID(bank.KindBatchRun, 0, seq)

	settings := fillRecord[bank.Settings](t, f, false)

	txs := func(sub []byte) [][]byte { return bucketPath(bktTransactions, key, sub) }
	cardTxs := func(sub []byte) [][]byte { return bucketPath(bktCardTransactions, key, sub) }
	return []schemaRecord{
		{
			name: "Customer", puts: []string{"PutCustomer"}, want: c,
			put:    func(tx bank.Tx) error { return tx.PutCustomer(c) },
			get:    func(tx bank.Tx) (any, error) { return asAny(tx.Customer(c.ID)) },
			stored: []storedValue{{"customer.json", bucketPath(bktCustomers), key}},
		},
		{
			name: "Agreement", puts: []string{"PutAgreement"}, want: a,
			put:    func(tx bank.Tx) error { return tx.PutAgreement(a) },
			get:    func(tx bank.Tx) (any, error) { return asAny(tx.Agreement(a.ID)) },
			stored: []storedValue{{"agreement.json", bucketPath(bktAgreements), key}},
		},
		{
			name: "Engagement", puts: []string{"PutEngagement"}, want: e,
			put:    func(tx bank.Tx) error { return tx.PutEngagement(e) },
			get:    func(tx bank.Tx) (any, error) { return asAny(tx.Engagement(e.ID)) },
			stored: []storedValue{{"engagement.json", bucketPath(bktEngagements), cat(key, key)}},
		},
		{
			name: "Account", puts: []string{"PutAccount"}, want: acct,
			put:    func(tx bank.Tx) error { return tx.PutAccount(acct) },
			get:    func(tx bank.Tx) (any, error) { return asAny(tx.Account(acct.ID)) },
			stored: []storedValue{{"account.json", bucketPath(bktAccounts), key}},
		},
		{
			name: "CardAccount", puts: []string{"PutCardAccount"}, want: card,
			put:    func(tx bank.Tx) error { return tx.PutCardAccount(card) },
			get:    func(tx bank.Tx) (any, error) { return asAny(tx.CardAccount(card.ID)) },
			stored: []storedValue{{"cardAccount.json", bucketPath(bktCards), key}},
		},
		{
			name: "Transaction (booked)", puts: []string{"PutTransactions"}, want: booked,
			put: func(tx bank.Tx) error { return tx.PutTransactions(accountID, []bank.Transaction{booked}) },
			get: func(tx bank.Tx) (any, error) {
				one, err := tx.Transaction(accountID, booked.ID)
				if err != nil {
					return nil, err
				}
				page, err := tx.Transactions(accountID, bank.TxQuery{})
				if err != nil {
					return nil, err
				}
				if len(page.Transactions) != 1 || page.Total != 1 {
					return nil, fmt.Errorf("the page holds %d transactions, total %d; want the one stored", len(page.Transactions), page.Total)
				}
				return one, sameAsRead("Transaction", one, page.Transactions[0])
			},
			stored: []storedValue{{"transaction-booked.hex", txs(subBooked), cat(u32(booked.BookingDate.Key()), u64(1))}},
		},
		{
			name: "Transaction (pending)", puts: []string{"PutTransactions"}, want: pending,
			put: func(tx bank.Tx) error { return tx.PutTransactions(accountID, []bank.Transaction{pending}) },
			get: func(tx bank.Tx) (any, error) {
				one, err := tx.Transaction(accountID, pending.ID)
				if err != nil {
					return nil, err
				}
				list, err := tx.PendingTransactions(accountID)
				if err != nil {
					return nil, err
				}
				if len(list) != 1 {
					return nil, fmt.Errorf("%d pending transactions; want the one stored", len(list))
				}
				return one, sameAsRead("PendingTransactions", one, list[0])
			},
			stored: []storedValue{{"transaction-pending.hex", txs(subPending), u64(2)}},
		},
		{
			name: "CardTransaction (booked)", puts: []string{"PutCardTransactions"}, want: cardBooked,
			put: func(tx bank.Tx) error { return tx.PutCardTransactions(cardID, []bank.CardTransaction{cardBooked}) },
			get: func(tx bank.Tx) (any, error) {
				page, err := tx.CardTransactions(cardID, bank.TxQuery{})
				if err != nil || len(page.Booked) != 1 || len(page.Pending) != 0 {
					return nil, fmt.Errorf("%d booked, %d pending (%v); want the one booked", len(page.Booked), len(page.Pending), err)
				}
				return page.Booked[0], nil
			},
			stored: []storedValue{{"cardTransaction-booked.json", cardTxs(subBooked), cat(u32(cardBooked.BookingDate.Key()), u64(1))}},
		},
		{
			name: "CardTransaction (pending)", puts: []string{"PutCardTransactions"}, want: cardPending,
			put: func(tx bank.Tx) error { return tx.PutCardTransactions(cardID, []bank.CardTransaction{cardPending}) },
			get: func(tx bank.Tx) (any, error) {
				page, err := tx.CardTransactions(cardID, bank.TxQuery{})
				if err != nil || len(page.Booked) != 0 || len(page.Pending) != 1 {
					return nil, fmt.Errorf("%d booked, %d pending (%v); want the one pending", len(page.Booked), len(page.Pending), err)
				}
				return page.Pending[0], nil
			},
			stored: []storedValue{{"cardTransaction-pending.json", cardTxs(subPending), u64(1)}},
		},
		{
			name: "TPPContact", puts: []string{"PutTPPContact"}, want: contact,
			put:    func(tx bank.Tx) error { return tx.PutTPPContact(contact) },
			get:    func(tx bank.Tx) (any, error) { return asAny(tx.TPPContact(contact.TPPID)) },
			stored: []storedValue{{"tppContact.json", bucketPath(bktTPPContacts), []byte(contact.TPPID)}},
		},
		{
			name: "Authorisation", puts: []string{"PutAuthorisation"}, want: auth,
			put:    func(tx bank.Tx) error { return tx.PutAuthorisation(auth) },
			get:    func(tx bank.Tx) (any, error) { return asAny(tx.Authorisation(auth.ID)) },
			stored: []storedValue{{"authorisation.json", bucketPath(bktAuthorisations), key}},
		},
		{
			name: "Consent", puts: []string{"PutConsent"}, want: consent,
			put:    func(tx bank.Tx) error { return tx.PutConsent(consent) },
			get:    func(tx bank.Tx) (any, error) { return asAny(tx.Consent(consent.ID)) },
			stored: []storedValue{{"consent.json", bucketPath(bktConsents), key}},
		},
		{
			name: "Grant", puts: []string{"PutGrant"}, want: grant,
			put:    func(tx bank.Tx) error { return tx.PutGrant(grant) },
			get:    func(tx bank.Tx) (any, error) { return asAny(tx.Grant(grant.TPPID, grant.CustomerID, grant.Context)) },
			stored: []storedValue{{"grant.json", bucketPath(bktGrants), grantKey(grant.TPPID, grant.CustomerID, grant.Context)}},
		},
		{
			name: "Session", puts: []string{"PutSession"}, want: session,
			put:    func(tx bank.Tx) error { return tx.PutSession(session) },
			get:    func(tx bank.Tx) (any, error) { return asAny(tx.Session(session.TPPID, session.CustomerID)) },
			stored: []storedValue{{"session.json", bucketPath(bktSessions), sessionKey(session.TPPID, session.CustomerID)}},
		},
		{
			name: "PSU", puts: []string{"PutPSU"}, want: psu,
			put:    func(tx bank.Tx) error { return tx.PutPSU(psu) },
			get:    func(tx bank.Tx) (any, error) { return asAny(tx.PSU(psu.ID)) },
			stored: []storedValue{{"psu.json", bucketPath(bktPSUs), []byte(psu.ID)}},
		},
		{
			name: "Payment", puts: []string{"PutPayment"}, want: pay,
			put: func(tx bank.Tx) error { return tx.PutPayment(pay) },
			get: func(tx bank.Tx) (any, error) {
				p, err := tx.Payment(pay.ID)
				if err != nil {
					return nil, err
				}
				if !reflect.ValueOf(p.Request).IsZero() {
					return nil, errors.New("Payment returns the request body; it is to be read with PaymentRequest")
				}
				p.Request, err = tx.PaymentRequest(pay.ID)
				return p, err
			},
			stored: []storedValue{
				{"payment.json", bucketPath(bktPayments), key},
				{"paymentRequest.json", bucketPath(bktPayments), requestKey(key)},
			},
		},
		{
			name: "Basket", puts: []string{"PutBasket"}, want: basket,
			put:    func(tx bank.Tx) error { return tx.PutBasket(basket) },
			get:    func(tx bank.Tx) (any, error) { return asAny(tx.Basket(basket.ID)) },
			stored: []storedValue{{"basket.json", bucketPath(bktBaskets), key}},
		},
		{
			name: "BatchRun", puts: []string{"PutBatchRun"}, want: run,
			put: func(tx bank.Tx) error { return tx.PutBatchRun(run) },
			get: func(tx bank.Tx) (any, error) {
				runs, total, err := tx.BatchRuns(0, 10)
				if err != nil || len(runs) != 1 || total != 1 {
					return nil, fmt.Errorf("%d batch runs (%v); want the one stored", len(runs), err)
				}
				if one, err := tx.BatchRun(run.ID); err != nil || one.ID != run.ID {
					return nil, fmt.Errorf("the batch run by its id: %+v, %v", one, err)
				}
				return runs[0], nil
			},
			stored: []storedValue{{"batchRun.json", bucketPath(bktBatchRuns), key}},
		},
		{
			// The bank stores its Settings under the name "settings".
			name: "Settings", puts: []string{"PutSetting"}, want: settings,
			put: func(tx bank.Tx) error { return tx.PutSetting("settings", settings) },
			get: func(tx bank.Tx) (any, error) {
				var s bank.Settings
				err := tx.Setting("settings", &s)
				return s, err
			},
			stored: []storedValue{{"settings.json", bucketPath(bktSettings), []byte("settings")}},
		},
	}
}

// sameAsRead checks that two reads of one record agree.
func sameAsRead(what string, want, got any) error {
	var diffs []fieldDiff
	schemaDiff("", reflect.ValueOf(want), reflect.ValueOf(got), &diffs, nil)
	if len(diffs) > 0 {
		return fmt.Errorf("%s reads it otherwise: %s", what, joinDiffs(diffs, "; "))
	}
	return nil
}

// schemaNoRecord lists the bank.Tx Put methods that store no record value.
var schemaNoRecord = map[string]string{
	"PutDuplicate": "an index entry: the key is the logical key, the creation time and the payment's seq; the value is empty",
	"PutUse":       "a usage counter, as CountUse keeps it: the key is the day and the counter's key; the value a 4-byte count",
}

// schemaIndexBuckets lists the top-level buckets that hold no record but
// keys, counters and index entries of fixed binary forms (see doc.go).
var schemaIndexBuckets = map[string]string{
	"meta":                  "the schema version and the sequence counters, 8-byte big-endian numbers",
	"customersByNumber":     "index: customer number -> customer seq",
	"agreementsByOwner":     "index: owner seq + agreement seq -> empty",
	"engagementsByCustomer": "index: customer seq + engagement key -> empty",
	"engagementsByAccount":  "index: account seq + engagement key -> empty",
	"accountsByIban":        "index: IBAN -> account seq",
	"accountsByBban":        "index: BBAN -> account seq",
	"accountsByOwner":       "index: owner seq + account seq -> empty",
	"cardAccountsByOwner":   "index: owner seq + card account seq -> empty",
	"usage":                 "counters: day + key -> 4-byte count",
	"paymentsByStatus":      "index: 4-byte status + payment seq -> empty",
	"paymentDuplicates":     "index: logical key + creation time + payment seq -> empty",
}

// --- filling by reflection ---

var (
	timeType    = reflect.TypeFor[time.Time]()
	decimalType = reflect.TypeFor[decimal.Decimal]()
	dateType    = reflect.TypeFor[bank.Date]()
	rawType     = reflect.TypeFor[json.RawMessage]()
)

// schemaFills collects what the filler met across records: the fields
// tagged json:"-" and the list entries the records used, so that lists
// with stale entries fail too.
type schemaFills struct {
	hidden      map[string]bool
	usedNotKept map[string]bool
}

func newSchemaFills() *schemaFills {
	return &schemaFills{hidden: map[string]bool{}, usedNotKept: map[string]bool{}}
}

// fillRecord returns a T with every field set. goNames derives the values
// from the Go field names instead of the JSON ones (for a record whose
// stored form is not JSON).
func fillRecord[T any](t *testing.T, f *schemaFills, goNames bool) T {
	t.Helper()
	var v T
	fl := &filler{goNames: goNames, active: map[reflect.Type]int{}}
	name := reflect.TypeFor[T]().Name()
	fl.fill(reflect.ValueOf(&v).Elem(), name, name)
	for _, p := range fl.problems {
		t.Errorf("fill %s: %s", name, p)
	}
	for _, h := range fl.hidden {
		f.hidden[h] = true
	}
	return v
}

// filler sets every field of a value to a non-zero value derived from the
// field's path, so the value is the same on every run and no two string
// fields hold the same value (a store that swaps two fields shows). It
// refuses kinds it does not know, so a new kind of field is noticed.
type filler struct {
	goNames  bool
	active   map[reflect.Type]int // struct types being filled: recursive types stop at one nesting
	problems []string
	hidden   []string // Go paths of fields tagged json:"-"
}

func schemaHash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// fill sets v. path names the value for the values it derives (JSON names,
// or Go names with goNames); goPath names it in reports.
func (f *filler) fill(v reflect.Value, path, goPath string) {
	h := schemaHash(path)
	switch v.Type() {
	case timeType:
		t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(h%(365*24*3600))*time.Second + time.Duration(h%1e9))
		v.Set(reflect.ValueOf(t))
		return
	case decimalType:
		n := int64(h%1_000_000) + 1
		if h%2 == 1 {
			n = -n
		}
		v.Set(reflect.ValueOf(decimal.New(n, -2)))
		return
	case dateType:
		v.Set(reflect.ValueOf(bank.Date{Year: 2026, Month: time.January, Day: 1}.AddDays(int(h % 365))))
		return
	case rawType:
		s, _ := json.Marshal(path)
		v.Set(reflect.ValueOf(json.RawMessage(`{"path":` + string(s) + `}`)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(path)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(h%100) + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(h%100) + 1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(h%100) + 0.25)
	case reflect.Pointer:
		if f.recursive(v.Type().Elem()) {
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem(), path, goPath)
		v.Set(p)
	case reflect.Slice:
		if f.recursive(v.Type().Elem()) {
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		f.fill(s.Index(0), path+"[0]", goPath+"[0]")
		v.Set(s)
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			f.problems = append(f.problems, fmt.Sprintf("%s (%s): the filler fills maps with string keys only", goPath, v.Type()))
			return
		}
		k := reflect.New(v.Type().Key()).Elem()
		k.SetString(path + ".key")
		e := reflect.New(v.Type().Elem()).Elem()
		f.fill(e, path+"[key]", goPath+"[key]")
		m := reflect.MakeMapWithSize(v.Type(), 1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		f.fillStruct(v, path, goPath)
	default:
		f.problems = append(f.problems, fmt.Sprintf("%s (%s): the filler cannot fill a field of kind %s; teach it one, then check that the store keeps such a field", goPath, v.Type(), v.Kind()))
	}
}

// recursive reports whether filling a value of type t (or of what it
// points to) would nest a struct type a third time.
func (f *filler) recursive(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && f.active[t] >= 2
}

func (f *filler) fillStruct(v reflect.Value, path, goPath string) {
	t := v.Type()
	f.active[t]++
	defer func() { f.active[t]-- }()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			if _, ok := schemaUnexported[t.String()+"."+sf.Name]; !ok {
				f.problems = append(f.problems, fmt.Sprintf("%s.%s: unexported field of %s; encoding/json leaves it out, so list it in schemaUnexported with why the store need not keep it", goPath, sf.Name, t))
			}
			continue
		}
		tag := sf.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if tag == "-" {
			f.hidden = append(f.hidden, goPath+"."+sf.Name)
		}
		if f.goNames || name == "" || tag == "-" {
			name = sf.Name
		}
		f.fill(v.Field(i), path+"."+name, goPath+"."+sf.Name)
	}
}

// --- comparing ---

// fieldDiff is a field that reads back otherwise than it was stored.
type fieldDiff struct {
	path      string
	want, got string
	empty     bool // it reads back empty: zero, nil or with no elements
}

func (d fieldDiff) String() string {
	return fmt.Sprintf("%s: read back %s, stored %s", d.path, d.got, d.want)
}

func joinDiffs(diffs []fieldDiff, sep string) string {
	s := make([]string, len(diffs))
	for i, d := range diffs {
		s[i] = d.String()
	}
	return strings.Join(s, sep)
}

// schemaDiff appends to out each field of got that differs from want,
// skipping the fields of schemaNotKept (and marking them used). Numbers
// compare by value, times by instant and offset.
func schemaDiff(path string, want, got reflect.Value, out *[]fieldDiff, used map[string]bool) {
	if _, ok := schemaNotKept[path]; ok {
		if used != nil {
			used[path] = true
		}
		return
	}
	add := func(w, g any, empty bool) {
		*out = append(*out, fieldDiff{path: path, want: clipValue(w), got: clipValue(g), empty: empty})
	}
	switch want.Type() {
	case timeType:
		w, g := want.Interface().(time.Time), got.Interface().(time.Time)
		_, wo := w.Zone()
		_, gof := g.Zone()
		if !w.Equal(g) || wo != gof {
			add(w.Format(time.RFC3339Nano), g.Format(time.RFC3339Nano), g.IsZero())
		}
		return
	case decimalType:
		if w, g := want.Interface().(decimal.Decimal), got.Interface().(decimal.Decimal); !w.Equal(g) {
			add(w, g, g.IsZero())
		}
		return
	case rawType:
		if !bytes.Equal(want.Bytes(), got.Bytes()) {
			add(string(want.Bytes()), string(got.Bytes()), got.Len() == 0)
		}
		return
	}
	switch want.Kind() {
	case reflect.Pointer:
		if want.IsNil() || got.IsNil() {
			if want.IsNil() != got.IsNil() {
				add(nilOr(want), nilOr(got), got.IsNil())
			}
			return
		}
		schemaDiff(path, want.Elem(), got.Elem(), out, used)
	case reflect.Slice:
		if want.Len() != got.Len() {
			add(fmt.Sprintf("%d elements", want.Len()), fmt.Sprintf("%d elements", got.Len()), got.Len() == 0)
			return
		}
		for i := range want.Len() {
			schemaDiff(fmt.Sprintf("%s[%d]", path, i), want.Index(i), got.Index(i), out, used)
		}
	case reflect.Map:
		if want.Len() != got.Len() {
			add(fmt.Sprintf("%d entries", want.Len()), fmt.Sprintf("%d entries", got.Len()), got.Len() == 0)
			return
		}
		for _, k := range want.MapKeys() {
			g := got.MapIndex(k)
			if !g.IsValid() {
				add(fmt.Sprintf("an entry %v", k), "none", true)
				continue
			}
			schemaDiff(fmt.Sprintf("%s[%v]", path, k), want.MapIndex(k), g, out, used)
		}
	case reflect.Struct:
		for i := range want.NumField() {
			if sf := want.Type().Field(i); sf.IsExported() {
				schemaDiff(path+"."+sf.Name, want.Field(i), got.Field(i), out, used)
			}
		}
	default:
		if want.Interface() != got.Interface() {
			add(want.Interface(), got.Interface(), got.IsZero())
		}
	}
}

func nilOr(v reflect.Value) string {
	if v.IsNil() {
		return "nil"
	}
	return "a value"
}

func clipValue(v any) string {
	s := fmt.Sprintf("%q", fmt.Sprint(v))
	if len(s) > 80 {
		s = s[:77] + `..."`
	}
	return s
}

// --- raw access to the data file ---

// schemaBucket opens a bucket by its names from the top level down, nil
// when one of them does not exist.
func schemaBucket(tx *bolt.Tx, path [][]byte) *bolt.Bucket {
	b := tx.Bucket(path[0])
	for _, name := range path[1:] {
		if b == nil {
			return nil
		}
		b = b.Bucket(name)
	}
	return b
}

// rawValue returns a copy of the value at key in the bucket at path, nil
// when there is none.
func rawValue(db *DB, path [][]byte, key []byte) ([]byte, error) {
	var out []byte
	err := db.bolt().View(func(tx *bolt.Tx) error {
		b := schemaBucket(tx, path)
		if b == nil {
			return fmt.Errorf("no bucket %s", bucketName(path))
		}
		if v := b.Get(key); v != nil {
			out = bytes.Clone(v)
		}
		return nil
	})
	return out, err
}

// putRaw writes value at key in the bucket at path, as an older Sandbank
// would have.
func putRaw(db *DB, path [][]byte, key, value []byte) error {
	return db.bolt().Update(func(tx *bolt.Tx) error {
		b := schemaBucket(tx, path)
		if b == nil {
			return fmt.Errorf("no bucket %s", bucketName(path))
		}
		return b.Put(key, value)
	})
}

func bucketName(path [][]byte) string {
	parts := make([]string, len(path))
	for i, p := range path {
		if len(p) == 8 {
			parts[i] = fmt.Sprintf("<seq %d>", binary.BigEndian.Uint64(p))
		} else {
			parts[i] = string(p)
		}
	}
	return strings.Join(parts, "/")
}

// --- golden files ---

// goldenText is the content of a golden file for a stored value: indented
// JSON, or a commented hex dump of a binary record.
func goldenText(name string, raw []byte) ([]byte, error) {
	if strings.HasSuffix(name, ".json") {
		var b bytes.Buffer
		if err := json.Indent(&b, raw, "", "\t"); err != nil {
			return nil, fmt.Errorf("the stored value is not JSON: %w", err)
		}
		b.WriteByte('\n')
		return b.Bytes(), nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# bank.Transaction in the binary transaction codec, version %d (storage/codec.go).\n", txCodecVersion)
	b.WriteString("# The id is in the key; the sub-bucket (b or p) says booked or pending.\n")
	b.WriteString("# Rewrite with: go test ./storage -run Schema -update\n")
	for off := 0; off < len(raw); off += 16 {
		line := raw[off:min(off+16, len(raw))]
		fmt.Fprintf(&b, "%-48s |", fmt.Sprintf("% x", line))
		for _, c := range line {
			if c < 0x20 || c > 0x7e {
				c = '.'
			}
			b.WriteByte(c)
		}
		b.WriteString("|\n")
	}
	return b.Bytes(), nil
}

// goldenBytes returns the stored value a golden file holds.
func goldenBytes(name string, text []byte) ([]byte, error) {
	if strings.HasSuffix(name, ".json") {
		var b bytes.Buffer
		if err := json.Compact(&b, text); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	var out []byte
	for line := range strings.Lines(string(text)) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		hexPart, _, _ := strings.Cut(line, "|")
		for _, f := range strings.Fields(hexPart) {
			c, err := hex.DecodeString(f)
			if err != nil || len(c) != 1 {
				return nil, fmt.Errorf("%q is not a hex byte", f)
			}
			out = append(out, c[0])
		}
	}
	return out, nil
}

// firstDifference shows where two stored forms part: as text for JSON, as
// Go-quoted bytes for the binary codec.
func firstDifference(name string, was, now []byte) string {
	i := 0
	for i < len(was) && i < len(now) && was[i] == now[i] {
		i++
	}
	from := max(i-24, 0)
	show := func(b []byte) string {
		part := b[from:min(i+40, len(b))]
		if strings.HasSuffix(name, ".json") {
			return string(part)
		}
		return fmt.Sprintf("%q", part)
	}
	return fmt.Sprintf("they part at byte %d:\n\twas ...%s\n\tnow ...%s", i, show(was), show(now))
}

// TestSchema_RecordsRoundTrip stores every record type with every field
// filled, reads it back and compares the stored bytes with the golden
// files.
func TestSchema_RecordsRoundTrip(t *testing.T) {
	fills := newSchemaFills()
	records := schemaRecords(t, fills)
	if t.Failed() {
		t.FailNow()
	}
	for h := range fills.hidden {
		_, elsewhere := schemaKeptElsewhere[h]
		_, lost := schemaNotKept[h]
		if !elsewhere && !lost {
			t.Errorf("%s is tagged json:\"-\", so its record's JSON leaves it out: say in schemaKeptElsewhere where the store keeps it, or in schemaNotKept why it need not", h)
		}
	}
	for h := range schemaKeptElsewhere {
		if !fills.hidden[h] {
			t.Errorf("schemaKeptElsewhere lists %s, which is no field tagged json:\"-\" of a stored record; remove it", h)
		}
	}

	goldens := map[string]bool{}
	for _, rec := range records {
		for _, sv := range rec.stored {
			goldens[sv.golden] = true
		}
		t.Run(rec.name, func(t *testing.T) { checkSchemaRecord(t, rec, fills) })
	}

	for f := range schemaNotKept {
		if !fills.usedNotKept[f] {
			t.Errorf("schemaNotKept lists %s, which no stored record has; remove it", f)
		}
	}
	entries, err := os.ReadDir(schemaDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range entries {
		if goldens[e.Name()] {
			continue
		}
		file := filepath.Join(schemaDir, e.Name())
		if *updateSchema {
			if err := os.Remove(file); err != nil {
				t.Error(err)
			}
			continue
		}
		t.Errorf("golden file %s belongs to no stored record; delete it or run with -update", file)
	}
}

// checkSchemaRecord stores one record on a new data file, reads it back
// and compares what the store wrote with the golden files.
func checkSchemaRecord(t *testing.T, rec schemaRecord, fills *schemaFills) {
	db, err := Open(filepath.Join(t.TempDir(), "schema.db"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.Update(rec.put); err != nil {
		t.Fatalf("store %s: %v", rec.name, err)
	}
	if diffs, err := readBack(db, rec, fills.usedNotKept); err != nil {
		t.Fatalf("read %s back: %v", rec.name, err)
	} else if len(diffs) > 0 {
		t.Errorf("%s does not come back as it was stored; the store loses these fields (if that is right, list them in schemaNotKept with the reason):\n\t%s",
			rec.name, joinDiffs(diffs, "\n\t"))
	}

	old := make([][]byte, len(rec.stored)) // the golden forms that differ
	changed := false
	for i, sv := range rec.stored {
		raw, err := rawValue(db, sv.path, sv.key)
		if err != nil || raw == nil {
			t.Errorf("%s: no value at %s key %x (%v)", rec.name, bucketName(sv.path), sv.key, err)
			continue
		}
		text, err := goldenText(sv.golden, raw)
		if err != nil {
			t.Errorf("%s: %v", rec.name, err)
			continue
		}
		file := filepath.Join(schemaDir, sv.golden)
		if *updateSchema {
			if err := os.MkdirAll(schemaDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, text, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		gold, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s: no golden file %s; run go test ./storage -run Schema -update to write it", rec.name, file)
			continue
		}
		was, err := goldenBytes(sv.golden, gold)
		if err != nil {
			t.Errorf("%s: golden file %s is damaged: %v", rec.name, file, err)
			continue
		}
		if !bytes.Equal(was, raw) {
			t.Errorf("the stored form of %s changed; if this is on purpose, add a migration (schema version in meta) and run with -update\n\tgolden file %s: %s",
				rec.name, file, firstDifference(sv.golden, was, raw))
			old[i], changed = was, true
		}
	}
	if !changed {
		return
	}
	// Read the old forms with this code, as it would read an old data file.
	for i, was := range old {
		if was != nil {
			if err := putRaw(db, rec.stored[i].path, rec.stored[i].key, was); err != nil {
				t.Fatal(err)
			}
		}
	}
	diffs, err := readBack(db, rec, nil)
	if err != nil {
		t.Errorf("this code cannot read the old stored form of %s: an old data file would fail: %v", rec.name, err)
		return
	}
	var lost, other []fieldDiff
	for _, d := range diffs {
		if d.empty {
			lost = append(lost, d)
		} else {
			other = append(other, d)
		}
	}
	if len(lost) > 0 {
		t.Errorf("reading the old stored form of %s with this code, these fields come back empty: data that old data files lose (a field added since is expected here):\n\t%s",
			rec.name, joinDiffs(lost, "\n\t"))
	}
	if len(other) > 0 && strings.HasSuffix(rec.stored[0].golden, ".hex") {
		t.Errorf("reading the old stored form of %s with this code, these fields come back with other values: the codec reads the old bytes into other fields:\n\t%s",
			rec.name, joinDiffs(other, "\n\t"))
	} else if len(other) > 0 {
		t.Logf("reading the old stored form of %s with this code, these fields keep the old file's values (the test's values follow the JSON names, and encoding/json still matches a name that changed only in letter case):\n\t%s",
			rec.name, joinDiffs(other, "\n\t"))
	}
	if len(lost) == 0 && len(other) == 0 {
		t.Logf("this code reads the old stored form of %s completely: old data files keep their data", rec.name)
	}
}

// readBack reads a record back and lists the fields that differ from what
// was stored.
func readBack(db *DB, rec schemaRecord, used map[string]bool) ([]fieldDiff, error) {
	var got any
	if err := db.View(func(tx bank.Tx) (err error) { got, err = rec.get(tx); return err }); err != nil {
		return nil, err
	}
	var diffs []fieldDiff
	schemaDiff(reflect.TypeOf(rec.want).Name(), reflect.ValueOf(rec.want), reflect.ValueOf(got), &diffs, used)
	return diffs, nil
}

// TestSchema_EveryPutAndBucketCovered makes sure a new way to store
// something gets a golden file: every Put method of bank.Tx and every
// top-level bucket is covered by a record or listed as holding none.
func TestSchema_EveryPutAndBucketCovered(t *testing.T) {
	records := schemaRecords(t, newSchemaFills())
	puts := map[string]bool{}
	buckets := map[string]bool{}
	for _, rec := range records {
		for _, p := range rec.puts {
			puts[p] = true
		}
		for _, sv := range rec.stored {
			buckets[string(sv.path[0])] = true
		}
	}
	txType := reflect.TypeFor[bank.Tx]()
	for i := range txType.NumMethod() {
		name := txType.Method(i).Name
		if !strings.HasPrefix(name, "Put") {
			continue
		}
		_, none := schemaNoRecord[name]
		switch {
		case puts[name] && none:
			t.Errorf("bank.Tx.%s is in schemaNoRecord and stores a record of the schema test", name)
		case !puts[name] && !none:
			t.Errorf("bank.Tx.%s stores something no schema record covers: add its record to schemaRecords", name)
		}
	}
	for name := range schemaNoRecord {
		if _, ok := txType.MethodByName(name); !ok {
			t.Errorf("schemaNoRecord lists %s, which bank.Tx does not have", name)
		}
	}
	for _, b := range append([][]byte{bktMeta}, allBuckets...) {
		_, index := schemaIndexBuckets[string(b)]
		switch {
		case buckets[string(b)] && index:
			t.Errorf("bucket %s is in schemaIndexBuckets and holds a record of the schema test", b)
		case !buckets[string(b)] && !index:
			t.Errorf("bucket %s holds nothing the schema test covers: add its record to schemaRecords or, for keys only, to schemaIndexBuckets", b)
		}
	}
	for name := range schemaIndexBuckets {
		if !slices.ContainsFunc(allBuckets, func(b []byte) bool { return string(b) == name }) && name != string(bktMeta) {
			t.Errorf("schemaIndexBuckets lists %s, which is no bucket", name)
		}
	}
}

// TestSchema_FillerFillsEveryField checks the filler itself: it sets every
// field and refuses a kind it does not know.
func TestSchema_FillerFillsEveryField(t *testing.T) {
	type inner struct {
		N    int
		Tags []string
	}
	type node struct {
		Name     string `json:"name"`
		Children []node `json:"children"`
		Next     *node  `json:"next"`
		Inner    inner  `json:"inner"`
		Ptr      *inner `json:"ptr"`
		Amount   decimal.Decimal
		When     time.Time
		Day      bank.Date
		Raw      json.RawMessage
		Rate     float64
		Flags    map[string]bool
		Hidden   string `json:"-"`
		Duration time.Duration
	}
	var n node
	f := &filler{active: map[reflect.Type]int{}}
	f.fill(reflect.ValueOf(&n).Elem(), "node", "node")
	if len(f.problems) > 0 {
		t.Fatalf("problems filling a known shape: %v", f.problems)
	}
	var zero []string
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		if v.IsZero() {
			zero = append(zero, path)
			return
		}
		if v.Kind() == reflect.Struct && v.Type() != timeType && v.Type() != decimalType {
			for i := range v.NumField() {
				walk(path+"."+v.Type().Field(i).Name, v.Field(i))
			}
		}
	}
	walk("node", reflect.ValueOf(n))
	if len(zero) > 0 {
		t.Errorf("fields left zero: %v", zero)
	}
	if len(n.Children) != 1 || len(n.Children[0].Children) != 0 || n.Next == nil || n.Next.Next != nil {
		t.Errorf("a recursive type is filled once nested, not %d children and next %v", len(n.Children), n.Next)
	}
	slices.Sort(f.hidden)
	if want := []string{"node.Children[0].Hidden", "node.Hidden", "node.Next.Hidden"}; !slices.Equal(f.hidden, want) {
		t.Errorf("fields tagged json:\"-\": %v, want %v", f.hidden, want)
	}

	var again node
	f2 := &filler{active: map[reflect.Type]int{}}
	f2.fill(reflect.ValueOf(&again).Elem(), "node", "node")
	var diffs []fieldDiff
	schemaDiff("node", reflect.ValueOf(n), reflect.ValueOf(again), &diffs, nil)
	if len(diffs) > 0 {
		t.Errorf("two fills differ: %v", diffs)
	}

	for _, v := range []any{
		&struct{ Any any }{},
		&struct{ C complex128 }{},
		&struct{ Ch chan int }{},
		&struct{ A [2]int }{},
		&struct{ M map[int]string }{},
		&struct{ secret string }{},
	} {
		f := &filler{active: map[reflect.Type]int{}}
		f.fill(reflect.ValueOf(v).Elem(), "x", "x")
		if len(f.problems) != 1 {
			t.Errorf("filling %T: problems %v, want one", v, f.problems)
		}
	}
}

// A settings record of a data file written before the operator API, with
// the exchange table under "fx" and the exemption policy under
// "exemption", still loads whole: its FX table and its exemption policy are
// in force, the settings added since take their defaults, and the next
// save writes today's names.
func TestSchema_OldSettingsKeepFXAndExemption(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "old.db"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	old := []byte(`{"trustMode":"store","requireSignature":false,"strict":false,"clockOffsetSeconds":0,"legacyDate":null,` +
		`"batchTimes":["07:00","14:00"],"coverRetryDays":2,"ncbctFee":"175","fx":{"NOK":"1","EUR":"11.2","BHD":"28.7"},` +
		`"exemption":"own-accounts","faults":{"latencyMs":0,"errorRate":0,"outage":false}}`)
	if err := putRaw(db, bucketPath(bktSettings), []byte("settings"), old); err != nil {
		t.Fatal(err)
	}
	b := bank.New(db, bank.SystemClock{})
	st, err := b.Ops.Settings()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"NOK": "1", "EUR": "11.2", "BHD": "28.7"}
	if len(st.FX) != len(want) {
		t.Fatalf("the old FX table reads as %v", st.FX)
	}
	for c, r := range want {
		if st.FX[c].String() != r {
			t.Errorf("FX %s: %s, want %s", c, st.FX[c], r)
		}
	}
	if st.Exemption != bank.ExemptOwnAccounts || st.TrustMode != bank.TrustStore || st.NCBCTFee.String() != "175" || st.CoverRetryDays != 2 {
		t.Fatalf("the old settings read as %+v", st)
	}
	if st.BatchMode != bank.BatchSchedule || st.RequestLog != (bank.RequestLogLimits{MaxCount: bank.DefaultRequestLogCount, MaxBytes: bank.DefaultRequestLogBytes}) ||
		st.ResponseSigning != bank.SigningRSA {
		t.Fatalf("the settings added since: %q %+v %q", st.BatchMode, st.RequestLog, st.ResponseSigning)
	}
	// The next save writes today's names, and keeps the table.
	if _, err := b.Ops.UpdateSettings(func(s *bank.Settings) { s.Strict = true }); err != nil {
		t.Fatal(err)
	}
	raw, err := rawValue(db, bucketPath(bktSettings), []byte("settings"))
	if err != nil {
		t.Fatal(err)
	}
	var saved map[string]json.RawMessage
	if err := json.Unmarshal(raw, &saved); err != nil {
		t.Fatal(err)
	}
	if saved["fx"] != nil || saved["exemption"] != nil || !strings.Contains(string(saved["fxRates"]), `"BHD":"28.7"`) || string(saved["exemptionPolicy"]) != `"own-accounts"` {
		t.Fatalf("saved as %s", raw)
	}
}
