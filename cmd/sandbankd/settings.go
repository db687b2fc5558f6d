package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"

	"sandbank/bank"
)

const settingsUsage = `Show and change the bank's settings: those of the Server screen
(docs/SANDBOX-API.md 4.1).

Usage:
  sandbankd settings [get] [KEY] [--json]
  sandbankd settings set KEY=VALUE... [--json]

KEY is a setting as "sandbankd settings" lists it; KEY.NAME is a member of
an object: fxRates.BHD, requestLog.maxCount. Letter case does not matter.
VALUE takes the type of the value it replaces:
  text        exemptionPolicy=own-accounts  ncbctFee=300.00  fxRates.BHD=28.70
  true/false  strict=true
  number      coverRetryDays=5  requestLog.maxCount=500
  list        batchTimes=06:00,14:00  (comma separated)
  null        legacyDate=null  fxRates.JPY=null  (the default again; removes a rate)
  JSON        a VALUE that starts with [ or { as it is: batchTimes='["07:00"]'
A value of another type goes to the bank as text, which the bank refuses
with what it expects. set sends all pairs in one merge patch (PATCH
/v1/sandbox/settings): the bank takes all of them or, when it refuses one,
none. A KEY that is not a setting is refused before anything is sent (the
bank would ignore it with a warning).

Examples:
  sandbankd settings
  sandbankd settings get exemptionPolicy
  sandbankd settings set exemptionPolicy=own-accounts batchMode=immediate
  sandbankd settings set batchTimes=06:00,14:00 fxRates.BHD=28.70 legacyDate=null

Flags:
`

func runSettings(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := newOpCmd("settings", settingsUsage, stdout, stderr)
	pos, err := o.parse(args)
	if err != nil {
		return err
	}
	verb := "get"
	if len(pos) > 0 {
		verb, pos = pos[0], pos[1:]
	}
	switch verb {
	case "get":
		if len(pos) > 1 {
			return o.usageErrorOf("get", "settings get takes one KEY at most, not %s", nArgs(len(pos)))
		}
		if len(pos) == 1 && strings.TrimSpace(pos[0]) == "" {
			return o.usageErrorOf("get", "the KEY is empty; give a setting as sandbankd settings lists it, e.g. exemptionPolicy")
		}
		return settingsGet(ctx, o, pos)
	case "set":
		if len(pos) == 0 {
			return o.usageErrorOf("set", "give KEY=VALUE, e.g. settings set exemptionPolicy=own-accounts")
		}
		for _, p := range pos {
			if k, _, ok := strings.Cut(p, "="); !ok || strings.TrimSpace(k) == "" {
				return o.usageErrorOf("set", "%q is not KEY=VALUE, e.g. exemptionPolicy=own-accounts", p)
			}
		}
		return settingsSet(ctx, o, pos)
	}
	return o.usageError("unknown command settings %s; use settings get or settings set KEY=VALUE", verb)
}

// settingsGet prints the settings, or the one that key names.
func settingsGet(ctx context.Context, o *opCmd, key []string) error {
	body, _, err := o.once(ctx, http.MethodGet, "/v1/sandbox/settings", nil, nil)
	if err != nil {
		return err
	}
	if len(key) == 0 {
		if *o.json {
			return printJSON(o.stdout, body)
		}
		rows, err := flatRows(body)
		if err != nil {
			return err
		}
		return printRows(o.stdout, [2]string{"SETTING", "VALUE"}, rows)
	}
	doc, err := decodeDoc(body)
	if err != nil {
		return err
	}
	path, value, found, err := settingAt(doc, key[0])
	if err != nil {
		return o.usageError("%v", err)
	}
	if !found {
		return o.usageError("%s", notSetting(doc, key[0], path))
	}
	if *o.json {
		return printJSON(o.stdout, mustJSON(value))
	}
	if _, isObject := value.(map[string]any); isObject {
		rows, err := flatRows(body)
		if err != nil {
			return err
		}
		return printRows(o.stdout, [2]string{"SETTING", "VALUE"}, under(rows, []string{strings.Join(path, ".")}))
	}
	if list, isList := value.([]any); isList {
		items := make([]string, len(list))
		for i, v := range list {
			items[i] = valueText(v)
		}
		_, err = fmt.Fprintln(o.stdout, strings.Join(items, ","))
		return err
	}
	_, err = fmt.Fprintln(o.stdout, valueText(value))
	return err
}

// notSetting says that key, whose path is path, names no setting.
func notSetting(doc map[string]any, key string, path []string) string {
	if len(path) == 1 {
		return fmt.Sprintf("%s is not a setting; the settings are %s", key, strings.Join(slices.Sorted(maps.Keys(doc)), ", "))
	}
	return fmt.Sprintf("%s is not a setting: %s has no %s", key, strings.Join(path[:len(path)-1], "."), path[len(path)-1])
}

// settingsSet changes the settings pairs name, in one merge patch.
func settingsSet(ctx context.Context, o *opCmd, pairs []string) error {
	c, err := o.connect(fileOrBank)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	body, _, err := c.call(ctx, o.stderr, http.MethodGet, "/v1/sandbox/settings", nil)
	if err != nil {
		return err
	}
	doc, err := decodeDoc(body)
	if err != nil {
		return err
	}
	patch := map[string]any{}
	var names []string
	for _, p := range pairs {
		key, text, _ := strings.Cut(p, "=")
		key = strings.TrimSpace(key)
		path, like, found, err := settingAt(doc, key)
		if err != nil {
			return o.usageError("%v", err)
		}
		if len(path) == 1 && !found {
			return o.usageError("%s", notSetting(doc, key, path))
		}
		if !found {
			like = sibling(doc, path)
		}
		value, err := settingValue(key, text, like)
		if err != nil {
			return o.usageError("%v", err)
		}
		if err := putPath(patch, path, value); err != nil {
			return o.usageError("%s: %v", key, err)
		}
		names = append(names, strings.Join(path, "."))
	}
	// A member the settings document does not have (requestLog.maxCont)
	// the bank would ignore with a warning; it is refused here instead.
	body = mustJSON(patch)
	if odd, err := bank.DecodeTolerant(body, &bank.SettingsDoc{}); err == nil && len(odd) > 0 {
		return o.usageError("%s", notSetting(doc, odd[0].Path, strings.Split(odd[0].Path, ".")))
	}
	answer, _, err := c.call(ctx, o.stderr, http.MethodPatch, "/v1/sandbox/settings", body)
	if err != nil {
		return err
	}
	rows, done, err := o.jsonOrRows(answer)
	if done || err != nil {
		return err
	}
	shown := under(rows, names)
	for _, n := range names {
		if len(under(shown, []string{n})) == 0 {
			shown = append(shown, [2]string{n, "(removed)"})
		}
	}
	return printRows(o.stdout, [2]string{"SETTING", "VALUE"}, shown)
}

// decodeDoc decodes the settings document, numbers as they are written.
func decodeDoc(body []byte) (map[string]any, error) {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("read the settings the bank answered: %w", err)
	}
	return doc, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // decoded JSON and text always encode
	}
	return b
}

// settingAt finds what key (NAME or NAME.MEMBER..., in any letter case)
// names in doc: the path as doc spells it (a member doc lacks as key
// spells it), its value, and whether doc has it. A part before the last
// that is not an object is an error.
func settingAt(doc map[string]any, key string) (path []string, value any, found bool, err error) {
	obj := doc
	parts := strings.Split(key, ".")
	for i, part := range parts {
		name, v, ok := member(obj, part)
		path = append(path, name)
		if !ok {
			if i < len(parts)-1 {
				return path, nil, false, fmt.Errorf("%s: %s is not a setting", key, strings.Join(path, "."))
			}
			return path, nil, false, nil
		}
		if i == len(parts)-1 {
			return path, v, true, nil
		}
		inner, isObject := v.(map[string]any)
		if !isObject {
			return path, nil, false, fmt.Errorf("%s: %s is not an object; write %s=VALUE", key, strings.Join(path, "."), strings.Join(path, "."))
		}
		obj = inner
	}
	return path, nil, false, nil
}

// member finds the member of obj that name names: the exact name first,
// else one in other letter case, as the bank reads a key.
func member(obj map[string]any, name string) (string, any, bool) {
	if v, ok := obj[name]; ok {
		return name, v, true
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if strings.EqualFold(k, name) {
			return k, obj[k], true
		}
	}
	return name, nil, false
}

// sibling is a value of the object that would hold path, whose type a new
// member takes (a new rate of fxRates is text like the others); nil when
// there is none.
func sibling(doc map[string]any, path []string) any {
	obj := doc
	for _, p := range path[:len(path)-1] {
		obj, _ = obj[p].(map[string]any)
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		return obj[k]
	}
	return nil
}

// settingValue is VALUE as JSON of the type of like, the value it
// replaces (nil: no value, or null).
func settingValue(key, text string, like any) (json.RawMessage, error) {
	t := strings.TrimSpace(text)
	isBool := t == "true" || t == "false"
	isNumber := t != "" && strings.ContainsRune("-0123456789", rune(t[0])) && json.Valid([]byte(t))
	switch {
	case t == "null":
		return json.RawMessage("null"), nil
	case strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{"):
		if !json.Valid([]byte(t)) {
			return nil, fmt.Errorf("%s: the value starts with %c but is not JSON; write a list comma separated, or JSON quoted for the shell, e.g. %s='[\"07:00\"]'", key, t[0], key)
		}
		return json.RawMessage(t), nil
	}
	switch like.(type) {
	case bool:
		if isBool {
			return json.RawMessage(t), nil
		}
	case json.Number:
		if isNumber {
			return json.RawMessage(t), nil
		}
	case []any:
		items := []string{}
		for _, s := range strings.Split(t, ",") {
			if s = strings.TrimSpace(s); s != "" {
				items = append(items, s)
			}
		}
		return mustJSON(items), nil
	case nil:
		if isBool || isNumber {
			return json.RawMessage(t), nil
		}
	}
	return mustJSON(t), nil
}

// putPath sets path in the merge patch to value; a path given before, or
// inside one given whole, is an error.
func putPath(patch map[string]any, path []string, value json.RawMessage) error {
	m := patch
	for i, p := range path[:len(path)-1] {
		next, ok := m[p]
		if !ok {
			inner := map[string]any{}
			m[p], m = inner, inner
			continue
		}
		if m, ok = next.(map[string]any); !ok {
			return fmt.Errorf("%s is given whole already", strings.Join(path[:i+1], "."))
		}
	}
	last := path[len(path)-1]
	if _, ok := m[last]; ok {
		return fmt.Errorf("given twice")
	}
	m[last] = value
	return nil
}

// under keeps the rows named by names or inside them.
func under(rows [][2]string, names []string) [][2]string {
	var out [][2]string
	for _, r := range rows {
		for _, n := range names {
			if r[0] == n || strings.HasPrefix(r[0], n+".") {
				out = append(out, r)
				break
			}
		}
	}
	return out
}
