package bank

import (
	"errors"

	"sandbank/bank/apierr"
)

// NewCustomer is the body of a customer creation (docs/SANDBOX-API.md).
type NewCustomer struct {
	CustomerNumber string `json:"customerNumber"`
	Name           string `json:"name"`
	Type           string `json:"type"`
}

// CustomerDetail is a customer with what belongs to them.
type CustomerDetail struct {
	Customer
	Agreements     []AgreementDetail
	AccountIDs     []string
	CardAccountIDs []string
}

// MaxImportedSeq bounds the sequence numbers that ids brought by a scenario
// may carry, far above any a data file hands out, so that a made-up id
// cannot use up the counters.
const MaxImportedSeq = 1 << 48

// newID returns the id for a new record: the given id when a scenario
// brings one (it must be an id of that kind and parent, and its sequence is
// reserved), else a fresh one.
func newID(tx Tx, v *apierr.Violations, path string, kind Kind, parent uint64, id string) (string, uint64, error) {
	if id == "" {
		seq, err := tx.NextSeq(kind)
		if err != nil {
			return "", 0, err
		}
		return FormatID(kind, parent, seq), seq, nil
	}
	seq, ok := givenID(v, path, kind, parent, id)
	if !ok {
		return "", 0, nil
	}
	return id, seq, tx.ReserveSeq(kind, seq)
}

// givenID checks the id a scenario brings for a record at path, of kind
// under parent, and returns its sequence number, which the caller
// reserves.
func givenID(v *apierr.Violations, path string, kind Kind, parent uint64, id string) (uint64, bool) {
	p, seq, ok := ParseID(kind, id)
	if !ok || p != parent || seq > MaxImportedSeq {
		v.Format(apierr.JoinPath(path, "id"), "%q is not a Sandbank id for this record; leave the id out to get a new one", apierr.Clip(id))
		return 0, false
	}
	return seq, true
}

// CreateCustomer adds a customer. A private customer has a private
// agreement from the start (PrivateAgreementID).
func (s *Sandbox) CreateCustomer(in NewCustomer) (Customer, error) {
	return change(s.core, "create customer", func(tx Tx) (c Customer, err error) {
		c, err = CreateCustomerIn(tx, "", "", in)
		return c, err
	}, Event{Kind: EventCustomers})
}

// CreateCustomerIn checks and stores a customer: the sandbox API's and a
// scenario's. Its type is matched without regard to case and kept as
// written, as the real bank keeps it.
func CreateCustomerIn(tx Tx, path, id string, in NewCustomer) (Customer, error) {
	var v apierr.Violations
	checkDigits(&v, apierr.JoinPath(path, "customerNumber"), in.CustomerNumber, 1, 20)
	CheckName(&v, apierr.JoinPath(path, "name"), in.Name, 1, 70)
	if OneOfCase(in.Type, CustomerTypes) == "" {
		if in.Type == "" {
			v.Format(apierr.JoinPath(path, "type"), "is required; private or corporate")
		} else {
			v.Format(apierr.JoinPath(path, "type"), "%q is not a customer type; use private or corporate (in any case)", apierr.Clip(in.Type))
		}
	}
	id, _, err := newID(tx, &v, path, KindCustomer, 0, id)
	if err != nil {
		return Customer{}, err
	}
	if err := v.Err(); err != nil {
		return Customer{}, err
	}
	if old, err := tx.CustomerByNumber(in.CustomerNumber); err == nil {
		return Customer{}, apierr.PathError(apierr.CodeConflict, apierr.JoinPath(path, "customerNumber"), "customer "+old.ID+" has customerNumber "+in.CustomerNumber+" already")
	} else if !errors.Is(err, ErrNotFound) {
		return Customer{}, err
	}
	if _, err := tx.Customer(id); err == nil {
		return Customer{}, apierr.PathError(apierr.CodeConflict, apierr.JoinPath(path, "id"), "two customers have the id "+id)
	}
	c := Customer{ID: id, Number: in.CustomerNumber, Name: in.Name, Type: in.Type} // as written
	return c, tx.PutCustomer(c)
}

// Customers lists every customer, with their accounts and card accounts
// when withAccounts is set and their agreements when withAgreements is set.
func (s *Sandbox) Customers(withAccounts, withAgreements bool) ([]CustomerDetail, error) {
	return read(s.core, "list customers", func(tx Tx) (out []CustomerDetail, err error) {
		list, err := tx.Customers()
		if err != nil {
			return out, err
		}
		out = make([]CustomerDetail, 0, len(list))
		for _, c := range list {
			d, err := customerDetail(tx, c, withAccounts, withAgreements)
			if err != nil {
				return out, err
			}
			out = append(out, d)
		}
		return out, nil
	})
}

// Customer returns one customer with everything that belongs to them.
func (s *Sandbox) Customer(id string) (CustomerDetail, error) {
	return read(s.core, "read customer", func(tx Tx) (d CustomerDetail, err error) {
		c, err := tx.Customer(id)
		if err != nil {
			return d, found(err, "customer", id)
		}
		d, err = customerDetail(tx, c, true, true)
		return d, err
	})
}

func customerDetail(tx Tx, c Customer, withAccounts, withAgreements bool) (CustomerDetail, error) {
	d := CustomerDetail{Customer: c}
	if withAccounts {
		accounts, err := tx.AccountsByOwner(c.ID)
		if err != nil {
			return d, err
		}
		d.AccountIDs = make([]string, len(accounts))
		for i, a := range accounts {
			d.AccountIDs[i] = a.ID
		}
		cards, err := tx.CardAccountsByOwner(c.ID)
		if err != nil {
			return d, err
		}
		d.CardAccountIDs = make([]string, len(cards))
		for i, ca := range cards {
			d.CardAccountIDs[i] = ca.ID
		}
	}
	if withAgreements {
		list, err := customerAgreements(tx, c)
		if err != nil {
			return d, err
		}
		d.Agreements = list
	}
	return d, nil
}

// DeleteCustomer deletes a customer and everything that exists for them:
// the agreements they own, their accounts and card accounts with all
// transactions, every engagement that names them or their accounts, and
// the consents and SCA sessions TPPs hold for them.
func (s *Sandbox) DeleteCustomer(id string) error {
	return s.write("delete customer", func(tx Tx) error {
		if _, err := tx.Customer(id); err != nil {
			return found(err, "customer", id)
		}
		return deleteCustomer(tx, id)
	}, Event{Kind: EventCustomers, ID: id}, Event{Kind: EventAccounts}, Event{Kind: EventCardAccounts}, Event{Kind: EventAgreements})
}

// UpdateCustomer renames a customer. The customerNumber and type are the
// customer's identity and do not change; create another customer instead.
func (s *Sandbox) UpdateCustomer(id, name string) (Customer, error) {
	return change(s.core, "update customer", func(tx Tx) (c Customer, err error) {
		if c, err = tx.Customer(id); err != nil {
			return c, found(err, "customer", id)
		}
		var v apierr.Violations
		CheckName(&v, "name", name, 1, 70)
		if err := v.Err(); err != nil {
			return c, err
		}
		c.Name = name
		return c, tx.PutCustomer(c)
	}, Event{Kind: EventCustomers, ID: id})
}

func deleteCustomer(tx Tx, id string) error {
	agreements, err := tx.AgreementsByOwner(id)
	if err != nil {
		return err
	}
	for _, a := range agreements {
		if err := deleteAgreement(tx, a.ID); err != nil {
			return err
		}
	}
	accounts, err := tx.AccountsByOwner(id)
	if err != nil {
		return err
	}
	for _, a := range accounts {
		if err := deleteAccount(tx, a.ID); err != nil {
			return err
		}
	}
	cards, err := tx.CardAccountsByOwner(id)
	if err != nil {
		return err
	}
	for _, c := range cards {
		if err := tx.DeleteCardAccount(c.ID); err != nil {
			return err
		}
	}
	engagements, err := tx.EngagementsByCustomer(id)
	if err != nil {
		return err
	}
	for _, e := range engagements {
		if err := tx.DeleteEngagement(e.ID); err != nil {
			return err
		}
	}
	grants, err := tx.Grants()
	if err != nil {
		return err
	}
	for _, g := range grants {
		if g.CustomerID == id {
			if err := tx.DeleteGrant(g); err != nil {
				return err
			}
		}
	}
	sessions, err := tx.Sessions()
	if err != nil {
		return err
	}
	for _, ss := range sessions {
		if ss.CustomerID == id {
			if err := tx.DeleteSession(ss.TPPID, ss.CustomerID); err != nil {
				return err
			}
		}
	}
	return tx.DeleteCustomer(id)
}
