package apierr

import (
	"fmt"
	"strings"
	"testing"
)

func TestWarnings_KeepTheFirstAndCountTheRest(t *testing.T) {
	var w Warnings
	for i := range 2_000_000 {
		w.Add(Oddity(CodeBadRequest, fmt.Sprintf("k%d", i%3), "is given twice"))
	}
	list := w.List()
	if len(list) != MaxWarnings+1 || cap(w.kept) > 2*MaxWarnings || w.Len() != 2_000_000 {
		t.Fatalf("%d warnings listed (%d kept) of %d", len(list), cap(w.kept), w.Len())
	}
	last := list[MaxWarnings]
	if last.Rest() != 2_000_000-MaxWarnings || last.Category != "WARNING" || !strings.Contains(last.Text, "and 1999900 more warnings") {
		t.Fatalf("the last line: %+v", last)
	}
	// Gathered again, a list keeps its count.
	var again Warnings
	again.Add(Oddity(CodeFormatError, "first", "odd"))
	again.Add(list...)
	if again.Len() != 2_000_001 || len(again.List()) != MaxWarnings+1 {
		t.Fatalf("gathered again: %d, listed %d", again.Len(), len(again.List()))
	}
	// Strict mode refuses them with one line for the rest.
	e, _ := AsError(Refusal(list))
	if len(e.Messages) != MaxWarnings+1 || !strings.Contains(e.Messages[MaxWarnings].Text, "and 1999900 more warnings") {
		t.Fatalf("refusal of %d messages, the last %+v", len(e.Messages), e.Messages[len(e.Messages)-1])
	}
}
