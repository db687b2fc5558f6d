package scenario

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"sandbank/assets"
	"sandbank/bank"
	"sandbank/bank/apierr"
)

// Scenario formats. Version 1 holds the sandbox data; version 2 adds the
// rest of what the bank holds (payments, baskets, consents, grants,
// authorisations, SCA sessions, PSU ids, usage counters, batch run
// reports, TPP contacts, the settings and the clock), so that a scenario
// hands a whole sandbox over.
const (
	FormatV1 = "sandbank-scenario/1"
	// ScenarioFormat is the format export writes.
	Format = "sandbank-scenario/2"
)

// Formats lists the formats this build reads, oldest first.
var Formats = []string{FormatV1, Format}

// Scenario is the whole sandbox as one document: what GET
// /v1/sandbox/scenario exports, PUT imports and the desktop app's scenario
// files hold. The sandbox data are the creation bodies of the sandbox API
// plus their ids; without an id a record gets a new one. A private
// customer's agreement is not listed: it comes with the customer. The parts
// of version 2 are the bank's records as it stores them, with their ids and
// times (see records.go).
type Scenario struct {
	Format       string        `json:"format"`
	Note         string        `json:"note,omitempty"`
	Customers    []Customer    `json:"customers"`
	Accounts     []Account     `json:"accounts"`
	CardAccounts []CardAccount `json:"cardAccounts"`
	Agreements   []Agreement   `json:"agreements"`

	// Version 2.
	Clock          *bank.ScenarioClock `json:"clock,omitempty"`
	Settings       *bank.Settings      `json:"settings,omitempty"`
	Payments       []Payment           `json:"payments,omitempty"`
	Baskets        []bank.Basket       `json:"baskets,omitempty"`
	Consents       []bank.Consent      `json:"consents,omitempty"`
	Authorisations []Authorisation     `json:"authorisations,omitempty"`
	Grants         []bank.Grant        `json:"grants,omitempty"`
	Sessions       []bank.Session      `json:"sessions,omitempty"`
	PSUs           []bank.PSU          `json:"psus,omitempty"`
	Usage          []Use               `json:"usage,omitempty"`
	BatchRuns      []bank.BatchRun     `json:"batchRuns,omitempty"`
	TPPContacts    []bank.TPPContact   `json:"tppContacts,omitempty"`
}

// CheckFormat checks a scenario's format: one this build reads.
func CheckFormat(format string) error {
	if slices.Contains(Formats, format) {
		return nil
	}
	readable := `"` + strings.Join(Formats, `" and "`) + `"`
	if strings.HasPrefix(format, "sandbank-scenario/") {
		return apierr.PathError(apierr.CodeFormatError, "format", fmt.Sprintf("%q is not a version this Sandbank reads: it reads %s. Load the file with the Sandbank that wrote it, or a newer one", apierr.Clip(format), readable))
	}
	return apierr.PathError(apierr.CodeFormatError, "format", fmt.Sprintf("must be %s; is this a Sandbank scenario file?", strings.Replace(readable, " and ", " or ", 1)))
}

// Customer is a customer of a scenario.
type Customer struct {
	ID string `json:"id,omitempty"`
	bank.NewCustomer
}

// Account is an account of a scenario with its transactions and,
// optionally, generated history.
type Account struct {
	ID string `json:"id,omitempty"`
	bank.NewAccount
	History      *bank.History `json:"history,omitempty"`
	Transactions []Transaction `json:"transactions,omitempty"`
}

// Transaction is a transaction of a scenario account.
type Transaction struct {
	ID string `json:"id,omitempty"`
	bank.NewTransaction
}

// CardAccount is a card account of a scenario.
type CardAccount struct {
	ID string `json:"id,omitempty"`
	bank.NewCardAccount
	History      *bank.History             `json:"history,omitempty"`
	Transactions []bank.NewCardTransaction `json:"transactions,omitempty"`
}

// Agreement is a corporate agreement of a scenario.
type Agreement struct {
	ID          string       `json:"id,omitempty"`
	Owner       string       `json:"owner"`
	Name        string       `json:"name"`
	Engagements []Engagement `json:"engagements,omitempty"`
}

// Engagement is an engagement of a scenario agreement.
type Engagement struct {
	ID string `json:"id,omitempty"`
	bank.NewEngagement
}

// Counts tells how many records a reset or an import left.
type Counts struct {
	Customers        int `json:"customers"`
	Accounts         int `json:"accounts"`
	CardAccounts     int `json:"cardAccounts"`
	Agreements       int `json:"agreements"`
	Engagements      int `json:"engagements"`
	Transactions     int `json:"transactions"`
	CardTransactions int `json:"cardTransactions"`
	Payments         int `json:"payments"`
	Baskets          int `json:"baskets"`
	Consents         int `json:"consents"`
	Grants           int `json:"grants"`
	Authorisations   int `json:"authorisations"`
	// Warnings are the oddities the import was accepted with (docs/TPP-GUIDE.md 9),
	// with the paths of their records.
	Warnings []apierr.Message `json:"-"`
}

// Initialize resets the sandbox to the known state (README, "The known state"): the same
// customers, accounts, card accounts, agreements and ids every time, with
// history up to yesterday.
func Initialize(s *bank.Sandbox) (Counts, error) {
	sc, err := KnownState()
	if err != nil {
		return Counts{}, err
	}
	return load(s, "initialize", memorySource(sc), true)
}

// KnownState returns the known-state scenario shipped with Sandbank.
func KnownState() (Scenario, error) {
	var sc Scenario
	if err := bank.DecodeJSON(assets.KnownState, &sc); err != nil {
		return sc, fmt.Errorf("read the known state: %w", err)
	}
	return sc, nil
}

// records counts a scenario's records, for an import's progress.
func (sc Scenario) records() int {
	n := len(sc.Customers) + len(sc.Accounts) + len(sc.CardAccounts) + len(sc.Agreements) +
		len(sc.Payments) + len(sc.Baskets) + len(sc.Consents) + len(sc.Authorisations) + len(sc.Grants) +
		len(sc.Sessions) + len(sc.PSUs) + len(sc.Usage) + len(sc.BatchRuns) + len(sc.TPPContacts)
	for _, a := range sc.Accounts {
		n += len(a.Transactions)
		if a.History != nil {
			n += a.History.Count
		}
	}
	for _, c := range sc.CardAccounts {
		n += len(c.Transactions)
		if c.History != nil {
			n += c.History.Count
		}
	}
	return n
}

// exportPage is how many transactions an export reads at a time, and
// releaseEvery after how many pages it lets go of the memory its reads
// of the data file took (bank.Tx ReleasePages), so that an export of a
// million transactions does not hold the file in memory.
const (
	exportPage   = 1000
	releaseEvery = 20
)

// eachTransaction calls fn with each transaction of an account in the
// order of an export: the booked ones newest first, a page at a time, then
// the pending ones.
func eachTransaction(tx bank.Tx, accountID string, fn func(bank.Transaction) error) error {
	for offset := 0; ; offset += exportPage {
		page, err := tx.Transactions(accountID, bank.TxQuery{Offset: offset, Limit: exportPage})
		if err != nil {
			return err
		}
		for _, t := range page.Transactions {
			if err := fn(t); err != nil {
				return err
			}
		}
		if (offset/exportPage)%releaseEvery == releaseEvery-1 {
			tx.ReleasePages() // the data file's pages read so far
		}
		if len(page.Transactions) < exportPage || offset+exportPage >= page.Total {
			break
		}
	}
	pending, err := tx.PendingTransactions(accountID)
	if err != nil {
		return err
	}
	for _, t := range pending {
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

// exportHead returns the scenario an export of tx writes, at the clock
// and settings of Sandbox.Export, but for the accounts' transactions,
// which eachTransaction reads.
func exportHead(tx bank.Tx, note string, clock bank.ScenarioClock, settings bank.Settings) (Scenario, error) {
	sc := Scenario{Format: Format, Note: note, Customers: []Customer{}, Accounts: []Account{}, CardAccounts: []CardAccount{}, Agreements: []Agreement{}}
	if err := exportRecords(tx, &sc, clock, settings); err != nil {
		return sc, err
	}
	customers, err := tx.Customers()
	if err != nil {
		return sc, err
	}
	number := map[string]string{}
	for _, c := range customers {
		number[c.ID] = c.Number
		sc.Customers = append(sc.Customers, Customer{ID: c.ID, NewCustomer: bank.NewCustomer{CustomerNumber: c.Number, Name: c.Name, Type: c.Type}})
	}
	accounts, err := tx.Accounts()
	if err != nil {
		return sc, err
	}
	iban := map[string]string{}
	for _, a := range accounts {
		iban[a.ID] = a.IBAN
		sc.Accounts = append(sc.Accounts, Account{ID: a.ID, NewAccount: exportAccount(a, number[a.OwnerID])})
	}
	if sc.CardAccounts, err = exportCards(tx, number); err != nil {
		return sc, err
	}
	sc.Agreements, err = exportAgreements(tx, number, iban)
	return sc, err
}

// exportCards returns the card accounts of an export with their
// transactions.
func exportCards(tx bank.Tx, number map[string]string) ([]CardAccount, error) {
	out := []CardAccount{}
	cards, err := tx.CardAccounts()
	if err != nil {
		return out, err
	}
	for _, c := range cards {
		page, err := tx.CardTransactions(c.ID, bank.TxQuery{})
		if err != nil {
			return out, err
		}
		sca := CardAccount{ID: c.ID, NewCardAccount: exportCard(c, number[c.OwnerID])}
		// Oldest first, so that an import stores them in the same order.
		for _, list := range [][]bank.CardTransaction{page.Booked, page.Pending} {
			for i := len(list) - 1; i >= 0; i-- {
				sca.Transactions = append(sca.Transactions, exportCardTransaction(list[i]))
			}
		}
		out = append(out, sca)
	}
	return out, nil
}

// exportAgreements returns the agreements of an export with their
// engagements.
func exportAgreements(tx bank.Tx, number, iban map[string]string) ([]Agreement, error) {
	out := []Agreement{}
	agreements, err := tx.Agreements()
	if err != nil {
		return out, err
	}
	for _, a := range agreements {
		sa := Agreement{ID: a.ID, Owner: number[a.OwnerID], Name: a.Name}
		list, err := tx.EngagementsByAgreement(a.ID)
		if err != nil {
			return out, err
		}
		for _, e := range list {
			sa.Engagements = append(sa.Engagements, Engagement{ID: e.ID, NewEngagement: bank.NewEngagement{
				Customer: number[e.CustomerID], Account: bank.IBANRef{IBAN: iban[e.AccountID]}, Roles: e.Roles,
				RegisterLimit: bank.NumberOf(e.RegisterLimit), ApprovalLimit: bank.NumberOf(e.ApprovalLimit),
			}})
		}
		out = append(out, sa)
	}
	return out, nil
}

func exportAccount(a bank.Account, owner string) bank.NewAccount {
	return bank.NewAccount{
		CustomerNumber: owner, AccountName: a.Name, BBAN: a.BBAN, IBAN: a.IBAN, Currency: a.Currency,
		Product: a.Product, CashAccountType: a.CashAccountType, CreditLine: bank.NumberOf(a.CreditLine),
		Balances:    exportBalances(a.Balances, a.Currency),
		KIDRequired: a.KIDRequired, Status: a.Status,
	}
}

func exportBalances(b bank.Balances, currency string) []bank.BalanceInput {
	return []bank.BalanceInput{
		{BalanceType: bank.BalanceClosingBooked, BalanceAmount: bank.AmountInput{Amount: bank.NumberOf(b.ClosingBooked), Currency: currency}},
		{BalanceType: bank.BalanceExpected, BalanceAmount: bank.AmountInput{Amount: bank.NumberOf(b.Expected), Currency: currency}},
	}
}

func exportCardBalances(b bank.CardBalances, currency string) []bank.CardBalanceInput {
	plain := exportBalances(b.Balances, currency)
	out := make([]bank.CardBalanceInput, len(plain))
	for i, in := range plain {
		d := b.Detail(in.BalanceType)
		out[i] = bank.CardBalanceInput{BalanceInput: in, LastCommittedTransaction: d.LastCommittedTransaction}
		if !d.ReferenceDate.IsZero() {
			out[i].ReferenceDate = d.ReferenceDate.String()
		}
		if !d.LastChangeDateTime.IsZero() {
			out[i].LastChangeDateTime = d.LastChangeDateTime.Format(time.RFC3339Nano)
		}
	}
	return out
}

func exportTransaction(t bank.Transaction) bank.NewTransaction {
	s := func(v string) *string { return &v }
	creditor, debtor := t.CreditorAccount, t.DebtorAccount
	return bank.NewTransaction{
		Amount: bank.NumberOf(t.Amount), Currency: t.Currency,
		ValueDate: t.ValueDate.String(), BookingDate: t.BookingDate.String(),
		RemittanceInformationUnstructured: s(t.RemittanceInformationUnstructured),
		CreditorID:                        s(t.CreditorID), CreditorName: s(t.CreditorName), CreditorAccount: &creditor,
		UltimateCreditor: s(t.UltimateCreditor), DebtorName: s(t.DebtorName), DebtorAccount: &debtor,
		UltimateDebtor: s(t.UltimateDebtor), PurposeCode: s(t.PurposeCode), BankTransactionCode: t.BankTransactionCode,
		EndToEndID: t.EndToEndID, CreditorAgent: t.CreditorAgent, DebtorAgent: t.DebtorAgent,
		ProprietaryBankTransactionCode:         t.ProprietaryBankTransactionCode,
		RemittanceInformationUnstructuredArray: t.RemittanceInformationUnstructuredArray,
		RemittanceInformationStructuredArray:   t.RemittanceInformationStructuredArray,
		CurrencyExchange:                       exportExchangeRates(t.CurrencyExchange),
		BookingStatus:                          map[bool]string{true: "pending"}[t.Pending],
	}
}

func exportExchangeRates(list []bank.ExchangeRate) []bank.NewExchangeRate {
	if len(list) == 0 {
		return nil
	}
	out := make([]bank.NewExchangeRate, len(list))
	for i, x := range list {
		out[i] = bank.NewExchangeRate{
			SourceCurrency: x.SourceCurrency, ExchangeRate: x.ExchangeRate, UnitCurrency: x.UnitCurrency, TargetCurrency: x.TargetCurrency,
			QuotationDate: x.QuotationDate.String(), ContractIdentification: x.ContractIdentification,
		}
	}
	return out
}

func exportCard(c bank.CardAccount, owner string) bank.NewCardAccount {
	return bank.NewCardAccount{
		CustomerNumber: owner, MaskedPan: c.MaskedPan, Currency: c.Currency,
		CreditLimit: &bank.AmountInput{Amount: bank.NumberOf(c.CreditLimit), Currency: c.Currency},
		Balances:    exportCardBalances(c.Balances, c.Currency),
		CardID:      c.CardID, CardIDVNo: c.CardIDVNo, AccountNumber: c.AccountNumber,
		Expiry: c.Expiry, Name: c.Name, Product: c.Product, Status: c.Status,
	}
}

func exportCardTransaction(t bank.CardTransaction) bank.NewCardTransaction {
	s := func(v string) *string { return &v }
	addr := t.CardAcceptorAddress
	out := bank.NewCardTransaction{
		CardTransactionID: t.CardTransactionID, TerminalID: s(t.TerminalID),
		BookingDate: t.BookingDate.String(), TransactionDate: t.TransactionDate.String(),
		TransactionAmount:    &bank.AmountInput{Amount: bank.NumberOf(t.TransactionAmount.Amount), Currency: t.TransactionAmount.Currency},
		OriginalAmount:       &bank.AmountInput{Amount: bank.NumberOf(t.OriginalAmount.Amount), Currency: t.OriginalAmount.Currency},
		MerchantCategoryCode: t.MerchantCategoryCode, CardAcceptorID: s(t.CardAcceptorID), CardAcceptorAddress: &addr,
		MaskedPan: t.MaskedPan, TransactionDetails: s(t.TransactionDetails), Invoiced: fmt.Sprint(t.Invoiced),
		ProprietaryBankTransactionCode: s(t.ProprietaryBankTransactionCode),
	}
	if x := t.CurrencyExchange; x != nil {
		out.CurrencyExchange = &bank.NewCurrencyExchange{
			SourceCurrency: x.SourceCurrency, TargetCurrency: x.TargetCurrency, UnitCurrency: x.UnitCurrency,
			ExchangeRate: x.ExchangeRate, QuotationDate: x.QuotationDate.String(), MarkupFeePercentage: x.MarkupFeePercentage,
		}
		if x.MarkupFee != nil {
			out.CurrencyExchange.MarkupFee = &bank.AmountInput{Amount: bank.NumberOf(x.MarkupFee.Amount), Currency: x.MarkupFee.Currency}
		}
	}
	return out
}
