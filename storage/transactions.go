package storage

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	bolt "go.etcd.io/bbolt"

	"sandbank/bank"
)

// An account's transactions live in the sub-bucket transactions/<account
// seq>, which holds:
//
//	b: <booking date YYYYMMDD, 4 bytes><tx seq, 8 bytes> -> booked transaction
//	p: <tx seq> -> pending transaction
//	s: <tx seq> -> <booking date>, or 0000 when pending  (lookup by id)
//	d: <booking date> -> <count, 4 bytes>    (paging by offset without a scan)
//
// A card account's live in cardTransactions/<card seq> with b and d as
// above (seq from the sub-bucket's own sequence), p: <seq> -> pending card
// transaction JSON, and i: <cardTransactionId> -> <seq> for uniqueness.

func u32(v uint32) []byte {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], v)
	return b[:]
}

// txSub returns the transaction sub-bucket of a parent record, creating it
// when create is true; nil when it does not exist.
func txSub(parent *bolt.Bucket, owner []byte, create bool, names ...[]byte) (*bolt.Bucket, error) {
	b := parent.Bucket(owner)
	if b == nil {
		if !create {
			return nil, nil
		}
		var err error
		if b, err = parent.CreateBucket(owner); err != nil {
			return nil, err
		}
		for _, n := range names {
			if _, err := b.CreateBucket(n); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

// addDay changes the count of booked transactions on a date by delta.
func addDay(days *bolt.Bucket, date []byte, delta int) error {
	n := 0
	if v := days.Get(date); len(v) == 4 {
		n = int(binary.BigEndian.Uint32(v))
	}
	n += delta
	if n <= 0 {
		return days.Delete(date)
	}
	return days.Put(date, u32(uint32(n)))
}

// inKeyOrder returns the order of txs by their key in the booked bucket
// (booking date, then sequence number; pending ones first), as indexes
// of txs, so that a large batch in another order (a scenario lists the
// newest first) adds each key after the one before rather than at the
// front of a page that grows with each, and whether each id comes once.
// When an id comes twice, the order is left as it is: the later one
// replaces the earlier.
// seqs are the sequence numbers of txs' ids.
func inKeyOrder(txs []bank.Transaction, seqs []uint64) ([]int, bool) {
	type keyed struct {
		date  uint32
		seq   uint64
		index int // in txs: the keys are sorted, not the large records
	}
	list := make([]keyed, len(txs))
	seen := make(map[uint64]bool, len(txs))
	unique := true
	for i, tx := range txs {
		seq := seqs[i]
		unique = unique && !seen[seq]
		seen[seq] = true
		list[i] = keyed{seq: seq, index: i}
		if !tx.Pending {
			list[i].date = tx.BookingDate.Key()
		}
	}
	if unique {
		slices.SortFunc(list, func(a, b keyed) int {
			return cmp.Or(cmp.Compare(a.date, b.date), cmp.Compare(a.seq, b.seq))
		})
	}
	order := make([]int, len(list))
	for i, k := range list {
		order[i] = k.index
	}
	return order, unique
}

// seqMark is an entry of the id index: a transaction's sequence number and
// where it is (its booking date, or pendingMark).
type seqMark struct{ seq, mark []byte }

func (t *txn) PutTransactions(accountID string, txs []bank.Transaction) error {
	acct, ok := seqKey(bank.KindAccount, accountID)
	if !ok {
		return errBadID("account", accountID)
	}
	sub, err := txSub(t.b(bktTransactions), acct, true, subBooked, subBySeq, subDays)
	if err != nil {
		return err
	}
	pending, err := sub.CreateBucketIfNotExists(subPending)
	if err != nil {
		return err
	}
	booked, bySeq, days := sub.Bucket(subBooked), sub.Bucket(subBySeq), sub.Bucket(subDays)
	// Transactions mostly arrive in key order (new dates, rising seqs):
	// fuller pages halve the file without slowing those appends.
	booked.FillPercent, bySeq.FillPercent = 0.9, 0.95
	accountSeq := binary.BigEndian.Uint64(acct)
	// The id index is keyed by sequence number alone, an order the booked
	// one's is not (a newest-first list has falling numbers on rising
	// dates). When each id comes once, its entries are put last, in their
	// own key order, for the same reason the records are; otherwise each
	// goes in at once, for the next one of the same id to find it.
	// Each id is read once (ParseID decrypts it).
	seqs := make([]uint64, len(txs))
	for i, tx := range txs {
		parent, seq, ok := bank.ParseID(bank.KindTransaction, tx.ID)
		if !ok || parent != accountSeq {
			return fmt.Errorf("store transaction: %q is not a transaction id of account %s", tx.ID, accountID)
		}
		seqs[i] = seq
	}
	order, unique := inKeyOrder(txs, seqs)
	var index []seqMark
	if unique {
		index = make([]seqMark, 0, len(txs))
	}
	perDay := map[uint32]int{} // the change of each day's count, put last
	mark := func(sk, where []byte) error {
		if unique {
			index = append(index, seqMark{sk, where})
			return nil
		}
		return bySeq.Put(sk, where)
	}
	for _, k := range order {
		tx := &txs[k]
		sk := u64(seqs[k])
		if old := bySeq.Get(sk); old != nil {
			oldDate := append([]byte(nil), old...)
			if string(oldDate) == string(pendingMark) {
				if err := pending.Delete(sk); err != nil {
					return err
				}
			} else {
				if err := booked.Delete(cat(oldDate, sk)); err != nil {
					return err
				}
				perDay[binary.BigEndian.Uint32(oldDate)]--
			}
		}
		if tx.Pending {
			if err := pending.Put(sk, encodeTransaction(*tx)); err != nil {
				return err
			}
			if err := mark(sk, pendingMark); err != nil {
				return err
			}
			continue
		}
		date := u32(tx.BookingDate.Key())
		if err := booked.Put(cat(date, sk), encodeTransaction(*tx)); err != nil {
			return err
		}
		if err := mark(sk, date); err != nil {
			return err
		}
		perDay[tx.BookingDate.Key()]++
	}
	for _, d := range slices.Sorted(maps.Keys(perDay)) {
		if perDay[d] == 0 {
			continue
		}
		if err := addDay(days, u32(d), perDay[d]); err != nil {
			return err
		}
	}
	slices.SortFunc(index, func(a, b seqMark) int { return bytes.Compare(a.seq, b.seq) })
	for _, e := range index {
		if err := bySeq.Put(e.seq, e.mark); err != nil {
			return err
		}
	}
	return nil
}

// accountTxs returns the transactions bucket of the account accountID
// and the account's sequence number; nil when accountID is not an
// account's id or the account has no transactions.
func (t *txn) accountTxs(accountID string) (*bolt.Bucket, uint64) {
	acct, ok := seqKey(bank.KindAccount, accountID)
	if !ok {
		return nil, 0
	}
	sub, _ := txSub(t.b(bktTransactions), acct, false)
	return sub, binary.BigEndian.Uint64(acct)
}

func (t *txn) Transaction(accountID, id string) (bank.Transaction, error) {
	sub, accountSeq := t.accountTxs(accountID)
	parent, seq, ok := bank.ParseID(bank.KindTransaction, id)
	if sub == nil || !ok || parent != accountSeq {
		return bank.Transaction{}, bank.ErrNotFound
	}
	sk := u64(seq)
	date := sub.Bucket(subBySeq).Get(sk)
	if date == nil {
		return bank.Transaction{}, bank.ErrNotFound
	}
	var raw []byte
	if string(date) == string(pendingMark) {
		if p := sub.Bucket(subPending); p != nil {
			raw = p.Get(sk)
		}
	} else {
		raw = sub.Bucket(subBooked).Get(cat(date, sk))
	}
	if raw == nil {
		return bank.Transaction{}, fmt.Errorf("transaction %s: the id index points to no record", id)
	}
	tx, err := decodeTransaction(raw)
	if err != nil {
		return tx, fmt.Errorf("decode transaction %s: %w", id, err)
	}
	tx.ID, tx.Pending = id, string(date) == string(pendingMark)
	return tx, nil
}

func (t *txn) KnownTransactions(accountID string, ids []string) ([]bool, error) {
	known := make([]bool, len(ids))
	sub, accountSeq := t.accountTxs(accountID)
	if sub == nil {
		return known, nil
	}
	bySeq := sub.Bucket(subBySeq)
	for i, id := range ids {
		parent, seq, ok := bank.ParseID(bank.KindTransaction, id)
		known[i] = ok && parent == accountSeq && bySeq.Get(u64(seq)) != nil
	}
	return known, nil
}

func (t *txn) Transactions(accountID string, q bank.TxQuery) (bank.TxPage, error) {
	page := bank.TxPage{Transactions: []bank.Transaction{}}
	sub, accountSeq := t.accountTxs(accountID)
	if sub == nil {
		return page, nil
	}
	total, err := scanPage(sub.Bucket(subBooked), sub.Bucket(subDays), q, func(k, v []byte) error {
		tx, err := decodeTransaction(v)
		if err != nil {
			return fmt.Errorf("decode transaction %x: %w", k, err)
		}
		tx.ID = bank.FormatID(bank.KindTransaction, accountSeq, binary.BigEndian.Uint64(k[4:]))
		page.Transactions = append(page.Transactions, tx)
		return nil
	})
	page.Total = total
	return page, err
}

// pendingMark stands in the by-seq index for the date of a pending
// transaction.
var pendingMark = []byte{0, 0, 0, 0}

func (t *txn) PendingTransactions(accountID string) ([]bank.Transaction, error) {
	out := []bank.Transaction{}
	sub, accountSeq := t.accountTxs(accountID)
	if sub == nil || sub.Bucket(subPending) == nil {
		return out, nil
	}
	c := sub.Bucket(subPending).Cursor()
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		tx, err := decodeTransaction(v)
		if err != nil {
			return nil, fmt.Errorf("decode pending transaction %x: %w", k, err)
		}
		tx.ID, tx.Pending = bank.FormatID(bank.KindTransaction, accountSeq, binary.BigEndian.Uint64(k)), true
		out = append(out, tx)
	}
	return out, nil
}

// scanPage visits one page of a booked bucket (keys <date><seq>), newest
// first, within the query's dates, and returns how many entries match in
// all. The day counts let it skip Offset entries with one cursor step per
// day instead of one per entry.
func scanPage(booked, days *bolt.Bucket, q bank.TxQuery, visit func(k, v []byte) error) (int, error) {
	from, to := uint32(0), ^uint32(0)
	if !q.From.IsZero() {
		from = q.From.Key()
	}
	if !q.To.IsZero() {
		to = q.To.Key()
	}
	if from > to {
		return 0, nil
	}
	// Walk the day counts from the newest day in range: sum the total and
	// find the day on which the page starts.
	total, skip := 0, q.Offset
	var startDay uint32
	started := false
	dc := days.Cursor()
	k, v := seekLastAtOrBefore(dc, u32(to))
	for ; k != nil; k, v = dc.Prev() {
		day := binary.BigEndian.Uint32(k)
		if day < from {
			break
		}
		n := int(binary.BigEndian.Uint32(v))
		if !started {
			if skip < n {
				startDay, started = day, true
			} else {
				skip -= n
			}
		}
		total += n
	}
	if !started || q.Limit < 0 {
		return total, nil
	}
	// Seek to the newest entry of the start day and walk back.
	bc := booked.Cursor()
	bk, bv := seekLastAtOrBefore(bc, cat(u32(startDay), u64(^uint64(0))))
	for ; bk != nil && skip > 0; bk, bv = bc.Prev() {
		skip--
	}
	for n := 0; bk != nil && (q.Limit == 0 || n < q.Limit); bk, bv = bc.Prev() {
		if binary.BigEndian.Uint32(bk[:4]) < from {
			break
		}
		if err := visit(bk, bv); err != nil {
			return 0, err
		}
		n++
	}
	return total, nil
}

// seekLastAtOrBefore positions c on the last key that is <= k.
func seekLastAtOrBefore(c *bolt.Cursor, k []byte) ([]byte, []byte) {
	ck, cv := c.Seek(k)
	switch {
	case ck == nil:
		return c.Last()
	case string(ck) != string(k):
		return c.Prev()
	}
	return ck, cv
}

func (t *txn) DeleteTransactions(accountID string) error {
	return t.deleteAll(bktTransactions, bank.KindAccount, accountID)
}

// deleteAll deletes every transaction of the account or card account id
// (of kind) in bucket.
func (t *txn) deleteAll(bucket []byte, kind bank.Kind, id string) error {
	key, ok := seqKey(kind, id)
	if !ok {
		return bank.ErrNotFound
	}
	return deleteSub(t.b(bucket), key)
}

// --- card transactions ---

func (t *txn) PutCardTransactions(cardAccountID string, txs []bank.CardTransaction) error {
	card, ok := seqKey(bank.KindCardAccount, cardAccountID)
	if !ok {
		return errBadID("card account", cardAccountID)
	}
	sub, err := txSub(t.b(bktCardTransactions), card, true, subBooked, subPending, subDays, subByCTID)
	if err != nil {
		return err
	}
	for _, tx := range txs {
		seq, err := sub.NextSequence()
		if err != nil {
			return err
		}
		sk := u64(seq)
		if err := sub.Bucket(subByCTID).Put([]byte(tx.CardTransactionID), sk); err != nil {
			return err
		}
		if tx.Pending() {
			if err := putJSON(sub.Bucket(subPending), sk, tx); err != nil {
				return err
			}
			continue
		}
		date := u32(tx.BookingDate.Key())
		if err := putJSON(sub.Bucket(subBooked), cat(date, sk), tx); err != nil {
			return err
		}
		if err := addDay(sub.Bucket(subDays), date, 1); err != nil {
			return err
		}
	}
	return nil
}

func (t *txn) HasCardTransaction(cardAccountID, cardTransactionID string) (bool, error) {
	card, ok := seqKey(bank.KindCardAccount, cardAccountID)
	if !ok {
		return false, nil
	}
	sub, _ := txSub(t.b(bktCardTransactions), card, false)
	return sub != nil && sub.Bucket(subByCTID).Get([]byte(cardTransactionID)) != nil, nil
}

func (t *txn) CardTransactions(cardAccountID string, q bank.TxQuery) (bank.CardTxPage, error) {
	page := bank.CardTxPage{Booked: []bank.CardTransaction{}, Pending: []bank.CardTransaction{}}
	card, ok := seqKey(bank.KindCardAccount, cardAccountID)
	if !ok {
		return page, nil
	}
	sub, _ := txSub(t.b(bktCardTransactions), card, false)
	if sub == nil {
		return page, nil
	}
	total, err := scanPage(sub.Bucket(subBooked), sub.Bucket(subDays), q, func(k, v []byte) error {
		tx, err := decodeCard(k, v)
		page.Booked = append(page.Booked, tx)
		return err
	})
	if err != nil {
		return page, err
	}
	page.Total = total
	c := sub.Bucket(subPending).Cursor()
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		tx, err := decodeCard(k, v)
		if err != nil {
			return page, err
		}
		page.Pending = append(page.Pending, tx)
	}
	return page, nil
}

func decodeCard(k, v []byte) (bank.CardTransaction, error) {
	var tx bank.CardTransaction
	if err := json.Unmarshal(v, &tx); err != nil {
		return tx, fmt.Errorf("decode card transaction %x: %w", k, err)
	}
	return tx, nil
}

func (t *txn) DeleteCardTransactions(cardAccountID string) error {
	return t.deleteAll(bktCardTransactions, bank.KindCardAccount, cardAccountID)
}
