package psd2api

import (
	"bytes"
	"net/http"
	"strings"

	"sandbank/bank/reqlog"
)

// What never reaches a log (docs/SECURITY.md, "Secrets never reach a
// log"): the secret of an SCA page's address, a form token, and the values
// of Cookie and Set-Cookie. They are redacted where a request-log entry is
// recorded (finish), so that the Traffic screen, GET
// /v1/sandbox/requests, the HAR export and the debug log, which all read
// the entry, cannot show them; the rest of each URL stays, so the log
// still tells which authorisation it was. The client's own answer keeps
// them: only the log's copy is redacted.

// redacted stands where a secret was.
const redacted = "[redacted]"

// keepSecret notes secret values the request handled (an SCA page's
// secret, form token or cookie), to be redacted wherever the log entry
// would hold them.
func keepSecret(r *http.Request, values ...string) {
	st := stateOf(r)
	for _, v := range values {
		if v != "" {
			st.secrets = append(st.secrets, v)
		}
	}
}

// redact removes the request's secrets from a log entry: the noted
// values wherever they stand, the secret segment of an SCA page's path,
// and every cookie's value.
func redact(e *reqlog.Entry, secrets []string) {
	e.Path = redactSCAPath(e.Path)
	e.URL = redactSCAPath(e.URL)
	redactCookies(e.RequestHeader, "Cookie", redactCookieList)
	redactCookies(e.ResponseHeader, "Set-Cookie", redactSetCookie)
	if v := e.Verdict; v != nil && v.SigningString != "" {
		v.SigningString = redactSigningString(v.SigningString)
	}
	if len(secrets) == 0 {
		return
	}
	replace := func(s string) string {
		for _, secret := range secrets {
			s = strings.ReplaceAll(s, secret, redacted)
		}
		return s
	}
	e.Path, e.URL = replace(e.Path), replace(e.URL)
	for _, h := range []http.Header{e.RequestHeader, e.ResponseHeader} {
		for k, vs := range h {
			for i, v := range vs {
				vs[i] = replace(v)
			}
			h[k] = vs
		}
	}
	for _, body := range []*[]byte{&e.RequestBody, &e.ResponseBody} {
		for _, secret := range secrets {
			*body = bytes.ReplaceAll(*body, []byte(secret), []byte(redacted))
		}
	}
	if v := e.Verdict; v != nil {
		v.SigningString = replace(v.SigningString)
	}
}

// redactSCAPath redacts the secret segment of an SCA page's path,
// /sca/{id}/{secret}, in a path or URL, whether the secret was right or
// not: a guess is not logged either.
func redactSCAPath(s string) string {
	i := strings.Index(s, "/sca/")
	if i < 0 {
		return s
	}
	rest := s[i+len("/sca/"):]
	id, after, ok := strings.Cut(rest, "/")
	if !ok || id == "static" {
		return s
	}
	end := strings.IndexAny(after, "/?#")
	if end < 0 {
		end = len(after)
	}
	if end == 0 {
		return s
	}
	return s[:i] + "/sca/" + id + "/" + redacted + after[end:]
}

// redactCookies rewrites the values of header name in h with fn.
func redactCookies(h http.Header, name string, fn func(string) string) {
	vs := h.Values(name)
	for i, v := range vs {
		vs[i] = fn(v)
	}
}

// redactCookieList redacts the values of a Cookie header's pairs, keeping
// their names: "a=1; b=2" becomes "a=[redacted]; b=[redacted]".
func redactCookieList(v string) string {
	parts := strings.Split(v, ";")
	for i, p := range parts {
		if name, _, ok := strings.Cut(p, "="); ok {
			parts[i] = name + "=" + redacted
		}
	}
	return strings.Join(parts, ";")
}

// redactSetCookie redacts the value of a Set-Cookie header, keeping its
// name and attributes.
func redactSetCookie(v string) string {
	pair, attrs, _ := strings.Cut(v, ";")
	if name, _, ok := strings.Cut(pair, "="); ok {
		pair = name + "=" + redacted
	}
	if attrs != "" {
		return pair + ";" + attrs
	}
	return pair
}

// redactSigningString redacts the value of a cookie line of a signing
// string, should a client sign its Cookie header.
func redactSigningString(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if name, value, ok := strings.Cut(l, ": "); ok && strings.EqualFold(name, "cookie") {
			lines[i] = name + ": " + redactCookieList(value)
		}
	}
	return strings.Join(lines, "\n")
}
