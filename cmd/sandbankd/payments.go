package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

const paymentsUsage = `Every TPP's payments, as the Payments screen shows them
(docs/SANDBOX-API.md 4.3).

Usage:
  sandbankd payments [--status S] [--tpp ID] [--psu ID] [--product P] [--from DATE] [--to DATE] [--offset N] [--limit N] [--json]
  sandbankd payments show ID [--json]
  sandbankd payments force ID STATUS [--note TEXT] [--json]

The list is newest first, at most --limit (default 200) from --offset.
--psu is the PSU's customerNumber (the national id they type at SCA) or a
PSU-ID a TPP was given. show writes one payment with its items, approvals
and status history. force sets a status by hand, as Force status… does:
no money is booked, and a final status (ACSC, ACWP, RJCT, CANC, PART)
releases the payment's reservations.

Examples:
  sandbankd payments --status PDNG
  sandbankd payments --tpp NO-FSA-933012867 --psu 13039319955 --json
  sandbankd payments force 'enc!!r9VL5mprdGIFQEMZnnqqFA' RJCT --note "case 4711"

Flags:
`

// psuJSON, moneyJSON and paymentJSON read the operator API's payments;
// encoding/json matches their field names in any letter case.
type psuJSON struct {
	CustomerNumber, Name, PSUID string
}

// text names a PSU: name (customerNumber).
func (p *psuJSON) text() string {
	switch {
	case p == nil:
		return ""
	case p.CustomerNumber == "":
		return p.Name
	}
	return p.Name + " (" + p.CustomerNumber + ")"
}

type moneyJSON struct{ Currency, Amount string }

func (m *moneyJSON) text() string {
	if m == nil || m.Currency == "" {
		return ""
	}
	return m.Amount + " " + m.Currency
}

type paymentJSON struct {
	PaymentID, TPPID, PaymentService, PaymentProduct, TransactionStatus string
	FundsAvailable                                                      *bool
	Created                                                             time.Time
	ExecutionDate, Context, DebtorAccountName, BasketID, RetryUntil     string
	PSU                                                                 *psuJSON
	DebtorAccount                                                       bank.AccountRef
	InstructedAmount                                                    moneyJSON
	TransactionFees                                                     *moneyJSON
	NumberOfTransactions                                                int
	Items                                                               []struct {
		InstructedAmount              moneyJSON
		CreditorName, KID, EndToEndID string
		TransactionStatus             string
		CreditorAccount               bank.AccountRef
		Remittance                    string `json:"remittanceInformationUnstructured"`
	}
	Approvals []struct {
		PSU  psuJSON
		Time time.Time
		Full bool
	}
	AuthorisationIDs []string
	Warnings         []apierr.Message
	StatusHistory    []bank.StatusChange
}

func fundsText(f *bool) string {
	switch {
	case f == nil:
		return ""
	case *f:
		return "yes"
	}
	return "no"
}

func accountText(a bank.AccountRef) string {
	if a.IBAN != "" {
		return a.IBAN
	}
	return a.BBAN
}

func runPayments(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := newOpCmd("payments", paymentsUsage, stdout, stderr)
	filter := map[string]*string{
		"status":      o.fs.String("status", "", "only payments in this status: "+strings.Join(bank.PaymentStatuses, ", ")),
		"tppId":       o.fs.String("tpp", "", "only this TPP's payments, e.g. NO-FSA-933012867"),
		"psuId":       o.fs.String("psu", "", "only this PSU's payments: a customerNumber or a PSU-ID"),
		"product":     o.fs.String("product", "", "norwegian-domestic-credit-transfers or norwegian-cross-border-credit-transfers"),
		"createdFrom": o.fs.String("from", "", "created on or after this date, YYYY-MM-DD"),
		"createdTo":   o.fs.String("to", "", "created on or before this date, YYYY-MM-DD"),
		"offset":      o.fs.String("offset", "", "skip this many payments (default 0)"),
		"limit":       o.fs.String("limit", "", "list at most this many (default 200, at most 10000)"),
	}
	note := o.fs.String("note", "", "force: the reason written in the status history (default \"forced by hand\")")
	pos, err := o.parse(args)
	if err != nil {
		return err
	}
	verb := ""
	if len(pos) > 0 {
		verb = pos[0]
	}
	listFlags := []string{"status", "tpp", "psu", "product", "from", "to", "offset", "limit"}
	const paymentID = "a payment's paymentId, as sandbankd payments lists it"
	switch {
	case len(pos) == 0 || verb == "list":
		if len(pos) > 1 {
			return o.usageErrorOf("", "payments %s takes no arguments, not %q; show one payment with payments show ID", verb, pos[1])
		}
		if o.bank.given("note") {
			return o.usageError("--note is for payments force")
		}
		return paymentsList(ctx, o, filter)
	case verb == "show":
		if len(pos) != 2 {
			return o.usageErrorOf("show", "payments show takes one payment ID, not %s", nArgs(len(pos)-1))
		}
		if err := o.checkArg("show", "the payment ID", pos[1], paymentID); err != nil {
			return err
		}
		if err := o.onlyFor("payments list", append(listFlags, "note")...); err != nil {
			return err
		}
		return paymentsShow(ctx, o, pos[1])
	case verb == "force":
		if len(pos) != 3 {
			return o.usageErrorOf("force", "payments force takes a payment ID and a STATUS, not %s", nArgs(len(pos)-1))
		}
		if err := o.checkArg("force", "the payment ID", pos[1], paymentID); err != nil {
			return err
		}
		status := strings.ToUpper(pos[2])
		if !slices.Contains(bank.PaymentStatuses, status) {
			return o.usageErrorOf("force", "%q is not a payment status; give one of %s", pos[2], strings.Join(bank.PaymentStatuses, ", "))
		}
		if err := o.onlyFor("payments list", listFlags...); err != nil {
			return err
		}
		return paymentsForce(ctx, o, pos[1], status, *note)
	}
	return o.usageError("unknown command payments %s; use payments, payments show ID or payments force ID STATUS", verb)
}

// onlyFor refuses flags that belong to another command, what.
func (o *opCmd) onlyFor(what string, flags ...string) error {
	for _, f := range flags {
		if o.bank.given(f) {
			return o.usageError("--%s is for %s", f, what)
		}
	}
	return nil
}

// query writes the parameters that are set as a query string.
func query(params map[string]*string) string {
	q := url.Values{}
	for name, v := range params {
		if *v != "" {
			q.Set(name, *v)
		}
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

func paymentsList(ctx context.Context, o *opCmd, filter map[string]*string) error {
	var list []paymentJSON
	body, h, err := o.once(ctx, http.MethodGet, "/v1/sandbox/payments"+query(filter), nil, &list)
	if err != nil {
		return err
	}
	if *o.json {
		return printJSON(o.stdout, body)
	}
	t := newTable(o.stdout, "CREATED", "PAYMENT ID", "KIND", "TPP", "PSU", "AMOUNT", "STATUS", "FUNDS", "EXECUTION")
	for _, p := range list {
		t.row(timeText(p.Created), p.PaymentID, bank.PaymentKind(p.PaymentService, p.PaymentProduct, p.NumberOfTransactions),
			p.TPPID, p.PSU.text(), p.InstructedAmount.text(), p.TransactionStatus, fundsText(p.FundsAvailable), p.ExecutionDate)
	}
	if err := t.flush(); err != nil {
		return err
	}
	morePages(o.stderr, len(list), h, "payments")
	return nil
}

// morePages says on standard error when a list shows only part of what
// matches (X-Total-Count).
func morePages(w io.Writer, shown int, h http.Header, what string) {
	if total, err := strconv.Atoi(h.Get("X-Total-Count")); err == nil && total > shown {
		fmt.Fprintf(w, "%d of %d %s; see more with --offset and --limit\n", shown, total, what)
	}
}

func paymentsShow(ctx context.Context, o *opCmd, id string) error {
	var p paymentJSON
	body, _, err := o.once(ctx, http.MethodGet, "/v1/sandbox/payments/"+url.PathEscape(id), nil, &p)
	if err != nil {
		return err
	}
	if *o.json {
		return printJSON(o.stdout, body)
	}
	return printPayment(o.stdout, p)
}

func paymentsForce(ctx context.Context, o *opCmd, id, status, note string) error {
	in, err := json.Marshal(map[string]string{"status": status, "note": note})
	if err != nil {
		return err
	}
	var p paymentJSON
	body, _, err := o.once(ctx, http.MethodPost, "/v1/sandbox/payments/"+url.PathEscape(id)+"/status", in, &p)
	if err != nil {
		return err
	}
	if *o.json {
		return printJSON(o.stdout, body)
	}
	if n := len(p.StatusHistory); n > 0 {
		last := p.StatusHistory[n-1]
		fmt.Fprintf(o.stdout, "Payment %s: %s → %s, by %s (%s)\n", p.PaymentID, last.From, last.To, last.By, last.Reason)
	}
	return nil
}

// printPayment writes one payment: its fields, items, approvals and
// status history.
func printPayment(w io.Writer, p paymentJSON) error {
	f := newTable(w, "PAYMENT", p.PaymentID)
	f.row("kind", fmt.Sprintf("%s (%s, %s)", bank.PaymentKind(p.PaymentService, p.PaymentProduct, len(p.Items)), p.PaymentService, p.PaymentProduct))
	f.row("TPP", p.TPPID)
	f.row("status", p.TransactionStatus)
	f.row("funds available", fundsText(p.FundsAvailable))
	f.row("created", timeText(p.Created))
	f.row("execution date", p.ExecutionDate)
	psu := p.PSU.text()
	if p.PSU != nil && p.PSU.PSUID != "" {
		psu += ", PSU-ID " + p.PSU.PSUID
	}
	f.row("PSU", psu)
	f.row("context", p.Context)
	f.row("debtor account", strings.TrimSpace(accountText(p.DebtorAccount)+" "+p.DebtorAccountName))
	f.row("amount", fmt.Sprintf("%s in %d transaction(s)", p.InstructedAmount.text(), p.NumberOfTransactions))
	f.row("fees", p.TransactionFees.text())
	f.row("basket", p.BasketID)
	f.row("retry until", p.RetryUntil)
	f.row("authorisations", strings.Join(p.AuthorisationIDs, ", "))
	for _, m := range p.Warnings {
		f.row("warning", messageText(m))
	}
	if err := f.flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nItems:")
	items := newTable(w, "AMOUNT", "CREDITOR", "ACCOUNT", "REMITTANCE", "KID", "END-TO-END ID", "STATUS")
	for _, it := range p.Items {
		items.row(it.InstructedAmount.text(), it.CreditorName, accountText(it.CreditorAccount), it.Remittance, it.KID, it.EndToEndID, it.TransactionStatus)
	}
	if err := items.flush(); err != nil {
		return err
	}
	if len(p.Approvals) > 0 {
		fmt.Fprintln(w, "\nApprovals:")
		ap := newTable(w, "TIME", "PSU", "FULL")
		for _, a := range p.Approvals {
			ap.row(timeText(a.Time), a.PSU.text(), fmt.Sprint(a.Full))
		}
		if err := ap.flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "\nStatus history:")
	hist := newTable(w, "TIME", "FROM", "TO", "BY", "REASON")
	for _, s := range p.StatusHistory {
		by := s.By
		if s.Forced {
			by += " (forced)"
		}
		hist.row(timeText(s.Time), s.From, s.To, by, s.Reason)
	}
	return hist.flush()
}

const batchUsage = `Batch runs: run one now, list the kept reports, show one
(docs/SANDBOX-API.md 4.5).

Usage:
  sandbankd batch run [--json]
  sandbankd batch list [--offset N] [--limit N] [--json]
  sandbankd batch show RUNID [--json]

A run settles the due payments as a scheduled run does: ACSC with cover,
PDNG without (retried for coverRetryDays), RJCT after that.

Flags:
`

// batchRunJSON reads a batch run report.
type batchRunJSON struct {
	RunID, Trigger string
	Time           time.Time
	DurationMs     float64
	Counts         map[string]int
	Errors         []string
	Outcomes       []bank.BatchOutcome
}

func runBatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := newOpCmd("batch", batchUsage, stdout, stderr)
	page := map[string]*string{
		"offset": o.fs.String("offset", "", "list: skip this many runs (default 0)"),
		"limit":  o.fs.String("limit", "", "list: at most this many runs (default 200)"),
	}
	pos, err := o.parse(args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 1 && pos[0] == "run":
		if err := o.onlyFor("batch list", "offset", "limit"); err != nil {
			return err
		}
		return batchRun(ctx, o)
	case len(pos) == 1 && pos[0] == "list":
		return batchList(ctx, o, page)
	case len(pos) == 2 && pos[0] == "show":
		if err := o.checkArg("show", "the RUNID", pos[1], "a batch run's runId, as sandbankd batch list lists it"); err != nil {
			return err
		}
		if err := o.onlyFor("batch list", "offset", "limit"); err != nil {
			return err
		}
		return batchShow(ctx, o, pos[1])
	case len(pos) > 1 && (pos[0] == "run" || pos[0] == "list"):
		return o.usageErrorOf(pos[0], "batch %s takes no arguments, not %q", pos[0], strings.Join(pos[1:], " "))
	case len(pos) > 0 && pos[0] == "show":
		return o.usageErrorOf("show", "batch show takes one RUNID, not %s", nArgs(len(pos)-1))
	}
	return o.usageError("give batch run, batch list or batch show RUNID")
}

func batchRun(ctx context.Context, o *opCmd) error {
	var run batchRunJSON
	body, _, err := o.once(ctx, http.MethodPost, "/v1/sandbox/batch-runs", nil, &run)
	if err != nil {
		return err
	}
	if *o.json {
		return printJSON(o.stdout, body)
	}
	fmt.Fprintf(o.stdout, "Batch run %s at %s: %s\n", run.RunID, timeText(run.Time), bank.CountsText(run.Counts))
	for _, e := range run.Errors {
		fmt.Fprintf(o.stdout, "  not processed: %s\n", e)
	}
	return nil
}

func batchList(ctx context.Context, o *opCmd, page map[string]*string) error {
	var runs []batchRunJSON
	body, h, err := o.once(ctx, http.MethodGet, "/v1/sandbox/batch-runs"+query(page), nil, &runs)
	if err != nil {
		return err
	}
	if *o.json {
		return printJSON(o.stdout, body)
	}
	t := newTable(o.stdout, "TIME", "RUN ID", "TRIGGER", "MS", "COUNTS", "NOT PROCESSED")
	for _, r := range runs {
		t.row(timeText(r.Time), r.RunID, r.Trigger, fmt.Sprintf("%.1f", r.DurationMs), bank.CountsText(r.Counts), strconv.Itoa(len(r.Errors)))
	}
	if err := t.flush(); err != nil {
		return err
	}
	morePages(o.stderr, len(runs), h, "batch runs")
	return nil
}

func batchShow(ctx context.Context, o *opCmd, id string) error {
	var run batchRunJSON
	body, _, err := o.once(ctx, http.MethodGet, "/v1/sandbox/batch-runs/"+url.PathEscape(id), nil, &run)
	if err != nil {
		return err
	}
	if *o.json {
		return printJSON(o.stdout, body)
	}
	fmt.Fprintf(o.stdout, "Batch run %s at %s (%s) took %.1f ms: %s\n", run.RunID, timeText(run.Time), run.Trigger, run.DurationMs, bank.CountsText(run.Counts))
	for _, e := range run.Errors {
		fmt.Fprintf(o.stdout, "  not processed: %s\n", e)
	}
	t := newTable(o.stdout, "PAYMENT ID", "FROM", "TO", "REASON")
	for _, oc := range run.Outcomes {
		t.row(oc.PaymentID, oc.From, oc.To, oc.Reason)
	}
	return t.flush()
}

const grantsUsage = `What each TPP may read: the grants of its consents, as the Consents &
sessions screen shows them (docs/SANDBOX-API.md 4.6).

Usage:
  sandbankd grants [--tpp ID] [--psu ID] [--json]
  sandbankd grants revoke GRANT_ID

revoke revokes a grant as the PSU would in the bank: the TPP's next
account-information request for that PSU and context gets 401
CONSENT_INVALID, and its consent reads revokedByPsu.

Flags:
`

func runGrants(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := newOpCmd("grants", grantsUsage, stdout, stderr)
	filter := map[string]*string{
		"tppId": o.fs.String("tpp", "", "only this TPP's grants, e.g. NO-FSA-933012867"),
		"psuId": o.fs.String("psu", "", "only this PSU's grants: a customerNumber or a PSU-ID"),
	}
	pos, err := o.parse(args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0 || (len(pos) == 1 && pos[0] == "list"):
		return grantsList(ctx, o, filter)
	case len(pos) == 2 && pos[0] == "revoke":
		if err := o.checkArg("revoke", "the GRANT_ID", pos[1], "a grant's grantId, as sandbankd grants lists it"); err != nil {
			return err
		}
		if err := o.onlyFor("grants list", "tpp", "psu"); err != nil {
			return err
		}
		return grantsRevoke(ctx, o, pos[1])
	}
	return o.usageError("give grants [--tpp ID] [--psu ID] or grants revoke GRANT_ID")
}

func grantsList(ctx context.Context, o *opCmd, filter map[string]*string) error {
	var grants []struct {
		GrantID, TPPID, Context, ContextName string
		PSU                                  psuJSON
		Accounts                             []struct{ Name string }
		Expires                              time.Time
		Expired                              bool
	}
	body, _, err := o.once(ctx, http.MethodGet, "/v1/sandbox/grants"+query(filter), nil, &grants)
	if err != nil {
		return err
	}
	if *o.json {
		return printJSON(o.stdout, body)
	}
	t := newTable(o.stdout, "GRANT ID", "TPP", "PSU", "CONTEXT", "ACCOUNTS", "EXPIRES", "STATUS")
	for _, g := range grants {
		names := make([]string, len(g.Accounts))
		for i, a := range g.Accounts {
			names[i] = a.Name
		}
		status := "valid"
		if g.Expired {
			status = "expired"
		}
		t.row(g.GrantID, g.TPPID, g.PSU.text(), g.ContextName, strings.Join(names, ", "), timeText(g.Expires), status)
	}
	return t.flush()
}

func grantsRevoke(ctx context.Context, o *opCmd, id string) error {
	if _, _, err := o.once(ctx, http.MethodDelete, "/v1/sandbox/grants/"+url.PathEscape(id), nil, nil); err != nil {
		return err
	}
	if *o.json {
		return nil // the bank answers 204, no body
	}
	fmt.Fprintf(o.stdout, "Revoked grant %s: the TPP's next account-information request for that PSU and context gets 401 CONSENT_INVALID\n", id)
	return nil
}
