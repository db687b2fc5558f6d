package storage

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"sandbank/bank"
)

// Consent records; the layout is in doc.go.

func (t *txn) Authorisation(id string) (bank.Authorisation, error) {
	k, ok := seqKey(bank.KindAuthorisation, id)
	if !ok {
		return bank.Authorisation{}, bank.ErrNotFound
	}
	return getJSON[bank.Authorisation](t.b(bktAuthorisations), k)
}

func (t *txn) Authorisations() ([]bank.Authorisation, error) {
	return listJSON[bank.Authorisation](t.b(bktAuthorisations))
}

func (t *txn) PutAuthorisation(a bank.Authorisation) error {
	k, ok := seqKey(bank.KindAuthorisation, a.ID)
	if !ok {
		return errBadID("authorisation", a.ID)
	}
	return putJSON(t.b(bktAuthorisations), k, a)
}

func (t *txn) DeleteAuthorisationsBefore(before time.Time) (int, error) {
	return deleteBefore(t.b(bktAuthorisations), before)
}

func (t *txn) Consent(id string) (bank.Consent, error) {
	k, ok := seqKey(bank.KindConsent, id)
	if !ok {
		return bank.Consent{}, bank.ErrNotFound
	}
	return consentMemo.get(t.b(bktConsents), k)
}

func (t *txn) Consents() ([]bank.Consent, error) {
	return consentMemo.list(t.b(bktConsents))
}

func (t *txn) PutConsent(c bank.Consent) error {
	k, ok := seqKey(bank.KindConsent, c.ID)
	if !ok {
		return errBadID("consent", c.ID)
	}
	return putJSON(t.b(bktConsents), k, c)
}

func (t *txn) DeleteConsentsBefore(before time.Time) (int, error) {
	return deleteBefore(t.b(bktConsents), before)
}

// deleteBefore deletes the records of a bucket in key (creation) order up
// to the first one created at or after before. Every record has a
// "created" time.
func deleteBefore(b *bolt.Bucket, before time.Time) (int, error) {
	c := b.Cursor()
	n := 0
	for k, v := c.First(); k != nil; k, v = c.First() {
		var r struct {
			Created time.Time `json:"created"`
		}
		if err := json.Unmarshal(v, &r); err != nil {
			return n, err
		}
		if !r.Created.Before(before) {
			break
		}
		if err := c.Delete(); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// customerKey is the 8-byte key of a customer id ("" for another string).
func customerKey(id string) []byte {
	k, ok := seqKey(bank.KindCustomer, id)
	if !ok {
		return nil
	}
	return k
}

func grantKey(tppID, customerID, context string) []byte {
	return cat([]byte(tppID), []byte{0}, customerKey(customerID), []byte{0}, []byte(context))
}

func (t *txn) Grant(tppID, customerID, context string) (bank.Grant, error) {
	return grantMemo.get(t.b(bktGrants), grantKey(tppID, customerID, context))
}

func (t *txn) Grants() ([]bank.Grant, error) { return grantMemo.list(t.b(bktGrants)) }

func (t *txn) PutGrant(g bank.Grant) error {
	return putJSON(t.b(bktGrants), grantKey(g.TPPID, g.CustomerID, g.Context), g)
}

func (t *txn) DeleteGrant(g bank.Grant) error {
	return t.b(bktGrants).Delete(grantKey(g.TPPID, g.CustomerID, g.Context))
}

func sessionKey(tppID, customerID string) []byte {
	return cat([]byte(tppID), []byte{0}, customerKey(customerID))
}

func (t *txn) Session(tppID, customerID string) (bank.Session, error) {
	return sessionMemo.get(t.b(bktSessions), sessionKey(tppID, customerID))
}

func (t *txn) Sessions() ([]bank.Session, error) { return sessionMemo.list(t.b(bktSessions)) }

func (t *txn) PutSession(s bank.Session) error {
	return putJSON(t.b(bktSessions), sessionKey(s.TPPID, s.CustomerID), s)
}

func (t *txn) DeleteSession(tppID, customerID string) error {
	return t.b(bktSessions).Delete(sessionKey(tppID, customerID))
}

func (t *txn) PSU(id string) (bank.PSU, error) {
	if id == "" {
		return bank.PSU{}, bank.ErrNotFound
	}
	return psuMemo.get(t.b(bktPSUs), []byte(id))
}

func (t *txn) PSUs() ([]bank.PSU, error) { return psuMemo.list(t.b(bktPSUs)) }

func (t *txn) PutPSU(p bank.PSU) error { return putJSON(t.b(bktPSUs), []byte(p.ID), p) }

func (t *txn) CountUse(day bank.Date, key string) (int, error) {
	b := t.b(bktUsage)
	prefix := u32(day.Key())
	// Counters of earlier days are of no use any more: drop them.
	c := b.Cursor()
	for k, _ := c.First(); k != nil && string(k[:4]) < string(prefix); k, _ = c.First() {
		if err := c.Delete(); err != nil {
			return 0, err
		}
	}
	k := cat(prefix, []byte(key))
	n := 0
	if v := b.Get(k); len(v) == 4 {
		n = int(binary.BigEndian.Uint32(v))
	}
	n++
	return n, b.Put(k, u32(uint32(n)))
}

func (t *txn) Uses() ([]bank.UseCount, error) {
	out := []bank.UseCount{}
	err := t.b(bktUsage).ForEach(func(k, v []byte) error {
		if len(k) < 4 || len(v) != 4 {
			return fmt.Errorf("usage counter %x is not a day, a key and a count", k)
		}
		out = append(out, bank.UseCount{Day: bank.DateFromKey(binary.BigEndian.Uint32(k)), Key: string(k[4:]), Count: int(binary.BigEndian.Uint32(v))})
		return nil
	})
	return out, err
}

func (t *txn) PutUse(u bank.UseCount) error {
	return t.b(bktUsage).Put(cat(u32(u.Day.Key()), []byte(u.Key)), u32(uint32(u.Count)))
}
