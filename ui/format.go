package ui

// The text the screens show for values: times, durations, counts and
// records in a few words.

import (
	"fmt"
	"time"

	"sandbank/bank"
)

// The window shows every moment in the bank's time zone, Europe/Oslo, and
// says so: a table's time column is headed "(Oslo)" and its cells are
// when's; a time in running text carries the zone's abbreviation, CET or
// CEST, as whenZoned writes it.

// when writes a moment as Oslo local time to the minute, for a table
// column headed "(Oslo)".
func when(t time.Time) string { return t.In(bank.Oslo).Format("2006-01-02 15:04") }

// whenZoned writes a moment as Oslo local time to the minute, with the
// zone's abbreviation (CET or CEST), for text.
func whenZoned(t time.Time) string { return t.In(bank.Oslo).Format("2006-01-02 15:04 MST") }

// offsetText writes a clock offset as days, hours and minutes.
func offsetText(seconds int64) string {
	sign := "+"
	if seconds < 0 {
		sign, seconds = "-", -seconds
	}
	return sign + duration(time.Duration(seconds)*time.Second)
}

// duration writes a duration as days, hours and minutes.
func duration(d time.Duration) string {
	days := int(d / (24 * time.Hour))
	hours := int(d % (24 * time.Hour) / time.Hour)
	minutes := int(d % time.Hour / time.Minute)
	switch {
	case days > 0:
		return fmt.Sprintf("%d d %d h", days, hours)
	case hours > 0:
		return fmt.Sprintf("%d h %d min", hours, minutes)
	}
	return fmt.Sprintf("%d min", minutes)
}

// msText writes a duration in milliseconds with one decimal.
func msText(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

// plural returns "1 thing" or "n things".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// customerLabel names a customer as "Name (number)", in lists and selects.
func customerLabel(c bank.Customer) string { return fmt.Sprintf("%s (%s)", c.Name, c.Number) }

// dateText writes a date, or a dash when there is none.
func dateText(d bank.Date) string {
	if d.IsZero() {
		return "—"
	}
	return d.String()
}

// fundsText writes a yes/no answer the bank may not have given: yes, no,
// or a dash when unknown.
func fundsText(f *bool) string {
	switch {
	case f == nil:
		return "—"
	case *f:
		return "yes"
	}
	return "no"
}
