package psd2api_test

import (
	"testing"
)

// Reading an SCA page or an authorisation's status writes nothing to the
// data file; only a read that finds an authorisation past its hour fails
// it (SCA_EXPIRED is tested in TestSCA_Failures).
func TestSCA_ReadsWriteNothing(t *testing.T) {
	b, tpp := setup(t)
	onBankingMorning(t, b, tpp)
	href := b.StartSCA(tpp, "POST", "/v1/consents", tppRedirect, "r-1")
	c := createPayment(t, b, tpp, ndctPath, ndct("10", ibanT1Bruk, ibanT2Bruk))
	before := b.FileSum()
	for range 3 {
		if p := b.Browser().Open(href); p.Status != 200 {
			t.Fatalf("SCA page: %d", p.Status)
		}
		expect(t, b.Do(tpp, "GET", ndctPath+"/"+c.PaymentID+"/authorisations/"+c.authID(), nil), 200, "")
	}
	if b.FileSum() != before {
		t.Fatal("reading the SCA page or an authorisation's status changed the data file")
	}
}
