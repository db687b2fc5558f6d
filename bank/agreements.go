package bank

import (
	"fmt"

	"github.com/shopspring/decimal"

	"sandbank/bank/apierr"
)

// NewAgreement is the body of an agreement creation: a corporate owner (by
// customerNumber), a name and, optionally, engagements.
type NewAgreement struct {
	Owner       string          `json:"owner"`
	Name        string          `json:"name"`
	Engagements []NewEngagement `json:"engagements,omitempty"`
}

// NewEngagement is the body of an engagement creation (spec 2.13).
type NewEngagement struct {
	Customer      string   `json:"customer"`
	Account       IBANRef  `json:"account"`
	Roles         []string `json:"roles"`
	RegisterLimit *Number  `json:"registerLimit"`
	ApprovalLimit *Number  `json:"approvalLimit"`
}

// specInt32s lists the engagement's numbers that the spec types as int32
// (noteFractions), at path.
func (in NewEngagement) specInt32s(path string) []specInt32 {
	return []specInt32{{apierr.JoinPath(path, "registerLimit"), in.RegisterLimit}, {apierr.JoinPath(path, "approvalLimit"), in.ApprovalLimit}}
}

// IBANRef names an account by IBAN.
type IBANRef struct {
	IBAN string `json:"iban"`
}

// AgreementDetail is an agreement with its owner and engagements.
type AgreementDetail struct {
	Agreement
	Owner       Customer
	Private     bool
	Engagements []EngagementDetail
	// Warnings are the oddities the change that returned the agreement was
	// accepted with (docs/TPP-GUIDE.md 9); none on a read.
	Warnings []apierr.Message
}

// EngagementDetail is an engagement with its PSU and account.
type EngagementDetail struct {
	Engagement
	Customer Customer
	Account  Account
	// Private is set for the derived engagements of a private agreement.
	Private bool
	// Warnings are the oddities the change that returned the engagement
	// was accepted with (docs/TPP-GUIDE.md 9); none on a read.
	Warnings []apierr.Message
}

// PrivateFlag marks the parent of a private agreement's engagement ids.
// A private agreement is not stored: its id carries the customer's
// sequence, and its engagements (one per owned account, role OWNER) carry
// the customer's and the account's.
const PrivateFlag = 1 << 55

// PrivateAgreementID returns the id of a private customer's agreement.
func PrivateAgreementID(customerID string) string {
	seq, _ := SeqOf(KindCustomer, customerID)
	return FormatID(KindAgreement, seq, 1)
}

// privateOwner returns the customer id of a private agreement id, ok false
// for any other id.
func privateOwner(agreementID string) (string, bool) {
	parent, seq, ok := ParseID(KindAgreement, agreementID)
	if !ok || parent == 0 || seq != 1 {
		return "", false
	}
	return FormatID(KindCustomer, 0, parent), true
}

// privateAgreement derives a private customer's agreement.
func privateAgreement(tx Tx, c Customer) (AgreementDetail, error) {
	custSeq, _ := SeqOf(KindCustomer, c.ID)
	d := AgreementDetail{
		Agreement:   Agreement{ID: PrivateAgreementID(c.ID), OwnerID: c.ID, Name: "Private agreement"},
		Owner:       c,
		Private:     true,
		Engagements: []EngagementDetail{},
	}
	accounts, err := tx.AccountsByOwner(c.ID)
	if err != nil {
		return d, err
	}
	for _, a := range accounts {
		acctSeq, _ := SeqOf(KindAccount, a.ID)
		d.Engagements = append(d.Engagements, EngagementDetail{
			Engagement: Engagement{
				ID:          FormatID(KindEngagement, PrivateFlag|custSeq, acctSeq),
				AgreementID: d.ID,
				CustomerID:  c.ID,
				AccountID:   a.ID,
				Roles:       []string{RoleOwner},
			},
			Customer: c,
			Account:  a,
			Private:  true,
		})
	}
	return d, nil
}

// agreementDetail loads an agreement, stored or private, with everything
// the API shows of it.
func agreementDetail(tx Tx, id string) (AgreementDetail, error) {
	if ownerID, ok := privateOwner(id); ok {
		c, err := tx.Customer(ownerID)
		if err != nil || !c.IsPrivate() {
			return AgreementDetail{}, unknown("agreement", id)
		}
		return privateAgreement(tx, c)
	}
	a, err := tx.Agreement(id)
	if err != nil {
		return AgreementDetail{}, found(err, "agreement", id)
	}
	owner, err := tx.Customer(a.OwnerID)
	if err != nil {
		return AgreementDetail{}, err
	}
	list, err := tx.EngagementsByAgreement(id)
	if err != nil {
		return AgreementDetail{}, err
	}
	d := AgreementDetail{Agreement: a, Owner: owner, Engagements: make([]EngagementDetail, 0, len(list))}
	for _, e := range list {
		ed, err := engagementDetail(tx, e)
		if err != nil {
			return d, err
		}
		d.Engagements = append(d.Engagements, ed)
	}
	return d, nil
}

func engagementDetail(tx Tx, e Engagement) (EngagementDetail, error) {
	c, err := tx.Customer(e.CustomerID)
	if err != nil {
		return EngagementDetail{}, err
	}
	a, err := tx.Account(e.AccountID)
	if err != nil {
		return EngagementDetail{}, err
	}
	return EngagementDetail{Engagement: e, Customer: c, Account: a}, nil
}

// customerAgreements lists the agreements related to a customer: their
// private agreement, the agreements they own and those they are engaged in.
func customerAgreements(tx Tx, c Customer) ([]AgreementDetail, error) {
	out := []AgreementDetail{}
	if c.IsPrivate() {
		d, err := privateAgreement(tx, c)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	seen := map[string]bool{}
	owned, err := tx.AgreementsByOwner(c.ID)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(owned))
	for _, a := range owned {
		ids = append(ids, a.ID)
	}
	engaged, err := tx.EngagementsByCustomer(c.ID)
	if err != nil {
		return nil, err
	}
	for _, e := range engaged {
		ids = append(ids, e.AgreementID)
	}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		d, err := agreementDetail(tx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// CreateAgreement adds a corporate agreement, with its engagements, in one
// step: when any engagement fails, nothing is stored.
func (s *Sandbox) CreateAgreement(in NewAgreement) (AgreementDetail, error) {
	return change(s.core, "create agreement", func(tx Tx) (d AgreementDetail, err error) {
		v := s.violations()
		for i, e := range in.Engagements {
			noteFractions(&v, e.specInt32s(fmt.Sprintf("engagements[%d]", i))...)
		}
		id, err := CreateAgreementIn(tx, &v, "", "", in, nil)
		if err != nil {
			return d, err
		}
		d, err = agreementDetail(tx, id)
		d.Warnings = v.Warnings()
		return d, err
	}, Event{Kind: EventAgreements})
}

// CreateAgreementIn stores an agreement; engagementIDs, when not nil, gives
// the ids a scenario brings for its engagements. v gathers the findings
// and oddities of the request it is part of.
func CreateAgreementIn(tx Tx, v *apierr.Violations, path, id string, in NewAgreement, engagementIDs []string) (string, error) {
	owner := lookupCustomer(tx, v, apierr.JoinPath(path, "owner"), in.Owner)
	if owner.ID != "" && !owner.IsCorporate() {
		v.Format(apierr.JoinPath(path, "owner"), "customer %s is private; a private customer's agreement comes with the customer, agreements are created for corporate customers", in.Owner)
	}
	CheckName(v, apierr.JoinPath(path, "name"), in.Name, 1, 70)
	id, seq, err := newID(tx, v, path, KindAgreement, 0, id)
	if err != nil {
		return "", err
	}
	if err := v.Err(); err != nil {
		return "", err
	}
	if _, err := tx.Agreement(id); err == nil {
		return "", apierr.PathError(apierr.CodeConflict, apierr.JoinPath(path, "id"), "two agreements have the id "+id)
	}
	a := Agreement{ID: id, OwnerID: owner.ID, Name: in.Name}
	if err := tx.PutAgreement(a); err != nil {
		return "", err
	}
	for i, e := range in.Engagements {
		eid := ""
		if i < len(engagementIDs) {
			eid = engagementIDs[i]
		}
		if _, err := createEngagement(tx, v, apierr.JoinPath(path, fmt.Sprintf("engagements[%d]", i)), eid, a, seq, e); err != nil {
			return "", err
		}
	}
	return id, nil
}

// lookupCustomer finds a customer by customerNumber for a request field,
// recording RESOURCE_UNKNOWN when there is none.
func lookupCustomer(tx Tx, v *apierr.Violations, path, number string) Customer {
	if number == "" {
		v.Format(path, "is required: a customerNumber")
		return Customer{}
	}
	c, err := tx.CustomerByNumber(number)
	if err != nil {
		v.Add(apierr.CodeResourceUnknown, path, fmt.Sprintf("no customer has customerNumber %s; create the customer first", apierr.Clip(number)))
		return Customer{}
	}
	return c
}

// Agreements lists every agreement: each private customer's and every
// corporate one.
func (s *Sandbox) Agreements() ([]AgreementDetail, error) {
	return read(s.core, "list agreements", func(tx Tx) (out []AgreementDetail, err error) {
		out = []AgreementDetail{}
		customers, err := tx.Customers()
		if err != nil {
			return out, err
		}
		for _, c := range customers {
			if c.IsPrivate() {
				d, err := privateAgreement(tx, c)
				if err != nil {
					return out, err
				}
				out = append(out, d)
			}
		}
		list, err := tx.Agreements()
		if err != nil {
			return out, err
		}
		for _, a := range list {
			d, err := agreementDetail(tx, a.ID)
			if err != nil {
				return out, err
			}
			out = append(out, d)
		}
		return out, nil
	})
}

// Agreement returns one agreement.
func (s *Sandbox) Agreement(id string) (AgreementDetail, error) {
	return read(s.core, "read agreement", func(tx Tx) (d AgreementDetail, err error) {
		d, err = agreementDetail(tx, id)
		return d, err
	})
}

// DeleteAgreement deletes a corporate agreement and its engagements.
func (s *Sandbox) DeleteAgreement(id string) error {
	return s.write("delete agreement", func(tx Tx) error {
		if _, ok := privateOwner(id); ok {
			if _, err := agreementDetail(tx, id); err != nil {
				return err
			}
			return apierr.Errorf(apierr.CodeConflict, "agreement %s is a private customer's own agreement; it goes when the customer is deleted", id)
		}
		if _, err := tx.Agreement(id); err != nil {
			return found(err, "agreement", id)
		}
		return deleteAgreement(tx, id)
	}, Event{Kind: EventAgreements, ID: id})
}

func deleteAgreement(tx Tx, id string) error {
	list, err := tx.EngagementsByAgreement(id)
	if err != nil {
		return err
	}
	for _, e := range list {
		if err := tx.DeleteEngagement(e.ID); err != nil {
			return err
		}
	}
	return tx.DeleteAgreement(id)
}

// CreateEngagement adds an engagement to a corporate agreement.
func (s *Sandbox) CreateEngagement(agreementID string, in NewEngagement) (EngagementDetail, error) {
	return change(s.core, "create engagement", func(tx Tx) (d EngagementDetail, err error) {
		a, seq, err := corporateAgreement(tx, agreementID, "add engagements to it")
		if err != nil {
			return d, err
		}
		v := s.violations()
		noteFractions(&v, in.specInt32s("")...)
		e, err := createEngagement(tx, &v, "", "", a, seq, in)
		if err != nil {
			return d, err
		}
		d, err = engagementDetail(tx, e)
		d.Warnings = v.Warnings()
		return d, err
	}, Event{Kind: EventAgreements, ID: agreementID})
}

// corporateAgreement loads a stored agreement for a change; a private
// agreement gets a CONFLICT that says the change is not possible there.
func corporateAgreement(tx Tx, id, change string) (Agreement, uint64, error) {
	if _, ok := privateOwner(id); ok {
		if _, err := agreementDetail(tx, id); err != nil {
			return Agreement{}, 0, err
		}
		return Agreement{}, 0, apierr.Errorf(apierr.CodeConflict, "agreement %s is a private customer's own agreement, which holds exactly the accounts they own; only corporate agreements let you %s", id, change)
	}
	a, err := tx.Agreement(id)
	if err != nil {
		return Agreement{}, 0, found(err, "agreement", id)
	}
	seq, _ := SeqOf(KindAgreement, id)
	return a, seq, nil
}

// createEngagement checks and stores an engagement of agreement a; v
// gathers the findings and oddities of the request it is part of.
func createEngagement(tx Tx, v *apierr.Violations, path, id string, a Agreement, agreementSeq uint64, in NewEngagement) (Engagement, error) {
	psu := lookupCustomer(tx, v, apierr.JoinPath(path, "customer"), in.Customer)
	var account Account
	ibanPath := apierr.JoinPath(path, "account.iban")
	if in.Account.IBAN == "" {
		v.Format(ibanPath, "is required")
	} else if acct, err := tx.AccountByIBAN(in.Account.IBAN); err != nil {
		v.Add(apierr.CodeResourceUnknown, ibanPath, fmt.Sprintf("no sandbox account has IBAN %s", apierr.Clip(in.Account.IBAN)))
	} else if acct.OwnerID != a.OwnerID {
		v.Format(ibanPath, "account %s is not owned by the agreement's owner; an engagement gives access to the owner's own accounts", in.Account.IBAN)
	} else {
		account = acct
	}
	roles := checkRoles(v, apierr.JoinPath(path, "roles"), in.Roles)
	currency := account.Currency
	if currency == "" {
		currency = "NOK"
	}
	register := checkEngagementLimit(v, apierr.JoinPath(path, "registerLimit"), in.RegisterLimit, currency,
		"which lets the PSU register no payment from the account (every amount is over it). Give the largest amount the PSU may register")
	approval := checkEngagementLimit(v, apierr.JoinPath(path, "approvalLimit"), in.ApprovalLimit, currency,
		"which lets the PSU approve no payment: each one they register waits for another approver whose limit covers it. Give the largest amount the PSU may approve")
	id, _, err := newID(tx, v, path, KindEngagement, agreementSeq, id)
	if err != nil {
		return Engagement{}, err
	}
	if err := v.Err(); err != nil {
		return Engagement{}, err
	}
	existing, err := tx.EngagementsByAgreement(a.ID)
	if err != nil {
		return Engagement{}, err
	}
	for _, e := range existing {
		if e.CustomerID == psu.ID && e.AccountID == account.ID {
			return Engagement{}, apierr.PathError(apierr.CodeConflict, path, fmt.Sprintf("customer %s is engaged on %s in this agreement already (engagement %s); delete that one to change it", in.Customer, in.Account.IBAN, e.ID))
		}
		if e.ID == id {
			return Engagement{}, apierr.PathError(apierr.CodeConflict, apierr.JoinPath(path, "id"), "two engagements have the id "+id)
		}
	}
	e := Engagement{
		ID: id, AgreementID: a.ID, CustomerID: psu.ID, AccountID: account.ID,
		Roles: roles, RegisterLimit: register, ApprovalLimit: approval,
	}
	return e, tx.PutEngagement(e)
}

// checkRoles checks an engagement's roles: each of Roles without regard
// to case, and each once. They are kept as written.
func checkRoles(v *apierr.Violations, path string, roles []string) []string {
	if len(roles) == 0 {
		v.Format(path, "needs at least one role of %s", joinComma(Roles))
		return nil
	}
	seen := map[string]bool{}
	for i, r := range roles {
		p := fmt.Sprintf("%s[%d]", path, i)
		role := OneOfCase(r, Roles)
		if checkOneOfCase(v, p, r, Roles) && seen[role] {
			v.Format(p, "role %s is listed twice", role)
		}
		seen[role] = true
	}
	return append([]string(nil), roles...)
}

// checkEngagementLimit checks an engagement's limit. One left out is odd:
// the bank takes 0, whose meaning says what that does.
func checkEngagementLimit(v *apierr.Violations, path string, n *Number, currency, meaning string) decimal.Decimal {
	if n == nil {
		v.Odd(apierr.CodeFormatError, path, "is not given; the bank takes 0, "+meaning)
		return decimal.Zero
	}
	return checkLimit(v, path, n, currency)
}

func checkLimit(v *apierr.Violations, path string, n *Number, currency string) decimal.Decimal {
	d, ok := checkSandboxAmount(v, path, n, currency)
	if ok && d.IsNegative() {
		v.Format(path, "must not be negative")
	}
	return d
}

// Engagements lists an agreement's engagements.
func (s *Sandbox) Engagements(agreementID string) ([]EngagementDetail, error) {
	d, err := s.Agreement(agreementID)
	return d.Engagements, err
}

// Engagement returns one engagement of an agreement.
func (s *Sandbox) Engagement(agreementID, id string) (EngagementDetail, error) {
	d, err := s.Agreement(agreementID)
	if err != nil {
		return EngagementDetail{}, err
	}
	for _, e := range d.Engagements {
		if e.ID == id {
			return e, nil
		}
	}
	return EngagementDetail{}, unknown("engagement", id)
}

// DeleteEngagement deletes an engagement from a corporate agreement.
func (s *Sandbox) DeleteEngagement(agreementID, id string) error {
	return s.write("delete engagement", func(tx Tx) error {
		if _, _, err := corporateAgreement(tx, agreementID, "delete engagements; delete the account instead"); err != nil {
			return err
		}
		e, err := tx.Engagement(id)
		if err != nil || e.AgreementID != agreementID {
			return unknown("engagement", id)
		}
		return tx.DeleteEngagement(id)
	}, Event{Kind: EventAgreements, ID: agreementID})
}
