package bank

import (
	"testing"
	"time"
)

// calDate parses a YYYY-MM-DD date for the calendar tests.
func calDate(t testing.TB, s string) Date {
	t.Helper()
	d, err := ParseDate(s)
	if err != nil {
		t.Fatalf("ParseDate(%q): %v", s, err)
	}
	return d
}

func TestEaster_KnownYears(t *testing.T) {
	tests := []struct {
		year int
		want string
	}{
		{1583, "1583-04-10"},
		{1818, "1818-03-22"}, // earliest possible date
		{1943, "1943-04-25"}, // latest possible date
		{2000, "2000-04-23"},
		{2008, "2008-03-23"},
		{2011, "2011-04-24"},
		{2019, "2019-04-21"},
		{2024, "2024-03-31"},
		{2025, "2025-04-20"},
		{2026, "2026-04-05"},
		{2027, "2027-03-28"},
		{2038, "2038-04-25"},
		{2285, "2285-03-22"},
	}
	for _, tt := range tests {
		if got := Easter(tt.year); got.String() != tt.want {
			t.Errorf("Easter(%d) = %s, want %s", tt.year, got, tt.want)
		}
	}
}

// tonderingEaster is an independent Easter algorithm (Claus Tøndering's
// formulation of the Gregorian computus) to check Easter against.
func tonderingEaster(y int) Date {
	g := y % 19
	c := y / 100
	h := (c - c/4 - (8*c+13)/25 + 19*g + 15) % 30
	i := h - (h/28)*(1-(29/(h+1))*((21-g)/11))
	j := (y + y/4 + i + 2 - c + c/4) % 7
	l := i - j
	m := 3 + (l+40)/44
	return Date{y, time.Month(m), l + 28 - 31*(m/4)}
}

func TestEaster_AgreesWithIndependentAlgorithm(t *testing.T) {
	lo, hi := Date{2000, time.March, 22}, Date{2000, time.April, 25}
	for y := 1583; y <= 4099; y++ {
		got := Easter(y)
		if want := tonderingEaster(y); got != want {
			t.Fatalf("Easter(%d) = %s, independent algorithm says %s", y, got, want)
		}
		if got.Weekday() != time.Sunday {
			t.Fatalf("Easter(%d) = %s is a %s", y, got, got.Weekday())
		}
		if md := (Date{2000, got.Month, got.Day}); md.Before(lo) || md.After(hi) {
			t.Fatalf("Easter(%d) = %s is outside 22 March to 25 April", y, got)
		}
	}
}

// holidays2025to2027 lists every Holiday of 2025, 2026 and 2027, worked out
// by hand from Easter 2025-04-20, 2026-04-05 and 2027-03-28.
var holidays2025to2027 = []struct {
	date, name string
}{
	{"2025-01-01", "Første nyttårsdag"},
	{"2025-04-17", "Skjærtorsdag"},
	{"2025-04-18", "Langfredag"},
	{"2025-04-20", "Første påskedag"},
	{"2025-04-21", "Andre påskedag"},
	{"2025-05-01", "Arbeidernes dag"},
	{"2025-05-17", "Grunnlovsdag"},
	{"2025-05-29", "Kristi himmelfartsdag"},
	{"2025-06-08", "Første pinsedag"},
	{"2025-06-09", "Andre pinsedag"},
	{"2025-12-24", "Julaften"},
	{"2025-12-25", "Første juledag"},
	{"2025-12-26", "Andre juledag"},
	{"2025-12-31", "Nyttårsaften"},

	{"2026-01-01", "Første nyttårsdag"},
	{"2026-04-02", "Skjærtorsdag"},
	{"2026-04-03", "Langfredag"},
	{"2026-04-05", "Første påskedag"},
	{"2026-04-06", "Andre påskedag"},
	{"2026-05-01", "Arbeidernes dag"},
	{"2026-05-14", "Kristi himmelfartsdag"},
	{"2026-05-17", "Grunnlovsdag"},
	{"2026-05-24", "Første pinsedag"},
	{"2026-05-25", "Andre pinsedag"},
	{"2026-12-24", "Julaften"},
	{"2026-12-25", "Første juledag"},
	{"2026-12-26", "Andre juledag"},
	{"2026-12-31", "Nyttårsaften"},

	{"2027-01-01", "Første nyttårsdag"},
	{"2027-03-25", "Skjærtorsdag"},
	{"2027-03-26", "Langfredag"},
	{"2027-03-28", "Første påskedag"},
	{"2027-03-29", "Andre påskedag"},
	{"2027-05-01", "Arbeidernes dag"},
	{"2027-05-06", "Kristi himmelfartsdag"},
	{"2027-05-16", "Første pinsedag"},
	{"2027-05-17", "Grunnlovsdag"}, // also Andre pinsedag: the fixed name wins
	{"2027-12-24", "Julaften"},
	{"2027-12-25", "Første juledag"},
	{"2027-12-26", "Andre juledag"},
	{"2027-12-31", "Nyttårsaften"},
}

func TestHoliday_AllOf2025To2027(t *testing.T) {
	want := map[Date]string{}
	for _, h := range holidays2025to2027 {
		d := calDate(t, h.date)
		want[d] = h.name
		if name, ok := Holiday(d); !ok || name != h.name {
			t.Errorf("Holiday(%s) = %q, %v; want %q, true", d, name, ok, h.name)
		}
	}
	// No day of those years is a Holiday unless it is listed above.
	for d := calDate(t, "2025-01-01"); d.Year <= 2027; d = d.AddDays(1) {
		if _, listed := want[d]; listed {
			continue
		}
		if name, ok := Holiday(d); ok || name != "" {
			t.Errorf("Holiday(%s) = %q, %v; want not a holiday", d, name, ok)
		}
	}
}

func TestHoliday_NeighboursOfMovingHolidays(t *testing.T) {
	for _, year := range []int{2025, 2026, 2027} {
		easter := Easter(year)
		for _, off := range []int{-3, -2, 0, 1, 39, 49, 50} {
			d := easter.AddDays(off)
			if _, ok := Holiday(d); !ok {
				t.Errorf("Holiday(%s) (Easter%+d) = not a holiday", d, off)
			}
			for _, n := range []Date{d.AddDays(-1), d.AddDays(1)} {
				name, ok := Holiday(n)
				switch nOff := off + n.Compare(d); {
				case nOff == -3 || nOff == -2 || nOff == 0 || nOff == 1 || nOff == 39 || nOff == 49 || nOff == 50:
					if !ok {
						t.Errorf("Holiday(%s) (Easter%+d) = not a holiday", n, nOff)
					}
				case n.Month == time.May && (n.Day == 1 || n.Day == 17):
					if name == "" || !ok {
						t.Errorf("Holiday(%s) = not a holiday, want a fixed one", n)
					}
				default:
					if ok {
						t.Errorf("Holiday(%s) (Easter%+d) = %q, want not a holiday", n, nOff, name)
					}
				}
			}
		}
	}
}

func TestHoliday_OtherYearsAndCoincidences(t *testing.T) {
	tests := []struct {
		date string
		want string // "" for not a holiday
	}{
		{"2024-03-28", "Skjærtorsdag"}, // leap year
		{"2024-03-29", "Langfredag"},
		{"2024-04-01", "Andre påskedag"},
		{"2024-05-09", "Kristi himmelfartsdag"},
		{"2024-05-20", "Andre pinsedag"},
		{"2024-02-29", ""},
		{"2285-03-19", "Skjærtorsdag"},   // earliest possible
		{"2038-06-14", "Andre pinsedag"}, // latest possible
		{"2038-06-15", ""},
		{"2008-05-01", "Arbeidernes dag"}, // also Kristi himmelfartsdag
		{"2007-05-17", "Grunnlovsdag"},    // also Kristi himmelfartsdag
		{"2026-12-27", ""},
		{"2026-12-30", ""},
		{"2026-01-02", ""},
		{"2026-05-02", ""},
		{"2026-05-16", ""},
		{"2026-05-18", ""},
	}
	for _, tt := range tests {
		name, ok := Holiday(calDate(t, tt.date))
		if name != tt.want || ok != (tt.want != "") {
			t.Errorf("Holiday(%s) = %q, %v; want %q, %v", tt.date, name, ok, tt.want, tt.want != "")
		}
	}
}

func TestIsBankingDay_Table(t *testing.T) {
	tests := []struct {
		date string
		want bool
		why  string
	}{
		{"2026-03-09", true, "Monday"},
		{"2026-03-10", true, "Tuesday"},
		{"2026-03-11", true, "Wednesday"},
		{"2026-03-12", true, "Thursday"},
		{"2026-03-13", true, "Friday"},
		{"2026-03-14", false, "Saturday"},
		{"2026-03-15", false, "Sunday"},
		{"2026-01-01", false, "Første nyttårsdag on a Thursday"},
		{"2026-01-02", true, "Friday after New Year"},
		{"2026-04-01", true, "Wednesday before Easter"},
		{"2026-04-02", false, "Skjærtorsdag"},
		{"2026-04-03", false, "Langfredag"},
		{"2026-04-06", false, "Andre påskedag"},
		{"2026-04-07", true, "Tuesday after Easter"},
		{"2026-05-01", false, "Arbeidernes dag on a Friday"},
		{"2026-05-14", false, "Kristi himmelfartsdag"},
		{"2026-05-15", true, "Friday after Ascension"},
		{"2026-05-17", false, "Grunnlovsdag on a Sunday"},
		{"2026-05-18", true, "Monday after Grunnlovsdag: no substitute day"},
		{"2026-05-25", false, "Andre pinsedag"},
		{"2026-05-26", true, "Tuesday after Whitsun"},
		{"2026-12-23", true, "Wednesday before Christmas"},
		{"2026-12-24", false, "Julaften on a Thursday"},
		{"2026-12-25", false, "Første juledag on a Friday"},
		{"2026-12-28", true, "Monday after Christmas"},
		{"2026-12-31", false, "Nyttårsaften on a Thursday"},
		{"2027-05-17", false, "Grunnlovsdag and Andre pinsedag on a Monday"},
		{"2025-05-17", false, "Grunnlovsdag on a Saturday"},
	}
	for _, tt := range tests {
		if got := IsBankingDay(calDate(t, tt.date)); got != tt.want {
			t.Errorf("IsBankingDay(%s) = %v, want %v (%s)", tt.date, got, tt.want, tt.why)
		}
	}
}

func TestIsBankingDay_Count2026(t *testing.T) {
	// 2026 is not a leap year and starts on a Thursday: 365 days are 52 whole
	// weeks (260 weekdays) plus one day, 31 December, again a Thursday, so
	// 2026 has 261 weekdays. Ten holidays fall on weekdays: 1 Jan (Thu),
	// 2 Apr (Thu), 3 Apr (Fri), 6 Apr (Mon), 1 May (Fri), 14 May (Thu),
	// 25 May (Mon), 24 Dec (Thu), 25 Dec (Fri) and 31 Dec (Thu); the other
	// four (5 Apr, 17 May, 24 May: Sundays; 26 Dec: Saturday) are weekend days
	// anyway. 261 − 10 = 251 banking days.
	const want = 251
	got := 0
	for d := calDate(t, "2026-01-01"); d.Year == 2026; d = d.AddDays(1) {
		if IsBankingDay(d) {
			got++
		}
	}
	if got != want {
		t.Errorf("2026 has %d banking days, want %d", got, want)
	}
}

func TestIsBankingDay_DoesNotAllocate(t *testing.T) {
	days := []Date{
		calDate(t, "2026-04-02"), calDate(t, "2026-04-07"), calDate(t, "2026-05-17"),
		calDate(t, "2026-12-24"), calDate(t, "2026-08-12"), calDate(t, "2026-06-13"),
	}
	var sink bool
	allocs := testing.AllocsPerRun(100, func() {
		for _, d := range days {
			sink = IsBankingDay(d) != sink
		}
	})
	if allocs != 0 {
		t.Errorf("IsBankingDay allocates %v times per run, want 0", allocs)
	}
}

func TestNextBankingDay_Table(t *testing.T) {
	tests := []struct {
		from, want string
	}{
		{"2026-03-10", "2026-03-10"}, // banking day: itself
		{"2026-03-14", "2026-03-16"}, // Saturday
		{"2026-03-15", "2026-03-16"}, // Sunday
		{"2026-04-02", "2026-04-07"}, // Skjærtorsdag over Easter
		{"2026-04-03", "2026-04-07"},
		{"2026-04-05", "2026-04-07"},
		{"2026-04-06", "2026-04-07"},
		{"2026-05-14", "2026-05-15"}, // Kristi himmelfartsdag
		{"2026-05-23", "2026-05-26"}, // Whitsun weekend
		{"2026-05-25", "2026-05-26"},
		{"2027-05-15", "2027-05-18"}, // Whitsun 2027, Whit Monday is 17 May
		{"2026-12-24", "2026-12-28"}, // Christmas
		{"2026-12-31", "2027-01-04"}, // New Year
		{"2027-12-24", "2027-12-27"}, // Christmas on a weekend
		{"2027-12-31", "2028-01-03"},
	}
	for _, tt := range tests {
		if got := NextBankingDay(calDate(t, tt.from)); got.String() != tt.want {
			t.Errorf("NextBankingDay(%s) = %s, want %s", tt.from, got, tt.want)
		}
	}
}

func TestAddBankingDays_Table(t *testing.T) {
	tests := []struct {
		from string
		n    int
		want string
	}{
		{"2026-03-10", 0, "2026-03-10"}, // banking day: itself
		{"2026-03-14", 0, "2026-03-16"}, // Saturday: NextBankingDay
		{"2026-03-13", 1, "2026-03-16"}, // Friday + 1 over the weekend
		{"2026-03-13", 3, "2026-03-18"},
		{"2026-03-12", 3, "2026-03-17"},
		{"2026-03-14", 1, "2026-03-17"}, // Saturday counts from Monday
		{"2026-04-01", 0, "2026-04-01"},
		{"2026-04-01", 1, "2026-04-07"}, // over Easter
		{"2026-04-01", 3, "2026-04-09"},
		{"2026-03-31", 3, "2026-04-08"},
		{"2026-04-02", 0, "2026-04-07"},
		{"2026-04-02", 1, "2026-04-08"},
		{"2026-12-23", 1, "2026-12-28"},
		{"2026-12-30", 1, "2027-01-04"},
		{"2026-12-30", 3, "2027-01-06"},
		{"2026-03-10", 10, "2026-03-24"},
	}
	for _, tt := range tests {
		if got := AddBankingDays(calDate(t, tt.from), tt.n); got.String() != tt.want {
			t.Errorf("AddBankingDays(%s, %d) = %s, want %s", tt.from, tt.n, got, tt.want)
		}
	}
}

func TestAddBankingDays_NegativeCountsAsZero(t *testing.T) {
	if got := AddBankingDays(calDate(t, "2026-04-02"), -1); got.String() != "2026-04-07" {
		t.Errorf("AddBankingDays(Maundy Thursday, -1) = %s, want the next banking day 2026-04-07", got)
	}
}

func TestBankingDay_Properties2020To2040(t *testing.T) {
	end := calDate(t, "2040-12-31")
	for d := calDate(t, "2020-01-01"); !d.After(end); d = d.AddDays(1) {
		next := NextBankingDay(d)
		if !IsBankingDay(next) {
			t.Fatalf("NextBankingDay(%s) = %s is not a banking day", d, next)
		}
		if next.Before(d) {
			t.Fatalf("NextBankingDay(%s) = %s is before it", d, next)
		}
		for x := d; x.Before(next); x = x.AddDays(1) {
			if IsBankingDay(x) {
				t.Fatalf("NextBankingDay(%s) = %s skips banking day %s", d, next, x)
			}
		}
		if got := AddBankingDays(d, 0); got != next {
			t.Fatalf("AddBankingDays(%s, 0) = %s, want NextBankingDay %s", d, got, next)
		}
		for n := 1; n <= 5; n++ {
			got := AddBankingDays(d, n)
			if !IsBankingDay(got) {
				t.Fatalf("AddBankingDays(%s, %d) = %s is not a banking day", d, n, got)
			}
			count := 0
			for x := next.AddDays(1); !x.After(got); x = x.AddDays(1) {
				if IsBankingDay(x) {
					count++
				}
			}
			if count != n {
				t.Fatalf("AddBankingDays(%s, %d) = %s is %d banking days after %s, want %d",
					d, n, got, count, next, n)
			}
		}
	}
}

func BenchmarkIsBankingDay(b *testing.B) {
	d := Date{2026, time.May, 13}
	for b.Loop() {
		IsBankingDay(d)
	}
}
