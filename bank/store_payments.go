package bank

import (
	"time"

	"github.com/shopspring/decimal"

	"sandbank/bank/apierr"
)

// The records the store keeps for payments: the payment with its items and
// status history (its request body is the PaymentRequest the TPP sent, kept
// apart), signing baskets and batch run reports. They are stored as their
// JSON; storage/testdata/schema holds their stored form, so a renamed tag
// fails a test.

// Payment statuses (docs/PAYMENTS.md 5).
const (
	StatusRCVD = "RCVD" // created, not authorised
	StatusPATC = "PATC" // approved by one PSU, waits for a second approver
	StatusACCP = "ACCP" // authorised, execution date in the future
	StatusACTC = "ACTC" // authorised and due (periodic payments stay here)
	StatusACWC = "ACWC" // authorised; the bank moved its requested execution date
	StatusACSP = "ACSP" // cross-border transfer picked up by a batch run
	StatusACWP = "ACWP" // accepted without posting: only forced, final
	StatusPDNG = "PDNG" // no cover at a batch run; retried
	StatusACSC = "ACSC" // settled
	StatusRJCT = "RJCT" // rejected
	StatusCANC = "CANC" // cancelled by the TPP
	StatusPART = "PART" // bulk payment partly settled
)

// PaymentStatuses lists every payment status in the order of docs/PAYMENTS.md 5.
var PaymentStatuses = []string{StatusRCVD, StatusPATC, StatusACCP, StatusACTC, StatusACWC, StatusACSP, StatusPDNG, StatusACSC, StatusACWP, StatusRJCT, StatusCANC, StatusPART}

// Final reports whether a status never changes again: a batch run passes
// the payment over, and DELETE answers 409.
func Final(status string) bool {
	return status == StatusACSC || status == StatusACWP || status == StatusRJCT || status == StatusCANC || status == StatusPART
}

// PaymentItem is one credit transfer of a payment: the payment itself, or
// one item of a bulk payment.
type PaymentItem struct {
	Amount          decimal.Decimal `json:"amount"`
	Currency        string          `json:"currency"`
	CreditorName    string          `json:"creditorName"`
	CreditorAccount AccountRef      `json:"creditorAccount"`
	Remittance      string          `json:"remittance,omitempty"`
	KID             string          `json:"kid,omitempty"`
	EndToEndID      string          `json:"endToEndId,omitempty"`
	// Structured is the item's remittanceInformationStructuredArray and
	// Lines its remittanceInformationUnstructuredArray, as the request gave
	// them; the ultimate parties, the creditor's agent (a BIC) and the
	// purpose code likewise. The settled transaction carries them
	// (docs/PAYMENTS.md).
	Structured       []StructuredRemittance `json:"structured,omitempty"`
	Lines            []string               `json:"lines,omitempty"`
	UltimateDebtor   string                 `json:"ultimateDebtor,omitempty"`
	UltimateCreditor string                 `json:"ultimateCreditor,omitempty"`
	CreditorAgent    string                 `json:"creditorAgent,omitempty"`
	PurposeCode      string                 `json:"purposeCode,omitempty"`
	// CreditorAccountID is the sandbox account the creditor account names,
	// if any: settlement credits it.
	CreditorAccountID string `json:"creditorAccountId,omitempty"`
	// Status is set on a bulk item once it settled (ACSC) or was rejected
	// (RJCT).
	Status string `json:"status,omitempty"`
	// PendingTxID is the transaction that shows the authorised item as
	// pending on the debtor account; settlement books it under the same id.
	// PendingFeeTxID is the pending fee of a cross-border transfer, booked
	// likewise. Reserved is what the pending items hold of the debtor
	// account's expected balance, in its currency (see payment_status.go).
	PendingTxID    string          `json:"pendingTxId,omitempty"`
	PendingFeeTxID string          `json:"pendingFeeTxId,omitempty"`
	Reserved       decimal.Decimal `json:"reserved"`
	CreditorTxID   string          `json:"creditorTxId,omitempty"`
}

// StatusChange is one step of a payment's history: who or which batch run
// moved it, when, and why.
type StatusChange struct {
	Time   time.Time `json:"time"`
	From   string    `json:"from,omitempty"`
	To     string    `json:"to"`
	By     string    `json:"by"`
	Reason string    `json:"reason,omitempty"`
	Forced bool      `json:"forced,omitempty"`
}

// Approval is a PSU's approval of a payment at SCA.
type Approval struct {
	CustomerID string    `json:"customerId"`
	Time       time.Time `json:"time"`
	// Full is true when the approval was enough on its own (or completed
	// a PATC payment).
	Full bool `json:"full"`
}

// Payment is a payment initiation of a TPP.
type Payment struct {
	ID             string    `json:"id"`
	TPPID          string    `json:"tppId"`
	Service        string    `json:"service"`
	Product        string    `json:"product"`
	Status         string    `json:"status"`
	FundsAvailable *bool     `json:"fundsAvailable,omitempty"`
	Created        time.Time `json:"created"`
	// Request is the body as the TPP sent it, for reading back. Storage
	// keeps it apart from the rest, which changes as the payment moves.
	Request PaymentRequest `json:"-"`
	// CustomerID is the PSU: named at creation (PSU-ID, X-PSU-IDENTITY) or
	// the first PSU who approved. Context is ContextPrivate or an
	// agreement id, once known.
	CustomerID      string     `json:"customerId,omitempty"`
	Context         string     `json:"context,omitempty"`
	DebtorAccountID string     `json:"debtorAccountId"`
	DebtorAccount   AccountRef `json:"debtorAccount"`
	ExecutionDate   Date       `json:"executionDate"`
	// RequestedDate is the requestedExecutionDate the TPP gave when it is
	// no banking day and the bank moved the payment to ExecutionDate, the
	// next one; zero when the bank kept the date. Such a payment is ACWC,
	// accepted with change, from its authorisation until it settles.
	RequestedDate Date          `json:"requestedDate,omitzero"`
	Items         []PaymentItem `json:"items"`
	// Fee is the fee of a cross-border transfer, in NOK; zero for none.
	Fee            decimal.Decimal  `json:"fee"`
	Warnings       []apierr.Message `json:"warnings,omitempty"`
	Approvals      []Approval       `json:"approvals,omitempty"`
	Authorisations []string         `json:"authorisations,omitempty"`
	BasketID       string           `json:"basketId,omitempty"`
	// RetryUntil is the last banking day a payment without cover (PDNG) is
	// retried.
	RetryUntil Date           `json:"retryUntil"`
	History    []StatusChange `json:"history"`
}

// Total is the sum of the payment's items, in the currency of the first.
func (p Payment) Total() decimal.Decimal {
	var t decimal.Decimal
	for _, it := range p.Items {
		t = t.Add(it.Amount)
	}
	return t
}

// Currency is the currency of the payment's items.
func (p Payment) Currency() string {
	if len(p.Items) == 0 {
		return ""
	}
	return p.Items[0].Currency
}

// Periodic reports whether the payment is a standing order.
func (p Payment) Periodic() bool { return p.Service == ServicePeriodic }

// Basket is a signing basket: payments of one TPP that one SCA approves,
// each on its own (docs/PAYMENTS.md 7).
type Basket struct {
	ID             string    `json:"id"`
	TPPID          string    `json:"tppId"`
	PaymentIDs     []string  `json:"paymentIds"`
	Created        time.Time `json:"created"`
	Authorisations []string  `json:"authorisations,omitempty"`
}

// BatchOutcome is what a batch run did to one payment.
type BatchOutcome struct {
	PaymentID string `json:"paymentId"`
	From      string `json:"from"`
	To        string `json:"to"`
	Reason    string `json:"reason,omitempty"`
}

// BatchRun is the report of one batch run.
type BatchRun struct {
	ID string `json:"id"`
	// Time is the run's moment on the sandbox clock; its date is the
	// booking date of what it settles.
	Time    time.Time `json:"time"`
	Trigger string    `json:"trigger"`
	// Duration is how long the run took, on the real clock.
	Duration time.Duration `json:"duration"`
	// Counts are the payments that ended the run in each status.
	Counts   map[string]int `json:"counts"`
	Outcomes []BatchOutcome `json:"outcomes,omitempty"`
	// Errors are payments the run could not process, with why; the next
	// run tries them again.
	Errors []string `json:"errors,omitempty"`
}

// batchState is what the data file remembers of the schedule: the last
// recorded scheduled run.
type batchState struct {
	LastRun time.Time `json:"lastRun"`
}
