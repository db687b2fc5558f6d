package psd2api

import (
	"net/http"
	"strings"
	"testing"
)

// A route without an entry in the operations table cannot be served
// undocumented: the document fails to build and says which route.
func TestOpenAPIDocument_RefusesAnUndocumentedRoute(t *testing.T) {
	s := &server{}
	routes := append(s.routes(), route{"GET /v1/sandbox/undocumented", http.NotFoundHandler()})
	if _, err := openAPIDocument(routes); err == nil || !strings.Contains(err.Error(), `"GET /v1/sandbox/undocumented"`) {
		t.Fatalf("err = %v", err)
	}
	if _, err := openAPIDocument(s.routes()); err != nil {
		t.Fatal(err)
	}
	// And the table documents no route that is gone.
	served := map[string]bool{}
	for _, rt := range s.routes() {
		served[rt.pattern] = true
	}
	for pattern := range operations {
		if !served[pattern] {
			t.Errorf("the operations table documents %q, which no route serves", pattern)
		}
	}
}
