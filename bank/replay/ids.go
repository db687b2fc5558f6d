package replay

import (
	"bytes"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Ids are followed, not copied: an id a recorded answer handed out (a
// consentId, a paymentId, an account's resourceId) is learned together
// with the id the new answer holds at the same place, and every later
// request carries the new one where the recorded request carried the
// recorded one: a path segment, a query value, a header's value, a string
// of its JSON body. The mapping is by place in the answers, never by
// what a string looks like.

// idKeys are the JSON keys whose string values (or arrays of strings)
// are ids the bank hands out: every key that ends in Id or Ids, id
// itself, and the ones below; less the keys that end in Id but hold what
// the TPP or the test data gave (notIDKeys).
var idKeys = []string{"id", "entryReference", "mockAccountId", "mockCardAccountId", "mockTransactionId", "mockAgreementId", "mockEngagementId"}

// notIDKeys end in Id but hold data, which must match as they are.
var notIDKeys = []string{"endToEndId", "creditorId", "terminalId", "cardAcceptorId", "nationalId", "sessionId", "tppSessionId",
	"paymentInformationId", "instructionId", "mandateId", "ultimateCreditorId", "ultimateDebtorId"}

// idListKeys name arrays whose string items are ids: the accounts, card
// accounts and engagements of a customer or agreement of the sandbox
// data API.
var idListKeys = []string{"accounts", "cardAccounts", "engagements", "payments"}

// isIDKey reports whether a JSON key holds an id the bank hands out.
func isIDKey(key string) bool {
	if slices.Contains(notIDKeys, key) {
		return false
	}
	return slices.Contains(idKeys, key) || strings.HasSuffix(key, "Id") || strings.HasSuffix(key, "Ids") || strings.HasSuffix(key, "ID")
}

// isIDParam reports whether a query parameter of a redirect holds an id
// the bank hands out: psu-id and psu-corporate-id, not the TPP's own
// tpp-session-id.
func isIDParam(name string) bool {
	name = strings.ToLower(name)
	return strings.HasSuffix(name, "-id") && name != "tpp-session-id" || isIDKey(name)
}

// minIDLength is the shortest value learned as an id: shorter values
// (a run number, "1") would stand for other things in later requests.
const minIDLength = 4

// ids is the mapping of recorded ids to the new ones.
type ids struct {
	toNew map[string]string
	toOld map[string]string
}

func newIDs() *ids {
	return &ids{toNew: map[string]string{}, toOld: map[string]string{}}
}

// clone returns a copy of the mapping.
func (m *ids) clone() *ids {
	return &ids{toNew: maps.Clone(m.toNew), toOld: maps.Clone(m.toOld)}
}

// learn notes that the recorded id old is new in this replay. It returns
// the id old was learned as before, or the recorded id that new stands
// for already, when they disagree: then the answers differ there.
func (m *ids) learn(old, new string) (conflict string) {
	if old == "" || new == "" || len(old) < minIDLength {
		return ""
	}
	if was, ok := m.toNew[old]; ok {
		if was != new {
			return was
		}
		return ""
	}
	if was, ok := m.toOld[new]; ok && was != old {
		return was
	}
	m.toNew[old], m.toOld[new] = new, old
	return ""
}

// value returns the new id of a recorded value, or the value itself.
func (m *ids) value(s string) string {
	if n, ok := m.toNew[s]; ok {
		return n
	}
	return s
}

// within replaces every learned id that stands as a whole word within s:
// a segment of a link's path, a value of its query, a word of a message.
func (m *ids) within(s string) string {
	if len(m.toNew) == 0 || len(s) < minIDLength {
		return s
	}
	if n, ok := m.toNew[s]; ok {
		return n
	}
	var b strings.Builder
	last, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && !strings.ContainsRune(separators, rune(s[i])) {
			continue
		}
		if i-start >= minIDLength {
			if n, ok := m.toNew[s[start:i]]; ok {
				b.WriteString(s[last:start])
				b.WriteString(n)
				last = i
			}
		}
		start = i + 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// separators end the words within which ids are followed.
const separators = "/?&=,;:. \t\n\"'()[]{}<>#"

// path maps the ids of a URL path, segment by segment.
func (m *ids) path(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = m.value(s)
	}
	return strings.Join(segs, "/")
}

// query maps the ids of a raw query, value by value, keeping the order
// and the escaping of what it does not change.
func (m *ids) query(raw string) string {
	if raw == "" {
		return raw
	}
	parts := strings.Split(raw, "&")
	for i, part := range parts {
		name, value, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		v, err := url.QueryUnescape(value)
		if err != nil {
			continue
		}
		if n := m.value(v); n != v {
			parts[i] = name + "=" + url.QueryEscape(n)
		}
	}
	return strings.Join(parts, "&")
}

// body maps the ids of a request body: in JSON, every string value that
// is a learned id (the quoted value replaced in place, so that the rest
// of the body keeps its bytes); in a form, every value. Another body is
// left as it is.
func (m *ids) body(body []byte, contentType string) []byte {
	if len(m.toNew) == 0 || len(body) == 0 {
		return body
	}
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "application/x-www-form-urlencoded") {
		return []byte(m.query(string(body)))
	}
	if _, ok := parseJSON(body); !ok {
		return body
	}
	// One pass over the string literals, so that an id learned as
	// another recorded id's text is not replaced twice.
	var out bytes.Buffer
	last := 0
	for i := 0; i < len(body); i++ {
		if body[i] != '"' {
			continue
		}
		end := i + 1
		for end < len(body) && body[end] != '"' {
			if body[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(body) {
			break
		}
		if n, ok := m.toNew[string(body[i+1:end])]; ok {
			out.Write(body[last:i])
			out.WriteString(quote(n))
			last = end + 1
		}
		i = end
	}
	if last == 0 {
		return body
	}
	out.Write(body[last:])
	return out.Bytes()
}

// What always differs between two runs, and is compared by its kind:
// dates and times, the SCA page's secret, signatures and digests,
// certificates, and the bank's own address.
var (
	dateTimeText = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?`)
	dateText     = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)
	httpDateText = regexp.MustCompile(`\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\b`)
	pemText      = regexp.MustCompile(`-----BEGIN ([A-Z0-9 ]+)-----[A-Za-z0-9+/=\s\\n]*-----END [A-Z0-9 ]+-----`)
	digestText   = regexp.MustCompile(`(?i)\bSHA-(256|512)=[A-Za-z0-9+/]{20,}={0,2}`)
	signatureArg = regexp.MustCompile(`signature="[^"]*"`)
	longBase64   = regexp.MustCompile(`[A-Za-z0-9+/]{120,}={0,2}`)
	scaSecret    = regexp.MustCompile(`(/sca/[^/?#\s"]+/)[^/?#\s"]+`)
)

// timeKeys hold numbers that are times or durations, which differ from
// run to run: the clock's distance to the real clock, the bank's time to
// answer.
var timeKeys = []string{"offsetSeconds", "durationMs"}

// normaliser writes what always differs as its kind.
type normaliser struct {
	// origins are the bank's addresses as the recording and the replay
	// name them (scheme and host), written <bank>.
	origins []string
}

func (n normaliser) text(s string) string {
	for _, o := range n.origins {
		if o != "" && strings.Contains(s, o) {
			s = strings.ReplaceAll(s, o, "<bank>")
		}
	}
	if strings.Contains(s, "-----BEGIN") {
		s = pemText.ReplaceAllString(s, "<PEM $1>")
	}
	if strings.Contains(s, "/sca/") {
		s = scaSecret.ReplaceAllString(s, "$1<secret>")
	}
	s = dateTimeText.ReplaceAllString(s, "<time>")
	s = dateText.ReplaceAllString(s, "<date>")
	s = httpDateText.ReplaceAllString(s, "<time>")
	s = digestText.ReplaceAllString(s, "<digest>")
	s = signatureArg.ReplaceAllString(s, `signature="<signature>"`)
	return longBase64.ReplaceAllString(s, "<base64>")
}
