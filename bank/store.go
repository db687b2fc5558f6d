package bank

import "time"

// Store is the bank's storage. Every service call runs in one transaction:
// View for reads, Batch (or Update) for writes. When fn returns an error,
// Batch and Update change nothing.
type Store interface {
	View(fn func(Tx) error) error
	// Update runs fn alone in a write transaction, once.
	Update(fn func(Tx) error) error
	// Batch runs fn in a write transaction that concurrent Batch calls may
	// share, with one commit for all. fn may run more than once, in
	// transactions that are rolled back but for the last: it must change
	// nothing outside the transaction that the next run does not set
	// again. When fn fails, its error is the answer and it is not run
	// again; the others run again without it.
	Batch(fn func(Tx) error) error
	// Rebuild makes the data anew beside the live data, which keep serving
	// reads meanwhile: fn writes new data that start as Reset leaves the
	// live ones (settings, certificates, TPP contacts and sequence
	// counters, no sandbox records), in as many transactions as it likes
	// (Staging), so that a large import does not hold every record in one.
	// When fn returns nil, the new data replace the live ones whole, at
	// once; when fn fails, they are dropped and the live data are as they
	// were. The caller keeps other writes out while it runs: a write to the
	// live data in between fails the rebuild.
	Rebuild(fn func(next Staging) error) error
}

// Staging is the new data a Store.Rebuild writes: Tx is the open write
// transaction, and Commit commits it and opens the next. Nothing of it is
// read by others before Rebuild swaps it in.
type Staging interface {
	Tx() Tx
	Commit() error
}

// Tx is one storage transaction. Lookups of a missing record return
// ErrNotFound; ids that are not of the expected kind are missing records.
// Put methods insert or replace and keep every index in step with the
// record, in the same transaction. Lists are in creation order.
type Tx interface {
	// ReleasePages lets go of the memory that the reads of the
	// transaction so far took in this process (the pages of the data
	// file), for a long read such as an export of a million
	// transactions: what is read again is read from the file. It changes
	// no data.
	ReleasePages()

	// NextSeq hands out the next sequence number of a kind; numbers are
	// never handed out twice in one data file, even across Reset.
	NextSeq(kind Kind) (uint64, error)
	// ReserveSeq makes sure NextSeq never hands out seq or any number below.
	ReserveSeq(kind Kind, seq uint64) error

	Customer(id string) (Customer, error)
	CustomerByNumber(number string) (Customer, error)
	Customers() ([]Customer, error)
	PutCustomer(c Customer) error
	DeleteCustomer(id string) error

	Agreement(id string) (Agreement, error)
	Agreements() ([]Agreement, error)
	AgreementsByOwner(customerID string) ([]Agreement, error)
	PutAgreement(a Agreement) error
	DeleteAgreement(id string) error

	Engagement(id string) (Engagement, error)
	EngagementsByAgreement(agreementID string) ([]Engagement, error)
	EngagementsByCustomer(customerID string) ([]Engagement, error)
	EngagementsByAccount(accountID string) ([]Engagement, error)
	PutEngagement(e Engagement) error
	DeleteEngagement(id string) error

	Account(id string) (Account, error)
	AccountByIBAN(iban string) (Account, error)
	AccountByBBAN(bban string) (Account, error)
	Accounts() ([]Account, error)
	AccountsByOwner(customerID string) ([]Account, error)
	PutAccount(a Account) error
	// DeleteAccount deletes the account and its transactions.
	DeleteAccount(id string) error

	// PutTransactions stores transactions, booked or pending, whose ids
	// were made with FormatID(KindTransaction, accountSeq, seq). Storing an
	// id again replaces the transaction (a pending one that is booked).
	PutTransactions(accountID string, txs []Transaction) error
	Transaction(accountID, id string) (Transaction, error)
	// KnownTransactions reports for each of ids whether the account holds
	// a transaction with it.
	KnownTransactions(accountID string, ids []string) ([]bool, error)
	// PendingTransactions returns every pending transaction, newest first.
	PendingTransactions(accountID string) ([]Transaction, error)
	// Transactions returns one page of an account's booked transactions,
	// newest booking date first, and how many match the query in all.
	Transactions(accountID string, q TxQuery) (TxPage, error)
	DeleteTransactions(accountID string) error

	CardAccount(id string) (CardAccount, error)
	CardAccounts() ([]CardAccount, error)
	CardAccountsByOwner(customerID string) ([]CardAccount, error)
	PutCardAccount(c CardAccount) error
	// DeleteCardAccount deletes the card account and its transactions.
	DeleteCardAccount(id string) error

	PutCardTransactions(cardAccountID string, txs []CardTransaction) error
	HasCardTransaction(cardAccountID, cardTransactionID string) (bool, error)
	// CardTransactions returns one page of booked card transactions, newest
	// first, and every pending one.
	CardTransactions(cardAccountID string, q TxQuery) (CardTxPage, error)
	DeleteCardTransactions(cardAccountID string) error

	TPPContact(tppID string) (TPPContact, error)
	// TPPContacts lists every TPP's contact, by TPP id.
	TPPContacts() ([]TPPContact, error)
	PutTPPContact(c TPPContact) error

	Authorisation(id string) (Authorisation, error)
	Authorisations() ([]Authorisation, error)
	PutAuthorisation(a Authorisation) error
	// DeleteAuthorisationsBefore deletes the authorisations, oldest first,
	// up to the first one created at or after t, and says how many.
	DeleteAuthorisationsBefore(t time.Time) (int, error)

	Consent(id string) (Consent, error)
	Consents() ([]Consent, error)
	PutConsent(c Consent) error
	// DeleteConsentsBefore deletes the consents, oldest first, up to the
	// first one created at or after t, and says how many.
	DeleteConsentsBefore(t time.Time) (int, error)

	// Grant returns the grant of a TPP for a customer in a context.
	Grant(tppID, customerID, context string) (Grant, error)
	Grants() ([]Grant, error)
	// PutGrant stores a grant, replacing the one of the same TPP, customer
	// and context.
	PutGrant(g Grant) error
	DeleteGrant(g Grant) error

	// Session returns a TPP's SCA session for a customer.
	Session(tppID, customerID string) (Session, error)
	Sessions() ([]Session, error)
	// PutSession stores a session, replacing the TPP's previous one for
	// the customer.
	PutSession(s Session) error
	DeleteSession(tppID, customerID string) error

	// PSU returns what a PSU-ID or PSU-Corporate-ID stands for.
	PSU(id string) (PSU, error)
	// PSUs lists every PSU id given out, by id.
	PSUs() ([]PSU, error)
	PutPSU(p PSU) error

	// Payment returns a payment without its request body (PaymentRequest).
	Payment(id string) (Payment, error)
	PaymentRequest(id string) (PaymentRequest, error)
	// PutPayment stores a payment and keeps the by-status index; the
	// request body is stored the first time only.
	PutPayment(p Payment) error
	// PaymentIDs lists the ids of the payments in a status, in creation
	// order.
	PaymentIDs(status string) ([]string, error)
	// Payments returns a page of the payments a query selects, newest
	// first, and how many it selects in all.
	Payments(q PaymentQuery) ([]Payment, int, error)
	// Duplicates lists the payments stored under a logical-duplicate key
	// since a time; PutDuplicate records one.
	Duplicates(key string, since time.Time) ([]string, error)
	PutDuplicate(key, paymentID string, created time.Time) error

	Basket(id string) (Basket, error)
	Baskets() ([]Basket, error)
	PutBasket(b Basket) error
	DeleteBasket(id string) error

	// PutBatchRun stores a batch run report; only the newest
	// MaxBatchRunsKept are kept. BatchRuns returns a page of them, newest
	// first, and how many are kept in all.
	PutBatchRun(r BatchRun) error
	BatchRuns(offset, limit int) ([]BatchRun, int, error)
	BatchRun(id string) (BatchRun, error)

	// DeleteTransaction deletes one transaction of an account (a pending
	// payment that will not settle).
	DeleteTransaction(accountID, id string) error

	// CountUse adds one to a usage counter of a day and returns the new
	// count. Counters of earlier days are dropped.
	CountUse(day Date, key string) (int, error)
	// Uses lists every usage counter, by day and key; PutUse sets one.
	Uses() ([]UseCount, error)
	PutUse(u UseCount) error

	// Setting reads the JSON value stored under name into v.
	Setting(name string, v any) error
	PutSetting(name string, v any) error

	// Reset deletes every sandbox record: customers, agreements,
	// engagements, accounts, card accounts and their transactions, and the
	// authorisations, consents, grants, sessions, PSU ids and usage counters
	// made for them, payments, baskets and batch run reports. Settings, certificates,
	// TPP contacts and sequence counters stay.
	Reset() error
}

// UseCount is one usage counter (CountUse): a day, a key and the count.
type UseCount struct {
	Day   Date
	Key   string
	Count int
}

// TxQuery selects a page of booked transactions. Zero dates leave that end
// of the range open; Limit 0 means no limit.
type TxQuery struct {
	From, To      Date
	Offset, Limit int
}

// PaymentQuery selects a page of payments: those in Status ("" for all)
// that Match (nil for all) keeps, from Offset, at most Limit.
type PaymentQuery struct {
	Status        string
	Match         func(Payment) bool
	Offset, Limit int
}

// TxPage is one page of booked transactions and the number that match in all.
type TxPage struct {
	Transactions []Transaction
	Total        int
}

// CardTxPage is one page of booked card transactions, every pending one,
// and the number of booked ones that match in all.
type CardTxPage struct {
	Booked  []CardTransaction
	Pending []CardTransaction
	Total   int
}
