package bank

// Trust modes (API.md 3.5).
const (
	TrustAny   = "any"
	TrustStore = "store"
)

// Settings are the bank's settings that testers change (API.md 9.2). They
// live in the data file.
type Settings struct {
	// TrustMode is TrustAny (any certificate whose signature verifies) or
	// TrustStore (also a chain to a CA in the trust store).
	TrustMode string `json:"trustMode"`
	// RequireSignature refuses unsigned requests when true.
	RequireSignature bool `json:"requireSignature"`
	// ClockOffsetSeconds moves the sandbox clock away from the real one.
	ClockOffsetSeconds int64 `json:"clockOffsetSeconds"`
	// LegacyDate, when set, makes the API behave as on that date: the
	// x-accept-fix fixes that became default after it apply only to
	// requests that name them.
	LegacyDate Date `json:"legacyDate"`
}

// DefaultSettings are the settings of a new data file.
func DefaultSettings() Settings {
	return Settings{TrustMode: TrustAny, RequireSignature: true}
}

const settingsKey = "settings"

// Check reports a setting that is out of range.
func (st Settings) Check() error {
	var v Violations
	checkOneOf(&v, "trustMode", st.TrustMode, []string{TrustAny, TrustStore})
	if st.ClockOffsetSeconds > maxClockOffset || st.ClockOffsetSeconds < -maxClockOffset {
		v.Format("offsetSeconds", "the clock may be moved at most 100 years either way")
	}
	if !st.LegacyDate.IsZero() && st.LegacyDate.Year < 2018 {
		v.Format("legacyDate", "must be 2018-01-01 or later: the API did not exist before")
	}
	return v.Err()
}

// Settings returns the stored settings, or the defaults.
func (s *Service) Settings() (Settings, error) {
	st := DefaultSettings()
	err := s.view("read settings", func(tx Tx) error {
		if err := tx.Setting(settingsKey, &st); err != nil && err != ErrNotFound {
			return err
		}
		return nil
	})
	return st, err
}

// UpdateSettings changes the stored settings with change and returns them.
// Nothing is stored when the result is out of range.
func (s *Service) UpdateSettings(change func(*Settings)) (Settings, error) {
	var st Settings
	err := s.write("update settings", func(tx Tx) error {
		st = DefaultSettings()
		if err := tx.Setting(settingsKey, &st); err != nil && err != ErrNotFound {
			return err
		}
		change(&st)
		if err := st.Check(); err != nil {
			return err
		}
		return tx.PutSetting(settingsKey, st)
	}, Event{Kind: EventSettings})
	if err == nil {
		s.offset.Store(st.ClockOffsetSeconds)
		s.legacy.Store(st.LegacyDate.Key())
	}
	return st, err
}
