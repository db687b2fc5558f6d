package bank_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/apierr"
	"sandbank/bank/scenario"
	"sandbank/bank/validate"
	"sandbank/storage"
)

// FuzzParseDate checks ParseDate: a date it accepts is written back as the
// same text, survives Key, JSON and the Oslo calendar unchanged, and day
// and month arithmetic agrees with the standard library's calendar.
func FuzzParseDate(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string, n int16) {
		d, err := bank.ParseDate(s)
		var jd bank.Date
		jerr := jd.UnmarshalJSON([]byte(`"` + s + `"`))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error text")
			}
			if jerr == nil && !strings.ContainsAny(s, `"\`) {
				t.Fatalf("ParseDate(%q) fails (%v) but the JSON string reads as %v", s, err, jd)
			}
			return
		}
		if jerr != nil || jd != d {
			t.Fatalf("ParseDate(%q) = %v, but as JSON: %v, %v", s, d, jd, jerr)
		}
		if d.String() != s {
			t.Fatalf("ParseDate(%q) writes back as %q", s, d.String())
		}
		if d.Year < 1900 || d.Year > 9999 || d.IsZero() {
			t.Fatalf("ParseDate(%q) = %+v, outside 1900-9999", s, d)
		}
		if got := bank.DateFromKey(d.Key()); got != d {
			t.Fatalf("DateFromKey(Key(%v)) = %v", d, got)
		}
		if got := bank.DateOf(d.Time()); got != d {
			t.Fatalf("DateOf(%v.Time()) = %v", d, got)
		}
		if m, err := d.MarshalJSON(); err != nil || string(m) != `"`+s+`"` {
			t.Fatalf("MarshalJSON(%v) = %s, %v", d, m, err)
		}
		std, _ := time.Parse(time.DateOnly, s)
		if d.Weekday() != std.Weekday() {
			t.Fatalf("%v is a %v, the standard library says %v", d, d.Weekday(), std.Weekday())
		}
		days := int(n)
		later := d.AddDays(days)
		if want := std.AddDate(0, 0, days); later != (bank.Date{Year: want.Year(), Month: want.Month(), Day: want.Day()}) {
			t.Fatalf("%v.AddDays(%d) = %v, want %v", d, days, later, want.Format(time.DateOnly))
		}
		if back := later.AddDays(-days); back != d {
			t.Fatalf("%v.AddDays(%d).AddDays(%d) = %v", d, days, -days, back)
		}
		if c := later.Compare(d); c != cmp.Compare(days, 0) || later.After(d) != (days > 0) || later.Before(d) != (days < 0) {
			t.Fatalf("%v compares %d (after %v, before %v) with %v, %d days later", later, c, later.After(d), later.Before(d), d, days)
		}
		months := int(n % 1200)
		m := d.AddMonths(months)
		wantMonth := time.Date(d.Year, d.Month+time.Month(months), 1, 12, 0, 0, 0, time.UTC)
		if m.Year != wantMonth.Year() || m.Month != wantMonth.Month() || m.Day > d.Day || (m.Day < d.Day && m.AddDays(1).Month == m.Month) {
			t.Fatalf("%v.AddMonths(%d) = %v", d, months, m)
		}
	})
}

// amountText is the shape of a PSD2 amount.
var amountText = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// FuzzParseAmount checks ParseAmount and FormatAmount: an accepted amount
// has the PSD2 shape and at most the currency's minor digits, and written
// with FormatAmount it reads back as the same number; a JSON number reads
// as the same value into a sandbox Number.
func FuzzParseAmount(f *testing.F) {
	f.Fuzz(func(t *testing.T, s, currency string) {
		d, err := bank.ParseAmount(s, currency)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error text")
			}
			return
		}
		if !amountText.MatchString(s) {
			t.Fatalf("ParseAmount(%q, %q) accepted a text that is not an amount", s, currency)
		}
		minor := validate.MinorUnits(currency)
		_, frac, _ := strings.Cut(s, ".")
		if minor >= 0 && len(frac) > minor {
			t.Fatalf("ParseAmount(%q, %q) accepted %d decimals; %s has %d", s, currency, len(frac), currency, minor)
		}
		if want := decimal.RequireFromString(s); !d.Equal(want) {
			t.Fatalf("ParseAmount(%q) = %v", s, d)
		}
		if minor >= 0 {
			out := bank.FormatAmount(d, currency)
			if _, f, _ := strings.Cut(out, "."); len(f) != minor {
				t.Fatalf("FormatAmount(%v, %q) = %q, want %d decimals", d, currency, out, minor)
			}
			back, err := bank.ParseAmount(out, currency)
			if err != nil || !back.Equal(d) {
				t.Fatalf("FormatAmount(%v, %q) = %q reads back as %v, %v", d, currency, out, back, err)
			}
		}
		if !json.Valid([]byte(s)) {
			return // leading zeros: an amount, but not a JSON number
		}
		var n bank.Number
		if err := json.Unmarshal([]byte(s), &n); err != nil || !n.Value.Equal(d) {
			t.Fatalf("the JSON number %s reads as %v, %v", s, n.Value, err)
		}
		if m, err := n.MarshalJSON(); err != nil || !decimal.RequireFromString(string(m)).Equal(d) {
			t.Fatalf("Number %v writes %s, %v", d, m, err)
		}
	})
}

// fieldCodes are the codes a finding about a request's fields may have
// (the 400 codes of docs/SANDBOX-API.md 1.4, and RESOURCE_UNKNOWN for a record a body
// names that does not exist, section 9).
var fieldCodes = []string{apierr.CodeBadRequest, apierr.CodeFormatError, apierr.CodeHeaderRequired, apierr.CodeQueryParamRequired, apierr.CodePeriodInvalid,
	apierr.CodeExecutionDateInvalid, apierr.CodeKIDMissing, apierr.CodeKIDInvalid, apierr.CodeReferenceMixInvalid, apierr.CodeProductInvalid,
	apierr.CodeSignatureMissing, apierr.CodeSignatureInvalid, apierr.CodeCertificateInvalid, apierr.CodeCertificateExpired,
	apierr.CodeCorporateIDRequired, apierr.CodeResourceUnknown}

// checkAPIError checks that err is what the API can answer a client: a
// *bank.Error with a code a client may see (a finding about a field when
// it is Invalid), a message, and one well-formed tppMessage per finding,
// none of them leaking Go internals.
func checkAPIError(t *testing.T, what string, err error) {
	t.Helper()
	e, ok := apierr.AsError(err)
	if !ok {
		t.Fatalf("%s: %v is not a *bank.Error: the API would answer 500", what, err)
	}
	switch {
	case e.Invalid && !slices.Contains(fieldCodes, e.Code):
		t.Fatalf("%s: a finding about a field with code %s: %v", what, e.Code, e)
	case !slices.Contains(apierr.Codes, e.Code) || e.Code == apierr.CodeSystemError || e.Code == apierr.CodeNotFound:
		t.Fatalf("%s: code %s is not one a service answers: %v", what, e.Code, e)
	}
	checkText(t, what+": message", e.Message)
	if len(e.Messages) == 0 {
		t.Fatalf("%s: %v has no tppMessages", what, e)
	}
	for _, m := range e.Messages {
		if m.Category != "ERROR" || !slices.Contains(apierr.Codes, m.Code) || m.Code == apierr.CodeSystemError {
			t.Fatalf("%s: tppMessage %+v", what, m)
		}
		checkText(t, what+": tppMessage", m.Text)
		if !utf8.ValidString(m.Path) {
			t.Fatalf("%s: tppMessage path %q", what, m.Path)
		}
	}
}

// checkText checks a text a client reads: not empty, at most 512 bytes of
// UTF-8, and no Go error, stack trace or file path.
func checkText(t *testing.T, what, s string) {
	t.Helper()
	if s == "" || len(s) > apierr.MaxMessageText || !utf8.ValidString(s) {
		t.Fatalf("%s %q: empty, too long or not UTF-8", what, s)
	}
	for _, leak := range []string{".go:", "goroutine ", "json: ", "strconv.", "runtime error"} {
		if strings.Contains(s, leak) {
			t.Fatalf("%s %q leaks %q", what, s, leak)
		}
	}
}

// fuzzBank is a bank in the known state over a data file written without
// fsync, and that file's path.
type fuzzBank struct {
	*bank.Bank
	path string
}

func newFuzzBank(f *testing.F) fuzzBank {
	path := filepath.Join(f.TempDir(), "sandbank.db")
	db, err := storage.Open(path, time.Second)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = db.Close() })
	db.SetNoSync(true)
	s := bank.New(db, fixedClock{testNow})
	if _, err := scenario.Initialize(s.Sandbox); err != nil {
		f.Fatal(err)
	}
	return fuzzBank{s, path}
}

// known returns the id of the first record list gives, failing when there
// is none.
func known[T any](f *testing.F, list []T, err error, id func(T) string) string {
	if err != nil || len(list) == 0 {
		f.Fatalf("the known state has none: %v", err)
	}
	return id(list[0])
}

// body is one kind of request body: its name and what the bank does with
// it, returning an error or a check of the result.
type body struct {
	name string
	run  func(t *testing.T, data []byte) error
}

// decodeInto decodes data strictly into a new T, as the API does.
func decodeInto[T any](data []byte) (T, error) {
	var v T
	return v, bank.DecodeJSON(data, &v)
}

// sandboxBodies are the bodies of the sandbox data API (docs/SANDBOX-API.md), each
// decoded and handed to the service its endpoint calls.
func sandboxBodies(f *testing.F, b fuzzBank) []body {
	accounts, err := b.Sandbox.Accounts()
	accountID := known(f, accounts, err, func(a bank.AccountDetail) string { return a.ID })
	cards, err := b.Sandbox.CardAccounts()
	cardID := known(f, cards, err, func(c bank.CardAccountDetail) string { return c.ID })
	agreements, err := b.Sandbox.Agreements()
	var corporate []bank.AgreementDetail
	for _, a := range agreements {
		if a.Owner.IsCorporate() {
			corporate = append(corporate, a)
		}
	}
	agreementID := known(f, corporate, err, func(a bank.AgreementDetail) string { return a.ID })
	const tpp = "NO-FSA-933012867"
	return []body{
		{"customer", func(t *testing.T, data []byte) error {
			in, err := decodeInto[bank.NewCustomer](data)
			if err != nil {
				return err
			}
			c, err := b.Sandbox.CreateCustomer(in)
			if err == nil {
				if d, err := b.Sandbox.Customer(c.ID); err != nil || d.Number != in.CustomerNumber || d.Type != in.Type || d.IsPrivate() == d.IsCorporate() {
					t.Fatalf("created %+v, reads back as %+v, %v", c, d, err)
				}
			}
			return err
		}},
		{"account", func(t *testing.T, data []byte) error {
			in, err := decodeInto[bank.NewAccount](data)
			if err != nil {
				return err
			}
			a, err := b.Sandbox.CreateAccount(in)
			if err == nil {
				if validate.IBAN(a.IBAN) != nil || len(a.BBAN) > 30 || a.Owner.Number != in.CustomerNumber {
					t.Fatalf("created account %+v from %+v", a, in)
				}
				if _, err := b.Sandbox.Account(a.ID); err != nil {
					t.Fatalf("created %s, reads back: %v", a.ID, err)
				}
			}
			return err
		}},
		{"account balances", func(t *testing.T, data []byte) error {
			in, err := decodeInto[[]bank.BalanceInput](data)
			if err != nil {
				return err
			}
			_, err = b.Sandbox.SetAccountBalances(accountID, in)
			return err
		}},
		{"account transactions", func(t *testing.T, data []byte) error {
			in, err := decodeInto[[]bank.NewTransaction](data)
			if err != nil {
				return err
			}
			posted, err := b.Sandbox.AddTransactions(accountID, in)
			list := posted.Transactions
			if err == nil {
				if len(list) != len(in) {
					t.Fatalf("posted %d transactions, %d created", len(in), len(list))
				}
				for _, tx := range list {
					if tx.BookingDate.After(tx.ValueDate) || !tx.BookingDate.Before(b.Ops.Today()) {
						t.Fatalf("created %+v: booked after its value date or not before today", tx)
					}
				}
			}
			return err
		}},
		{"card account", func(t *testing.T, data []byte) error {
			in, err := decodeInto[bank.NewCardAccount](data)
			if err != nil {
				return err
			}
			c, err := b.Sandbox.CreateCardAccount(in)
			if err == nil && !slices.Contains(bank.Statuses, c.Status) {
				t.Fatalf("created card account %+v", c)
			}
			return err
		}},
		{"card balances", func(t *testing.T, data []byte) error {
			in, err := decodeInto[[]bank.CardBalanceInput](data)
			if err != nil {
				return err
			}
			_, err = b.Sandbox.SetCardBalances(cardID, in)
			return err
		}},
		{"card transactions", func(t *testing.T, data []byte) error {
			in, err := decodeInto[[]bank.NewCardTransaction](data)
			if err != nil {
				return err
			}
			res, err := b.Sandbox.AddCardTransactions(cardID, in)
			if err == nil && len(res.Booked)+len(res.Pending) != len(in) {
				t.Fatalf("posted %d card transactions, %d booked and %d pending", len(in), len(res.Booked), len(res.Pending))
			}
			return err
		}},
		{"agreement", func(t *testing.T, data []byte) error {
			in, err := decodeInto[bank.NewAgreement](data)
			if err != nil {
				return err
			}
			a, err := b.Sandbox.CreateAgreement(in)
			if err == nil && (a.Owner.Number != in.Owner || len(a.Engagements) != len(in.Engagements)) {
				t.Fatalf("created agreement %+v from %+v", a, in)
			}
			return err
		}},
		{"engagement", func(t *testing.T, data []byte) error {
			in, err := decodeInto[bank.NewEngagement](data)
			if err != nil {
				return err
			}
			e, err := b.Sandbox.CreateEngagement(agreementID, in)
			if err == nil && (len(e.Roles) == 0 || e.RegisterLimit.IsNegative() || e.ApprovalLimit.IsNegative()) {
				t.Fatalf("created engagement %+v", e)
			}
			return err
		}},
		{"contact information", func(t *testing.T, data []byte) error {
			in, err := decodeInto[struct {
				Email string `json:"email"`
			}](data)
			if err != nil {
				return err
			}
			c, _, err := b.PSD2.SetTPPContact(tpp, tpp, in.Email)
			if err == nil {
				if got, err := b.PSD2.TPPContact(tpp, tpp); err != nil || got.Email != in.Email || c.Email != in.Email {
					t.Fatalf("set %q, reads back %+v, %v", in.Email, got, err)
				}
			}
			return err
		}},
		{"clock", func(t *testing.T, data []byte) error {
			in, err := decodeInto[bank.ClockChange](data)
			if err != nil {
				return err
			}
			st, err := b.Ops.SetClock(in)
			if err == nil {
				defer func() {
					zero := int64(0)
					if _, err := b.Ops.SetClock(bank.ClockChange{OffsetSeconds: &zero}); err != nil {
						t.Fatal(err)
					}
				}()
				if got := b.Ops.Clock(); got != st || st.Now.Sub(testNow.Add(time.Duration(st.OffsetSeconds)*time.Second)).Abs() > time.Second {
					t.Fatalf("clock set to %+v, reads %+v", st, got)
				}
			}
			return err
		}},
		{"faults", func(t *testing.T, data []byte) error {
			in, err := decodeInto[bank.Faults](data)
			if err != nil {
				return err
			}
			got, err := b.Ops.SetFaults(in)
			if err == nil && (got != in || b.Ops.Faults() != in || got.Check() != nil) {
				t.Fatalf("set faults %+v, got %+v, reads %+v", in, got, b.Ops.Faults())
			}
			return err
		}},
		{"automated SCA", func(t *testing.T, data []byte) error {
			in, err := decodeInto[bank.AutoSCA](data)
			if err != nil {
				return err
			}
			a, err := b.PSD2.StartSCA(bank.SCARequest{TPPID: tpp, Kind: bank.AuthConsent, RedirectURI: "https://tpp.example/cb", SessionID: "fuzz"})
			if err != nil {
				t.Fatal(err)
			}
			redirect, err := b.PSD2.AutomatedSCA(tpp, a.ID, in)
			if err == nil && !strings.HasPrefix(redirect, "https://tpp.example/cb?") {
				t.Fatalf("automated SCA redirects to %q", redirect)
			}
			// A failed try may count against the authorisation: the data
			// file may change.
			return errUnchecked{err}
		}},
		{"scenario", func(t *testing.T, data []byte) error {
			// The import reads the document as a stream, as the window and
			// the API do; the whole document decoded is the oracle.
			var in scenario.Scenario
			_, decodeErr := bank.DecodeTolerant(data, &in)
			for _, a := range in.Accounts {
				if a.History != nil && a.History.Count > 10_000 {
					t.Skip("a large generated history") // allowed, but slow to fuzz
				}
			}
			for _, c := range in.CardAccounts {
				if c.History != nil && c.History.Count > 10_000 {
					t.Skip("a large generated history")
				}
			}
			n, err := scenario.Import(b.Sandbox, bytes.NewReader(data))
			if err == nil {
				if decodeErr != nil {
					t.Fatalf("the streamed import took a document that does not decode: %v", decodeErr)
				}
				if n.Customers != len(in.Customers) || n.Accounts != len(in.Accounts) || n.CardAccounts != len(in.CardAccounts) {
					t.Fatalf("imported %d customers, %d accounts, %d card accounts; counts %+v", len(in.Customers), len(in.Accounts), len(in.CardAccounts), n)
				}
				if _, err := scenario.Initialize(b.Sandbox); err != nil {
					t.Fatal(err)
				}
			}
			return err
		}},
	}
}

// errUnchecked wraps the error of a request that may change the data file
// even when it fails.
type errUnchecked struct{ err error }

func (e errUnchecked) Error() string { return e.err.Error() }

// requestTimeout bounds one request: a request that takes longer hangs.
const requestTimeout = time.Minute

// bounded runs fn and fails the test when it does not return within
// requestTimeout.
func bounded(t *testing.T, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(requestTimeout):
		t.Fatalf("%s: no answer within %v", what, requestTimeout)
		return nil
	}
}

// runBody runs one body and checks that a failure is an error the API can
// answer and, unless the operation says otherwise, left the data file as
// it was.
func runBody(t *testing.T, b fuzzBank, k body, data []byte) {
	before := apptest.MetaPages(t, b.path)
	err := bounded(t, k.name, func() error { return k.run(t, data) })
	mayChange := false
	if u, ok := err.(errUnchecked); ok {
		err, mayChange = u.err, true
	}
	if err == nil {
		return
	}
	checkAPIError(t, k.name, err)
	if !mayChange && !bytes.Equal(before, apptest.MetaPages(t, b.path)) {
		t.Fatalf("%s: the request failed (%v) but changed the data file", k.name, err)
	}
}

// FuzzSandboxBody decodes and validates every body of the sandbox data API
// with the service its endpoint calls, over a real data file: a body is
// either taken, and what it created reads back, or refused with a
// documented error that changed nothing.
func FuzzSandboxBody(f *testing.F) {
	b := newFuzzBank(f)
	kinds := sandboxBodies(f, b)
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		runBody(t, b, kinds[int(kind)%len(kinds)], data)
	})
}

// FuzzPaymentBody decodes and validates payment initiation bodies for
// every service and product, as the PSU Test Testperson 1: a payment is
// created RCVD with amounts of the currency's minor digits on a banking
// day, or refused with a documented error that changed nothing.
func FuzzPaymentBody(f *testing.F) {
	b := newFuzzBank(f)
	type product struct{ service, product string }
	products := []product{
		{bank.ServiceSingle, bank.ProductNDCT},
		{bank.ServicePeriodic, bank.ProductNDCT},
		{bank.ServiceBulk, bank.ProductNDCT},
		{bank.ServiceSingle, bank.ProductNCBCT},
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte, allowDuplicate bool) {
		p := products[int(kind)%len(products)]
		runBody(t, b, body{p.service + " " + p.product, func(t *testing.T, data []byte) error {
			in, err := decodeInto[bank.PaymentRequest](data)
			if err != nil {
				return err
			}
			created, err := b.PSD2.CreatePayment(bank.PaymentInit{
				TPPID: "NO-FSA-933012867", Service: p.service, Product: p.product, Body: in,
				NationalID: "13039319955", RedirectURI: "https://tpp.example/cb", SessionID: "fuzz", AllowDuplicate: allowDuplicate,
			})
			if err != nil {
				return err
			}
			pay := created.Payment
			if pay.Status != bank.StatusRCVD || created.Authorisation.ID == "" || len(pay.Items) == 0 {
				t.Fatalf("created %+v", created)
			}
			if p.service == bank.ServiceBulk && len(pay.Items) != len(in.Payments) {
				t.Fatalf("a bulk of %d payments has %d items", len(in.Payments), len(pay.Items))
			}
			for _, it := range pay.Items {
				minor := validate.MinorUnits(it.Currency)
				if !it.Amount.IsPositive() || minor < 0 || !it.Amount.Equal(it.Amount.Round(int32(minor))) {
					t.Fatalf("item amount %v %s", it.Amount, it.Currency)
				}
			}
			if p.service != bank.ServicePeriodic && (!bank.IsBankingDay(pay.ExecutionDate) || pay.ExecutionDate.Before(b.Ops.Today())) {
				t.Fatalf("executes on %v", pay.ExecutionDate)
			}
			return nil
		}}, data)
	})
}
