package apptest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The HAR 1.2 check: every object of a HAR file has the fields the spec
// requires (http://www.softwareishard.com/blog/har-12-spec/), of the
// spec's JSON types, and no field the spec does not know unless its name
// starts with an underscore (a custom field), as HAR importers such as
// the browsers' developer tools read it.

// harField is a field of a HAR object: its JSON type (string, number,
// boolean, array or object) and whether the spec requires it.
type harField struct {
	kind     string
	required bool
}

// harObjects are the objects of HAR 1.2 and their fields.
var harObjects = map[string]map[string]harField{
	"log": {"version": {"string", true}, "creator": {"object", true}, "browser": {"object", false},
		"pages": {"array", false}, "entries": {"array", true}, "comment": {"string", false}},
	"creator": {"name": {"string", true}, "version": {"string", true}, "comment": {"string", false}},
	"entry": {"pageref": {"string", false}, "startedDateTime": {"string", true}, "time": {"number", true},
		"request": {"object", true}, "response": {"object", true}, "cache": {"object", true}, "timings": {"object", true},
		"serverIPAddress": {"string", false}, "connection": {"string", false}, "comment": {"string", false}},
	"request": {"method": {"string", true}, "url": {"string", true}, "httpVersion": {"string", true},
		"cookies": {"array", true}, "headers": {"array", true}, "queryString": {"array", true}, "postData": {"object", false},
		"headersSize": {"number", true}, "bodySize": {"number", true}, "comment": {"string", false}},
	"response": {"status": {"number", true}, "statusText": {"string", true}, "httpVersion": {"string", true},
		"cookies": {"array", true}, "headers": {"array", true}, "content": {"object", true}, "redirectURL": {"string", true},
		"headersSize": {"number", true}, "bodySize": {"number", true}, "comment": {"string", false}},
	"cookie": {"name": {"string", true}, "value": {"string", true}, "path": {"string", false}, "domain": {"string", false},
		"expires": {"string", false}, "httpOnly": {"boolean", false}, "secure": {"boolean", false}, "comment": {"string", false}},
	"pair":     {"name": {"string", true}, "value": {"string", true}, "comment": {"string", false}},
	"postData": {"mimeType": {"string", true}, "params": {"array", false}, "text": {"string", false}, "comment": {"string", false}},
	"content": {"size": {"number", true}, "compression": {"number", false}, "mimeType": {"string", true},
		"text": {"string", false}, "encoding": {"string", false}, "comment": {"string", false}},
	"cache": {"beforeRequest": {"object", false}, "afterRequest": {"object", false}, "comment": {"string", false}},
	"timings": {"blocked": {"number", false}, "dns": {"number", false}, "connect": {"number", false},
		"send": {"number", true}, "wait": {"number", true}, "receive": {"number", true}, "ssl": {"number", false}, "comment": {"string", false}},
}

// CheckHAR fails the test unless data is a HAR 1.2 file as the spec
// describes it, and returns it decoded.
func CheckHAR(tb testing.TB, data []byte) map[string]any {
	tb.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		tb.Fatalf("the HAR is not JSON: %v", err)
	}
	log, ok := doc["log"].(map[string]any)
	if !ok {
		tb.Fatalf("the HAR has no log object: %.200s", data)
	}
	var h harCheck
	h.object("log", "log", log)
	if log["version"] != "1.2" {
		h.fail("log.version is %v, not 1.2", log["version"])
	}
	h.object("creator", "log.creator", log["creator"])
	entries, _ := log["entries"].([]any)
	for i, raw := range entries {
		h.entry(fmt.Sprintf("log.entries[%d]", i), raw)
	}
	if len(h.errs) > 0 {
		tb.Fatalf("the HAR breaks HAR 1.2:\n%s", strings.Join(h.errs, "\n"))
	}
	return doc
}

// harCheck gathers what a HAR file breaks.
type harCheck struct{ errs []string }

func (h *harCheck) fail(format string, args ...any) {
	h.errs = append(h.errs, fmt.Sprintf(format, args...))
}

// object checks one object of a kind at a place; nil when v is not one.
func (h *harCheck) object(kind, at string, v any) map[string]any {
	obj, fails := checkHARObject(kind, at, v)
	h.errs = append(h.errs, fails...)
	return obj
}

// entry checks one entry of the log: its start, request, response, cache
// and timings.
func (h *harCheck) entry(at string, raw any) {
	e := h.object("entry", at, raw)
	if e == nil {
		return
	}
	if s, _ := e["startedDateTime"].(string); s != "" {
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			h.fail("%s.startedDateTime %q is not ISO 8601: %v", at, s, err)
		}
	}
	if req := h.object("request", at+".request", e["request"]); req != nil {
		h.request(at+".request", req)
	}
	if resp := h.object("response", at+".response", e["response"]); resp != nil {
		h.errs = append(h.errs, checkHARList("cookie", at+".response.cookies", resp["cookies"])...)
		h.errs = append(h.errs, checkHARList("pair", at+".response.headers", resp["headers"])...)
		h.object("content", at+".response.content", resp["content"])
	}
	h.object("cache", at+".cache", e["cache"])
	if t := h.object("timings", at+".timings", e["timings"]); t != nil {
		h.timings(at, e, t)
	}
}

// request checks an entry's request: an absolute URL, its lists and its
// body.
func (h *harCheck) request(at string, req map[string]any) {
	if u, err := url.Parse(fmt.Sprint(req["url"])); err != nil || !u.IsAbs() || u.Host == "" {
		h.fail("%s.url %v is not an absolute URL", at, req["url"])
	}
	h.errs = append(h.errs, checkHARList("cookie", at+".cookies", req["cookies"])...)
	h.errs = append(h.errs, checkHARList("pair", at+".headers", req["headers"])...)
	h.errs = append(h.errs, checkHARList("pair", at+".queryString", req["queryString"])...)
	if pd, ok := req["postData"]; ok {
		p := h.object("postData", at+".postData", pd)
		if _, text := p["text"]; p != nil && !text {
			h.fail("%s.postData has no text", at)
		}
	}
}

// timings checks an entry's timings: send, wait and receive not negative,
// the others -1 when not known, and the entry's time their sum.
func (h *harCheck) timings(at string, e, t map[string]any) {
	sum := 0.0
	for name, v := range t {
		n, ok := v.(float64)
		if !ok {
			continue
		}
		required := harObjects["timings"][name].required
		switch {
		case required && n < 0:
			h.fail("%s.timings.%s is %v; send, wait and receive must not be negative", at, name, n)
		case n < -1:
			h.fail("%s.timings.%s is %v, less than -1", at, name, n)
		case n >= 0:
			sum += n
		}
	}
	if total, _ := e["time"].(float64); math.Abs(total-sum) > 0.001 {
		h.fail("%s.time is %v, not the sum of its timings %v", at, total, sum)
	}
}

// checkHARObject checks one object of a kind; it returns the object, nil
// when v is not one.
func checkHARObject(kind, at string, v any) (map[string]any, []string) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, []string{fmt.Sprintf("%s is %T, not an object", at, v)}
	}
	var errs []string
	fields := harObjects[kind]
	for name, f := range fields {
		val, ok := obj[name]
		if !ok {
			if f.required {
				errs = append(errs, fmt.Sprintf("%s has no %s", at, name))
			}
			continue
		}
		if got := jsonKind(val); got != f.kind {
			errs = append(errs, fmt.Sprintf("%s.%s is a %s, not a %s", at, name, got, f.kind))
		}
	}
	for name := range obj {
		if _, known := fields[name]; !known && !strings.HasPrefix(name, "_") {
			errs = append(errs, fmt.Sprintf("%s.%s is not a HAR 1.2 field; a custom field starts with _", at, name))
		}
	}
	return obj, errs
}

// checkHARList checks an array of objects of a kind.
func checkHARList(kind, at string, v any) []string {
	list, ok := v.([]any)
	if !ok {
		return []string{fmt.Sprintf("%s is %T, not an array", at, v)}
	}
	var errs []string
	for i, item := range list {
		_, fails := checkHARObject(kind, fmt.Sprintf("%s[%d]", at, i), item)
		errs = append(errs, fails...)
	}
	return errs
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}
