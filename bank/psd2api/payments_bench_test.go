package psd2api_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank/pki"
)

// BenchmarkPaymentCreation measures signed NDCT payment initiations over
// loopback: validation, the duplicate check, the payment and its
// authorisation stored in one fsynced transaction, and the signed answer.
// The same signed request is re-sent with allowLogicalDuplicate=true.
func BenchmarkPaymentCreation(b *testing.B) {
	bk := apptest.Start(b, apptest.Options{})
	tpp := bk.NewTPP("933012867", 0, pki.RolePI)
	body, _ := json.Marshal(ndct("100.00", ibanT1Bruk, ibanT2Bruk))
	req := bk.Request("POST", ndctPath+"?allowLogicalDuplicate=true", body, payHeaders...)
	if err := tpp.Signer.SignRequest(req, body); err != nil {
		b.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.Run("one-client", func(b *testing.B) {
		timed(b, client, req, body, 201)
	})
	b.Run("throughput-32-clients", func(b *testing.B) {
		const clients, d = 32, 3 * time.Second
		helloReq, _ := http.NewRequest("GET", helloServer(b)+"/", nil)
		var hello, create float64
		for b.Loop() {
			var err error
			if hello, err = load(client, helloReq, nil, 200, clients, d); err != nil {
				b.Fatal(err)
			}
			if create, err = load(client, req, body, 201, clients, d); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(hello, "hello-req/s")
		b.ReportMetric(create, "create-req/s")
		b.ReportMetric(100*create/hello, "create-%-of-hello")
	})
}
