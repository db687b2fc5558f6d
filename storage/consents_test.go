package storage_test

import (
	"errors"
	"testing"
	"time"

	"sandbank/bank"
)

func TestConsentRecords(t *testing.T) {
	db := openDB(t)
	c1, c2 := bank.FormatID(bank.KindCustomer, 0, bank.FirstUserSeq), bank.FormatID(bank.KindCustomer, 0, bank.FirstUserSeq+1)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	update(t, db, func(tx bank.Tx) error {
		for _, g := range []bank.Grant{
			{ID: "g1", TPPID: "NO-FSA-1", CustomerID: c1, Context: bank.ContextPrivate, Accounts: []string{"a"}, Created: now},
			{ID: "g2", TPPID: "NO-FSA-1", CustomerID: c1, Context: "enc!!agr", Accounts: []string{"b"}, Created: now},
			{ID: "g3", TPPID: "NO-FSA-2", CustomerID: c1, Context: bank.ContextPrivate, Accounts: []string{"c"}, Created: now},
			// the same TPP, PSU and context again: replaces g1
			{ID: "g4", TPPID: "NO-FSA-1", CustomerID: c1, Context: bank.ContextPrivate, Accounts: []string{"d"}, Created: now},
		} {
			if err := tx.PutGrant(g); err != nil {
				return err
			}
		}
		if err := tx.PutSession(bank.Session{TPPID: "NO-FSA-1", CustomerID: c1, SessionID: "A", Expires: now}); err != nil {
			return err
		}
		if err := tx.PutSession(bank.Session{TPPID: "NO-FSA-1", CustomerID: c1, SessionID: "B", Expires: now}); err != nil {
			return err
		}
		return tx.PutPSU(bank.PSU{ID: "p1", TPPID: "NO-FSA-1", CustomerID: c2})
	})
	view(t, db, func(tx bank.Tx) error {
		g, err := tx.Grant("NO-FSA-1", c1, bank.ContextPrivate)
		if err != nil || g.ID != "g4" || g.Accounts[0] != "d" {
			t.Errorf("grant %+v, %v: want g4, which replaced g1", g, err)
		}
		if _, err := tx.Grant("NO-FSA-2", c1, "enc!!agr"); !errors.Is(err, bank.ErrNotFound) {
			t.Errorf("another TPP's context: %v", err)
		}
		list, err := tx.Grants()
		if err != nil || len(list) != 3 {
			t.Errorf("%d grants, %v", len(list), err)
		}
		s, err := tx.Session("NO-FSA-1", c1)
		if err != nil || s.SessionID != "B" {
			t.Errorf("session %+v, %v: want B, which replaced A", s, err)
		}
		if _, err := tx.Session("NO-FSA-2", c1); !errors.Is(err, bank.ErrNotFound) {
			t.Errorf("another TPP's session: %v", err)
		}
		if p, err := tx.PSU("p1"); err != nil || p.CustomerID != c2 {
			t.Errorf("PSU %+v, %v", p, err)
		}
		if _, err := tx.PSU(""); !errors.Is(err, bank.ErrNotFound) {
			t.Errorf("empty PSU id: %v", err)
		}
		return nil
	})
	update(t, db, func(tx bank.Tx) error {
		if err := tx.DeleteGrant(bank.Grant{TPPID: "NO-FSA-1", CustomerID: c1, Context: "enc!!agr"}); err != nil {
			return err
		}
		return tx.DeleteSession("NO-FSA-1", c1)
	})
	view(t, db, func(tx bank.Tx) error {
		if list, _ := tx.Grants(); len(list) != 2 {
			t.Errorf("%d grants after a delete", len(list))
		}
		if list, _ := tx.Sessions(); len(list) != 0 {
			t.Errorf("%d sessions after a delete", len(list))
		}
		return nil
	})
}

func TestCountUse_DropsEarlierDays(t *testing.T) {
	db := openDB(t)
	day := bank.Date{Year: 2026, Month: time.November, Day: 22}
	count := func(d bank.Date, key string) int {
		var n int
		update(t, db, func(tx bank.Tx) (err error) {
			n, err = tx.CountUse(d, key)
			return err
		})
		return n
	}
	for want := 1; want <= 3; want++ {
		if n := count(day, "k"); n != want {
			t.Fatalf("count %d, want %d", n, want)
		}
	}
	if n := count(day, "other"); n != 1 {
		t.Fatalf("another key counts %d", n)
	}
	if n := count(day.AddDays(1), "k"); n != 1 {
		t.Fatalf("the next day starts at %d", n)
	}
	// The earlier day's counters are gone.
	if n := count(day, "k"); n != 1 {
		t.Fatalf("a dropped day counts from %d", n)
	}
}

func TestDeleteAuthorisationsBefore(t *testing.T) {
	db := openDB(t)
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	update(t, db, func(tx bank.Tx) error {
		for i := range 10 {
			a := bank.Authorisation{ID: bank.FormatID(bank.KindAuthorisation, 0, uint64(i+1)), Created: start.Add(time.Duration(i) * 24 * time.Hour)}
			if err := tx.PutAuthorisation(a); err != nil {
				return err
			}
		}
		return nil
	})
	update(t, db, func(tx bank.Tx) error {
		n, err := tx.DeleteAuthorisationsBefore(start.Add(4 * 24 * time.Hour))
		if n != 4 {
			t.Errorf("deleted %d, want 4", n)
		}
		return err
	})
	view(t, db, func(tx bank.Tx) error {
		list, err := tx.Authorisations()
		if len(list) != 6 || !list[0].Created.Equal(start.Add(4*24*time.Hour)) {
			t.Errorf("%d left, first %v", len(list), list[0].Created)
		}
		if _, err := tx.Authorisation(bank.FormatID(bank.KindAuthorisation, 0, 1)); !errors.Is(err, bank.ErrNotFound) {
			t.Errorf("a pruned authorisation: %v", err)
		}
		return err
	})
}

// The lists a scenario export reads: every consent, PSU id, usage counter
// and TPP contact, in key order; PutUse sets a counter CountUse goes on
// from.
func TestScenarioLists(t *testing.T) {
	db := openDB(t)
	day := bank.Date{Year: 2026, Month: time.November, Day: 22}
	update(t, db, func(tx bank.Tx) error {
		for _, seq := range []uint64{2, 1} {
			if err := tx.PutConsent(bank.Consent{ID: bank.FormatID(bank.KindConsent, 0, seq), TPPID: "NO-FSA-1"}); err != nil {
				return err
			}
		}
		for _, id := range []string{"p2", "p1"} {
			if err := tx.PutPSU(bank.PSU{ID: id, TPPID: "NO-FSA-1"}); err != nil {
				return err
			}
		}
		for _, c := range []bank.TPPContact{{TPPID: "NO-FSA-2", Email: "b@example.com"}, {TPPID: "NO-FSA-1", Email: "a@example.com"}} {
			if err := tx.PutTPPContact(c); err != nil {
				return err
			}
		}
		if err := tx.PutUse(bank.UseCount{Day: day, Key: "k\x00b", Count: 3}); err != nil {
			return err
		}
		return tx.PutUse(bank.UseCount{Day: day, Key: "k\x00a", Count: 1})
	})
	view(t, db, func(tx bank.Tx) error {
		consents, err := tx.Consents()
		if err != nil || len(consents) != 2 || consents[0].ID != bank.FormatID(bank.KindConsent, 0, 1) {
			t.Errorf("consents %+v, %v", consents, err)
		}
		psus, err := tx.PSUs()
		if err != nil || len(psus) != 2 || psus[0].ID != "p1" {
			t.Errorf("PSUs %+v, %v", psus, err)
		}
		contacts, err := tx.TPPContacts()
		if err != nil || len(contacts) != 2 || contacts[0].Email != "a@example.com" {
			t.Errorf("contacts %+v, %v", contacts, err)
		}
		uses, err := tx.Uses()
		want := []bank.UseCount{{Day: day, Key: "k\x00a", Count: 1}, {Day: day, Key: "k\x00b", Count: 3}}
		if err != nil || len(uses) != 2 || uses[0] != want[0] || uses[1] != want[1] {
			t.Errorf("uses %+v, %v; want %+v", uses, err, want)
		}
		return nil
	})
	var n int
	update(t, db, func(tx bank.Tx) (err error) {
		n, err = tx.CountUse(day, "k\x00b")
		return err
	})
	if n != 4 {
		t.Errorf("CountUse after PutUse of 3 counts %d, want 4", n)
	}
}
