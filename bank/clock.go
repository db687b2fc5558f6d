package bank

import (
	"time"

	"sandbank/bank/apierr"
)

// maxClockOffset bounds how far the sandbox clock may move (100 years).
const maxClockOffset = 100 * 366 * 24 * 3600

// ClockState is what GET /v1/sandbox/clock answers.
type ClockState struct {
	Now           time.Time `json:"now"`
	OffsetSeconds int64     `json:"offsetSeconds"`
}

// ClockChange moves the sandbox clock: to a moment (Now), or by an offset
// from the real clock (OffsetSeconds). Exactly one is given.
type ClockChange struct {
	Now           *string `json:"now"`
	OffsetSeconds *int64  `json:"offsetSeconds"`
}

// Clock returns the sandbox clock's time and offset.
func (s *Ops) Clock() ClockState {
	return ClockState{Now: s.Now().In(Oslo).Truncate(time.Second), OffsetSeconds: s.offset.Load()}
}

// SetClock moves the sandbox clock. A moment is RFC 3339 with an offset.
// The batch runs the move passes over are made before it returns.
func (s *Ops) SetClock(ch ClockChange) (ClockState, error) {
	var v apierr.Violations
	var offset int64
	switch {
	case ch.Now != nil && ch.OffsetSeconds != nil:
		v.Format("", "give either now or offsetSeconds, not both")
	case ch.Now != nil:
		t, err := time.Parse(time.RFC3339, *ch.Now)
		if err != nil {
			v.Format("now", "%q is not an RFC 3339 date-time with an offset, e.g. 2027-01-15T09:00:00+01:00", apierr.Clip(*ch.Now))
		}
		offset = s.offsetTo(t)
	case ch.OffsetSeconds != nil:
		offset = *ch.OffsetSeconds
	default:
		v.Format("", "give now (an RFC 3339 date-time) or offsetSeconds")
	}
	if err := v.Err(); err != nil {
		return ClockState{}, err
	}
	if _, err := s.UpdateSettings(func(st *Settings) { st.ClockOffsetSeconds = offset }); err != nil {
		return ClockState{}, err
	}
	// The batch runs a clock moved forward passed over happen before the
	// change returns.
	_, err := s.RunDueBatches()
	return s.Clock(), err
}

// offsetTo is the clock offset that puts the sandbox clock at t, in whole
// seconds. Rounded up, so that the clock is at or just past the moment:
// set to 06:00:00, the 06:00 batch run is due at once.
func (s *core) offsetTo(t time.Time) int64 {
	d := t.Sub(s.clock.Now())
	offset := int64(d / time.Second)
	if d%time.Second > 0 {
		offset++
	}
	return offset
}

// JumpClock moves the sandbox clock by whole days (negative: back), from
// where it stands now.
func (s *Ops) JumpClock(days int) (ClockState, error) {
	if days < -36500 || days > 36500 || days == 0 {
		return ClockState{}, apierr.PathError(apierr.CodeFormatError, "days", "give a whole number of days other than 0, at most 36500 either way")
	}
	if _, err := s.UpdateSettings(func(st *Settings) { st.ClockOffsetSeconds += int64(days) * 86400 }); err != nil {
		return ClockState{}, err
	}
	// The batch runs a clock moved forward passed over happen before the
	// change returns.
	_, err := s.RunDueBatches()
	return s.Clock(), err
}
