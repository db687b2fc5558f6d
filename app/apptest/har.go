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
	var errs []string
	check := func(kind, at string, v any) map[string]any {
		obj, fails := checkHARObject(kind, at, v)
		errs = append(errs, fails...)
		return obj
	}
	check("log", "log", log)
	if log["version"] != "1.2" {
		errs = append(errs, fmt.Sprintf("log.version is %v, not 1.2", log["version"]))
	}
	check("creator", "log.creator", log["creator"])
	entries, _ := log["entries"].([]any)
	for i, raw := range entries {
		at := fmt.Sprintf("log.entries[%d]", i)
		e := check("entry", at, raw)
		if e == nil {
			continue
		}
		if s, _ := e["startedDateTime"].(string); s != "" {
			if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
				errs = append(errs, fmt.Sprintf("%s.startedDateTime %q is not ISO 8601: %v", at, s, err))
			}
		}
		req := check("request", at+".request", e["request"])
		if req != nil {
			if u, err := url.Parse(fmt.Sprint(req["url"])); err != nil || !u.IsAbs() || u.Host == "" {
				errs = append(errs, fmt.Sprintf("%s.request.url %v is not an absolute URL", at, req["url"]))
			}
			errs = append(errs, checkHARList("cookie", at+".request.cookies", req["cookies"])...)
			errs = append(errs, checkHARList("pair", at+".request.headers", req["headers"])...)
			errs = append(errs, checkHARList("pair", at+".request.queryString", req["queryString"])...)
			if pd, ok := req["postData"]; ok {
				p := check("postData", at+".request.postData", pd)
				if _, text := p["text"]; p != nil && !text {
					errs = append(errs, at+".request.postData has no text")
				}
			}
		}
		resp := check("response", at+".response", e["response"])
		if resp != nil {
			errs = append(errs, checkHARList("cookie", at+".response.cookies", resp["cookies"])...)
			errs = append(errs, checkHARList("pair", at+".response.headers", resp["headers"])...)
			check("content", at+".response.content", resp["content"])
		}
		check("cache", at+".cache", e["cache"])
		if t := check("timings", at+".timings", e["timings"]); t != nil {
			sum := 0.0
			for name, v := range t {
				n, ok := v.(float64)
				if !ok {
					continue
				}
				required := harObjects["timings"][name].required
				switch {
				case required && n < 0:
					errs = append(errs, fmt.Sprintf("%s.timings.%s is %v; send, wait and receive must not be negative", at, name, n))
				case n < -1:
					errs = append(errs, fmt.Sprintf("%s.timings.%s is %v, less than -1", at, name, n))
				case n >= 0:
					sum += n
				}
			}
			if total, _ := e["time"].(float64); math.Abs(total-sum) > 0.001 {
				errs = append(errs, fmt.Sprintf("%s.time is %v, not the sum of its timings %v", at, total, sum))
			}
		}
	}
	if len(errs) > 0 {
		tb.Fatalf("the HAR breaks HAR 1.2:\n%s", strings.Join(errs, "\n"))
	}
	return doc
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
