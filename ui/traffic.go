package ui

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"sandbank/bank"
	"sandbank/bank/apierr"
	"sandbank/bank/reqlog"
)

var trafficColumns = []string{"Time (Oslo)", "TPP", "Method", "Path", "Status", "ms", "Signature", "PSU and grant"}

// trafficScreen is the live request log: what TPPs sent, what the bank
// answered, and why a signature was refused.
type trafficScreen struct {
	u *UI

	entries  []reqlog.Entry // newest last
	shown    []int          // indexes of entries that match the filter, newest first
	selected uint64         // Seq of the selected entry

	filter     *entry
	errorsOnly *widget.Check
	table      *widget.Table
	count      *widget.Label
	// The selected request's explanation (explain), top down: the
	// verdict and the signing string the bank rebuilt in one text, then
	// the rest.
	top       *widget.RichText
	steps     *widget.Label
	explained *container.Scroll // the two above
	grantBtn  *widget.Button
	request   *widget.Entry
	response  *widget.Entry
	// replay is the open report of Replay HAR…, nil when none is open.
	replay *replayView
}

func newTrafficScreen(u *UI) *trafficScreen { return &trafficScreen{u: u} }

func (s *trafficScreen) build() fyne.CanvasObject {
	s.filter = newEntry("Filter by TPP, method, path, status, signature verdict, PSU or grant")
	s.filter.OnChanged = func(string) { s.apply() }
	s.errorsOnly = widget.NewCheck("Errors only", func(bool) { s.apply() })
	s.count = widget.NewLabel("")
	s.table = textTable(trafficColumns, []float32{100, 170, 70, 330, 60, 70, 190, 260},
		func() int { return len(s.shown) },
		func(row, col int) string { return s.cell(s.entries[s.shown[row]], col) },
		func(row int) {
			// Reselected after new requests moved it (apply): the
			// explanation shows it already, where the reader left it.
			if seq := s.entries[s.shown[row]].Seq; seq != s.selected {
				s.selected = seq
				s.showDetail()
			}
		})
	s.top = widget.NewRichText(&widget.TextSegment{Style: widget.RichTextStyleParagraph, Text: "Select a request to see how its signature was checked."})
	s.top.Wrapping = fyne.TextWrapWord
	s.steps = helpText("")
	s.explained = container.NewVScroll(container.NewVBox(s.top, s.steps))
	s.request = readOnlyText()
	s.response = readOnlyText()
	clear := widget.NewButtonWithIcon("Clear", theme.ContentClearIcon(), s.clearLog)
	exportJSON := widget.NewButtonWithIcon("Export JSON…", theme.DocumentSaveIcon(), func() { s.exportDialog(".json") })
	exportHAR := widget.NewButtonWithIcon("Export HAR…", theme.DocumentSaveIcon(), func() { s.exportDialog(".har") })
	replayHAR := widget.NewButtonWithIcon("Replay HAR…", theme.MediaReplayIcon(), s.replayDialog)
	top := container.NewBorder(nil, nil, nil, container.NewHBox(s.errorsOnly, clear, exportJSON, exportHAR, replayHAR), s.filter)
	s.grantBtn = widget.NewButtonWithIcon("Show the grant", theme.NavigateNextIcon(), func() {
		if e, ok := s.entry(); ok && e.GrantID != "" {
			s.u.showGrant(e.GrantID)
		}
	})
	s.grantBtn.Disable()
	detail := container.NewAppTabs(
		container.NewTabItem("Signature check", s.explained),
		container.NewTabItem("Request", s.request),
		container.NewTabItem("Response", s.response),
	)
	split := container.NewVSplit(s.table, container.NewBorder(container.NewHBox(s.grantBtn), nil, nil, nil, detail))
	// Half and half: at 1280×800 the explanation shows the verdict and a
	// signing string of six or seven lines without scrolling.
	split.Offset = 0.5
	s.entries = s.u.host.RequestLog().Entries()
	s.apply()
	return container.NewBorder(container.NewVBox(top, s.count), nil, nil, nil, split)
}

func readOnlyText() *widget.Entry {
	e := widget.NewMultiLineEntry()
	e.TextStyle = fyne.TextStyle{Monospace: true}
	e.Wrapping = fyne.TextWrapOff
	e.Disable()
	return e
}

func (s *trafficScreen) cell(e reqlog.Entry, col int) string {
	switch col {
	case 0:
		return e.Time.In(bank.Oslo).Format("15:04:05.000")
	case 1:
		return e.TPPID
	case 2:
		return e.Method
	case 3:
		return e.Path
	case 4:
		return strconv.Itoa(e.Status)
	case 5:
		return msText(e.Duration)
	case 6:
		if n := apierr.CountNotes(e.Notes); n > 0 {
			return e.SignatureSummary() + ", " + plural(n, "note", "notes")
		}
		return e.SignatureSummary()
	case 7:
		return e.Access
	}
	return ""
}

// add takes new requests from the log.
func (s *trafficScreen) add(entries []reqlog.Entry) {
	s.entries = append(s.entries, entries...)
	s.apply()
}

// apply keeps the requests within the request log's limits, filters them
// and refreshes the table.
func (s *trafficScreen) apply() {
	maxCount, maxBytes := s.u.host.RequestLog().Limits()
	s.entries = reqlog.Trim(s.entries, maxCount, maxBytes)
	f := reqlog.Filter{Text: s.filter.Text, ErrorsOnly: s.errorsOnly.Checked}
	s.shown = s.shown[:0]
	for i := len(s.entries) - 1; i >= 0; i-- {
		if f.Match(s.entries[i]) {
			s.shown = append(s.shown, i)
		}
	}
	s.count.SetText(fmt.Sprintf("%d of %d requests (the last %d are kept, fewer when their bodies pass %s MiB; the requestLog setting on the Server screen)", len(s.shown), len(s.entries), maxCount, strconv.FormatFloat(float64(maxBytes)/(1<<20), 'f', -1, 64)))
	s.table.Refresh()
	// The selection follows its request, which new ones push down; one
	// the filter hides, or the log dropped, is unselected, and the
	// explanation stays.
	if row := slices.IndexFunc(s.shown, func(i int) bool { return s.entries[i].Seq == s.selected }); row >= 0 {
		s.table.Select(widget.TableCellID{Row: row, Col: 0})
	} else {
		s.table.UnselectAll()
	}
}

func (s *trafficScreen) entry() (reqlog.Entry, bool) {
	for _, e := range s.entries {
		if e.Seq == s.selected {
			return e, true
		}
	}
	return reqlog.Entry{}, false
}

// showDetail explains the selected request.
func (s *trafficScreen) showDetail() {
	e, ok := s.entry()
	if !ok {
		return
	}
	x := explain(e.Detail())
	s.top.Segments = x.topSegments()
	s.top.Refresh()
	s.steps.SetText(x.rest)
	s.explained.ScrollToTop()
	enable(s.grantBtn, e.GrantID != "")
	s.request.SetText(fmt.Sprintf("%s %s\n%s\n%s", e.Method, e.Path, reqlog.HeaderText(e.RequestHeader), reqlog.PrettyBody(e.RequestBody)))
	s.response.SetText(fmt.Sprintf("%d %s\n%s\n%s", e.Status, http.StatusText(e.Status), reqlog.HeaderText(e.ResponseHeader), reqlog.PrettyBody(e.ResponseBody)))
}

// signingHeading heads the signing string in the explanation.
const signingHeading = "Signing string the bank rebuilt, which the signature must cover byte for byte (lines joined by \\n, nothing after the last):"

// topSegments writes the verdict in bold and, when there is one, the
// signing string in monospace under its heading: one rich text, whose
// paragraphs take less room than a label each.
func (x explanation) topSegments() []widget.RichTextSegment {
	bold := widget.RichTextStyleParagraph
	bold.TextStyle = fyne.TextStyle{Bold: true}
	segments := []widget.RichTextSegment{&widget.TextSegment{Style: bold, Text: x.verdict}}
	if x.signing != "" {
		segments = append(segments,
			&widget.TextSegment{Style: widget.RichTextStyleParagraph, Text: signingHeading},
			&widget.TextSegment{Style: widget.RichTextStyleCodeBlock, Text: x.signing})
	}
	return segments
}

// explanation is what the Traffic screen says of a request, in the order
// a person needs it, so that at 1280×800 the first two show without
// scrolling: what the bank decided, the signing string it rebuilt, then
// the rest.
type explanation struct {
	// verdict is the answer and the signature's outcome: the step that
	// refused it and why, or that it verified.
	verdict string
	// signing is the signing string the bank rebuilt; "" when the check
	// stopped before it (a missing signature, a bad certificate) or the
	// route is not signed.
	signing string
	// rest is the client notes, every step of the check, the signed
	// headers, the body's digest and the ids.
	rest string
}

// explain explains a request: what reqlog's Detail.Explain writes, with
// the verdict and the signing string first and the steps after them.
func explain(d reqlog.Detail) explanation {
	var x explanation
	var verdict, rest strings.Builder
	answer := strconv.Itoa(d.Status)
	if d.ErrorCode != "" {
		answer += " " + d.ErrorCode
	}
	fmt.Fprintf(&verdict, "%s %s answered %s in %.1f ms.\n", d.Method, d.Path, answer, d.DurationMS)
	v := d.Verdict
	switch {
	case v == nil:
		verdict.WriteString("This route is not signed (the health check, the SCA page, or no such route), so no signature was checked.")
	case len(v.Steps) > 0 && !v.Steps[len(v.Steps)-1].OK:
		last := v.Steps[len(v.Steps)-1]
		fmt.Fprintf(&verdict, "Refused at the %s step: %s", last.Check, last.Detail)
	case !v.Signed:
		verdict.WriteString("Not signed, and let through: requireSignature is off.")
	default:
		n := len(d.ClientNotes)
		verdict.WriteString("The signature verified: every step passed.")
		if n > 0 {
			fmt.Fprintf(&verdict, " Accepted with %s, below: what a stricter bank might refuse.", plural(n, "client note", "client notes"))
		}
	}
	x.verdict = verdict.String()
	if len(d.ClientNotes) > 0 {
		reqlog.WriteClientNotes(&rest, d.ClientNotes)
		rest.WriteString("\n")
	}
	if v != nil {
		x.signing = v.SigningString
		reqlog.WriteSteps(&rest, v)
		if v.Digest != "" {
			fmt.Fprintf(&rest, "Digest of the body as the bank computed it: %s\n", v.Digest)
		}
		rest.WriteString("\n")
	}
	if d.Access != "" {
		fmt.Fprintf(&rest, "PSU and grant: %s\n", d.Access)
	}
	fmt.Fprintf(&rest, "X-Request-ID %s; id %s (an error body's id; GET %s/{id} shows this through the API)", d.RequestID, d.ID, reqlog.APIPath)
	x.rest = rest.String()
	return x
}

// clearLog clears the request log; the screen follows at once, as it does
// when the log is cleared through the API.
func (s *trafficScreen) clearLog() {
	s.u.host.RequestLog().Clear()
	s.reset()
}

// reset forgets the requests the screen shows.
func (s *trafficScreen) reset() {
	s.entries, s.selected = nil, 0
	s.top.Segments = nil
	s.top.Refresh()
	s.steps.SetText("")
	s.grantBtn.Disable()
	s.request.SetText("")
	s.response.SetText("")
	s.table.UnselectAll()
	s.apply()
}

// exportDialog asks where to write the shown requests, offering a file
// with the extension ext: .json or .har.
func (s *trafficScreen) exportDialog(ext string) {
	f := newForm(nil)
	path := f.text("File", "file", filepath.Join(s.u.host.DataDir(), "traffic-"+time.Now().Format("20060102-150405")+ext), "")
	var n int
	s.u.showModal("Export the requests as "+strings.ToUpper(ext[1:]), "Export", f, nil, func() (err error) {
		n, err = s.export(path.Text)
		return err
	}, func() {
		s.u.info("Exported", fmt.Sprintf("%d requests written to %s", n, path.Text))
	})
}

// export writes the requests the filter shows, oldest first, to a file:
// as HAR 1.2 when its name ends in .har, else as JSON.
func (s *trafficScreen) export(path string) (int, error) {
	list := make([]reqlog.Entry, 0, len(s.shown))
	for i := len(s.shown) - 1; i >= 0; i-- {
		list = append(list, s.entries[s.shown[i]])
	}
	var buf bytes.Buffer
	write := reqlog.WriteJSON
	if strings.EqualFold(filepath.Ext(path), ".har") {
		write = func(w io.Writer, entries []reqlog.Entry) error {
			return reqlog.WriteHAR(w, entries, s.u.host.Version())
		}
	}
	if err := write(&buf, list); err != nil {
		return 0, err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	return len(list), nil
}
