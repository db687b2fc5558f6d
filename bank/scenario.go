package bank

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"sandbank/assets"
)

// Scenario formats. Version 1 holds the sandbox data; version 2 adds the
// rest of what the bank holds (payments, baskets, consents, grants,
// authorisations, SCA sessions, PSU ids, usage counters, batch run
// reports, TPP contacts, the settings and the clock), so that a scenario
// hands a whole sandbox over.
const (
	ScenarioFormatV1 = "sandbank-scenario/1"
	// ScenarioFormat is the format export writes.
	ScenarioFormat = "sandbank-scenario/2"
)

// ScenarioFormats lists the formats this build reads, oldest first.
var ScenarioFormats = []string{ScenarioFormatV1, ScenarioFormat}

// Scenario is the whole sandbox as one document: what GET
// /v1/sandbox/scenario exports, PUT imports and the desktop app's scenario
// files hold. The sandbox data are the creation bodies of the sandbox API
// plus their ids; without an id a record gets a new one. A private
// customer's agreement is not listed: it comes with the customer. The parts
// of version 2 are the bank's records as it stores them, with their ids and
// times (see scenario_records.go).
type Scenario struct {
	Format       string                `json:"format"`
	Note         string                `json:"note,omitempty"`
	Customers    []ScenarioCustomer    `json:"customers"`
	Accounts     []ScenarioAccount     `json:"accounts"`
	CardAccounts []ScenarioCardAccount `json:"cardAccounts"`
	Agreements   []ScenarioAgreement   `json:"agreements"`

	// Version 2.
	Clock          *ScenarioClock          `json:"clock,omitempty"`
	Settings       *Settings               `json:"settings,omitempty"`
	Payments       []ScenarioPayment       `json:"payments,omitempty"`
	Baskets        []Basket                `json:"baskets,omitempty"`
	Consents       []Consent               `json:"consents,omitempty"`
	Authorisations []ScenarioAuthorisation `json:"authorisations,omitempty"`
	Grants         []Grant                 `json:"grants,omitempty"`
	Sessions       []Session               `json:"sessions,omitempty"`
	PSUs           []PSU                   `json:"psus,omitempty"`
	Usage          []ScenarioUse           `json:"usage,omitempty"`
	BatchRuns      []BatchRun              `json:"batchRuns,omitempty"`
	TPPContacts    []TPPContact            `json:"tppContacts,omitempty"`
}

// CheckScenarioFormat checks a scenario's format: one this build reads.
func CheckScenarioFormat(format string) error {
	if slices.Contains(ScenarioFormats, format) {
		return nil
	}
	readable := `"` + strings.Join(ScenarioFormats, `" and "`) + `"`
	if strings.HasPrefix(format, "sandbank-scenario/") {
		return PathError(CodeFormatError, "format", fmt.Sprintf("%q is not a version this Sandbank reads: it reads %s. Load the file with the Sandbank that wrote it, or a newer one", clip(format), readable))
	}
	return PathError(CodeFormatError, "format", fmt.Sprintf("must be %s; is this a Sandbank scenario file?", strings.Replace(readable, " and ", " or ", 1)))
}

// ScenarioCustomer is a customer of a scenario.
type ScenarioCustomer struct {
	ID string `json:"id,omitempty"`
	NewCustomer
}

// ScenarioAccount is an account of a scenario with its transactions and,
// optionally, generated history.
type ScenarioAccount struct {
	ID string `json:"id,omitempty"`
	NewAccount
	History      *History              `json:"history,omitempty"`
	Transactions []ScenarioTransaction `json:"transactions,omitempty"`
}

// ScenarioTransaction is a transaction of a scenario account.
type ScenarioTransaction struct {
	ID string `json:"id,omitempty"`
	NewTransaction
}

// ScenarioCardAccount is a card account of a scenario.
type ScenarioCardAccount struct {
	ID string `json:"id,omitempty"`
	NewCardAccount
	History      *History             `json:"history,omitempty"`
	Transactions []NewCardTransaction `json:"transactions,omitempty"`
}

// ScenarioAgreement is a corporate agreement of a scenario.
type ScenarioAgreement struct {
	ID          string               `json:"id,omitempty"`
	Owner       string               `json:"owner"`
	Name        string               `json:"name"`
	Engagements []ScenarioEngagement `json:"engagements,omitempty"`
}

// ScenarioEngagement is an engagement of a scenario agreement.
type ScenarioEngagement struct {
	ID string `json:"id,omitempty"`
	NewEngagement
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
	Warnings []Message `json:"-"`
}

// Initialize resets the sandbox to the known state (README, "The known state"): the same
// customers, accounts, card accounts, agreements and ids every time, with
// history up to yesterday.
func (s *Sandbox) Initialize() (Counts, error) {
	sc, err := KnownState()
	if err != nil {
		return Counts{}, err
	}
	return load(s, "initialize", memorySource(sc), true)
}

// KnownState returns the known-state scenario shipped with Sandbank.
func KnownState() (Scenario, error) {
	var sc Scenario
	if err := decodeStrict(assets.KnownState, &sc); err != nil {
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

// exportPage is how many transactions an export reads at a time.
const exportPage = 1000

// eachTransaction calls fn with each transaction of an account in the
// order of an export: the booked ones newest first, a page at a time, then
// the pending ones.
func eachTransaction(tx Tx, accountID string, fn func(Transaction) error) error {
	for offset := 0; ; offset += exportPage {
		page, err := tx.Transactions(accountID, TxQuery{Offset: offset, Limit: exportPage})
		if err != nil {
			return err
		}
		for _, t := range page.Transactions {
			if err := fn(t); err != nil {
				return err
			}
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
func exportHead(tx Tx, note string, clock ScenarioClock, settings Settings) (Scenario, error) {
	sc := Scenario{Format: ScenarioFormat, Note: note, Customers: []ScenarioCustomer{}, Accounts: []ScenarioAccount{}, CardAccounts: []ScenarioCardAccount{}, Agreements: []ScenarioAgreement{}}
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
		sc.Customers = append(sc.Customers, ScenarioCustomer{ID: c.ID, NewCustomer: NewCustomer{CustomerNumber: c.Number, Name: c.Name, Type: c.Type}})
	}
	accounts, err := tx.Accounts()
	if err != nil {
		return sc, err
	}
	iban := map[string]string{}
	for _, a := range accounts {
		iban[a.ID] = a.IBAN
		sc.Accounts = append(sc.Accounts, ScenarioAccount{ID: a.ID, NewAccount: exportAccount(a, number[a.OwnerID])})
	}
	if sc.CardAccounts, err = exportCards(tx, number); err != nil {
		return sc, err
	}
	sc.Agreements, err = exportAgreements(tx, number, iban)
	return sc, err
}

// exportCards returns the card accounts of an export with their
// transactions.
func exportCards(tx Tx, number map[string]string) ([]ScenarioCardAccount, error) {
	out := []ScenarioCardAccount{}
	cards, err := tx.CardAccounts()
	if err != nil {
		return out, err
	}
	for _, c := range cards {
		page, err := tx.CardTransactions(c.ID, TxQuery{})
		if err != nil {
			return out, err
		}
		sca := ScenarioCardAccount{ID: c.ID, NewCardAccount: exportCard(c, number[c.OwnerID])}
		// Oldest first, so that an import stores them in the same order.
		for _, list := range [][]CardTransaction{page.Booked, page.Pending} {
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
func exportAgreements(tx Tx, number, iban map[string]string) ([]ScenarioAgreement, error) {
	out := []ScenarioAgreement{}
	agreements, err := tx.Agreements()
	if err != nil {
		return out, err
	}
	for _, a := range agreements {
		sa := ScenarioAgreement{ID: a.ID, Owner: number[a.OwnerID], Name: a.Name}
		list, err := tx.EngagementsByAgreement(a.ID)
		if err != nil {
			return out, err
		}
		for _, e := range list {
			sa.Engagements = append(sa.Engagements, ScenarioEngagement{ID: e.ID, NewEngagement: NewEngagement{
				Customer: number[e.CustomerID], Account: IBANRef{IBAN: iban[e.AccountID]}, Roles: e.Roles,
				RegisterLimit: NumberOf(e.RegisterLimit), ApprovalLimit: NumberOf(e.ApprovalLimit),
			}})
		}
		out = append(out, sa)
	}
	return out, nil
}

func exportAccount(a Account, owner string) NewAccount {
	return NewAccount{
		CustomerNumber: owner, AccountName: a.Name, BBAN: a.BBAN, IBAN: a.IBAN, Currency: a.Currency,
		Product: a.Product, CashAccountType: a.CashAccountType, CreditLine: NumberOf(a.CreditLine),
		Balances:    exportBalances(a.Balances, a.Currency),
		KIDRequired: a.KIDRequired, Status: a.Status,
	}
}

func exportBalances(b Balances, currency string) []BalanceInput {
	return []BalanceInput{
		{BalanceType: BalanceClosingBooked, BalanceAmount: AmountInput{Amount: NumberOf(b.ClosingBooked), Currency: currency}},
		{BalanceType: BalanceExpected, BalanceAmount: AmountInput{Amount: NumberOf(b.Expected), Currency: currency}},
	}
}

func exportCardBalances(b CardBalances, currency string) []CardBalanceInput {
	plain := exportBalances(b.Balances, currency)
	out := make([]CardBalanceInput, len(plain))
	for i, in := range plain {
		d := b.Detail(in.BalanceType)
		out[i] = CardBalanceInput{BalanceInput: in, LastCommittedTransaction: d.LastCommittedTransaction}
		if !d.ReferenceDate.IsZero() {
			out[i].ReferenceDate = d.ReferenceDate.String()
		}
		if !d.LastChangeDateTime.IsZero() {
			out[i].LastChangeDateTime = d.LastChangeDateTime.Format(time.RFC3339Nano)
		}
	}
	return out
}

func exportTransaction(t Transaction) NewTransaction {
	s := func(v string) *string { return &v }
	creditor, debtor := t.CreditorAccount, t.DebtorAccount
	return NewTransaction{
		Amount: NumberOf(t.Amount), Currency: t.Currency,
		ValueDate: t.ValueDate.String(), BookingDate: t.BookingDate.String(),
		RemittanceInformationUnstructured: s(t.RemittanceInformationUnstructured),
		CreditorID:                        s(t.CreditorID), CreditorName: s(t.CreditorName), CreditorAccount: &creditor,
		UltimateCreditor: s(t.UltimateCreditor), DebtorName: s(t.DebtorName), DebtorAccount: &debtor,
		UltimateDebtor: s(t.UltimateDebtor), PurposeCode: s(t.PurposeCode), BankTransactionCode: t.BankTransactionCode,
		EndToEndID: t.EndToEndID, CreditorAgent: t.CreditorAgent, DebtorAgent: t.DebtorAgent,
		ProprietaryBankTransactionCode: t.ProprietaryBankTransactionCode,
		BookingStatus:                  map[bool]string{true: "pending"}[t.Pending],
	}
}

func exportCard(c CardAccount, owner string) NewCardAccount {
	return NewCardAccount{
		CustomerNumber: owner, MaskedPan: c.MaskedPan, Currency: c.Currency,
		CreditLimit: &AmountInput{Amount: NumberOf(c.CreditLimit), Currency: c.Currency},
		Balances:    exportCardBalances(c.Balances, c.Currency),
		CardID:      c.CardID, CardIDVNo: c.CardIDVNo, AccountNumber: c.AccountNumber,
		Expiry: c.Expiry, Name: c.Name, Product: c.Product, Status: c.Status,
	}
}

func exportCardTransaction(t CardTransaction) NewCardTransaction {
	s := func(v string) *string { return &v }
	addr := t.CardAcceptorAddress
	out := NewCardTransaction{
		CardTransactionID: t.CardTransactionID, TerminalID: s(t.TerminalID),
		BookingDate: t.BookingDate.String(), TransactionDate: t.TransactionDate.String(),
		TransactionAmount:    &AmountInput{Amount: NumberOf(t.TransactionAmount.Amount), Currency: t.TransactionAmount.Currency},
		OriginalAmount:       &AmountInput{Amount: NumberOf(t.OriginalAmount.Amount), Currency: t.OriginalAmount.Currency},
		MerchantCategoryCode: t.MerchantCategoryCode, CardAcceptorID: s(t.CardAcceptorID), CardAcceptorAddress: &addr,
		MaskedPan: t.MaskedPan, TransactionDetails: s(t.TransactionDetails), Invoiced: fmt.Sprint(t.Invoiced),
		ProprietaryBankTransactionCode: s(t.ProprietaryBankTransactionCode),
	}
	if x := t.CurrencyExchange; x != nil {
		out.CurrencyExchange = &NewCurrencyExchange{
			SourceCurrency: x.SourceCurrency, TargetCurrency: x.TargetCurrency, UnitCurrency: x.UnitCurrency,
			ExchangeRate: x.ExchangeRate, QuotationDate: x.QuotationDate.String(), MarkupFeePercentage: x.MarkupFeePercentage,
		}
		if x.MarkupFee != nil {
			out.CurrencyExchange.MarkupFee = &AmountInput{Amount: NumberOf(x.MarkupFee.Amount), Currency: x.MarkupFee.Currency}
		}
	}
	return out
}
