package bank

import (
	"fmt"
	"regexp"

	"github.com/shopspring/decimal"

	"sandbank/bank/validate"
)

// NewCardAccount is the body of a card account creation. The spec does not
// show it; Sandbank takes the card account representation of spec 2.12 with
// the owner's customerNumber. CardID, CardIDVNo, AccountNumber, Balances
// and Status are optional.
type NewCardAccount struct {
	CustomerNumber string         `json:"customerNumber"`
	MaskedPan      string         `json:"maskedPan"`
	Currency       string         `json:"currency"`
	CreditLimit    *AmountInput   `json:"creditLimit"`
	Balances       []BalanceInput `json:"balances,omitempty"`
	CardID         string         `json:"cardId,omitempty"`
	CardIDVNo      string         `json:"cardIdVNo,omitempty"`
	AccountNumber  string         `json:"accountNumber,omitempty"`
	Expiry         string         `json:"expiry"`
	Name           string         `json:"name"`
	Product        string         `json:"product"`
	Status         string         `json:"status,omitempty"`
}

// CardAccountDetail is a card account with its owner.
type CardAccountDetail struct {
	CardAccount
	Owner Customer
}

// NewCardTransaction is one item of a card transaction post (spec 2.12).
// Every field but currencyExchange is required, except that a transaction
// without bookingDate is pending (Sandbank's extension for pending card
// transactions).
type NewCardTransaction struct {
	CardTransactionID              string               `json:"cardTransactionId"`
	TerminalID                     *string              `json:"terminalId"`
	BookingDate                    string               `json:"bookingDate,omitempty"`
	TransactionDate                string               `json:"transactionDate"`
	TransactionAmount              *AmountInput         `json:"transactionAmount"`
	OriginalAmount                 *AmountInput         `json:"originalAmount"`
	MerchantCategoryCode           string               `json:"merchantCategoryCode"`
	CurrencyExchange               *NewCurrencyExchange `json:"currencyExchange,omitempty"`
	CardAcceptorID                 *string              `json:"cardAcceptorId"`
	CardAcceptorAddress            *Address             `json:"cardAcceptorAddress"`
	MaskedPan                      string               `json:"maskedPan"`
	TransactionDetails             *string              `json:"transactionDetails"`
	Invoiced                       string               `json:"invoiced"`
	ProprietaryBankTransactionCode *string              `json:"proprietaryBankTransactionCode"`
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
// booked transactions and the ids of the pending ones.
type CardPostResult struct {
	MaskedPan string
	Booked    []CardTransaction
	Pending   []string
}

var (
	expiryPattern = regexp.MustCompile(`^[0-9]{4}-(0[1-9]|1[0-2])$`)
	mccPattern    = regexp.MustCompile(`^[0-9]{4}$`)
	ratePattern   = regexp.MustCompile(`^[0-9]{1,12}(\.[0-9]{1,10})?$`)
)

// CreateCardAccount adds a card account.
func (s *Sandbox) CreateCardAccount(in NewCardAccount) (CardAccountDetail, error) {
	return change(s.core, "create card account", func(tx Tx) (d CardAccountDetail, err error) {
		c, err := createCardAccount(tx, "", "", in)
		if err != nil {
			return d, err
		}
		d, err = cardDetail(tx, c)
		return d, err
	}, Event{Kind: EventCardAccounts}, Event{Kind: EventCustomers})
}

func createCardAccount(tx Tx, path, id string, in NewCardAccount) (CardAccount, error) {
	var v Violations
	p := func(field string) string { return JoinPath(path, field) }
	owner := lookupCustomer(tx, &v, p("customerNumber"), in.CustomerNumber)
	checkMaskedPan(&v, p("maskedPan"), in.MaskedPan)
	currencyOK := checkCurrency(&v, p("currency"), in.Currency)
	var limit decimal.Decimal
	if in.CreditLimit == nil {
		v.Format(p("creditLimit"), "is required: {\"currency\", \"amount\"}")
	} else {
		if in.CreditLimit.Currency != in.Currency {
			v.Format(p("creditLimit.currency"), "must be %s, the card account's currency", in.Currency)
		}
		limit = checkLimit(&v, p("creditLimit.amount"), in.CreditLimit.Amount, in.Currency)
	}
	var balances Balances
	if currencyOK {
		balances = checkBalances(&v, p("balances"), in.Balances, in.Currency, Balances{}, true)
	}
	checkText(&v, p("cardId"), in.CardID, 0, 35)
	checkText(&v, p("cardIdVNo"), in.CardIDVNo, 0, 35)
	checkText(&v, p("accountNumber"), in.AccountNumber, 0, 34)
	if !expiryPattern.MatchString(in.Expiry) {
		v.Format(p("expiry"), "must be the expiry month as YYYY-MM, e.g. 2029-08")
	}
	checkText(&v, p("name"), in.Name, 1, 70)
	checkText(&v, p("product"), in.Product, 1, 70)
	status := checkStatus(&v, p("status"), in.Status)
	id, seq, err := newID(tx, &v, path, KindCardAccount, 0, id)
	if err != nil {
		return CardAccount{}, err
	}
	if err := v.Err(); err != nil {
		return CardAccount{}, err
	}
	if _, err := tx.CardAccount(id); err == nil {
		return CardAccount{}, PathError(CodeConflict, p("id"), "two card accounts have the id "+id)
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

// SetCardBalances replaces the card account balances of the given types.
func (s *Sandbox) SetCardBalances(id string, in []BalanceInput) (CardAccountDetail, error) {
	return change(s.core, "set card balances", func(tx Tx) (d CardAccountDetail, err error) {
		c, err := tx.CardAccount(id)
		if err != nil {
			return d, found(err, "card account", id)
		}
		var v Violations
		if len(in) == 0 {
			v.Format("", "give at least one balance")
		}
		c.Balances = checkBalances(&v, "", in, c.Currency, c.Balances, false)
		d, err = putCardAccount(tx, &v, c)
		return d, err
	}, Event{Kind: EventCardAccounts, ID: id})
}

// putCardAccount stores an edited card account, unless v holds
// violations, and returns its detail.
func putCardAccount(tx Tx, v *Violations, c CardAccount) (CardAccountDetail, error) {
	if err := v.Err(); err != nil {
		return CardAccountDetail{}, err
	}
	if err := tx.PutCardAccount(c); err != nil {
		return CardAccountDetail{}, err
	}
	return cardDetail(tx, c)
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
		var v Violations
		if ch.Name != nil {
			checkText(&v, "name", *ch.Name, 1, 70)
			c.Name = *ch.Name
		}
		if ch.Product != nil {
			checkText(&v, "product", *ch.Product, 1, 70)
			c.Product = *ch.Product
		}
		if ch.CreditLimit != nil {
			c.CreditLimit = checkLimit(&v, "creditLimit.amount", ch.CreditLimit, c.Currency)
		}
		if ch.Status != nil {
			c.Status = checkStatus(&v, "status", *ch.Status)
		}
		if ch.Expiry != nil {
			if !expiryPattern.MatchString(*ch.Expiry) {
				v.Format("expiry", "must be the expiry month as YYYY-MM, e.g. 2029-08")
			}
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
			return res, PathError(CodeFormatError, "", "send an array of at least one card transaction")
		}
		res, err = addCardTransactions(tx, c, "", in, s.Today())
		return res, err
	}, Event{Kind: EventCardTransactions, ID: cardAccountID})
}

func addCardTransactions(tx Tx, c CardAccount, path string, in []NewCardTransaction, today Date) (CardPostResult, error) {
	var v Violations
	res := CardPostResult{MaskedPan: c.MaskedPan, Booked: []CardTransaction{}, Pending: []string{}}
	list := make([]CardTransaction, 0, len(in))
	seen := map[string]bool{}
	for i, item := range in {
		p := JoinPath(path, fmt.Sprintf("[%d]", i))
		t := checkCardTransaction(&v, p, c, item, today)
		if t.CardTransactionID != "" {
			if seen[t.CardTransactionID] {
				v.Format(JoinPath(p, "cardTransactionId"), "%s is given twice in this request", t.CardTransactionID)
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
			return res, PathError(CodeConflict, JoinPath(path, fmt.Sprintf("[%d].cardTransactionId", i)), "card account "+c.ID+" has a transaction "+t.CardTransactionID+" already")
		}
		if t.Pending() {
			res.Pending = append(res.Pending, t.CardTransactionID)
		} else {
			res.Booked = append(res.Booked, t)
		}
	}
	return res, tx.PutCardTransactions(c.ID, list)
}

func checkCardTransaction(v *Violations, p string, c CardAccount, in NewCardTransaction, today Date) CardTransaction {
	f := func(field string) string { return JoinPath(p, field) }
	checkText(v, f("cardTransactionId"), in.CardTransactionID, 1, 35)
	t := CardTransaction{
		CardTransactionID:              in.CardTransactionID,
		TerminalID:                     checkPresent(v, f("terminalId"), in.TerminalID, 35),
		MerchantCategoryCode:           in.MerchantCategoryCode,
		CardAcceptorID:                 checkPresent(v, f("cardAcceptorId"), in.CardAcceptorID, 35),
		MaskedPan:                      in.MaskedPan,
		TransactionDetails:             checkPresent(v, f("transactionDetails"), in.TransactionDetails, 140),
		ProprietaryBankTransactionCode: checkPresent(v, f("proprietaryBankTransactionCode"), in.ProprietaryBankTransactionCode, 35),
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
	return t
}

func checkCardMoney(v *Violations, path string, in *AmountInput) Money {
	checkCurrency(v, JoinPath(path, "currency"), in.Currency)
	amount, ok := checkSandboxAmount(v, JoinPath(path, "amount"), in.Amount, in.Currency)
	if ok && amount.IsZero() {
		v.Format(JoinPath(path, "amount"), "must not be zero; a purchase is negative, a refund positive")
	}
	return Money{Amount: amount, Currency: in.Currency}
}

func checkAddress(v *Violations, path string, in Address) Address {
	checkText(v, JoinPath(path, "street"), in.Street, 0, 70)
	checkText(v, JoinPath(path, "buildingNumber"), in.BuildingNumber, 0, 16)
	checkText(v, JoinPath(path, "postalCode"), in.PostalCode, 0, 16)
	checkText(v, JoinPath(path, "city"), in.City, 0, 35)
	switch {
	case in.Country == "":
		v.Format(JoinPath(path, "country"), "is required: an ISO 3166 alpha-2 code such as NO")
	case !validate.Country(in.Country):
		v.Format(JoinPath(path, "country"), "%q is not an ISO 3166 alpha-2 country code", clip(in.Country))
	}
	return in
}

func checkExchange(v *Violations, path string, in NewCurrencyExchange, today Date) *CurrencyExchange {
	f := func(field string) string { return JoinPath(path, field) }
	for _, c := range []struct{ field, value string }{{"sourceCurrency", in.SourceCurrency}, {"targetCurrency", in.TargetCurrency}, {"unitCurrency", in.UnitCurrency}} {
		checkCurrency(v, f(c.field), c.value)
	}
	if !ratePattern.MatchString(in.ExchangeRate) {
		v.Format(f("exchangeRate"), "must be a decimal number as a string, e.g. \"10.4512\"")
	}
	out := &CurrencyExchange{
		SourceCurrency: in.SourceCurrency, TargetCurrency: in.TargetCurrency, UnitCurrency: in.UnitCurrency,
		ExchangeRate: in.ExchangeRate, MarkupFeePercentage: in.MarkupFeePercentage,
	}
	out.QuotationDate = checkDate(v, f("quotationDate"), in.QuotationDate)
	checkPast(v, f("quotationDate"), out.QuotationDate, today)
	if in.MarkupFee != nil {
		m := checkCardMoney(v, f("markupFee"), in.MarkupFee)
		out.MarkupFee = &m
	}
	if in.MarkupFeePercentage != "" && !ratePattern.MatchString(in.MarkupFeePercentage) {
		v.Format(f("markupFeePercentage"), "must be a decimal number as a string, e.g. \"1.75\"")
	}
	return out
}

// CardTransactions returns a page of a card account's booked transactions,
// newest first, and all pending ones. A zero Limit means DefaultPageSize.
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
		return err
	})
	return c, page, err
}

// DeleteCardTransactions deletes every transaction of a card account.
func (s *Sandbox) DeleteCardTransactions(cardAccountID string) error {
	return s.write("delete card transactions", func(tx Tx) error {
		if _, err := tx.CardAccount(cardAccountID); err != nil {
			return found(err, "card account", cardAccountID)
		}
		return tx.DeleteCardTransactions(cardAccountID)
	}, Event{Kind: EventCardTransactions, ID: cardAccountID})
}
