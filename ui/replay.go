package ui

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"sandbank/bank/apierr"
	"sandbank/bank/httpsig"
	"sandbank/bank/replay"
	"sandbank/bank/reqlog"
)

// The Traffic screen's Replay HAR…: a recorded session sent again to the
// running bank, as sandbankd replay sends it (bank/replay), and the
// answers shown beside the recorded ones.

// replayClocks are the choices of the sandbox clock during a replay.
var replayClocks = []string{"The real clock", "Each request's recorded time"}

// replayDialog asks which HAR to replay, and how.
func (s *trafficScreen) replayDialog() {
	f := newForm(nil)
	path := f.text("HAR file", "file", s.u.host.DataDir()+string(filepath.Separator), "a .har from a browser, Insomnia, Postman or Export HAR…")
	nationalID := f.text("National id", "nationalId", "", "the PSU's, for an SCA the HAR does not show (e.g. 13039319955)")
	clock := widget.NewSelect(replayClocks, nil)
	clock.SetSelected(replayClocks[0])
	f.add("Sandbox clock", "clock", clock)
	help := helpText("Each request goes to the running bank again, signed anew with a test certificate like the recorded one; the ids the answers hand out are followed, and an SCA is completed through automated SCA. What the requests change stays in the bank.")
	var rec *replay.Recording
	s.u.showModal("Replay a HAR", "Replay", f, help, func() error {
		file, err := os.Open(strings.TrimSpace(path.Text))
		if err != nil {
			return apierr.PathError(apierr.CodeFormatError, "file", "cannot be read: "+err.Error())
		}
		defer func() { _ = file.Close() }()
		if rec, err = replay.ReadHAR(file); err != nil {
			return apierr.PathError(apierr.CodeFormatError, "file", err.Error())
		}
		if len(s.u.host.URLs()) == 0 {
			return apierr.Errorf(apierr.CodeBadRequest, "the bank is not serving: start it on the Server screen, then replay")
		}
		return nil
	}, func() {
		s.runReplay(strings.TrimSpace(path.Text), rec, replay.Options{NationalID: strings.TrimSpace(nationalID.Text), RecordedClock: clock.Selected == replayClocks[1]})
	})
}

// replayTarget is the running bank as the replay reaches it: its HTTP
// listener (else its HTTPS one, trusting the bank's CA), signed as the
// operator for what only the operator may do.
func (s *trafficScreen) replayTarget() (replay.Target, error) {
	urls := s.u.host.URLs()
	if len(urls) == 0 {
		return replay.Target{}, errors.New("the bank is not serving: start it on the Server screen, then replay")
	}
	base := urls[0]
	for _, u := range urls {
		if strings.HasPrefix(u, "http://") {
			base = u
			break
		}
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(s.u.host.CACertPEM())
	client := &http.Client{
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	cert, key, err := s.u.host.OperatorCert()
	if err != nil {
		return replay.Target{}, err
	}
	op, err := httpsig.NewSigner(cert, key)
	if err != nil {
		return replay.Target{}, err
	}
	return replay.Target{Base: strings.TrimSuffix(base, "/v1"), Client: client, Operator: op}, nil
}

// runReplay replays in the background behind a progress bar with
// Cancel, then shows the report.
func (s *trafficScreen) runReplay(file string, rec *replay.Recording, opts replay.Options) {
	t, err := s.replayTarget()
	if err != nil {
		s.u.showError(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	bar := widget.NewProgressBar()
	bar.Max = float64(len(rec.Entries))
	label := helpText(fmt.Sprintf("Replaying %d entries of %s against %s", len(rec.Entries), filepath.Base(file), t.Base))
	d := dialog.NewCustom("Replaying", "Cancel", container.NewVBox(label, bar), s.u.win)
	d.Resize(fyne.NewSize(560, 180))
	s.u.open(d)
	// Set after open's own callback, so the dialog is off the stack
	// before the replay learns of the cancel.
	d.SetOnClosed(cancel)
	opts.Progress = func(done, total int) {
		fyne.Do(func() {
			bar.SetValue(float64(done))
			label.SetText(fmt.Sprintf("Entry %d of %d of %s", done, total, filepath.Base(file)))
		})
	}
	s.u.background(func() {
		rep, err := replay.Run(ctx, rec, t, opts)
		fyne.Do(func() {
			d.Hide()
			if rep != nil {
				rep.File = file
				s.showReplay(rep)
			}
			if err != nil {
				s.u.showError(err)
			}
		})
	})
}

// replayView shows a replay's report: a row per entry, and the selected
// entry's recorded and new answers side by side, the differing paths
// highlighted.
type replayView struct {
	u        *UI
	rep      *replay.Report
	selected int // the selected entry's index in rep.Exchanges; -1 for none
	summary  *widget.Label
	table    *widget.Table
	found    *widget.Label // the selected entry's differences, in words
	recorded *widget.RichText
	fresh    *widget.RichText
	sigBtn   *widget.Button
	d        dialog.Dialog
}

var replayColumns = []string{"#", "Request", "Recorded", "New", "Verdict", "First difference"}

// showReplay opens the report of a replay.
func (s *trafficScreen) showReplay(rep *replay.Report) {
	v := &replayView{u: s.u, rep: rep, selected: -1}
	s.replay = v
	v.summary = widget.NewLabel(rep.Summary())
	v.summary.Wrapping = fyne.TextWrapWord
	v.summary.TextStyle = fyne.TextStyle{Bold: true}
	v.table = textTable(replayColumns, []float32{50, 420, 80, 60, 80, 500},
		func() int { return len(rep.Exchanges) },
		func(row, col int) string { return v.cell(rep.Exchanges[row], col) },
		v.show)
	v.found = helpText("Select an entry to see its recorded and new answers.")
	v.recorded = widget.NewRichText()
	v.fresh = widget.NewRichText()
	v.sigBtn = widget.NewButtonWithIcon("Signature check of the new request", theme.InfoIcon(), v.signatureCheck)
	v.sigBtn.Disable()
	pane := func(title string, rt *widget.RichText) fyne.CanvasObject {
		return container.NewBorder(heading(title), nil, nil, nil, container.NewScroll(rt))
	}
	answers := container.NewHSplit(pane("Recorded answer", v.recorded), pane("New answer", v.fresh))
	detail := container.NewBorder(container.NewVBox(container.NewHBox(v.sigBtn), v.found), nil, nil, nil, answers)
	split := container.NewVSplit(v.table, detail)
	split.Offset = 0.35
	title := "Replay of " + filepath.Base(rep.File)
	v.d = dialog.NewCustom(title, "Close", container.NewBorder(v.summary, nil, nil, nil, split), s.u.win)
	size := s.u.win.Canvas().Size()
	v.d.Resize(fyne.NewSize(max(size.Width-40, 600), max(size.Height-40, 400)))
	v.d.SetOnClosed(func() {
		if s.replay == v {
			s.replay = nil
		}
	})
	s.u.open(v.d)
	for i, x := range rep.Exchanges {
		if x.Verdict == replay.VerdictDiffers {
			v.table.Select(widget.TableCellID{Row: i, Col: 0})
			break
		}
	}
}

func (v *replayView) cell(x replay.Result, col int) string {
	switch col {
	case 0:
		return strconv.Itoa(x.Entry)
	case 1:
		return x.Request()
	case 2:
		return statusOrDash(x.RecordedStatus)
	case 3:
		return statusOrDash(x.NewStatus)
	case 4:
		return string(x.Verdict)
	case 5:
		return x.FirstDifference()
	}
	return ""
}

func statusOrDash(s int) string {
	if s == 0 {
		return "-"
	}
	return strconv.Itoa(s)
}

// show shows an entry: what differs, in words, and both answers, each
// line of a differing path in the error colour, of an ignored one in the
// disabled colour.
func (v *replayView) show(row int) {
	v.selected = row
	x := v.rep.Exchanges[row]
	var words []string
	if x.Sent != "" {
		words = append(words, "The replay sent "+x.Sent)
	}
	if x.Verdict == replay.VerdictSkipped {
		words = append(words, "Not sent: "+x.Note)
	}
	for _, d := range x.Differences {
		words = append(words, fmt.Sprintf("Differs at %s: recorded %s, new %s", d.Path, d.Recorded, d.New))
	}
	for _, ig := range x.Ignored {
		if ig.Differs {
			words = append(words, fmt.Sprintf("Ignored (%s) at %s: recorded %s, new %s", ig.Rule, ig.Path, ig.Recorded, ig.New))
		}
	}
	words = append(words, x.Notes...)
	if x.Verdict == replay.VerdictMatch {
		words = append(words, fmt.Sprintf("Matches: %d values compared equal.", x.Matched))
	}
	v.found.SetText(strings.Join(words, "\n"))
	differs, ignored := map[string]bool{}, map[string]bool{}
	for _, d := range x.Differences {
		differs[d.Path] = true
	}
	for _, ig := range x.Ignored {
		ignored[ig.Path] = true
	}
	v.recorded.Segments = answerSegments(x.Recorded, differs, ignored)
	v.recorded.Refresh()
	v.fresh.Segments = answerSegments(x.New, differs, ignored)
	v.fresh.Refresh()
	enable(v.sigBtn, x.RequestID != "")
}

// answerSegments writes an answer's status line and body, one segment a
// line: a line at or under a path of differs starts with "! " and is in
// the error colour, one of ignored starts with "~ " and is in the
// disabled colour.
func answerSegments(m *replay.Message, differs, ignored map[string]bool) []widget.RichTextSegment {
	if m == nil {
		return []widget.RichTextSegment{&widget.TextSegment{Style: widget.RichTextStyleParagraph, Text: "(none: the entry was not sent)"}}
	}
	under := func(marked map[string]bool, p string) bool {
		for q := range marked {
			if p != "" && (p == q || strings.HasPrefix(p, q+".") || strings.HasPrefix(p, q+"[")) {
				return true
			}
		}
		return false
	}
	line := func(text, p string) widget.RichTextSegment {
		s := widget.RichTextStyleCodeInline
		s.Inline = false
		mark := "  "
		switch {
		case under(differs, p):
			mark, s.ColorName = "! ", theme.ColorNameError
		case under(ignored, p):
			mark, s.ColorName = "~ ", theme.ColorNameDisabled
		}
		return &widget.TextSegment{Style: s, Text: mark + text}
	}
	segments := []widget.RichTextSegment{line(fmt.Sprintf("%d %s", m.Status, http.StatusText(m.Status)), "status")}
	for _, f := range m.Header {
		if strings.EqualFold(f.Name, "Location") || strings.EqualFold(f.Name, "Content-Type") {
			segments = append(segments, line(f.Name+": "+f.Value, "header "+http.CanonicalHeaderKey(f.Name)))
		}
	}
	for _, l := range replay.Outline(m.Body) {
		segments = append(segments, line(l.Text, l.Path))
	}
	return segments
}

// signatureCheck shows how the bank checked the signature of the selected
// entry's new request: the Traffic screen's explanation of its log entry.
func (v *replayView) signatureCheck() {
	if v.selected < 0 {
		return
	}
	x := v.rep.Exchanges[v.selected]
	e, ok := loggedRequest(v.u.host.RequestLog(), x.RequestID)
	if !ok {
		v.u.info("Not in the request log", fmt.Sprintf("The request log no longer holds the request the replay sent for entry %d (X-Request-ID %s): it keeps the last requests only (the requestLog setting on the Server screen).", x.Entry, x.RequestID))
		return
	}
	ex := explain(e.Detail())
	top := widget.NewRichText(ex.topSegments()...)
	top.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom(fmt.Sprintf("Signature check of entry %d's new request", x.Entry), "Close", container.NewVScroll(container.NewVBox(top, helpText(ex.rest))), v.u.win)
	d.Resize(fyne.NewSize(900, 600))
	v.u.open(d)
}

// loggedRequest finds the request log's entry of the request sent with
// an X-Request-ID, the newest when there are more.
func loggedRequest(l *reqlog.Log, requestID string) (reqlog.Entry, bool) {
	entries := l.Entries()
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].RequestID == requestID {
			return entries[i], true
		}
	}
	return reqlog.Entry{}, false
}
