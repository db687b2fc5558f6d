package bank_test

import (
	"testing"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

// refusedAt checks that err is a FORMAT_ERROR whose one finding, at path,
// says text.
func refusedAt(t *testing.T, what string, err error, path, text string) {
	t.Helper()
	e, ok := apierr.AsError(err)
	if !ok || e.Code != apierr.CodeFormatError || len(e.Messages) != 1 || e.Messages[0].Path != path || e.Messages[0].Text != text {
		t.Errorf("%s: %v, want FORMAT_ERROR at %s: %s", what, err, path, text)
	}
}

// The desktop app's edits and the operator's notes take the same text
// rule as the API (CheckText and checkChars): a bidi control is refused
// with its name and place, and nothing is stored.
func TestTextRule_DesktopEditsAndNotes(t *testing.T) {
	s, _ := newBank(t)
	customers, err := s.Sandbox.Customers(false, false)
	if err != nil {
		t.Fatal(err)
	}
	accounts, err := s.Sandbox.Accounts()
	if err != nil {
		t.Fatal(err)
	}
	cards, err := s.Sandbox.CardAccounts()
	if err != nil {
		t.Fatal(err)
	}
	name := "Ola\u202ENordmann"
	const want = "contains U+202E RIGHT-TO-LEFT OVERRIDE at character 4; remove it"
	_, err = s.Sandbox.UpdateCustomer(customers[0].ID, name)
	refusedAt(t, "customer name", err, "name", want)
	_, err = s.Sandbox.UpdateAccount(accounts[0].ID, bank.AccountChange{AccountName: &name})
	refusedAt(t, "account name", err, "accountName", want)
	_, err = s.Sandbox.UpdateCardAccount(cards[0].ID, bank.CardAccountChange{Product: &name})
	refusedAt(t, "card product", err, "product", want)

	remittance := "Faktura 1"
	created, err := s.PSD2.CreatePayment(bank.PaymentInit{
		TPPID: "NO-FSA-933012867", Service: bank.ServiceSingle, Product: bank.ProductNDCT,
		RedirectURI: "https://tpp.example/cb", SessionID: "s",
		Body: bank.PaymentRequest{
			InstructedAmount: &bank.AmountIn{Amount: bank.AmountText{Text: "10"}, Currency: "NOK"},
			DebtorAccount:    &bank.AccountIn{IBAN: accounts[0].IBAN}, CreditorAccount: &bank.AccountIn{IBAN: accounts[2].IBAN},
			CreditorName: "Mottaker", RemittanceInformationUnstructured: &remittance,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Ops.ForcePaymentStatus(created.Payment.ID, bank.StatusRJCT, "avvist \u2066av kundeservice")
	refusedAt(t, "forced status note", err, "note", "contains U+2066 LEFT-TO-RIGHT ISOLATE at character 8; remove it")

	c, _ := s.Sandbox.Customer(customers[0].ID)
	a, _ := s.Sandbox.Account(accounts[0].ID)
	card, _ := s.Sandbox.CardAccount(cards[0].ID)
	p, _ := s.Ops.Payment(created.Payment.ID)
	if c.Name != customers[0].Name || a.Name != accounts[0].Name || card.Product != cards[0].Product || p.Status != bank.StatusRCVD {
		t.Fatalf("a refused edit changed the data: %q %q %q %s", c.Name, a.Name, card.Product, p.Status)
	}
}

// The desktop app's edits of names take the name rule of the API
// (checkName): a name that shows nothing or holds a private-use character
// is refused with what it holds, and nothing is stored; a remittance text
// sent blank is refused too.
func TestNameRule_DesktopEdits(t *testing.T) {
	s, _ := newBank(t)
	customers, err := s.Sandbox.Customers(false, false)
	if err != nil {
		t.Fatal(err)
	}
	accounts, err := s.Sandbox.Accounts()
	if err != nil {
		t.Fatal(err)
	}
	cards, err := s.Sandbox.CardAccounts()
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Sandbox.UpdateCustomer(customers[0].ID, "\u3164")
	refusedAt(t, "customer name", err, "name", "holds only U+3164 HANGUL FILLER, which shows as blank; write the name in letters, e.g. Ola Nordmann")
	nbsp := "\u00A0\u00A0"
	_, err = s.Sandbox.UpdateAccount(accounts[0].ID, bank.AccountChange{AccountName: &nbsp})
	refusedAt(t, "account name", err, "accountName", "holds only U+00A0 NO-BREAK SPACE, which shows as blank; write the name in letters, e.g. Ola Nordmann")
	private := "Visa \uE000"
	_, err = s.Sandbox.UpdateCardAccount(cards[0].ID, bank.CardAccountChange{Name: &private})
	refusedAt(t, "card name", err, "name", "contains U+E000, a private-use character, at character 6; remove it: it has no agreed look and may show as nothing")
	braille := "\u2800"
	_, err = s.Sandbox.UpdateCardAccount(cards[0].ID, bank.CardAccountChange{Product: &braille})
	refusedAt(t, "card product", err, "product", "holds only U+2800 BRAILLE PATTERN BLANK, which shows as blank; write it in visible characters")

	blank := "\u3000"
	_, err = s.PSD2.CreatePayment(bank.PaymentInit{
		TPPID: "NO-FSA-933012867", Service: bank.ServiceSingle, Product: bank.ProductNDCT,
		RedirectURI: "https://tpp.example/cb", SessionID: "s",
		Body: bank.PaymentRequest{
			InstructedAmount: &bank.AmountIn{Amount: bank.AmountText{Text: "10"}, Currency: "NOK"},
			DebtorAccount:    &bank.AccountIn{IBAN: accounts[0].IBAN}, CreditorAccount: &bank.AccountIn{IBAN: accounts[2].IBAN},
			CreditorName: "Mottaker", RemittanceInformationUnstructured: &blank,
		},
	})
	refusedAt(t, "blank remittance", err, "remittanceInformationUnstructured", "holds only U+3000 IDEOGRAPHIC SPACE, which shows as blank; write it in visible characters")

	c, _ := s.Sandbox.Customer(customers[0].ID)
	a, _ := s.Sandbox.Account(accounts[0].ID)
	card, _ := s.Sandbox.CardAccount(cards[0].ID)
	if c.Name != customers[0].Name || a.Name != accounts[0].Name || card.Name != cards[0].Name || card.Product != cards[0].Product {
		t.Fatalf("a refused edit changed the data: %q %q %q %q", c.Name, a.Name, card.Name, card.Product)
	}
}
