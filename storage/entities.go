package storage

import (
	"errors"
	"fmt"

	"sandbank/bank"

	bolt "go.etcd.io/bbolt"
)

// --- customers ---

func (t *txn) Customer(id string) (bank.Customer, error) {
	k, ok := seqKey(bank.KindCustomer, id)
	if !ok {
		return bank.Customer{}, bank.ErrNotFound
	}
	return customerMemo.get(t.b(bktCustomers), k)
}

func (t *txn) CustomerByNumber(number string) (bank.Customer, error) {
	k := t.b(bktCustomersByNumber).Get([]byte(number))
	if k == nil {
		return bank.Customer{}, bank.ErrNotFound
	}
	return customerMemo.get(t.b(bktCustomers), k)
}

func (t *txn) Customers() ([]bank.Customer, error) {
	return customerMemo.list(t.b(bktCustomers))
}

func customerIndexes(c bank.Customer, k []byte) ([]indexEntry, error) {
	return []indexEntry{{bktCustomersByNumber, []byte(c.Number), k}}, nil
}

func (t *txn) PutCustomer(c bank.Customer) error {
	k, ok := seqKey(bank.KindCustomer, c.ID)
	if !ok {
		return errBadID("customer", c.ID)
	}
	return putIndexed(t, bktCustomers, k, c, customerIndexes)
}

func (t *txn) DeleteCustomer(id string) error {
	k, ok := seqKey(bank.KindCustomer, id)
	if !ok {
		return bank.ErrNotFound
	}
	return deleteIndexed(t, bktCustomers, k, customerIndexes)
}

// --- agreements ---

func (t *txn) Agreement(id string) (bank.Agreement, error) {
	k, ok := seqKey(bank.KindAgreement, id)
	if !ok {
		return bank.Agreement{}, bank.ErrNotFound
	}
	return agreementMemo.get(t.b(bktAgreements), k)
}

func (t *txn) Agreements() ([]bank.Agreement, error) {
	return agreementMemo.list(t.b(bktAgreements))
}

func (t *txn) AgreementsByOwner(customerID string) ([]bank.Agreement, error) {
	owner, ok := seqKey(bank.KindCustomer, customerID)
	if !ok {
		return []bank.Agreement{}, nil
	}
	return listByPrefix(t.b(bktAgreementsByOwner), owner, func(rest []byte) (bank.Agreement, error) {
		return agreementMemo.get(t.b(bktAgreements), rest)
	})
}

func agreementIndexes(a bank.Agreement, k []byte) ([]indexEntry, error) {
	owner, ok := seqKey(bank.KindCustomer, a.OwnerID)
	if !ok {
		return nil, errBadID("customer", a.OwnerID)
	}
	return []indexEntry{{bktAgreementsByOwner, cat(owner, k), nil}}, nil
}

func (t *txn) PutAgreement(a bank.Agreement) error {
	k, ok := seqKey(bank.KindAgreement, a.ID)
	if !ok {
		return errBadID("agreement", a.ID)
	}
	return putIndexed(t, bktAgreements, k, a, agreementIndexes)
}

func (t *txn) DeleteAgreement(id string) error {
	k, ok := seqKey(bank.KindAgreement, id)
	if !ok {
		return bank.ErrNotFound
	}
	return deleteIndexed(t, bktAgreements, k, agreementIndexes)
}

// --- engagements ---

// engagementKey is agreement seq + engagement seq.
func engagementKey(id string) ([]byte, bool) {
	parent, seq, ok := bank.ParseID(bank.KindEngagement, id)
	if !ok || parent == 0 || parent >= bank.PrivateFlag {
		return nil, false
	}
	return cat(u64(parent), u64(seq)), true
}

func (t *txn) Engagement(id string) (bank.Engagement, error) {
	k, ok := engagementKey(id)
	if !ok {
		return bank.Engagement{}, bank.ErrNotFound
	}
	return engagementMemo.get(t.b(bktEngagements), k)
}

func (t *txn) loadEngagement(key []byte) (bank.Engagement, error) {
	return engagementMemo.get(t.b(bktEngagements), key)
}

func (t *txn) EngagementsByAgreement(agreementID string) ([]bank.Engagement, error) {
	agr, ok := seqKey(bank.KindAgreement, agreementID)
	if !ok {
		return []bank.Engagement{}, nil
	}
	out := []bank.Engagement{}
	c := t.b(bktEngagements).Cursor()
	for k, _ := c.Seek(agr); k != nil && hasPrefix(k, agr); k, _ = c.Next() {
		e, err := t.loadEngagement(k)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func (t *txn) EngagementsByCustomer(customerID string) ([]bank.Engagement, error) {
	cust, ok := seqKey(bank.KindCustomer, customerID)
	if !ok {
		return []bank.Engagement{}, nil
	}
	return listByPrefix(t.b(bktEngByCustomer), cust, t.loadEngagement)
}

func (t *txn) EngagementsByAccount(accountID string) ([]bank.Engagement, error) {
	acct, ok := seqKey(bank.KindAccount, accountID)
	if !ok {
		return []bank.Engagement{}, nil
	}
	return listByPrefix(t.b(bktEngByAccount), acct, t.loadEngagement)
}

func engagementIndexes(e bank.Engagement, k []byte) ([]indexEntry, error) {
	cust, ok := seqKey(bank.KindCustomer, e.CustomerID)
	if !ok {
		return nil, errBadID("customer", e.CustomerID)
	}
	acct, ok := seqKey(bank.KindAccount, e.AccountID)
	if !ok {
		return nil, errBadID("account", e.AccountID)
	}
	return []indexEntry{{bktEngByCustomer, cat(cust, k), nil}, {bktEngByAccount, cat(acct, k), nil}}, nil
}

func (t *txn) PutEngagement(e bank.Engagement) error {
	k, ok := engagementKey(e.ID)
	if !ok {
		return errBadID("engagement", e.ID)
	}
	return putIndexed(t, bktEngagements, k, e, engagementIndexes)
}

func (t *txn) DeleteEngagement(id string) error {
	k, ok := engagementKey(id)
	if !ok {
		return bank.ErrNotFound
	}
	return deleteIndexed(t, bktEngagements, k, engagementIndexes)
}

// --- accounts ---

func (t *txn) Account(id string) (bank.Account, error) {
	k, ok := seqKey(bank.KindAccount, id)
	if !ok {
		return bank.Account{}, bank.ErrNotFound
	}
	return accountMemo.get(t.b(bktAccounts), k)
}

func (t *txn) accountBy(index []byte, value string) (bank.Account, error) {
	if value == "" {
		return bank.Account{}, bank.ErrNotFound
	}
	k := t.b(index).Get([]byte(value))
	if k == nil {
		return bank.Account{}, bank.ErrNotFound
	}
	return accountMemo.get(t.b(bktAccounts), k)
}

func (t *txn) AccountByIBAN(iban string) (bank.Account, error) {
	return t.accountBy(bktAccountsByIBAN, iban)
}

func (t *txn) AccountByBBAN(bban string) (bank.Account, error) {
	return t.accountBy(bktAccountsByBBAN, bban)
}

func (t *txn) Accounts() ([]bank.Account, error) {
	return accountMemo.list(t.b(bktAccounts))
}

func (t *txn) AccountsByOwner(customerID string) ([]bank.Account, error) {
	owner, ok := seqKey(bank.KindCustomer, customerID)
	if !ok {
		return []bank.Account{}, nil
	}
	return listByPrefix(t.b(bktAccountsByOwner), owner, func(rest []byte) (bank.Account, error) {
		return accountMemo.get(t.b(bktAccounts), rest)
	})
}

// accountIndexes lists the index entries of an account.
func accountIndexes(a bank.Account, k []byte) ([]indexEntry, error) {
	owner, ok := seqKey(bank.KindCustomer, a.OwnerID)
	if !ok {
		return nil, errBadID("customer", a.OwnerID)
	}
	out := []indexEntry{{bktAccountsByOwner, cat(owner, k), nil}}
	if a.IBAN != "" {
		out = append(out, indexEntry{bktAccountsByIBAN, []byte(a.IBAN), k})
	}
	if a.BBAN != "" {
		out = append(out, indexEntry{bktAccountsByBBAN, []byte(a.BBAN), k})
	}
	return out, nil
}

func (t *txn) PutAccount(a bank.Account) error {
	k, ok := seqKey(bank.KindAccount, a.ID)
	if !ok {
		return errBadID("account", a.ID)
	}
	return putIndexed(t, bktAccounts, k, a, accountIndexes)
}

func (t *txn) DeleteAccount(id string) error {
	k, ok := seqKey(bank.KindAccount, id)
	if !ok {
		return bank.ErrNotFound
	}
	if err := deleteIndexed(t, bktAccounts, k, accountIndexes); err != nil {
		return err
	}
	return deleteSub(t.b(bktTransactions), k)
}

// --- card accounts ---

func (t *txn) CardAccount(id string) (bank.CardAccount, error) {
	k, ok := seqKey(bank.KindCardAccount, id)
	if !ok {
		return bank.CardAccount{}, bank.ErrNotFound
	}
	return getJSON[bank.CardAccount](t.b(bktCards), k)
}

func (t *txn) CardAccounts() ([]bank.CardAccount, error) {
	return listJSON[bank.CardAccount](t.b(bktCards))
}

func (t *txn) CardAccountsByOwner(customerID string) ([]bank.CardAccount, error) {
	owner, ok := seqKey(bank.KindCustomer, customerID)
	if !ok {
		return []bank.CardAccount{}, nil
	}
	return listByPrefix(t.b(bktCardsByOwner), owner, func(rest []byte) (bank.CardAccount, error) {
		return getJSON[bank.CardAccount](t.b(bktCards), rest)
	})
}

func cardIndexes(c bank.CardAccount, k []byte) ([]indexEntry, error) {
	owner, ok := seqKey(bank.KindCustomer, c.OwnerID)
	if !ok {
		return nil, errBadID("customer", c.OwnerID)
	}
	return []indexEntry{{bktCardsByOwner, cat(owner, k), nil}}, nil
}

func (t *txn) PutCardAccount(c bank.CardAccount) error {
	k, ok := seqKey(bank.KindCardAccount, c.ID)
	if !ok {
		return errBadID("card account", c.ID)
	}
	return putIndexed(t, bktCards, k, c, cardIndexes)
}

func (t *txn) DeleteCardAccount(id string) error {
	k, ok := seqKey(bank.KindCardAccount, id)
	if !ok {
		return bank.ErrNotFound
	}
	if err := deleteIndexed(t, bktCards, k, cardIndexes); err != nil {
		return err
	}
	return deleteSub(t.b(bktCardTransactions), k)
}

// errBadID reports a record whose id is not a Sandbank id of its kind: a
// programming error, since the bank makes every id it stores.
func errBadID(what, id string) error {
	return fmt.Errorf("store %s: %q is not a %s id", what, id, what)
}

// --- shared helpers for records with secondary indexes ---

// indexEntry is one key of a secondary index bucket and its value.
type indexEntry struct {
	bucket []byte
	key    []byte
	value  []byte
}

// putIndexed stores v at k in bucket and replaces the index entries of the
// previous version of the record with those of v.
func putIndexed[T any](t *txn, bucket, k []byte, v T, indexes func(T, []byte) ([]indexEntry, error)) error {
	if old, err := getJSON[T](t.b(bucket), k); err == nil {
		if err := removeIndexes(t, old, k, indexes); err != nil {
			return err
		}
	} else if !errors.Is(err, bank.ErrNotFound) {
		return err
	}
	entries, err := indexes(v, k)
	if err != nil {
		return err
	}
	if err := putJSON(t.b(bucket), k, v); err != nil {
		return err
	}
	for _, e := range entries {
		if err := t.b(e.bucket).Put(e.key, e.value); err != nil {
			return err
		}
	}
	return nil
}

func deleteIndexed[T any](t *txn, bucket, k []byte, indexes func(T, []byte) ([]indexEntry, error)) error {
	old, err := getJSON[T](t.b(bucket), k)
	if err != nil {
		return err
	}
	if err := removeIndexes(t, old, k, indexes); err != nil {
		return err
	}
	return t.b(bucket).Delete(k)
}

func removeIndexes[T any](t *txn, old T, k []byte, indexes func(T, []byte) ([]indexEntry, error)) error {
	entries, err := indexes(old, k)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := t.b(e.bucket).Delete(e.key); err != nil {
			return err
		}
	}
	return nil
}

// deleteSub deletes the sub-bucket k of parent if it exists.
func deleteSub(parent *bolt.Bucket, k []byte) error {
	if parent.Bucket(k) == nil {
		return nil
	}
	return parent.DeleteBucket(k)
}
