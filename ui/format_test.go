package ui

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// Text outside a table writes a time in Oslo time with the zone's
// abbreviation; a table cell writes it without, under a column header
// that says (Oslo).
func TestWhen_OsloTimeLabelled(t *testing.T) {
	winter, summer := time.Date(2026, 1, 15, 9, 30, 0, 0, time.UTC), time.Date(2026, 7, 15, 9, 30, 0, 0, time.UTC)
	if got := whenZoned(winter); got != "2026-01-15 10:30 CET" {
		t.Errorf("whenZoned(winter) = %q", got)
	}
	if got := whenZoned(summer); got != "2026-07-15 11:30 CEST" {
		t.Errorf("whenZoned(summer) = %q", got)
	}
	if got := when(summer); got != "2026-07-15 11:30" {
		t.Errorf("when(summer) = %q", got)
	}
	for _, columns := range [][]string{trafficColumns, paymentColumns, basketColumns, batchRunColumns, grantColumns, sessionColumns, authColumns} {
		for _, c := range columns {
			if slices.Contains([]string{"Time", "Created", "Started", "Expires"}, strings.Fields(c)[0]) && !strings.HasSuffix(c, " (Oslo)") {
				t.Errorf("the time column %q of %q does not say (Oslo)", c, columns)
			}
		}
	}
}
