package psd2api_test

import (
	"crypto/x509"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"sandbank/app/apptest"
)

// TestMain runs the package's tests, then, on a full run, fails when a
// documented operation was never answered with success: every operation
// of the OpenAPI document is checked against a real response.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && !testing.Short() {
		if missing := apptest.UnexercisedOperations(); len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "the OpenAPI document has operations no test answered with success: %s\n", strings.Join(missing, ", "))
			code = 1
		}
	}
	os.Exit(code)
}

func TestOpenAPI_DocumentIsServedUnsignedAndValid(t *testing.T) {
	b, tpp := setup(t)
	for _, prefix := range []string{"/v1", "/api/v1", "/api-sandbox/v1"} {
		resp, err := http.Get(b.URL + prefix + "/openapi.json")
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
			t.Fatalf("%s/openapi.json: %d %s", prefix, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		doc, err := apptest.ParseContract(data)
		if err != nil {
			t.Fatal(err)
		}
		if doc.OpenAPI != "3.1.0" || !doc.IsOpenAPI31OrLater() {
			t.Fatalf("openapi %q", doc.OpenAPI)
		}
		ops := 0
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				ops++
				if op.OperationID == "" || op.Summary == "" || len(op.Tags) != 1 {
					t.Errorf("%s %s: id %q, summary %q, tags %v", method, path, op.OperationID, op.Summary, op.Tags)
				}
				signed := strings.HasPrefix(path, "/v1/") && path != "/v1/openapi.json"
				if !signed {
					continue
				}
				// Every signed operation names the signature headers and answers
				// the signature errors with the error body.
				for _, h := range []string{"X-Request-ID", "Signature", "TPP-Signature-Certificate"} {
					if p := op.Parameters.GetByInAndName("header", h); p == nil || !p.Required {
						t.Errorf("%s %s: header %s is not required", method, path, h)
					}
				}
				if op.RequestBody != nil && op.Parameters.GetByInAndName("header", "Digest") == nil {
					t.Errorf("%s %s: a body without Digest", method, path)
				}
				if r := op.Responses.Value("400"); r == nil || r.Ref != "#/components/responses/Error" {
					t.Errorf("%s %s: no 400 error body", method, path)
				}
			}
		}
		// Every route of the API: 83, the consent resource's 5, the
		// authorisation lists of the 3 payment services and of baskets,
		// the landing page (GET and HEAD), the request log's 4, plus the
		// document itself; the operator's 13 (settings, payments, baskets,
		// batch runs, grants, sessions and open authorisations), the
		// operator certificates; and the 19 Berlin Group operations the
		// bank does not offer (4, and 5 for each payment service).
		if ops != 132 {
			t.Errorf("%d operations", ops)
		}
	}
	// The same document is not served to a request that asks for XML only,
	// but an unsigned GET of it never needs a signature.
	r := b.Do(nil, "GET", "/v1/openapi.json", nil)
	if r.Status != 200 {
		t.Fatalf("unsigned: %d", r.Status)
	}
	_ = tpp
}

// TestOpenAPI_RemainingOperations answers the operations the feature tests
// do not reach with success: reading periodic and bulk payments and their
// authorisations, deleting a bulk payment, issuing a TPP certificate and
// the SCA page's style sheet, one account and one agreement.
func TestOpenAPI_RemainingOperations(t *testing.T) {
	b, tpp := setup(t)
	user := psuOf(b.Consent(tpp, t1Number, "", nil))
	var one struct {
		Account struct {
			ResourceID string           `json:"resourceId"`
			Balances   []map[string]any `json:"balances"`
		} `json:"account"`
	}
	r := get(b, tpp, user, "/v1/accounts/"+t1Brukskonto+"?withBalance=true")
	expect(t, r, 200, "")
	r.JSON(t, &one)
	if one.Account.ResourceID != t1Brukskonto || len(one.Account.Balances) != 3 {
		t.Fatalf("account %+v", one.Account)
	}
	var agreement struct {
		Owner   string `json:"owner"`
		Private bool   `json:"private"`
	}
	r = b.Do(tpp, "GET", "/v1/sandbox/agreements/"+f1Agreement, nil)
	expect(t, r, 200, "")
	r.JSON(t, &agreement)
	if agreement.Owner != f1Number || agreement.Private {
		t.Fatalf("agreement %+v", agreement)
	}
	day := onBankingMorning(t, b)

	periodic := "/v1/periodic-payments/norwegian-domestic-credit-transfers"
	body := ndct("500", ibanT1Bruk, ibanT1Spare)
	body["startDate"], body["frequency"] = day.String(), "Monthly"
	p := createPayment(t, b, tpp, periodic, body)
	expect(t, b.Do(tpp, "GET", periodic+"/"+p.PaymentID+"/authorisations/"+p.authID(), nil), 200, "")
	r = b.Do(tpp, "POST", periodic+"/"+p.PaymentID+"/authorisations", nil, payHeaders...)
	expect(t, r, 201, "")
	autoSCA(t, b, tpp, p.authID(), t1Number, "approve")
	var read struct {
		PaymentID         string `json:"paymentId"`
		Frequency         string `json:"frequency"`
		TransactionStatus string `json:"transactionStatus"`
	}
	r = b.Do(tpp, "GET", periodic+"/"+p.PaymentID, nil)
	expect(t, r, 200, "")
	r.JSON(t, &read)
	if read.PaymentID != p.PaymentID || read.Frequency != "Monthly" || read.TransactionStatus != "ACTC" {
		t.Fatalf("periodic payment read back as %+v", read)
	}

	bulk := "/v1/bulk-payments/norwegian-domestic-credit-transfers"
	item := map[string]any{"instructedAmount": map[string]string{"amount": "10", "currency": "NOK"}, "creditorAccount": map[string]string{"iban": ibanT1Spare}, "creditorName": "Mottaker"}
	c := createPayment(t, b, tpp, bulk, map[string]any{
		"debtorAccount": map[string]string{"iban": ibanT1Bruk}, "requestedExecutionDate": day.String(), "paymentInformationId": "B-1", "payments": []any{item, item},
	})
	expect(t, b.Do(tpp, "GET", bulk+"/"+c.PaymentID+"/authorisations/"+c.authID(), nil), 200, "")
	var bulkRead struct {
		Payments []map[string]any `json:"payments"`
	}
	r = b.Do(tpp, "GET", bulk+"/"+c.PaymentID, nil)
	expect(t, r, 200, "")
	r.JSON(t, &bulkRead)
	if len(bulkRead.Payments) != 2 {
		t.Fatalf("bulk read back with %d items", len(bulkRead.Payments))
	}
	expect(t, b.Do(tpp, "DELETE", bulk+"/"+c.PaymentID, nil), 204, "")
	wantStatus(t, b, tpp, bulk, c.PaymentID, "CANC")

	// A TPP certificate for a public key; the private key stays here.
	der, err := x509.MarshalPKIXPublicKey(&apptest.Key(t, 3).PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	var issued struct {
		Certificate string `json:"certificate"`
		TPPID       string `json:"tppId"`
	}
	r = b.Do(tpp, "POST", "/v1/sandbox/tpp-certificates", map[string]any{
		"name": "Regnskap AS", "organisationNumber": "923609016", "roles": []string{"PSP_AI"},
		"publicKey": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})),
	})
	expect(t, r, 201, "")
	r.JSON(t, &issued)
	if issued.TPPID != "NO-FSA-923609016" || !strings.Contains(issued.Certificate, "BEGIN CERTIFICATE") {
		t.Fatalf("issued %+v", issued)
	}

	css := b.Browser().Open(b.URL + "/sca/static/sandbank.css")
	if css.Status != 200 || !strings.HasPrefix(css.Header.Get("Content-Type"), "text/css") {
		t.Fatalf("style sheet: %d %s", css.Status, css.Header.Get("Content-Type"))
	}
}
