package psd2api_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"sandbank/app/apptest"
	"sandbank/bank"
)

// TestLegacyDate_EachFix checks the four x-accept-fix fixes of spec 9 one
// by one: with the legacy date the day before a fix's default date, a
// request gets the old behaviour unless it names the fix, and naming one
// fix changes nothing else; from the default date on, and without a legacy
// date, the new behaviour is always on.
func TestLegacyDate_EachFix(t *testing.T) {
	b, tpp := setup(t)
	longName := "Felles sparekonto for hytta på fjellet" // 38 characters
	acct := newAccount(t1Number, "15030123481", "NOK")
	acct["accountName"] = longName
	expect(t, b.Do(tpp, "POST", "/v1/sandbox/accounts", acct), 201, "")
	user := psuOf(b.Consent(tpp, t1Number, "", nil))

	// Each probe reads the API and tells whether it answered with the
	// fix's new behaviour.
	probes := map[string]func(fixes string) bool{
		bank.FixAmountAsString: func(fixes string) bool {
			var body struct {
				Balances []struct {
					BalanceAmount struct {
						Amount json.RawMessage `json:"amount"`
					} `json:"balanceAmount"`
				} `json:"balances"`
			}
			r := get(b, tpp, user, "/v1/accounts/"+t1Brukskonto+"/balances", "x-accept-fix: "+fixes)
			expect(t, r, 200, "")
			r.JSON(t, &body)
			raw := string(body.Balances[0].BalanceAmount.Amount)
			// The same two-decimal text either way, quoted or not.
			if _, err := decimal.NewFromString(strings.Trim(raw, `"`)); err != nil || !strings.Contains(raw, ".") {
				t.Fatalf("balance amount %s", raw)
			}
			return strings.HasPrefix(raw, `"`)
		},
		bank.FixCardSwitch: func(fixes string) bool {
			var body struct {
				CardTransactions struct {
					Booked []struct {
						TransactionAmount map[string]any   `json:"transactionAmount"`
						OriginalAmount    map[string]any   `json:"originalAmount"`
						CurrencyExchange  []map[string]any `json:"currencyExchange"`
					} `json:"booked"`
				} `json:"cardTransactions"`
			}
			r := get(b, tpp, user, "/v1/card-accounts/"+t1Card+"/transactions", "x-accept-fix: "+fixes)
			expect(t, r, 200, "")
			r.JSON(t, &body)
			for _, tx := range body.CardTransactions.Booked {
				if len(tx.CurrencyExchange) > 0 { // bought in a foreign currency
					return tx.TransactionAmount["currency"] == "NOK" && tx.OriginalAmount["currency"] != "NOK"
				}
			}
			t.Fatal("no foreign card purchase in the known state")
			return false
		},
		bank.FixLongerNames: func(fixes string) bool {
			return accountNamed(t, b, tpp, user, fixes, "Felles").Name == longName
		},
		bank.FixCashAccountISO: func(fixes string) bool {
			return accountNamed(t, b, tpp, user, fixes, "Brukskonto").CashAccountType == "CACC"
		},
	}
	defaults := map[string]bank.Date{
		bank.FixAmountAsString: {Year: 2020, Month: time.August, Day: 1},
		bank.FixCardSwitch:     {Year: 2024, Month: time.September, Day: 5},
		bank.FixLongerNames:    {Year: 2024, Month: time.September, Day: 5},
		bank.FixCashAccountISO: {Year: 2024, Month: time.September, Day: 5},
	}
	setLegacy := func(d bank.Date) {
		t.Helper()
		if _, err := b.Bank.Ops.UpdateSettings(func(s *bank.Settings) { s.LegacyDate = d }); err != nil {
			t.Fatal(err)
		}
	}
	for fix, since := range defaults {
		setLegacy(since.AddDays(-1))
		if probes[fix]("") {
			t.Errorf("%s: the day before %s, the new behaviour without asking", fix, since)
		}
		if !probes[fix](fix) {
			t.Errorf("%s: the day before %s, naming the fix does not give it", fix, since)
		}
		if !probes[fix]("an-unknown-fix, " + fix) {
			t.Errorf("%s: an unknown name beside it hides the fix", fix)
		}
		setLegacy(since)
		if !probes[fix]("") {
			t.Errorf("%s: from %s on, the old behaviour", fix, since)
		}
	}
	// Before every fix, naming one fix turns on that fix alone.
	setLegacy(bank.Date{Year: 2020, Month: time.January, Day: 1})
	for fix := range defaults {
		for other, probe := range probes {
			if got := probe(fix); got != (other == fix) {
				t.Errorf("x-accept-fix: %s gives %s = %v", fix, other, got)
			}
		}
	}
	// Without a legacy date the bank is today's: every fix is on.
	setLegacy(bank.Date{})
	for fix, probe := range probes {
		if !probe("") {
			t.Errorf("%s is off without a legacy date", fix)
		}
	}
}

// accountNamed lists the PSU's accounts and returns the one whose name
// starts with prefix.
func accountNamed(t *testing.T, b *apptest.Bank, tpp *apptest.TPP, user psu, fixes, prefix string) aisAccount {
	t.Helper()
	var list struct {
		Accounts []aisAccount `json:"accounts"`
	}
	r := get(b, tpp, user, "/v1/accounts", "x-accept-fix: "+fixes)
	expect(t, r, 200, "")
	r.JSON(t, &list)
	for _, a := range list.Accounts {
		if strings.HasPrefix(a.Name, prefix) {
			return a
		}
	}
	t.Fatalf("no account named %s… in %+v", prefix, list.Accounts)
	return aisAccount{}
}
