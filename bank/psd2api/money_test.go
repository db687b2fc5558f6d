package psd2api_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/validate"
)

// moneyPage is a transactions answer of account information with its
// balances, for an account (transactions) or a card account
// (cardTransactions).
type moneyPage struct {
	Balances []struct {
		BalanceType   string `json:"balanceType"`
		BalanceAmount struct {
			Amount string `json:"amount"`
		} `json:"balanceAmount"`
	} `json:"balances"`
	Transactions     moneyLists `json:"transactions"`
	CardTransactions moneyLists `json:"cardTransactions"`
}

type moneyLists struct {
	Booked  []moneyItem `json:"booked"`
	Pending []moneyItem `json:"pending"`
}

type moneyItem struct {
	CardTransactionID string `json:"cardTransactionId"`
	TransactionAmount struct {
		Amount json.Number `json:"amount"`
	} `json:"transactionAmount"`
}

// balance returns the amount of a balance type of the page.
func (p moneyPage) balance(t *testing.T, typ string) decimal.Decimal {
	t.Helper()
	for _, b := range p.Balances {
		if b.BalanceType == typ {
			return decimal.RequireFromString(b.BalanceAmount.Amount)
		}
	}
	t.Fatalf("no %s balance in %+v", typ, p.Balances)
	return decimal.Decimal{}
}

// lists returns the page's booked and pending lists, of an account or a
// card account.
func (p moneyPage) lists() moneyLists {
	if p.CardTransactions.Booked != nil || p.CardTransactions.Pending != nil {
		return p.CardTransactions
	}
	return p.Transactions
}

// moneyRead reads an account's or card account's balances and pending
// items: resource is /v1/accounts/{id} or /v1/card-accounts/{id}.
func moneyRead(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, user psu, resource string) moneyPage {
	t.Helper()
	r := get(b, tpp, user, resource+"/transactions?bookingStatus=both&withBalance=true")
	expect(t, r, 200, "")
	var p moneyPage
	r.JSON(t, &p)
	return p
}

// pendingSum is the sum of the page's pending items.
func (p moneyPage) pendingSum() decimal.Decimal {
	sum := decimal.Zero
	for _, it := range p.lists().Pending {
		sum = sum.Add(decimal.RequireFromString(it.TransactionAmount.Amount.String()))
	}
	return sum
}

// moneyOf reads a resource as moneyRead does and checks the rule of
// docs/PAYMENTS.md: expected is closingBooked plus the pending items.
func moneyOf(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, user psu, resource string) moneyPage {
	t.Helper()
	p := moneyRead(t, b, tpp, user, resource)
	closing, expected := p.balance(t, "closingBooked"), p.balance(t, "expected")
	if sum := p.pendingSum(); !expected.Equal(closing.Add(sum)) {
		t.Errorf("%s: expected %s is not closingBooked %s plus the %d pending items %s", resource, expected, closing, len(p.lists().Pending), sum)
	}
	return p
}

// agreementOf returns the id of the agreement a corporate customer owns.
func agreementOf(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, owner string) string {
	t.Helper()
	var list []struct {
		ID    string `json:"id"`
		Owner string `json:"owner"`
	}
	b.Do(tpp, "GET", "/v1/sandbox/agreements", nil).JSON(t, &list)
	for _, a := range list {
		if a.Owner == owner {
			return a.ID
		}
	}
	t.Fatalf("no agreement of %s in %+v", owner, list)
	return ""
}

// everyResource checks the money rule on every account and card account a
// PSU granted, and returns how many of each it checked.
func everyResource(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, user psu) (accounts, cards int) {
	t.Helper()
	var list struct {
		Accounts []struct {
			ResourceID string `json:"resourceId"`
		} `json:"accounts"`
		CardAccounts []struct {
			ResourceID string `json:"resourceId"`
		} `json:"cardAccounts"`
	}
	get(b, tpp, user, "/v1/accounts").JSON(t, &list)
	get(b, tpp, user, "/v1/card-accounts").JSON(t, &list)
	for _, a := range list.Accounts {
		moneyOf(t, b, tpp, user, "/v1/accounts/"+a.ResourceID)
	}
	for _, c := range list.CardAccounts {
		moneyOf(t, b, tpp, user, "/v1/card-accounts/"+c.ResourceID)
	}
	return len(list.Accounts), len(list.CardAccounts)
}

// cardPurchase is a card transaction of the sandbox data API, by its Berlin Group
// fields: pending without bookingDate.
func cardPurchase(id string, amount string, made time.Time, booked bool) map[string]any {
	tx := map[string]any{
		"cardTransactionId": id, "terminalId": "T1", "transactionDate": made.Format(time.DateOnly),
		"transactionAmount":    map[string]any{"amount": json.Number(amount), "currency": "NOK"},
		"originalAmount":       map[string]any{"amount": json.Number(amount), "currency": "NOK"},
		"merchantCategoryCode": "5411", "cardAcceptorId": "ACC1", "cardAcceptorAddress": map[string]string{"city": "Oslo", "country": "NO"},
		"maskedPan": "525412******3241", "transactionDetails": "REMA 1000", "invoiced": "false", "proprietaryBankTransactionCode": "PURCHASE",
	}
	if booked {
		tx["bookingDate"] = made.Format(time.DateOnly)
	}
	return tx
}

// The known state keeps the rule on every account and card account: its
// cards' expected balances are closingBooked plus their pending card
// transactions. A pending card transaction posted later moves expected as
// a payment's reservation does; a booked one moves nothing; deleting them
// releases what the pending ones held.
func TestMoneyRule_KnownStateAndCardPosts(t *testing.T) {
	b, tpp := setup(t)
	accounts, cards := 0, 0
	for _, c := range []struct{ number, context string }{
		{t1Number, "PRIVATE"}, {t2Number, "PRIVATE"}, {f1Number, f1Agreement}, {"20079518612", agreementOf(t, b, tpp, "20079518612")},
	} {
		a, k := everyResource(t, b, tpp, psuOf(b.Consent(tpp, c.number, c.context, nil)))
		accounts, cards = accounts+a, cards+k
	}
	if accounts != 8 || cards != 2 {
		t.Fatalf("checked %d accounts and %d card accounts, want the known state's 8 and 2", accounts, cards)
	}

	user := psuOf(b.Consent(tpp, t1Number, "PRIVATE", nil))
	card := "/v1/card-accounts/" + t1Card
	before := moneyOf(t, b, tpp, user, card)
	now := time.Now().In(bank.Oslo)
	post := "/v1/sandbox/card-accounts/" + t1Card + "/transactions"
	expect(t, b.Do(tpp, "POST", post, []any{
		cardPurchase("HOLD-1", "-300.00", now, false), cardPurchase("REFUND-1", "50.00", now, false), cardPurchase("BOOKED-1", "-99.00", now.AddDate(0, 0, -1), true),
	}), 201, "")
	after := moneyOf(t, b, tpp, user, card)
	if moved := after.balance(t, "expected").Sub(before.balance(t, "expected")); !moved.Equal(decimal.RequireFromString("-250")) {
		t.Errorf("two pending items of -300 and +50 moved expected by %s", moved)
	}
	if !after.balance(t, "closingBooked").Equal(before.balance(t, "closingBooked")) {
		t.Errorf("posting moved closingBooked from %s to %s", before.balance(t, "closingBooked"), after.balance(t, "closingBooked"))
	}
	// The sandbox data API shows the same expected balance.
	var sandbox struct {
		CardAccount struct {
			Balances []struct {
				BalanceType   string `json:"balanceType"`
				BalanceAmount struct {
					Amount decimal.Decimal `json:"amount"`
				} `json:"balanceAmount"`
			} `json:"balances"`
		} `json:"cardAccount"`
	}
	b.Do(tpp, "GET", "/v1/sandbox/card-accounts/"+t1Card, nil).JSON(t, &sandbox)
	for _, bal := range sandbox.CardAccount.Balances {
		if bal.BalanceType == "expected" && !bal.BalanceAmount.Amount.Equal(after.balance(t, "expected")) {
			t.Errorf("the sandbox data API's expected %s, account information's %s", bal.BalanceAmount.Amount, after.balance(t, "expected"))
		}
	}

	// A refused post moves nothing.
	rejects(t, b, tpp, "POST", post, []any{cardPurchase("HOLD-2", "-10.00", now, false), cardPurchase("BAD", "-1.00", now.AddDate(0, 0, 3), false)}, 400, "FORMAT_ERROR", "[1].transactionDate")
	moneyOf(t, b, tpp, user, card)

	// Deleting releases the pending ones: nothing pending, expected is closingBooked.
	expect(t, b.Do(tpp, "DELETE", post, nil), 204, "")
	emptied := moneyOf(t, b, tpp, user, card)
	if len(emptied.lists().Pending) != 0 || !emptied.balance(t, "expected").Equal(emptied.balance(t, "closingBooked")) {
		t.Errorf("after deleting: %+v", emptied)
	}
}

// A generated history keeps the rule: the pending card transactions of a
// scenario's history move the expected balance the card account was
// created with, and a version-2 export loads back with the same balances.
func TestMoneyRule_AfterAGeneratedHistory(t *testing.T) {
	b, tpp := setup(t)
	bban := ""
	for d := '0'; d <= '9' && bban == ""; d++ {
		if validate.NorwegianBBAN("1503112233"+string(d)) == nil {
			bban = "1503112233" + string(d)
		}
	}
	scenario := []byte(strings.ReplaceAll(`{
	  "format": "sandbank-scenario/1",
	  "customers": [{"customerNumber": "01017012345", "name": "Kari Nordmann", "type": "private"}],
	  "accounts": [{"customerNumber": "01017012345", "accountName": "Brukskonto", "bban": "BBAN", "currency": "NOK",
	    "product": "Brukskonto", "cashAccountType": "CACC", "creditLine": 0,
	    "balances": [{"balanceType": "closingBooked", "balanceAmount": {"amount": 5000, "currency": "NOK"}}],
	    "history": {"profile": "everyday", "months": 2}}],
	  "cardAccounts": [
	    {"customerNumber": "01017012345", "maskedPan": "492500******1234", "currency": "NOK", "creditLimit": {"amount": 20000, "currency": "NOK"},
	     "balances": [{"balanceType": "closingBooked", "balanceAmount": {"amount": -1000, "currency": "NOK"}}],
	     "expiry": "2030-01", "name": "Visa", "product": "Visa Classic", "history": {"profile": "card", "count": 400}},
	    {"customerNumber": "01017012345", "maskedPan": "492500******5678", "currency": "NOK", "creditLimit": {"amount": 20000, "currency": "NOK"},
	     "balances": [{"balanceType": "closingBooked", "balanceAmount": {"amount": -100, "currency": "NOK"}},
	                  {"balanceType": "expected", "balanceAmount": {"amount": -150, "currency": "NOK"}}],
	     "expiry": "2030-01", "name": "Visa 2", "product": "Visa Classic", "history": {"profile": "card", "count": 400}}]
	}`, "BBAN", bban))
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/scenario", scenario), 200, "")
	user := psuOf(b.Consent(tpp, "01017012345", "PRIVATE", nil))
	var cards struct {
		CardAccounts []struct {
			ResourceID string `json:"resourceId"`
			MaskedPan  string `json:"maskedPan"`
		} `json:"cardAccounts"`
	}
	get(b, tpp, user, "/v1/card-accounts").JSON(t, &cards)
	if len(cards.CardAccounts) != 2 {
		t.Fatalf("card accounts %+v", cards.CardAccounts)
	}
	pages := map[string]moneyPage{}
	for _, c := range cards.CardAccounts {
		p := moneyRead(t, b, tpp, user, "/v1/card-accounts/"+c.ResourceID)
		if len(p.lists().Pending) == 0 {
			t.Fatalf("the history of %s has no pending card transactions to check the rule with", c.MaskedPan)
		}
		pages[c.MaskedPan] = p
	}
	// The first card was given closingBooked only: expected started equal
	// and its history's pending items moved it, so the rule holds.
	moneyOf(t, b, tpp, user, "/v1/card-accounts/"+cardOf(t, cards.CardAccounts, "492500******1234"))
	// The second was given both balances, 50 apart: they are its balances
	// before its history, whose pending items move expected from -150.
	second := pages["492500******5678"]
	if want := decimal.NewFromInt(-150).Add(second.pendingSum()); !second.balance(t, "expected").Equal(want) || !second.balance(t, "closingBooked").Equal(decimal.NewFromInt(-100)) {
		t.Errorf("the second card's balances %+v, want closingBooked -100 and expected -150 plus its pending %s", second.Balances, second.pendingSum())
	}
	var accounts struct {
		Accounts []struct {
			ResourceID string `json:"resourceId"`
		} `json:"accounts"`
	}
	get(b, tpp, user, "/v1/accounts").JSON(t, &accounts)
	if len(accounts.Accounts) != 1 {
		t.Fatalf("accounts %+v", accounts.Accounts)
	}
	moneyOf(t, b, tpp, user, "/v1/accounts/"+accounts.Accounts[0].ResourceID)

	// A version-2 export holds the balances as they are and the pending
	// items as records: loaded back, the balances do not move again.
	export := b.Do(b.Operator(), "GET", "/v1/sandbox/scenario", nil)
	expect(t, export, 200, "")
	expect(t, b.Do(b.Operator(), "PUT", "/v1/sandbox/scenario", export.Body), 200, "")
	for _, c := range cards.CardAccounts {
		again := moneyRead(t, b, tpp, user, "/v1/card-accounts/"+c.ResourceID)
		if was := pages[c.MaskedPan]; !again.balance(t, "expected").Equal(was.balance(t, "expected")) || len(again.lists().Pending) != len(was.lists().Pending) {
			t.Errorf("%s: expected %s after the round trip, was %s", c.MaskedPan, again.balance(t, "expected"), was.balance(t, "expected"))
		}
	}
}

// Card transactions are selected by bookingStatus as an account's are
// (booked, pending, both and all; anything else is refused the same way),
// through account information and the sandbox data API. A card account's
// pending items are selected by the dates too (spec 8: the rule that
// pending items always come whole is not for card accounts), by the day
// they were made.
func TestCardTransactions_BookingStatusAndDatesSelectPending(t *testing.T) {
	b, tpp := setup(t)
	now := time.Now().In(bank.Oslo)
	post := "/v1/sandbox/card-accounts/" + t1Card + "/transactions"
	expect(t, b.Do(tpp, "POST", post, []any{
		cardPurchase("NEW-PENDING", "-12.00", now, false), cardPurchase("OLD-PENDING", "-13.00", now.AddDate(0, 0, -10), false),
		cardPurchase("BOOKED", "-14.00", now.AddDate(0, 0, -1), true),
	}), 201, "")
	user := psuOf(b.Consent(tpp, t1Number, "PRIVATE", nil))
	day := func(days int) string { return now.AddDate(0, 0, days).Format(time.DateOnly) }
	ids := func(list []moneyItem) []string {
		out := []string{}
		for _, it := range list {
			out = append(out, it.CardTransactionID)
		}
		return out
	}
	for _, c := range []struct {
		query                      string
		booked, pending            []string // must be there
		bookedList, pendingList    bool     // whether the answer has the list
		notBooked, notPending      []string // must not be there
		sandboxQuery               string
		sandboxBooked, sandboxPend bool
	}{
		{query: "bookingStatus=booked", booked: []string{"BOOKED"}, bookedList: true},
		{query: "bookingStatus=pending", pending: []string{"NEW-PENDING", "OLD-PENDING"}, pendingList: true},
		{query: "bookingStatus=both", booked: []string{"BOOKED"}, pending: []string{"NEW-PENDING", "OLD-PENDING"}, bookedList: true, pendingList: true},
		{query: "bookingStatus=all", booked: []string{"BOOKED"}, pending: []string{"NEW-PENDING", "OLD-PENDING"}, bookedList: true, pendingList: true},
		{query: "bookingStatus=both&dateFrom=" + day(-5), booked: []string{"BOOKED"}, pending: []string{"NEW-PENDING"}, notPending: []string{"OLD-PENDING"}, bookedList: true, pendingList: true},
		{query: "bookingStatus=pending&dateFrom=" + day(-20) + "&dateTo=" + day(-8), pending: []string{"OLD-PENDING"}, notPending: []string{"NEW-PENDING"}, pendingList: true},
	} {
		t.Run(c.query, func(t *testing.T) {
			r := get(b, tpp, user, "/v1/card-accounts/"+t1Card+"/transactions?"+c.query)
			expect(t, r, 200, "")
			var p moneyPage
			r.JSON(t, &p)
			check := func(where string, booked, pending []string, hasBooked, hasPending bool) {
				t.Helper()
				if (booked != nil) != hasBooked || (pending != nil) != hasPending {
					t.Errorf("%s: booked list %v (want %v), pending list %v (want %v)", where, booked != nil, hasBooked, pending != nil, hasPending)
				}
				for _, id := range c.booked {
					if !slices.Contains(booked, id) {
						t.Errorf("%s: booked %v lacks %s", where, booked, id)
					}
				}
				for _, id := range c.pending {
					if !slices.Contains(pending, id) {
						t.Errorf("%s: pending %v lacks %s", where, pending, id)
					}
				}
				for _, id := range c.notPending {
					if slices.Contains(pending, id) {
						t.Errorf("%s: pending %v holds %s, made outside the dates", where, pending, id)
					}
				}
			}
			var booked, pending []string
			if p.CardTransactions.Booked != nil {
				booked = ids(p.CardTransactions.Booked)
			}
			if p.CardTransactions.Pending != nil {
				pending = ids(p.CardTransactions.Pending)
			}
			check("account information", booked, pending, c.bookedList, c.pendingList)

			// The sandbox data API: the same selection; its lists are
			// always there, empty when not asked for.
			var s struct {
				CardTransactions struct {
					Booked  []moneyItem `json:"booked"`
					Pending []moneyItem `json:"pending"`
				} `json:"cardTransactions"`
			}
			r = b.Do(tpp, "GET", "/v1/sandbox/card-accounts/"+t1Card+"/transactions?"+sandboxQuery.Replace(c.query), nil)
			expect(t, r, 200, "")
			r.JSON(t, &s)
			booked, pending = ids(s.CardTransactions.Booked), ids(s.CardTransactions.Pending)
			if !c.bookedList {
				if len(booked) != 0 {
					t.Errorf("sandbox: booked %v, asked for none", booked)
				}
				booked = nil
			}
			if !c.pendingList {
				if len(pending) != 0 {
					t.Errorf("sandbox: pending %v, asked for none", pending)
				}
				pending = nil
			}
			check("sandbox", booked, pending, c.bookedList, c.pendingList)
		})
	}
	// What accounts refuse, card accounts refuse alike.
	for _, path := range []string{"/v1/accounts/" + t1Brukskonto + "/transactions", "/v1/card-accounts/" + t1Card + "/transactions"} {
		r := get(b, tpp, user, path+"?bookingStatus=information")
		if e := expect(t, r, 400, "FORMAT_ERROR"); !slices.Contains(paths(e), "bookingStatus") {
			t.Errorf("%s: %+v", path, e)
		}
	}
	rejects(t, b, tpp, "GET", "/v1/sandbox/card-accounts/"+t1Card+"/transactions?bookingStatus=information", nil, 400, "FORMAT_ERROR", "bookingStatus")
}

// sandboxQuery writes an account-information query in the sandbox data
// API's names: fromDate and toDate.
var sandboxQuery = strings.NewReplacer("dateFrom=", "fromDate=", "dateTo=", "toDate=")

// cardOf returns the resource id of the card account with maskedPan.
func cardOf(t *testing.T, list []struct {
	ResourceID string `json:"resourceId"`
	MaskedPan  string `json:"maskedPan"`
}, maskedPan string) string {
	t.Helper()
	for _, c := range list {
		if c.MaskedPan == maskedPan {
			return c.ResourceID
		}
	}
	t.Fatalf("no card account %s in %+v", maskedPan, list)
	return ""
}
