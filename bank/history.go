package bank

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"sandbank/bank/apierr"
	"sandbank/bank/validate"
)

// History asks for generated, realistic transactions on an account or card
// account. Profiles: everyday (a private current account: salary, rent,
// groceries, bills, card settlements), savings, business (a company's
// operating account), currency (a company's foreign-currency account), tax
// (a withholding-tax account) and card (card purchases, refunds and
// payments). Without Count, the history covers Months months (default 6) on
// the profile's calendar; with Count, exactly Count transactions are spread
// evenly over the months.
type History struct {
	Profile string `json:"profile"`
	Months  int    `json:"months,omitempty"`
	Count   int    `json:"count,omitempty"`
}

// HistoryProfiles lists the profiles of History.
var HistoryProfiles = []string{"everyday", "savings", "business", "currency", "tax", "card"}

// MaxHistoryCount bounds one generation request.
const MaxHistoryCount = 5_000_000

// CheckHistory checks a History and fills its defaults.
func CheckHistory(v *apierr.Violations, path string, h History, card bool) History {
	if card && h.Profile != "card" || !card && h.Profile == "card" {
		if card {
			v.Format(apierr.JoinPath(path, "profile"), "card accounts take the profile card")
		} else {
			v.Format(apierr.JoinPath(path, "profile"), "the profile card is for card accounts; use one of everyday, savings, business, currency, tax")
		}
	} else {
		CheckOneOf(v, apierr.JoinPath(path, "profile"), h.Profile, HistoryProfiles)
	}
	if h.Months == 0 {
		h.Months = 6
	}
	if h.Months < 1 || h.Months > 120 {
		v.Format(apierr.JoinPath(path, "months"), "must be between 1 and 120")
	}
	if h.Count < 0 || h.Count > MaxHistoryCount {
		v.Format(apierr.JoinPath(path, "count"), "must be between 0 and %d", MaxHistoryCount)
	}
	return h
}

// event is one kind of transaction a profile produces.
type event struct {
	name, remittance string
	min, max         int64   // amount range in minor units; negative for debits
	dayOfMonth       int     // > 0: once a month on this day
	perWeek          float64 // otherwise: expected times per week
	btc, purpose     string
	mcc              string // card events
	foreign          string // card events: the merchant's currency
	counterIBAN      string // a fixed counterparty account, else a generated Norwegian one
	// The optional Berlin Group fields a TPP's parser should meet: a bill
	// paid with a KID instead of a text, the ultimate debtor a salary is
	// paid for, the counterparty's BIC (and this bank's on the own side),
	// and a second remittance line with the customer number.
	kid            bool
	ultimateDebtor string
	agent          string
	lines          bool
}

var profiles = map[string][]event{
	"everyday": {
		{name: "Arbeidsgiver AS", remittance: "Lønn %s", min: 3_850_000, max: 5_200_000, dayOfMonth: 25, btc: "PMNT-RCDT-ESCT", purpose: "SALA", ultimateDebtor: "Arbeidsgiver Drift AS"},
		{name: "Husleie Grünerløkka AS", remittance: "Husleie %s", min: -1_450_000, max: -1_450_000, dayOfMonth: 1, btc: "PMNT-ICDT-ESCT"},
		{name: "Fjordkraft AS", remittance: "Strøm %s", min: -220_000, max: -60_000, dayOfMonth: 15, btc: "PMNT-RDDT-ESDD", kid: true},
		{name: "Telia Norge AS", remittance: "Mobil %s", min: -39_900, max: -39_900, dayOfMonth: 20, btc: "PMNT-RDDT-ESDD", kid: true},
		{name: "Gjensidige Forsikring", remittance: "Forsikring %s", min: -124_500, max: -124_500, dayOfMonth: 5, btc: "PMNT-RDDT-ESDD", kid: true},
		{name: "Mastercard", remittance: "Kortfaktura %s", min: -800_000, max: -250_000, dayOfMonth: 10, btc: "PMNT-ICDT-ESCT"},
		{name: "REMA 1000", remittance: "Varekjøp", min: -120_000, max: -8_900, perWeek: 2.5, btc: "PMNT-CCRD-POSD"},
		{name: "KIWI", remittance: "Varekjøp", min: -90_000, max: -4_900, perWeek: 1.2, btc: "PMNT-CCRD-POSD"},
		{name: "Coop Extra", remittance: "Varekjøp", min: -110_000, max: -6_500, perWeek: 0.8, btc: "PMNT-CCRD-POSD"},
		{name: "Vinmonopolet", remittance: "Varekjøp", min: -60_000, max: -19_900, perWeek: 0.2, btc: "PMNT-CCRD-POSD"},
		{name: "Ruter AS", remittance: "Månedsbillett", min: -89_900, max: -89_900, dayOfMonth: 3, btc: "PMNT-CCRD-POSD"},
		{name: "Vipps", remittance: "Vipps overføring", min: 10_000, max: 80_000, perWeek: 0.3, btc: "PMNT-RCDT-ESCT"},
	},
	"savings": {
		{name: "Sparing fra annen bank", remittance: "Månedlig sparing", min: 200_000, max: 500_000, dayOfMonth: 26, btc: "PMNT-RCDT-ESCT"},
		{name: "Renter", remittance: "Renter", min: 1_000, max: 40_000, dayOfMonth: 28, btc: "ACMT-MDOP-INTR"},
		{name: "Uttak", remittance: "Uttak sparing", min: -300_000, max: -50_000, perWeek: 0.05, btc: "PMNT-ICDT-ESCT"},
	},
	"business": {
		{name: "Kunde AS", remittance: "Faktura %d", min: 500_000, max: 12_000_000, perWeek: 2.5, btc: "PMNT-RCDT-ESCT"},
		{name: "Leverandør AS", remittance: "Faktura %d", min: -6_000_000, max: -300_000, perWeek: 2, btc: "PMNT-ICDT-ESCT", lines: true},
		{name: "Ansatte", remittance: "Lønn ansatte %s", min: -28_000_000, max: -24_000_000, dayOfMonth: 25, btc: "PMNT-ICDT-ESCT", purpose: "SALA"},
		{name: "Næringsbygg Eiendom AS", remittance: "Husleie kontor %s", min: -4_200_000, max: -4_200_000, dayOfMonth: 1, btc: "PMNT-ICDT-ESCT"},
		{name: "Skatteetaten", remittance: "MVA-termin", min: -9_000_000, max: -3_000_000, dayOfMonth: 10, btc: "PMNT-ICDT-ESCT", purpose: "TAXS"},
		{name: "Banken", remittance: "Gebyrer %s", min: -45_000, max: -12_000, dayOfMonth: 28, btc: "ACMT-MDOP-FEES"},
	},
	"currency": {
		{name: "Deutsche Kunde GmbH", remittance: "Invoice %d", min: 250_000, max: 4_500_000, perWeek: 1, btc: "PMNT-RCDT-XBCT", counterIBAN: "DE89370400440532013000", agent: "COBADEFFXXX"},
		{name: "Svensk Kund AB", remittance: "Invoice %d", min: 150_000, max: 2_000_000, perWeek: 0.5, btc: "PMNT-RCDT-XBCT", counterIBAN: "SE4550000000058398257466", agent: "ESSESESSXXX"},
		{name: "Fournisseur SARL", remittance: "Facture %d", min: -1_800_000, max: -120_000, perWeek: 0.8, btc: "PMNT-ICDT-XBCT", counterIBAN: "FR1420041010050500013M02606", agent: "PSSTFRPPXXX"},
		{name: "Banken", remittance: "Gebyrer %s", min: -4_000, max: -1_500, dayOfMonth: 28, btc: "ACMT-MDOP-FEES"},
	},
	"tax": {
		{name: "Skattetrekk", remittance: "Skattetrekk %s", min: 6_000_000, max: 8_500_000, dayOfMonth: 24, btc: "PMNT-RCDT-ESCT", purpose: "TAXS"},
		{name: "Skatteetaten", remittance: "Forskuddstrekk %s", min: -16_000_000, max: -12_000_000, dayOfMonth: 15, btc: "PMNT-ICDT-ESCT", purpose: "TAXS"},
	},
	"card": {
		{name: "REMA 1000", remittance: "Varekjøp", min: -95_000, max: -4_900, perWeek: 1.5, mcc: "5411"},
		{name: "Circle K", remittance: "Drivstoff", min: -110_000, max: -30_000, perWeek: 0.6, mcc: "5541"},
		{name: "Peppes Pizza", remittance: "Restaurant", min: -85_000, max: -25_000, perWeek: 0.4, mcc: "5812"},
		{name: "Amazon.com", remittance: "Netthandel", min: -9_000, max: -1_500, perWeek: 0.3, mcc: "5942", foreign: "USD"},
		{name: "Zalando SE", remittance: "Netthandel", min: -12_000, max: -2_500, perWeek: 0.2, mcc: "5651", foreign: "EUR"},
		{name: "Netflix", remittance: "Abonnement", min: -17_900, max: -17_900, dayOfMonth: 7, mcc: "4899"},
		{name: "Zalando SE", remittance: "Retur", min: 2_500, max: 8_000, perWeek: 0.05, mcc: "5651", foreign: "EUR"},
	},
}

// historyFX are the rough NOK rates the card history converts with, and
// historyMarkup the card's fee on a purchase abroad, in percent.
var (
	historyFX     = map[string]decimal.Decimal{"USD": decimal.RequireFromString("10.65"), "EUR": decimal.RequireFromString("11.70")}
	historyMarkup = decimal.RequireFromString("1.75")
)

// norwegianMonths names the months in remittance texts.
var norwegianMonths = [...]string{"januar", "februar", "mars", "april", "mai", "juni", "juli", "august", "september", "oktober", "november", "desember"}

// generated is one planned transaction.
type generated struct {
	ev   *event
	date Date
	rng  *rand.Rand
}

// planner lays out the dates and events of a history ending yesterday,
// one at a time (next), deterministically from seed.
type planner struct {
	h           History
	events      []event
	rng         *rand.Rand
	first, last Date
	days        int
	// i is the next transaction of a history of Count transactions; day
	// and ev the next day and event of one laid out on the calendar.
	i   int
	day Date
	ev  int
}

func newPlanner(h History, seed string, today Date) *planner {
	hash := fnv.New64a()
	_, _ = hash.Write([]byte(seed + "/" + h.Profile))
	first, last := today.AddMonths(-h.Months), today.AddDays(-1)
	return &planner{
		h: h, events: profiles[h.Profile], rng: rand.New(rand.NewPCG(hash.Sum64(), uint64(h.Months)<<32|uint64(h.Count))),
		first: first, last: last, days: int(last.Time().Sub(first.Time()).Hours()/24) + 1, day: first,
	}
}

// next returns the event and the date of the next planned transaction,
// and false after the last.
func (p *planner) next() (*event, Date, bool) {
	if p.h.Count > 0 {
		if p.i >= p.h.Count {
			return nil, Date{}, false
		}
		ev := &p.events[p.rng.IntN(len(p.events))]
		date := p.first.AddDays(int(int64(p.i) * int64(p.days) / int64(p.h.Count)))
		p.i++
		return ev, date, true
	}
	for ; !p.day.After(p.last); p.day, p.ev = p.day.AddDays(1), 0 {
		for p.ev < len(p.events) {
			ev := &p.events[p.ev]
			p.ev++
			switch {
			case ev.dayOfMonth > 0:
				if p.day.Day == min(ev.dayOfMonth, lastDayOfMonth(p.day)) {
					return ev, p.day, true
				}
			case p.rng.Float64() < ev.perWeek/7:
				return ev, p.day, true
			}
		}
	}
	return nil, Date{}, false
}

// plan hands out a history's planned transactions a chunk at a time, so
// that a history of millions of transactions is never held whole. It
// walks the plan twice: once to count it, which leaves the random source
// where the amounts and texts start drawing, once more to hand it out.
// The history is the one planning it whole and then filling it in gives.
type plan struct {
	next   *planner
	values *rand.Rand
	n      int
	done   int
	chunk  []generated
}

func newPlan(h History, seed string, today Date) *plan {
	count := newPlanner(h, seed, today)
	n := 0
	for _, _, ok := count.next(); ok; _, _, ok = count.next() {
		n++
	}
	return &plan{next: newPlanner(h, seed, today), values: count.rng, n: n}
}

// take returns up to n more planned transactions, in a slice that the
// next call reuses.
func (p *plan) take(n int) []generated {
	p.chunk = p.chunk[:0]
	for len(p.chunk) < n {
		ev, date, ok := p.next.next()
		if !ok {
			break
		}
		p.chunk = append(p.chunk, generated{ev, date, p.values})
	}
	p.done += len(p.chunk)
	return p.chunk
}

// lastDayOfMonth returns the number of days in d's month.
func lastDayOfMonth(d Date) int {
	return Date{d.Year, d.Month, 1}.AddMonths(1).AddDays(-1).Day
}

// amountOf draws an amount in minor units from the event's range.
func (g generated) amountOf() int64 {
	if g.ev.min == g.ev.max {
		return g.ev.min
	}
	return g.ev.min + g.rng.Int64N(g.ev.max-g.ev.min+1)
}

// minorToDecimal turns minor units of currency into an amount.
func minorToDecimal(units int64, currency string) decimal.Decimal {
	return decimal.New(units, -int32(max(validate.MinorUnits(currency), 0)))
}

// remittanceOf fills the event's remittance template.
func (g generated) remittanceOf() string {
	switch {
	case strings.Contains(g.ev.remittance, "%s"):
		return fmt.Sprintf(g.ev.remittance, norwegianMonths[g.date.Month-1])
	case strings.Contains(g.ev.remittance, "%d"):
		return fmt.Sprintf(g.ev.remittance, 10000+g.rng.IntN(90000))
	}
	return g.ev.remittance
}

// counterparty returns the event's counterparty account: its fixed IBAN, or
// a Norwegian account derived from the counterparty's name.
func (g generated) counterparty() AccountRef {
	if g.ev.counterIBAN != "" {
		return AccountRef{IBAN: g.ev.counterIBAN}
	}
	hash := fnv.New32a()
	_, _ = hash.Write([]byte(g.ev.name))
	bban := norwegianBBAN(fmt.Sprintf("9%03d%06d", hash.Sum32()%1000, hash.Sum32()%1_000_000))
	iban, _ := validate.NorwegianIBAN(bban)
	return AccountRef{IBAN: iban, BBAN: bban}
}

// customerNumber is the number the event's counterparty knows the
// account holder by: six digits of its name and the account's id.
func (g generated) customerNumber(accountID string) string {
	hash := fnv.New32a()
	_, _ = hash.Write([]byte(g.ev.name + "/" + accountID))
	return fmt.Sprintf("%06d", hash.Sum32()%1_000_000)
}

// kid is the KID of a bill: the customer number, the year and month, and
// a MOD10 check digit. It draws nothing from the plan's random source, so
// the rest of the history stays as it was.
func (g generated) kid(accountID string) string {
	return validate.CompleteKID(fmt.Sprintf("%s%04d%02d", g.customerNumber(accountID), g.date.Year, int(g.date.Month)))
}

// norwegianBBAN completes ten digits with a valid MOD11 check digit,
// stepping the number up until one exists.
func norwegianBBAN(ten string) string {
	n, _ := strconv.ParseUint(ten, 10, 64)
	for ; ; n++ {
		base := fmt.Sprintf("%010d", n%10_000_000_000)
		for c := byte('0'); c <= '9'; c++ {
			if validate.NorwegianBBAN(base+string(c)) == nil {
				return base + string(c)
			}
		}
	}
}

// accountHistory turns a plan into transaction inputs on account a.
func accountHistory(plan []generated, a Account) []NewTransaction {
	own := AccountRef{IBAN: a.IBAN, BBAN: a.BBAN}
	out := make([]NewTransaction, 0, len(plan))
	empty := ""
	for _, g := range plan {
		amount := minorToDecimal(g.amountOf(), a.Currency)
		other := g.counterparty()
		name, remittance, purpose := g.ev.name, g.remittanceOf(), g.ev.purpose
		t := NewTransaction{
			Amount:                            NumberOf(amount.Abs()),
			Currency:                          a.Currency,
			BookingDate:                       g.date.String(),
			ValueDate:                         g.date.String(),
			RemittanceInformationUnstructured: &remittance,
			CreditorID:                        &empty,
			UltimateCreditor:                  &empty,
			UltimateDebtor:                    &empty,
			PurposeCode:                       &purpose,
			BankTransactionCode:               g.ev.btc,
			EndToEndID:                        fmt.Sprintf("E2E%s%06d", g.date.Time().Format("20060102"), g.rng.IntN(1_000_000)),
		}
		owner := a.Name
		ownAgent, otherAgent := "", g.ev.agent
		if otherAgent != "" {
			ownAgent = BankBIC
		}
		if amount.IsNegative() {
			t.DebtorAccount, t.CreditorAccount = &own, &other
			t.DebtorName, t.CreditorName = &owner, &name
			t.DebtorAgent, t.CreditorAgent = ownAgent, otherAgent
		} else {
			t.DebtorAccount, t.CreditorAccount = &other, &own
			t.DebtorName, t.CreditorName = &name, &owner
			t.DebtorAgent, t.CreditorAgent = otherAgent, ownAgent
		}
		if g.ev.kid {
			// A KID bill carries its reference, not a text.
			t.RemittanceInformationUnstructured = &empty
			t.RemittanceInformationStructuredArray = []StructuredRemittance{{Reference: g.kid(a.ID), ReferenceType: "KID", ReferenceIssuer: g.ev.name}}
		}
		if g.ev.ultimateDebtor != "" {
			ultimate := g.ev.ultimateDebtor
			t.UltimateDebtor = &ultimate
		}
		if g.ev.lines {
			t.RemittanceInformationUnstructuredArray = []string{remittance, "Kundenummer " + g.customerNumber(a.ID)}
		}
		out = append(out, t)
	}
	return out
}

// cardHistory turns a plan into card transaction inputs on card c. A card
// transaction is booked the day after it is made; those of the last two
// days are still pending. Their cardTransactionIds are prefix, the date
// and first+i.
func cardHistory(plan []generated, c CardAccount, today Date, prefix string, first int) []NewCardTransaction {
	out := make([]NewCardTransaction, 0, len(plan))
	for i, g := range plan {
		amount := minorToDecimal(g.amountOf(), c.Currency)
		original := AmountInput{Amount: NumberOf(amount), Currency: c.Currency}
		var exchange *NewCurrencyExchange
		if rate, ok := historyFX[g.ev.foreign]; ok && c.Currency == "NOK" {
			original = AmountInput{Amount: NumberOf(amount.Div(rate).Round(2)), Currency: g.ev.foreign}
			exchange = &NewCurrencyExchange{
				SourceCurrency: g.ev.foreign, TargetCurrency: c.Currency, UnitCurrency: g.ev.foreign,
				ExchangeRate: rate.String(), QuotationDate: g.date.String(),
			}
			if amount.IsNegative() { // a purchase abroad, not a refund
				fee := amount.Neg().Mul(historyMarkup).Div(decimal.NewFromInt(100)).Round(2)
				exchange.MarkupFee = &AmountInput{Amount: NumberOf(fee), Currency: c.Currency}
				exchange.MarkupFeePercentage = historyMarkup.String()
			}
		}
		terminal, acceptor := fmt.Sprintf("T%07d", g.rng.IntN(10_000_000)), fmt.Sprintf("%09d", g.rng.IntN(1_000_000_000))
		details, code := g.ev.name+" "+g.remittanceOf(), "PURCHASE"
		if amount.IsPositive() {
			code = "REFUND"
		}
		t := NewCardTransaction{
			CardTransactionID:              fmt.Sprintf("%s%s%07d", prefix, g.date.Time().Format("20060102"), first+i),
			TerminalID:                     &terminal,
			TransactionDate:                g.date.String(),
			BookingDate:                    g.date.AddDays(1).String(),
			TransactionAmount:              &AmountInput{Amount: NumberOf(amount), Currency: c.Currency},
			OriginalAmount:                 &original,
			MerchantCategoryCode:           g.ev.mcc,
			CurrencyExchange:               exchange,
			CardAcceptorID:                 &acceptor,
			CardAcceptorAddress:            &Address{City: "Oslo", Country: "NO"},
			MaskedPan:                      c.MaskedPan,
			TransactionDetails:             &details,
			Invoiced:                       strconv.FormatBool(g.date.Before(today.AddDays(-30))),
			ProprietaryBankTransactionCode: &code,
		}
		if g.ev.foreign != "" {
			t.CardAcceptorAddress = &Address{City: "Luxembourg", Country: "LU"}
		}
		if g.date.After(today.AddDays(-3)) {
			t.BookingDate = ""
		}
		out = append(out, t)
	}
	return out
}

// HistoryStream hands out the transactions a History generates for one
// account (NewTransaction) or card account (NewCardTransaction), a chunk
// at a time, so that a history of millions never sits in memory whole.
type HistoryStream[T any] struct {
	plan *plan
	fill func(plan []generated, first int) []T
}

// Len is how many transactions the history has in all.
func (s *HistoryStream[T]) Len() int { return s.plan.n }

// Next returns up to n more of the history's transactions, oldest first;
// none once all were handed out.
func (s *HistoryStream[T]) Next(n int) []T {
	first := s.plan.done
	chunk := s.plan.take(n)
	if len(chunk) == 0 {
		return nil
	}
	return s.fill(chunk, first)
}

// AccountHistory returns the transactions history h generates for an
// account as of today: the same every time for the same account id, day
// and history.
func AccountHistory(h History, a Account, today Date) *HistoryStream[NewTransaction] {
	return &HistoryStream[NewTransaction]{plan: newPlan(h, a.ID, today), fill: func(plan []generated, _ int) []NewTransaction {
		return accountHistory(plan, a)
	}}
}

// CardHistory returns the card transactions history h generates for a
// card account as of today, as AccountHistory does for an account.
func CardHistory(h History, c CardAccount, today Date) *HistoryStream[NewCardTransaction] {
	return &HistoryStream[NewCardTransaction]{plan: newPlan(h, c.ID, today), fill: func(plan []generated, first int) []NewCardTransaction {
		return cardHistory(plan, c, today, "CT", first)
	}}
}
