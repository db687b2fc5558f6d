// Package apierr is the vocabulary of the bank's answers: the error codes
// of the API contract, a tppMessage, the one error type, the findings of a
// request, and the warnings of what the bank takes although it is odd. It
// imports nothing of Sandbank, so that the signature check (bank/httpsig)
// and the request log (bank/reqlog) use it without the domain.
package apierr

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Error codes of the API contract (docs/SANDBOX-API.md 1.4). The same codes are used
// by the HTTP API, the SCA redirects and the desktop screens.
const (
	CodeBadRequest         = "BAD_REQUEST"
	CodeFormatError        = "FORMAT_ERROR"
	CodeHeaderRequired     = "HTTP_HEADER_REQUIRED"
	CodeQueryParamRequired = "QUERY_PARAMETER_REQUIRED"
	CodePeriodInvalid      = "PERIOD_INVALID"
	CodeSignatureMissing   = "SIGNATURE_MISSING"
	CodeSignatureInvalid   = "SIGNATURE_INVALID"
	CodeCertificateInvalid = "CERTIFICATE_INVALID"
	CodeCertificateExpired = "CERTIFICATE_EXPIRED"
	CodeForbidden          = "FORBIDDEN"
	CodeNotFound           = "NOT_FOUND"
	CodeResourceUnknown    = "RESOURCE_UNKNOWN"
	CodeConflict           = "CONFLICT"
	CodeSystemError        = "SYSTEM_ERROR"

	CodeCorporateIDRequired   = "CORPORATE_ID_REQUIRED"
	CodePSUCredentialsInvalid = "PSU_CREDENTIALS_INVALID"
	CodeConsentUnknown        = "CONSENT_UNKNOWN"
	CodeConsentInvalid        = "CONSENT_INVALID"
	CodeConsentExpired        = "CONSENT_EXPIRED"
	CodeSCAInvalid            = "SCA_INVALID"
	CodeSCAExpired            = "SCA_EXPIRED"
	CodeSCANotFound           = "SCA_NOT_FOUND"
	CodeAccessExceeded        = "ACCESS_EXCEEDED"

	CodeProductUnknown       = "PRODUCT_UNKNOWN"
	CodeProductInvalid       = "PRODUCT_INVALID"
	CodeKIDMissing           = "KID_MISSING"
	CodeKIDInvalid           = "KID_INVALID"
	CodeExecutionDateInvalid = "EXECUTION_DATE_INVALID"
	CodeReferenceMixInvalid  = "REFERENCE_MIX_INVALID"
	CodePaymentFailed        = "PAYMENT_FAILED"

	// CodeServiceInvalid answers a Berlin Group operation that the real
	// bank does not offer (docs/CONFORMANCE.md).
	CodeServiceInvalid = "SERVICE_INVALID"
)

// Codes lists every error code, in the order of the constants above. The
// HTTP API maps each to its status.
var Codes = []string{
	CodeBadRequest, CodeFormatError, CodeHeaderRequired, CodeQueryParamRequired, CodePeriodInvalid,
	CodeSignatureMissing, CodeSignatureInvalid, CodeCertificateInvalid, CodeCertificateExpired,
	CodeForbidden, CodeNotFound, CodeResourceUnknown, CodeConflict, CodeSystemError,
	CodeCorporateIDRequired, CodePSUCredentialsInvalid, CodeConsentUnknown, CodeConsentInvalid, CodeConsentExpired,
	CodeSCAInvalid, CodeSCAExpired, CodeSCANotFound, CodeAccessExceeded,
	CodeProductUnknown, CodeProductInvalid, CodeKIDMissing, CodeKIDInvalid, CodeExecutionDateInvalid,
	CodeReferenceMixInvalid, CodePaymentFailed, CodeServiceInvalid,
}

// MaxMessageText is the longest text a tppMessage may carry (spec 2.5).
const MaxMessageText = 512

// Message is one tppMessage: a finding about one field or about the request.
type Message struct {
	Category string `json:"category"` // ERROR or WARNING
	Code     string `json:"code"`
	Path     string `json:"path,omitempty"`
	Text     string `json:"text"`
	// Refuse is set on a WARNING about something odd that the bank accepts
	// as the real bank does (docs/TPP-GUIDE.md 9): the code strict mode refuses it
	// with. An ordinary warning (a date moved to a banking day) has none.
	Refuse string `json:"-"`
	// rest is set on the last warning of Warnings.List when there were
	// more than MaxWarnings: how many it stands for.
	rest int
}

// Rest is how many warnings m stands for when it is the line Warnings.List
// ends with past MaxWarnings; 0 for any other message.
func (m Message) Rest() int { return m.rest }

// Oddity is a WARNING about something odd that the bank accepts, as the
// real bank does; strict mode refuses it with the code refuse. text says
// what to change. Both path and text are clipped to MaxMessageText: a
// path may hold a key of the client's.
func Oddity(refuse, path, text string) Message {
	return Message{Category: "WARNING", Code: "WARNING", Path: Clip(path), Text: Clip(text), Refuse: refuse}
}

// Refusal is the error strict mode answers oddities with: one ERROR per
// oddity, with its refuse code, path and text (and one for the rest of a
// list Warnings cut); nil when there are none.
func Refusal(oddities []Message) error {
	var v Violations
	for _, m := range oddities {
		switch {
		case m.Refuse != "":
			v.Add(m.Refuse, m.Path, m.Text+" (strict mode refuses what the bank accepts with a warning)")
		case m.rest > 0 && !v.Empty():
			v.Add(v.list[0].Code, "", fmt.Sprintf("and %d more warnings, which strict mode refuses too", m.rest))
		}
	}
	return v.Err()
}

// MaxWarnings is how many warnings an answer, a request log entry or an
// import's counts lists; one more line gives the count of the rest.
const MaxWarnings = 100

// NotesHeader is the answer header that says how many client notes (the
// warnings of what the bank took although it is odd) a request got, and
// where its request log entry lists them: "2; /v1/sandbox/requests/{id}"
// (docs/TPP-GUIDE.md 9). Every answer to a request with notes carries it,
// one whose body has no room for tppMessages (an array, an error, a 204)
// too, and the bank's response signature covers it.
const NotesHeader = "Sandbank-Notes"

// CountNotes is how many warnings a list of Warnings.List stands for: one
// per message, and the rest its last line counts past MaxWarnings.
func CountNotes(list []Message) int {
	n := len(list)
	if n > 0 && list[n-1].rest > 0 {
		n += list[n-1].rest - 1
	}
	return n
}

// Warnings gathers warnings in bounded memory: the first MaxWarnings are
// kept, the rest only counted, so that a body with millions of odd keys
// costs a counter rather than a message each. It is where the bank caps
// warnings: Violations, the JSON decoders and the HTTP API's notes of a
// request all gather theirs in one. The zero value is empty.
type Warnings struct {
	kept []Message
	rest int
}

// Add adds warnings. The line a List ends with past MaxWarnings adds the
// count it stands for, so that lists gathered again keep their count.
func (w *Warnings) Add(ms ...Message) {
	for _, m := range ms {
		switch {
		case m.rest > 0:
			w.rest += m.rest
		case len(w.kept) < MaxWarnings:
			w.kept = append(w.kept, m)
		default:
			w.rest++
		}
	}
}

// Len is how many warnings were added.
func (w *Warnings) Len() int { return len(w.kept) + w.rest }

// List returns the first MaxWarnings warnings and, when more were added,
// one WARNING more that gives their count; nil when there are none.
func (w *Warnings) List() []Message {
	if w.rest == 0 {
		return slices.Clip(w.kept)
	}
	more := Message{Category: "WARNING", Code: "WARNING", rest: w.rest,
		Text: fmt.Sprintf("and %d more warnings: the bank lists the first %d", w.rest, MaxWarnings)}
	return append(slices.Clip(w.kept), more)
}

// Error is the bank's one error type. Every failure a client can cause is an
// *Error with a code of docs/SANDBOX-API.md 1.4. Messages hold one entry per
// failing field. The HTTP API maps the code to a status (bank/psd2api).
type Error struct {
	Code     string
	Message  string
	Messages []Message
	// Invalid is set on the findings of Violations: the request breaks the
	// rules of its fields, whatever their codes (a customerNumber that names
	// no customer is RESOURCE_UNKNOWN, and still a 400).
	Invalid bool
	// NeedSCA is set on a 401 that a new SCA would cure: the API answers
	// it with an scaRedirect when the request says where to send the PSU.
	NeedSCA bool
	// RetryAfter is set when the bank is busy (a scenario import runs):
	// the request changed nothing and may be sent again after it.
	RetryAfter time.Duration
}

// Error implements the error interface with the code and the message.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error with the code's status and a formatted message.
// The message also becomes the single tppMessage of the error.
func Errorf(code, format string, args ...any) *Error {
	msg := Clip(fmt.Sprintf(format, args...))
	return &Error{
		Code:     code,
		Message:  msg,
		Messages: []Message{{Category: "ERROR", Code: code, Text: msg}},
	}
}

// PathError returns an *Error about one field, at path.
func PathError(code, path, text string) *Error {
	msg := text
	if path != "" {
		msg = path + ": " + text
	}
	return &Error{
		Code:     code,
		Message:  Clip(msg),
		Messages: []Message{{Category: "ERROR", Code: code, Path: path, Text: Clip(text)}},
	}
}

// AsError returns err as an *Error when it is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// Violations collects every failing field of one request, so that a client
// learns all its mistakes at once (docs/SANDBOX-API.md 1.4), and the oddities the
// bank accepts with a warning (docs/TPP-GUIDE.md 9).
type Violations struct {
	list     []Message
	warnings Warnings
	// Strict refuses oddities: Odd records a failing field instead of a
	// warning.
	Strict bool
}

// Odd records something odd that the bank accepts, as the real bank does:
// a warning, or in strict mode a failure with the code refuse. text says
// what to change.
func (v *Violations) Odd(refuse, path, text string) {
	if v.Strict {
		v.Add(refuse, path, text+" (strict mode refuses what the bank accepts with a warning)")
		return
	}
	v.warnings.Add(Oddity(refuse, path, text))
}

// Warnings returns the oddities recorded as warnings, at most MaxWarnings
// and a line for the rest (Warnings.List).
func (v *Violations) Warnings() []Message { return v.warnings.List() }

// Add records a failing field. path is the JSON path of the field, e.g.
// "creditorAccount.iban" or "[3].bookingDate".
func (v *Violations) Add(code, path, text string) {
	v.list = append(v.list, Message{Category: "ERROR", Code: code, Path: path, Text: Clip(text)})
}

// Format records a FORMAT_ERROR for path.
func (v *Violations) Format(path, format string, args ...any) {
	v.Add(CodeFormatError, path, fmt.Sprintf(format, args...))
}

// Merge adds every violation of e, with prefix put in front of each path.
func (v *Violations) Merge(prefix string, e *Error) {
	for _, m := range e.Messages {
		m.Path = JoinPath(prefix, m.Path)
		v.list = append(v.list, m)
	}
}

// MergeNew adds the findings of e at paths that have none yet: what a
// later check finds about a value an earlier finding refused already
// would only confuse.
func (v *Violations) MergeNew(e *Error) {
	for _, m := range e.Messages {
		if !slices.ContainsFunc(v.list, func(f Message) bool { return f.Path == m.Path }) {
			v.list = append(v.list, m)
		}
	}
}

// Empty reports whether nothing failed.
func (v *Violations) Empty() bool { return len(v.list) == 0 }

// Clean reports whether nothing failed and nothing was odd.
func (v *Violations) Clean() bool { return len(v.list) == 0 && v.warnings.Len() == 0 }

// Err returns nil when nothing failed, otherwise one Invalid *Error
// holding every violation: findings about the request. Its code is that of
// the first violation and its message lists the first few findings.
func (v *Violations) Err() error {
	if len(v.list) == 0 {
		return nil
	}
	first := v.list[0]
	parts := make([]string, 0, 3)
	for i, m := range v.list {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(v.list)-3))
			break
		}
		if m.Path != "" {
			parts = append(parts, m.Path+": "+m.Text)
		} else {
			parts = append(parts, m.Text)
		}
	}
	return &Error{
		Invalid:  true,
		Code:     first.Code,
		Message:  Clip(strings.Join(parts, "; ")),
		Messages: append([]Message(nil), v.list...),
	}
}

// JoinPath joins two JSON path parts: "accounts", "[2]" gives "accounts[2]";
// "accounts[2]", "iban" gives "accounts[2].iban".
func JoinPath(prefix, path string) string {
	switch {
	case prefix == "":
		return path
	case path == "":
		return prefix
	case strings.HasPrefix(path, "["):
		return prefix + path
	default:
		return prefix + "." + path
	}
}

// Clip shortens a text to MaxMessageText bytes on a rune boundary.
func Clip(s string) string {
	if len(s) <= MaxMessageText {
		return s
	}
	cut := MaxMessageText - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
