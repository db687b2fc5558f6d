package bank

// The records the store keeps for the sandbox data: customers, agreements,
// engagements, accounts, card accounts, their transactions, and TPP
// contacts. They are stored as their JSON, except transactions, which use
// a compact binary form (storage/codec.go); storage/testdata/schema holds
// their stored form, so a renamed tag fails a test.

import (
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Customer types, in the seed's spelling, which the known state writes.
// A customer's Type is kept as it was written, in any case: compare it
// with IsPrivate and IsCorporate.
const (
	Private   = "PRIVATE"
	Corporate = "CORPORATE"
)

// CustomerTypes lists the customer types.
var CustomerTypes = []string{Private, Corporate}

// Customer is a sandbox customer: a person or a company that can do SCA with
// its customerNumber (the mocked national id) and can own accounts.
type Customer struct {
	ID     string `json:"id"`
	Number string `json:"number"`
	Name   string `json:"name"`
	// Type is Private or Corporate in the case it was written in
	// (private, Private, PRIVATE, ...); data files of earlier versions hold
	// it in capitals.
	Type string `json:"type"`
}

// IsPrivate reports whether the customer is a person, whatever the case
// of its type.
func (c Customer) IsPrivate() bool { return strings.EqualFold(c.Type, Private) }

// IsCorporate reports whether the customer is a company, whatever the
// case of its type.
func (c Customer) IsCorporate() bool { return strings.EqualFold(c.Type, Corporate) }

// Agreement is a corporate customer's agreement: the frame in which the
// company lets people (PSUs) act on its accounts through engagements. A
// private customer's agreement is not stored: it is derived from the
// customer and the accounts they own (see PrivateAgreementID).
type Agreement struct {
	ID      string `json:"id"`
	OwnerID string `json:"ownerId"`
	Name    string `json:"name"`
}

// Roles an engagement can give a PSU on an account (spec 2.13).
const (
	RoleOwner            = "OWNER"
	RoleDisposal         = "DISPOSAL"
	RoleView             = "VIEW"
	RoleRegister         = "REGISTER"
	RoleApprove          = "APPROVE"
	RoleInternalTransfer = "INTERNAL_TRANSFER"
	RoleSalary           = "SALARY"
)

// Roles lists every engagement role in the order the API documents them.
var Roles = []string{RoleOwner, RoleDisposal, RoleView, RoleRegister, RoleApprove, RoleInternalTransfer, RoleSalary}

// Engagement lets one PSU act on one account of an agreement's owner, with
// roles and limits (spec 2.13). Limits are in the account's currency. The
// roles are kept as they were written, in any case: ask HasRole.
type Engagement struct {
	ID            string          `json:"id"`
	AgreementID   string          `json:"agreementId"`
	CustomerID    string          `json:"customerId"`
	AccountID     string          `json:"accountId"`
	Roles         []string        `json:"roles"`
	RegisterLimit decimal.Decimal `json:"registerLimit"`
	ApprovalLimit decimal.Decimal `json:"approvalLimit"`
}

// HasRole reports whether the engagement gives role. Roles are kept as
// they were written, so they are compared without regard to case.
func (e Engagement) HasRole(role string) bool {
	for _, r := range e.Roles {
		if strings.EqualFold(r, role) {
			return true
		}
	}
	return false
}

// Balances are the two stored balances of an account or card account; the
// API derives interimAvailable (expected plus credit line) from them.
type Balances struct {
	ClosingBooked decimal.Decimal `json:"closingBooked"`
	Expected      decimal.Decimal `json:"expected"`
}

// BalanceDetail is what a card account's balance says besides its amount,
// in Berlin Group's fields; each is left out when not set.
type BalanceDetail struct {
	ReferenceDate            Date      `json:"referenceDate,omitzero"`
	LastChangeDateTime       time.Time `json:"lastChangeDateTime,omitzero"`
	LastCommittedTransaction string    `json:"lastCommittedTransaction,omitempty"`
}

// CardBalances are the stored balances of a card account: the amounts and
// the detail each balance was given with.
type CardBalances struct {
	Balances
	ClosingBookedDetail BalanceDetail `json:"closingBookedDetail,omitzero"`
	ExpectedDetail      BalanceDetail `json:"expectedDetail,omitzero"`
}

// Detail returns the detail of the balance of type typ (BalanceClosingBooked
// or BalanceExpected).
func (b CardBalances) Detail(typ string) BalanceDetail {
	switch typ {
	case BalanceClosingBooked:
		return b.ClosingBookedDetail
	case BalanceExpected:
		return b.ExpectedDetail
	}
	return BalanceDetail{}
}

// Balance types as the sandbox API writes them.
const (
	BalanceClosingBooked = "closingBooked"
	BalanceExpected      = "expected"
)

// Account is a sandbox bank account. Its CashAccountType is one of
// CashAccountTypes as it was written, in any case; the PSD2 API writes it
// as CashAccountISO does.
type Account struct {
	ID              string          `json:"id"`
	OwnerID         string          `json:"ownerId"`
	Name            string          `json:"name"`
	BBAN            string          `json:"bban"`
	IBAN            string          `json:"iban"`
	Currency        string          `json:"currency"`
	Product         string          `json:"product"`
	CashAccountType string          `json:"cashAccountType"`
	CreditLine      decimal.Decimal `json:"creditLine"`
	Balances        Balances        `json:"balances"`
	KIDRequired     bool            `json:"kidRequired,omitempty"`
	Status          string          `json:"status"`
}

// AccountRef names an account by IBAN or BBAN.
type AccountRef struct {
	IBAN string `json:"iban,omitempty"`
	BBAN string `json:"bban,omitempty"`
}

// IsZero reports whether the reference names no account.
func (r AccountRef) IsZero() bool { return r.IBAN == "" && r.BBAN == "" }

// Transaction is a transaction on an account, booked or pending. Amount is
// signed: negative for a debit.
type Transaction struct {
	ID                                string          `json:"-"`
	Amount                            decimal.Decimal `json:"amount"`
	Currency                          string          `json:"currency"`
	BookingDate                       Date            `json:"bookingDate"`
	ValueDate                         Date            `json:"valueDate"`
	RemittanceInformationUnstructured string          `json:"remittanceInformationUnstructured,omitempty"`
	CreditorID                        string          `json:"creditorId,omitempty"`
	CreditorName                      string          `json:"creditorName,omitempty"`
	CreditorAccount                   AccountRef      `json:"creditorAccount"`
	UltimateCreditor                  string          `json:"ultimateCreditor,omitempty"`
	DebtorName                        string          `json:"debtorName,omitempty"`
	DebtorAccount                     AccountRef      `json:"debtorAccount"`
	UltimateDebtor                    string          `json:"ultimateDebtor,omitempty"`
	PurposeCode                       string          `json:"purposeCode,omitempty"`
	BankTransactionCode               string          `json:"bankTransactionCode"`
	EndToEndID                        string          `json:"endToEndId,omitempty"`
	CreditorAgent                     string          `json:"creditorAgent,omitempty"`
	DebtorAgent                       string          `json:"debtorAgent,omitempty"`
	ProprietaryBankTransactionCode    string          `json:"proprietaryBankTransactionCode,omitempty"`
	// Pending marks a transaction that is not booked yet.
	Pending bool `json:"pending,omitempty"`
	// RemittanceInformationUnstructuredArray holds remittance lines beside
	// RemittanceInformationUnstructured; RemittanceInformationStructuredArray
	// the structured references (a KID); CurrencyExchange the conversions
	// the amount went through. Transaction details show them.
	RemittanceInformationUnstructuredArray []string               `json:"remittanceInformationUnstructuredArray,omitempty"`
	RemittanceInformationStructuredArray   []StructuredRemittance `json:"remittanceInformationStructuredArray,omitempty"`
	CurrencyExchange                       []ExchangeRate         `json:"currencyExchange,omitempty"`
}

// ExchangeRate is a currency exchange a transaction went through, in
// Berlin Group's reportExchangeRate: ExchangeRate units of TargetCurrency
// for one UnitCurrency, converting from SourceCurrency, quoted on
// QuotationDate.
type ExchangeRate struct {
	SourceCurrency         string `json:"sourceCurrency"`
	ExchangeRate           string `json:"exchangeRate"`
	UnitCurrency           string `json:"unitCurrency"`
	TargetCurrency         string `json:"targetCurrency"`
	QuotationDate          Date   `json:"quotationDate"`
	ContractIdentification string `json:"contractIdentification,omitempty"`
}

// Statuses of accounts and card accounts (spec 2.12, Berlin Group).
var Statuses = []string{"enabled", "blocked", "deleted"}

// StatusEnabled is the status of a usable account or card account.
const StatusEnabled = "enabled"

// CashAccountTypes are the ISO 20022 cash account types of spec 2.10.
var CashAccountTypes = []string{"CACC", "CASH", "CHAR", "CISH", "COMM", "CPAC", "LLSV", "LOAN", "MGLD", "MOMA", "NREX", "ODFT", "ONDP", "OTHR", "SACC", "SLRY", "SVGS", "TAXE", "TRAN", "TRAS"}

// CashAccountISO returns a cash account type as ISO 20022 writes it, in
// capitals, however it was written; a value that is none of
// CashAccountTypes comes back as it is.
func CashAccountISO(typ string) string {
	if iso := OneOfCase(typ, CashAccountTypes); iso != "" {
		return iso
	}
	return typ
}

// CardAccount is a sandbox card account (spec 2.12).
type CardAccount struct {
	ID            string          `json:"id"`
	OwnerID       string          `json:"ownerId"`
	MaskedPan     string          `json:"maskedPan"`
	Currency      string          `json:"currency"`
	CreditLimit   decimal.Decimal `json:"creditLimit"`
	Balances      CardBalances    `json:"balances"`
	CardID        string          `json:"cardId"`
	CardIDVNo     string          `json:"cardIdVNo"`
	AccountNumber string          `json:"accountNumber"`
	Expiry        string          `json:"expiry"`
	Name          string          `json:"name"`
	Product       string          `json:"product"`
	Status        string          `json:"status"`
}

// Money is an amount in a currency.
type Money struct {
	Amount   decimal.Decimal `json:"amount"`
	Currency string          `json:"currency"`
}

// Address is a postal address; Country is an ISO 3166 alpha-2 code.
type Address struct {
	Street         string `json:"street,omitempty"`
	BuildingNumber string `json:"buildingNumber,omitempty"`
	PostalCode     string `json:"postalCode,omitempty"`
	City           string `json:"city,omitempty"`
	Country        string `json:"country"`
}

// CurrencyExchange describes the conversion of a card transaction.
type CurrencyExchange struct {
	SourceCurrency      string `json:"sourceCurrency,omitempty"`
	TargetCurrency      string `json:"targetCurrency,omitempty"`
	UnitCurrency        string `json:"unitCurrency,omitempty"`
	ExchangeRate        string `json:"exchangeRate,omitempty"`
	QuotationDate       Date   `json:"quotationDate"`
	MarkupFee           *Money `json:"markupFee,omitempty"`
	MarkupFeePercentage string `json:"markupFeePercentage,omitempty"`
}

// CardTransaction is a transaction on a card account. It is pending while
// BookingDate is the zero Date. TransactionAmount is in the card account's
// currency, OriginalAmount in the merchant's.
type CardTransaction struct {
	CardTransactionID              string            `json:"cardTransactionId"`
	TerminalID                     string            `json:"terminalId"`
	BookingDate                    Date              `json:"bookingDate"`
	TransactionDate                Date              `json:"transactionDate"`
	TransactionAmount              Money             `json:"transactionAmount"`
	OriginalAmount                 Money             `json:"originalAmount"`
	MerchantCategoryCode           string            `json:"merchantCategoryCode"`
	CurrencyExchange               *CurrencyExchange `json:"currencyExchange,omitempty"`
	CardAcceptorID                 string            `json:"cardAcceptorId"`
	CardAcceptorAddress            Address           `json:"cardAcceptorAddress"`
	MaskedPan                      string            `json:"maskedPan"`
	TransactionDetails             string            `json:"transactionDetails"`
	Invoiced                       bool              `json:"invoiced"`
	ProprietaryBankTransactionCode string            `json:"proprietaryBankTransactionCode"`
}

// Pending reports whether the card transaction is not yet booked.
func (c CardTransaction) Pending() bool { return c.BookingDate.IsZero() }

// TPPContact is the e-mail address a TPP registered for operational notices.
type TPPContact struct {
	TPPID string `json:"tppId"`
	Email string `json:"email"`
}
