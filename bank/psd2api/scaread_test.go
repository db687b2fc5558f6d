package psd2api_test

import (
	"testing"
)

// Reading an SCA page or an authorisation's status writes nothing to the
// data file; only the page's first visit, which binds it to its browser
// (TestSecurity_SCAPageIsBoundToTheFirstBrowser), and a read that finds an
// authorisation past its hour, which fails it (SCA_EXPIRED is tested in
// TestSCA_Failures), write.
func TestSCA_ReadsWriteNothing(t *testing.T) {
	b, tpp := setup(t)
	onBankingMorning(t, b)
	href := b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "r-1")
	c := createPayment(t, b, tpp, ndctPath, ndct("10", ibanT1Bruk, ibanT2Bruk))
	psu := b.Browser()
	if p := psu.Open(href); p.Status != 200 {
		t.Fatalf("SCA page: %d", p.Status)
	}
	before := b.FileSum()
	for range 3 {
		if p := psu.Open(href); p.Status != 200 {
			t.Fatalf("SCA page, reloaded: %d", p.Status)
		}
		if p := b.Browser().Open(href); p.Status != 409 {
			t.Fatalf("SCA page, in another browser: %d", p.Status)
		}
		expect(t, b.Do(tpp, "GET", ndctPath+"/"+c.PaymentID+"/authorisations/"+c.authID(), nil), 200, "")
	}
	if b.FileSum() != before {
		t.Fatal("reading the SCA page or an authorisation's status changed the data file")
	}
}
