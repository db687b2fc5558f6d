package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Verdict is what the replay found of one entry.
type Verdict string

// The verdicts.
const (
	// VerdictMatch: the new answer is the recorded one, once what always
	// differs is normalised and the ignore rules applied.
	VerdictMatch Verdict = "match"
	// VerdictDiffers: it is not; Differences says where.
	VerdictDiffers Verdict = "differs"
	// VerdictSkipped: the entry was not sent (another address, a step of
	// the SCA page, a CORS preflight); Note says why.
	VerdictSkipped Verdict = "not sent"
)

// Message is an answer, recorded or new, for the window's side-by-side
// view.
type Message struct {
	Status int
	Header []Field
	Body   []byte
}

// Result is what the replay did with one entry of the HAR and what it
// found.
type Result struct {
	// Entry is the entry's number in the HAR, from 1.
	Entry  int    `json:"entry"`
	Method string `json:"method"`
	// URL is the recorded request's URL, an SCA page's secret written <secret>.
	URL string `json:"url"`
	// Sent is what the replay sent instead of the recorded request, when
	// it did (automated SCA for a step of the SCA page).
	Sent           string  `json:"sent,omitempty"`
	RecordedStatus int     `json:"recordedStatus,omitempty"`
	NewStatus      int     `json:"newStatus,omitempty"`
	Verdict        Verdict `json:"verdict"`
	// Note says why an entry was not sent, or what the replay did with it
	// instead.
	Note string `json:"note,omitempty"`
	// Notes are what else the replay says of the entry.
	Notes       []string     `json:"notes,omitempty"`
	Differences []Difference `json:"differences,omitempty"`
	// Ignored are the values the ignore rules left out.
	Ignored []Ignored `json:"ignored,omitempty"`
	// Matched counts the values of the body that matched.
	Matched int `json:"matched"`
	// RequestID is the X-Request-ID of the request the replay sent: the
	// request log (the Traffic screen, GET /v1/sandbox/requests) has its
	// signature check.
	RequestID string `json:"requestId,omitempty"`
	// Recorded and New are the answers, for the window.
	Recorded *Message `json:"-"`
	New      *Message `json:"-"`
}

// Request is the result's request line: the method and the URL's path
// and query.
func (r Result) Request() string {
	u, err := url.Parse(r.URL)
	if err != nil {
		return r.Method + " " + r.URL
	}
	target := u.RequestURI()
	if !strings.HasPrefix(target, "/") {
		target = r.URL
	}
	return r.Method + " " + target
}

// Report is a whole replay.
type Report struct {
	// File is the HAR replayed, as the caller names it.
	File string `json:"file,omitempty"`
	// RecordedWith is the tool that wrote the HAR (log.creator).
	RecordedWith string `json:"recordedWith,omitempty"`
	// Bank is the base URL of the bank replayed to.
	Bank    string    `json:"bank"`
	Started time.Time `json:"started"`
	// Entries, Matched, Differed and Skipped count the entries replayed
	// and what was found.
	Entries  int `json:"entries"`
	Matched  int `json:"matched"`
	Differed int `json:"differed"`
	Skipped  int `json:"notSent"`
	// IDsFollowed counts the recorded ids the replay learned; Issued the
	// test certificates it had the bank issue.
	IDsFollowed int `json:"idsFollowed"`
	Issued      int `json:"certificatesIssued"`
	// Cancelled is set when the replay was stopped before the end: the
	// bank keeps what the entries sent did.
	Cancelled bool `json:"cancelled,omitempty"`
	// ClockRestored is set when the replay followed the recorded clock
	// and set the sandbox clock back to where it was.
	ClockRestored bool     `json:"clockRestored,omitempty"`
	Exchanges     []Result `json:"exchanges"`
}

// finish counts the results.
func (rp *Report) finish(issued, ids int) {
	rp.Entries, rp.Matched, rp.Differed, rp.Skipped = len(rp.Exchanges), 0, 0, 0
	for _, x := range rp.Exchanges {
		switch x.Verdict {
		case VerdictMatch:
			rp.Matched++
		case VerdictDiffers:
			rp.Differed++
		default:
			rp.Skipped++
		}
	}
	rp.Issued, rp.IDsFollowed = issued, ids
}

// OK reports whether every entry sent matched.
func (rp *Report) OK() bool { return rp.Differed == 0 }

// Summary says in a sentence what the replay found.
func (rp *Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s replayed against %s: %d match, %d differ, %d not sent", plural(rp.Entries, "entry", "entries"), rp.Bank, rp.Matched, rp.Differed, rp.Skipped)
	fmt.Fprintf(&b, "; %s followed", plural(rp.IDsFollowed, "id", "ids"))
	if rp.Issued > 0 {
		fmt.Fprintf(&b, ", %s issued", plural(rp.Issued, "test certificate", "test certificates"))
	}
	b.WriteString(".")
	if rp.Cancelled {
		b.WriteString(" Cancelled before the end: the bank keeps what the entries sent did; nothing was undone.")
	}
	if rp.ClockRestored {
		b.WriteString(" The sandbox clock is back where it was.")
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// FirstDifference is a result's first difference in a few words, or what
// else the table's last column says of it.
func (r Result) FirstDifference() string {
	switch {
	case len(r.Differences) > 0:
		d := r.Differences[0]
		s := fmt.Sprintf("%s: recorded %s, new %s", d.Path, clip(d.Recorded, 48), clip(d.New, 48))
		if n := len(r.Differences); n > 1 {
			s += fmt.Sprintf(" (+%d more)", n-1)
		}
		return s
	case r.Verdict == VerdictSkipped:
		return r.Note
	case len(r.Ignored) > 0:
		return plural(len(r.Ignored), "value", "values") + " ignored"
	}
	return ""
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// WriteTable writes the report as a table, one entry a row, then every
// difference of each entry that differs, and the summary.
func (rp *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tREQUEST\tRECORDED\tNEW\tVERDICT\tFIRST DIFFERENCE")
	for _, x := range rp.Exchanges {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", x.Entry, clip(x.Request(), 64), statusText(x.RecordedStatus), statusText(x.NewStatus), x.Verdict, x.FirstDifference())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, x := range rp.Exchanges {
		if x.Verdict != VerdictDiffers && len(x.Notes) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nEntry %d, %s:\n", x.Entry, x.Request())
		if x.Sent != "" {
			fmt.Fprintf(w, "  sent %s\n", x.Sent)
		}
		for _, d := range x.Differences {
			fmt.Fprintf(w, "  %s: recorded %s, new %s\n", d.Path, clip(d.Recorded, 200), clip(d.New, 200))
			if d.Note != "" {
				fmt.Fprintf(w, "    %s\n", d.Note)
			}
		}
		for _, n := range x.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		if x.RequestID != "" && x.Verdict == VerdictDiffers {
			fmt.Fprintf(w, "  the bank's request log holds the new request as X-Request-ID %s\n", x.RequestID)
		}
	}
	_, err := fmt.Fprintf(w, "\n%s\n", rp.Summary())
	return err
}

func statusText(s int) string {
	if s == 0 {
		return "-"
	}
	return strconv.Itoa(s)
}

// WriteJSON writes the whole report as JSON.
func (rp *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(rp)
}
