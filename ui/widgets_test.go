package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"sandbank/bank/apierr"
)

// A modal's submit that fails keeps the dialog open with the finding at
// its field; one that succeeds, by the button or Enter, closes the dialog
// and then runs done.
func TestShowModal_ErrorStaysSuccessCloses(t *testing.T) {
	h := newHarness(t, false)
	f := newForm(nil)
	name := f.text("Name", "name", "", "")
	valid := false
	dones := 0
	h.u.showModal("Test", "Save", f, nil, func() error {
		if !valid {
			return apierr.PathError(apierr.CodeFormatError, "name", "too short")
		}
		return nil
	}, func() {
		if h.u.topModal() != nil {
			t.Error("done runs before the dialog closes")
		}
		dones++
	})
	test.Tap(h.modal().submit)
	if got := f.errorText("name"); got != "too short" || dones != 0 {
		t.Fatalf("after a failed submit the field shows %q, done ran %d times", got, dones)
	}
	valid = true
	name.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if h.u.topModal() != nil || dones != 1 || f.errorText("name") != "" {
		t.Fatalf("after a good submit: open %v, done ran %d times, finding %q", h.u.topModal() != nil, dones, f.errorText("name"))
	}
}
