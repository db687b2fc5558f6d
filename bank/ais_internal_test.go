package bank

import (
	"testing"
	"time"
)

// clockAt is a clock that stands still at a moment.
type clockAt time.Time

func (c clockAt) Now() time.Time { return time.Time(c) }

// TestHistoryFrom_CountsCalendarDays: the 90 days of history without an
// SCA session are calendar days in Oslo. Counted as 90 × 24 hours back
// from late on a winter evening, they ended in summer time a day later,
// and a dateFrom exactly 90 days back was refused.
func TestHistoryFrom_CountsCalendarDays(t *testing.T) {
	s := &core{clock: clockAt(time.Date(2026, time.November, 26, 23, 30, 0, 0, Oslo))}
	var q AISQuery
	if err := s.historyFrom(&q, Access{}); err != nil || q.From != (Date{2026, time.August, 28}) {
		t.Errorf("without dateFrom the page starts %s (%v), want 2026-08-28", q.From, err)
	}
	q = AISQuery{TxQuery: TxQuery{From: Date{2026, time.August, 28}}}
	if err := s.historyFrom(&q, Access{}); err != nil {
		t.Errorf("dateFrom 90 days back: %v", err)
	}
	q = AISQuery{TxQuery: TxQuery{From: Date{2026, time.August, 27}}}
	if err := s.historyFrom(&q, Access{}); err == nil {
		t.Error("dateFrom 91 days back without an SCA session was taken")
	}
}
