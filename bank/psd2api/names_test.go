package psd2api_test

import (
	"fmt"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank/pki"
)

// A name that shows nothing, and characters with no agreed look, are
// refused (issue 19 §6): a creditorName of only U+3164 HANGUL FILLER,
// U+2800 BRAILLE PATTERN BLANK, U+3000 IDEOGRAPHIC SPACE or no-break
// spaces would show the PSU an empty creditor on the SCA page. Each is 400
// FORMAT_ERROR at the field, saying what it holds and what to write, in
// strict and lenient mode alike, and leaves the data file as it was; so
// are a noncharacter (U+FFFF) anywhere and a private-use character in a
// name. Names with spaces between letters of any script, and emoji, pass.
func TestSecurity_BlankLookingNamesAreRefused(t *testing.T) {
	b, tpp := setup(t)
	onBankingMorning(t, b)
	const blankName = ", which shows as blank; write the name in letters, e.g. Ola Nordmann"
	// payment is an NDCT body in Berlin Group's field names, with a creditor name.
	payment := func(creditorName string) map[string]any {
		return map[string]any{
			"instructedAmount":                  map[string]any{"amount": "10.00", "currency": "NOK"},
			"debtorAccount":                     map[string]any{"iban": ibanT1Bruk},
			"creditorAccount":                   map[string]any{"iban": ibanT2Bruk},
			"creditorName":                      creditorName,
			"remittanceInformationUnstructured": "Faktura 10",
		}
	}
	customerBody := func(name string) map[string]any {
		return map[string]any{"customerNumber": "55555555555", "name": name, "type": "PRIVATE"}
	}
	names := []struct{ name, value, text string }{
		{"U+3164 HANGUL FILLER", "\u3164", "holds only U+3164 HANGUL FILLER" + blankName},
		{"U+2800 BRAILLE PATTERN BLANK", "\u2800\u2800", "holds only U+2800 BRAILLE PATTERN BLANK" + blankName},
		{"U+3000 IDEOGRAPHIC SPACE", "\u3000", "holds only U+3000 IDEOGRAPHIC SPACE" + blankName},
		{"no-break spaces only", "\u00A0\u00A0\u00A0", "holds only U+00A0 NO-BREAK SPACE" + blankName},
		{"fillers and spaces", "\u115F\u1160 \uFFA0", "holds only U+115F HANGUL CHOSEONG FILLER, U+1160 HANGUL JUNGSEONG FILLER and 2 other blank characters, which show as blank; write the name in letters, e.g. Ola Nordmann"},
		{"U+FFFF", "Mottaker\uFFFF AS", "contains U+FFFF, a noncharacter, at character 9; remove it"},
		{"a private-use character", "\uE000", "contains U+E000, a private-use character, at character 1; remove it: it has no agreed look and may show as nothing"},
		{"a private-use character after letters", "Mottaker AS \U0010FFFD", "contains U+10FFFD, a private-use character, at character 13; remove it: it has no agreed look and may show as nothing"},
	}
	for _, strict := range []bool{false, true} {
		setStrict(t, b, strict)
		for _, n := range names {
			t.Run(fmt.Sprintf("%s strict=%v", n.name, strict), func(t *testing.T) {
				refusesText(t, b, tpp, "POST", ndctPath, payment(n.value), payHeaders, "creditorName", n.text)
				refusesText(t, b, tpp, "POST", "/v1/sandbox/customers", customerBody(n.value), nil, "name", n.text)
			})
		}
		// Other names and a text that must hold something: the remittance
		// text, which may be left out, but not sent blank.
		blankText := with(payment("Mottaker AS"), "remittanceInformationUnstructured", "\u3000\u3164")
		refusesText(t, b, tpp, "POST", ndctPath, blankText, payHeaders, "remittanceInformationUnstructured",
			"holds only U+3000 IDEOGRAPHIC SPACE and U+3164 HANGUL FILLER, which show as blank; write it in visible characters")
		refusesText(t, b, tpp, "POST", ndctPath, with(payment("Mottaker AS"), "remittanceInformationUnstructured", "Faktura\uFDD0"), payHeaders, "remittanceInformationUnstructured",
			"contains U+FDD0, a noncharacter, at character 8; remove it")
		refusesText(t, b, tpp, "POST", ndctPath, with(payment("Mottaker AS"), "ultimateCreditor", "\u2800"), payHeaders, "ultimateCreditor",
			"holds only U+2800 BRAILLE PATTERN BLANK"+blankName)
		refusesText(t, b, tpp, "POST", "/v1/sandbox/agreements", map[string]any{"owner": f1Number, "name": "\u3164"}, nil, "name",
			"holds only U+3164 HANGUL FILLER"+blankName)
	}
	setStrict(t, b, false)

	// The test CA issues no certificate with such a name, and a
	// certificate the bank did not issue cannot start SCA with one.
	cert := map[string]any{"name": "\u3164", "organisationNumber": "933012867", "roles": []string{"PSP_AI"}, "publicKey": publicKeyPEM(t, &apptest.Key(t, 3).PublicKey)}
	refusesText(t, b, tpp, "POST", "/v1/sandbox/tpp-certificates", cert, nil, "name", "holds only U+3164 HANGUL FILLER"+blankName)
	key := apptest.Key(t, 2)
	self, err := pki.SelfSigned(key, "\u2800", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	e := rejectsWith(t, b, apptest.TPPFor(t, self, key), "POST", "/v1/consents", nil, []string{"TPP-Redirect-URI: " + tppRedirect, "TPP-Session-ID: n-1"}, 400, "CERTIFICATE_INVALID", "TPP-Signature-Certificate")
	if got, want := textAt(e, "TPP-Signature-Certificate"), "the TPP's name in the certificate's subject (O, else CN) holds only U+2800 BRAILLE PATTERN BLANK"+blankName; got != want {
		t.Errorf("the certificate's name: %q, want %q", got, want)
	}

	// Spaces between words (a no-break space too), letters of every
	// script and emoji joined with U+200D pass, as creditor and customer.
	for i, name := range []string{"Ola\u00A0Nordmann", "Åse Ødegård", "김철수", "Kari\u3000Nordmann", "Koding 👩\u200D💻"} {
		amount := map[string]any{"amount": fmt.Sprintf("%d.00", 20+i), "currency": "NOK"} // not a duplicate of the one before
		expect(t, b.Do(tpp, "POST", ndctPath, with(payment(name), "instructedAmount", amount), payHeaders...), 201, "")
		r := b.Do(tpp, "POST", "/v1/sandbox/customers", map[string]any{"customerNumber": fmt.Sprint(9100 + i), "name": name, "type": "PRIVATE"})
		expect(t, r, 201, "")
		var c customer
		r.JSON(t, &c)
		if c.CustomerName != name {
			t.Errorf("customer name %q stored as %q", name, c.CustomerName)
		}
	}
}
