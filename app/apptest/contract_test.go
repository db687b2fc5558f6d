package apptest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestContract_RefusesWhatTheDocumentRefuses: the contract check finds a
// body that breaks its schema, both where it validates the body with
// kin-openapi's 3.0 walker (a schema with $refs and no keyword of JSON
// Schema 2020, plain) and where it compiles the schema for JSON Schema
// 2020 (const), in a response and in a request the bank accepted; the
// bodies as the bank sent them pass.
func TestContract_RefusesWhatTheDocumentRefuses(t *testing.T) {
	b := Start(t, Options{})
	if err := loadContract(t); err != nil {
		t.Fatal(err)
	}
	op := b.Operator()
	check := func(name string, resp Response, method, path string, reqBody []byte, from, to string, plainBody bool) {
		t.Helper()
		req := b.Request(method, path, reqBody)
		if err := op.Signer.SignRequest(req, reqBody); err != nil { // signed: its body is checked too
			t.Fatal(err)
		}
		if err := validateExchange(req, reqBody, resp.Status, resp.Header, resp.Body); err != nil {
			t.Fatalf("%s as the bank answered: %v", name, err)
		}
		route, _, err := contract.router.FindRoute(req)
		if err != nil {
			t.Fatal(err)
		}
		var schema bool
		if reqBody != nil {
			schema = plain(bodySchema(route.Operation.RequestBody.Value.Content, "application/json"))
		} else {
			schema = plain(bodySchema(route.Operation.Responses.Status(resp.Status).Value.Content, resp.Header.Get("Content-Type")))
		}
		if schema != plainBody {
			t.Fatalf("%s: plain %v, want %v", name, schema, plainBody)
		}
		var compact bytes.Buffer // the same body, without the spaces the bank writes
		if err := json.Compact(&compact, resp.Body); err != nil {
			t.Fatal(err)
		}
		body, sent := compact.Bytes(), reqBody
		if reqBody != nil {
			sent = bytes.Replace(reqBody, []byte(from), []byte(to), 1)
		} else {
			body = bytes.Replace(body, []byte(from), []byte(to), 1)
		}
		if bytes.Equal(body, compact.Bytes()) && bytes.Equal(sent, reqBody) {
			t.Fatalf("%s: %q is not in the body", name, from)
		}
		err = validateExchange(req, sent, resp.Status, resp.Header, body)
		if err == nil || !strings.Contains(err.Error(), "document") {
			t.Fatalf("%s with %s for %s: %v, want a finding", name, to, from, err)
		}
	}

	customers := b.Do(op, "GET", "/v1/sandbox/customers", nil)
	check("a list of customers", customers, "GET", "/v1/sandbox/customers", nil, `"customerType":"PRIVATE"`, `"customerType":5`, true)

	health := b.Do(nil, "GET", "/healthz", nil)
	check("the health answer", health, "GET", "/healthz", nil, `"status":"ok"`, `"status":"fine"`, false)

	refused := b.Do(op, "GET", "/v1/sandbox/customers/nobody", nil)
	check("an error", refused, "GET", "/v1/sandbox/customers/nobody", nil, `"system":"sandbank"`, `"system":"other"`, false)

	customer := map[string]string{"customerNumber": "55555555555", "name": "Contract Check", "type": "private"}
	sent, err := json.Marshal(customer)
	if err != nil {
		t.Fatal(err)
	}
	created := b.Do(op, "POST", "/v1/sandbox/customers", customer)
	if created.Status != http.StatusCreated {
		t.Fatalf("create a customer: %d %s", created.Status, created.Body)
	}
	check("a new customer", created, "POST", "/v1/sandbox/customers", sent, `"type":"private"`, `"type":5`, false)

	var accounts []struct {
		ID   string `json:"id"`
		IBAN string `json:"iban"`
	}
	b.Do(op, "GET", "/v1/sandbox/accounts", nil).JSON(t, &accounts)
	if len(accounts) == 0 {
		t.Fatal("no accounts")
	}
	path := "/v1/sandbox/accounts/" + accounts[0].ID + "/transactions"
	sent = []byte(`[{"amount":12.5,"currency":"NOK","bookingDate":"2026-01-02","valueDate":"2026-01-02",` +
		`"remittanceInformationUnstructured":"Faktura 1001","creditorId":"","creditorName":"Kreditor AS",` +
		`"creditorAccount":{"bban":"86011117947"},"ultimateCreditor":"","debtorName":"Debitor","debtorAccount":{"iban":"` + accounts[0].IBAN + `"},` +
		`"ultimateDebtor":"","purposeCode":"OTHR","bankTransactionCode":"PMNT-ICDT-ESCT"}]`)
	added := b.Do(op, "POST", path, sent)
	if added.Status != http.StatusCreated {
		t.Fatalf("add a transaction: %d %s", added.Status, added.Body)
	}
	check("a new transaction", added, "POST", path, sent, `"amount":12.5`, `"amount":"twelve"`, true)
}
