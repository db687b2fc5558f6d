package bank

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"sandbank/bank/apierr"
)

// The settings as the operator reads and writes them: the document of
// GET, PUT and PATCH /v1/sandbox/settings, which the Server screen saves
// too. Every rule about a setting's value is here or in Settings.Check,
// whoever changes it.

// SettingsDoc is the settings document. A field that is nil was not
// given: PutSettings gives it its default, ChangeSettings leaves it as it
// is. Amounts and rates are decimal strings, as in Berlin Group amounts; a
// JSON number is taken with a warning (refused in strict mode). The
// sandbox clock and the faults have operations of their own and are not
// part of the document; Faults is set by the Server screen only, which
// saves the faults in the same change as the payment settings.
type SettingsDoc struct {
	TrustMode        *string               `json:"trustMode"`
	RequireSignature *bool                 `json:"requireSignature"`
	Strict           *bool                 `json:"strict"`
	ResponseSigning  *string               `json:"responseSigning"`
	OperatorAccess   *string               `json:"operatorAccess"`
	LegacyDate       *string               `json:"legacyDate"`
	ExemptionPolicy  *string               `json:"exemptionPolicy"`
	BatchTimes       []string              `json:"batchTimes"`
	CoverRetryDays   *int                  `json:"coverRetryDays"`
	NCBCTFee         *AmountText           `json:"ncbctFee"`
	FXRates          map[string]AmountText `json:"fxRates"`
	BatchMode        *string               `json:"batchMode"`
	RequestLog       *RequestLogDoc        `json:"requestLog"`
	Faults           *Faults               `json:"-"`
}

// RequestLogDoc is the requestLog object of the settings document; a nil
// field was not given.
type RequestLogDoc struct {
	MaxCount *int `json:"maxCount"`
	MaxBytes *int `json:"maxBytes"`
}

// Doc returns the settings as their document, with every field given: the
// answer of GET /v1/sandbox/settings, and what a merge patch applies to.
// No legacy date is null.
func (st Settings) Doc() SettingsDoc {
	fx := make(map[string]AmountText, len(st.FX))
	for c, r := range st.FX {
		fx[c] = AmountText{Text: r.String()}
	}
	var legacy *string
	if !st.LegacyDate.IsZero() {
		d := st.LegacyDate.String()
		legacy = &d
	}
	times := append([]string{}, st.BatchTimes...)
	return SettingsDoc{
		TrustMode: &st.TrustMode, RequireSignature: &st.RequireSignature, Strict: &st.Strict, ResponseSigning: &st.ResponseSigning,
		OperatorAccess: &st.OperatorAccess,
		LegacyDate:     legacy, ExemptionPolicy: &st.Exemption, BatchTimes: times,
		CoverRetryDays: &st.CoverRetryDays, NCBCTFee: &AmountText{Text: FormatAmount(st.NCBCTFee, "NOK")},
		FXRates: fx, BatchMode: &st.BatchMode,
		RequestLog: &RequestLogDoc{MaxCount: &st.RequestLog.MaxCount, MaxBytes: &st.RequestLog.MaxBytes},
	}
}

// PutSettings replaces the settings with a document: a field it leaves
// out takes its default (DefaultSettings); the clock and the faults stay
// as they are. It returns the settings in force and the oddities it took
// with a warning. Nothing is stored when a value is refused.
func (s *Ops) PutSettings(d SettingsDoc) (Settings, []apierr.Message, error) {
	return s.editSettings(func(st *Settings, v *apierr.Violations) error {
		d.replace(st, v)
		return nil
	})
}

// ChangeSettings changes the settings a document gives and leaves the
// rest as they are: the Server screen's save. It returns the settings in
// force and the oddities it took with a warning. Nothing is stored when a
// value is refused.
func (s *Ops) ChangeSettings(d SettingsDoc) (Settings, []apierr.Message, error) {
	return s.editSettings(func(st *Settings, v *apierr.Violations) error {
		d.applyTo(st, v)
		return nil
	})
}

// CheckSettings reports what ChangeSettings would refuse in a document,
// storing nothing, so that a form can show the bank's findings beside its
// own.
func (s *Ops) CheckSettings(d SettingsDoc) error {
	st, err := s.settings()
	if err != nil {
		return err
	}
	v := s.violations()
	d.applyTo(&st, &v)
	addChecks(&v, st)
	return v.Err()
}

// PatchSettings applies a JSON merge patch (RFC 7396) to the settings
// document in force: a member of the patch replaces the document's, an
// object merges into the document's object (requestLog, fxRates), and
// null removes a member, which then takes its default as in PutSettings.
// The patch must be a JSON object. Fields the document does not have, and
// keys given twice, are oddities: a warning, refused in strict mode. It
// returns the settings in force and the oddities taken with a warning.
// Nothing is stored when a value is refused.
func (s *Ops) PatchSettings(patch []byte) (Settings, []apierr.Message, error) {
	odd, err := DecodeTolerant(patch, &SettingsDoc{})
	if err != nil {
		return Settings{}, nil, err
	}
	if t := bytes.TrimLeft(patch, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return Settings{}, nil, apierr.Errorf(apierr.CodeBadRequest, "a merge patch of the settings is a JSON object, e.g. {\"batchMode\": \"immediate\"}")
	}
	return s.editSettings(func(st *Settings, v *apierr.Violations) error {
		for _, m := range odd {
			v.Odd(m.Refuse, m.Path, m.Text)
		}
		current, err := json.Marshal(st.Doc())
		if err != nil {
			return err
		}
		merged, err := mergePatch(current, patch, reflect.TypeFor[SettingsDoc]())
		if err != nil {
			return err
		}
		var d SettingsDoc
		if err := json.Unmarshal(merged, &d); err != nil {
			return DescribeJSONError(merged, err, &d)
		}
		d.replace(st, v)
		return nil
	})
}

// mergePatch applies a JSON merge patch (RFC 7396) to a JSON document of
// type doc (nil: of no known type). Numbers keep their text. A key of the
// patch that names a field of doc in other letter case, as encoding/json
// reads it, is written as the document writes it first, so that it
// replaces the document's member instead of standing beside it.
func mergePatch(target, patch []byte, doc reflect.Type) ([]byte, error) {
	var t, p any
	for _, in := range []struct {
		data []byte
		v    *any
	}{{target, &t}, {patch, &p}} {
		dec := json.NewDecoder(bytes.NewReader(in.data))
		dec.UseNumber()
		if err := dec.Decode(in.v); err != nil {
			return nil, err
		}
	}
	return json.Marshal(mergeValue(t, canonicalKeys(p, doc)))
}

// canonicalKeys renames the keys of a decoded JSON object that name a
// field of struct type t in other letter case to the field's JSON name, at
// every level t describes; when the object also has the key as the field
// writes it, that one counts and the other is left as it is.
func canonicalKeys(v any, t reflect.Type) any {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	obj, ok := v.(map[string]any)
	if !ok || t == nil || t.Kind() != reflect.Struct {
		return v
	}
	out := make(map[string]any, len(obj))
	for k, val := range obj {
		name, ft := k, reflect.Type(nil)
		for i := range t.NumField() {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tag != "" && tag != "-" && strings.EqualFold(tag, k) {
				name, ft = tag, f.Type
				if tag == k {
					break
				}
			}
		}
		if _, exact := obj[name]; exact && name != k {
			name = k // the field is also given as written: that one counts
		}
		out[name] = canonicalKeys(val, ft)
	}
	return out
}

// mergeValue is the MergePatch function of RFC 7396.
func mergeValue(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
		} else {
			t[k] = mergeValue(t[k], v)
		}
	}
	return t
}

// replace makes st the settings the document gives, with the defaults
// for what it leaves out; the clock and the faults, which are not in the
// document, stay.
func (d SettingsDoc) replace(st *Settings, v *apierr.Violations) {
	kept := *st
	*st = DefaultSettings()
	st.ClockOffsetSeconds, st.Faults = kept.ClockOffsetSeconds, kept.Faults
	d.applyTo(st, v)
}

// applyTo sets the fields the document gives on st. A value whose form is
// wrong (a date, an amount, a rate) is a finding in v and leaves st's;
// Settings.Check judges the ranges afterwards.
func (d SettingsDoc) applyTo(st *Settings, v *apierr.Violations) {
	setIf(&st.TrustMode, d.TrustMode)
	setIf(&st.RequireSignature, d.RequireSignature)
	setIf(&st.Strict, d.Strict)
	setIf(&st.ResponseSigning, d.ResponseSigning)
	setIf(&st.OperatorAccess, d.OperatorAccess)
	setIf(&st.Exemption, d.ExemptionPolicy)
	setIf(&st.CoverRetryDays, d.CoverRetryDays)
	setIf(&st.BatchMode, d.BatchMode)
	if d.BatchTimes != nil {
		st.BatchTimes = slices.Clone(d.BatchTimes)
	}
	if d.LegacyDate != nil {
		switch text := strings.TrimSpace(*d.LegacyDate); {
		case text == "":
			st.LegacyDate = Date{}
		default:
			if day, err := ParseDate(text); err != nil {
				v.Format("legacyDate", "%v; send null (or \"\") for the API as of today", err)
			} else {
				st.LegacyDate = day
			}
		}
	}
	if d.NCBCTFee != nil {
		if fee, ok := settingAmount(v, "ncbctFee", *d.NCBCTFee, "250.00", func(s string) (decimal.Decimal, error) { return ParseAmount(s, "NOK") }); ok {
			st.NCBCTFee = fee
		}
	}
	if d.FXRates != nil {
		fx := map[string]decimal.Decimal{}
		for _, c := range slices.Sorted(maps.Keys(d.FXRates)) {
			if r, ok := settingAmount(v, "fxRates."+c, d.FXRates[c], "11.65", parseRate); ok {
				fx[c] = r
			}
		}
		st.FX = fx // a rate that does not read is left out, and refused
	}
	if r := d.RequestLog; r != nil {
		setIf(&st.RequestLog.MaxCount, r.MaxCount)
		setIf(&st.RequestLog.MaxBytes, r.MaxBytes)
	}
	if d.Faults != nil {
		st.Faults = *d.Faults
	}
}

// setIf sets *to to *from when from is given.
func setIf[T any](to *T, from *T) {
	if from != nil {
		*to = *from
	}
}

// settingAmount reads an amount or a rate of the settings, a decimal
// string; a JSON number is odd (a warning, refused in strict mode).
func settingAmount(v *apierr.Violations, path string, a AmountText, example string, parse func(string) (decimal.Decimal, error)) (decimal.Decimal, bool) {
	switch {
	case a.bad != "":
		v.Format(path, "must be a decimal string such as \"%s\", not %s", example, apierr.Clip(a.bad))
		return decimal.Decimal{}, false
	case a.Text == "":
		v.Format(path, "is required, e.g. \"%s\"", example)
		return decimal.Decimal{}, false
	case a.number:
		v.Odd(apierr.CodeFormatError, path, fmt.Sprintf("is the JSON number %s; send it as a decimal string, e.g. \"%s\"", apierr.Clip(a.Text), example))
	}
	d, err := parse(a.Text)
	if err != nil {
		v.Format(path, "%v", err)
		return decimal.Decimal{}, false
	}
	return d, true
}

// maxRateDigits bounds the digits of an exchange rate.
const maxRateDigits = 18

// parseRate reads an exchange rate: digits with an optional decimal point
// and fraction, e.g. "11.65" or "0.071".
func parseRate(s string) (decimal.Decimal, error) {
	intPart, frac, hasPoint := strings.Cut(s, ".")
	if intPart == "" || !allDigits(intPart) || (hasPoint && (frac == "" || !allDigits(frac))) {
		return decimal.Decimal{}, fmt.Errorf("%q is not a rate; write NOK per one unit with digits and an optional decimal point, e.g. \"11.65\"", apierr.Clip(s))
	}
	if len(intPart)+len(frac) > maxRateDigits {
		return decimal.Decimal{}, fmt.Errorf("%q has more than %d digits", apierr.Clip(s), maxRateDigits)
	}
	return decimal.NewFromString(s)
}
