package bank

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"sandbank/bank/apierr"
)

// AISRequest is who asks for account information, as the request's headers
// say.
type AISRequest struct {
	TPPID       string
	PSUID       string // PSU-ID
	CorporateID string // PSU-Corporate-ID
	SessionID   string // TPP-Session-ID
	PSUPresent  bool   // PSU-IP-Address was given: the PSU takes part now
	// ConsentID (Consent-ID) names the consent to read under; the PSU and
	// context are its own, and PSU-ID may then be left out.
	ConsentID string
}

// Access is what the access rules found for a request: whose data, in
// which context, through which grant, and whether an SCA session is valid
// now.
type Access struct {
	Customer     Customer
	Context      string // ContextPrivate or an agreement id
	Grant        Grant
	SessionValid bool
}

// Corporate reports whether the access is in a corporate context.
func (a Access) Corporate() bool { return a.Context != ContextPrivate }

// Uses of an account that PSU-not-present requests may make a few times a
// day.
const (
	UseBalances     = "balances"
	UseTransactions = "transactions"
	UseDetails      = "details"
)

// DailyUses is how many balances, transactions or transaction details
// calls a TPP may make per PSU, account and day without the PSU present.
const DailyUses = 4

// scaCures is the 401 that a new SCA cures.
func scaCures(code, format string, args ...any) *apierr.Error {
	e := apierr.Errorf(code, format, args...)
	e.NeedSCA = true
	return e
}

// access applies the rules of docs/ACCOUNT-INFORMATION.md 5.1 that do not depend on the account:
// who the PSU is, in which context, and whether the TPP holds a grant that
// has not expired.
func (s *core) access(tx Tx, r AISRequest) (Access, error) {
	if r.ConsentID != "" {
		return s.consentAccess(tx, r)
	}
	var a Access
	if r.PSUID == "" {
		return a, scaCures(apierr.CodeConsentInvalid, "the request names no PSU (PSU-ID) and no consent (Consent-ID); complete SCA at the scaRedirect link and send the psu-id it gives back")
	}
	c, err := knownPSU(tx, r.TPPID, r.PSUID, apierr.CodeConsentInvalid)
	if err != nil {
		return a, err
	}
	a.Customer, a.Context = c, ContextPrivate
	if r.CorporateID != "" {
		corp, err := tx.PSU(r.CorporateID)
		if err != nil || corp.TPPID != r.TPPID || corp.CustomerID != c.ID || corp.AgreementID == "" {
			return a, scaCures(apierr.CodeConsentInvalid, "PSU-Corporate-ID %s is not a corporate context of this PSU for this TPP", r.CorporateID)
		}
		a.Context = corp.AgreementID
	}
	a.Grant, err = tx.Grant(r.TPPID, a.Customer.ID, a.Context)
	if errors.Is(err, ErrNotFound) {
		if a.Context == ContextPrivate {
			if corporate, err := s.hasCorporateGrant(tx, r.TPPID, a.Customer.ID); err != nil {
				return a, err
			} else if corporate {
				return a, apierr.PathError(apierr.CodeCorporateIDRequired, "PSU-Corporate-ID", "this PSU's consent is for a corporate context; send the psu-corporate-id of the SCA redirect as PSU-Corporate-ID")
			}
		}
		return a, scaCures(apierr.CodeConsentInvalid, "there is no consent for this PSU in this context; complete SCA at the scaRedirect link")
	} else if err != nil {
		return a, err
	}
	return a, s.grantValid(tx, r, &a)
}

// knownPSU is the customer a PSU-ID stands for: a PSU id this bank gave
// the TPP at SCA (spec 5.8). One that is not a UUID is 400 FORMAT_ERROR,
// since it can never be valid. One the bank never gave this TPP (unknown,
// another TPP's, a PSU-Corporate-ID) or whose customer is gone is a 401
// with code, which a new SCA cures: account information answers
// CONSENT_INVALID (there is no consent for it), a signing basket
// PSU_CREDENTIALS_INVALID (the PSU-ID cannot be matched). Another TPP's
// PSU-ID looks like one that does not exist, so no TPP learns which ids
// exist.
func knownPSU(tx Tx, tppID, psuID, code string) (Customer, error) {
	if _, err := uuid.Parse(psuID); err != nil {
		return Customer{}, apierr.PathError(apierr.CodeFormatError, "PSU-ID", "must be the UUID the SCA redirect gave as psu-id")
	}
	psu, err := tx.PSU(psuID)
	if errors.Is(err, ErrNotFound) || (err == nil && (psu.TPPID != tppID || psu.AgreementID != "")) {
		return Customer{}, scaCures(code, "PSU-ID %s is not a PSU of this TPP; complete SCA to get one", psuID)
	} else if err != nil {
		return Customer{}, err
	}
	c, err := tx.Customer(psu.CustomerID)
	if errors.Is(err, ErrNotFound) {
		return c, scaCures(code, "the PSU of PSU-ID %s no longer exists in the sandbox", psuID)
	}
	return c, err
}

// consentAccess is the access of a request that names its consent
// (Consent-ID): the consent's PSU, context and grant. A PSU-ID or
// PSU-Corporate-ID sent beside it must name the same. A Consent-ID the
// bank never gave this TPP is 403 CONSENT_UNKNOWN, as Berlin Group maps
// it: another TPP's consent is unknown to the caller alike, so no TPP
// learns which ids exist. A consent of the TPP that cannot be used is 401
// CONSENT_INVALID or CONSENT_EXPIRED, which a new SCA cures.
func (s *core) consentAccess(tx Tx, r AISRequest) (Access, error) {
	var a Access
	cn, err := tx.Consent(r.ConsentID)
	if errors.Is(err, ErrNotFound) || (err == nil && cn.TPPID != r.TPPID) {
		return a, apierr.PathError(apierr.CodeConsentUnknown, "Consent-ID", fmt.Sprintf("%s is no consent this bank gave your TPP; send the consentId of your own POST /v1/consents, or start one", apierr.Clip(r.ConsentID)))
	} else if err != nil {
		return a, err
	}
	switch st := cn.ConsentStatus(s.Now()); st {
	case ConsentValid:
	case ConsentExpired:
		return a, scaCures(apierr.CodeConsentExpired, "consent %s expired on %s (180 days); renew it with SCA at the scaRedirect link", cn.ID, cn.ValidUntil().In(Oslo).Format("2006-01-02"))
	default:
		return a, scaCures(apierr.CodeConsentInvalid, "consent %s is %s, not valid; start a new one with POST /v1/consents", cn.ID, st)
	}
	if r.PSUID != "" && r.PSUID != PSUID(r.TPPID, cn.CustomerID) {
		return a, scaCures(apierr.CodeConsentInvalid, "PSU-ID %s is not the PSU of consent %s; send the psu-id of that consent's SCA, or leave PSU-ID out", apierr.Clip(r.PSUID), cn.ID)
	}
	if r.CorporateID != "" && (cn.Context == ContextPrivate || r.CorporateID != CorporateID(r.TPPID, cn.CustomerID, cn.Context)) {
		return a, scaCures(apierr.CodeConsentInvalid, "PSU-Corporate-ID %s is not the corporate context of consent %s", apierr.Clip(r.CorporateID), cn.ID)
	}
	if a.Customer, err = tx.Customer(cn.CustomerID); errors.Is(err, ErrNotFound) {
		return a, scaCures(apierr.CodeConsentInvalid, "the PSU of consent %s no longer exists in the sandbox", cn.ID)
	} else if err != nil {
		return a, err
	}
	a.Context = cn.Context
	a.Grant, err = tx.Grant(r.TPPID, cn.CustomerID, cn.Context)
	if errors.Is(err, ErrNotFound) || (err == nil && a.Grant.ID != cn.GrantID) {
		return a, scaCures(apierr.CodeConsentInvalid, "the grant of consent %s is gone; start a new consent", cn.ID)
	} else if err != nil {
		return a, err
	}
	return a, s.grantValid(tx, r, &a)
}

// grantValid refuses an expired grant and notes whether an SCA session is
// valid now.
func (s *core) grantValid(tx Tx, r AISRequest, a *Access) error {
	now := s.Now()
	if now.After(a.Grant.Expires()) {
		return scaCures(apierr.CodeConsentExpired, "the consent of %s expired on %s (180 days); renew it with SCA at the scaRedirect link", a.Grant.Created.Format("2006-01-02"), a.Grant.Expires().Format("2006-01-02"))
	}
	if sess, err := tx.Session(r.TPPID, a.Customer.ID); err == nil {
		a.SessionValid = r.SessionID != "" && sess.SessionID == r.SessionID && now.Before(sess.Expires)
	} else if !errors.Is(err, ErrNotFound) {
		return err
	}
	return nil
}

func (s *core) hasCorporateGrant(tx Tx, tppID, customerID string) (bool, error) {
	grants, err := tx.Grants()
	if err != nil {
		return false, err
	}
	for _, g := range grants {
		if g.TPPID == tppID && g.CustomerID == customerID && g.Context != ContextPrivate {
			return true, nil
		}
	}
	return false, nil
}

// granted checks that the grant covers an account (404 otherwise, as for
// an account that does not exist).
func granted(a Access, accountID string) error {
	if !slices.Contains(a.Grant.Accounts, accountID) {
		return apierr.Errorf(apierr.CodeResourceUnknown, "account %s is unknown or not in this consent", apierr.Clip(accountID))
	}
	return nil
}

// use counts a PSU-not-present use of an account and refuses the fifth of a
// day (429 ACCESS_EXCEEDED). Uses with the PSU present are not counted.
func (s *core) use(tx Tx, r AISRequest, a Access, accountID, kind string) error {
	if r.PSUPresent {
		return nil
	}
	n, err := tx.CountUse(s.Today(), UseKey(r.TPPID, a.Customer.ID, accountID, kind))
	if err != nil {
		return err
	}
	if n > DailyUses {
		return apierr.Errorf(apierr.CodeAccessExceeded, "without the PSU present (no PSU-IP-Address) %s of an account may be read %d times a day; this is call %d today. Send PSU-IP-Address when the PSU takes part", kind, DailyUses, n)
	}
	return nil
}

// UseKey is the key of a usage counter: the TPP, the PSU, the account and
// the kind of use.
func UseKey(tppID, customerID, accountID, kind string) string {
	return strings.Join([]string{tppID, customerID, accountID, kind}, "\x00")
}

// aisRead runs fn on the access a request has. A call that counts
// (counted) without the PSU present runs in a write transaction, to count
// its use, and fn may then run more than once (see core.update); every
// other call reads only.
func (s *core) aisRead(r AISRequest, what string, counted bool, fn func(Tx, Access) error) (Access, error) {
	var a Access
	run := s.view
	if counted && !r.PSUPresent {
		run = s.update
	}
	err := run(what, func(tx Tx) error {
		var err error
		if a, err = s.access(tx, r); err != nil {
			return err
		}
		return fn(tx, a)
	})
	return a, err
}

// Accounts lists the accounts (not card accounts) of the consent.
func (s *PSD2) Accounts(r AISRequest) ([]Account, Access, error) {
	var out []Account
	a, err := s.aisRead(r, "list accounts", false, func(tx Tx, a Access) error {
		out = nil
		for _, id := range a.Grant.Accounts {
			acct, err := tx.Account(id)
			if errors.Is(err, ErrNotFound) {
				continue // a card account, or deleted since
			} else if err != nil {
				return err
			}
			out = append(out, acct)
		}
		return nil
	})
	return out, a, err
}

// Account returns one account of the consent.
func (s *PSD2) Account(r AISRequest, id string) (Account, Access, error) {
	return s.aisAccount(r, id, "")
}

// Balances returns an account of the consent for its balances (a
// PSU-not-present call counts against the daily limit).
func (s *PSD2) Balances(r AISRequest, id string) (Account, Access, error) {
	return s.aisAccount(r, id, UseBalances)
}

func (s *core) aisAccount(r AISRequest, id, use string) (Account, Access, error) {
	var acct Account
	a, err := s.aisRead(r, "read account", use != "", func(tx Tx, a Access) error {
		if err := granted(a, id); err != nil {
			return err
		}
		var err error
		if acct, err = tx.Account(id); err != nil {
			return found(err, "account", id)
		}
		if use != "" {
			return s.use(tx, r, a, id, use)
		}
		return nil
	})
	return acct, a, err
}

// AISQuery selects transactions of an account: dates, paging and booking
// status (booked, pending, both or all).
type AISQuery struct {
	TxQuery
	Status string
	// WithBalance asks for the account's balances beside its transactions.
	WithBalance bool
}

// AISTxPage is a page of an account's transactions for the API.
type AISTxPage struct {
	Account Account
	Booked  TxPage
	Pending []Transaction
	// From is the start of the booked dates the page covers: the query's
	// dateFrom, or 90 days back when the TPP has no SCA session and gave
	// none.
	From Date
}

// MaxAISPageSize is the largest (and default) page of transactions.
const MaxAISPageSize = 200

// Transactions returns a page of an account's transactions: booked
// items by date and page, and every pending item. Transactions more than 90
// days back need an SCA session valid now (401 SCA_INVALID); without
// dateFrom and without a session, the page starts 90 days back.
func (s *PSD2) Transactions(r AISRequest, id string, q AISQuery) (AISTxPage, Access, error) {
	var page AISTxPage
	from, a, err := s.transactionPage(r, id, "transactions", q, func(tx Tx) (err error) {
		page = AISTxPage{}
		page.Account, err = tx.Account(id)
		return found(err, "account", id)
	}, func(tx Tx, q AISQuery) (err error) {
		if q.Status != "pending" {
			if page.Booked, err = tx.Transactions(id, q.TxQuery); err != nil {
				return err
			}
		}
		if q.Status != "booked" {
			page.Pending, err = tx.PendingTransactions(id)
		}
		return err
	})
	page.From = from
	return page, a, err
}

// transactionPage reads a page of transactions of the account or card
// account id under the rules both share: the page's bounds, the grant,
// that the resource exists (resource), the 90-day rule and the daily use;
// then items reads the page for the query. It returns where the booked
// dates start (AISTxPage.From). resource and items may run more than once
// (see core.update): they assign what they read.
func (s *core) transactionPage(r AISRequest, id, what string, q AISQuery, resource func(Tx) error, items func(Tx, AISQuery) error) (Date, Access, error) {
	if q.Limit == 0 {
		q.Limit = MaxAISPageSize
	}
	if err := checkQuery(q.TxQuery, MaxAISPageSize); err != nil {
		return Date{}, Access{}, err
	}
	var from Date
	a, err := s.aisRead(r, "list "+what, true, func(tx Tx, a Access) error {
		if err := granted(a, id); err != nil {
			return err
		}
		if err := resource(tx); err != nil {
			return err
		}
		q := q // the query of this run: historyFrom sets its start
		if err := s.historyFrom(&q, a); err != nil {
			return err
		}
		from = q.From
		if err := s.use(tx, r, a, id, UseTransactions); err != nil {
			return err
		}
		return items(tx, q)
	})
	return from, a, err
}

// historyFrom applies the 90-day rule to a query: dateFrom more than 90
// days back needs an SCA session valid now (401 SCA_INVALID); without
// dateFrom and without a session, the query starts 90 days back.
func (s *core) historyFrom(q *AISQuery, a Access) error {
	if a.SessionValid {
		return nil
	}
	limit := s.Today().AddDays(-HistoryDaysWithoutSCA)
	if q.From.IsZero() {
		q.From = limit
		return nil
	}
	if q.From.Before(limit) {
		return scaCures(apierr.CodeSCAInvalid, "dateFrom %s is more than 90 days back; that needs an SCA session valid now under this TPP-Session-ID. Complete SCA at the scaRedirect link, or start at %s", q.From, limit)
	}
	return nil
}

// Transaction returns one transaction of an account with its details.
// Without the PSU present it counts against the daily limit and needs a
// consent at most 90 days old.
func (s *PSD2) Transaction(r AISRequest, accountID, txID string) (Account, Transaction, Access, error) {
	var acct Account
	var t Transaction
	a, err := s.aisRead(r, "read transaction", true, func(tx Tx, a Access) error {
		if err := granted(a, accountID); err != nil {
			return err
		}
		var err error
		if acct, err = tx.Account(accountID); err != nil {
			return found(err, "account", accountID)
		}
		if !r.PSUPresent && s.Now().After(a.Grant.Created.Add(DetailsGrantAge)) {
			return scaCures(apierr.CodeConsentExpired, "without the PSU present (no PSU-IP-Address) transaction details need a consent at most 90 days old; this one is from %s. Renew it with SCA", a.Grant.Created.Format("2006-01-02"))
		}
		if err := s.use(tx, r, a, accountID, UseDetails); err != nil {
			return err
		}
		t, err = tx.Transaction(accountID, txID)
		return found(err, "transaction", txID)
	})
	return acct, t, a, err
}

// CardAccounts lists the card accounts of the consent.
func (s *PSD2) CardAccounts(r AISRequest) ([]CardAccount, Access, error) {
	var out []CardAccount
	a, err := s.aisRead(r, "list card accounts", false, func(tx Tx, a Access) error {
		out = nil
		for _, id := range a.Grant.Accounts {
			c, err := tx.CardAccount(id)
			if errors.Is(err, ErrNotFound) {
				continue
			} else if err != nil {
				return err
			}
			out = append(out, c)
		}
		return nil
	})
	return out, a, err
}

// CardAccount returns a card account of the consent; use, when not
// empty, counts a PSU-not-present call.
func (s *PSD2) CardAccount(r AISRequest, id, use string) (CardAccount, Access, error) {
	var c CardAccount
	a, err := s.aisRead(r, "read card account", use != "", func(tx Tx, a Access) error {
		if err := granted(a, id); err != nil {
			return err
		}
		var err error
		if c, err = tx.CardAccount(id); err != nil {
			return found(err, "card account", id)
		}
		if use != "" {
			return s.use(tx, r, a, id, use)
		}
		return nil
	})
	return c, a, err
}

// AISCardPage is a page of a card account's transactions for the API.
type AISCardPage struct {
	Card CardAccount
	CardTxPage
	// From is the start of the booked dates the page covers (see
	// AISTxPage).
	From Date
}

// CardTransactions returns a page of a card account's transactions and
// the pending ones within the page's dates (pendingIn), under the same
// rules as Transactions.
func (s *PSD2) CardTransactions(r AISRequest, id string, q AISQuery) (AISCardPage, Access, error) {
	var page AISCardPage
	from, a, err := s.transactionPage(r, id, "card transactions", q, func(tx Tx) (err error) {
		page = AISCardPage{}
		page.Card, err = tx.CardAccount(id)
		return found(err, "card account", id)
	}, func(tx Tx, q AISQuery) (err error) {
		if page.CardTxPage, err = tx.CardTransactions(id, q.TxQuery); err != nil {
			return err
		}
		page.Pending = pendingIn(page.Pending, q.TxQuery)
		if q.Status == "booked" {
			page.Pending = nil
		}
		if q.Status == "pending" {
			page.Booked, page.Total = nil, 0
		}
		return nil
	})
	page.From = from
	return page, a, err
}

// String describes the access for logs and the traffic screen.
func (a Access) String() string {
	if a.Customer.ID == "" {
		return ""
	}
	ctx := "private"
	if a.Corporate() {
		ctx = "corporate " + a.Context
	}
	if a.Grant.ID == "" {
		return fmt.Sprintf("%s (%s), %s, no consent", a.Customer.Name, a.Customer.Number, ctx)
	}
	return fmt.Sprintf("%s (%s), %s, grant %s", a.Customer.Name, a.Customer.Number, ctx, a.Grant.ID)
}
