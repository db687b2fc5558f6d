package main

import (
	"testing"
	"time"
)

// The tables of the CLI write a moment in Oslo time and say which zone:
// CET in winter, CEST in summer; the zero time is an empty cell.
func TestTimeText_OsloTimeLabelled(t *testing.T) {
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 1, 15, 9, 30, 5, 0, time.UTC), "2026-01-15 10:30:05 CET"},
		{time.Date(2026, 7, 15, 9, 30, 5, 0, time.UTC), "2026-07-15 11:30:05 CEST"},
		{time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC), "2026-03-29 03:00:00 CEST"},
		{time.Time{}, ""},
	} {
		if got := timeText(tc.at); got != tc.want {
			t.Errorf("timeText(%s) = %q, want %q", tc.at, got, tc.want)
		}
	}
}
