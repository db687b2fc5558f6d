package bank

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"sandbank/bank/apierr"
	"sandbank/bank/validate"
)

// Payment services and products (docs/PAYMENTS.md 2).
const (
	ServiceSingle   = "payments"
	ServicePeriodic = "periodic-payments"
	ServiceBulk     = "bulk-payments"

	ProductNDCT  = "norwegian-domestic-credit-transfers"
	ProductNCBCT = "norwegian-cross-border-credit-transfers"
)

// Services lists the payment services; Products the payment products.
var (
	Services = []string{ServiceSingle, ServicePeriodic, ServiceBulk}
	Products = []string{ProductNDCT, ProductNCBCT}
)

// AmountText is a PSD2 amount as a request sends it: a JSON string (or,
// from older clients, a number), kept as text until its currency is known.
type AmountText struct {
	Text   string
	bad    string // the JSON text when it was neither a string nor a number
	number bool   // sent as a JSON number
}

// UnmarshalJSON accepts a string or a number.
func (a *AmountText) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	var s string
	switch {
	case len(b) > 0 && b[0] == '"' && json.Unmarshal(b, &s) == nil:
		*a = AmountText{Text: s}
	case len(b) > 0 && (b[0] == '-' || (b[0] >= '0' && b[0] <= '9')):
		*a = AmountText{Text: string(b), number: true}
	default:
		*a = AmountText{bad: string(b)}
	}
	return nil
}

// MarshalJSON writes the amount as a string.
func (a AmountText) MarshalJSON() ([]byte, error) { return json.Marshal(a.Text) }

// AmountIn is an amount with its currency in a request.
type AmountIn struct {
	Amount   AmountText `json:"amount"`
	Currency string     `json:"currency"`
}

// AccountIn is an account reference in a payment request.
type AccountIn struct {
	IBAN     string `json:"iban,omitempty"`
	BBAN     string `json:"bban,omitempty"`
	Currency string `json:"currency,omitempty"`
}

// Ref returns the reference without its currency.
func (a *AccountIn) Ref() AccountRef {
	if a == nil {
		return AccountRef{}
	}
	return AccountRef{IBAN: a.IBAN, BBAN: a.BBAN}
}

// AddressIn is a creditor's address.
type AddressIn struct {
	Street         string `json:"street,omitempty"`
	BuildingNumber string `json:"buildingNumber,omitempty"`
	PostalCode     string `json:"postalCode,omitempty"`
	City           string `json:"city,omitempty"`
	TownName       string `json:"townName,omitempty"`
	Country        string `json:"country"`
}

// StructuredRemittance is a structured reference such as a KID, in
// Berlin Group's remittance: the reference, its type (KID, OCR, SCOR, ...)
// and who issued it.
type StructuredRemittance struct {
	Reference       string `json:"reference"`
	ReferenceType   string `json:"referenceType,omitempty"`
	ReferenceIssuer string `json:"referenceIssuer,omitempty"`
}

// PaymentRequest is the body of a payment initiation: the fields of NDCT,
// NCBCT, periodic and bulk payments (spec 2.4 and 2.6). Which fields a
// service and product take is checked by validation, not by the decoder,
// so that a misplaced field is reported with its path.
type PaymentRequest struct {
	InstructedAmount                     *AmountIn              `json:"instructedAmount,omitempty"`
	CreditorName                         string                 `json:"creditorName,omitempty"`
	CreditorAgent                        string                 `json:"creditorAgent,omitempty"`
	CreditorAccount                      *AccountIn             `json:"creditorAccount,omitempty"`
	CreditorAddress                      *AddressIn             `json:"creditorAddress,omitempty"`
	DebtorAccount                        *AccountIn             `json:"debtorAccount,omitempty"`
	UltimateDebtor                       string                 `json:"ultimateDebtor,omitempty"`
	UltimateCreditor                     string                 `json:"ultimateCreditor,omitempty"`
	EndToEndIdentification               string                 `json:"endToEndIdentification,omitempty"`
	RemittanceInformationUnstructured    *string                `json:"remittanceInformationUnstructured,omitempty"`
	RemittanceInformationStructuredArray []StructuredRemittance `json:"remittanceInformationStructuredArray,omitempty"`
	// RemittanceInformationUnstructuredArray is Berlin Group's list of
	// remittance lines, which the settled transaction carries.
	RemittanceInformationUnstructuredArray []string `json:"remittanceInformationUnstructuredArray,omitempty"`
	// RemittanceInformationStructured was removed on 2024-09-05; a request
	// that still sends it is told to use the array.
	RemittanceInformationStructured json.RawMessage `json:"remittanceInformationStructured,omitempty"`
	PurposeCode                     string          `json:"purposeCode,omitempty"`
	// RequestedExecutionDate is nil when the request leaves it out (today);
	// an empty one is refused.
	RequestedExecutionDate         *string `json:"requestedExecutionDate,omitempty"`
	RegulatoryReportingCode        string  `json:"regulatoryReportingCode,omitempty"`
	RegulatoryReportingInformation string  `json:"regulatoryReportingInformation,omitempty"`

	// Periodic payments.
	StartDate         string   `json:"startDate,omitempty"`
	EndDate           string   `json:"endDate,omitempty"`
	ExecutionRule     string   `json:"executionRule,omitempty"`
	Frequency         string   `json:"frequency,omitempty"`
	DayOfExecution    string   `json:"dayOfExecution,omitempty"`
	MonthsOfExecution []string `json:"monthsOfExecution,omitempty"`

	// Bulk payments.
	PaymentInformationID  string           `json:"paymentInformationId,omitempty"`
	BatchBookingPreferred *bool            `json:"batchBookingPreferred,omitempty"`
	Payments              []PaymentRequest `json:"payments,omitempty"`
}

// Frequencies are the periodic payment frequencies (spec 2.6).
var Frequencies = []string{"Daily", "Weekly", "EveryTwoWeeks", "Monthly", "EveryTwoMonths", "Quarterly", "SemiAnnual", "Annual", "MonthlyVariable"}

// KID reference types: a structured reference of one of these types is a
// KID and must pass its check digit.
var kidTypes = []string{"KID", "OCR", "SCOR"}

// checked is what validation learns from a payment request.
type checked struct {
	items    []PaymentItem
	debtor   AccountRef
	currency string // of the debtor account reference, when given
	date     Date   // the requested (or start) date, before moving to a banking day
	warnings []apierr.Message
}

// checkPayment validates a payment request for a service and product by
// the rules of docs/PAYMENTS.md 3, except the rules that need the data (accounts,
// KID required, the PSU): every failing field is reported.
func checkPayment(v *apierr.Violations, service, product string, r PaymentRequest, today Date, fx map[string]decimal.Decimal) checked {
	var c checked
	if r.DebtorAccount == nil {
		v.Format("debtorAccount", "is required: the sandbox account to pay from, {\"iban\": ...} or {\"bban\": ...}")
	} else {
		checkAccountIn(v, "debtorAccount", r.DebtorAccount, product == ProductNCBCT)
		c.debtor, c.currency = r.DebtorAccount.Ref(), r.DebtorAccount.Currency
	}
	switch service {
	case ServiceBulk:
		c.date = checkRequestedDate(v, r.RequestedExecutionDate, true, today)
		CheckText(v, "paymentInformationId", r.PaymentInformationID, 1, 35)
		for _, f := range singleOnly(r) {
			v.Format(f, "belongs in each item of payments, not at the top of a bulk payment")
		}
		switch {
		case len(r.Payments) == 0:
			v.Format("payments", "is required: 1 to 100 NDCT payments")
		case len(r.Payments) > 100:
			v.Format("payments", "holds %d payments; a bulk payment holds at most 100", len(r.Payments))
		}
		for i, item := range r.Payments {
			p := fmt.Sprintf("payments[%d]", i)
			if item.DebtorAccount != nil || item.RequestedExecutionDate != nil || len(item.Payments) > 0 || item.PaymentInformationID != "" {
				v.Format(p, "an item takes no debtorAccount, requestedExecutionDate, paymentInformationId or payments: the bulk payment gives them")
			}
			c.items = append(c.items, checkItem(v, p, ProductNDCT, item, fx, &c.warnings))
		}
		return c
	case ServicePeriodic:
		c.date = checkPeriodic(v, r, today, &c.warnings)
		if r.RequestedExecutionDate != nil {
			v.Format("requestedExecutionDate", "a periodic payment starts on startDate; leave requestedExecutionDate out")
		}
	default:
		c.date = checkRequestedDate(v, r.RequestedExecutionDate, false, today)
		for _, f := range periodicOnly(r) {
			v.Format(f, "only periodic payments have it")
		}
	}
	if service != ServiceBulk && (len(r.Payments) > 0 || r.PaymentInformationID != "") {
		v.Format("payments", "only bulk payments hold payments")
	}
	c.items = []PaymentItem{checkItem(v, "", product, r, fx, &c.warnings)}
	return c
}

// singleOnly names the fields of one payment that a bulk payment's top
// level must not have.
func singleOnly(r PaymentRequest) []string {
	return present([]field{
		{"creditorAccount", r.CreditorAccount != nil}, {"creditorName", r.CreditorName != ""},
		{"instructedAmount", r.InstructedAmount != nil},
		{"remittanceInformationStructuredArray", r.RemittanceInformationStructuredArray != nil},
		{"remittanceInformationUnstructured", r.RemittanceInformationUnstructured != nil},
		{"remittanceInformationUnstructuredArray", r.RemittanceInformationUnstructuredArray != nil},
	})
}

func periodicOnly(r PaymentRequest) []string {
	return present([]field{
		{"dayOfExecution", r.DayOfExecution != ""}, {"endDate", r.EndDate != ""}, {"executionRule", r.ExecutionRule != ""},
		{"frequency", r.Frequency != ""}, {"monthsOfExecution", r.MonthsOfExecution != nil}, {"startDate", r.StartDate != ""},
	})
}

// field is a field of a request and whether the request has it.
type field struct {
	name string
	set  bool
}

// present returns the names of the fields the request has, in order.
func present(fields []field) []string {
	var out []string
	for _, f := range fields {
		if f.set {
			out = append(out, f.name)
		}
	}
	return out
}

// checkAccountIn checks an account reference, with its MOD11 check digit,
// and its currency; NCBCT requires the currency.
func checkAccountIn(v *apierr.Violations, path string, a *AccountIn, currencyRequired bool) {
	CheckAccountRef(v, path, a.Ref())
	checkMOD11(v, path, a.Ref(), false)
	if a.Currency != "" || currencyRequired {
		CheckCurrency(v, apierr.JoinPath(path, "currency"), a.Currency)
	}
}

// checkRequestedDate checks requestedExecutionDate: left out (nil), it is
// today unless required; given, it must not be empty (an empty string is
// not a date, and not the same as leaving the field out), and
// checkExecutionDate checks the date.
func checkRequestedDate(v *apierr.Violations, s *string, required bool, today Date) Date {
	const path = "requestedExecutionDate"
	switch {
	case s == nil:
		return checkExecutionDate(v, path, "", required, today)
	case *s == "" && required:
		v.Format(path, "is empty; give the date of the bulk payment, YYYY-MM-DD")
		return today
	case *s == "":
		v.Format(path, "is empty; leave it out for today, or give a date YYYY-MM-DD")
		return today
	}
	return checkExecutionDate(v, path, *s, required, today)
}

// checkExecutionDate checks a requested execution date: not in the past
// and at most a year ahead (EXECUTION_DATE_INVALID). Empty means today
// unless required.
func checkExecutionDate(v *apierr.Violations, path, s string, required bool, today Date) Date {
	if s == "" {
		if required {
			v.Format(path, "is required")
		}
		return today
	}
	d, err := ParseDate(s)
	if err != nil {
		v.Format(path, "%v", err)
		return today
	}
	switch {
	case d.Before(today):
		v.Add(apierr.CodeExecutionDateInvalid, path, fmt.Sprintf("%s is in the past; give today (%s) or a later date", d, today))
	case d.After(today.AddMonths(12)):
		v.Add(apierr.CodeExecutionDateInvalid, path, fmt.Sprintf("%s is more than a year ahead; the latest is %s", d, today.AddMonths(12)))
	}
	return d
}

// checkItem checks the fields of one credit transfer (a single payment, a
// periodic payment or a bulk item) at path.
func checkItem(v *apierr.Violations, path, product string, r PaymentRequest, fx map[string]decimal.Decimal, warnings *[]apierr.Message) PaymentItem {
	f := func(name string) string { return apierr.JoinPath(path, name) }
	var it PaymentItem
	if r.InstructedAmount == nil {
		v.Format(f("instructedAmount"), "is required: {\"amount\": \"100.00\", \"currency\": \"NOK\"}")
	} else {
		it.Currency = r.InstructedAmount.Currency
		okCurrency := CheckCurrency(v, f("instructedAmount.currency"), it.Currency)
		if product == ProductNDCT && okCurrency && it.Currency != "NOK" {
			v.Format(f("instructedAmount.currency"), "an NDCT payment is in NOK; use norwegian-cross-border-credit-transfers for %s", it.Currency)
		}
		it.Amount = checkPaymentAmount(v, f("instructedAmount.amount"), r.InstructedAmount.Amount, it.Currency)
	}
	CheckName(v, f("creditorName"), r.CreditorName, 1, 70)
	it.CreditorName = r.CreditorName
	if r.CreditorAccount == nil {
		v.Format(f("creditorAccount"), "is required: {\"iban\": ...} or {\"bban\": ...}")
	} else {
		checkAccountIn(v, f("creditorAccount"), r.CreditorAccount, product == ProductNCBCT)
		it.CreditorAccount = r.CreditorAccount.Ref()
	}
	if a := r.CreditorAddress; a != nil {
		CheckText(v, f("creditorAddress.street"), a.Street, 0, 70)
		CheckText(v, f("creditorAddress.buildingNumber"), a.BuildingNumber, 0, 35)
		CheckText(v, f("creditorAddress.postalCode"), a.PostalCode, 0, 35)
		CheckText(v, f("creditorAddress.city"), a.City, 0, 35)
		CheckText(v, f("creditorAddress.townName"), a.TownName, 0, 35)
		switch {
		case a.Country == "":
			v.Format(f("creditorAddress.country"), "is required in creditorAddress: an ISO 3166 alpha-2 code such as NO")
		case !validate.Country(a.Country):
			v.Format(f("creditorAddress.country"), "%q is not an ISO 3166 alpha-2 country code", apierr.Clip(a.Country))
		}
	}
	CheckName(v, f("ultimateDebtor"), r.UltimateDebtor, 0, 70)
	CheckName(v, f("ultimateCreditor"), r.UltimateCreditor, 0, 70)
	CheckText(v, f("endToEndIdentification"), r.EndToEndIdentification, 0, 35)
	it.EndToEndID = r.EndToEndIdentification
	if r.RemittanceInformationStructured != nil {
		v.Format(f("remittanceInformationStructured"), "was removed on 2024-09-05; send a KID as remittanceInformationStructuredArray: [{\"reference\": \"...\", \"referenceType\": \"KID\"}]")
	}
	if u := r.RemittanceInformationUnstructured; u != nil {
		CheckText(v, f("remittanceInformationUnstructured"), *u, 1, 140)
		it.Remittance = *u
	}
	if r.RemittanceInformationStructuredArray != nil {
		if r.RemittanceInformationUnstructured != nil && product == ProductNDCT {
			v.Format(f("remittanceInformationStructuredArray"), "send either remittanceInformationStructuredArray or remittanceInformationUnstructured, not both")
		}
		if product == ProductNCBCT {
			v.Format(f("remittanceInformationStructuredArray"), "a cross-border transfer takes remittanceInformationUnstructured only")
		}
		if len(r.RemittanceInformationStructuredArray) == 0 {
			v.Format(f("remittanceInformationStructuredArray"), "is empty; leave it out or give one reference")
		}
		it.KID = checkReferences(v, f("remittanceInformationStructuredArray"), r.RemittanceInformationStructuredArray, func(path string, err error) {
			v.Add(apierr.CodeKIDInvalid, path, err.Error())
		})
		it.Structured = r.RemittanceInformationStructuredArray
		if it.Remittance == "" && len(it.Structured) > 0 {
			it.Remittance = it.Structured[0].Reference
		}
	}
	it.Lines = checkRemittanceLines(v, f("remittanceInformationUnstructuredArray"), r.RemittanceInformationUnstructuredArray)
	it.UltimateDebtor, it.UltimateCreditor = r.UltimateDebtor, r.UltimateCreditor
	if product == ProductNCBCT {
		checkCrossBorder(v, path, r, it, fx, warnings)
		it.CreditorAgent, it.PurposeCode = r.CreditorAgent, r.PurposeCode
	} else {
		for _, name := range present([]field{
			{"creditorAgent", r.CreditorAgent != ""}, {"purposeCode", r.PurposeCode != ""},
			{"regulatoryReportingCode", r.RegulatoryReportingCode != ""}, {"regulatoryReportingInformation", r.RegulatoryReportingInformation != ""},
		}) {
			v.Format(f(name), "only cross-border transfers (norwegian-cross-border-credit-transfers) have it")
		}
	}
	return it
}

// checkReferences checks structured remittance references (Berlin Group's
// remittance) at path: each a reference of 1 to 35 characters, a
// referenceType of at most 35 and an optional referenceIssuer of at most
// 35. A reference of a KID type (KID, OCR, SCOR) must pass its check
// digit; badKID reports one that does not. It returns the last valid KID.
func checkReferences(v *apierr.Violations, path string, refs []StructuredRemittance, badKID func(path string, err error)) string {
	kid := ""
	for i, s := range refs {
		p := fmt.Sprintf("%s[%d]", path, i)
		CheckText(v, apierr.JoinPath(p, "reference"), s.Reference, 1, 35)
		CheckText(v, apierr.JoinPath(p, "referenceIssuer"), s.ReferenceIssuer, 0, 35)
		switch {
		case s.ReferenceType == "":
			v.Format(apierr.JoinPath(p, "referenceType"), "is required, e.g. KID")
		case !checkLength(v, apierr.JoinPath(p, "referenceType"), s.ReferenceType, 1, 35): // reported
		case !checkChars(v, apierr.JoinPath(p, "referenceType"), s.ReferenceType): // reported
		case slices.Contains(kidTypes, strings.ToUpper(s.ReferenceType)):
			if err := validate.KID(s.Reference); err != nil {
				badKID(apierr.JoinPath(p, "reference"), err)
			} else {
				kid = s.Reference
			}
		}
	}
	return kid
}

// checkRemittanceLines checks remittance lines (Berlin Group's
// remittanceInformationUnstructuredArray): each 1 to 140 characters. An
// empty list is none.
func checkRemittanceLines(v *apierr.Violations, path string, lines []string) []string {
	for i, l := range lines {
		CheckText(v, fmt.Sprintf("%s[%d]", path, i), l, 1, 140)
	}
	if len(lines) == 0 {
		return nil
	}
	return lines
}

// nokThreshold is the amount from which a cross-border transfer needs
// regulatory reporting, and below which the product is meant for larger
// transfers.
var nokThreshold = decimal.NewFromInt(100_000)

// checkCrossBorder checks the NCBCT rules of spec 2.4.
func checkCrossBorder(v *apierr.Violations, path string, r PaymentRequest, it PaymentItem, fx map[string]decimal.Decimal, warnings *[]apierr.Message) {
	f := func(name string) string { return apierr.JoinPath(path, name) }
	if r.CreditorAccount != nil && r.CreditorAccount.BBAN != "" && r.CreditorAccount.IBAN == "" && r.CreditorAgent == "" {
		v.Format(f("creditorAgent"), "is required when creditorAccount has a bban: the BIC of the creditor's bank")
	}
	if r.CreditorAgent != "" {
		if err := validate.BIC(r.CreditorAgent); err != nil {
			v.Format(f("creditorAgent"), "%v", err)
		}
	}
	if r.PurposeCode != "" && !validate.PurposeCode(r.PurposeCode) {
		v.Format(f("purposeCode"), "%q is not allowed; use one of INVS, SALA, IDCP, CASH, CORT, INTC, PENS, SSBE, SUPP, TAXS, TREA, VATX, LOAN, OTHR", apierr.Clip(r.PurposeCode))
	}
	if r.RegulatoryReportingCode != "" && !validate.RegulatoryReportingCode(r.RegulatoryReportingCode) {
		v.Format(f("regulatoryReportingCode"), "%q is not allowed; use one of 14, 26, 29, 31, 35, 38, 41, 43, 45, 51, 52, 53, 71, 79, 81, 82", apierr.Clip(r.RegulatoryReportingCode))
	}
	CheckText(v, f("regulatoryReportingInformation"), r.RegulatoryReportingInformation, 0, 140)
	if it.Currency == "" || it.Amount.IsZero() {
		return
	}
	nok, err := convert(fx, it.Amount, it.Currency, "NOK")
	if err != nil {
		v.Format(f("instructedAmount.currency"), "%v", err)
		return
	}
	if nok.GreaterThanOrEqual(nokThreshold) {
		if r.RegulatoryReportingCode == "" {
			v.Format(f("regulatoryReportingCode"), "is required for transfers of NOK 100,000 or more (this one is NOK %s)", nok.StringFixed(2))
		}
		if r.RegulatoryReportingInformation == "" {
			v.Format(f("regulatoryReportingInformation"), "is required for transfers of NOK 100,000 or more (this one is NOK %s)", nok.StringFixed(2))
		}
	} else {
		*warnings = append(*warnings, warning(f("instructedAmount"), fmt.Sprintf("this cross-border transfer is NOK %s; the product is meant for transfers of NOK 100,000 or more", nok.StringFixed(2))))
	}
}

// checkPaymentAmount parses an instructed amount: positive, with at most
// the currency's minor digits.
func checkPaymentAmount(v *apierr.Violations, path string, a AmountText, currency string) decimal.Decimal {
	switch {
	case a.bad != "":
		v.Format(path, "must be a string such as \"100.30\", not %s", apierr.Clip(a.bad))
	case a.Text == "":
		v.Format(path, "is required, e.g. \"100.30\"")
	default:
		if a.number {
			v.Odd(apierr.CodeFormatError, path, fmt.Sprintf("is the JSON number %s; send it as a string with the currency's decimals, e.g. \"100.30\"", apierr.Clip(a.Text)))
		}
		if currency == "" || !validate.Currency(currency) {
			currency = "NOK" // reported at the currency; check the digits as NOK's
		}
		d, err := ParseAmount(a.Text, currency)
		switch {
		case err != nil:
			v.Format(path, "%v", err)
		case !d.IsPositive():
			v.Format(path, "must be more than 0")
		default:
			return d
		}
	}
	return decimal.Decimal{}
}

// checkPeriodic checks the periodic fields of spec 2.6 and returns the
// start date.
func checkPeriodic(v *apierr.Violations, r PaymentRequest, today Date, warnings *[]apierr.Message) Date {
	start := checkExecutionDate(v, "startDate", r.StartDate, true, today)
	if r.EndDate != "" {
		if end, err := ParseDate(r.EndDate); err != nil {
			v.Format("endDate", "%v", err)
		} else if end.Before(start) {
			v.Format("endDate", "%s is before startDate %s", end, start)
		}
	}
	CheckOneOf(v, "frequency", r.Frequency, Frequencies)
	if r.DayOfExecution != "" {
		n, err := strconv.Atoi(r.DayOfExecution)
		if err != nil || n < 1 || n > 31 || strings.HasPrefix(r.DayOfExecution, "0") || strconv.Itoa(n) != r.DayOfExecution {
			v.Format("dayOfExecution", "%q is not a day of the month; write \"1\" to \"31\" without a leading zero", apierr.Clip(r.DayOfExecution))
		}
	}
	switch r.ExecutionRule {
	case "", "following", "preceding":
	case "preceeding":
		*warnings = append(*warnings, warning("executionRule", "\"preceeding\" is read as \"preceding\"; please spell it so"))
	default:
		v.Format("executionRule", "%q is not allowed; use following or preceding", apierr.Clip(r.ExecutionRule))
	}
	if r.MonthsOfExecution != nil {
		if r.Frequency != "MonthlyVariable" {
			v.Format("monthsOfExecution", "only the frequency MonthlyVariable takes monthsOfExecution")
		}
		if len(r.MonthsOfExecution) == 0 {
			v.Format("monthsOfExecution", "give at least one month, \"1\" to \"12\"")
		}
		seen := map[string]bool{}
		for i, m := range r.MonthsOfExecution {
			p := fmt.Sprintf("monthsOfExecution[%d]", i)
			n, err := strconv.Atoi(m)
			switch {
			case err != nil || n < 1 || n > 12 || strconv.Itoa(n) != m:
				v.Format(p, "%q is not a month; write \"1\" to \"12\" without a leading zero", apierr.Clip(m))
			case seen[m]:
				v.Format(p, "month %s is given twice", m)
			}
			seen[m] = true
		}
	} else if r.Frequency == "MonthlyVariable" {
		v.Format("monthsOfExecution", "is required with the frequency MonthlyVariable")
	}
	return start
}

// warning is a WARNING tppMessage.
func warning(path, text string) apierr.Message {
	return apierr.Message{Category: "WARNING", Code: "WARNING", Path: path, Text: apierr.Clip(text)}
}
