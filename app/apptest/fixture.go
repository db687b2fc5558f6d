package apptest

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"sandbank/bank"
	"sandbank/bank/scenario"
	"sandbank/storage"
)

// FixtureIBAN is the known-state account that a fixture fills.
const FixtureIBAN = "NO3815030123457"

// BigFixture returns a data file in the known state whose account
// FixtureIBAN holds n extra booked transactions over the last three years.
// Building it takes about 10 seconds per million transactions; benchmarks
// build it once, outside the timed sub-benchmarks.
func BigFixture(tb testing.TB, n int) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "sandbank.db")
	start := time.Now()
	if err := buildFixture(path, n); err != nil {
		tb.Fatalf("build fixture: %v", err)
	}
	tb.Logf("built a fixture of %d transactions in %s", n, time.Since(start).Round(time.Millisecond))
	return path
}

func buildFixture(path string, n int) error {
	db, err := storage.Open(path, time.Second)
	if err != nil {
		return err
	}
	s := bank.New(db, bank.SystemClock{})
	if _, err := scenario.Initialize(s.Sandbox); err != nil {
		_ = db.Close()
		return err
	}
	var acct bank.Account
	if err := db.View(func(tx bank.Tx) error {
		var err error
		acct, err = tx.AccountByIBAN(FixtureIBAN)
		return err
	}); err != nil {
		_ = db.Close()
		return err
	}
	acctSeq, _ := bank.SeqOf(bank.KindAccount, acct.ID)
	today := bank.DateOf(time.Now())
	const batch = 50_000
	for done := 0; done < n; done += batch {
		err := db.Update(func(tx bank.Tx) error {
			txs := make([]bank.Transaction, 0, batch)
			for i := done; i < min(n, done+batch); i++ {
				seq, err := tx.NextSeq(bank.KindTransaction)
				if err != nil {
					return err
				}
				date := today.AddDays(-1 - (n-1-i)*1095/n) // oldest first, over three years
				t := bank.Transaction{
					ID: bank.FormatID(bank.KindTransaction, acctSeq, seq), Amount: decimal.New(-int64(1000+i%90000), -2),
					Currency: "NOK", BookingDate: date, ValueDate: date,
					RemittanceInformationUnstructured: fmt.Sprintf("Varekjøp %d", i),
					CreditorName:                      "REMA 1000", CreditorAccount: bank.AccountRef{IBAN: "NO9386011117947"},
					DebtorName: "Test Testperson 1", DebtorAccount: bank.AccountRef{IBAN: acct.IBAN, BBAN: acct.BBAN},
					BankTransactionCode: "PMNT-CCRD-POSD",
				}
				if i%3 == 0 {
					t.Amount = decimal.New(int64(5000+i%700000), -2)
					t.CreditorName, t.DebtorName = t.DebtorName, "Vipps"
					t.CreditorAccount, t.DebtorAccount = t.DebtorAccount, bank.AccountRef{IBAN: "NO9386011117947"}
				}
				txs = append(txs, t)
			}
			return tx.PutTransactions(acct.ID, txs)
		})
		if err != nil {
			_ = db.Close()
			return err
		}
	}
	return db.Close()
}
