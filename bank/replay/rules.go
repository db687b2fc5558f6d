package replay

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Ignore rules: JSON paths the comparison leaves out, for what differs
// on purpose (a field the real bank sends and Sandbank does not, a date
// the recording cannot hold still). A rule is JSONPath-like:
//
//	$.balances[*].referenceDate     every balance's referenceDate
//	$..referenceDate                referenceDate at any depth
//	$.tppMessages[0].text           one item
//	$['_links']                     a key written in brackets
//
// and may start with the requests it is for: a method, a path or both,
// a path segment * matching any one segment:
//
//	GET /v1/accounts/*/balances $.balances[*].referenceDate

// Rule is one ignore rule.
type Rule struct {
	// Text is the rule as written.
	Text   string
	method string
	path   []string // the request path's segments; * matches one
	steps  []ruleStep
}

// ruleStep is one step of a rule's JSON path.
type ruleStep struct {
	key     string // a key; "" with any
	index   int    // an index, -1 for a key
	any     bool   // .* or [*]: any key or index
	descend bool   // ..: at this depth or any below
}

// ParseRule reads one ignore rule.
func ParseRule(text string) (Rule, error) {
	r := Rule{Text: strings.TrimSpace(text)}
	fields := strings.Fields(r.Text)
	jsonPath := ""
	for i, f := range fields {
		if strings.HasPrefix(f, "$") {
			jsonPath = strings.Join(fields[i:], " ")
			break
		}
		switch {
		case strings.HasPrefix(f, "/"):
			if r.path != nil {
				return r, fmt.Errorf("ignore rule %q: two paths; give one request path, then the JSON path", r.Text)
			}
			r.path = strings.Split(strings.Trim(f, "/"), "/")
		case r.method == "" && r.path == nil && isMethod(f):
			r.method = strings.ToUpper(f)
		default:
			return r, fmt.Errorf("ignore rule %q: %q is neither a method, a request path (/v1/...) nor a JSON path ($...); write e.g. $.balances[*].referenceDate", r.Text, f)
		}
	}
	if jsonPath == "" {
		return r, fmt.Errorf("ignore rule %q has no JSON path; a rule ends with one that starts with $, e.g. $.balances[*].referenceDate", r.Text)
	}
	steps, err := parseJSONPath(jsonPath)
	if err != nil {
		return r, fmt.Errorf("ignore rule %q: %v", r.Text, err)
	}
	r.steps = steps
	return r, nil
}

func isMethod(s string) bool {
	if s == "" || len(s) > 16 {
		return false
	}
	for _, c := range s {
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}

// parseJSONPath reads $ and its steps.
func parseJSONPath(s string) ([]ruleStep, error) {
	if !strings.HasPrefix(s, "$") {
		return nil, fmt.Errorf("a JSON path starts with $")
	}
	var steps []ruleStep
	i := 1
	for i < len(s) {
		switch {
		case strings.HasPrefix(s[i:], ".."):
			i += 2
			name, n := nameAt(s[i:])
			if n == 0 && strings.HasPrefix(s[i:], "[") {
				st, n, err := bracketAt(s[i:])
				if err != nil {
					return nil, err
				}
				st.descend = true
				steps = append(steps, st)
				i += n
				continue
			}
			if n == 0 {
				return nil, fmt.Errorf("%q: .. must be followed by a key, * or [...]", s)
			}
			st := ruleStep{key: name, index: -1, descend: true}
			if name == "*" {
				st = ruleStep{index: -1, any: true, descend: true}
			}
			steps = append(steps, st)
			i += n
		case s[i] == '.':
			i++
			name, n := nameAt(s[i:])
			if n == 0 {
				return nil, fmt.Errorf("%q: a . must be followed by a key or *", s)
			}
			st := ruleStep{key: name, index: -1}
			if name == "*" {
				st = ruleStep{index: -1, any: true}
			}
			steps = append(steps, st)
			i += n
		case s[i] == '[':
			st, n, err := bracketAt(s[i:])
			if err != nil {
				return nil, err
			}
			steps = append(steps, st)
			i += n
		default:
			return nil, fmt.Errorf("%q: unexpected %q at %d; steps are .key, ..key, .*, [n], [*] and ['key']", s, s[i], i)
		}
	}
	return steps, nil
}

// nameAt reads a key after . up to the next . or [.
func nameAt(s string) (string, int) {
	end := strings.IndexAny(s, ".[")
	if end < 0 {
		end = len(s)
	}
	return s[:end], end
}

// bracketAt reads [n], [*], ['key'] or ["key"].
func bracketAt(s string) (ruleStep, int, error) {
	end := strings.IndexByte(s, ']')
	if q := s[1:min(2, len(s))]; q == "'" || q == `"` {
		// A quoted key may hold ]: find the closing quote first.
		closing := strings.Index(s[2:], q+"]")
		if closing < 0 {
			return ruleStep{}, 0, fmt.Errorf("%q: a quoted key in [...] is not closed", s)
		}
		key := strings.ReplaceAll(s[2:2+closing], `\`+q, q)
		return ruleStep{key: key, index: -1}, 2 + closing + 2, nil
	}
	if end < 0 {
		return ruleStep{}, 0, fmt.Errorf("%q: [ is not closed", s)
	}
	inner := strings.TrimSpace(s[1:end])
	if inner == "*" {
		return ruleStep{index: -1, any: true}, end + 1, nil
	}
	n, err := strconv.Atoi(inner)
	if err != nil || n < 0 {
		return ruleStep{}, 0, fmt.Errorf("%q: [%s] is neither an index, * nor a quoted key", s, inner)
	}
	return ruleStep{index: n}, end + 1, nil
}

// ReadRules reads an ignore file: one rule a line; blank lines and lines
// that start with # are left out.
func ReadRules(r io.Reader, name string) ([]Rule, error) {
	var rules []Rule
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rule, err := ParseRule(line)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %v", name, n, err)
		}
		rules = append(rules, rule)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return rules, nil
}

// forRequest reports whether the rule applies to a request.
func (r Rule) forRequest(method, requestPath string) bool {
	if r.method != "" && r.method != method {
		return false
	}
	if r.path == nil {
		return true
	}
	segs := strings.Split(strings.Trim(canonicalPath(requestPath), "/"), "/")
	if len(segs) != len(r.path) {
		return false
	}
	for i, want := range r.path {
		if want != "*" && want != segs[i] {
			return false
		}
	}
	return true
}

// matches reports whether the rule's JSON path covers p.
func (r Rule) matches(p path) bool { return matchSteps(r.steps, p) }

func matchSteps(steps []ruleStep, p path) bool {
	if len(steps) == 0 {
		return true // a rule covers what is below the value it names
	}
	st := steps[0]
	if st.descend {
		for i := range p {
			if st.matchStep(p[i]) && matchSteps(steps[1:], p[i+1:]) {
				return true
			}
		}
		return false
	}
	return len(p) > 0 && st.matchStep(p[0]) && matchSteps(steps[1:], p[1:])
}

func (st ruleStep) matchStep(s step) bool {
	switch {
	case st.any:
		return true
	case st.index >= 0:
		return s.index == st.index
	}
	return s.index < 0 && s.key == st.key
}
