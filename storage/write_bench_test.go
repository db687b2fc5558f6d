package storage

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"sandbank/bank"
	"sandbank/bank/scenario"
)

// benchClock is a clock that stands still, on a banking day.
type benchClock struct{ t time.Time }

func (c benchClock) Now() time.Time { return c.t }

// BenchmarkPaymentWrites creates NDCT payments through the bank, straight
// over a data file in the known state (no HTTP, no signatures), from one
// and from 32 goroutines, each commit synced as the bank always does. It
// reports the pages written (bbolt's TxStats.Write, which counts the meta
// page too) and the commits per payment, and the payments per second.
func BenchmarkPaymentWrites(b *testing.B) {
	for _, clients := range []int{1, 32} {
		b.Run(fmt.Sprint("clients-", clients), func(b *testing.B) {
			db, err := Open(filepath.Join(b.TempDir(), "sandbank.db"), time.Second)
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = db.Close() }()
			s := bank.New(db, benchClock{time.Date(2026, 11, 20, 10, 30, 0, 0, bank.Oslo)})
			if _, err := scenario.Initialize(s.Sandbox); err != nil {
				b.Fatal(err)
			}
			text := "Husleie"
			in := bank.PaymentInit{
				TPPID: "NO-FSA-933012867", Service: bank.ServiceSingle, Product: bank.ProductNDCT,
				RedirectURI: "https://tpp.example/cb", SessionID: "s", AllowDuplicate: true,
				Body: bank.PaymentRequest{
					InstructedAmount: &bank.AmountIn{Amount: bank.AmountText{Text: "100.00"}, Currency: "NOK"},
					CreditorAccount:  &bank.AccountIn{IBAN: "NO3815030123457"}, CreditorName: "Utleier AS",
					DebtorAccount: &bank.AccountIn{IBAN: "NO1615030123465"}, RemittanceInformationUnstructured: &text,
				},
			}
			create := func(n int) {
				var wg sync.WaitGroup
				for c := range clients {
					wg.Go(func() {
						for i := c; i < n; i += clients {
							if _, err := s.PSD2.CreatePayment(in); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
			}
			create(1000) // the buckets as they are after a while
			n := 0
			lastTx := func() int {
				id := 0
				_ = db.bolt().View(func(tx *bolt.Tx) error { id = tx.ID(); return nil })
				return id
			}
			before, tx0 := db.bolt().Stats(), lastTx()
			start := time.Now()
			for b.Loop() {
				create(clients * 10)
				n += clients * 10
			}
			took := time.Since(start)
			after := db.bolt().Stats()
			d := after.Sub(&before)
			b.ReportMetric(float64(d.TxStats.GetWrite())/float64(n), "pages/payment")
			b.ReportMetric(float64(lastTx()-tx0)/float64(n), "commits/payment")
			b.ReportMetric(float64(n)/took.Seconds(), "payments/s")
		})
	}
}
