package bank

import (
	"slices"
	"strings"
	"time"
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
// TPP.
func (s *Service) Consents() (ConsentsOverview, error) {
	out := ConsentsOverview{Now: s.Now()}
	err := s.view("list consents", func(tx Tx) error {
		names := map[string]Customer{}
		customer := func(id string) Customer {
			if c, ok := names[id]; ok {
				return c
			}
			c, err := tx.Customer(id)
			if err != nil {
				c = Customer{ID: id, Name: "(deleted customer)"}
			}
			names[id] = c
			return c
		}
		grants, err := tx.Grants()
		if err != nil {
			return err
		}
		for _, g := range grants {
			info := GrantInfo{Grant: g, Customer: customer(g.CustomerID), PSUID: PSUID(g.TPPID, g.CustomerID), ContextName: "Private", Expired: out.Now.After(g.Expires())}
			if g.Context != ContextPrivate {
				info.CorporateID = CorporateID(g.TPPID, g.CustomerID, g.Context)
				info.ContextName = "Corporate " + g.Context
				if a, err := tx.Agreement(g.Context); err == nil {
					info.ContextName = "Corporate: " + customer(a.OwnerID).Name + " (" + a.Name + ")"
				}
			}
			for _, id := range g.Accounts {
				info.AccountNames = append(info.AccountNames, accountName(tx, id))
			}
			out.Grants = append(out.Grants, info)
		}
		slices.SortStableFunc(out.Grants, func(a, b GrantInfo) int {
			return strings.Compare(a.TPPID+a.Customer.Name+a.ContextName, b.TPPID+b.Customer.Name+b.ContextName)
		})
		sessions, err := tx.Sessions()
		if err != nil {
			return err
		}
		for _, ss := range sessions {
			out.Sessions = append(out.Sessions, SessionInfo{Session: ss, Customer: customer(ss.CustomerID), Valid: out.Now.Before(ss.Expires)})
		}
		auths, err := tx.Authorisations()
		if err != nil {
			return err
		}
		for _, a := range auths {
			if a.Open() {
				info := AuthorisationInfo{Authorisation: a, Expired: out.Now.After(a.Expires())}
				if a.CustomerID != "" {
					info.Customer = customer(a.CustomerID)
				}
				out.Authorisations = append(out.Authorisations, info)
			}
		}
		return nil
	})
	return out, err
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
func (s *Service) RevokeGrant(id string) error {
	return s.write("revoke grant", func(tx Tx) error {
		grants, err := tx.Grants()
		if err != nil {
			return err
		}
		for _, g := range grants {
			if g.ID == id {
				return tx.DeleteGrant(g)
			}
		}
		return unknown("grant", id)
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
