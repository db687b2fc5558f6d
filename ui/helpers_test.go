package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
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
