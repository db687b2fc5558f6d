package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"sandbank/app"
)

// overlayTexts returns the texts of the labels in the window's top
// overlay (an open dialog), joined by newlines.
func overlayTexts(t *testing.T, w fyne.Window) string {
	t.Helper()
	top := w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no dialog is shown")
	}
	var texts []string
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widget.Label:
			texts = append(texts, v.Text)
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.TempWidgetRenderer(t, v).Objects() {
				walk(c)
			}
		}
	}
	walk(top)
	return strings.Join(texts, "\n")
}

// Help > About Sandbank shows the version the binary was built as (make
// dist links in git describe), the data folder and the URLs served; File
// has Quit, which runs the app's own quit.
func TestAbout_MenuShowsVersion(t *testing.T) {
	h := newHarness(t, true)
	quit := 0
	menu := h.u.MainMenu(func() { quit++ })
	items := map[string]*fyne.MenuItem{}
	for _, m := range menu.Items {
		for _, it := range m.Items {
			items[m.Label+" > "+it.Label] = it
		}
	}
	about, q := items["Help > About Sandbank"], items["File > Quit"]
	if about == nil || q == nil || !q.IsQuit {
		t.Fatalf("menu items %v", items)
	}
	about.Action()
	text := overlayTexts(t, h.win)
	for _, want := range []string{"Sandbank", "Version " + app.Version(), "Data folder: " + h.core.DataDir(), "The bank serves " + h.core.URLs()[0]} {
		if !strings.Contains(text, want) {
			t.Errorf("About says %q; want %q in it", text, want)
		}
	}
	if app.Version() == "" || len(h.u.dialogs) != 1 {
		t.Fatalf("version %q, %d dialogs", app.Version(), len(h.u.dialogs))
	}
	h.u.closeTop() // Escape
	if len(h.u.dialogs) != 0 || quit != 0 {
		t.Fatalf("%d dialogs after Escape, quit %d", len(h.u.dialogs), quit)
	}
	// Stopped, it says how to start.
	if err := h.core.Stop(); err != nil {
		t.Fatal(err)
	}
	about.Action()
	if text := overlayTexts(t, h.win); !strings.Contains(text, "does not serve now") {
		t.Errorf("About of a stopped bank: %q", text)
	}
	q.Action()
	if quit != 1 {
		t.Fatalf("Quit ran the quit function %d times", quit)
	}
}
