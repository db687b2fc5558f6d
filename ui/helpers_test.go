package ui

import (
	"cmp"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/shopspring/decimal"
)

func mustDecimal(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// widgetIn finds a button by its text in a screen's widget tree (the
// screen's own canvas object, or a screen struct that has one).
func widgetIn(t *testing.T, root any, text string) *widget.Button {
	t.Helper()
	var obj fyne.CanvasObject
	switch v := root.(type) {
	case fyne.CanvasObject:
		obj = v
	case *accountsScreen:
		obj = v.u.tabs
	default:
		t.Fatalf("cannot search %T", root)
	}
	var found *widget.Button
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widget.Button:
			if v.Text == text && found == nil {
				found = v
			}
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c)
			}
		case *container.Split:
			walk(v.Leading)
			walk(v.Trailing)
		case *container.Scroll:
			walk(v.Content)
		case *container.AppTabs:
			for _, item := range v.Items {
				walk(item.Content)
			}
		}
	}
	walk(obj)
	if found == nil {
		t.Fatalf("no button %q", text)
	}
	return found
}

// shownText is a text the window draws, and where.
type shownText struct {
	text string
	pos  fyne.Position // on the canvas
	size fyne.Size
}

// renderedTexts returns the texts a laid-out object draws, as the test
// driver renders them (a label's lines, a table's visible cells and
// headers), from the top of the canvas down and, on a line, from the left.
// Hidden objects and empty texts are left out.
func renderedTexts(root fyne.CanvasObject) []shownText {
	var out []shownText
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if !o.Visible() {
			return
		}
		switch v := o.(type) {
		case *canvas.Text:
			if v.Text != "" {
				out = append(out, shownText{v.Text, fyne.CurrentApp().Driver().AbsolutePositionForObject(v), v.Size()})
			}
		case *fyne.Container:
			for _, child := range v.Objects {
				walk(child)
			}
		case fyne.Widget:
			for _, child := range test.WidgetRenderer(v).Objects() {
				walk(child)
			}
		}
	}
	walk(root)
	slices.SortStableFunc(out, func(a, b shownText) int {
		return cmp.Or(cmp.Compare(a.pos.Y, b.pos.Y), cmp.Compare(a.pos.X, b.pos.X))
	})
	return out
}
