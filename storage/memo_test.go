package storage

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"sandbank/bank"
)

// fill sets every string, slice and number of v (a struct) to a value
// that is not zero, so that the JSON of v holds every field.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(7)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Struct:
		switch v.Interface().(type) {
		case decimal.Decimal:
			v.Set(reflect.ValueOf(decimal.RequireFromString("12.34")))
		case time.Time:
			v.Set(reflect.ValueOf(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)))
		default:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					fill(v.Field(i))
				}
			}
		}
	}
}

// scribble changes every string of a value, its slices' too, as a caller
// that edits the record it read would.
func scribble(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("changed")
	case reflect.Slice:
		for i := range v.Len() {
			scribble(v.Index(i))
		}
	case reflect.Struct:
		if _, ok := v.Interface().(decimal.Decimal); ok {
			return
		}
		if _, ok := v.Interface().(time.Time); ok {
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				scribble(v.Field(i))
			}
		}
	}
}

// checkMemo holds one memo to what json.Unmarshal gives: the same record,
// read as often as wanted, and a caller's changes to its copy (through
// every slice of the record, however the type grows) never reach the
// next caller.
func checkMemo[T any](t *testing.T, m *memo[T]) {
	t.Run(fmt.Sprintf("%T", *new(T)), func(t *testing.T) {
		var rec T
		fill(reflect.ValueOf(&rec).Elem())
		raw, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		var want T
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			got, err := m.decode([]byte("k"), raw, true)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("read %d: %+v, want %+v", i, got, want)
			}
			scribble(reflect.ValueOf(&got).Elem())
			if reflect.DeepEqual(got, want) {
				t.Fatalf("the test changed nothing in %+v", got)
			}
		}
		if _, err := m.decode([]byte("k"), []byte(`[1]`), true); err == nil {
			t.Fatal("a record that does not decode gave no error")
		}
	})
}

func TestMemo_EachCallerGetsItsOwnCopy(t *testing.T) {
	checkMemo(t, customerMemo)
	checkMemo(t, agreementMemo)
	checkMemo(t, engagementMemo)
	checkMemo(t, accountMemo)
	checkMemo(t, grantMemo)
	checkMemo(t, sessionMemo)
	checkMemo(t, psuMemo)
	checkMemo(t, consentMemo)
}

// A record written anew is read as written, in the transaction that wrote
// it and after; the memo stays within its bound.
func TestMemo_ReadsWhatIsStoredNow(t *testing.T) {
	db := openGroupDB(t)
	acc := bank.Account{ID: bank.FormatID(bank.KindAccount, 0, 1), OwnerID: bank.FormatID(bank.KindCustomer, 0, 1), IBAN: "NO3815030123457", Currency: "NOK", Status: "enabled"}
	for i := range 20 {
		acc.Balances.Expected = decimal.NewFromInt(int64(i))
		err := db.Update(func(tx bank.Tx) error {
			if err := tx.PutAccount(acc); err != nil {
				return err
			}
			got, err := tx.AccountByIBAN(acc.IBAN)
			if err == nil && !got.Balances.Expected.Equal(acc.Balances.Expected) {
				err = fmt.Errorf("in the writing transaction: %s, want %s", got.Balances.Expected, acc.Balances.Expected)
			}
			return err
		})
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		err = db.View(func(tx bank.Tx) error {
			got, err := tx.Account(acc.ID)
			if err == nil && !got.Balances.Expected.Equal(acc.Balances.Expected) {
				err = fmt.Errorf("after: %s, want %s", got.Balances.Expected, acc.Balances.Expected)
			}
			return err
		})
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
	}
	for i := range memoSize + 10 {
		if _, err := accountMemo.decode(fmt.Appendf(nil, "a%d", i), fmt.Appendf(nil, `{"id": "a%d"}`, i), true); err != nil {
			t.Fatal(err)
		}
		accountMemo.mu.Lock()
		n := len(accountMemo.kept)
		accountMemo.mu.Unlock()
		if n > memoSize {
			t.Fatalf("the memo keeps %d records, over its bound of %d", n, memoSize)
		}
	}
}

// A record written again and again takes one entry of the memo, which
// answers with its latest version.
func TestMemo_OneEntryPerRecord(t *testing.T) {
	t.Parallel()
	m := &memo[bank.Account]{}
	for i := range 50 {
		raw := fmt.Appendf(nil, `{"id": "a1", "balances": {"expected": "%d"}}`, i)
		for range 2 {
			got, err := m.decode([]byte("a1"), raw, true)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Balances.Expected.Equal(decimal.NewFromInt(int64(i))) {
				t.Fatalf("version %d: read %s", i, got.Balances.Expected)
			}
		}
	}
	if n := len(m.kept); n != 1 {
		t.Fatalf("the memo keeps %d entries for one record", n)
	}
}
