package bank

import (
	"fmt"
	"strings"

	"sandbank/bank/apierr"
	"sandbank/bank/validate"
)

// BankBIC is the BIC of the sandbox bank, the agent of every sandbox
// account on the transactions of its payments. It is a test BIC: the 0 in
// the second place of its location code marks one (ISO 9362), so it names
// no real bank.
const BankBIC = "SANDNOK0"

// NewAccount is the body of an account creation (spec 2.10). Sandbank
// derives a Norwegian IBAN from an 11-digit BBAN, or the BBAN from a NO
// IBAN, when only one of them is given. KIDRequired and Status are
// Sandbank's extensions.
type NewAccount struct {
	CustomerNumber  string         `json:"customerNumber"`
	AccountName     string         `json:"accountName"`
	BBAN            string         `json:"bban"`
	IBAN            string         `json:"iban"`
	Currency        string         `json:"currency"`
	Product         string         `json:"product"`
	CashAccountType string         `json:"cashAccountType"`
	CreditLine      *Number        `json:"creditLine"`
	Balances        []BalanceInput `json:"balances"`
	KIDRequired     bool           `json:"kidRequired,omitempty"`
	Status          string         `json:"status,omitempty"`
}

// BalanceInput is one balance of a request: a type (closingBooked or
// expected, any case, underscores allowed) and an amount.
type BalanceInput struct {
	BalanceType   string      `json:"balanceType"`
	BalanceAmount AmountInput `json:"balanceAmount"`
}

// AmountInput is an amount of a sandbox request.
type AmountInput struct {
	Amount   *Number `json:"amount"`
	Currency string  `json:"currency"`
}

// AccountDetail is an account with its owner.
type AccountDetail struct {
	Account
	Owner Customer
	// Warnings are the oddities the change that returned the account was
	// accepted with (docs/TPP-GUIDE.md 9); none on a read.
	Warnings []apierr.Message
}

// CreateAccount adds an account. A private owner's account joins their
// private agreement at once; a corporate owner's becomes visible to PSUs
// through engagements.
func (s *Sandbox) CreateAccount(in NewAccount) (AccountDetail, error) {
	return change(s.core, "create account", func(tx Tx) (d AccountDetail, err error) {
		v := s.violations()
		noteFractions(&v, specInt32{"creditLine", in.CreditLine})
		a, err := CreateAccountIn(tx, &v, "", "", in)
		if err != nil {
			return d, err
		}
		d, err = accountDetail(tx, a)
		d.Warnings = v.Warnings()
		return d, err
	}, Event{Kind: EventAccounts}, Event{Kind: EventCustomers})
}

// CreateAccountIn checks and stores an account; v gathers the findings
// and oddities of the request it is part of.
func CreateAccountIn(tx Tx, v *apierr.Violations, path, id string, in NewAccount) (Account, error) {
	p := func(field string) string { return apierr.JoinPath(path, field) }
	owner := lookupCustomer(tx, v, p("customerNumber"), in.CustomerNumber)
	CheckName(v, p("accountName"), in.AccountName, 1, 70)
	bban, iban := in.BBAN, in.IBAN
	switch {
	case bban == "" && iban == "":
		v.Format(p("bban"), "is required (or give a NO iban and the bban is taken from it)")
		v.Format(p("iban"), "is required (or give an 11-digit Norwegian bban and the iban is made from it)")
	case iban == "":
		if derived, ok := validate.NorwegianIBANOfShape(bban); ok {
			iban = derived
		} else {
			v.Format(p("iban"), "is required: only an 11-digit Norwegian bban gives an IBAN by itself")
		}
	case bban == "":
		if derived, ok := validate.BBANFromNorwegianIBAN(iban); ok {
			bban = derived
		} else if err := validate.IBAN(iban); err == nil {
			v.Format(p("bban"), "is required: only a NO iban holds the bban")
		}
	}
	CheckAccountRef(v, path, AccountRef{IBAN: iban, BBAN: bban})
	checkMOD11(v, path, AccountRef{IBAN: in.IBAN, BBAN: in.BBAN}, true) // at the number given
	currencyOK := CheckCurrency(v, p("currency"), in.Currency)
	CheckText(v, p("product"), in.Product, 1, 70)
	checkOneOfCase(v, p("cashAccountType"), in.CashAccountType, CashAccountTypes)
	creditLine := checkLimit(v, p("creditLine"), in.CreditLine, in.Currency)
	var balances Balances
	if in.Balances == nil {
		v.Format(p("balances"), "is required (an empty array gives zero balances)")
	} else if currencyOK {
		balances, _ = checkBalances(v, p("balances"), in.Balances, in.Currency, Balances{}, true)
	}
	status := checkStatus(v, p("status"), in.Status)
	id, _, err := newID(tx, v, path, KindAccount, 0, id)
	if err != nil {
		return Account{}, err
	}
	if err := v.Err(); err != nil {
		return Account{}, err
	}
	for _, dup := range []struct{ field, value string }{{"iban", iban}, {"bban", bban}} {
		lookup := tx.AccountByIBAN
		if dup.field == "bban" {
			lookup = tx.AccountByBBAN
		}
		if old, err := lookup(dup.value); err == nil {
			return Account{}, apierr.PathError(apierr.CodeConflict, p(dup.field), fmt.Sprintf("account %s has %s %s already", old.ID, dup.field, dup.value))
		}
	}
	if _, err := tx.Account(id); err == nil {
		return Account{}, apierr.PathError(apierr.CodeConflict, p("id"), "two accounts have the id "+id)
	}
	a := Account{
		ID: id, OwnerID: owner.ID, Name: in.AccountName, BBAN: bban, IBAN: iban,
		Currency: in.Currency, Product: in.Product, CashAccountType: in.CashAccountType,
		CreditLine: creditLine, Balances: balances, KIDRequired: in.KIDRequired, Status: status,
	}
	return a, tx.PutAccount(a)
}

// checkStatus checks an optional account or card status, any case, and
// returns it in lower case ("enabled" when empty).
func checkStatus(v *apierr.Violations, path, s string) string {
	if s == "" {
		return StatusEnabled
	}
	if st := oneOfFold(s, Statuses); st != "" {
		return st
	}
	v.Format(path, "%q is not a status; use one of %s", apierr.Clip(s), joinComma(Statuses))
	return ""
}

// checkBalances checks balance inputs in the given currency and returns
// base with the given balances replaced, and for each type given the index
// of the input that gave it. A type given twice is odd: the last one
// wins. With fillOther (a new account), a type that is not given starts at
// the amount of the one that is.
func checkBalances(v *apierr.Violations, path string, in []BalanceInput, currency string, base Balances, fillOther bool) (Balances, map[string]int) {
	seen := map[string]int{}
	out := base
	for i, b := range in {
		p := fmt.Sprintf("%s[%d]", path, i)
		typ := oneOfFold(b.BalanceType, []string{BalanceClosingBooked, BalanceExpected})
		switch _, twice := seen[typ]; {
		case b.BalanceType == "":
			v.Format(apierr.JoinPath(p, "balanceType"), "is required; closingBooked or expected")
		case typ == "":
			v.Format(apierr.JoinPath(p, "balanceType"), "%q is not a balance type; use closingBooked or expected", apierr.Clip(b.BalanceType))
		case twice:
			v.Odd(apierr.CodeFormatError, apierr.JoinPath(p, "balanceType"), fmt.Sprintf("%s is given twice; the bank takes the last one. Send each balance type once", typ))
		}
		if typ != "" {
			seen[typ] = i
		}
		if b.BalanceAmount.Currency != currency {
			v.Format(apierr.JoinPath(p, "balanceAmount.currency"), "must be %s, the account's currency", currency)
		}
		amount, _ := checkSandboxAmount(v, apierr.JoinPath(p, "balanceAmount.amount"), b.BalanceAmount.Amount, currency)
		switch typ {
		case BalanceClosingBooked:
			out.ClosingBooked = amount
		case BalanceExpected:
			out.Expected = amount
		}
	}
	if fillOther {
		_, closing := seen[BalanceClosingBooked]
		_, expected := seen[BalanceExpected]
		switch {
		case closing && !expected:
			out.Expected = out.ClosingBooked
		case expected && !closing:
			out.ClosingBooked = out.Expected
		}
	}
	return out, seen
}

func joinComma(list []string) string { return strings.Join(list, ", ") }

func accountDetail(tx Tx, a Account) (AccountDetail, error) {
	owner, err := tx.Customer(a.OwnerID)
	if err != nil {
		return AccountDetail{}, err
	}
	return AccountDetail{Account: a, Owner: owner}, nil
}

// Accounts lists every account.
func (s *Sandbox) Accounts() ([]AccountDetail, error) {
	return read(s.core, "list accounts", func(tx Tx) (out []AccountDetail, err error) {
		list, err := tx.Accounts()
		if err != nil {
			return out, err
		}
		out = make([]AccountDetail, 0, len(list))
		for _, a := range list {
			d, err := accountDetail(tx, a)
			if err != nil {
				return out, err
			}
			out = append(out, d)
		}
		return out, nil
	})
}

// Account returns one account.
func (s *Sandbox) Account(id string) (AccountDetail, error) {
	return read(s.core, "read account", func(tx Tx) (d AccountDetail, err error) {
		a, err := tx.Account(id)
		if err != nil {
			return d, found(err, "account", id)
		}
		d, err = accountDetail(tx, a)
		return d, err
	})
}

// SetAccountBalances replaces the balances of the given types.
func (s *Sandbox) SetAccountBalances(id string, in []BalanceInput) (AccountDetail, error) {
	return change(s.core, "set account balances", func(tx Tx) (d AccountDetail, err error) {
		a, err := tx.Account(id)
		if err != nil {
			return d, found(err, "account", id)
		}
		v := s.violations()
		if len(in) == 0 {
			v.Format("", "give at least one balance")
		}
		a.Balances, _ = checkBalances(&v, "", in, a.Currency, a.Balances, false)
		d, err = putAccount(tx, &v, a)
		return d, err
	}, Event{Kind: EventAccounts, ID: id})
}

// putAccount stores an edited account, unless v holds violations, and
// returns its detail with v's warnings.
func putAccount(tx Tx, v *apierr.Violations, a Account) (AccountDetail, error) {
	if err := v.Err(); err != nil {
		return AccountDetail{}, err
	}
	if err := tx.PutAccount(a); err != nil {
		return AccountDetail{}, err
	}
	d, err := accountDetail(tx, a)
	d.Warnings = v.Warnings()
	return d, err
}

// AccountChange is an edit of an account's descriptive fields; nil fields
// stay as they are. The account numbers, owner and currency do not change.
type AccountChange struct {
	AccountName     *string
	Product         *string
	CashAccountType *string
	CreditLine      *Number
	KIDRequired     *bool
	Status          *string
}

// UpdateAccount applies an edit to an account, with the rules of account
// creation.
func (s *Sandbox) UpdateAccount(id string, ch AccountChange) (AccountDetail, error) {
	return change(s.core, "update account", func(tx Tx) (d AccountDetail, err error) {
		a, err := tx.Account(id)
		if err != nil {
			return d, found(err, "account", id)
		}
		var v apierr.Violations
		if ch.AccountName != nil {
			CheckName(&v, "accountName", *ch.AccountName, 1, 70)
			a.Name = *ch.AccountName
		}
		if ch.Product != nil {
			CheckText(&v, "product", *ch.Product, 1, 70)
			a.Product = *ch.Product
		}
		if ch.CashAccountType != nil {
			checkOneOfCase(&v, "cashAccountType", *ch.CashAccountType, CashAccountTypes)
			a.CashAccountType = *ch.CashAccountType
		}
		if ch.CreditLine != nil {
			a.CreditLine = checkLimit(&v, "creditLine", ch.CreditLine, a.Currency)
		}
		if ch.KIDRequired != nil {
			a.KIDRequired = *ch.KIDRequired
		}
		if ch.Status != nil {
			a.Status = checkStatus(&v, "status", *ch.Status)
		}
		d, err = putAccount(tx, &v, a)
		return d, err
	}, Event{Kind: EventAccounts, ID: id})
}

// DeleteAccount deletes an account, its transactions and the engagements
// on it.
func (s *Sandbox) DeleteAccount(id string) error {
	return s.write("delete account", func(tx Tx) error {
		if _, err := tx.Account(id); err != nil {
			return found(err, "account", id)
		}
		return deleteAccount(tx, id)
	}, Event{Kind: EventAccounts, ID: id}, Event{Kind: EventAgreements}, Event{Kind: EventCustomers})
}

func deleteAccount(tx Tx, id string) error {
	list, err := tx.EngagementsByAccount(id)
	if err != nil {
		return err
	}
	for _, e := range list {
		if err := tx.DeleteEngagement(e.ID); err != nil {
			return err
		}
	}
	return tx.DeleteAccount(id)
}
