package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"sandbank/bank/reqlog"
)

const logUsage = `The running bank's request log, as the Traffic screen shows it
(docs/SANDBOX-API.md 2.14).

Usage:
  sandbankd log [--errors] [--filter TEXT] [--tpp ID] [--method M] [--status N] [--limit N] [--json]
  sandbankd log --har FILE [--errors] [--filter TEXT] [--tpp ID] [--method M] [--status N]
  sandbankd log ID [--json]

The log is in the memory of the bank that serves the data file (its last
2,000 requests by default, none from before it started): this command
asks that bank, and fails when no bank holds the data file.

The list is newest first. --har writes the requests that match to FILE
as a HAR 1.2 file, oldest first, for a bug report, a CI artifact or a
browser's developer tools (- writes to standard output). ID, the id of an
error answer's body, shows that request whole: what the bank decided, the
signature check step by step with the signing string the bank rebuilt,
the client notes, and the headers and bodies.

Examples:
  sandbankd log --errors
  sandbankd log --har traffic.har
  sandbankd log c73257ff-24a1-4e8a-94f2-e2a9057e5f66

Flags:
`

func runLog(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := newOpCmd("log", logUsage, stdout, stderr)
	errorsOnly := o.fs.Bool("errors", false, "only answers of 400 or more (Errors only)")
	filter := map[string]*string{
		"q":      o.fs.String("filter", "", "only requests whose TPP, method, path, status, signature, error code, X-Request-ID, id, PSU or grant contain TEXT, in any case"),
		"tppId":  o.fs.String("tpp", "", "only requests signed by this TPP, e.g. NO-FSA-933012867"),
		"method": o.fs.String("method", "", "only requests with this method"),
		"status": o.fs.String("status", "", "only answers with this status, e.g. 401"),
	}
	limit := o.fs.String("limit", "", "list at most this many requests (default 100, at most 1000)")
	har := o.fs.String("har", "", "write the requests that match to this file as HAR 1.2 (- for standard output)")
	pos, err := o.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return o.usageError("give one request ID at most, not %s", nArgs(len(pos)))
	}
	if len(pos) == 1 {
		if err := o.checkArg("ID", "the request ID", pos[0], "the id of an error answer's body, or one sandbankd log lists"); err != nil {
			return err
		}
		if err := o.onlyFor("the list", "errors", "filter", "tpp", "method", "status", "limit", "har"); err != nil {
			return err
		}
	}
	if *har != "" && o.bank.given("limit") {
		return o.usageError("--limit is for the list; --har writes every request that matches")
	}
	if *errorsOnly {
		yes := "true"
		filter["errorsOnly"] = &yes
	}
	c, err := o.connect(runningOnly)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	switch {
	case len(pos) == 1:
		return logShow(ctx, o, c, pos[0])
	case *har != "":
		return logHAR(ctx, o, c, query(filter), *har)
	}
	filter["limit"] = limit
	return logList(ctx, o, c, query(filter))
}

func logList(ctx context.Context, o *opCmd, c *bankClient, q string) error {
	var page struct {
		Requests []reqlog.Summary
		Total    int
	}
	body, _, err := c.getJSON(ctx, o.stderr, reqlog.APIPath+q, &page)
	if err != nil {
		return err
	}
	if *o.json {
		return printJSON(o.stdout, body)
	}
	t := newTable(o.stdout, "TIME", "METHOD", "PATH", "STATUS", "MS", "TPP", "SIGNATURE", "ERROR", "ID")
	for _, r := range page.Requests {
		sig := r.Signature
		if r.Notes > 0 {
			sig += fmt.Sprintf(", %d note(s)", r.Notes)
		}
		t.row(timeText(r.Time), r.Method, r.Path, strconv.Itoa(r.Status), fmt.Sprintf("%.1f", r.DurationMS), r.TPPID, sig, r.ErrorCode, r.ID)
	}
	if err := t.flush(); err != nil {
		return err
	}
	if page.Total > len(page.Requests) {
		fmt.Fprintf(o.stderr, "%d of %d requests; see more with --limit (up to 1000), or all of them with --har\n", len(page.Requests), page.Total)
	}
	return nil
}

func logHAR(ctx context.Context, o *opCmd, c *bankClient, q, file string) error {
	n, err := c.download(ctx, o, reqlog.APIPath+".har"+q, file)
	if err != nil || file == "-" {
		return err
	}
	fmt.Fprintf(o.stdout, "Wrote the request log of %s to %s (HAR 1.2, %d bytes)\n", c.where, file, n)
	return nil
}

func logShow(ctx context.Context, o *opCmd, c *bankClient, id string) error {
	var d reqlog.Detail
	body, _, err := c.getJSON(ctx, o.stderr, reqlog.APIPath+"/"+url.PathEscape(id), &d)
	if err != nil {
		return err
	}
	if *o.json {
		return printJSON(o.stdout, body)
	}
	w := o.stdout
	fmt.Fprint(w, d.Explain())
	fmt.Fprintf(w, "\nRequest: %s %s %s\n%s", d.Method, d.URL, d.HTTPVersion, reqlog.HeaderText(d.Request.Headers))
	printBody(w, d.Request, d.BodiesCut)
	fmt.Fprintf(w, "\nResponse: %d %s\n%s", d.Status, http.StatusText(d.Status), reqlog.HeaderText(d.Response.Headers))
	printBody(w, d.Response, d.BodiesCut)
	return nil
}

// printBody writes a logged body: JSON indented, a body that is not
// UTF-8 in base64, and whether the log kept only its start.
func printBody(w io.Writer, m reqlog.Message, cut bool) {
	switch {
	case m.Body == "" && m.BodySize > 0:
		fmt.Fprintf(w, "\n(a body of %d bytes the bank did not read: it refused the request first)\n", m.BodySize)
		return
	case m.Body == "":
		return
	case m.BodyEncoding == "base64":
		fmt.Fprintf(w, "\n(%d bytes, not UTF-8; in base64:)\n%s\n", m.BodySize, m.Body)
	default:
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(reqlog.PrettyBody([]byte(m.Body)), "\n"))
	}
	if cut && m.BodySize > reqlog.MaxLoggedBody {
		fmt.Fprintf(w, "(the log keeps the first %d bytes of this body's %d)\n", reqlog.MaxLoggedBody, m.BodySize)
	}
}
