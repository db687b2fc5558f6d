package psd2api

import (
	"encoding/json"

	"sandbank/bank"
)

// Response shapes of the sandbox API (spec 2.9-2.13). Sandbox amounts are
// JSON numbers.

type amountView struct {
	Currency string      `json:"currency"`
	Amount   json.Number `json:"amount"`
}

// balanceView is a balance; a card account's may have Berlin Group's
// referenceDate, lastChangeDateTime and lastCommittedTransaction.
type balanceView struct {
	BalanceAmount amountView `json:"balanceAmount"`
	BalanceType   string     `json:"balanceType"`
	bank.BalanceDetail
}

func balancesView(b bank.Balances, currency string) []balanceView {
	return []balanceView{
		{BalanceAmount: amountView{currency, number(b.ClosingBooked)}, BalanceType: bank.BalanceClosingBooked},
		{BalanceAmount: amountView{currency, number(b.Expected)}, BalanceType: bank.BalanceExpected},
	}
}

func cardBalancesView(b bank.CardBalances, currency string) []balanceView {
	out := balancesView(b.Balances, currency)
	for i := range out {
		out[i].BalanceDetail = b.Detail(out[i].BalanceType)
	}
	return out
}

type agreementView struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Owner       string          `json:"owner"`
	Private     bool            `json:"private"`
	Engagements []string        `json:"engagements"`
	Links       map[string]link `json:"_links"`
}

func agreementOf(d bank.AgreementDetail) agreementView {
	v := agreementView{ID: d.ID, Name: d.Name, Owner: d.Owner.Number, Private: d.Private, Engagements: []string{}}
	for _, e := range d.Engagements {
		v.Engagements = append(v.Engagements, e.ID)
	}
	self := "/v1/sandbox/agreements/" + d.ID
	v.Links = map[string]link{"self": linkTo(self, "GET", "DELETE"), "engagements": linkTo(self+"/engagements", "GET", "POST")}
	if d.Private { // it goes with its customer and holds exactly their accounts
		v.Links = map[string]link{"self": linkTo(self, "GET"), "engagements": linkTo(self+"/engagements", "GET")}
	}
	return v
}

type customerView struct {
	CustomerID     string `json:"customerId"`
	CustomerNumber string `json:"customerNumber"`
	CustomerType   string `json:"customerType"`
	CustomerName   string `json:"customerName"`
	// nil when not asked for (withAccounts, withAgreements); [] when none.
	Agreements   *[]agreementView `json:"agreements,omitempty"`
	Accounts     *[]string        `json:"accounts,omitempty"`
	CardAccounts *[]string        `json:"cardAccounts,omitempty"`
	Links        map[string]link  `json:"_links"`
}

func customerOf(d bank.CustomerDetail) customerView {
	v := customerView{
		CustomerID: d.ID, CustomerNumber: d.Number, CustomerType: d.Type, CustomerName: d.Name,
		Links: map[string]link{"self": linkTo("/v1/sandbox/customers/"+d.ID, "GET", "DELETE")},
	}
	if d.AccountIDs != nil {
		v.Accounts, v.CardAccounts = &d.AccountIDs, &d.CardAccountIDs
	}
	if d.Agreements != nil {
		list := make([]agreementView, 0, len(d.Agreements))
		for _, a := range d.Agreements {
			list = append(list, agreementOf(a))
		}
		v.Agreements = &list
	}
	return v
}

type accountView struct {
	ID              string        `json:"id"`
	CustomerNumber  string        `json:"customerNumber"`
	AccountName     string        `json:"accountName"`
	BBAN            string        `json:"bban"`
	IBAN            string        `json:"iban"`
	Currency        string        `json:"currency"`
	Product         string        `json:"product"`
	CashAccountType string        `json:"cashAccountType"`
	CreditLine      json.Number   `json:"creditLine"`
	Balances        []balanceView `json:"balances"`
	KIDRequired     bool          `json:"kidRequired"`
	Status          string        `json:"status"`
	Links           sandboxLinks  `json:"_links"`
}

// sandboxLinks are the links of a sandbox account or card account.
type sandboxLinks struct {
	Self         link `json:"self"`
	Transactions link `json:"transactions"`
}

func sandboxLinksOf(self string) sandboxLinks {
	return sandboxLinks{Self: linkTo(self, "GET", "DELETE"), Transactions: linkTo(self+"/transactions", "GET", "POST", "DELETE")}
}

func accountOf(d bank.AccountDetail) accountView {
	self := "/v1/sandbox/accounts/" + d.ID
	return accountView{
		ID: d.ID, CustomerNumber: d.Owner.Number, AccountName: d.Name, BBAN: d.BBAN, IBAN: d.IBAN,
		Currency: d.Currency, Product: d.Product, CashAccountType: d.CashAccountType,
		CreditLine: number(d.CreditLine), Balances: balancesView(d.Balances, d.Currency),
		KIDRequired: d.KIDRequired, Status: d.Status, Links: sandboxLinksOf(self),
	}
}

type transactionView struct {
	ID                                string          `json:"id"`
	Amount                            json.Number     `json:"amount"`
	Currency                          string          `json:"currency"`
	ValueDate                         bank.Date       `json:"valueDate"`
	BookingDate                       bank.Date       `json:"bookingDate"`
	RemittanceInformationUnstructured string          `json:"remittanceInformationUnstructured"`
	CreditorID                        string          `json:"creditorId"`
	CreditorName                      string          `json:"creditorName"`
	CreditorAccount                   bank.AccountRef `json:"creditorAccount"`
	DebtorName                        string          `json:"debtorName"`
	DebtorAccount                     bank.AccountRef `json:"debtorAccount"`
	BankTransactionCode               string          `json:"bankTransactionCode"`
	UltimateDebtor                    string          `json:"ultimateDebtor"`
	UltimateCreditor                  string          `json:"ultimateCreditor"`
	PurposeCode                       string          `json:"purposeCode"`
	EndToEndID                        string          `json:"endToEndId,omitempty"`
	CreditorAgent                     string          `json:"creditorAgent,omitempty"`
	DebtorAgent                       string          `json:"debtorAgent,omitempty"`
	ProprietaryBankTransactionCode    string          `json:"proprietaryBankTransactionCode,omitempty"`
	// The extensions in Berlin Group's shapes, when set.
	RemittanceInformationUnstructuredArray []string                    `json:"remittanceInformationUnstructuredArray,omitempty"`
	RemittanceInformationStructuredArray   []bank.StructuredRemittance `json:"remittanceInformationStructuredArray,omitempty"`
	CurrencyExchange                       []bank.ExchangeRate         `json:"currencyExchange,omitempty"`
	Links                                  selfLink                    `json:"_links"`
}

// selfLink is a _links object with only self (a struct, not a map: lists
// of transactions encode many of them).
type selfLink struct {
	Self link `json:"self"`
}

func transactionOf(accountID string, t bank.Transaction) transactionView {
	return transactionView{
		ID: t.ID, Amount: number(t.Amount), Currency: t.Currency, ValueDate: t.ValueDate, BookingDate: t.BookingDate,
		RemittanceInformationUnstructured: t.RemittanceInformationUnstructured,
		CreditorID:                        t.CreditorID, CreditorName: t.CreditorName, CreditorAccount: t.CreditorAccount,
		DebtorName: t.DebtorName, DebtorAccount: t.DebtorAccount, BankTransactionCode: t.BankTransactionCode,
		UltimateDebtor: t.UltimateDebtor, UltimateCreditor: t.UltimateCreditor, PurposeCode: t.PurposeCode,
		EndToEndID: t.EndToEndID, CreditorAgent: t.CreditorAgent, DebtorAgent: t.DebtorAgent,
		ProprietaryBankTransactionCode:         t.ProprietaryBankTransactionCode,
		RemittanceInformationUnstructuredArray: t.RemittanceInformationUnstructuredArray,
		RemittanceInformationStructuredArray:   t.RemittanceInformationStructuredArray,
		CurrencyExchange:                       t.CurrencyExchange,
		Links:                                  selfLink{getLink("/v1/sandbox/accounts/" + accountID + "/transactions/" + t.ID)},
	}
}

type cardAccountView struct {
	ResourceID     string        `json:"resourceId"`
	CustomerNumber string        `json:"customerNumber"`
	MaskedPan      string        `json:"maskedPan"`
	Currency       string        `json:"currency"`
	CreditLimit    amountView    `json:"creditLimit"`
	Balances       []balanceView `json:"balances"`
	CardID         string        `json:"cardId"`
	CardIDVNo      string        `json:"cardIdVNo"`
	AccountNumber  string        `json:"accountNumber"`
	Expiry         string        `json:"expiry"`
	Name           string        `json:"name"`
	Product        string        `json:"product"`
	Status         string        `json:"status"`
	Links          sandboxLinks  `json:"_links"`
}

func cardAccountOf(d bank.CardAccountDetail) cardAccountView {
	self := "/v1/sandbox/card-accounts/" + d.ID
	return cardAccountView{
		ResourceID: d.ID, CustomerNumber: d.Owner.Number, MaskedPan: d.MaskedPan, Currency: d.Currency,
		CreditLimit: amountView{d.Currency, number(d.CreditLimit)}, Balances: cardBalancesView(d.Balances, d.Currency),
		CardID: d.CardID, CardIDVNo: d.CardIDVNo, AccountNumber: d.AccountNumber, Expiry: d.Expiry,
		Name: d.Name, Product: d.Product, Status: d.Status, Links: sandboxLinksOf(self),
	}
}

type cardWrap struct {
	CardAccount cardAccountView `json:"cardAccount"`
}

type moneyView = amountView

func moneyOf(m bank.Money) moneyView { return moneyView{m.Currency, number(m.Amount)} }

// cardTransactionSummary is a booked item of the card post response.
type cardTransactionSummary struct {
	CardTransactionID    string    `json:"cardTransactionId"`
	BookingDate          bank.Date `json:"bookingDate"`
	TransactionDate      bank.Date `json:"transactionDate"`
	TransactionAmount    moneyView `json:"transactionAmount"`
	OriginalAmount       moneyView `json:"originalAmount"`
	MerchantCategoryCode string    `json:"merchantCategoryCode"`
}

type exchangeView struct {
	SourceCurrency      string     `json:"sourceCurrency,omitempty"`
	TargetCurrency      string     `json:"targetCurrency,omitempty"`
	UnitCurrency        string     `json:"unitCurrency,omitempty"`
	ExchangeRate        string     `json:"exchangeRate,omitempty"`
	QuotationDate       bank.Date  `json:"quotationDate"`
	MarkupFee           *moneyView `json:"markupFee,omitempty"`
	MarkupFeePercentage string     `json:"markupFeePercentage,omitempty"`
}

type cardTransactionView struct {
	CardTransactionID              string        `json:"cardTransactionId"`
	TerminalID                     string        `json:"terminalId"`
	BookingDate                    *bank.Date    `json:"bookingDate,omitempty"`
	TransactionDate                bank.Date     `json:"transactionDate"`
	TransactionAmount              moneyView     `json:"transactionAmount"`
	OriginalAmount                 moneyView     `json:"originalAmount"`
	MerchantCategoryCode           string        `json:"merchantCategoryCode"`
	CurrencyExchange               *exchangeView `json:"currencyExchange,omitempty"`
	CardAcceptorID                 string        `json:"cardAcceptorId"`
	CardAcceptorAddress            bank.Address  `json:"cardAcceptorAddress"`
	MaskedPan                      string        `json:"maskedPan"`
	TransactionDetails             string        `json:"transactionDetails"`
	Invoiced                       string        `json:"invoiced"`
	ProprietaryBankTransactionCode string        `json:"proprietaryBankTransactionCode"`
}

func cardTransactionOf(t bank.CardTransaction) cardTransactionView {
	v := cardTransactionView{
		CardTransactionID: t.CardTransactionID, TerminalID: t.TerminalID, TransactionDate: t.TransactionDate,
		TransactionAmount: moneyOf(t.TransactionAmount), OriginalAmount: moneyOf(t.OriginalAmount),
		MerchantCategoryCode: t.MerchantCategoryCode, CardAcceptorID: t.CardAcceptorID,
		CardAcceptorAddress: t.CardAcceptorAddress, MaskedPan: t.MaskedPan, TransactionDetails: t.TransactionDetails,
		Invoiced: boolString(t.Invoiced), ProprietaryBankTransactionCode: t.ProprietaryBankTransactionCode,
	}
	if !t.Pending() {
		d := t.BookingDate
		v.BookingDate = &d
	}
	if x := t.CurrencyExchange; x != nil {
		v.CurrencyExchange = &exchangeView{
			SourceCurrency: x.SourceCurrency, TargetCurrency: x.TargetCurrency, UnitCurrency: x.UnitCurrency,
			ExchangeRate: x.ExchangeRate, QuotationDate: x.QuotationDate, MarkupFeePercentage: x.MarkupFeePercentage,
		}
		if x.MarkupFee != nil {
			m := moneyOf(*x.MarkupFee)
			v.CurrencyExchange.MarkupFee = &m
		}
	}
	return v
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

type engagementView struct {
	ID            string          `json:"id"`
	Customer      string          `json:"customer"`
	Account       bank.IBANRef    `json:"account"`
	Roles         []string        `json:"roles"`
	RegisterLimit json.Number     `json:"registerLimit"`
	ApprovalLimit json.Number     `json:"approvalLimit"`
	Links         map[string]link `json:"_links"`
}

func engagementOf(d bank.EngagementDetail) engagementView {
	verbs := []string{"GET", "DELETE"}
	if d.Private {
		verbs = verbs[:1]
	}
	return engagementView{
		ID: d.ID, Customer: d.Customer.Number, Account: bank.IBANRef{IBAN: d.Account.IBAN}, Roles: d.Roles,
		RegisterLimit: number(d.RegisterLimit), ApprovalLimit: number(d.ApprovalLimit),
		Links: map[string]link{"self": linkTo("/v1/sandbox/agreements/"+d.AgreementID+"/engagements/"+d.ID, verbs...)},
	}
}
