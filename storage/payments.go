package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"sandbank/bank"
)

// Payment records; the layout is in doc.go.

func (t *txn) Payment(id string) (bank.Payment, error) {
	k, ok := seqKey(bank.KindPayment, id)
	if !ok {
		return bank.Payment{}, bank.ErrNotFound
	}
	return getJSON[bank.Payment](t.b(bktPayments), k)
}

func (t *txn) PaymentRequest(id string) (bank.PaymentRequest, error) {
	k, ok := seqKey(bank.KindPayment, id)
	if !ok {
		return bank.PaymentRequest{}, bank.ErrNotFound
	}
	if old := t.b(bktPaymentRequestsV1); old != nil { // a file that Writable has yet to migrate
		return getJSON[bank.PaymentRequest](old, k)
	}
	return getJSON[bank.PaymentRequest](t.b(bktPayments), requestKey(k))
}

// requestKey is the key of a payment's request body in the payments
// bucket: the payment's key and 'r'.
func requestKey(k []byte) []byte { return cat(k, []byte{'r'}) }

// isPaymentKey tells a payment's key in the payments bucket from the key
// of its request body.
func isPaymentKey(k []byte) bool { return len(k) == 8 }

// statusKey is the 4-byte form of a payment status in the index.
func statusKey(status string) []byte {
	k := []byte("    ")
	copy(k, status)
	return k
}

// has reports whether a bucket holds key k (whose value may be empty).
func has(b *bolt.Bucket, k []byte) bool {
	got, _ := b.Cursor().Seek(k)
	return bytes.Equal(got, k)
}

// PutPayment stores the request body with a new payment, and moves the
// payment's entry in the status index when its status changed: the entry
// of the new status is missing then, and the one of the old status, which
// the index alone knows, is deleted by trying each.
func (t *txn) PutPayment(p bank.Payment) error {
	k, ok := seqKey(bank.KindPayment, p.ID)
	if !ok {
		return errBadID("payment", p.ID)
	}
	payments, index := t.b(bktPayments), t.b(bktPaymentsByStatus)
	entry := cat(statusKey(p.Status), k)
	switch {
	case payments.Get(k) == nil:
		if err := putJSON(payments, requestKey(k), p.Request); err != nil {
			return err
		}
		if err := index.Put(entry, nil); err != nil {
			return err
		}
	case !has(index, entry):
		for _, status := range bank.PaymentStatuses {
			if status == p.Status {
				continue
			}
			if err := index.Delete(cat(statusKey(status), k)); err != nil {
				return err
			}
		}
		if err := index.Put(entry, nil); err != nil {
			return err
		}
	}
	return putJSON(payments, k, p)
}

func (t *txn) PaymentIDs(status string) ([]string, error) {
	prefix := statusKey(status)
	var out []string
	c := t.b(bktPaymentsByStatus).Cursor()
	for k, _ := c.Seek(prefix); k != nil && hasPrefix(k, prefix); k, _ = c.Next() {
		out = append(out, bank.FormatID(bank.KindPayment, 0, binary.BigEndian.Uint64(k[4:])))
	}
	return out, nil
}

func (t *txn) Payments(q bank.PaymentQuery) ([]bank.Payment, int, error) {
	out := []bank.Payment{}
	payments := t.b(bktPayments)
	var keys func(yield func([]byte) bool)
	if status := q.Status; status == "" {
		keys = func(yield func([]byte) bool) {
			c := payments.Cursor()
			for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
				if isPaymentKey(k) && !yield(k) {
					return
				}
			}
		}
	} else {
		prefix := statusKey(status)
		keys = func(yield func([]byte) bool) {
			c := t.b(bktPaymentsByStatus).Cursor()
			k, _ := c.Seek(cat(prefix, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}))
			if k == nil {
				k, _ = c.Last()
			} else {
				k, _ = c.Prev()
			}
			for ; k != nil && hasPrefix(k, prefix) && yield(k[4:]); k, _ = c.Prev() {
			}
		}
	}
	total := 0
	var err error
	keys(func(k []byte) bool {
		if q.Match == nil && (total < q.Offset || len(out) >= q.Limit) {
			total++ // counted without reading it
			return true
		}
		var p bank.Payment
		if p, err = getJSON[bank.Payment](payments, k); err != nil {
			return false
		}
		if q.Match != nil && !q.Match(p) {
			return true
		}
		if total >= q.Offset && len(out) < q.Limit {
			out = append(out, p)
		}
		total++
		return true
	})
	return out, total, err
}

// duplicateKey is an index key of the duplicates bucket: the logical key,
// the creation time and the payment's sequence.
func duplicateKey(key string, created time.Time, seq []byte) []byte {
	return cat([]byte(key), u64(uint64(created.UnixNano())), seq)
}

func (t *txn) Duplicates(key string, since time.Time) ([]string, error) {
	prefix := []byte(key)
	var out []string
	c := t.b(bktPaymentDupes).Cursor()
	for k, _ := c.Seek(cat(prefix, u64(uint64(max(since.UnixNano(), 0))))); k != nil && hasPrefix(k, prefix); k, _ = c.Next() {
		if len(k) != len(prefix)+16 {
			continue
		}
		out = append(out, bank.FormatID(bank.KindPayment, 0, binary.BigEndian.Uint64(k[len(prefix)+8:])))
	}
	return out, nil
}

func (t *txn) PutDuplicate(key, paymentID string, created time.Time) error {
	k, ok := seqKey(bank.KindPayment, paymentID)
	if !ok {
		return errBadID("payment", paymentID)
	}
	b := t.b(bktPaymentDupes)
	// Entries older than the duplicate window are of no use: drop this
	// key's.
	prefix := []byte(key)
	c := b.Cursor()
	limit := u64(uint64(created.Add(-bank.DuplicateWindow).UnixNano()))
	for old, _ := c.Seek(prefix); old != nil && hasPrefix(old, prefix) && string(old[len(prefix):len(prefix)+8]) < string(limit); old, _ = c.Seek(prefix) {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return b.Put(duplicateKey(key, created, k), nil)
}

func (t *txn) Basket(id string) (bank.Basket, error) {
	k, ok := seqKey(bank.KindBasket, id)
	if !ok {
		return bank.Basket{}, bank.ErrNotFound
	}
	return getJSON[bank.Basket](t.b(bktBaskets), k)
}

func (t *txn) Baskets() ([]bank.Basket, error) { return listJSON[bank.Basket](t.b(bktBaskets)) }

func (t *txn) PutBasket(b bank.Basket) error {
	k, ok := seqKey(bank.KindBasket, b.ID)
	if !ok {
		return errBadID("basket", b.ID)
	}
	return putJSON(t.b(bktBaskets), k, b)
}

func (t *txn) DeleteBasket(id string) error {
	k, ok := seqKey(bank.KindBasket, id)
	if !ok {
		return bank.ErrNotFound
	}
	return t.b(bktBaskets).Delete(k)
}

func (t *txn) PutBatchRun(r bank.BatchRun) error {
	seq, ok := bank.SeqOf(bank.KindBatchRun, r.ID)
	if !ok {
		return errBadID("batch run", r.ID)
	}
	b := t.b(bktBatchRuns)
	if err := putJSON(b, u64(seq), r); err != nil {
		return err
	}
	c := b.Cursor()
	for k, _ := c.First(); k != nil && binary.BigEndian.Uint64(k)+bank.MaxBatchRunsKept <= seq; k, _ = c.First() {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

func (t *txn) BatchRuns(offset, limit int) ([]bank.BatchRun, int, error) {
	out := []bank.BatchRun{}
	total := 0
	c := t.b(bktBatchRuns).Cursor()
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		if total >= offset && len(out) < limit {
			var r bank.BatchRun
			if err := json.Unmarshal(v, &r); err != nil {
				return nil, 0, fmt.Errorf("decode batch run %x: %w", k, err)
			}
			out = append(out, r)
		}
		total++
	}
	return out, total, nil
}

func (t *txn) BatchRun(id string) (bank.BatchRun, error) {
	seq, ok := bank.SeqOf(bank.KindBatchRun, id)
	if !ok {
		return bank.BatchRun{}, bank.ErrNotFound
	}
	return getJSON[bank.BatchRun](t.b(bktBatchRuns), u64(seq))
}

func (t *txn) DeleteTransaction(accountID, id string) error {
	sub, accountSeq := t.accountTxs(accountID)
	parent, seq, ok := bank.ParseID(bank.KindTransaction, id)
	if sub == nil || !ok || parent != accountSeq {
		return bank.ErrNotFound
	}
	sk := u64(seq)
	bySeq := sub.Bucket(subBySeq)
	date := bySeq.Get(sk)
	if date == nil {
		return bank.ErrNotFound
	}
	date = append([]byte(nil), date...)
	if string(date) == string(pendingMark) {
		if err := deleteIn(sub.Bucket(subPending), sk); err != nil {
			return err
		}
	} else {
		if err := sub.Bucket(subBooked).Delete(cat(date, sk)); err != nil {
			return err
		}
		if err := addDay(sub.Bucket(subDays), date, -1); err != nil {
			return err
		}
	}
	return bySeq.Delete(sk)
}

// deleteIn deletes a key from a bucket that may not exist.
func deleteIn(b *bolt.Bucket, k []byte) error {
	if b == nil {
		return nil
	}
	return b.Delete(k)
}
