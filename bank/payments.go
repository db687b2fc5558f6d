package bank

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"sandbank/bank/apierr"
)

// PaymentInit asks to create a payment: the body and what the request's
// headers and query say.
type PaymentInit struct {
	TPPID, TPPName   string
	Service, Product string
	Body             PaymentRequest
	// PSUID, CorporateID and NationalID (X-PSU-IDENTITY) name the PSU when
	// the TPP knows them; PSUContext is PSU-Context: PRIVATE, CORPORATE, or
	// empty for none (the API reads a value it does not know as none, with
	// a client note).
	PSUID, CorporateID, NationalID, PSUContext string
	RedirectURI, SessionID                     string
	RedirectPreferred                          bool
	// AllowDuplicate is allowLogicalDuplicate=true.
	AllowDuplicate bool
}

// PaymentCreated is a new payment and the authorisation it started.
type PaymentCreated struct {
	Payment       Payment
	Authorisation Authorisation
}

// CheckProduct checks a service and product pair: an unknown product is
// 404 PRODUCT_UNKNOWN, a known one on the wrong service 400
// PRODUCT_INVALID.
func CheckProduct(service, product string) error {
	if !slices.Contains(Products, product) {
		return apierr.Errorf(apierr.CodeProductUnknown, "there is no payment product %q; use %s", apierr.Clip(product), strings.Join(Products, " or "))
	}
	if product == ProductNCBCT && service != ServiceSingle {
		return apierr.Errorf(apierr.CodeProductInvalid, "%s are only single payments; %s takes %s", product, service, ProductNDCT)
	}
	return nil
}

// CreatePayment validates and stores a payment and starts its
// authorisation. Every failing field is reported; nothing is stored then.
func (s *PSD2) CreatePayment(in PaymentInit) (PaymentCreated, error) {
	var out PaymentCreated
	if err := CheckProduct(in.Service, in.Product); err != nil {
		return out, err
	}
	err := s.move("create payment", func(l *ledger) error {
		tx := l.tx
		st, err := settingsIn(tx)
		if err != nil {
			return err
		}
		now := s.Now()
		p, err := s.newPayment(tx, in, st, now)
		if err != nil {
			return err
		}
		a, err := s.newAuthorisation(tx, SCARequest{
			TPPID: in.TPPID, TPPName: in.TPPName, Kind: AuthPayment,
			RedirectURI: in.RedirectURI, SessionID: in.SessionID, RedirectPreferred: in.RedirectPreferred,
		}, now)
		if err != nil {
			return err
		}
		a.PaymentIDs, a.PSURequired = []string{p.ID}, p.CustomerID
		p.Authorisations = []string{a.ID}
		if st.Exemption == ExemptOwnAccounts && ownTransfer(tx, p) {
			a.Status, a.Finished, a.CustomerID = ScaExempted, now, p.CustomerID
			p.Context, a.Context = ContextPrivate, ContextPrivate
			p.Approvals = []Approval{{CustomerID: p.CustomerID, Time: now, Full: true}}
			if err := authorise(l, &p, now, "SCA exemption (own accounts)"); err != nil {
				return err
			}
		}
		if err := tx.PutAuthorisation(a); err != nil {
			return err
		}
		if err := tx.PutPayment(p); err != nil {
			return err
		}
		out = PaymentCreated{Payment: p, Authorisation: a}
		return nil
	}, Event{Kind: EventPayments}, Event{Kind: EventConsents})
	return out, err
}

// newPayment checks a request against the rules and the data and returns
// the payment, not yet stored.
func (s *core) newPayment(tx Tx, in PaymentInit, st Settings, now time.Time) (Payment, error) {
	today := DateOf(now)
	v := s.violations()
	c := checkPayment(&v, in.Service, in.Product, in.Body, today, st.FX)
	p := Payment{
		TPPID: in.TPPID, Service: in.Service, Product: in.Product, Status: StatusRCVD, Created: now,
		Request: in.Body, Items: c.items, DebtorAccount: c.debtor, Warnings: c.warnings,
	}
	psu, context, err := s.paymentPSU(tx, &v, in)
	if err != nil {
		return p, err
	}
	p.CustomerID, p.Context = psu.ID, context
	var debtor Account
	if !c.debtor.IsZero() {
		var ok bool
		debtor, ok = SandboxAccount(tx, c.debtor)
		switch {
		case !ok:
			v.Format("debtorAccount", "is not a sandbox account; pay from a sandbox account (GET /v1/sandbox/accounts lists them)")
		case c.currency != "" && c.currency != debtor.Currency:
			v.Format("debtorAccount.currency", "the account is in %s, not %s", debtor.Currency, c.currency)
		case psu.ID != "":
			if _, why, err := usage(tx, psu, context, debtor); err != nil {
				return p, err
			} else if why != "" {
				v.Format("debtorAccount", "%s", why)
			}
		}
		p.DebtorAccountID = debtor.ID
	}
	for i := range p.Items {
		it := &p.Items[i]
		path := ""
		if in.Service == ServiceBulk {
			path = fmt.Sprintf("payments[%d]", i)
		}
		if creditor, ok := SandboxAccount(tx, it.CreditorAccount); ok {
			it.CreditorAccountID = creditor.ID
			if creditor.ID == debtor.ID {
				v.Format(apierr.JoinPath(path, "creditorAccount"), "is the debtor account; a payment goes to another account")
			}
			if creditor.KIDRequired && it.KID == "" && in.Product == ProductNDCT {
				v.Add(apierr.CodeKIDMissing, apierr.JoinPath(path, "remittanceInformationStructuredArray"), fmt.Sprintf("the creditor account %s takes payments with a KID only; send it as remittanceInformationStructuredArray: [{\"reference\": \"<KID>\", \"referenceType\": \"KID\"}]", refText(it.CreditorAccount)))
			}
		}
	}
	if err := v.Err(); err != nil {
		return p, err
	}
	p.Warnings = append(p.Warnings, v.Warnings()...)
	p.ExecutionDate = c.date
	if !p.Periodic() && !IsBankingDay(c.date) {
		p.ExecutionDate = NextBankingDay(c.date)
		name, _ := Holiday(c.date)
		if name == "" {
			name = c.date.Weekday().String()
		}
		text := fmt.Sprintf("%s is not a banking day (%s); the payment executes on %s", c.date, name, p.ExecutionDate)
		if in.Body.RequestedExecutionDate != nil {
			p.RequestedDate = c.date
			text += ", and is ACWC (accepted with change) from its authorisation until it settles"
		}
		p.Warnings = append(p.Warnings, warning("requestedExecutionDate", text))
	}
	if in.Product == ProductNCBCT {
		p.Fee = st.NCBCTFee
	}
	if in.Service != ServiceBulk {
		if err := s.checkDuplicate(tx, p, in.AllowDuplicate, now); err != nil {
			return p, err
		}
	}
	seq, err := tx.NextSeq(KindPayment)
	if err != nil {
		return p, err
	}
	p.ID = FormatID(KindPayment, 0, seq)
	p.History = []StatusChange{{Time: now, To: StatusRCVD, By: "TPP " + in.TPPID, Reason: "created"}}
	if in.Service != ServiceBulk {
		return p, tx.PutDuplicate(DuplicateKey(p), p.ID, now)
	}
	return p, nil
}

func refText(r AccountRef) string {
	if r.IBAN != "" {
		return r.IBAN
	}
	return r.BBAN
}

// paymentPSU reads who the PSU is from PSU-ID, PSU-Corporate-ID and
// X-PSU-IDENTITY, and the context from PSU-Corporate-ID and PSU-Context.
func (s *core) paymentPSU(tx Tx, v *apierr.Violations, in PaymentInit) (Customer, string, error) {
	var c Customer
	context := ""
	if in.PSUID != "" {
		psu, err := tx.PSU(in.PSUID)
		if errors.Is(err, ErrNotFound) || (err == nil && (psu.TPPID != in.TPPID || psu.AgreementID != "")) {
			v.Format("PSU-ID", "%s is not a PSU-ID this bank gave your TPP; get one with SCA (GET /v1/users or POST /v1/consents)", apierr.Clip(in.PSUID))
			return c, "", nil
		} else if err != nil {
			return c, "", err
		}
		if c, err = tx.Customer(psu.CustomerID); err != nil {
			v.Format("PSU-ID", "the PSU of %s no longer exists in the sandbox", apierr.Clip(in.PSUID))
			return Customer{}, "", nil
		}
	} else if in.NationalID != "" {
		var err error
		if c, err = tx.CustomerByNumber(in.NationalID); err != nil {
			v.Format("X-PSU-IDENTITY", "no sandbox customer has the national id %q", apierr.Clip(in.NationalID))
			return Customer{}, "", nil
		}
	}
	if in.CorporateID != "" {
		corp, err := tx.PSU(in.CorporateID)
		if err != nil || corp.TPPID != in.TPPID || corp.AgreementID == "" || (c.ID != "" && corp.CustomerID != c.ID) {
			v.Format("PSU-Corporate-ID", "%s is not a corporate context of this PSU for your TPP", apierr.Clip(in.CorporateID))
			return c, "", nil
		}
		if c.ID == "" {
			if c, err = tx.Customer(corp.CustomerID); err != nil {
				v.Format("PSU-Corporate-ID", "the PSU of %s no longer exists in the sandbox", apierr.Clip(in.CorporateID))
				return Customer{}, "", nil
			}
		}
		context = corp.AgreementID
	}
	if in.PSUContext == "CORPORATE" && context == "" {
		return c, "", apierr.PathError(apierr.CodeCorporateIDRequired, "PSU-Corporate-ID", "PSU-Context is CORPORATE; send the psu-corporate-id of the SCA redirect as PSU-Corporate-ID")
	}
	if in.PSUContext == "PRIVATE" {
		context = ContextPrivate
	}
	return c, context, nil
}

// usage says whether a PSU may use an account in a context ("" when any
// context will do): the context the use is in, or why not.
func usage(tx Tx, psu Customer, context string, a Account) (string, string, error) {
	if (context == "" || context == ContextPrivate) && a.OwnerID == psu.ID && psu.IsPrivate() {
		return ContextPrivate, "", nil
	}
	engagements, err := tx.EngagementsByAccount(a.ID)
	if err != nil {
		return "", "", err
	}
	for _, e := range engagements {
		if e.CustomerID == psu.ID && e.HasRole(RoleRegister) && (context == "" || context == e.AgreementID) {
			return e.AgreementID, "", nil
		}
	}
	return "", fmt.Sprintf("%s (%s) may not pay from %s: it is not their own account, and no engagement gives them REGISTER on it", psu.Name, psu.Number, refText(AccountRef{IBAN: a.IBAN, BBAN: a.BBAN})), nil
}

// DuplicateKey identifies a payment's logical duplicates: the same TPP,
// debtor, creditor, amount, currency, remittance and execution date.
func DuplicateKey(p Payment) string {
	h := sha256.New()
	it := p.Items[0]
	for _, part := range []string{p.TPPID, refText(p.DebtorAccount), refText(it.CreditorAccount), it.Amount.String(), it.Currency, it.Remittance, p.ExecutionDate.String()} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// DuplicateWindow is how far back a logical duplicate is looked for.
const DuplicateWindow = 24 * time.Hour

func (s *core) checkDuplicate(tx Tx, p Payment, allow bool, now time.Time) error {
	if allow {
		return nil
	}
	ids, err := tx.Duplicates(DuplicateKey(p), now.Add(-DuplicateWindow))
	if err != nil {
		return err
	}
	for _, id := range ids {
		earlier, err := tx.Payment(id)
		if err != nil {
			continue
		}
		if earlier.Status != StatusRJCT && earlier.Status != StatusCANC {
			return apierr.Errorf(apierr.CodeConflict, "payment %s, created %s, has the same debtor, creditor, amount, remittance and execution date; send allowLogicalDuplicate=true to create this one anyway", id, earlier.Created.In(Oslo).Format("2006-01-02 15:04"))
		}
	}
	return nil
}

// ownTransfer reports whether a payment moves money between a private
// PSU's own accounts, which the SCA exemption policy may let through
// without SCA.
func ownTransfer(tx Tx, p Payment) bool {
	if p.CustomerID == "" || (p.Context != "" && p.Context != ContextPrivate) {
		return false
	}
	ids := []string{p.DebtorAccountID}
	for _, it := range p.Items {
		ids = append(ids, it.CreditorAccountID)
	}
	for _, id := range ids {
		a, err := tx.Account(id)
		if err != nil || a.OwnerID != p.CustomerID {
			return false
		}
	}
	c, err := tx.Customer(p.CustomerID)
	return err == nil && c.IsPrivate()
}

// PaymentFilter selects the payments of the operator's list. Each field
// that is set narrows it; the list is newest first.
type PaymentFilter struct {
	// Status is a payment status.
	Status string
	// TPPID is the TPP that created the payments.
	TPPID string
	// PSUID is the PSU: their customerNumber (the national id they type
	// at SCA), or a PSU-ID or PSU-Corporate-ID the bank gave a TPP.
	PSUID string
	// Product is a payment product.
	Product string
	// CreatedFrom and CreatedTo bound the creation date (Europe/Oslo, on
	// the sandbox clock), both included.
	CreatedFrom, CreatedTo Date
	// Offset and Limit choose the page; a zero Limit is DefaultPageSize,
	// and it may be at most MaxSandboxPageSize.
	Offset, Limit int
}

// check reports a filter value that is not one the bank knows, with the
// name of its query parameter.
func (f PaymentFilter) check() error {
	var v apierr.Violations
	if f.Status != "" && !slices.Contains(PaymentStatuses, f.Status) {
		v.Format("status", "%q is not a payment status; use one of %s", apierr.Clip(f.Status), strings.Join(PaymentStatuses, ", "))
	}
	if f.Product != "" && !slices.Contains(Products, f.Product) {
		v.Format("product", "%q is not a payment product; use %s", apierr.Clip(f.Product), strings.Join(Products, " or "))
	}
	checkPSUFilter(&v, f.PSUID)
	if e, ok := apierr.AsError(checkQuery(TxQuery{From: f.CreatedFrom, To: f.CreatedTo, Offset: f.Offset, Limit: f.Limit}, MaxSandboxPageSize)); ok {
		for _, m := range e.Messages {
			if m.Code == apierr.CodePeriodInvalid {
				m.Text = fmt.Sprintf("createdFrom (%s) is after createdTo (%s)", f.CreatedFrom, f.CreatedTo)
			}
			v.Add(m.Code, m.Path, m.Text)
		}
	}
	return v.Err()
}

// checkPSUFilter reports a psuId filter that is neither a customerNumber
// nor a PSU-ID.
func checkPSUFilter(v *apierr.Violations, psuID string) {
	if psuID == "" || isCustomerNumber(psuID) {
		return
	}
	if _, err := uuid.Parse(psuID); err != nil {
		v.Format("psuId", "%q is neither a customerNumber (the national id, e.g. 13039319955) nor a PSU-ID the bank gave a TPP (a UUID)", apierr.Clip(psuID))
	}
}

// isCustomerNumber reports whether s has the form of a customerNumber: 1
// to 20 digits.
func isCustomerNumber(s string) bool { return len(s) <= 20 && s != "" && allDigits(s) }

// psuCustomer returns the customer a PSU filter names: by customerNumber,
// or by the PSU-ID the bank gave a TPP. ok is false when it names none.
func psuCustomer(tx Tx, psuID string) (id string, ok bool, err error) {
	if isCustomerNumber(psuID) {
		c, err := tx.CustomerByNumber(psuID)
		if errors.Is(err, ErrNotFound) {
			return "", false, nil
		}
		return c.ID, err == nil, err
	}
	p, err := tx.PSU(psuID)
	if errors.Is(err, ErrNotFound) {
		return "", false, nil
	}
	return p.CustomerID, err == nil, err
}

// Parties are the customers and accounts some payments name, by id, so
// that they can be shown by name.
type Parties struct {
	Customers map[string]Customer
	Accounts  map[string]Account
}

// add looks up the PSU, the approvers and the debtor account of a
// payment; one that is gone is left out.
func (pt *Parties) add(tx Tx, p Payment) {
	if pt.Customers == nil {
		pt.Customers, pt.Accounts = map[string]Customer{}, map[string]Account{}
	}
	ids := []string{p.CustomerID}
	for _, a := range p.Approvals {
		ids = append(ids, a.CustomerID)
	}
	for _, id := range ids {
		if _, ok := pt.Customers[id]; id != "" && !ok {
			if c, err := tx.Customer(id); err == nil {
				pt.Customers[id] = c
			}
		}
	}
	if _, ok := pt.Accounts[p.DebtorAccountID]; !ok {
		if a, err := tx.Account(p.DebtorAccountID); err == nil {
			pt.Accounts[a.ID] = a
		}
	}
}

// PaymentList is a page of payments and the parties they name.
type PaymentList struct {
	Payments []Payment
	// Total is how many payments match, in all.
	Total int
	Parties
}

// Payments lists the payments a filter selects, newest first: one page
// of them, and how many match in all. A filter value the bank does not
// know is a FORMAT_ERROR at its query parameter's name.
func (s *Ops) Payments(f PaymentFilter) (PaymentList, error) { return s.payments(f) }

func (s *core) payments(f PaymentFilter) (PaymentList, error) {
	var out PaymentList
	if f.Limit == 0 {
		f.Limit = DefaultPageSize
	}
	if err := f.check(); err != nil {
		return out, err
	}
	err := s.view("list payments", func(tx Tx) error {
		q := PaymentQuery{Status: f.Status, Offset: f.Offset, Limit: f.Limit}
		customerID := ""
		if f.PSUID != "" {
			id, ok, err := psuCustomer(tx, f.PSUID)
			if err != nil {
				return err
			}
			if !ok {
				out.Payments = []Payment{}
				return nil // names no PSU the bank knows: no payment is theirs
			}
			customerID = id
		}
		q.Match = f.match(customerID)
		var err error
		if out.Payments, out.Total, err = tx.Payments(q); err != nil {
			return err
		}
		for _, p := range out.Payments {
			out.add(tx, p)
		}
		return nil
	})
	return out, err
}

// match returns whether a payment passes the filter's TPP, product and
// dates, and is the customer's when customerID is set (the PSU's); nil
// when the filter sets none of them.
func (f PaymentFilter) match(customerID string) func(Payment) bool {
	if f.TPPID == "" && customerID == "" && f.Product == "" && f.CreatedFrom.IsZero() && f.CreatedTo.IsZero() {
		return nil
	}
	return func(p Payment) bool {
		day := DateOf(p.Created)
		return (f.TPPID == "" || p.TPPID == f.TPPID) && (customerID == "" || p.CustomerID == customerID) &&
			(f.Product == "" || p.Product == f.Product) &&
			(f.CreatedFrom.IsZero() || !day.Before(f.CreatedFrom)) && (f.CreatedTo.IsZero() || !day.After(f.CreatedTo))
	}
}

// PaymentDetail is one payment as support staff read it: with the request
// body the TPP sent, fundsAvailable as of now, its status history, and the
// parties it names.
type PaymentDetail struct {
	Payment
	Parties
}

// Payment returns one payment with its request body and fundsAvailable as
// of now, and the parties it names, for the desktop screens and support
// staff.
func (s *Ops) Payment(id string) (PaymentDetail, error) { return s.paymentDetail("", id) }

// paymentDetail reads one payment of the TPP tppID (any TPP's when
// empty); another TPP's is unknown, as in every scoped read.
func (s *core) paymentDetail(tppID, id string) (PaymentDetail, error) {
	return read(s, "read payment", func(tx Tx) (d PaymentDetail, err error) {
		if d.Payment, err = tx.Payment(id); err != nil {
			return d, found(err, "payment", id)
		}
		if tppID != "" && d.Payment.TPPID != tppID {
			return d, unknown("payment", id)
		}
		if d.Request, err = tx.PaymentRequest(id); err != nil {
			return d, err
		}
		d.add(tx, d.Payment)
		return d, fundsNow(newLedger(tx), &d.Payment)
	})
}

// PaymentKind names a payment's product and service the way testers say
// them: NDCT or NCBCT, a standing order, a bulk payment of items items.
func PaymentKind(service, product string, items int) string {
	k := "NDCT"
	if product == ProductNCBCT {
		k = "NCBCT"
	}
	switch service {
	case ServicePeriodic:
		k += " standing order"
	case ServiceBulk:
		k += fmt.Sprintf(" bulk (%d)", items)
	}
	return k
}
