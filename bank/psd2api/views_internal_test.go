package psd2api

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

// The answers of account information and the sandbox lists are encoded
// from typed structs. The tests below encode records with every optional
// field set and with none, under every fix that changes an answer, and
// hold the bytes against golden files (testdata/views), written when the
// answers were still made from maps.

// encoded is what writeJSON sends for v.
func encoded(t *testing.T, v any) string {
	t.Helper()
	rec := httptest.NewRecorder()
	writeJSON(rec, 200, v)
	return rec.Body.String()
}

// --- the records ---

// fixSets are the fixes that change the answers, in every combination
// that matters: none, each alone, all.
func fixSets() map[string]bank.Fixes {
	return map[string]bank.Fixes{
		"no fixes":         {},
		"amount-as-string": {bank.FixAmountAsString: true},
		"longer-names":     {bank.FixLongerNames: true},
		"card switch":      {bank.FixCardSwitch: true},
		"cash-account-iso": {bank.FixCashAccountISO: true},
		"all fixes":        {bank.FixAmountAsString: true, bank.FixLongerNames: true, bank.FixCardSwitch: true, bank.FixCashAccountISO: true},
	}
}

var longName = strings.Repeat("Ærlig Østlandsk Åpenhet ", 3) // over 35 runes, not ASCII

// testTransactions holds a booked transaction with every field set, one
// with only what is required, a pending one, and ones with characters
// that JSON escapes or that encoding/json treats specially.
func testTransactions() []bank.Transaction {
	day := bank.Date{Year: 2026, Month: time.November, Day: 20}
	full := bank.Transaction{
		ID: "enc!!full", Amount: decimal.RequireFromString("-1234.5"), Currency: "NOK", BookingDate: day, ValueDate: day.AddDays(1),
		RemittanceInformationUnstructured: "Faktura <12> & \"kvittering\"\n\tlinje\u2028to", CreditorID: "NO123", CreditorName: longName,
		CreditorAccount: bank.AccountRef{IBAN: "NO3815030123457", BBAN: "15030123457"}, UltimateCreditor: "Ultimate C",
		DebtorName: "Debitor AS", DebtorAccount: bank.AccountRef{BBAN: "86011117947"}, UltimateDebtor: "Ultimate D",
		PurposeCode: "SALA", BankTransactionCode: "PMNT-RCDT-ESCT", EndToEndID: "E2E-1", CreditorAgent: "DNBANOKKXXX",
		DebtorAgent: "NDEANOKKXXX", ProprietaryBankTransactionCode: "P-1",
	}
	bare := bank.Transaction{ID: "enc!!bare", Amount: decimal.New(5, 0), Currency: "EUR", BookingDate: day, ValueDate: day, BankTransactionCode: "PMNT"}
	pending := full
	pending.ID, pending.Pending, pending.Amount, pending.Currency = "enc!!pending", true, decimal.RequireFromString("0.001"), "JPY"
	odd := bare
	odd.ID, odd.CreditorName, odd.Amount = "enc!!odd", "\x01bad\xffutf8", decimal.RequireFromString("99999999999999999999.99")
	return []bank.Transaction{full, bare, pending, odd}
}

func testAccount() bank.Account {
	return bank.Account{
		ID: "enc!!acct", OwnerID: "enc!!owner", Name: longName, IBAN: "NO3815030123457", BBAN: "15030123457", Currency: "NOK",
		Product: "Brukskonto", CashAccountType: "CACC", CreditLine: decimal.New(5000, 0), Status: "enabled",
		Balances: bank.Balances{ClosingBooked: decimal.RequireFromString("100.5"), Expected: decimal.RequireFromString("-20.25")},
	}
}

func testCard(detail bool) bank.CardAccount {
	c := bank.CardAccount{
		ID: "enc!!card", OwnerID: "enc!!owner", MaskedPan: "123456******7890", Currency: "NOK", Name: longName, Product: "Kredittkort",
		Status: "enabled", CreditLimit: decimal.New(20000, 0),
	}
	c.Balances.ClosingBooked, c.Balances.Expected = decimal.RequireFromString("-300"), decimal.RequireFromString("-450.75")
	if detail {
		c.Balances.ClosingBookedDetail = bank.BalanceDetail{ReferenceDate: bank.Date{Year: 2026, Month: time.November, Day: 19}, LastChangeDateTime: time.Date(2026, 11, 19, 8, 30, 0, 0, time.UTC), LastCommittedTransaction: "T-9"}
		c.Balances.ExpectedDetail = bank.BalanceDetail{LastCommittedTransaction: "T-10"}
	}
	return c
}

func testCardTransactions() []bank.CardTransaction {
	day := bank.Date{Year: 2026, Month: time.November, Day: 18}
	full := bank.CardTransaction{
		CardTransactionID: "C-1", TerminalID: "T-1", BookingDate: day, TransactionDate: day.AddDays(-1),
		TransactionAmount:    bank.Money{Amount: decimal.RequireFromString("-100.5"), Currency: "NOK"},
		OriginalAmount:       bank.Money{Amount: decimal.RequireFromString("-9.5"), Currency: "EUR"},
		MerchantCategoryCode: "5411", CardAcceptorID: "A-1", MaskedPan: "123456******7890", TransactionDetails: "Kafé <Oslo>",
		CardAcceptorAddress: bank.Address{Street: "Gate 1", City: "Oslo", Country: "NO"},
		Invoiced:            true, ProprietaryBankTransactionCode: "PB",
		CurrencyExchange: &bank.CurrencyExchange{
			SourceCurrency: "EUR", TargetCurrency: "NOK", UnitCurrency: "EUR", ExchangeRate: "11.70",
			QuotationDate: day, MarkupFee: &bank.Money{Amount: decimal.RequireFromString("1.25"), Currency: "NOK"}, MarkupFeePercentage: "1.5",
		},
	}
	noFee := full
	noFee.CardTransactionID, noFee.CurrencyExchange = "C-2", &bank.CurrencyExchange{SourceCurrency: "SEK", TargetCurrency: "NOK", ExchangeRate: "1"}
	bare := bank.CardTransaction{CardTransactionID: "C-3", TransactionAmount: bank.Money{Amount: decimal.New(1, 0), Currency: "NOK"}, OriginalAmount: bank.Money{Amount: decimal.New(1, 0), Currency: "NOK"}}
	pending := bare
	pending.CardTransactionID, pending.BookingDate = "C-4", bank.Date{}
	return []bank.CardTransaction{full, noFee, bare, pending}
}

// --- the tests ---

var updateViews = flag.Bool("update", false, "rewrite the golden files of the encoded answers under testdata/views")

// golden collects the encoded answers of one test, case by case, and
// compares them with its golden file under testdata/views: one line
// "=== case" and the answer below it, or "same as" an earlier case whose
// answer it repeats. -update rewrites the file.
type golden struct {
	t     *testing.T
	name  string
	b     strings.Builder
	first map[string]string // an answer's first case
}

func newGolden(t *testing.T, name string) *golden {
	return &golden{t: t, name: name, first: map[string]string{}}
}

// add encodes v as writeJSON sends it, under the case's name.
func (g *golden) add(what string, v any) {
	g.t.Helper()
	body := encoded(g.t, v)
	if !json.Valid([]byte(body)) {
		g.t.Fatalf("%s: not JSON: %s", what, body)
	}
	fmt.Fprintf(&g.b, "=== %s\n", what)
	if first, ok := g.first[body]; ok {
		fmt.Fprintf(&g.b, "same as %s\n", first)
		return
	}
	g.first[body] = what
	g.b.WriteString(body)
}

// check compares the answers with the golden file, or writes it.
func (g *golden) check() {
	g.t.Helper()
	path := filepath.Join("testdata", "views", g.name+".golden")
	if *updateViews {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			g.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(g.b.String()), 0o644); err != nil {
			g.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		g.t.Fatalf("%v; write it with go test ./bank/psd2api -run TestViews -update", err)
	}
	got := g.b.String()
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var a, b string
		if i < len(gl) {
			a = gl[i]
		}
		if i < len(wl) {
			b = wl[i]
		}
		if a != b {
			at := 0
			for at < len(a) && at < len(b) && a[at] == b[at] {
				at++
			}
			g.t.Fatalf("the answers differ from %s at line %d, byte %d; if on purpose, run with -update:\n got: …%s\nwant: …%s", path, i+1, at, clipAt(a, at), clipAt(b, at))
		}
	}
}

func clipAt(s string, i int) string {
	s = s[max(0, i-40):]
	if len(s) > 160 {
		s = s[:160]
	}
	return s
}

// sortedFixes lists the fix sets by name, so that a golden file keeps its
// order.
func sortedFixes() []string {
	return slices.Sorted(maps.Keys(fixSets()))
}

func TestViews_TransactionPage(t *testing.T) {
	today := bank.Date{Year: 2026, Month: time.November, Day: 20}
	txs := testTransactions()
	g := newGolden(t, "transaction-page")
	for _, name := range sortedFixes() {
		f := fixSets()[name]
		for _, status := range []string{"booked", "pending", "both"} {
			for _, withBalance := range []bool{false, true} {
				for _, q := range []bank.AISQuery{
					{Status: status, WithBalance: withBalance},
					{Status: status, WithBalance: withBalance, TxQuery: bank.TxQuery{From: today.AddDays(-90), To: today, Offset: 200, Limit: 100}},
				} {
					for _, page := range []bank.AISTxPage{
						{Account: testAccount(), Booked: bank.TxPage{Transactions: txs, Total: 1_000_000}, Pending: txs[2:3], From: today.AddDays(-90)},
						{Account: testAccount(), Booked: bank.TxPage{Transactions: []bank.Transaction{}}, Pending: nil},
					} {
						what := fmt.Sprintf("%s, %+v, %d booked", name, q, len(page.Booked.Transactions))
						g.add(what, aisTxPageOf("enc!!acct", page, q, f, today))
					}
				}
			}
		}
	}
	g.check()
}

func TestViews_AccountsAndBalances(t *testing.T) {
	today := bank.Date{Year: 2026, Month: time.November, Day: 20}
	a := testAccount()
	bare := bank.Account{ID: "enc!!bare", Currency: "EUR"}
	g := newGolden(t, "accounts-and-balances")
	for _, name := range sortedFixes() {
		f := fixSets()[name]
		for _, withBalance := range []bool{false, true} {
			typed := []aisAccountView{aisAccountOf(a, withBalance, f, today), aisAccountOf(bare, withBalance, f, today)}
			g.add(fmt.Sprintf("%s accounts, withBalance %v", name, withBalance), struct {
				Accounts []aisAccountView `json:"accounts"`
			}{typed})
			g.add(fmt.Sprintf("%s account, withBalance %v", name, withBalance), struct {
				Account aisAccountView `json:"account"`
			}{typed[0]})
		}
		g.add(name+" balances", aisBalancesView{
			Account:  accountRefView{IBAN: a.IBAN, BBAN: a.BBAN, Currency: a.Currency},
			Balances: aisBalances(a.Balances, a.Available(), a.Currency, today, f),
		})
		for _, detail := range []bool{false, true} {
			c := testCard(detail)
			g.add(fmt.Sprintf("%s card balances, details %v", name, detail), aisCardBalancesView{Balances: aisCardBalances(c, today, f), CardAccount: maskedPanView{c.MaskedPan}})
			for _, withBalance := range []bool{false, true} {
				g.add(fmt.Sprintf("%s card accounts, details %v, withBalance %v", name, detail, withBalance), struct {
					CardAccounts []aisCardView `json:"cardAccounts"`
				}{[]aisCardView{aisCardOf(c, withBalance, f, today)}})
			}
		}
	}
	g.check()
}

func TestViews_CardTransactionPage(t *testing.T) {
	today := bank.Date{Year: 2026, Month: time.November, Day: 20}
	txs := testCardTransactions()
	g := newGolden(t, "card-transaction-page")
	for _, name := range sortedFixes() {
		f := fixSets()[name]
		for _, status := range []string{"booked", "pending", "both"} {
			for _, withBalance := range []bool{false, true} {
				q := bank.AISQuery{Status: status, WithBalance: withBalance, TxQuery: bank.TxQuery{Limit: 2, Offset: 2}}
				page := bank.AISCardPage{Card: testCard(true), CardTxPage: bank.CardTxPage{Booked: txs[:3], Pending: txs[3:], Total: 7}, From: today.AddDays(-90)}
				g.add(fmt.Sprintf("%s, %+v", name, q), aisCardTxPageOf("enc!!card", page, q, f, today))
			}
		}
	}
	g.check()
}

func TestViews_SandboxLists(t *testing.T) {
	a := testAccount()
	d := bank.AccountDetail{Account: a, Owner: bank.Customer{Number: "13039319955"}}
	bare := bank.AccountDetail{Account: bank.Account{ID: "enc!!bare"}}
	g := newGolden(t, "sandbox-lists")
	g.add("sandbox accounts", []accountView{accountOf(d), accountOf(bare)})
	var txs []transactionView
	for _, tx := range testTransactions() {
		txs = append(txs, transactionOf(a.ID, tx))
	}
	g.add("sandbox transactions", txs)
	g.check()
}

// decodedHasTopLevelKey is how the bank looked for a top-level key before:
// decoding the object, value by value.
func decodedHasTopLevelKey(object []byte, key string) bool {
	dec := json.NewDecoder(bytes.NewReader(object))
	if _, err := dec.Token(); err != nil {
		return false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if tok == key {
			return true
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return false
		}
	}
	return false
}

func TestWithWarnings_FindsTopLevelKeysOnly(t *testing.T) {
	notes := []apierr.Message{apierr.Oddity(apierr.CodeBadRequest, "x", "is ignored")}
	bodies := []string{
		`{"a":1}`, "{}\n", `{ }`, `{"tppMessages":[]}`, `{"a":{"tppMessages":[]},"b":"tppMessages"}`,
		`{"a":["tppMessages",{"tppMessages":1}],"b":"x\"tppMessages\""}`, `{"a":"\\","tppMessages":2}`,
		`{"a":"}\"{[","b":[[{"c":"]"}]],"tppMessages":null}`, `{"tpp\u004dessages":1}`, `["tppMessages"]`,
		`{"a\\":"\\\\","tppMessages":1}`, `{"tppMessages\\":1}`, `{"tppMessage\u0073":1}`, `{"x":"tppMessages","y":1}`,
		` {"b" : "\\\"" , "tppMessages" : {}} `, `{"x":[1,2,{"y":"z"}],"tppMessagesX":1,"tppMessages":0}`,
	}
	// And every answer of the tests above, with and without the key.
	today := bank.Date{Year: 2026, Month: time.November, Day: 20}
	page := aisTxPageOf("enc!!acct", bank.AISTxPage{Account: testAccount(), Booked: bank.TxPage{Transactions: testTransactions()}}, bank.AISQuery{Status: "both", WithBalance: true}, bank.Fixes{}, today)
	cards := aisCardTxPageOf("enc!!card", bank.AISCardPage{Card: testCard(true), CardTxPage: bank.CardTxPage{Booked: testCardTransactions()}}, bank.AISQuery{Status: "both"}, bank.Fixes{}, today)
	for _, v := range []any{page, cards, map[string]any{"page": page, "tppMessages": []string{}}, map[string]any{"a": cards, "z": page}} {
		bodies = append(bodies, encoded(t, v))
	}
	for _, body := range bodies {
		object := strings.HasPrefix(strings.TrimSpace(body), "{")
		want := object && decodedHasTopLevelKey([]byte(strings.TrimSpace(body)), "tppMessages")
		if object {
			// Fed whole, and in two pieces split at every byte of a short
			// body, as a body spilled to a file is read.
			trimmed := []byte(strings.TrimSpace(body))
			for at := range min(len(trimmed), 200) + 1 {
				scan := keyScan{key: "tppMessages"}
				_, _ = scan.Write(trimmed[:at])
				_, _ = scan.Write(trimmed[at:])
				if scan.found != want {
					t.Errorf("%.200s split at %d: keyScan found %v, decoding says %v", body, at, scan.found, want)
				}
			}
		}
		var b bytes.Buffer
		b.WriteString(body)
		withWarnings(&b, notes)
		added := strings.Contains(b.String(), `"is ignored"`)
		if added != (object && !want) || (added && !json.Valid(b.Bytes())) {
			t.Errorf("%.200s: became %.300s", body, b.String())
		}
	}
}
