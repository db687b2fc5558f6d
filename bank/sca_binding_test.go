package bank_test

import (
	"fmt"
	"testing"

	"sandbank/bank"
)

// storedAuthorisation reads an authorisation from the data file.
func storedAuthorisation(t *testing.T, s interface {
	View(func(bank.Tx) error) error
}, id string) bank.Authorisation {
	t.Helper()
	var a bank.Authorisation
	if err := s.View(func(tx bank.Tx) (err error) { a, err = tx.Authorisation(id); return err }); err != nil {
		t.Fatal(err)
	}
	return a
}

// len is how many events the bank announced.
func (r *recorder) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// The first visit of an SCA page binds its authorisation to that browser,
// with the one write of the page's reads; a visit without the page's
// cookie then shows neither the form token, nor the cookie, nor the
// customers, and writes nothing. A scenario carries no binding: an
// imported authorisation binds to the first browser that opens it.
func TestSCAPage_BindsToTheFirstBrowser(t *testing.T) {
	s, db := newBank(t)
	events := record(s)
	a, err := s.PSD2.StartSCA(bank.SCARequest{TPPID: "NO-FSA-933012867", TPPName: "Test TPP", Kind: bank.AuthUsers, RedirectURI: "https://tpp.example/cb", SessionID: "s-1", RedirectPreferred: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Bound || storedAuthorisation(t, db, a.ID).Bound {
		t.Fatal("a new authorisation is bound before its page was opened")
	}
	started := events.len()

	first, err := s.PSD2.SCAPage(a.ID, a.Secret, "")
	if err != nil {
		t.Fatal(err)
	}
	if first.Step != bank.StepIdentify || first.Token != a.Token || first.Cookie != a.Cookie || len(first.Hints) == 0 {
		t.Fatalf("the first visit: step %s, token %q, cookie %q, %d hints", first.Step, first.Token, first.Cookie, len(first.Hints))
	}
	if !storedAuthorisation(t, db, a.ID).Bound || events.len() == started {
		t.Fatal("the first visit did not store the binding")
	}
	bound := events.len()

	for _, cookie := range []string{"", a.Token, a.Cookie + "x"} {
		v, err := s.PSD2.SCAPage(a.ID, a.Secret, cookie)
		if err != nil {
			t.Fatal(err)
		}
		if v.Step != bank.StepElsewhere || v.Token != "" || v.Cookie != "" || v.Secret != "" || len(v.Hints) != 0 || v.Customer.ID != "" || v.TPPName != "Test TPP" {
			t.Fatalf("a visit with cookie %q: %+v", cookie, v)
		}
	}
	again, err := s.PSD2.SCAPage(a.ID, a.Secret, a.Cookie)
	if err != nil || again.Step != bank.StepIdentify || again.Token != a.Token {
		t.Fatalf("the bound browser's reload: step %s, token %q, %v", again.Step, again.Token, err)
	}
	if events.len() != bound {
		t.Fatalf("visits after the first wrote: %d events", events.len()-bound)
	}

	// Export leaves the binding out; a scenario that holds one is refused.
	sc := exportScenario(t, s.Sandbox)
	at := -1
	for i, sa := range sc.Authorisations {
		if sa.ID == a.ID {
			at = i
		}
	}
	if at < 0 || sc.Authorisations[at].Bound {
		t.Fatalf("the export of authorisation %s (at %d): %+v", a.ID, at, sc.Authorisations)
	}
	sc.Authorisations[at].Bound = true
	_, err = importScenario(t, s.Sandbox, sc)
	refusedAt(t, "a scenario with a bound authorisation", err, fmt.Sprintf("authorisations[%d].bound", at),
		"is not part of a scenario; leave it out: an imported authorisation's page binds to the first browser that opens it")
	sc.Authorisations[at].Bound = false
	if _, err := importScenario(t, s.Sandbox, sc); err != nil {
		t.Fatal(err)
	}
	imported := storedAuthorisation(t, db, a.ID)
	if imported.Bound || imported.Secret == a.Secret || imported.Cookie == a.Cookie {
		t.Fatalf("the imported authorisation: bound %v, same secret %v, same cookie %v", imported.Bound, imported.Secret == a.Secret, imported.Cookie == a.Cookie)
	}
	v, err := s.PSD2.SCAPage(a.ID, imported.Secret, a.Cookie) // the old browser's cookie is no longer the page's
	if err != nil || v.Step != bank.StepIdentify || v.Cookie != imported.Cookie {
		t.Fatalf("the imported page's first visit: step %s, %v", v.Step, err)
	}
	if v, err := s.PSD2.SCAPage(a.ID, imported.Secret, a.Cookie); err != nil || v.Step != bank.StepElsewhere {
		t.Fatalf("the imported page's second visit with the old cookie: step %s, %v", v.Step, err)
	}
}
