package bank

import (
	"fmt"
	"time"
	_ "time/tzdata" // Europe/Oslo must resolve on machines without zoneinfo

	"sandbank/bank/apierr"
)

// Oslo is the bank's time zone: every calendar date of the API is a date in
// Europe/Oslo.
var Oslo = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Oslo")
	if err != nil {
		panic(fmt.Sprintf("load Europe/Oslo: %v", err)) // embedded tzdata makes this unreachable
	}
	return loc
}()

// Date is a calendar date without a time of day. The zero Date means "no
// date".
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf returns the calendar date of t in the bank's time zone.
func DateOf(t time.Time) Date {
	y, m, d := t.In(Oslo).Date()
	return Date{y, m, d}
}

// ParseDate parses a strict YYYY-MM-DD date between the years 1900 and 9999.
func ParseDate(s string) (Date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Date{}, fmt.Errorf("%q is not a date of the form YYYY-MM-DD", apierr.Clip(s))
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("%q is not a valid calendar date", s)
	}
	if t.Year() < 1900 {
		return Date{}, fmt.Errorf("%q is before 1900", s)
	}
	return Date{t.Year(), t.Month(), t.Day()}, nil
}

// String formats the date as YYYY-MM-DD, or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	var b [10]byte
	return string(d.appendTo(b[:0]))
}

// appendTo appends d as YYYY-MM-DD, as fmt's %04d-%02d-%02d writes it.
func (d Date) appendTo(b []byte) []byte {
	if d.Year < 0 || d.Year > 9999 || d.Month < 1 || d.Month > 12 || d.Day < 0 || d.Day > 99 {
		return fmt.Appendf(b, "%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
	}
	y, m := d.Year, int(d.Month)
	return append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d.Day/10), byte('0'+d.Day%10))
}

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d == Date{} }

// Time returns midnight at the start of d in the bank's time zone.
func (d Date) Time() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, Oslo) }

// AddDays returns the date n days after d (before, for negative n).
func (d Date) AddDays(n int) Date {
	t := time.Date(d.Year, d.Month, d.Day+n, 12, 0, 0, 0, time.UTC)
	return Date{t.Year(), t.Month(), t.Day()}
}

// AddMonths returns the date n months after d, clamped to the month's last day.
func (d Date) AddMonths(n int) Date {
	first := time.Date(d.Year, d.Month+time.Month(n), 1, 12, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	return Date{first.Year(), first.Month(), min(d.Day, last)}
}

// Weekday returns the day of the week of d.
func (d Date) Weekday() time.Weekday {
	return time.Date(d.Year, d.Month, d.Day, 12, 0, 0, 0, time.UTC).Weekday()
}

// Key returns d as the number YYYYMMDD, which sorts like the dates.
func (d Date) Key() uint32 { return uint32(d.Year*10000 + int(d.Month)*100 + d.Day) }

// DateFromKey is the inverse of Key.
func DateFromKey(k uint32) Date {
	return Date{int(k / 10000), time.Month(k / 100 % 100), int(k % 100)}
}

// Compare returns -1, 0 or +1 as d is before, equal to or after o.
func (d Date) Compare(o Date) int {
	a, b := d.Key(), o.Key()
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Before reports whether d is before o.
func (d Date) Before(o Date) bool { return d.Key() < o.Key() }

// After reports whether d is after o.
func (d Date) After(o Date) bool { return d.Key() > o.Key() }

// MarshalJSON writes the date as "YYYY-MM-DD", or null for the zero Date.
func (d Date) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 12)
	b = append(b, '"')
	return append(d.appendTo(b), '"'), nil
}

// UnmarshalJSON reads "YYYY-MM-DD" or null. It is used for stored records;
// request bodies carry dates as strings and are checked by the services.
func (d *Date) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*d = Date{}
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("date must be a string")
	}
	v, err := ParseDate(string(b[1 : len(b)-1]))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
