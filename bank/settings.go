package bank

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/shopspring/decimal"

	"sandbank/bank/apierr"
	"sandbank/bank/validate"
)

// Trust modes (README, --trust).
const (
	TrustAny   = "any"
	TrustStore = "store"
)

// Operator access modes (the operatorAccess setting, --operator-access;
// docs/SECURITY.md "Two kinds of caller").
const (
	// OperatorOnly lets only the operator (the window, sandbankd on the
	// data file, an operator certificate of the bank's CA) do what
	// concerns every TPP: settings, the clock, batch runs, every TPP's
	// payments and traffic. The default.
	OperatorOnly = "operator"
	// OperatorAnyTPP makes every caller the bank accepts the operator:
	// for a single team that wants no boundary between its TPPs.
	OperatorAnyTPP = "any-tpp"
)

// OperatorAccessModes are the values of the operatorAccess setting.
var OperatorAccessModes = []string{OperatorOnly, OperatorAnyTPP}

// Settings are the bank's settings that testers change (docs/PAYMENTS.md 8). They
// live in the data file.
type Settings struct {
	// TrustMode is TrustAny (any certificate whose signature verifies) or
	// TrustStore (also a chain to a CA in the trust store).
	TrustMode string `json:"trustMode"`
	// RequireSignature refuses unsigned requests when true.
	RequireSignature bool `json:"requireSignature"`
	// Strict refuses every oddity the bank otherwise accepts with a
	// warning, as the real bank does (docs/TPP-GUIDE.md 9); off by default.
	Strict bool `json:"strict"`
	// OperatorAccess is who may use the operator's routes: OperatorOnly
	// or OperatorAnyTPP. Data files before it have none: OperatorOnly.
	OperatorAccess string `json:"operatorAccess"`
	// ResponseSigning is how the bank signs its responses: SigningRSA,
	// SigningECDSA or SigningOff.
	ResponseSigning string `json:"responseSigning"`
	// ClockOffsetSeconds moves the sandbox clock away from the real one.
	ClockOffsetSeconds int64 `json:"clockOffsetSeconds"`
	// LegacyDate, when set, makes the API behave as on that date: the
	// x-accept-fix fixes that became default after it apply only to
	// requests that name them.
	LegacyDate Date `json:"legacyDate"`

	// BatchTimes are the times of day (HH:MM, Europe/Oslo, sandbox clock)
	// of the batch runs on each banking day.
	BatchTimes []string `json:"batchTimes"`
	// CoverRetryDays is how many banking days a payment without cover
	// (PDNG) is retried before it is rejected.
	CoverRetryDays int `json:"coverRetryDays"`
	// NCBCTFee is the fee of a cross-border transfer, in NOK.
	NCBCTFee decimal.Decimal `json:"ncbctFee"`
	// FX is the sandbox exchange table: NOK per one unit of each currency.
	// Data files before the operator API stored it as "fx".
	FX map[string]decimal.Decimal `json:"fxRates"`
	// Exemption is the SCA exemption policy: ExemptNever or
	// ExemptOwnAccounts. Data files before the operator API stored it as
	// "exemption".
	Exemption string `json:"exemptionPolicy"`
	// BatchMode is BatchSchedule (authorised payments settle at the batch
	// runs) or BatchImmediate (one due today settles when it is
	// authorised).
	BatchMode string `json:"batchMode"`
	// RequestLog bounds the request log of the Traffic screen.
	RequestLog RequestLogLimits `json:"requestLog"`
	// Faults are the simulated faults of the API.
	Faults Faults `json:"faults"`
}

// UnmarshalJSON reads stored settings, under today's names and under the
// names data files used before: "fx" for the exchange table and
// "exemption" for the exemption policy. Today's name wins when a record
// has both.
func (st *Settings) UnmarshalJSON(b []byte) error {
	type plain Settings
	if err := json.Unmarshal(b, (*plain)(st)); err != nil {
		return err
	}
	var old struct {
		FX        map[string]decimal.Decimal `json:"fx"`
		Exemption *string                    `json:"exemption"`
		FXRates   json.RawMessage            `json:"fxRates"`
		Policy    json.RawMessage            `json:"exemptionPolicy"`
	}
	if err := json.Unmarshal(b, &old); err != nil {
		return err
	}
	if old.FX != nil && old.FXRates == nil {
		st.FX = old.FX
	}
	if old.Exemption != nil && old.Policy == nil {
		st.Exemption = *old.Exemption
	}
	return nil
}

// Response signing modes (the responseSigning setting, docs/SANDBOX-API.md
// 4.1).
const (
	SigningRSA   = "rsa"   // the bank's RSA-2048 certificate, as a real bank signs
	SigningECDSA = "ecdsa" // an ECDSA P-256 certificate: far cheaper, for load tests
	SigningOff   = "off"   // no Signature on responses; Digest stays
)

// SigningModes are the values of the responseSigning setting.
var SigningModes = []string{SigningRSA, SigningECDSA, SigningOff}

// Batch modes (the batchMode setting).
const (
	BatchSchedule  = "schedule"  // authorised payments settle at the batch runs
	BatchImmediate = "immediate" // one due today settles when it is authorised
)

// RequestLogLimits bound the request log: it keeps the last MaxCount
// requests, fewer when their bodies hold more than MaxBytes.
type RequestLogLimits struct {
	MaxCount int `json:"maxCount"`
	MaxBytes int `json:"maxBytes"`
}

// The request log's bounds: the defaults of a new data file, and the
// ranges a setting may take.
const (
	DefaultRequestLogCount = 2000
	DefaultRequestLogBytes = 32 << 20
	MaxRequestLogCount     = 100_000
	MinRequestLogBytes     = 1 << 20
	MaxRequestLogBytes     = 1 << 30
)

// SCA exemption policies (docs/PAYMENTS.md 8).
const (
	ExemptNever       = "never"
	ExemptOwnAccounts = "own-accounts" // transfers between a PSU's own accounts
)

// Faults are simulated failures of the /v1 API, for testing a TPP's error
// handling (docs/PAYMENTS.md 8).
type Faults struct {
	// LatencyMs is added before every request is handled.
	LatencyMs int `json:"latencyMs"`
	// ErrorRate is the share of requests (0 to 1) answered 500
	// SYSTEM_ERROR.
	ErrorRate float64 `json:"errorRate"`
	// Outage answers every request 503 SYSTEM_ERROR.
	Outage bool `json:"outage"`
}

// Check reports values out of range, with the paths of their fields.
func (f Faults) Check() error {
	var v apierr.Violations
	if f.LatencyMs < 0 || f.LatencyMs > 60000 {
		v.Format("latencyMs", "must be 0 to 60000 milliseconds")
	}
	if !(f.ErrorRate >= 0 && f.ErrorRate <= 1) {
		v.Format("errorRate", "must be a share from 0 to 1, e.g. 0.05 for one request in twenty")
	}
	return v.Err()
}

// DefaultFX is the sandbox exchange table of a new data file: NOK per unit.
func DefaultFX() map[string]decimal.Decimal {
	rates := map[string]string{
		"NOK": "1", "EUR": "11.65", "USD": "10.85", "GBP": "13.80", "SEK": "0.99", "DKK": "1.56",
		"CHF": "12.40", "JPY": "0.071", "PLN": "2.70", "CAD": "7.90", "AUD": "7.10", "ISK": "0.079",
	}
	out := make(map[string]decimal.Decimal, len(rates))
	for c, r := range rates {
		out[c] = decimal.RequireFromString(r)
	}
	return out
}

// DefaultSettings are the settings of a new data file.
func DefaultSettings() Settings {
	return Settings{
		TrustMode: TrustAny, RequireSignature: true, ResponseSigning: SigningRSA, OperatorAccess: OperatorOnly,
		BatchTimes: []string{"06:00", "09:00", "12:00", "15:00", "18:00"}, CoverRetryDays: 3,
		NCBCTFee: decimal.RequireFromString("250"), FX: DefaultFX(), Exemption: ExemptNever,
		BatchMode:  BatchSchedule,
		RequestLog: RequestLogLimits{MaxCount: DefaultRequestLogCount, MaxBytes: DefaultRequestLogBytes},
	}
}

const settingsKey = "settings"

// Check reports a setting that is out of range.
func (st Settings) Check() error {
	var v apierr.Violations
	CheckOneOf(&v, "trustMode", st.TrustMode, []string{TrustAny, TrustStore})
	CheckOneOf(&v, "responseSigning", st.ResponseSigning, SigningModes)
	CheckOneOf(&v, "operatorAccess", st.OperatorAccess, OperatorAccessModes)
	if st.ClockOffsetSeconds > maxClockOffset || st.ClockOffsetSeconds < -maxClockOffset {
		v.Format("offsetSeconds", "the clock may be moved at most 100 years either way")
	}
	if !st.LegacyDate.IsZero() && st.LegacyDate.Year < 2018 {
		v.Format("legacyDate", "must be 2018-01-01 or later: the API did not exist before")
	}
	checkBatchTimes(&v, st.BatchTimes)
	if st.CoverRetryDays < 0 || st.CoverRetryDays > 30 {
		v.Format("coverRetryDays", "must be 0 to 30 banking days")
	}
	if st.NCBCTFee.IsNegative() || !st.NCBCTFee.Equal(st.NCBCTFee.Round(2)) || st.NCBCTFee.GreaterThan(maxSandboxAmount) {
		v.Format("ncbctFee", "must be an amount in NOK from 0 to 2147483647, with at most 2 decimals, e.g. \"250.00\"")
	}
	checkFX(&v, st.FX)
	CheckOneOf(&v, "exemptionPolicy", st.Exemption, []string{ExemptNever, ExemptOwnAccounts})
	CheckOneOf(&v, "batchMode", st.BatchMode, []string{BatchSchedule, BatchImmediate})
	if n := st.RequestLog.MaxCount; n < 1 || n > MaxRequestLogCount {
		v.Format("requestLog.maxCount", "must be 1 to %d requests", MaxRequestLogCount)
	}
	if n := st.RequestLog.MaxBytes; n < MinRequestLogBytes || n > MaxRequestLogBytes {
		v.Format("requestLog.maxBytes", "must be %d (1 MiB) to %d (1 GiB) bytes", MinRequestLogBytes, MaxRequestLogBytes)
	}
	if err := st.Faults.Check(); err != nil {
		e, _ := apierr.AsError(err)
		v.Merge("faults", e)
	}
	return v.Err()
}

// checkBatchTimes checks the batch times: at least one, each HH:MM, none twice.
func checkBatchTimes(v *apierr.Violations, times []string) {
	if len(times) == 0 {
		v.Format("batchTimes", "give at least one time of day, e.g. 06:00")
	}
	seen := map[string]bool{}
	for i, t := range times {
		if _, ok := parseTimeOfDay(t); !ok {
			v.Format(fmt.Sprintf("batchTimes[%d]", i), "%q is not a time of day; write HH:MM, e.g. 06:00", apierr.Clip(t))
		} else if seen[t] {
			v.Format(fmt.Sprintf("batchTimes[%d]", i), "%s is given twice", t)
		}
		seen[t] = true
	}
}

// checkFX checks the FX table: NOK per one unit of each supported
// currency, more than 0, and NOK itself at 1.
func checkFX(v *apierr.Violations, fx map[string]decimal.Decimal) {
	for _, c := range slices.Sorted(maps.Keys(fx)) {
		r := fx[c]
		switch {
		case !validate.Currency(c):
			v.Format("fxRates."+c, "%q is not a supported ISO 4217 currency code; write the code in upper case, e.g. BHD", apierr.Clip(c))
		case !r.IsPositive():
			v.Format("fxRates."+c, "the rate must be more than 0 (NOK per one %s)", c)
		case c == "NOK" && !r.Equal(decimal.NewFromInt(1)):
			v.Format("fxRates.NOK", "must be 1: the table gives NOK per one unit of each currency")
		}
	}
	if _, ok := fx["NOK"]; !ok {
		v.Format("fxRates.NOK", "is required and must be 1")
	}
}

// Settings returns the stored settings, or the defaults.
func (s *Ops) Settings() (Settings, error) { return s.settings() }

func (s *core) settings() (Settings, error) {
	return read(s, "read settings", settingsIn)
}

// settingsIn reads the settings within a transaction. Settings a data file
// does not have yet take their defaults; a stored FX table replaces the
// default one whole (a currency removed from it stays removed).
func settingsIn(tx Tx) (Settings, error) {
	st := DefaultSettings()
	st.FX = nil
	if err := tx.Setting(settingsKey, &st); err != nil && !errors.Is(err, ErrNotFound) {
		return st, err
	}
	if st.FX == nil {
		st.FX = DefaultFX()
	}
	return st, nil
}

// UpdateSettings changes the stored settings with change and returns them.
// Nothing is stored when the result is out of range. The new settings are
// in force before the change is announced, and when updates race, the one
// that committed last stays in force. change may be called more than once,
// each time on the settings as stored (see core.update): it must only set
// fields of the settings it is given.
func (s *Ops) UpdateSettings(change func(*Settings)) (Settings, error) {
	st, _, err := s.editSettings(func(st *Settings, _ *apierr.Violations) error {
		change(st)
		return nil
	})
	return st, err
}

// editSettings runs edit over the stored settings in one write
// transaction, then checks the result: what edit found wrong in the form
// of a value (v) and what Settings.Check finds, all together. Nothing is
// stored when either finds something, or edit fails. It returns the
// settings in force and the oddities v accepted with a warning.
func (s *core) editSettings(edit func(st *Settings, v *apierr.Violations) error) (Settings, []apierr.Message, error) {
	var st Settings
	var seq uint64
	v := s.violations()
	err := s.update("update settings", func(tx Tx) error {
		var err error
		if st, err = settingsIn(tx); err != nil {
			return err
		}
		if err := edit(&st, &v); err != nil {
			return err
		}
		addChecks(&v, st)
		if err := v.Err(); err != nil {
			return err
		}
		seq = s.nextSettings()
		return tx.PutSetting(settingsKey, st)
	})
	if err != nil {
		return st, nil, err
	}
	s.inForce(seq, st)
	s.publish(Event{Kind: EventSettings})
	return st, v.Warnings(), nil
}

// nextSettings numbers a settings write in the order writes commit: the
// caller takes it inside the write transaction that stores st, which the
// store serialises (a run that is rolled back and run again takes a new
// number). inForce, told the number once the write committed, puts st in
// force unless a later write's settings are in force already, so that
// when writes race, the one that committed last stays in force. Every
// settings write goes through the two: editSettings and a scenario
// import (Sandbox.Rebuild).
func (s *core) nextSettings() uint64 { return s.settingsSeq.Add(1) }

// inForce puts the settings of the write numbered seq in force, unless a
// later one is (see nextSettings).
func (s *core) inForce(seq uint64, st Settings) {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	if seq > s.appliedSeq {
		s.appliedSeq = seq
		s.apply(st)
	}
}

// addChecks adds what Settings.Check finds in st to the findings, except
// at a path that has one already: a value whose form was wrong was not
// set, and what Check says about the value left in its place (or missing)
// would only confuse.
func addChecks(v *apierr.Violations, st Settings) {
	if e, ok := apierr.AsError(st.Check()); ok {
		v.MergeNew(e)
	}
}

// apply keeps the settings that hot paths read in memory.
func (s *core) apply(st Settings) {
	s.offset.Store(st.ClockOffsetSeconds)
	s.legacy.Store(st.LegacyDate.Key())
	s.strictMode.Store(st.Strict)
	s.anyTPPOperator.Store(st.OperatorAccess == OperatorAnyTPP)
	f := st.Faults
	s.faults.Store(&f)
}

// Strict reports whether strict mode is on: oddities the bank otherwise
// accepts with a warning are refused.
func (s *core) Strict() bool { return s.strictMode.Load() }

// AnyTPPIsOperator reports whether operatorAccess is any-tpp: every
// caller the bank accepts may use the operator's routes.
func (s *Ops) AnyTPPIsOperator() bool { return s.anyTPPOperator.Load() }

// violations starts the findings of one request, refusing oddities in
// strict mode.
func (s *core) violations() apierr.Violations { return apierr.Violations{Strict: s.strictMode.Load()} }

// Faults returns the simulated faults in force.
func (s *Ops) Faults() Faults {
	if f := s.faults.Load(); f != nil {
		return *f
	}
	return Faults{}
}

// SetFaults changes the simulated faults.
func (s *Ops) SetFaults(f Faults) (Faults, error) {
	if err := f.Check(); err != nil {
		return Faults{}, err
	}
	st, err := s.UpdateSettings(func(st *Settings) { st.Faults = f })
	return st.Faults, err
}

// parseTimeOfDay reads HH:MM (00:00 to 23:59) as minutes after midnight.
func parseTimeOfDay(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' || !allDigits(s[:2]) || !allDigits(s[3:]) {
		return 0, false
	}
	h, m := int(s[0]-'0')*10+int(s[1]-'0'), int(s[3]-'0')*10+int(s[4]-'0')
	if h > 23 || m > 59 {
		return 0, false
	}
	return h*60 + m, true
}
