package bank

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"sandbank/bank/apierr"
	"sandbank/bank/validate"
)

// NewTransaction is one item of a sandbox transaction post (spec 2.11).
// Every field of the spec is required; the descriptive texts may be empty.
// EndToEndID, CreditorAgent, DebtorAgent and ProprietaryBankTransactionCode
// are optional extensions that transaction details show; BookingStatus
// pending makes a pending transaction (booked by default).
//
// The direction follows the accounts: when debtorAccount is the account
// posted to, the transaction is a debit (amount given with either sign);
// otherwise creditorAccount must be that account and the amount positive.
type NewTransaction struct {
	Amount                            *Number     `json:"amount"`
	Currency                          string      `json:"currency"`
	ValueDate                         string      `json:"valueDate"`
	BookingDate                       string      `json:"bookingDate"`
	RemittanceInformationUnstructured *string     `json:"remittanceInformationUnstructured"`
	CreditorID                        *string     `json:"creditorId"`
	CreditorName                      *string     `json:"creditorName"`
	CreditorAccount                   *AccountRef `json:"creditorAccount"`
	UltimateCreditor                  *string     `json:"ultimateCreditor"`
	DebtorName                        *string     `json:"debtorName"`
	DebtorAccount                     *AccountRef `json:"debtorAccount"`
	UltimateDebtor                    *string     `json:"ultimateDebtor"`
	PurposeCode                       *string     `json:"purposeCode"`
	BankTransactionCode               string      `json:"bankTransactionCode"`
	EndToEndID                        string      `json:"endToEndId,omitempty"`
	CreditorAgent                     string      `json:"creditorAgent,omitempty"`
	DebtorAgent                       string      `json:"debtorAgent,omitempty"`
	ProprietaryBankTransactionCode    string      `json:"proprietaryBankTransactionCode,omitempty"`
	// RemittanceInformationUnstructuredArray, RemittanceInformationStructuredArray
	// and CurrencyExchange are optional extensions in Berlin Group's
	// shapes that transaction details show: remittance lines, structured
	// references such as a KID, and the conversions the amount went through.
	RemittanceInformationUnstructuredArray []string               `json:"remittanceInformationUnstructuredArray,omitempty"`
	RemittanceInformationStructuredArray   []StructuredRemittance `json:"remittanceInformationStructuredArray,omitempty"`
	CurrencyExchange                       []NewExchangeRate      `json:"currencyExchange,omitempty"`
	// BookingStatus is booked (the default) or pending.
	BookingStatus string `json:"bookingStatus,omitempty"`
}

// NewExchangeRate is a currency exchange of a sandbox transaction, in
// Berlin Group's reportExchangeRate; contractIdentification is optional.
type NewExchangeRate struct {
	SourceCurrency         string `json:"sourceCurrency"`
	ExchangeRate           string `json:"exchangeRate"`
	UnitCurrency           string `json:"unitCurrency"`
	TargetCurrency         string `json:"targetCurrency"`
	QuotationDate          string `json:"quotationDate"`
	ContractIdentification string `json:"contractIdentification,omitempty"`
}

// specInt32s lists the transaction's numbers that the spec types as
// int32 (noteFractions), at path.
func (in NewTransaction) specInt32s(path string) []specInt32 {
	return []specInt32{{apierr.JoinPath(path, "amount"), in.Amount}}
}

// Transaction listing limits of the sandbox API.
const (
	DefaultPageSize    = 200
	MaxSandboxPageSize = 10000
)

var purposeCodePattern = regexp.MustCompile(`^[A-Z0-9]{1,4}$`)

// TransactionsPosted is what a transaction post stored, and the oddities
// it was accepted with (docs/TPP-GUIDE.md 9).
type TransactionsPosted struct {
	Transactions []Transaction
	Warnings     []apierr.Message
}

// AddTransactions posts booked transactions to an account: all of them or,
// when any fails a rule, none. Balances do not change.
func (s *Sandbox) AddTransactions(accountID string, in []NewTransaction) (TransactionsPosted, error) {
	return change(s.core, "post transactions", func(tx Tx) (out TransactionsPosted, err error) {
		a, err := tx.Account(accountID)
		if err != nil {
			return out, found(err, "account", accountID)
		}
		if len(in) == 0 {
			return out, apierr.PathError(apierr.CodeFormatError, "", "send an array of at least one transaction")
		}
		v := s.violations()
		for i, t := range in {
			noteFractions(&v, t.specInt32s(fmt.Sprintf("[%d]", i))...)
		}
		out.Transactions, err = AddTransactionsIn(tx, &v, a, "", 0, in, nil, s.Today(), false)
		out.Warnings = v.Warnings()
		return out, err
	}, Event{Kind: EventTransactions, ID: accountID})
}

// AddTransactionsIn checks and stores transactions on account a; ids, when
// not nil, gives the ids a scenario brings; first is the position of the
// first of them in the list the paths count in. v gathers the findings and
// oddities of the request they are part of. restored transactions (of a
// version-2 scenario) are records the bank made, payments' included: one
// may name another sandbox account, and a payment's fee names no creditor
// account.
func AddTransactionsIn(tx Tx, v *apierr.Violations, a Account, path string, first int, in []NewTransaction, ids []string, today Date, restored bool) ([]Transaction, error) {
	accountSeq, _ := SeqOf(KindAccount, a.ID)
	out := make([]Transaction, 0, len(in))
	seen := make(map[string]bool, len(in))
	// The other parties of a list are few: each is looked up once.
	type found struct {
		a  Account
		ok bool
	}
	others := map[AccountRef]found{}
	sandbox := func(r AccountRef) (Account, bool) {
		f, ok := others[r]
		if !ok {
			f.a, f.ok = SandboxAccount(tx, r)
			others[r] = f
		}
		return f.a, f.ok
	}
	var quiet apierr.Violations
	// reserved is the highest sequence of the ids given so far, reserved
	// once (ReserveSeq) before a new id is made and at the end, rather
	// than for each.
	var reserved uint64
	reserve := func() error {
		if reserved == 0 {
			return nil
		}
		err := tx.ReserveSeq(KindTransaction, reserved)
		reserved = 0
		return err
	}
	for i, item := range in {
		pathOf := func() string { return apierr.JoinPath(path, fmt.Sprintf("[%d]", first+i)) }
		given := ""
		if i < len(ids) {
			given = ids[i]
		}
		// A transaction is checked without its path first, which costs no
		// path of each field; one with a finding or an oddity is checked
		// again at its path, for v (an import checks a million).
		quiet = apierr.Violations{Strict: v.Strict}
		t := checkTransaction(sandbox, &quiet, "", a, item, today, restored)
		id := ""
		if given == "" {
			if err := reserve(); err != nil {
				return nil, err
			}
			var err error
			if id, _, err = newID(tx, &quiet, "", KindTransaction, accountSeq, ""); err != nil {
				return nil, err
			}
		} else if seq, ok := givenID(&quiet, "", KindTransaction, accountSeq, given); ok {
			id, reserved = given, max(reserved, seq)
		}
		if !quiet.Clean() {
			p := pathOf()
			t = checkTransaction(sandbox, v, p, a, item, today, restored)
			if id == "" {
				givenID(v, p, KindTransaction, accountSeq, given)
			}
		}
		t.ID = id
		if seen[t.ID] && t.ID != "" {
			v.Format(apierr.JoinPath(pathOf(), "id"), "two transactions have the id %s", t.ID)
		}
		seen[t.ID] = true
		out = append(out, t)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := reserve(); err != nil {
		return nil, err
	}
	return out, tx.PutTransactions(a.ID, out)
}

// RefersTo reports whether r names account a.
func RefersTo(r AccountRef, a Account) bool {
	return (r.IBAN != "" && r.IBAN == a.IBAN) || (r.BBAN != "" && r.BBAN == a.BBAN)
}

// SandboxAccount returns the sandbox account r names, if any.
func SandboxAccount(tx Tx, r AccountRef) (Account, bool) {
	if a, err := tx.AccountByIBAN(r.IBAN); err == nil {
		return a, true
	}
	if a, err := tx.AccountByBBAN(r.BBAN); err == nil {
		return a, true
	}
	return Account{}, false
}

// checkTransaction checks a transaction of account a at path p; sandbox
// finds the sandbox account a reference names (SandboxAccount).
func checkTransaction(sandbox func(AccountRef) (Account, bool), v *apierr.Violations, p string, a Account, in NewTransaction, today Date, restored bool) Transaction {
	f := func(field string) string { return apierr.JoinPath(p, field) }
	t := Transaction{
		Currency:                          in.Currency,
		RemittanceInformationUnstructured: checkPresent(v, f("remittanceInformationUnstructured"), in.RemittanceInformationUnstructured, 140, CheckText),
		CreditorID:                        checkPresent(v, f("creditorId"), in.CreditorID, 35, CheckText),
		CreditorName:                      checkPresent(v, f("creditorName"), in.CreditorName, 70, CheckName),
		UltimateCreditor:                  checkPresent(v, f("ultimateCreditor"), in.UltimateCreditor, 70, CheckName),
		DebtorName:                        checkPresent(v, f("debtorName"), in.DebtorName, 70, CheckName),
		UltimateDebtor:                    checkPresent(v, f("ultimateDebtor"), in.UltimateDebtor, 70, CheckName),
		PurposeCode:                       checkPurposeCode(v, f("purposeCode"), in.PurposeCode),
		BankTransactionCode:               in.BankTransactionCode,
		EndToEndID:                        in.EndToEndID,
		CreditorAgent:                     in.CreditorAgent,
		DebtorAgent:                       in.DebtorAgent,
		ProprietaryBankTransactionCode:    in.ProprietaryBankTransactionCode,
	}
	switch in.BookingStatus {
	case "", "booked":
	case "pending":
		t.Pending = true
	default:
		v.Format(f("bookingStatus"), "must be booked or pending")
	}
	if in.Currency != a.Currency {
		if CheckCurrency(v, f("currency"), in.Currency) {
			v.Format(f("currency"), "must be %s, the account's currency", a.Currency)
		}
	}
	amount, amountOK := checkSandboxAmount(v, f("amount"), in.Amount, a.Currency)
	if amountOK && amount.IsZero() {
		v.Format(f("amount"), "must not be zero")
		amountOK = false
	}
	t.BookingDate = checkDate(v, f("bookingDate"), in.BookingDate)
	t.ValueDate = checkDate(v, f("valueDate"), in.ValueDate)
	checkPast(v, f("bookingDate"), t.BookingDate, today)
	checkPast(v, f("valueDate"), t.ValueDate, today)
	if !t.BookingDate.IsZero() && !t.ValueDate.IsZero() && t.BookingDate.After(t.ValueDate) {
		v.Format(f("bookingDate"), "%s is after the valueDate %s; the booking date must not be after the value date", t.BookingDate, t.ValueDate)
	}
	if l := utf8.RuneCountInString(in.BankTransactionCode); l < 4 || l > 14 {
		v.Format(f("bankTransactionCode"), "must be 4 to 14 characters, e.g. PMNT-RCDT-ESCT")
	} else {
		checkChars(v, f("bankTransactionCode"), in.BankTransactionCode)
	}
	CheckText(v, f("endToEndId"), in.EndToEndID, 0, 35)
	CheckText(v, f("proprietaryBankTransactionCode"), in.ProprietaryBankTransactionCode, 0, 35)
	t.RemittanceInformationUnstructuredArray = checkRemittanceLines(v, f("remittanceInformationUnstructuredArray"), in.RemittanceInformationUnstructuredArray)
	checkReferences(v, f("remittanceInformationStructuredArray"), in.RemittanceInformationStructuredArray, func(path string, err error) {
		v.Odd(apierr.CodeKIDInvalid, path, fmt.Sprintf("%v; a payment with it would be refused, the transaction keeps it as given", err))
	})
	if len(in.RemittanceInformationStructuredArray) > 0 {
		t.RemittanceInformationStructuredArray = in.RemittanceInformationStructuredArray
	}
	t.CurrencyExchange = checkExchangeRates(v, f("currencyExchange"), in.CurrencyExchange, today)
	for _, agent := range []struct{ field, value string }{{"creditorAgent", in.CreditorAgent}, {"debtorAgent", in.DebtorAgent}} {
		if agent.value != "" {
			if err := validate.BIC(agent.value); err != nil {
				v.Format(f(agent.field), "%v", err)
			}
		}
	}
	creditor, debtor := in.CreditorAccount, in.DebtorAccount
	t.CreditorAccount = checkSide(v, f("creditorAccount"), creditor, a, restored)
	t.DebtorAccount = checkSide(v, f("debtorAccount"), debtor, a, restored)
	if creditor == nil || debtor == nil {
		return t
	}
	// Direction: the posted account is the debtor (a debit) or the creditor.
	counterpart, counterPath := *creditor, f("creditorAccount")
	switch {
	case RefersTo(*debtor, a):
		if amountOK && amount.IsPositive() {
			amount = amount.Neg()
		}
	case RefersTo(*creditor, a):
		counterpart, counterPath = *debtor, f("debtorAccount")
		if amountOK && amount.IsNegative() {
			v.Format(f("amount"), "is negative but the account is the creditor; a debit names the account as debtorAccount")
		}
	default:
		v.Format(p, "neither debtorAccount nor creditorAccount is this account (%s); name it on the side it is on", a.IBAN)
		return t
	}
	if other, ok := sandbox(counterpart); ok && other.ID != a.ID {
		if !restored { // a payment between sandbox accounts made it
			v.Format(counterPath, "is sandbox account %s; money between sandbox accounts moves only through payments", other.IBAN)
		}
	} else if ok {
		v.Format(counterPath, "is this account too; a transaction needs another party")
	}
	t.Amount = amount
	return t
}

// checkSide checks the account at path on one side of a transaction of
// account a and returns what the transaction keeps of it.
func checkSide(v *apierr.Violations, path string, ref *AccountRef, a Account, restored bool) AccountRef {
	switch {
	case ref == nil:
		v.Format(path, "is required: an object with iban or bban")
		return AccountRef{}
	case restored && ref.IsZero():
		return AccountRef{} // a fee of a payment has no creditor account
	}
	CheckAccountRef(v, path, *ref)
	if !RefersTo(*ref, a) { // the account's own numbers were taken with it
		checkMOD11(v, path, *ref, true)
	}
	return *ref
}

// checkExchangeRates checks the currency exchanges of a sandbox
// transaction: three ISO 4217 currencies, a rate written as a decimal
// string and a quotation date that has begun, each; a
// contractIdentification of at most 35 characters.
func checkExchangeRates(v *apierr.Violations, path string, in []NewExchangeRate, today Date) []ExchangeRate {
	if len(in) == 0 {
		return nil
	}
	out := make([]ExchangeRate, len(in))
	for i, x := range in {
		f := func(field string) string { return apierr.JoinPath(fmt.Sprintf("%s[%d]", path, i), field) }
		for _, c := range []struct{ field, value string }{{"sourceCurrency", x.SourceCurrency}, {"unitCurrency", x.UnitCurrency}, {"targetCurrency", x.TargetCurrency}} {
			CheckCurrency(v, f(c.field), c.value)
		}
		if !ratePattern.MatchString(x.ExchangeRate) {
			v.Format(f("exchangeRate"), "must be a decimal number as a string, e.g. \"11.7025\"")
		}
		CheckText(v, f("contractIdentification"), x.ContractIdentification, 0, 35)
		out[i] = ExchangeRate{
			SourceCurrency: x.SourceCurrency, ExchangeRate: x.ExchangeRate, UnitCurrency: x.UnitCurrency, TargetCurrency: x.TargetCurrency,
			QuotationDate: checkDate(v, f("quotationDate"), x.QuotationDate), ContractIdentification: x.ContractIdentification,
		}
		checkPast(v, f("quotationDate"), out[i].QuotationDate, today)
	}
	return out
}

// checkPurposeCode checks the required purposeCode of a sandbox
// transaction, which may be empty: an ISO 20022 code of 1 to 4 letters or
// digits. Lower case is odd; the code is kept in upper case.
func checkPurposeCode(v *apierr.Violations, path string, in *string) string {
	code := checkPresent(v, path, in, 4, CheckText)
	if upper := strings.ToUpper(code); upper != code && purposeCodePattern.MatchString(upper) {
		v.Odd(apierr.CodeFormatError, path, fmt.Sprintf("%q is in lower case; ISO 20022 purpose codes are upper case, and the bank keeps it as %s", code, upper))
		code = upper
	}
	if code != "" && !purposeCodePattern.MatchString(code) {
		v.Format(path, "must be an ISO 20022 purpose code: 1 to 4 letters or digits, e.g. SALA")
	}
	return code
}

// checkQuery checks a transaction listing's dates and paging. maxLimit 0
// allows any limit.
func checkQuery(q TxQuery, maxLimit int) error {
	var v apierr.Violations
	if q.Offset < 0 {
		v.Format("offset", "must not be negative")
	}
	if q.Limit < 0 || (maxLimit > 0 && q.Limit > maxLimit) {
		v.Format("limit", "must be between 1 and %d", maxLimit)
	}
	if !q.From.IsZero() && !q.To.IsZero() && q.From.After(q.To) {
		v.Add(apierr.CodePeriodInvalid, "", fmt.Sprintf("the period starts (%s) after it ends (%s)", q.From, q.To))
	}
	return v.Err()
}

// Transactions returns a page of an account's booked transactions, newest
// first. A zero Limit means DefaultPageSize.
func (s *Sandbox) Transactions(accountID string, q TxQuery) (TxPage, error) {
	if q.Limit == 0 {
		q.Limit = DefaultPageSize
	}
	if err := checkQuery(q, MaxSandboxPageSize); err != nil {
		return TxPage{}, err
	}
	return read(s.core, "list transactions", func(tx Tx) (page TxPage, err error) {
		if _, err := tx.Account(accountID); err != nil {
			return page, found(err, "account", accountID)
		}
		page, err = tx.Transactions(accountID, q)
		return page, err
	})
}

// Transaction returns one transaction of an account.
func (s *Sandbox) Transaction(accountID, id string) (Transaction, error) {
	return read(s.core, "read transaction", func(tx Tx) (t Transaction, err error) {
		if _, err := tx.Account(accountID); err != nil {
			return t, found(err, "account", accountID)
		}
		t, err = tx.Transaction(accountID, id)
		return t, found(err, "transaction", id)
	})
}

// DeleteTransactions deletes every transaction of an account.
func (s *Sandbox) DeleteTransactions(accountID string) error {
	return s.write("delete transactions", func(tx Tx) error {
		if _, err := tx.Account(accountID); err != nil {
			return found(err, "account", accountID)
		}
		return tx.DeleteTransactions(accountID)
	}, Event{Kind: EventTransactions, ID: accountID})
}
