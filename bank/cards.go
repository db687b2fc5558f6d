package bank

import (
	"fmt"
	"regexp"
	"time"

	"github.com/shopspring/decimal"

	"sandbank/bank/apierr"
	"sandbank/bank/validate"
)

// NewCardAccount is the body of a card account creation. The spec does not
// show it; Sandbank takes the card account representation of spec 2.12 with
// the owner's customerNumber. CardID, CardIDVNo, AccountNumber, Balances
// and Status are optional.
type NewCardAccount struct {
	CustomerNumber string             `json:"customerNumber"`
	MaskedPan      string             `json:"maskedPan"`
	Currency       string             `json:"currency"`
	CreditLimit    *AmountInput       `json:"creditLimit"`
	Balances       []CardBalanceInput `json:"balances,omitempty"`
	CardID         string             `json:"cardId,omitempty"`
	CardIDVNo      string             `json:"cardIdVNo,omitempty"`
	AccountNumber  string             `json:"accountNumber,omitempty"`
	Expiry         string             `json:"expiry"`
	Name           string             `json:"name"`
	Product        string             `json:"product"`
	Status         string             `json:"status,omitempty"`
}

// specInt32s lists the card account's numbers that the spec types as
// int32 (noteFractions): its credit limit and its balances.
func (in NewCardAccount) specInt32s() []specInt32 {
	out := amountInt32("creditLimit", in.CreditLimit)
	for i, b := range in.Balances {
		out = append(out, amountInt32(fmt.Sprintf("balances[%d].balanceAmount", i), &b.BalanceAmount)...)
	}
	return out
}

// CardBalanceInput is one balance of a card account request: a balance
// and, optionally, Berlin Group's referenceDate (YYYY-MM-DD),
// lastChangeDateTime (RFC 3339) and lastCommittedTransaction (at most 35
// characters), which the card account keeps and shows.
type CardBalanceInput struct {
	BalanceInput
	ReferenceDate            string `json:"referenceDate,omitempty"`
	LastChangeDateTime       string `json:"lastChangeDateTime,omitempty"`
	LastCommittedTransaction string `json:"lastCommittedTransaction,omitempty"`
}

// CardAccountDetail is a card account with its owner.
type CardAccountDetail struct {
	CardAccount
	Owner Customer
	// Warnings are the oddities the change that returned the card account
	// was accepted with (docs/TPP-GUIDE.md 9); none on a read.
	Warnings []apierr.Message
}

// NewCardTransaction is one item of a card transaction post (spec 2.12).
// Every field but currencyExchange is required, except that a transaction
// without bookingDate is pending (Sandbank's extension for pending card
// transactions). MarkupFee and MarkupFeePercentage may stand beside
// currencyExchange, where Berlin Group puts them, instead of inside it.
type NewCardTransaction struct {
	CardTransactionID              string               `json:"cardTransactionId"`
	TerminalID                     *string              `json:"terminalId"`
	BookingDate                    string               `json:"bookingDate,omitempty"`
	TransactionDate                string               `json:"transactionDate"`
	TransactionAmount              *AmountInput         `json:"transactionAmount"`
	OriginalAmount                 *AmountInput         `json:"originalAmount"`
	MerchantCategoryCode           string               `json:"merchantCategoryCode"`
	CurrencyExchange               *NewCurrencyExchange `json:"currencyExchange,omitempty"`
	MarkupFee                      *AmountInput         `json:"markupFee,omitempty"`
	MarkupFeePercentage            string               `json:"markupFeePercentage,omitempty"`
	CardAcceptorID                 *string              `json:"cardAcceptorId"`
	CardAcceptorAddress            *Address             `json:"cardAcceptorAddress"`
	MaskedPan                      string               `json:"maskedPan"`
	TransactionDetails             *string              `json:"transactionDetails"`
	Invoiced                       string               `json:"invoiced"`
	ProprietaryBankTransactionCode *string              `json:"proprietaryBankTransactionCode"`
}

// specInt32s lists the card transaction's numbers that the spec types as
// int32 (noteFractions), at path: its amounts and markup fee.
func (in NewCardTransaction) specInt32s(path string) []specInt32 {
	out := amountInt32(apierr.JoinPath(path, "transactionAmount"), in.TransactionAmount)
	out = append(out, amountInt32(apierr.JoinPath(path, "originalAmount"), in.OriginalAmount)...)
	out = append(out, amountInt32(apierr.JoinPath(path, "markupFee"), in.MarkupFee)...)
	if x := in.CurrencyExchange; x != nil {
		out = append(out, amountInt32(apierr.JoinPath(path, "currencyExchange.markupFee"), x.MarkupFee)...)
	}
	return out
}

// NewCurrencyExchange is the optional conversion of a card transaction.
type NewCurrencyExchange struct {
	SourceCurrency      string       `json:"sourceCurrency"`
	TargetCurrency      string       `json:"targetCurrency"`
	UnitCurrency        string       `json:"unitCurrency"`
	ExchangeRate        string       `json:"exchangeRate"`
	QuotationDate       string       `json:"quotationDate"`
	MarkupFee           *AmountInput `json:"markupFee,omitempty"`
	MarkupFeePercentage string       `json:"markupFeePercentage,omitempty"`
}

// CardPostResult is what a card transaction post answers (spec 2.12): the
// booked transactions and the ids of the pending ones, and the oddities
// the post was accepted with (docs/TPP-GUIDE.md 9).
type CardPostResult struct {
	MaskedPan string
	Booked    []CardTransaction
	Pending   []string
	Warnings  []apierr.Message
}

var (
	expiryPattern = regexp.MustCompile(`^[0-9]{4}-(0[1-9]|1[0-2])$`)
	mccPattern    = regexp.MustCompile(`^[0-9]{4}$`)
	ratePattern   = regexp.MustCompile(`^[0-9]{1,12}(\.[0-9]{1,10})?$`)
)

// CreateCardAccount adds a card account.
func (s *Sandbox) CreateCardAccount(in NewCardAccount) (CardAccountDetail, error) {
	return change(s.core, "create card account", func(tx Tx) (d CardAccountDetail, err error) {
		v := s.violations()
		noteFractions(&v, in.specInt32s()...)
		c, err := CreateCardAccountIn(tx, &v, "", "", in)
		if err != nil {
			return d, err
		}
		d, err = cardDetail(tx, c)
		d.Warnings = v.Warnings()
		return d, err
	}, Event{Kind: EventCardAccounts}, Event{Kind: EventCustomers})
}

// CreateCardAccountIn checks and stores a card account; v gathers the
// findings and oddities of the request it is part of.
func CreateCardAccountIn(tx Tx, v *apierr.Violations, path, id string, in NewCardAccount) (CardAccount, error) {
	p := func(field string) string { return apierr.JoinPath(path, field) }
	owner := lookupCustomer(tx, v, p("customerNumber"), in.CustomerNumber)
	checkMaskedPan(v, p("maskedPan"), in.MaskedPan)
	currencyOK := CheckCurrency(v, p("currency"), in.Currency)
	var limit decimal.Decimal
	if in.CreditLimit == nil {
		v.Format(p("creditLimit"), "is required: {\"currency\", \"amount\"}")
	} else {
		if in.CreditLimit.Currency != in.Currency {
			v.Format(p("creditLimit.currency"), "must be %s, the card account's currency", in.Currency)
		}
		limit = checkLimit(v, p("creditLimit.amount"), in.CreditLimit.Amount, in.Currency)
	}
	var balances CardBalances
	if currencyOK {
		balances = checkCardBalances(v, p("balances"), in.Balances, in.Currency, CardBalances{}, true)
	}
	CheckText(v, p("cardId"), in.CardID, 0, 35)
	CheckText(v, p("cardIdVNo"), in.CardIDVNo, 0, 35)
	CheckText(v, p("accountNumber"), in.AccountNumber, 0, 34)
	checkExpiry(v, p("expiry"), in.Expiry)
	CheckName(v, p("name"), in.Name, 1, 70)
	CheckText(v, p("product"), in.Product, 1, 70)
	status := checkStatus(v, p("status"), in.Status)
	id, seq, err := newID(tx, v, path, KindCardAccount, 0, id)
	if err != nil {
		return CardAccount{}, err
	}
	if err := v.Err(); err != nil {
		return CardAccount{}, err
	}
	if _, err := tx.CardAccount(id); err == nil {
		return CardAccount{}, apierr.PathError(apierr.CodeConflict, p("id"), "two card accounts have the id "+id)
	}
	c := CardAccount{
		ID: id, OwnerID: owner.ID, MaskedPan: in.MaskedPan, Currency: in.Currency,
		CreditLimit: limit, Balances: balances, CardID: in.CardID, CardIDVNo: in.CardIDVNo,
		AccountNumber: in.AccountNumber, Expiry: in.Expiry, Name: in.Name, Product: in.Product, Status: status,
	}
	if c.CardID == "" {
		c.CardID = fmt.Sprintf("%010d", seq%10_000_000_000)
	}
	if c.CardIDVNo == "" {
		c.CardIDVNo = "1"
	}
	return c, tx.PutCardAccount(c)
}

// checkCardBalances checks the balances of a card account request, like
// checkBalances, and keeps the detail each balance type was last given
// with.
func checkCardBalances(v *apierr.Violations, path string, in []CardBalanceInput, currency string, base CardBalances, fillOther bool) CardBalances {
	plain := make([]BalanceInput, len(in))
	details := make([]BalanceDetail, len(in))
	for i, b := range in {
		plain[i] = b.BalanceInput
		details[i] = checkBalanceDetail(v, fmt.Sprintf("%s[%d]", path, i), b)
	}
	out := base
	var from map[string]int
	out.Balances, from = checkBalances(v, path, plain, currency, base.Balances, fillOther)
	if i, ok := from[BalanceClosingBooked]; ok {
		out.ClosingBookedDetail = details[i]
	}
	if i, ok := from[BalanceExpected]; ok {
		out.ExpectedDetail = details[i]
	}
	return out
}

// checkBalanceDetail checks the Berlin Group fields of a card balance.
func checkBalanceDetail(v *apierr.Violations, path string, in CardBalanceInput) BalanceDetail {
	d := BalanceDetail{LastCommittedTransaction: in.LastCommittedTransaction}
	if in.ReferenceDate != "" {
		d.ReferenceDate = checkDate(v, apierr.JoinPath(path, "referenceDate"), in.ReferenceDate)
	}
	if in.LastChangeDateTime != "" {
		t, err := time.Parse(time.RFC3339, in.LastChangeDateTime)
		if err != nil {
			v.Format(apierr.JoinPath(path, "lastChangeDateTime"), "must be a date-time with offset (RFC 3339), e.g. 2026-03-01T10:15:00+01:00")
		}
		d.LastChangeDateTime = t
	}
	CheckText(v, apierr.JoinPath(path, "lastCommittedTransaction"), in.LastCommittedTransaction, 0, 35)
	return d
}

// checkExpiry checks a card's expiry: the month, YYYY-MM. A date,
// YYYY-MM-DD, is odd: the bank keeps it as given.
func checkExpiry(v *apierr.Violations, path, s string) {
	if expiryPattern.MatchString(s) {
		return
	}
	if _, err := ParseDate(s); err == nil {
		v.Odd(apierr.CodeFormatError, path, fmt.Sprintf("%s is a date; the bank writes a card's expiry as its month, YYYY-MM (e.g. %s), and keeps the date as given", s, s[:7]))
		return
	}
	v.Format(path, "must be the expiry month as YYYY-MM, e.g. 2029-08")
}

func cardDetail(tx Tx, c CardAccount) (CardAccountDetail, error) {
	owner, err := tx.Customer(c.OwnerID)
	if err != nil {
		return CardAccountDetail{}, err
	}
	return CardAccountDetail{CardAccount: c, Owner: owner}, nil
}

// CardAccounts lists every card account.
func (s *Sandbox) CardAccounts() ([]CardAccountDetail, error) {
	return read(s.core, "list card accounts", func(tx Tx) (out []CardAccountDetail, err error) {
		list, err := tx.CardAccounts()
		if err != nil {
			return out, err
		}
		out = make([]CardAccountDetail, 0, len(list))
		for _, c := range list {
			d, err := cardDetail(tx, c)
			if err != nil {
				return out, err
			}
			out = append(out, d)
		}
		return out, nil
	})
}

// CardAccount returns one card account.
func (s *Sandbox) CardAccount(id string) (CardAccountDetail, error) {
	return read(s.core, "read card account", func(tx Tx) (d CardAccountDetail, err error) {
		c, err := tx.CardAccount(id)
		if err != nil {
			return d, found(err, "card account", id)
		}
		d, err = cardDetail(tx, c)
		return d, err
	})
}

// SetCardBalances replaces the card account balances of the given types,
// each with the detail it is given with.
func (s *Sandbox) SetCardBalances(id string, in []CardBalanceInput) (CardAccountDetail, error) {
	return change(s.core, "set card balances", func(tx Tx) (d CardAccountDetail, err error) {
		c, err := tx.CardAccount(id)
		if err != nil {
			return d, found(err, "card account", id)
		}
		v := s.violations()
		if len(in) == 0 {
			v.Format("", "give at least one balance")
		}
		for i, b := range in {
			noteFractions(&v, amountInt32(fmt.Sprintf("[%d].balanceAmount", i), &b.BalanceAmount)...)
		}
		c.Balances = checkCardBalances(&v, "", in, c.Currency, c.Balances, false)
		d, err = putCardAccount(tx, &v, c)
		return d, err
	}, Event{Kind: EventCardAccounts, ID: id})
}

// putCardAccount stores an edited card account, unless v holds
// violations, and returns its detail with v's warnings.
func putCardAccount(tx Tx, v *apierr.Violations, c CardAccount) (CardAccountDetail, error) {
	if err := v.Err(); err != nil {
		return CardAccountDetail{}, err
	}
	if err := tx.PutCardAccount(c); err != nil {
		return CardAccountDetail{}, err
	}
	d, err := cardDetail(tx, c)
	d.Warnings = v.Warnings()
	return d, err
}

// CardAccountChange is an edit of a card account; nil fields stay.
type CardAccountChange struct {
	Name        *string
	Product     *string
	CreditLimit *Number
	Status      *string
	Expiry      *string
}

// UpdateCardAccount applies an edit to a card account, with the rules of
// card account creation.
func (s *Sandbox) UpdateCardAccount(id string, ch CardAccountChange) (CardAccountDetail, error) {
	return change(s.core, "update card account", func(tx Tx) (d CardAccountDetail, err error) {
		c, err := tx.CardAccount(id)
		if err != nil {
			return d, found(err, "card account", id)
		}
		v := s.violations()
		if ch.Name != nil {
			CheckName(&v, "name", *ch.Name, 1, 70)
			c.Name = *ch.Name
		}
		if ch.Product != nil {
			CheckText(&v, "product", *ch.Product, 1, 70)
			c.Product = *ch.Product
		}
		if ch.CreditLimit != nil {
			c.CreditLimit = checkLimit(&v, "creditLimit.amount", ch.CreditLimit, c.Currency)
		}
		if ch.Status != nil {
			c.Status = checkStatus(&v, "status", *ch.Status)
		}
		if ch.Expiry != nil {
			checkExpiry(&v, "expiry", *ch.Expiry)
			c.Expiry = *ch.Expiry
		}
		d, err = putCardAccount(tx, &v, c)
		return d, err
	}, Event{Kind: EventCardAccounts, ID: id})
}

// DeleteCardAccount deletes a card account and its transactions.
func (s *Sandbox) DeleteCardAccount(id string) error {
	return s.write("delete card account", func(tx Tx) error {
		if _, err := tx.CardAccount(id); err != nil {
			return found(err, "card account", id)
		}
		return tx.DeleteCardAccount(id)
	}, Event{Kind: EventCardAccounts, ID: id}, Event{Kind: EventCustomers})
}

// AddCardTransactions posts card transactions: all or, when any fails a
// rule, none.
func (s *Sandbox) AddCardTransactions(cardAccountID string, in []NewCardTransaction) (CardPostResult, error) {
	return change(s.core, "post card transactions", func(tx Tx) (res CardPostResult, err error) {
		c, err := tx.CardAccount(cardAccountID)
		if err != nil {
			return res, found(err, "card account", cardAccountID)
		}
		if len(in) == 0 {
			return res, apierr.PathError(apierr.CodeFormatError, "", "send an array of at least one card transaction")
		}
		v := s.violations()
		for i, t := range in {
			noteFractions(&v, t.specInt32s(fmt.Sprintf("[%d]", i))...)
		}
		res, err = AddCardTransactionsIn(tx, &v, c, "", 0, in, s.Today(), false)
		res.Warnings = v.Warnings()
		return res, err
	}, Event{Kind: EventCardTransactions, ID: cardAccountID}, Event{Kind: EventCardAccounts, ID: cardAccountID})
}

// AddCardTransactionsIn checks and stores card transactions on card account
// c; v gathers the findings and oddities of the request they are part of,
// and first is the position of in's first item in the list the paths count
// in. A pending card transaction is a reservation: it moves the card
// account's expected balance by its amount, so that expected stays
// closingBooked plus the pending items; restored ones (of a version-2
// scenario, whose balances hold them already) do not.
func AddCardTransactionsIn(tx Tx, v *apierr.Violations, c CardAccount, path string, first int, in []NewCardTransaction, today Date, restored bool) (CardPostResult, error) {
	res := CardPostResult{MaskedPan: c.MaskedPan, Booked: []CardTransaction{}, Pending: []string{}}
	list := make([]CardTransaction, 0, len(in))
	seen := map[string]bool{}
	for i, item := range in {
		p := apierr.JoinPath(path, fmt.Sprintf("[%d]", first+i))
		t := checkCardTransaction(v, p, c, item, today)
		if t.CardTransactionID != "" {
			if seen[t.CardTransactionID] {
				v.Format(apierr.JoinPath(p, "cardTransactionId"), "%s is given twice in this request", t.CardTransactionID)
			}
			seen[t.CardTransactionID] = true
		}
		list = append(list, t)
	}
	if err := v.Err(); err != nil {
		return res, err
	}
	for i, t := range list {
		exists, err := tx.HasCardTransaction(c.ID, t.CardTransactionID)
		if err != nil {
			return res, err
		}
		if exists {
			return res, apierr.PathError(apierr.CodeConflict, apierr.JoinPath(path, fmt.Sprintf("[%d].cardTransactionId", first+i)), "card account "+c.ID+" has a transaction "+t.CardTransactionID+" already")
		}
		if t.Pending() {
			res.Pending = append(res.Pending, t.CardTransactionID)
		} else {
			res.Booked = append(res.Booked, t)
		}
	}
	if err := tx.PutCardTransactions(c.ID, list); err != nil || restored {
		return res, err
	}
	return res, reserveCard(tx, c.ID, list, false)
}

// reserveCard moves a card account's expected balance by the pending
// transactions of list: down by a purchase, up by a refund, as they are
// stored; the other way round when release is set, as they are removed.
func reserveCard(tx Tx, id string, list []CardTransaction, release bool) error {
	var held decimal.Decimal
	for _, t := range list {
		if t.Pending() {
			held = held.Add(t.TransactionAmount.Amount)
		}
	}
	if held.IsZero() {
		return nil
	}
	c, err := tx.CardAccount(id)
	if err != nil {
		return err
	}
	if release {
		held = held.Neg()
	}
	c.Balances.Expected = c.Balances.Expected.Add(held)
	return tx.PutCardAccount(c)
}

func checkCardTransaction(v *apierr.Violations, p string, c CardAccount, in NewCardTransaction, today Date) CardTransaction {
	f := func(field string) string { return apierr.JoinPath(p, field) }
	CheckText(v, f("cardTransactionId"), in.CardTransactionID, 1, 35)
	t := CardTransaction{
		CardTransactionID:              in.CardTransactionID,
		TerminalID:                     checkPresent(v, f("terminalId"), in.TerminalID, 35, CheckText),
		MerchantCategoryCode:           in.MerchantCategoryCode,
		CardAcceptorID:                 checkPresent(v, f("cardAcceptorId"), in.CardAcceptorID, 35, CheckText),
		MaskedPan:                      in.MaskedPan,
		TransactionDetails:             checkPresent(v, f("transactionDetails"), in.TransactionDetails, 140, CheckText),
		ProprietaryBankTransactionCode: checkPresent(v, f("proprietaryBankTransactionCode"), in.ProprietaryBankTransactionCode, 35, CheckText),
	}
	t.TransactionDate = checkDate(v, f("transactionDate"), in.TransactionDate)
	checkPast(v, f("transactionDate"), t.TransactionDate, today)
	if in.BookingDate != "" {
		t.BookingDate = checkDate(v, f("bookingDate"), in.BookingDate)
		checkPast(v, f("bookingDate"), t.BookingDate, today)
		if !t.TransactionDate.IsZero() && !t.BookingDate.IsZero() && t.TransactionDate.After(t.BookingDate) {
			v.Format(f("bookingDate"), "%s is before the transactionDate %s; a card transaction is booked on or after the day it was made", t.BookingDate, t.TransactionDate)
		}
	}
	if in.TransactionAmount == nil {
		v.Format(f("transactionAmount"), "is required: {\"currency\", \"amount\"} in the card account's currency")
	} else {
		if in.TransactionAmount.Currency != c.Currency {
			v.Format(f("transactionAmount.currency"), "must be %s, the card account's currency (originalAmount holds the merchant's)", c.Currency)
		}
		t.TransactionAmount = checkCardMoney(v, f("transactionAmount"), in.TransactionAmount)
	}
	if in.OriginalAmount == nil {
		v.Format(f("originalAmount"), "is required: {\"currency\", \"amount\"} in the merchant's currency")
	} else {
		t.OriginalAmount = checkCardMoney(v, f("originalAmount"), in.OriginalAmount)
	}
	if t.TransactionAmount.Amount.Sign()*t.OriginalAmount.Amount.Sign() < 0 {
		v.Format(f("originalAmount.amount"), "must have the same sign as transactionAmount.amount")
	}
	if !mccPattern.MatchString(in.MerchantCategoryCode) {
		v.Format(f("merchantCategoryCode"), "must be a 4-digit ISO 18245 merchant category code, e.g. 5411")
	}
	if in.CardAcceptorAddress == nil {
		v.Format(f("cardAcceptorAddress"), "is required: an object with at least country")
	} else {
		t.CardAcceptorAddress = checkAddress(v, f("cardAcceptorAddress"), *in.CardAcceptorAddress)
	}
	checkMaskedPan(v, f("maskedPan"), in.MaskedPan)
	switch in.Invoiced {
	case "true":
		t.Invoiced = true
	case "false":
	case "":
		v.Format(f("invoiced"), "is required: the string \"true\" or \"false\"")
	default:
		v.Format(f("invoiced"), "must be the string \"true\" or \"false\"")
	}
	if in.CurrencyExchange != nil {
		t.CurrencyExchange = checkExchange(v, f("currencyExchange"), *in.CurrencyExchange, today)
	}
	if in.MarkupFee != nil || in.MarkupFeePercentage != "" {
		checkMarkupBeside(v, p, in, t.CurrencyExchange)
	}
	return t
}

// checkMarkupBeside takes a markup fee given beside currencyExchange, where
// Berlin Group puts it, into the exchange x, where the sandbox API keeps
// it. It is odd: a fee given in both places must be the same.
func checkMarkupBeside(v *apierr.Violations, p string, in NewCardTransaction, x *CurrencyExchange) {
	f := func(field string) string { return apierr.JoinPath(p, field) }
	fee, pct := checkMarkup(v, f("markupFee"), f("markupFeePercentage"), in.MarkupFee, in.MarkupFeePercentage)
	if x == nil {
		v.Format(f("currencyExchange"), "is required with markupFee and markupFeePercentage: they are the fee of a currency exchange")
		return
	}
	if fee != nil {
		switch {
		case x.MarkupFee == nil:
			x.MarkupFee = fee
		case x.MarkupFee.Currency != fee.Currency || !x.MarkupFee.Amount.Equal(fee.Amount):
			v.Format(f("markupFee"), "differs from currencyExchange.markupFee; give the fee once")
		}
		v.Odd(apierr.CodeFormatError, f("markupFee"), "stands beside currencyExchange, where Berlin Group puts it; the sandbox API keeps it inside, as currencyExchange.markupFee, and shows it there")
	}
	if pct != "" {
		switch {
		case x.MarkupFeePercentage == "":
			x.MarkupFeePercentage = pct
		case !sameDecimal(x.MarkupFeePercentage, pct):
			v.Format(f("markupFeePercentage"), "differs from currencyExchange.markupFeePercentage; give it once")
		}
		v.Odd(apierr.CodeFormatError, f("markupFeePercentage"), "stands beside currencyExchange, where Berlin Group puts it; the sandbox API keeps it inside, as currencyExchange.markupFeePercentage, and shows it there")
	}
}

// sameDecimal reports whether two decimal texts have the same value.
func sameDecimal(a, b string) bool {
	x, errA := decimal.NewFromString(a)
	y, errB := decimal.NewFromString(b)
	return errA == nil && errB == nil && x.Equal(y)
}

func checkCardMoney(v *apierr.Violations, path string, in *AmountInput) Money {
	CheckCurrency(v, apierr.JoinPath(path, "currency"), in.Currency)
	amount, ok := checkSandboxAmount(v, apierr.JoinPath(path, "amount"), in.Amount, in.Currency)
	if ok && amount.IsZero() {
		v.Format(apierr.JoinPath(path, "amount"), "must not be zero; a purchase is negative, a refund positive")
	}
	return Money{Amount: amount, Currency: in.Currency}
}

func checkAddress(v *apierr.Violations, path string, in Address) Address {
	CheckText(v, apierr.JoinPath(path, "street"), in.Street, 0, 70)
	CheckText(v, apierr.JoinPath(path, "buildingNumber"), in.BuildingNumber, 0, 16)
	CheckText(v, apierr.JoinPath(path, "postalCode"), in.PostalCode, 0, 16)
	CheckText(v, apierr.JoinPath(path, "city"), in.City, 0, 35)
	switch {
	case in.Country == "":
		v.Format(apierr.JoinPath(path, "country"), "is required: an ISO 3166 alpha-2 code such as NO")
	case !validate.Country(in.Country):
		v.Format(apierr.JoinPath(path, "country"), "%q is not an ISO 3166 alpha-2 country code", apierr.Clip(in.Country))
	}
	return in
}

func checkExchange(v *apierr.Violations, path string, in NewCurrencyExchange, today Date) *CurrencyExchange {
	f := func(field string) string { return apierr.JoinPath(path, field) }
	for _, c := range []struct{ field, value string }{{"sourceCurrency", in.SourceCurrency}, {"targetCurrency", in.TargetCurrency}, {"unitCurrency", in.UnitCurrency}} {
		CheckCurrency(v, f(c.field), c.value)
	}
	if !ratePattern.MatchString(in.ExchangeRate) {
		v.Format(f("exchangeRate"), "must be a decimal number as a string, e.g. \"10.4512\"")
	}
	out := &CurrencyExchange{
		SourceCurrency: in.SourceCurrency, TargetCurrency: in.TargetCurrency, UnitCurrency: in.UnitCurrency,
		ExchangeRate: in.ExchangeRate,
	}
	out.QuotationDate = checkDate(v, f("quotationDate"), in.QuotationDate)
	checkPast(v, f("quotationDate"), out.QuotationDate, today)
	out.MarkupFee, out.MarkupFeePercentage = checkMarkup(v, f("markupFee"), f("markupFeePercentage"), in.MarkupFee, in.MarkupFeePercentage)
	return out
}

// checkMarkup checks an optional markup fee and fee percentage.
func checkMarkup(v *apierr.Violations, feePath, pctPath string, fee *AmountInput, pct string) (*Money, string) {
	if pct != "" && !ratePattern.MatchString(pct) {
		v.Format(pctPath, "must be a decimal number as a string, e.g. \"1.75\"")
	}
	if fee == nil {
		return nil, pct
	}
	m := checkCardMoney(v, feePath, fee)
	return &m, pct
}

// pendingIn keeps the pending card transactions made within the query's
// dates: unlike an account's pending items, which come whole, a card
// account's are selected by dateFrom and dateTo like its booked ones
// (spec 8), by their transactionDate. Paging stays with the booked ones.
func pendingIn(list []CardTransaction, q TxQuery) []CardTransaction {
	out := list[:0:0]
	for _, t := range list {
		if (q.From.IsZero() || !t.TransactionDate.Before(q.From)) && (q.To.IsZero() || !t.TransactionDate.After(q.To)) {
			out = append(out, t)
		}
	}
	return out
}

// CardTransactions returns a page of a card account's booked transactions,
// newest first, and the pending ones within the query's dates (pendingIn).
// A zero Limit means DefaultPageSize.
func (s *Sandbox) CardTransactions(cardAccountID string, q TxQuery) (CardAccount, CardTxPage, error) {
	if q.Limit == 0 {
		q.Limit = DefaultPageSize
	}
	if err := checkQuery(q, MaxSandboxPageSize); err != nil {
		return CardAccount{}, CardTxPage{}, err
	}
	var c CardAccount
	var page CardTxPage
	err := s.view("list card transactions", func(tx Tx) error {
		var err error
		if c, err = tx.CardAccount(cardAccountID); err != nil {
			return found(err, "card account", cardAccountID)
		}
		page, err = tx.CardTransactions(cardAccountID, q)
		page.Pending = pendingIn(page.Pending, q)
		return err
	})
	return c, page, err
}

// DeleteCardTransactions deletes every transaction of a card account. The
// pending ones release what they held of its expected balance.
func (s *Sandbox) DeleteCardTransactions(cardAccountID string) error {
	return s.write("delete card transactions", func(tx Tx) error {
		if _, err := tx.CardAccount(cardAccountID); err != nil {
			return found(err, "card account", cardAccountID)
		}
		page, err := tx.CardTransactions(cardAccountID, TxQuery{Limit: 1})
		if err != nil {
			return err
		}
		if err := reserveCard(tx, cardAccountID, page.Pending, true); err != nil {
			return err
		}
		return tx.DeleteCardTransactions(cardAccountID)
	}, Event{Kind: EventCardTransactions, ID: cardAccountID}, Event{Kind: EventCardAccounts, ID: cardAccountID})
}
