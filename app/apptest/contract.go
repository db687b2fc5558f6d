package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// The contract check: every request a test sends through Bank.Send (and
// every SCA page the Browser loads) is looked up in the bank's own OpenAPI
// document, GET /v1/openapi.json, and its response is validated against
// the operation's schemas with kin-openapi. A request the bank accepted
// (2xx) is validated too, so the document cannot be stricter than the bank.
// A response that does not match, or a route the document lacks, fails
// the test that sent it.

var contract struct {
	once   sync.Once
	doc    *openapi3.T
	router routers.Router
	err    error
	// legacy routes to the same document read as OpenAPI 3.0: kin-openapi
	// validates a body by it with the 3.0 schema walker, which it falls
	// back to for such a body anyway after compiling the schema (plain).
	legacy routers.Router
	plain  sync.Map // *openapi3.Schema → whether plain

	mu   sync.Mutex
	seen map[string]bool // operationIds answered with their success status
}

func init() {
	for _, ct := range []string{"application/x-pem-file", "text/html", "text/css"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
	}
}

// loadContract fetches and parses the document once per test binary,
// from a bank of its own: a test's bank logs only what the test sent.
func loadContract(tb testing.TB) error {
	contract.once.Do(func() {
		// Start fails the test it runs in; the others are told so.
		contract.err = errors.New("the bank the contract's document is read from did not start")
		own := Start(tb, Options{})
		resp, err := http.Get(own.URL + "/v1/openapi.json")
		if err != nil {
			contract.err = err
			return
		}
		defer func() { _ = resp.Body.Close() }()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			contract.err = err
			return
		}
		if resp.StatusCode != http.StatusOK {
			contract.err = fmt.Errorf("GET /v1/openapi.json: %d %s", resp.StatusCode, data)
			return
		}
		contract.doc, contract.err = ParseContract(data)
		if contract.err == nil {
			contract.router, contract.err = gorillamux.NewRouter(contract.doc)
		}
		if contract.err == nil {
			contract.legacy, contract.err = legacyRouter(data)
		}
		contract.seen = map[string]bool{}
	})
	return contract.err
}

// ParseContract loads and validates an OpenAPI document.
func ParseContract(data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is not valid: %w", err)
	}
	return doc, nil
}

// legacyRouter routes to the document data read as OpenAPI 3.0.
func legacyRouter(data []byte) (routers.Router, error) {
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	doc.OpenAPI = "3.0.3"
	return gorillamux.NewRouter(doc)
}

// plain reports whether kin-openapi validates a value of schema with its
// OpenAPI 3.0 walker in a 3.1 document too: a schema that refers to
// others and has none of the keywords of JSON Schema 2020 that the walker
// lacks. kin-openapi compiles such a schema for JSON Schema 2020 at every
// value, then falls back to the walker (openapi3.useJSONSchema2020); the
// contract check validates it by the legacy router, with the walker
// alone.
func plain(schema *openapi3.SchemaRef) bool {
	if schema == nil || schema.Value == nil {
		return false
	}
	if p, ok := contract.plain.Load(schema.Value); ok {
		return p.(bool)
	}
	refs, newer := false, false
	_ = openapi3.NewSchemaRef("", schema.Value).WalkSubtree(func(_ string, ref *openapi3.SchemaRef) error {
		refs = refs || strings.HasPrefix(ref.Ref, "#/components/schemas/")
		v := ref.Value // the keywords of openapi3.schemaHasJSONSchema2020FallbackGuardKeyword
		newer = newer || v.Const != nil || len(v.PrefixItems) != 0 || v.Contains != nil ||
			len(v.PatternProperties) != 0 || len(v.DependentSchemas) != 0 || v.PropertyNames != nil ||
			v.UnevaluatedItems.Has != nil || v.UnevaluatedItems.Schema != nil ||
			v.UnevaluatedProperties.Has != nil || v.UnevaluatedProperties.Schema != nil ||
			v.If != nil || v.Then != nil || v.Else != nil ||
			len(v.DependentRequired) != 0 || len(v.Defs) != 0 || v.ContentSchema != nil
		return nil
	})
	p := refs && !newer
	contract.plain.Store(schema.Value, p)
	return p
}

// bodySchema returns the schema of content for a body of content type ct.
func bodySchema(content openapi3.Content, ct string) *openapi3.SchemaRef {
	if mt := content.Get(ct); mt != nil {
		return mt.Schema
	}
	return nil
}

// CheckResponse validates an answer that another client got (curl in the
// openssl tests) for method and path (with its query) on this bank.
func (b *Bank) CheckResponse(method, path string, status int, header http.Header, body []byte) {
	b.TB.Helper()
	req, err := http.NewRequest(method, b.URL+path, nil)
	if err != nil {
		b.TB.Fatal(err)
	}
	b.checkContract(req, nil, status, header, body)
}

// checkContract validates one answered request.
func (b *Bank) checkContract(req *http.Request, reqBody []byte, status int, header http.Header, body []byte) {
	if _, bench := b.TB.(*testing.B); bench {
		return // benchmarks measure the bank, not the check
	}
	b.TB.Helper()
	if err := loadContract(b.TB); err != nil {
		b.TB.Errorf("contract: %v", err)
		return
	}
	if err := validateExchange(req, reqBody, status, header, body); err != nil {
		b.TB.Errorf("contract: %s %s → %d: %v", req.Method, req.URL.Path, status, err)
	}
}

func validateExchange(req *http.Request, reqBody []byte, status int, header http.Header, body []byte) error {
	// The aliases answer like /v1; the document lists /v1.
	u := *req.URL
	for _, alias := range []string{"/api/v1/", "/api-sandbox/v1/"} {
		if rest, ok := strings.CutPrefix(u.Path, alias); ok {
			u.Path, u.RawPath = "/v1/"+rest, ""
		}
	}
	lookup := req.Clone(context.Background())
	lookup.URL = &u
	lookup.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, params, err := contract.router.FindRoute(lookup)
	if err != nil {
		var code struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal(body, &code)
		switch {
		case errors.Is(err, routers.ErrMethodNotAllowed) && status == http.StatusMethodNotAllowed:
			return nil
		case errors.Is(err, routers.ErrPathNotFound) && status == http.StatusNotFound && code.Code == "NOT_FOUND":
			return nil
		}
		return fmt.Errorf("the OpenAPI document has no operation for this request (%v)", err)
	}
	// legacy is the request's route in the legacy document, for a
	// plain body.
	legacy := func() (*openapi3filter.RequestValidationInput, error) {
		again := req.Clone(context.Background())
		again.URL = &u
		again.Body = io.NopCloser(bytes.NewReader(reqBody))
		route, params, err := contract.legacy.FindRoute(again)
		return &openapi3filter.RequestValidationInput{
			Request: again, PathParams: params, Route: route,
			Options: &openapi3filter.Options{MultiError: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		}, err
	}
	in := &openapi3filter.RequestValidationInput{
		Request: lookup, PathParams: params, Route: route,
		Options: &openapi3filter.Options{MultiError: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	}
	// What the bank accepted, the document must accept. Unsigned requests
	// pass only while requireSignature is off, which the document does
	// not describe.
	if status/100 == 2 && req.Header.Get("Signature") != "" {
		var requestBody *openapi3.RequestBody
		if rb := route.Operation.RequestBody; rb != nil && rb.Value != nil && plain(bodySchema(rb.Value.Content, req.Header.Get("Content-Type"))) {
			requestBody = rb.Value
		}
		in.Options.ExcludeRequestBody = requestBody != nil
		err := openapi3filter.ValidateRequest(context.Background(), in)
		if err == nil && requestBody != nil {
			var again *openapi3filter.RequestValidationInput
			if again, err = legacy(); err == nil {
				err = openapi3filter.ValidateRequestBody(context.Background(), again, again.Route.Operation.RequestBody.Value)
			}
		}
		if err != nil {
			return fmt.Errorf("the bank accepted a request the document refuses: %w", err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: status, Header: header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true},
	}
	response := route.Operation.Responses.Status(status)
	if response == nil {
		response = route.Operation.Responses.Default()
	}
	out.Options.ExcludeResponseBody = response != nil && response.Value != nil && plain(bodySchema(response.Value.Content, header.Get("Content-Type")))
	err = openapi3filter.ValidateResponse(context.Background(), out)
	if err == nil && out.Options.ExcludeResponseBody {
		var again *openapi3filter.RequestValidationInput
		if again, err = legacy(); err == nil {
			err = openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
				RequestValidationInput: again, Status: status, Header: header,
				Body:    io.NopCloser(bytes.NewReader(body)),
				Options: &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true},
			})
		}
	}
	if err != nil {
		return fmt.Errorf("the response does not match the document: %w", err)
	}
	// An operation the bank does not offer succeeds in refusing (405).
	notOffered := route.Operation.Extensions["x-sandbank-not-offered"] == true && status == http.StatusMethodNotAllowed
	if _, ok := route.Operation.Responses.Map()[fmt.Sprint(status)]; ok && (status/100 == 2 || notOffered) {
		contract.mu.Lock()
		contract.seen[route.Operation.OperationID] = true
		contract.mu.Unlock()
	}
	return nil
}

// UnexercisedOperations lists the documented operations that no test of
// this binary got a success answer from, sorted; none before the document
// was loaded.
func UnexercisedOperations() []string {
	contract.mu.Lock()
	defer contract.mu.Unlock()
	if contract.doc == nil {
		return nil
	}
	var out []string
	for _, item := range contract.doc.Paths.Map() {
		for _, op := range item.Operations() {
			if !contract.seen[op.OperationID] {
				out = append(out, op.OperationID)
			}
		}
	}
	sort.Strings(out)
	return out
}
