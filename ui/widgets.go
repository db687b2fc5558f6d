package ui

import (
	"errors"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"sandbank/bank/apierr"
)

// heading is the bold title of a part of a screen.
func heading(t string) *widget.Label {
	return widget.NewLabelWithStyle(t, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}

// helpText is a wrapped paragraph that explains a screen to a tester.
func helpText(t string) *widget.Label {
	l := widget.NewLabel(t)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// findingLabel is a hidden line for the bank's findings.
func findingLabel() *widget.Label {
	l := helpText("")
	l.Importance = widget.DangerImportance
	l.Hide()
	return l
}

// entry is a text entry that reports Escape, so that a dialog closes on
// Escape even while the entry has the focus.
type entry struct {
	widget.Entry
	onEscape func()
}

func newEntry(placeholder string) *entry {
	e := &entry{}
	e.ExtendBaseWidget(e)
	e.PlaceHolder = placeholder
	return e
}

// TypedKey handles Escape and leaves every other key to the entry.
func (e *entry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	e.Entry.TypedKey(k)
}

// field is one input of a form, with its label and a line for the bank's
// finding about it. path is the JSON path the bank names it by.
type field struct {
	label string
	path  string
	input fyne.CanvasObject
	err   *widget.Label
}

// form lays out fields with their findings under each, and submits on
// Enter in any text entry.
type form struct {
	fields  []*field
	general *widget.Label // findings that name no field of the form
	submit  func()
}

func newForm(submit func()) *form {
	return &form{general: findingLabel(), submit: submit}
}

// add appends a field and returns its input.
func (f *form) add(label, path string, input fyne.CanvasObject) fyne.CanvasObject {
	if e, ok := input.(*entry); ok {
		e.OnSubmitted = func(string) {
			if f.submit != nil {
				f.submit()
			}
		}
	}
	f.fields = append(f.fields, &field{label: label, path: path, input: input, err: findingLabel()})
	return input
}

// text adds a text entry.
func (f *form) text(label, path, value, placeholder string) *entry {
	e := newEntry(placeholder)
	e.SetText(value)
	f.add(label, path, e)
	return e
}

// onEscape makes every entry of the form call fn on Escape.
func (f *form) onEscape(fn func()) {
	for _, fl := range f.fields {
		if e, ok := fl.input.(*entry); ok {
			e.onEscape = fn
		}
	}
}

// object returns the form's layout: a two-column grid of labels and inputs
// with each finding under its input.
func (f *form) object() fyne.CanvasObject {
	grid := container.New(&formLayout{})
	for _, fl := range f.fields {
		grid.Add(heading(fl.label))
		grid.Add(container.NewVBox(fl.input, fl.err))
	}
	return container.NewVBox(grid, f.general)
}

// clear hides every finding.
func (f *form) clear() {
	for _, fl := range f.fields {
		fl.err.SetText("")
		fl.err.Hide()
	}
	f.general.SetText("")
	f.general.Hide()
}

// show puts a bank error's findings at the fields they name; a finding that
// names no field of the form, and any other error, goes under the form. It
// returns false when err is nil.
func (f *form) show(err error) bool {
	f.clear()
	if err == nil {
		return false
	}
	e, ok := apierr.AsError(err)
	if !ok {
		f.general.SetText(err.Error())
		f.general.Show()
		return true
	}
	var rest []string
	for _, m := range e.Messages {
		if fl := f.fieldFor(m.Path); fl != nil {
			text := m.Text
			if fl.err.Text != "" {
				text = fl.err.Text + "\n" + text
			}
			fl.err.SetText(text)
			fl.err.Show()
			continue
		}
		if m.Path != "" {
			rest = append(rest, m.Path+": "+m.Text)
		} else {
			rest = append(rest, m.Text)
		}
	}
	if len(e.Messages) == 0 {
		rest = append(rest, e.Message)
	}
	if len(rest) > 0 {
		f.general.SetText(strings.Join(rest, "\n"))
		f.general.Show()
	}
	return true
}

// warn shows the warnings a change was saved with (docs/TPP-GUIDE.md 9) at the
// fields they name, as show does findings.
func (f *form) warn(warnings []apierr.Message) {
	if len(warnings) > 0 {
		f.show(editMessages(&apierr.Error{Messages: warnings}, func(m *apierr.Message) { m.Text = "saved with a warning: " + m.Text }))
	}
}

// editMessages returns a copy of a bank error with each finding changed by
// edit; any other error as it is.
func editMessages(err error, edit func(*apierr.Message)) error {
	e, ok := apierr.AsError(err)
	if !ok {
		return err
	}
	c := *e
	c.Messages = append([]apierr.Message(nil), e.Messages...)
	for i := range c.Messages {
		edit(&c.Messages[i])
	}
	return &c
}

// fieldFor finds the field a JSON path names: the field with the longest
// path that is the path or a prefix of it.
func (f *form) fieldFor(path string) *field {
	var best *field
	for _, fl := range f.fields {
		if fl.path == "" {
			continue
		}
		if path == fl.path || strings.HasPrefix(path, fl.path+".") || strings.HasPrefix(path, fl.path+"[") {
			if best == nil || len(fl.path) > len(best.path) {
				best = fl
			}
		}
	}
	return best
}

// errorText returns the finding shown at the field with this path ("" when
// none), for tests and for screens that show one finding.
func (f *form) errorText(path string) string {
	for _, fl := range f.fields {
		if fl.path == path {
			return fl.err.Text
		}
	}
	return ""
}

// formLayout is a two-column layout: labels as wide as the widest, inputs
// taking the rest.
type formLayout struct{}

func (formLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	labelW, inputW, h := float32(0), float32(0), float32(0)
	for i := 0; i+1 < len(objects); i += 2 {
		l, in := objects[i].MinSize(), objects[i+1].MinSize()
		labelW, inputW = max(labelW, l.Width), max(inputW, in.Width)
		h += max(l.Height, in.Height) + 4
	}
	return fyne.NewSize(labelW+inputW+8, h)
}

func (formLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	labelW := float32(0)
	for i := 0; i+1 < len(objects); i += 2 {
		labelW = max(labelW, objects[i].MinSize().Width)
	}
	y := float32(0)
	for i := 0; i+1 < len(objects); i += 2 {
		l, in := objects[i], objects[i+1]
		h := max(l.MinSize().Height, in.MinSize().Height)
		l.Move(fyne.NewPos(0, y))
		l.Resize(fyne.NewSize(labelW, l.MinSize().Height))
		in.Move(fyne.NewPos(labelW+8, y))
		in.Resize(fyne.NewSize(size.Width-labelW-8, h))
		y += h + 4
	}
}

// modal is a dialog with its own buttons: a form (or a message) and
// Cancel and an action button.
type modal struct {
	d      *dialog.CustomDialog
	form   *form
	extra  fyne.CanvasObject // what the dialog shows below the form
	cancel *widget.Button
	submit *widget.Button
}

// newModal lays out a dialog around body with Cancel and an action button
// labelled action that calls submit, and shows it.
func (u *UI) newModal(title, action string, f *form, body fyne.CanvasObject, submit func()) *modal {
	m := &modal{form: f}
	m.cancel = widget.NewButton("Cancel", func() { m.d.Hide() })
	m.submit = widget.NewButton(action, submit)
	m.submit.Importance = widget.HighImportance
	content := container.NewVBox(body, container.NewHBox(layout.NewSpacer(), m.cancel, m.submit))
	m.d = dialog.NewCustomWithoutButtons(title, container.NewVScroll(content), u.win)
	m.d.Resize(fyne.NewSize(600, min(680, content.MinSize().Height+90)))
	u.modals = append(u.modals, m)
	m.d.SetOnClosed(func() {
		for i, x := range u.modals {
			if x == m {
				u.modals = append(u.modals[:i], u.modals[i+1:]...)
				break
			}
		}
	})
	u.open(m.d)
	return m
}

// showModal shows a form in a dialog, with optional extra content below
// it. The action button, and Enter in an entry, call submit: when it fails,
// its error shows at the form's fields and the dialog stays open; else the
// dialog closes and done (may be nil) runs. Escape closes.
func (u *UI) showModal(title, action string, f *form, extra fyne.CanvasObject, submit func() error, done func()) *modal {
	var m *modal
	send := func() {
		if f.show(submit()) {
			return
		}
		m.d.Hide()
		if done != nil {
			done()
		}
	}
	f.submit = send
	f.onEscape(u.closeTop)
	body := container.NewVBox(f.object())
	if extra != nil {
		body.Add(extra)
	}
	m = u.newModal(title, action, f, body, send)
	m.extra = extra
	for _, fl := range f.fields {
		if e, ok := fl.input.(*entry); ok {
			u.win.Canvas().Focus(e)
			break
		}
	}
	return m
}

// confirm asks before something that cannot be undone; yes runs when the
// action button is pressed.
func (u *UI) confirm(title, message, action string, yes func()) *modal {
	var m *modal
	m = u.newModal(title, action, nil, helpText(message), func() {
		m.d.Hide()
		yes()
	})
	m.d.Resize(fyne.NewSize(520, 220))
	return m
}

// topModal returns the newest open modal, or nil.
func (u *UI) topModal() *modal {
	if n := len(u.modals); n > 0 {
		return u.modals[n-1]
	}
	return nil
}

// showError shows an error that belongs to no form.
func (u *UI) showError(err error) {
	var e *apierr.Error
	if errors.As(err, &e) {
		err = errors.New(e.Message)
	}
	u.open(dialog.NewError(err, u.win))
}

// info shows a message.
func (u *UI) info(title, message string) {
	u.open(dialog.NewInformation(title, message, u.win))
}

// warned tells in a dialog the warnings a change was saved with
// (docs/TPP-GUIDE.md 9); nothing when there are none.
func (u *UI) warned(title string, warnings []apierr.Message) {
	if len(warnings) > 0 {
		u.info(title, "Saved, with warnings:\n"+warningLines(warnings))
	}
}

// warningLines writes warnings one a line, each after its path.
func warningLines(warnings []apierr.Message) string {
	lines := make([]string, len(warnings))
	for i, m := range warnings {
		lines[i] = m.Text
		if m.Path != "" {
			lines[i] = m.Path + ": " + m.Text
		}
	}
	return strings.Join(lines, "\n")
}

// selectAsWritten selects value among options in sel. The sandbox data
// keep an enumeration in the case it was written in (a cash account type
// written svgs stays svgs), so the option equal to value without regard
// to case shows it as written, and saving the form writes it back
// unchanged.
func selectAsWritten(sel *widget.Select, options []string, value string) {
	list := slices.Clone(options)
	if i := slices.IndexFunc(list, func(o string) bool { return strings.EqualFold(o, value) }); i >= 0 {
		list[i] = value
	}
	sel.Options = list
	sel.SetSelected(value)
}

// enable enables or disables a button.
func enable(b *widget.Button, on bool) {
	if on {
		b.Enable()
	} else {
		b.Disable()
	}
}

// textTable is a read-only table of text cells with a header row: rows
// says how many rows there are, cell what a cell shows, and onSelect (may
// be nil) gets the row the user picks.
func textTable(columns []string, widths []float32, rows func() int, cell func(row, col int) string, onSelect func(row int)) *widget.Table {
	t := widget.NewTableWithHeaders(
		func() (int, int) { return rows(), len(columns) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("template cell")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.TableCellID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(cell(id.Row, id.Col))
		})
	t.ShowHeaderColumn = false
	t.CreateHeader = func() fyne.CanvasObject {
		return heading("template header")
	}
	t.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 {
			o.(*widget.Label).SetText(columns[id.Col])
		}
	}
	for col, w := range widths {
		t.SetColumnWidth(col, w)
	}
	if onSelect != nil {
		t.OnSelected = func(id widget.TableCellID) {
			if id.Row >= 0 && id.Row < rows() {
				onSelect(id.Row)
			}
		}
	}
	return t
}

// reselect selects again, after a table's rows were reloaded, the row whose
// id is *selected, or clears the selection when that row is gone.
func reselect[T any](t *widget.Table, rows []T, selected *string, id func(T) string) {
	row := slices.IndexFunc(rows, func(v T) bool { return id(v) == *selected })
	if row < 0 {
		*selected = ""
		t.UnselectAll()
		return
	}
	t.Select(widget.TableCellID{Row: row, Col: 0})
}

// reselectItem selects again, after a list's items were reloaded, the item
// of the n for which selected is true, and refreshes the list.
func reselectItem(l *widget.List, n int, selected func(i int) bool) {
	l.UnselectAll()
	for i := range n {
		if selected(i) {
			l.Select(i)
		}
	}
	l.Refresh()
}
