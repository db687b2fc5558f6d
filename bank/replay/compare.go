package replay

import (
	"cmp"
	"fmt"
	"mime"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// The comparison of a new answer with the recorded one: the status, the
// error code and the tppMessages' codes, a few headers (Location,
// Content-Type) and the JSON body field by field, after what always
// differs is written as its kind (normaliser) and the recorded ids are
// replaced by the ones this replay learned (ids).

// Difference is one place where the new answer is not the recorded one.
type Difference struct {
	// Path is where: status, header Location, or a JSON path of the
	// body ($.balances[0].balanceAmount.amount).
	Path string `json:"path"`
	// Recorded and New are the values there, as JSON (a string quoted),
	// or (absent).
	Recorded string `json:"recorded"`
	New      string `json:"new"`
	// Note says what the values alone do not: an id learned otherwise
	// before.
	Note string `json:"note,omitempty"`
}

// Ignored is a value an ignore rule left out of the comparison.
type Ignored struct {
	Path     string `json:"path"`
	Recorded string `json:"recorded"`
	New      string `json:"new"`
	// Differs is set when the values differ, after normalising.
	Differs bool `json:"differs"`
	// Rule is the ignore rule that left it out.
	Rule string `json:"rule"`
}

// answer is a recorded or a new answer.
type answer struct {
	status int
	header []Field
	body   []byte
	// bodyKnown is false when the recording holds no body to compare (a
	// HAR written without bodies, or with the body cut).
	bodyKnown bool
}

// outcome is what the comparison of one exchange found.
type outcome struct {
	diffs   []Difference
	ignored []Ignored
	matched int
	notes   []string
}

// maxDifferences bounds the differences kept for one exchange.
const maxDifferences = 200

// comparer compares the answers of one exchange.
type comparer struct {
	ids   *ids
	norm  normaliser
	rules []Rule
	out   outcome
	more  int // differences past maxDifferences
}

func (c *comparer) differ(p, recorded, new, note string) {
	if len(c.out.diffs) >= maxDifferences {
		c.more++
		return
	}
	c.out.diffs = append(c.out.diffs, Difference{Path: p, Recorded: recorded, New: new, Note: note})
}

// rule returns the ignore rule that covers p, if any.
func (c *comparer) rule(p path) (Rule, bool) {
	for _, r := range c.rules {
		if r.matches(p) {
			return r, true
		}
	}
	return Rule{}, false
}

// compare compares a new answer with the recorded one. It learns the ids
// of the body first, then compares with them.
func (c *comparer) compare(rec, got answer) outcome {
	if rec.status != got.status {
		c.differ("status", strconv.Itoa(rec.status), strconv.Itoa(got.status), "")
	}
	var rj, nj *node
	recJSON, newJSON := false, false
	if rec.bodyKnown {
		rj, recJSON = parseJSON(rec.body)
	}
	nj, newJSON = parseJSON(got.body)
	if recJSON && newJSON {
		c.learn(rj, nj, nil)
	}
	c.learnURL(get(rec.header, "Location"), get(got.header, "Location"))
	c.compareHeaders(rec, got)
	switch {
	case !rec.bodyKnown:
		c.out.notes = append(c.out.notes, "the recording holds no body of this answer; its status and headers were compared")
	case recJSON && newJSON:
		c.walk(rj, nj, nil)
	case recJSON != newJSON:
		c.differ("body", bodyKind(rec.body, recJSON), bodyKind(got.body, newJSON), "")
	case len(rec.body) > 0 || len(got.body) > 0:
		c.out.notes = append(c.out.notes, "the bodies are not JSON; their status and Content-Type were compared")
	}
	if c.more > 0 {
		c.out.notes = append(c.out.notes, fmt.Sprintf("%d more differences are not listed", c.more))
	}
	slices.SortStableFunc(c.out.diffs, func(a, b Difference) int { return cmp.Compare(rank(a.Path), rank(b.Path)) })
	return c.out
}

// rank orders the differences as a reader looks for them: the status,
// the error code, the tppMessages' codes, then the rest in the order of
// the answer.
func rank(p string) int {
	switch {
	case p == "status":
		return 0
	case p == "$.code":
		return 1
	case strings.HasPrefix(p, "$.tppMessages") && (strings.HasSuffix(p, ".code") || p == "$.tppMessages"):
		return 2
	}
	return 3
}

func bodyKind(body []byte, isJSON bool) string {
	switch {
	case isJSON:
		return "JSON"
	case len(body) == 0:
		return "no body"
	}
	return "not JSON"
}

// compareHeaders compares the headers whose values say what the bank did:
// Location (a redirect's target, a created resource) and the media type
// of Content-Type.
func (c *comparer) compareHeaders(rec, got answer) {
	if r, n := get(rec.header, "Location"), get(got.header, "Location"); r != "" || n != "" {
		if c.urlText(r, true) != c.urlText(n, false) {
			c.differ("header Location", orAbsent(r), orAbsent(n), "")
		}
	}
	r, n := mediaType(get(rec.header, "Content-Type")), mediaType(get(got.header, "Content-Type"))
	if r != "" && n != "" && r != n && rec.bodyKnown {
		c.differ("header Content-Type", r, n, "")
	}
}

func orAbsent(s string) string {
	if s == "" {
		return absent
	}
	return quote(s)
}

func mediaType(v string) string {
	if v == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(v)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(v))
	}
	return mt
}

// learn walks both bodies at once and learns the ids at the same place:
// the values of id keys, the SCA page's authorisation id and the psu-id
// of links and redirects.
func (c *comparer) learn(r, n *node, p path) {
	if r == nil || n == nil {
		return
	}
	if _, ignored := c.rule(p); ignored {
		return
	}
	switch {
	case r.kind == kindString && n.kind == kindString:
		if c.isID(p) {
			if was := c.ids.learn(r.text, n.text); was != "" {
				c.differ(p.String(), quote(r.text), quote(n.text), fmt.Sprintf("the recorded id %s is %s in this replay, learned from an earlier answer", r.text, c.ids.value(r.text)))
			}
			return
		}
		c.learnURL(r.text, n.text)
	case r.kind == kindObject && n.kind == kindObject:
		for _, m := range r.members {
			c.learn(m.value, n.get(m.key), p.key(m.key))
		}
	case r.kind == kindArray && n.kind == kindArray:
		for i := range min(len(r.items), len(n.items)) {
			c.learn(r.items[i], n.items[i], p.at(i))
		}
	}
}

// isID reports whether the value at p, a string, is an id the bank hands
// out: the value of an id key, or an item of an array of ids (paymentIds,
// a customer's accounts).
func (c *comparer) isID(p path) bool {
	if k := p.last(); k != "" {
		return isIDKey(k)
	}
	return len(p) >= 2 && p[len(p)-1].index >= 0 && p[len(p)-2].index < 0 &&
		(strings.HasSuffix(p[len(p)-2].key, "Ids") || slices.Contains(idListKeys, p[len(p)-2].key))
}

// learnURL learns the ids of two links or redirects at the same place:
// the authorisation id of an SCA page (/sca/{id}/...) and the id
// parameters of the query (psu-id, psu-corporate-id).
func (c *comparer) learnURL(rec, got string) {
	if rec == "" || got == "" || !strings.ContainsAny(rec, "/?") {
		return
	}
	ru, err1 := url.Parse(rec)
	nu, err2 := url.Parse(got)
	if err1 != nil || err2 != nil {
		return
	}
	if r, n := scaPageID(ru.Path), scaPageID(nu.Path); r != "" && n != "" {
		c.ids.learn(r, n)
	}
	rq, nq := ru.Query(), nu.Query()
	for name, vs := range rq {
		if isIDParam(name) && len(vs) == 1 && len(nq[name]) == 1 {
			c.ids.learn(vs[0], nq[name][0])
		}
	}
}

// scaPageID returns the authorisation id of an SCA page's path,
// /sca/{id}/{secret}, "" for another path.
func scaPageID(p string) string {
	i := strings.Index(p, "/sca/")
	if i < 0 {
		return ""
	}
	id, _, ok := strings.Cut(p[i+len("/sca/"):], "/")
	if !ok || id == "" || id == "static" {
		return ""
	}
	return id
}

// walk compares the recorded value r with the new value n at p.
func (c *comparer) walk(r, n *node, p path) {
	if rule, ok := c.rule(p); ok {
		if r != nil || n != nil {
			c.out.ignored = append(c.out.ignored, Ignored{Path: p.String(), Recorded: r.String(), New: n.String(), Differs: !c.equal(r, n, p), Rule: rule.Text})
		}
		return
	}
	switch {
	case r == nil || n == nil:
		c.differ(p.String(), r.String(), n.String(), "")
	case r.kind != n.kind:
		c.differ(p.String(), r.String(), n.String(), "")
	case r.kind == kindObject:
		for _, m := range r.members {
			c.walk(m.value, n.get(m.key), p.key(m.key))
		}
		for _, m := range n.members {
			if r.get(m.key) == nil {
				c.walk(nil, m.value, p.key(m.key))
			}
		}
	case r.kind == kindArray:
		for i := range max(len(r.items), len(n.items)) {
			var ri, ni *node
			if i < len(r.items) {
				ri = r.items[i]
			}
			if i < len(n.items) {
				ni = n.items[i]
			}
			c.walk(ri, ni, p.at(i))
		}
	case c.equal(r, n, p):
		c.out.matched++
	default:
		c.differ(p.String(), r.String(), n.String(), "")
	}
}

// equal reports whether two values at p are the same, after the ids are
// followed and what always differs is normalised.
func (c *comparer) equal(r, n *node, p path) bool {
	switch {
	case r == nil || n == nil:
		return r == n
	case r.kind != n.kind:
		return false
	}
	switch r.kind {
	case kindString:
		if c.isID(p) && c.ids.value(r.text) == n.text {
			return true
		}
		if strings.Contains(p.last(), "href") || p.last() == "redirect" || strings.HasPrefix(r.text, "http") {
			return c.urlText(r.text, true) == c.urlText(n.text, false)
		}
		return c.norm.text(c.ids.within(r.text)) == c.norm.text(n.text)
	case kindNumber:
		if slices.Contains(timeKeys, p.last()) {
			return true
		}
		rd, err1 := decimal.NewFromString(r.text)
		nd, err2 := decimal.NewFromString(n.text)
		if err1 != nil || err2 != nil {
			return r.text == n.text
		}
		return rd.Equal(nd)
	case kindBool:
		return r.boolean == n.boolean
	case kindNull:
		return true
	}
	// Objects and arrays: equal when no value below differs.
	probe := &comparer{ids: c.ids, norm: c.norm, rules: c.rules}
	probe.walk(r, n, p)
	return len(probe.out.diffs) == 0 && probe.more == 0
}

// urlText normalises a link or redirect for comparison: the recorded one
// with its ids followed, its query in a stable order.
func (c *comparer) urlText(s string, recorded bool) string {
	if recorded {
		s = c.ids.within(s)
	}
	if u, err := url.Parse(s); err == nil && u.RawQuery != "" {
		u.RawQuery = u.Query().Encode()
		s = u.String()
	}
	return c.norm.text(s)
}
