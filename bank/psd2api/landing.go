package psd2api

import (
	"html/template"
	"net/http"
	"strings"
)

// landing is the answer of GET / and HEAD /: what this is, its version and
// where to go next. Readiness checks poll it.
type landing struct {
	Name          string          `json:"name"`
	Version       string          `json:"version"`
	Description   string          `json:"description"`
	Documentation string          `json:"documentation"`
	Links         map[string]link `json:"_links"`
}

var landingPage = template.Must(template.New("landing").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Name}}</title></head>
<body><h1>{{.Name}} {{.Version}}</h1>
<p>{{.Description}}</p>
<ul>
<li><a href="{{(index .Links "openapi").Href}}">The OpenAPI document</a></li>
<li><a href="{{(index .Links "health").Href}}">Health</a></li>
<li><a href="{{(index .Links "api").Href}}">The signed API under /v1</a></li>
</ul>
<p>{{.Documentation}}</p>
</body></html>
`))

// root answers GET / and HEAD /, unsigned: JSON, or HTML for a browser
// that asks for it.
func (s *server) root(w http.ResponseWriter, r *http.Request) {
	l := landing{
		Name: "Sandbank", Version: s.Version,
		Description:   "A Norwegian bank's PSD2 interface (Berlin Group NextGenPSD2 1.3) on your machine, with a sandbox data API. Every /v1 request is signed.",
		Documentation: "README.md and docs/TPP-GUIDE.md of the Sandbank distribution: how to point a TPP at the bank and sign a request.",
		Links: map[string]link{
			"openapi": linkTo("/v1/openapi.json", "GET"), "health": linkTo("/healthz", "GET"), "api": linkTo("/v1", "GET"),
		},
	}
	if prefersHTML(r.Header.Values("Accept")) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_ = landingPage.Execute(w, l) // the recorder buffers; writing cannot fail
		return
	}
	writeJSON(w, http.StatusOK, l)
}

// prefersHTML reports whether an Accept header asks for HTML before JSON,
// as a browser's does.
func prefersHTML(values []string) bool {
	for _, v := range strings.Split(strings.Join(values, ","), ",") {
		switch mt, _, _ := strings.Cut(strings.TrimSpace(v), ";"); strings.TrimSpace(mt) {
		case "text/html", "application/xhtml+xml":
			return true
		case "application/json", "*/*":
			return false
		}
	}
	return false
}
