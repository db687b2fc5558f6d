package scenario

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

// The parts of a version-2 scenario: the bank's records besides the
// sandbox data, as it stores them, with their ids and times, so that after
// an import every read answers as it did before the export. Each record is
// checked, with the path of each finding, and references are checked where
// the bank keeps them whole: a reference the bank itself may leave behind
// (a payment of an account deleted since, a consent pruned after its
// grant) is checked for its form only.

// Payment is a payment with its items, approvals, reservations
// and status history, and the request body the TPP sent.
type Payment struct {
	bank.Payment
	Body bank.PaymentRequest `json:"request"`
}

// Authorisation is an authorisation (SCA process). The secret of
// its SCA page and its form tokens are not part of a scenario: import gives
// each authorisation new ones, so that an SCA page of one sandbox never
// opens in another (the window's Consents & sessions screen opens the
// page of an open authorisation).
type Authorisation struct {
	bank.Authorisation
}

// Use is a usage counter: how many times a TPP read balances,
// transactions or transaction details of a PSU's account without the PSU
// present, on a day.
type Use struct {
	Day        bank.Date `json:"day"`
	TPPID      string    `json:"tppId"`
	CustomerID string    `json:"customerId"`
	AccountID  string    `json:"accountId"`
	Kind       string    `json:"kind"`
	Count      int       `json:"count"`
}

// The statuses and kinds the records of a scenario may have.
var (
	scaStatuses     = []string{bank.ScaReceived, bank.ScaIdentified, bank.ScaAuthenticated, bank.ScaFinalised, bank.ScaFailed, bank.ScaExempted}
	authKinds       = []string{bank.AuthConsent, bank.AuthUsers, bank.AuthPayment, bank.AuthBasket}
	consentStatuses = []string{bank.ConsentReceived, bank.ConsentRejected, bank.ConsentValid, bank.ConsentExpired, bank.ConsentTerminated, bank.ConsentRevoked}
	useKinds        = []string{bank.UseBalances, bank.UseTransactions, bank.UseDetails}
	batchTriggers   = []string{bank.TriggerSchedule, bank.TriggerCatchUp, bank.TriggerManual}
)

// v2Parts names the parts a version-1 scenario may not have.
func (sc Scenario) v2Parts() []string {
	var out []string
	for _, p := range []struct {
		name string
		set  bool
	}{
		{"clock", sc.Clock != nil}, {"settings", sc.Settings != nil}, {"payments", len(sc.Payments) > 0},
		{"baskets", len(sc.Baskets) > 0}, {"consents", len(sc.Consents) > 0}, {"authorisations", len(sc.Authorisations) > 0},
		{"grants", len(sc.Grants) > 0}, {"sessions", len(sc.Sessions) > 0}, {"psus", len(sc.PSUs) > 0},
		{"usage", len(sc.Usage) > 0}, {"batchRuns", len(sc.BatchRuns) > 0}, {"tppContacts", len(sc.TPPContacts) > 0},
	} {
		if p.set {
			out = append(out, p.name)
		}
	}
	return out
}

// checkVersion refuses a version-1 scenario with parts of version 2, which
// version 1 does not restore.
func (sc Scenario) checkVersion() error {
	if sc.Format != FormatV1 {
		return nil
	}
	var v apierr.Violations
	for _, p := range sc.v2Parts() {
		v.Format(p, "is a part of %s, not of %s; set format to %q to restore it", Format, FormatV1, Format)
	}
	return v.Err()
}

// exportRecords adds the parts of version 2 to a scenario: the settings
// and the clock it was exported at, and the records of tx, the export's
// read transaction (Sandbox.Export).
func exportRecords(tx bank.Tx, sc *Scenario, clock bank.ScenarioClock, settings bank.Settings) error {
	sc.Settings, sc.Clock = &settings, &clock
	payments, _, err := tx.Payments(bank.PaymentQuery{Limit: math.MaxInt})
	if err != nil {
		return err
	}
	sc.Payments = make([]Payment, 0, len(payments))
	for _, p := range slices.Backward(payments) { // oldest first
		req, err := tx.PaymentRequest(p.ID)
		if err != nil {
			return err
		}
		sc.Payments = append(sc.Payments, Payment{Payment: p, Body: req})
	}
	if sc.Baskets, err = tx.Baskets(); err != nil {
		return err
	}
	if sc.Consents, err = tx.Consents(); err != nil {
		return err
	}
	auths, err := tx.Authorisations()
	if err != nil {
		return err
	}
	sc.Authorisations = make([]Authorisation, len(auths))
	for i, a := range auths {
		a.Secret, a.Token, a.Cookie, a.Bound = "", "", "", false
		sc.Authorisations[i] = Authorisation{a}
	}
	if sc.Grants, err = tx.Grants(); err != nil {
		return err
	}
	if sc.Sessions, err = tx.Sessions(); err != nil {
		return err
	}
	if sc.PSUs, err = tx.PSUs(); err != nil {
		return err
	}
	uses, err := tx.Uses()
	if err != nil {
		return err
	}
	for _, u := range uses {
		parts := strings.Split(u.Key, "\x00")
		if len(parts) != 4 {
			continue // not a counter of useKey's
		}
		sc.Usage = append(sc.Usage, Use{Day: u.Day, TPPID: parts[0], CustomerID: parts[1], AccountID: parts[2], Kind: parts[3], Count: u.Count})
	}
	runs, _, err := tx.BatchRuns(0, bank.MaxBatchRunsKept)
	if err != nil {
		return err
	}
	slices.Reverse(runs) // oldest first
	sc.BatchRuns = runs
	sc.TPPContacts, err = tx.TPPContacts()
	return err
}

// restore creates the records of a version-2 scenario's parts that are
// held in sc, after the sandbox data, each checked, in the order their
// references need (partSteps), a chunk of them per transaction of the new
// data (loader.wrote), and then checks what the parts say of each other.
// The parts of a stream in the order of an export were restored as they
// were read already (streamSource.part). The first record that breaks a
// rule stops the import with its findings.
func (l *loader) restore(sc Scenario, n *Counts) error {
	parts := reflect.ValueOf(&sc).Elem()
	for _, step := range l.partSteps() {
		f, _ := bank.StructField(reflect.TypeFor[Scenario](), step.name)
		list := parts.FieldByIndex(f.Index)
		for i := range list.Len() {
			if err := step.item(i, list.Index(i).Addr().Interface(), n); err != nil {
				return err
			}
		}
	}
	return l.checkBasketRefs()
}

// partStep restores the items of one part of version 2: item restores
// the i'th, given a pointer to it.
type partStep struct {
	name string
	item func(i int, v any, n *Counts) error
}

// partSteps lists the parts of version 2 in the order their references
// need, which is the order export writes them in.
func (l *loader) partSteps() []partStep {
	return []partStep{
		{"payments", func(i int, v any, n *Counts) error { return l.restorePayment(i, *v.(*Payment), n) }},
		{"baskets", func(i int, v any, n *Counts) error { return l.restoreBasket(i, *v.(*bank.Basket), n) }},
		{"consents", func(i int, v any, n *Counts) error { return l.restoreConsent(i, *v.(*bank.Consent), n) }},
		{"authorisations", func(i int, v any, n *Counts) error { return l.restoreAuthorisation(i, *v.(*Authorisation), n) }},
		{"grants", func(i int, v any, n *Counts) error { return l.restoreGrant(i, *v.(*bank.Grant), n) }},
		{"sessions", func(i int, v any, n *Counts) error { return l.restoreSession(i, *v.(*bank.Session), n) }},
		{"psus", func(i int, v any, n *Counts) error { return l.restorePSU(i, *v.(*bank.PSU), n) }},
		{"usage", func(i int, v any, n *Counts) error { return l.restoreUse(i, *v.(*Use), n) }},
		{"batchRuns", func(i int, v any, n *Counts) error { return l.restoreBatchRun(i, *v.(*bank.BatchRun), n) }},
		{"tppContacts", func(i int, v any, n *Counts) error { return l.restoreContact(i, *v.(*bank.TPPContact), n) }},
	}
}

// basketRef is a restored payment that names a basket: payments[i].
type basketRef struct {
	i                   int
	paymentID, basketID string
}

// checkBasketRefs checks, once every part is in, that the basket each
// restored payment names holds it.
func (l *loader) checkBasketRefs() error {
	for _, r := range l.basketRefs {
		b, err := l.tx.Basket(r.basketID)
		if errors.Is(err, bank.ErrNotFound) || (err == nil && !slices.Contains(b.PaymentIDs, r.paymentID)) {
			return apierr.PathError(apierr.CodeFormatError, fmt.Sprintf("payments[%d].basketId", r.i), fmt.Sprintf("basket %s of this scenario does not hold payment %s; list the payment in the basket's paymentIds, or leave basketId out", r.basketID, r.paymentID))
		} else if err != nil {
			return err
		}
	}
	return nil
}

// restoredID checks the id of a restored record: an id of kind without a
// parent, within the numbers a scenario may bring. Its number is reserved,
// so that no new record gets it.
func restoredID(tx bank.Tx, v *apierr.Violations, path string, kind bank.Kind, id string) error {
	seq, ok := bank.SeqOf(kind, id)
	if !ok || seq > bank.MaxImportedSeq {
		v.Format(apierr.JoinPath(path, "id"), "%q is not a Sandbank id of this kind of record; keep the id the export wrote", apierr.Clip(id))
		return nil
	}
	return tx.ReserveSeq(kind, seq)
}

// checkIDRef checks the form of a reference to a record of kind, which
// may be empty unless required.
func checkIDRef(v *apierr.Violations, path string, kind bank.Kind, id string, required bool) bool {
	if id == "" {
		if required {
			v.Format(path, "is required")
		}
		return false
	}
	if _, ok := bank.SeqOf(kind, id); !ok {
		v.Format(path, "%q is not a Sandbank id of the kind this field names", apierr.Clip(id))
		return false
	}
	return true
}

// checkAccountIDRef checks a reference to an account or a card account.
func checkAccountIDRef(v *apierr.Violations, path, id string) {
	_, account := bank.SeqOf(bank.KindAccount, id)
	_, card := bank.SeqOf(bank.KindCardAccount, id)
	if !account && !card {
		v.Format(path, "%q is not the id of an account or a card account", apierr.Clip(id))
	}
}

// checkContext checks a PSU's context: PRIVATE, an agreement's id, or
// empty when allowed.
func checkContext(v *apierr.Violations, path, context string, required bool) {
	if context == bank.ContextPrivate || (context == "" && !required) {
		return
	}
	checkIDRef(v, path, bank.KindAgreement, context, true)
}

// checkTime checks a required time.
func checkTime(v *apierr.Violations, path string, t time.Time) {
	if t.IsZero() {
		v.Format(path, "is required: an RFC 3339 date-time")
	}
}

// checkTPP checks the id of the TPP a record belongs to.
func checkTPP(v *apierr.Violations, path, id string) {
	bank.CheckText(v, path, id, 1, 200)
}

// restorePayment restores payments[i] with its request body, and
// the index of logical duplicates their creation kept.
func (l *loader) restorePayment(i int, sp Payment, n *Counts) error {
	path := fmt.Sprintf("payments[%d]", i)
	p := sp.Payment
	p.Request = sp.Body
	var v apierr.Violations
	if err := restoredID(l.tx, &v, path, bank.KindPayment, p.ID); err != nil {
		return err
	}
	if err := checkPaymentRecord(l.tx, &v, path, p); err != nil {
		return err
	}
	if err := v.Err(); err != nil {
		return err
	}
	if _, err := l.tx.Payment(p.ID); err == nil {
		return apierr.PathError(apierr.CodeConflict, apierr.JoinPath(path, "id"), "two payments have the id "+p.ID)
	}
	if err := l.tx.PutPayment(p); err != nil {
		return err
	}
	if p.Service != bank.ServiceBulk {
		if err := l.tx.PutDuplicate(bank.DuplicateKey(p), p.ID, p.Created); err != nil {
			return err
		}
	}
	if p.BasketID != "" {
		l.basketRefs = append(l.basketRefs, basketRef{i, p.ID, p.BasketID})
	}
	n.Payments++
	return l.wrote(1)
}

// checkPaymentRecord checks a stored payment: its service, product and
// status, its history, which ends in its status, and its items, whose
// pending items and bookings must be the debtor's (and creditor's)
// transactions of the scenario, so that balances and reservations come
// back as they were.
func checkPaymentRecord(tx bank.Tx, v *apierr.Violations, path string, p bank.Payment) error {
	f := func(field string) string { return apierr.JoinPath(path, field) }
	checkTPP(v, f("tppId"), p.TPPID)
	if bank.CheckOneOf(v, f("service"), p.Service, bank.Services) && bank.CheckOneOf(v, f("product"), p.Product, bank.Products) {
		if err := bank.CheckProduct(p.Service, p.Product); err != nil {
			e, _ := apierr.AsError(err)
			v.Format(f("product"), "%s", e.Message)
		}
	}
	bank.CheckOneOf(v, f("status"), p.Status, bank.PaymentStatuses)
	checkTime(v, f("created"), p.Created)
	checkIDRef(v, f("customerId"), bank.KindCustomer, p.CustomerID, false)
	checkContext(v, f("context"), p.Context, false)
	if p.ExecutionDate.IsZero() {
		v.Format(f("executionDate"), "is required")
	}
	if d := p.RequestedDate; !d.IsZero() && (bank.IsBankingDay(d) || !d.Before(p.ExecutionDate)) {
		v.Format(f("requestedDate"), "%s is the requested execution date the bank moved: a day that is no banking day, before executionDate %s; leave it out when the bank kept the date", d, p.ExecutionDate)
	}
	if p.Fee.IsNegative() {
		v.Format(f("fee"), "must not be negative")
	}
	for j, a := range p.Approvals {
		checkIDRef(v, f(fmt.Sprintf("approvals[%d].customerId", j)), bank.KindCustomer, a.CustomerID, true)
		checkTime(v, f(fmt.Sprintf("approvals[%d].time", j)), a.Time)
	}
	for j, id := range p.Authorisations {
		checkIDRef(v, f(fmt.Sprintf("authorisations[%d]", j)), bank.KindAuthorisation, id, true)
	}
	checkIDRef(v, f("basketId"), bank.KindBasket, p.BasketID, false)
	if len(p.History) == 0 {
		v.Format(f("history"), "is required: the payment's status changes, the first to %s", bank.StatusRCVD)
	}
	for j, c := range p.History {
		h := func(field string) string { return f(fmt.Sprintf("history[%d].%s", j, field)) }
		checkTime(v, h("time"), c.Time)
		bank.CheckOneOf(v, h("to"), c.To, bank.PaymentStatuses)
		if c.From != "" {
			bank.CheckOneOf(v, h("from"), c.From, bank.PaymentStatuses)
		}
		bank.CheckText(v, h("by"), c.By, 1, 200)
	}
	if last := len(p.History) - 1; last >= 0 && p.History[last].To != p.Status && slices.Contains(bank.PaymentStatuses, p.Status) {
		v.Format(f("status"), "is %s, but the history's last change is to %s; the status is where the history ends", p.Status, p.History[last].To)
	}
	if len(p.Items) == 0 {
		v.Format(f("items"), "is required: the payment's credit transfers, at least one")
	}
	debtor, err := paymentDebtor(tx, v, path, p)
	if err != nil {
		return err
	}
	for j, it := range p.Items {
		if err := checkPaymentItem(tx, v, f(fmt.Sprintf("items[%d]", j)), p, it, debtor); err != nil {
			return err
		}
	}
	return nil
}

// paymentDebtor checks a payment's debtor account and returns it, or nil
// when the scenario does not have it: an account deleted after the
// payment was made, which its debtorAccount must not name either.
func paymentDebtor(tx bank.Tx, v *apierr.Violations, path string, p bank.Payment) (*bank.Account, error) {
	f := func(field string) string { return apierr.JoinPath(path, field) }
	bank.CheckAccountRef(v, f("debtorAccount"), p.DebtorAccount)
	if !checkIDRef(v, f("debtorAccountId"), bank.KindAccount, p.DebtorAccountID, true) {
		return nil, nil
	}
	a, err := tx.Account(p.DebtorAccountID)
	switch {
	case errors.Is(err, bank.ErrNotFound):
		if named, ok := bank.SandboxAccount(tx, p.DebtorAccount); ok {
			v.Format(f("debtorAccountId"), "names no account of this scenario, but debtorAccount is account %s (%s); give that account's id, or the debtor account with this id", named.ID, named.IBAN)
		}
		return nil, nil
	case err != nil:
		return nil, err
	case !bank.RefersTo(p.DebtorAccount, a):
		v.Format(f("debtorAccount"), "does not name account %s (%s), the payment's debtorAccountId", a.ID, a.IBAN)
	}
	return &a, nil
}

// checkPaymentItem checks one credit transfer of a payment: its amount and
// status and what it holds of the debtor account: a pending item (and a
// pending fee) while it is not settled, booked under the same id once it
// settled (ACSC), and the credit of a sandbox creditor account.
func checkPaymentItem(tx bank.Tx, v *apierr.Violations, path string, p bank.Payment, it bank.PaymentItem, debtor *bank.Account) error {
	f := func(field string) string { return apierr.JoinPath(path, field) }
	if !it.Amount.IsPositive() {
		v.Format(f("amount"), "must be more than 0")
	}
	bank.CheckCurrency(v, f("currency"), it.Currency)
	if it.CreditorAccount.IsZero() {
		v.Format(f("creditorAccount"), "is required: an object with iban or bban")
	}
	if it.Status != "" {
		bank.CheckOneOf(v, f("status"), it.Status, []string{bank.StatusACSC, bank.StatusRJCT})
	}
	if it.Reserved.IsNegative() {
		v.Format(f("reserved"), "must not be negative")
	}
	if it.PendingTxID == "" && !it.Reserved.IsZero() {
		v.Format(f("reserved"), "must be 0: the item has no pending item (pendingTxId) that holds money")
	}
	checkIDRef(v, f("creditorAccountId"), bank.KindAccount, it.CreditorAccountID, false)
	settled := it.Status == bank.StatusACSC
	why := map[bool]string{true: "the item is not settled, so it holds a reservation", false: "the item settled (ACSC)"}[!settled]
	for _, t := range []struct {
		field, id string
		on        *bank.Account
		pending   bool
		why       string
	}{
		{"pendingTxId", it.PendingTxID, debtor, !settled, why},
		{"pendingFeeTxId", it.PendingFeeTxID, debtor, true, "a fee is held until its item settles"},
		{"creditorTxId", it.CreditorTxID, nil, false, "it is the credit of a settled item"},
	} {
		if t.id == "" {
			continue
		}
		if _, _, ok := bank.ParseID(bank.KindTransaction, t.id); !ok {
			v.Format(f(t.field), "%q is not the id of a transaction", apierr.Clip(t.id))
			continue
		}
		acct := t.on
		if t.field == "creditorTxId" && it.CreditorAccountID != "" {
			if a, err := tx.Account(it.CreditorAccountID); err == nil {
				acct = &a
			} else if !errors.Is(err, bank.ErrNotFound) {
				return err
			}
		}
		if acct == nil {
			continue // the account was deleted, and its transactions with it
		}
		tr, err := tx.Transaction(acct.ID, t.id)
		switch {
		case errors.Is(err, bank.ErrNotFound):
			v.Format(f(t.field), "account %s (%s) has no transaction %s in this scenario; list it among the account's transactions", acct.ID, acct.IBAN, apierr.Clip(t.id))
		case err != nil:
			return err
		case tr.Pending != t.pending:
			state := map[bool]string{true: "pending", false: "booked"}
			v.Format(f(t.field), "transaction %s of account %s is %s; it must be %s: %s", t.id, acct.IBAN, state[tr.Pending], state[t.pending], t.why)
		}
	}
	return nil
}

// restoreBasket restores baskets[i], a signing basket, whose payments must be the
// basket's TPP's payments of the scenario that name the basket back.
func (l *loader) restoreBasket(i int, b bank.Basket, n *Counts) error {
	path := fmt.Sprintf("baskets[%d]", i)
	if err := l.checkBasket(path, b); err != nil {
		return err
	}
	if _, err := l.tx.Basket(b.ID); err == nil {
		return apierr.PathError(apierr.CodeConflict, apierr.JoinPath(path, "id"), "two baskets have the id "+b.ID)
	}
	if err := l.tx.PutBasket(b); err != nil {
		return err
	}
	n.Baskets++
	return l.wrote(1)
}

// checkBasket checks a restored basket at path: its id, TPP and time, and
// that each of its payments, restored before it, names it.
func (l *loader) checkBasket(path string, b bank.Basket) error {
	f := func(field string) string { return apierr.JoinPath(path, field) }
	var v apierr.Violations
	if err := restoredID(l.tx, &v, path, bank.KindBasket, b.ID); err != nil {
		return err
	}
	checkTPP(&v, f("tppId"), b.TPPID)
	checkTime(&v, f("created"), b.Created)
	if len(b.PaymentIDs) == 0 || len(b.PaymentIDs) > bank.MaxBasketPayments {
		v.Format(f("paymentIds"), "must hold 1 to %d payment ids", bank.MaxBasketPayments)
	}
	for j, id := range b.PaymentIDs {
		p, err := l.tx.Payment(id)
		switch {
		case errors.Is(err, bank.ErrNotFound):
			v.Format(f(fmt.Sprintf("paymentIds[%d]", j)), "%q is not a payment of this scenario", apierr.Clip(id))
		case err != nil:
			return err
		case p.TPPID != b.TPPID || p.BasketID != b.ID:
			v.Format(f(fmt.Sprintf("paymentIds[%d]", j)), "payment %s is not in this basket: it names basket %q and TPP %s; a basket's payments name it as their basketId", id, p.BasketID, p.TPPID)
		}
	}
	for j, id := range b.Authorisations {
		checkIDRef(&v, f(fmt.Sprintf("authorisations[%d]", j)), bank.KindAuthorisation, id, true)
	}
	return v.Err()
}

// restoreConsent restores consents[i], a TPP's consent resource.
func (l *loader) restoreConsent(i int, c bank.Consent, n *Counts) error {
	path := fmt.Sprintf("consents[%d]", i)
	f := func(field string) string { return apierr.JoinPath(path, field) }
	var v apierr.Violations
	if err := restoredID(l.tx, &v, path, bank.KindConsent, c.ID); err != nil {
		return err
	}
	checkTPP(&v, f("tppId"), c.TPPID)
	checkTime(&v, f("created"), c.Created)
	bank.CheckOneOf(&v, f("status"), c.Status, consentStatuses)
	for j, id := range c.AuthorisationIDs {
		checkIDRef(&v, f(fmt.Sprintf("authorisationIds[%d]", j)), bank.KindAuthorisation, id, true)
	}
	granted := c.Status != bank.ConsentReceived && c.Status != bank.ConsentRejected && c.GrantID != ""
	checkIDRef(&v, f("grantId"), bank.KindGrant, c.GrantID, c.Status == bank.ConsentValid)
	checkIDRef(&v, f("customerId"), bank.KindCustomer, c.CustomerID, granted)
	checkContext(&v, f("context"), c.Context, granted)
	for j, id := range c.Accounts {
		checkAccountIDRef(&v, f(fmt.Sprintf("accounts[%d]", j)), id)
	}
	if granted {
		checkTime(&v, f("granted"), c.Granted)
	}
	if err := v.Err(); err != nil {
		return err
	}
	if _, err := l.tx.Consent(c.ID); err == nil {
		return apierr.PathError(apierr.CodeConflict, f("id"), "two consents have the id "+c.ID)
	}
	if err := l.tx.PutConsent(c); err != nil {
		return err
	}
	n.Consents++
	return l.wrote(1)
}

// restoreAuthorisation restores authorisations[i], with a new
// secret and new form tokens, and unbound: the page of an open one binds
// to the first browser that opens it. Their redirect URIs are checked as when a
// TPP starts SCA, so a scenario sends no PSU anywhere a TPP could not.
func (l *loader) restoreAuthorisation(i int, sa Authorisation, n *Counts) error {
	a := sa.Authorisation
	path := fmt.Sprintf("authorisations[%d]", i)
	var v apierr.Violations
	if err := restoredID(l.tx, &v, path, bank.KindAuthorisation, a.ID); err != nil {
		return err
	}
	checkRestoredAuthorisation(&v, path, a)
	if err := checkAuthorisationObjects(l.tx, &v, path, a); err != nil {
		return err
	}
	if err := v.Err(); err != nil {
		return err
	}
	if _, err := l.tx.Authorisation(a.ID); err == nil {
		return apierr.PathError(apierr.CodeConflict, apierr.JoinPath(path, "id"), "two authorisations have the id "+a.ID)
	}
	a.Secret, a.Token, a.Cookie = bank.NewToken(), bank.NewToken(), bank.NewToken()
	if err := l.tx.PutAuthorisation(a); err != nil {
		return err
	}
	n.Authorisations++
	return l.wrote(1)
}

// checkRestoredAuthorisation checks the fields of an authorisation of a
// scenario at path: its redirect URIs as when a TPP starts SCA, and no
// secret, which an imported authorisation gets anew, nor a binding to a
// browser.
func checkRestoredAuthorisation(v *apierr.Violations, path string, a bank.Authorisation) {
	f := func(field string) string { return apierr.JoinPath(path, field) }
	checkTPP(v, f("tppId"), a.TPPID)
	bank.CheckName(v, f("tppName"), a.TPPName, 1, 200)
	bank.CheckOneOf(v, f("kind"), a.Kind, authKinds)
	bank.CheckOneOf(v, f("status"), a.Status, scaStatuses)
	checkTime(v, f("created"), a.Created)
	bank.CheckText(v, f("sessionId"), a.SessionID, 1, 200)
	for _, u := range []struct{ field, uri string }{{"redirectUri", a.RedirectURI}, {"redirect", a.Redirect}} {
		if u.uri == "" && u.field == "redirect" {
			continue
		}
		if err := bank.CheckRedirectURI(u.uri); err != nil {
			e, _ := apierr.AsError(err)
			v.Format(f(u.field), "%s", e.Messages[0].Text)
		}
	}
	for _, secret := range []struct{ field, value string }{{"secret", a.Secret}, {"token", a.Token}, {"cookie", a.Cookie}} {
		if secret.value != "" {
			v.Format(f(secret.field), "is not part of a scenario; leave it out: an imported authorisation gets a new one")
		}
	}
	if a.Bound {
		v.Format(f("bound"), "is not part of a scenario; leave it out: an imported authorisation's page binds to the first browser that opens it")
	}
	if a.Attempts < 0 {
		v.Format(f("attempts"), "must not be negative")
	}
	checkIDRef(v, f("customerId"), bank.KindCustomer, a.CustomerID, false)
	checkIDRef(v, f("psuRequired"), bank.KindCustomer, a.PSURequired, false)
	checkContext(v, f("context"), a.Context, false)
	for j, id := range a.Accounts {
		checkAccountIDRef(v, f(fmt.Sprintf("accounts[%d]", j)), id)
	}
	bank.CheckText(v, f("failMessage"), a.FailMessage, 0, 500)
}

// checkAuthorisationObjects checks that what an authorisation of a
// scenario authorises (its payments, basket or consent) is a record of the
// scenario, of the same TPP.
func checkAuthorisationObjects(tx bank.Tx, v *apierr.Violations, path string, a bank.Authorisation) error {
	f := func(field string) string { return apierr.JoinPath(path, field) }
	owned := func(field, what, id string, tppOf func(string) (string, error)) error {
		tpp, err := tppOf(id)
		if errors.Is(err, bank.ErrNotFound) || (err == nil && tpp != a.TPPID) {
			v.Format(f(field), "%q is not a %s of this scenario of TPP %s", apierr.Clip(id), what, apierr.Clip(a.TPPID))
			return nil
		}
		return err
	}
	payment := func(id string) (string, error) { p, err := tx.Payment(id); return p.TPPID, err }
	basket := func(id string) (string, error) { b, err := tx.Basket(id); return b.TPPID, err }
	consent := func(id string) (string, error) { c, err := tx.Consent(id); return c.TPPID, err }
	for j, id := range a.PaymentIDs {
		if err := owned(fmt.Sprintf("paymentIds[%d]", j), "payment", id, payment); err != nil {
			return err
		}
	}
	if a.BasketID != "" {
		if err := owned("basketId", "basket", a.BasketID, basket); err != nil {
			return err
		}
	}
	if a.ConsentID != "" {
		return owned("consentId", "consent", a.ConsentID, consent)
	}
	return nil
}

// restoreGrant restores grants[i]: one per TPP, PSU and context, for a
// customer of the scenario (deleting a customer deletes their grants).
func (l *loader) restoreGrant(i int, g bank.Grant, n *Counts) error {
	path := fmt.Sprintf("grants[%d]", i)
	f := func(field string) string { return apierr.JoinPath(path, field) }
	var v apierr.Violations
	if err := restoredID(l.tx, &v, path, bank.KindGrant, g.ID); err != nil {
		return err
	}
	checkTPP(&v, f("tppId"), g.TPPID)
	if err := checkCustomer(l.tx, &v, f("customerId"), g.CustomerID); err != nil {
		return err
	}
	checkContext(&v, f("context"), g.Context, true)
	if len(g.Accounts) == 0 {
		v.Format(f("accounts"), "is required: the granted accounts, at least one")
	}
	for j, id := range g.Accounts {
		checkAccountIDRef(&v, f(fmt.Sprintf("accounts[%d]", j)), id)
	}
	checkTime(&v, f("created"), g.Created)
	checkIDRef(&v, f("consentId"), bank.KindConsent, g.ConsentID, false)
	if err := v.Err(); err != nil {
		return err
	}
	if old, err := l.tx.Grant(g.TPPID, g.CustomerID, g.Context); err == nil {
		return apierr.PathError(apierr.CodeConflict, path, fmt.Sprintf("grant %s is for the same TPP, PSU and context already; a TPP holds one grant per PSU and context", old.ID))
	}
	if err := l.tx.PutGrant(g); err != nil {
		return err
	}
	n.Grants++
	return l.wrote(1)
}

// checkCustomer checks a required reference to a customer of the
// scenario.
func checkCustomer(tx bank.Tx, v *apierr.Violations, path, id string) error {
	if !checkIDRef(v, path, bank.KindCustomer, id, true) {
		return nil
	}
	if _, err := tx.Customer(id); errors.Is(err, bank.ErrNotFound) {
		v.Format(path, "%q is not a customer of this scenario", apierr.Clip(id))
	} else if err != nil {
		return err
	}
	return nil
}

// restoreSession restores sessions[i], an SCA session: one per TPP and PSU, for a
// customer of the scenario.
func (l *loader) restoreSession(i int, ss bank.Session, _ *Counts) error {
	path := fmt.Sprintf("sessions[%d]", i)
	f := func(field string) string { return apierr.JoinPath(path, field) }
	var v apierr.Violations
	checkTPP(&v, f("tppId"), ss.TPPID)
	if err := checkCustomer(l.tx, &v, f("customerId"), ss.CustomerID); err != nil {
		return err
	}
	bank.CheckText(&v, f("sessionId"), ss.SessionID, 1, 200)
	checkTime(&v, f("expires"), ss.Expires)
	if err := v.Err(); err != nil {
		return err
	}
	if _, err := l.tx.Session(ss.TPPID, ss.CustomerID); err == nil {
		return apierr.PathError(apierr.CodeConflict, path, "two sessions are for the same TPP and PSU; a TPP holds one SCA session per PSU")
	}
	if err := l.tx.PutSession(ss); err != nil {
		return err
	}
	return l.wrote(1)
}

// restorePSU restores psus[i], a PSU id given to a TPP. An id is the one the bank
// derives from the TPP, the customer and the agreement (PSUID,
// CorporateID); the customer may have been deleted since.
func (l *loader) restorePSU(i int, p bank.PSU, _ *Counts) error {
	path := fmt.Sprintf("psus[%d]", i)
	f := func(field string) string { return apierr.JoinPath(path, field) }
	var v apierr.Violations
	checkTPP(&v, f("tppId"), p.TPPID)
	checkIDRef(&v, f("customerId"), bank.KindCustomer, p.CustomerID, true)
	want := bank.PSUID(p.TPPID, p.CustomerID)
	if p.AgreementID != "" && checkIDRef(&v, f("agreementId"), bank.KindAgreement, p.AgreementID, true) {
		want = bank.CorporateID(p.TPPID, p.CustomerID, p.AgreementID)
	}
	if p.ID != want {
		v.Format(f("id"), "%q is not the id the bank gives this TPP for this customer%s: that is %s", apierr.Clip(p.ID), map[bool]string{true: " and agreement"}[p.AgreementID != ""], want)
	}
	if err := v.Err(); err != nil {
		return err
	}
	if _, err := l.tx.PSU(p.ID); err == nil {
		return apierr.PathError(apierr.CodeConflict, f("id"), "two PSU ids are "+p.ID)
	}
	if err := l.tx.PutPSU(p); err != nil {
		return err
	}
	return l.wrote(1)
}

// restoreUse restores usage[i], a usage counter of PSU-not-present calls.
func (l *loader) restoreUse(i int, u Use, _ *Counts) error {
	path := fmt.Sprintf("usage[%d]", i)
	f := func(field string) string { return apierr.JoinPath(path, field) }
	var v apierr.Violations
	if u.Day.IsZero() {
		v.Format(f("day"), "is required: the day of the calls, YYYY-MM-DD")
	}
	checkTPP(&v, f("tppId"), u.TPPID)
	checkIDRef(&v, f("customerId"), bank.KindCustomer, u.CustomerID, true)
	checkAccountIDRef(&v, f("accountId"), u.AccountID)
	bank.CheckOneOf(&v, f("kind"), u.Kind, useKinds)
	if u.Count < 1 {
		v.Format(f("count"), "must be 1 or more")
	}
	if err := v.Err(); err != nil {
		return err
	}
	key := bank.UseKey(u.TPPID, u.CustomerID, u.AccountID, u.Kind)
	if l.seen["usage\x00"+u.Day.String()+key] {
		return apierr.PathError(apierr.CodeConflict, path, "two counters are for the same day, TPP, PSU, account and kind")
	}
	l.seen["usage\x00"+u.Day.String()+key] = true
	if err := l.tx.PutUse(bank.UseCount{Day: u.Day, Key: key, Count: u.Count}); err != nil {
		return err
	}
	return l.wrote(1)
}

// restoreBatchRun restores batchRuns[i], a batch run report (oldest first); the data
// file keeps the newest MaxBatchRunsKept.
func (l *loader) restoreBatchRun(i int, r bank.BatchRun, _ *Counts) error {
	path := fmt.Sprintf("batchRuns[%d]", i)
	f := func(field string) string { return apierr.JoinPath(path, field) }
	var v apierr.Violations
	if err := restoredID(l.tx, &v, path, bank.KindBatchRun, r.ID); err != nil {
		return err
	}
	checkTime(&v, f("time"), r.Time)
	bank.CheckOneOf(&v, f("trigger"), r.Trigger, batchTriggers)
	if r.Duration < 0 {
		v.Format(f("duration"), "must not be negative")
	}
	for status, count := range r.Counts {
		if !slices.Contains(bank.PaymentStatuses, status) || count < 0 {
			v.Format(f("counts."+apierr.Clip(status)), "must be a payment status with a count of 0 or more")
		}
	}
	for j, o := range r.Outcomes {
		checkIDRef(&v, f(fmt.Sprintf("outcomes[%d].paymentId", j)), bank.KindPayment, o.PaymentID, true)
		bank.CheckOneOf(&v, f(fmt.Sprintf("outcomes[%d].to", j)), o.To, bank.PaymentStatuses)
	}
	if err := v.Err(); err != nil {
		return err
	}
	if l.seen["batchRuns\x00"+r.ID] {
		return apierr.PathError(apierr.CodeConflict, f("id"), "two batch runs have the id "+r.ID)
	}
	l.seen["batchRuns\x00"+r.ID] = true
	if err := l.tx.PutBatchRun(r); err != nil {
		return err
	}
	return l.wrote(1)
}

// restoreContact restores tppContacts[i], a TPP's contact address. A TPP the scenario
// does not name keeps its own: contacts, like certificates, belong to the
// TPP rather than to the test data.
func (l *loader) restoreContact(i int, c bank.TPPContact, _ *Counts) error {
	path := fmt.Sprintf("tppContacts[%d]", i)
	var v apierr.Violations
	checkTPP(&v, apierr.JoinPath(path, "tppId"), c.TPPID)
	bank.CheckEmail(&v, apierr.JoinPath(path, "email"), c.Email)
	if err := v.Err(); err != nil {
		return err
	}
	if l.seen["tppContacts\x00"+c.TPPID] {
		return apierr.PathError(apierr.CodeConflict, apierr.JoinPath(path, "tppId"), "two contacts are for TPP "+c.TPPID)
	}
	l.seen["tppContacts\x00"+c.TPPID] = true
	if err := l.tx.PutTPPContact(c); err != nil {
		return err
	}
	return l.wrote(1)
}
