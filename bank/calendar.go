package bank

import "time"

// Easter returns Easter Sunday of the given year in the Gregorian calendar,
// computed with the anonymous Gregorian algorithm (Meeus/Jones/Butcher). The
// result is meaningful for the Gregorian years, 1583 onwards.
func Easter(year int) Date {
	a := year % 19
	b := year / 100
	c := year % 100
	d := b / 4
	e := b % 4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i := c / 4
	k := c % 4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	n := h + l - 7*m + 114
	return Date{year, time.Month(n / 31), n%31 + 1}
}

// Holiday reports whether d is a day on which Norwegian banks do not settle,
// and if so returns its Norwegian name:
//
//	1 January            Første nyttårsdag
//	Easter − 3           Skjærtorsdag
//	Easter − 2           Langfredag
//	Easter Sunday        Første påskedag
//	Easter + 1           Andre påskedag
//	1 May                Arbeidernes dag
//	17 May               Grunnlovsdag
//	Easter + 39          Kristi himmelfartsdag
//	Easter + 49          Første pinsedag
//	Easter + 50          Andre pinsedag
//	24 December          Julaften
//	25 December          Første juledag
//	26 December          Andre juledag
//	31 December          Nyttårsaften
//
// 24 and 31 December are not public holidays, but they are included because
// the Norwegian settlement system is closed on them. Days are reported
// whatever their weekday, so a holiday on a weekend is still a Holiday.
// When a moving holiday falls on a fixed one (Ascension Day on 1 May, as in
// 2008, or Whit Monday on 17 May, as in 2027), the fixed day's name is
// returned. Holiday does not allocate.
func Holiday(d Date) (name string, ok bool) {
	switch {
	case d.Month == time.January && d.Day == 1:
		return "Første nyttårsdag", true
	case d.Month == time.May && d.Day == 1:
		return "Arbeidernes dag", true
	case d.Month == time.May && d.Day == 17:
		return "Grunnlovsdag", true
	case d.Month == time.December:
		switch d.Day {
		case 24:
			return "Julaften", true
		case 25:
			return "Første juledag", true
		case 26:
			return "Andre juledag", true
		case 31:
			return "Nyttårsaften", true
		}
		return "", false
	}
	// The moving holidays lie between Easter − 3 (19 March at the earliest)
	// and Easter + 50 (14 June at the latest).
	if d.Month < time.March || d.Month > time.June {
		return "", false
	}
	switch yearDay(d) - yearDay(Easter(d.Year)) {
	case -3:
		return "Skjærtorsdag", true
	case -2:
		return "Langfredag", true
	case 0:
		return "Første påskedag", true
	case 1:
		return "Andre påskedag", true
	case 39:
		return "Kristi himmelfartsdag", true
	case 49:
		return "Første pinsedag", true
	case 50:
		return "Andre pinsedag", true
	}
	return "", false
}

// daysBeforeMonth[m] is the number of days in a non-leap year before month m.
var daysBeforeMonth = [...]int{0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334}

// yearDay returns the day of the year of d, 1 for 1 January.
func yearDay(d Date) int {
	n := daysBeforeMonth[d.Month] + d.Day
	if d.Month > time.February && isLeapYear(d.Year) {
		n++
	}
	return n
}

func isLeapYear(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// IsBankingDay reports whether Norwegian banks settle on d: d is neither a
// Saturday, a Sunday nor a Holiday. It does not allocate.
func IsBankingDay(d Date) bool {
	if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
		return false
	}
	_, holiday := Holiday(d)
	return !holiday
}

// NextBankingDay returns d itself when it is a banking day, and otherwise the
// first banking day after d.
func NextBankingDay(d Date) Date {
	for !IsBankingDay(d) {
		d = d.AddDays(1)
	}
	return d
}

// AddBankingDays returns the n-th banking day after d. A d that is not a
// banking day is first moved to NextBankingDay(d), and n banking days are
// counted from there, so AddBankingDays(d, 0) is NextBankingDay(d) and
// AddBankingDays of a Saturday and 1 is the Tuesday (when neither Monday nor
// Tuesday is a holiday). For a banking Friday, AddBankingDays(friday, 1) is
// the following Monday unless that Monday is a holiday. A negative n counts
// as 0.
func AddBankingDays(d Date, n int) Date {
	d = NextBankingDay(d)
	for ; n > 0; n-- {
		d = NextBankingDay(d.AddDays(1))
	}
	return d
}
