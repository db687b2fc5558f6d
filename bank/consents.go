package bank

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"sandbank/bank/apierr"
)

// GrantInfo is a grant as the Consents & sessions screen shows it.
type GrantInfo struct {
	Grant
	Customer Customer
	// PSUID and CorporateID are the ids the TPP sends for this grant.
	PSUID, CorporateID string
	// ContextName is "Private" or the agreement's owner and name.
	ContextName string
	// AccountNames label the granted accounts (a deleted one by its id).
	AccountNames []string
	Expired      bool
}

// SessionInfo is an SCA session as the screen shows it.
type SessionInfo struct {
	Session
	Customer Customer
	Valid    bool
}

// AuthorisationInfo is an open authorisation as the screen shows it.
type AuthorisationInfo struct {
	Authorisation
	Customer Customer // once the PSU is identified
	// Expired is true past the hour: the PSU's next visit fails it.
	Expired bool
}

// ConsentsOverview is every grant, SCA session and open authorisation, as
// of Now (the sandbox clock).
type ConsentsOverview struct {
	Now            time.Time
	Grants         []GrantInfo
	Sessions       []SessionInfo
	Authorisations []AuthorisationInfo // open ones, oldest first
}

// Consents lists the grants, SCA sessions and open authorisations of every
// TPP, as of one moment: the Consents & sessions screen.
func (s *Ops) Consents() (ConsentsOverview, error) {
	out := ConsentsOverview{Now: s.Now()}
	err := s.view("list consents", func(tx Tx) error {
		o := newOverview(tx, out.Now)
		var err error
		if out.Grants, err = o.grants(GrantFilter{}); err != nil {
			return err
		}
		if out.Sessions, err = o.sessions(); err != nil {
			return err
		}
		out.Authorisations, err = o.authorisations()
		return err
	})
	return out, err
}

// GrantFilter selects grants; each field that is set narrows the list.
type GrantFilter struct {
	// TPPID is the TPP the grants are for.
	TPPID string
	// PSUID is the PSU: their customerNumber, or a PSU-ID or
	// PSU-Corporate-ID the bank gave a TPP.
	PSUID string
}

// Grants lists the grants a filter selects, as the Consents & sessions
// screen shows them, ordered by TPP, PSU and context.
func (s *Ops) Grants(f GrantFilter) ([]GrantInfo, error) { return s.grants(f) }

func (s *core) grants(f GrantFilter) ([]GrantInfo, error) {
	var v apierr.Violations
	checkPSUFilter(&v, f.PSUID)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return read(s, "list grants", func(tx Tx) ([]GrantInfo, error) { return newOverview(tx, s.Now()).grants(f) })
}

// Sessions lists the SCA sessions of every TPP.
func (s *Ops) Sessions() ([]SessionInfo, error) {
	return read(s.core, "list SCA sessions", func(tx Tx) ([]SessionInfo, error) { return newOverview(tx, s.Now()).sessions() })
}

// OpenAuthorisations lists the authorisations that wait for a PSU,
// oldest first.
func (s *Ops) OpenAuthorisations() ([]AuthorisationInfo, error) {
	return read(s.core, "list authorisations", func(tx Tx) ([]AuthorisationInfo, error) { return newOverview(tx, s.Now()).authorisations() })
}

// overview reads the parts of the Consents & sessions overview in one
// transaction, as of now, looking each customer up once.
type overview struct {
	tx    Tx
	now   time.Time
	names map[string]Customer
}

func newOverview(tx Tx, now time.Time) *overview {
	return &overview{tx: tx, now: now, names: map[string]Customer{}}
}

// customer returns a customer by id; a deleted one by its id only.
func (o *overview) customer(id string) Customer {
	if c, ok := o.names[id]; ok {
		return c
	}
	c, err := o.tx.Customer(id)
	if err != nil {
		c = Customer{ID: id, Name: "(deleted customer)"}
	}
	o.names[id] = c
	return c
}

func (o *overview) grants(f GrantFilter) ([]GrantInfo, error) {
	customerID := ""
	if f.PSUID != "" {
		id, ok, err := psuCustomer(o.tx, f.PSUID)
		if err != nil || !ok {
			return []GrantInfo{}, err // names no PSU the bank knows: no grant is theirs
		}
		customerID = id
	}
	grants, err := o.tx.Grants()
	if err != nil {
		return nil, err
	}
	out := []GrantInfo{}
	for _, g := range grants {
		if (f.TPPID != "" && g.TPPID != f.TPPID) || (customerID != "" && g.CustomerID != customerID) {
			continue
		}
		info := GrantInfo{Grant: g, Customer: o.customer(g.CustomerID), PSUID: PSUID(g.TPPID, g.CustomerID), ContextName: "Private", Expired: o.now.After(g.Expires())}
		if g.Context != ContextPrivate {
			info.CorporateID = CorporateID(g.TPPID, g.CustomerID, g.Context)
			info.ContextName = "Corporate " + g.Context
			if a, err := o.tx.Agreement(g.Context); err == nil {
				info.ContextName = "Corporate: " + o.customer(a.OwnerID).Name + " (" + a.Name + ")"
			}
		}
		for _, id := range g.Accounts {
			info.AccountNames = append(info.AccountNames, accountName(o.tx, id))
		}
		out = append(out, info)
	}
	slices.SortStableFunc(out, func(a, b GrantInfo) int {
		return strings.Compare(a.TPPID+a.Customer.Name+a.ContextName, b.TPPID+b.Customer.Name+b.ContextName)
	})
	return out, nil
}

func (o *overview) sessions() ([]SessionInfo, error) {
	sessions, err := o.tx.Sessions()
	if err != nil {
		return nil, err
	}
	out := []SessionInfo{}
	for _, ss := range sessions {
		out = append(out, SessionInfo{Session: ss, Customer: o.customer(ss.CustomerID), Valid: o.now.Before(ss.Expires)})
	}
	return out, nil
}

func (o *overview) authorisations() ([]AuthorisationInfo, error) {
	auths, err := o.tx.Authorisations()
	if err != nil {
		return nil, err
	}
	out := []AuthorisationInfo{}
	for _, a := range auths {
		if a.Open() {
			info := AuthorisationInfo{Authorisation: a, Expired: o.now.After(a.Expires())}
			if a.CustomerID != "" {
				info.Customer = o.customer(a.CustomerID)
			}
			out = append(out, info)
		}
	}
	return out, nil
}

// accountName labels an account or card account of a grant.
func accountName(tx Tx, id string) string {
	if a, err := tx.Account(id); err == nil {
		return a.Name + " " + a.IBAN
	}
	if c, err := tx.CardAccount(id); err == nil {
		return c.Name + " " + c.MaskedPan
	}
	return id + " (deleted)"
}

// RevokeGrant deletes a grant: the TPP's next account-information request
// for that PSU and context gets 401 CONSENT_INVALID and a fresh SCA link.
func (s *Ops) RevokeGrant(id string) error { return s.revokeGrant("", id) }

// revokeGrant revokes a grant of the TPP tppID, or of any TPP when empty;
// another TPP's grant is unknown.
func (s *core) revokeGrant(tppID, id string) error {
	return s.write("revoke grant", func(tx Tx) error {
		grants, err := tx.Grants()
		if err != nil {
			return err
		}
		for _, g := range grants {
			if g.ID == id && (tppID == "" || g.TPPID == tppID) {
				if err := endConsent(tx, g, ConsentRevoked, s.Now()); err != nil {
					return err
				}
				return tx.DeleteGrant(g)
			}
		}
		return unknown("grant", id)
	}, Event{Kind: EventConsents, ID: id})
}

// ConsentsKept is how long a consent resource is kept after it was
// created: the life of its grant and a week.
const ConsentsKept = GrantLifetime + 7*24*time.Hour

// StartConsent creates a TPP's consent resource (POST /v1/consents) and
// starts its SCA: the PSU chooses the accounts to share.
func (s *PSD2) StartConsent(r SCARequest) (Consent, Authorisation, error) {
	r.Kind = AuthConsent
	var cn Consent
	a, err := change(s.core, "start consent", func(tx Tx) (a Authorisation, err error) {
		now := s.Now()
		if a, err = s.newAuthorisation(tx, r, now); err != nil {
			return a, err
		}
		if _, err := tx.DeleteConsentsBefore(now.Add(-ConsentsKept)); err != nil {
			return a, err
		}
		seq, err := tx.NextSeq(KindConsent)
		if err != nil {
			return a, err
		}
		cn = Consent{ID: FormatID(KindConsent, 0, seq), TPPID: r.TPPID, Created: now, AuthorisationIDs: []string{a.ID}, Status: ConsentReceived}
		a.ConsentID = cn.ID
		if err := tx.PutConsent(cn); err != nil {
			return a, err
		}
		return a, tx.PutAuthorisation(a)
	}, Event{Kind: EventConsents})
	return cn, a, err
}

// ConsentView is a consent as its TPP reads it: its status now, its
// validUntil and lastActionDate and, while it gives its grant, the
// accounts and card accounts it covers.
type ConsentView struct {
	Consent
	Status       string
	Accounts     []Account
	CardAccounts []CardAccount
	// Until is the consent's validUntil: the last day of its grant once
	// the PSU approved it; while its SCA runs, the last day it would have
	// if the PSU approved now (the bank gives GrantLifetime and ignores a
	// requested validUntil); for a consent that ended without a grant, the
	// day it ended.
	Until Date
	// LastAction is its lastActionDate: the day of the last event that
	// changed its status (created, approved, rejected, deleted, replaced,
	// revoked, expired). Reading accounts with it changes no status and
	// is no action.
	LastAction Date
}

// consentDates returns the validUntil and lastActionDate of a consent
// whose status at now is status.
func consentDates(cn Consent, status string, now time.Time) (until, last Date) {
	switch {
	case !cn.Granted.IsZero():
		until = DateOf(cn.ValidUntil())
	case status == ConsentReceived:
		until = DateOf(now.Add(GrantLifetime))
	default:
		until = DateOf(cn.Ended)
	}
	at := cn.Created
	for _, t := range []time.Time{cn.Granted, cn.Ended} {
		if t.After(at) {
			at = t
		}
	}
	if status == ConsentExpired && cn.Ended.IsZero() {
		at = cn.ValidUntil()
	}
	return until, DateOf(at)
}

// Consent returns a TPP's consent resource. Another TPP's consent, or one
// that was pruned, is 404 RESOURCE_UNKNOWN.
func (s *PSD2) Consent(tppID, id string) (ConsentView, error) {
	return read(s.core, "read consent", func(tx Tx) (v ConsentView, err error) {
		if v.Consent, err = ownConsent(tx, tppID, id); err != nil {
			return v, err
		}
		now := s.Now()
		v.Status = v.ConsentStatus(now)
		v.Until, v.LastAction = consentDates(v.Consent, v.Status, now)
		if v.Status != ConsentValid && v.Status != ConsentExpired {
			return v, nil
		}
		for _, id := range v.Consent.Accounts {
			if a, err := tx.Account(id); err == nil {
				v.Accounts = append(v.Accounts, a)
			} else if c, err := tx.CardAccount(id); err == nil {
				v.CardAccounts = append(v.CardAccounts, c)
			}
		}
		return v, nil
	})
}

// ConsentAuthorisation returns an authorisation of a TPP's consent.
func (s *PSD2) ConsentAuthorisation(tppID, consentID, authID string) (Authorisation, error) {
	var a Authorisation
	err := s.readAuthorisation("read consent authorisation", func(tx Tx, mayWrite bool) error {
		cn, err := ownConsent(tx, tppID, consentID)
		if err != nil {
			return err
		}
		if !slices.Contains(cn.AuthorisationIDs, authID) {
			return apierr.Errorf(apierr.CodeSCANotFound, "consent %s has no authorisation %s", cn.ID, apierr.Clip(authID))
		}
		a, _, err = s.loadAuthorisation(tx, authID, mayWrite)
		return err
	}, Event{Kind: EventConsents})
	return a, err
}

func ownConsent(tx Tx, tppID, id string) (Consent, error) {
	cn, err := tx.Consent(id)
	if errors.Is(err, ErrNotFound) || (err == nil && cn.TPPID != tppID) {
		return Consent{}, apierr.Errorf(apierr.CodeResourceUnknown, "there is no consent %s of your TPP", apierr.Clip(id))
	}
	return cn, err
}

// DeleteConsent ends a TPP's consent (DELETE /v1/consents/{consentId}):
// the grant it gave goes, as when the operator revokes it, and the consent
// is terminatedByTpp. A consent that is not valid any more is left as it
// is.
func (s *PSD2) DeleteConsent(tppID, id string) error {
	return s.write("delete consent", func(tx Tx) error {
		cn, err := ownConsent(tx, tppID, id)
		if err != nil {
			return err
		}
		now := s.Now()
		switch cn.ConsentStatus(now) {
		case ConsentReceived:
			cn.Status, cn.Ended = ConsentTerminated, now
			return tx.PutConsent(cn)
		case ConsentValid, ConsentExpired:
		default:
			return nil
		}
		g, err := tx.Grant(cn.TPPID, cn.CustomerID, cn.Context)
		if errors.Is(err, ErrNotFound) || (err == nil && g.ID != cn.GrantID) {
			cn.Status, cn.Ended = ConsentTerminated, now
			return tx.PutConsent(cn)
		} else if err != nil {
			return err
		}
		if err := endConsent(tx, g, ConsentTerminated, now); err != nil {
			return err
		}
		return tx.DeleteGrant(g)
	}, Event{Kind: EventConsents, ID: id})
}

// pruneAuthorisations drops authorisations created more than
// AuthorisationsKept before now, oldest first, so that a test suite that
// starts SCA all day does not grow the data file without end.
func pruneAuthorisations(tx Tx, now time.Time) error {
	_, err := tx.DeleteAuthorisationsBefore(now.Add(-AuthorisationsKept))
	return err
}

// AuthorisationsKept is how long an authorisation is kept after it
// started.
const AuthorisationsKept = 7 * 24 * time.Hour

// consent is the subject of a consent's SCA (AuthConsent): the PSU ticks
// accounts in a context, and approval grants the TPP those accounts for
// GrantLifetime, replacing its earlier grant for the same PSU and context.
type consent struct{ core *core }

func (consent) contexts(tx Tx, a Authorisation) ([]Option, error) {
	return contextOptions(tx, a.CustomerID)
}

func (consent) noContext(Tx, Authorisation) (string, string, error) { return "", "", nil }

func (consent) identifyOnly() bool { return false }

func (consent) show(tx Tx, a Authorisation, v *SCAView) error {
	v.Step = StepConsent
	accounts, err := accountOptions(tx, a.CustomerID, a.Context)
	v.Accounts = accounts
	return err
}

func (c consent) approve(tx Tx, a *Authorisation, in SCAInput) (approval, error) {
	offered, err := accountOptions(tx, a.CustomerID, a.Context)
	if err != nil {
		return approval{}, err
	}
	var chosen []string
	for _, id := range in.Accounts {
		if !hasOption(offered, id) {
			return approval{problem: fmt.Sprintf("Account %s cannot be granted in this context.", apierr.Clip(id))}, nil
		}
		if !slices.Contains(chosen, id) {
			chosen = append(chosen, id)
		}
	}
	if len(chosen) == 0 {
		return approval{problem: "Tick at least one account, or reject."}, nil
	}
	a.Accounts = chosen
	now := c.core.Now()
	g := Grant{TPPID: a.TPPID, CustomerID: a.CustomerID, Context: a.Context, Accounts: a.Accounts, Created: now, ConsentID: a.ConsentID}
	seq, err := tx.NextSeq(KindGrant)
	if err != nil {
		return approval{}, err
	}
	g.ID = FormatID(KindGrant, 0, seq)
	// The grant replaces the one of the same TPP, PSU and context, and so
	// ends the consent that gave it.
	if old, err := tx.Grant(g.TPPID, g.CustomerID, g.Context); err == nil {
		if err := endConsent(tx, old, ConsentTerminated, now); err != nil {
			return approval{}, err
		}
	} else if !errors.Is(err, ErrNotFound) {
		return approval{}, err
	}
	if err := tx.PutGrant(g); err != nil {
		return approval{}, err
	}
	return approval{}, updateConsent(tx, a.ConsentID, func(cn *Consent) {
		cn.Status, cn.Granted, cn.GrantID = ConsentValid, now, g.ID
		cn.CustomerID, cn.Context, cn.Accounts = g.CustomerID, g.Context, g.Accounts
	})
}

func (consent) reject(Tx, *Authorisation) (string, string, error) {
	return apierr.CodeSCAInvalid, "the PSU rejected the request", nil
}

// abandon marks the consent of a failed SCA rejected.
func (c consent) abandon(tx Tx, a Authorisation, _ string) error {
	now := c.core.Now()
	return updateConsent(tx, a.ConsentID, func(cn *Consent) {
		if cn.Status == ConsentReceived {
			cn.Status, cn.Ended = ConsentRejected, now
		}
	})
}

// updateConsent changes a stored consent; an authorisation made before
// consents were kept names none, and a pruned consent is gone: both are
// left alone.
func updateConsent(tx Tx, id string, change func(*Consent)) error {
	if id == "" {
		return nil
	}
	cn, err := tx.Consent(id)
	if errors.Is(err, ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	change(&cn)
	return tx.PutConsent(cn)
}

// endConsent ends the consent that gave a grant that goes away, with a
// status that says why.
func endConsent(tx Tx, g Grant, status string, now time.Time) error {
	return updateConsent(tx, g.ConsentID, func(cn *Consent) {
		if cn.Status == ConsentValid && cn.GrantID == g.ID {
			cn.Status, cn.Ended = status, now
		}
	})
}

// identification is the subject of GET /v1/users (AuthUsers): the PSU only
// identifies, so that a TPP that initiates payments learns its PSU-ID. It
// grants no account access.
type identification struct{}

func (identification) contexts(tx Tx, a Authorisation) ([]Option, error) {
	return contextOptions(tx, a.CustomerID)
}

func (identification) noContext(Tx, Authorisation) (string, string, error) { return "", "", nil }

func (identification) identifyOnly() bool { return true }

func (identification) show(_ Tx, _ Authorisation, v *SCAView) error {
	v.Step = StepConfirm
	return nil
}

func (identification) approve(Tx, *Authorisation, SCAInput) (approval, error) { return approval{}, nil }

func (identification) reject(Tx, *Authorisation) (string, string, error) {
	return apierr.CodeSCAInvalid, "the PSU rejected the request", nil
}

func (identification) abandon(Tx, Authorisation, string) error { return nil }

// contextOptions lists the contexts a customer may act in: private for a
// private customer, and each corporate agreement in which they hold an
// engagement with both REGISTER and VIEW.
func contextOptions(tx Tx, customerID string) ([]Option, error) {
	c, err := tx.Customer(customerID)
	if err != nil {
		return nil, err
	}
	var out []Option
	if c.IsPrivate() {
		out = append(out, Option{Value: ContextPrivate, Label: []string{"Privat:", c.Name}})
	}
	engagements, err := tx.EngagementsByCustomer(customerID)
	if err != nil {
		return nil, err
	}
	for _, e := range engagements {
		if !e.HasRole(RoleRegister) || !e.HasRole(RoleView) || hasOption(out, e.AgreementID) {
			continue
		}
		a, err := tx.Agreement(e.AgreementID)
		if err != nil {
			return nil, err
		}
		owner, err := tx.Customer(a.OwnerID)
		if err != nil {
			return nil, err
		}
		out = append(out, Option{Value: a.ID, Label: []string{"Bedrift:", owner.Name, "(" + a.Name + ")"}})
	}
	return out, nil
}

// accountOptions lists the accounts a customer may grant in a context:
// their own accounts and card accounts in private, the accounts of their
// REGISTER and VIEW engagements in a corporate agreement.
func accountOptions(tx Tx, customerID, context string) ([]Option, error) {
	var out []Option
	if context == ContextPrivate {
		accounts, err := tx.AccountsByOwner(customerID)
		if err != nil {
			return nil, err
		}
		for _, a := range accounts {
			out = append(out, Option{Value: a.ID, Label: []string{a.Name, a.IBAN, "(" + a.Currency + ")"}, Checked: true})
		}
		cards, err := tx.CardAccountsByOwner(customerID)
		if err != nil {
			return nil, err
		}
		for _, c := range cards {
			out = append(out, Option{Value: c.ID, Label: []string{c.Name, c.MaskedPan, "(" + c.Currency + ")"}, Checked: true})
		}
		return out, nil
	}
	engagements, err := tx.EngagementsByAgreement(context)
	if err != nil {
		return nil, err
	}
	for _, e := range engagements {
		if e.CustomerID != customerID || !e.HasRole(RoleRegister) || !e.HasRole(RoleView) {
			continue
		}
		a, err := tx.Account(e.AccountID)
		if err != nil {
			return nil, err
		}
		out = append(out, Option{Value: a.ID, Label: []string{a.Name, a.IBAN, "(" + a.Currency + ")"}, Checked: true})
	}
	return out, nil
}
