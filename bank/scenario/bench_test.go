package scenario_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"sandbank/bank"
	"sandbank/bank/scenario"
)

// millionFile returns a scenario file with 1,000,000 transactions: the
// known state's export with 250,000 more on each of its first four
// accounts, each with every field a real one has. SANDBANK_SCENARIO_FILE
// names the file to use, written first when it does not exist, so that
// the before and after runs of docs/BENCHMARKS.md read the same file.
func millionFile(b *testing.B, s *bank.Bank) string {
	b.Helper()
	path := os.Getenv("SANDBANK_SCENARIO_FILE")
	if path == "" {
		path = filepath.Join(b.TempDir(), "million.json")
	}
	if _, err := os.Stat(path); err == nil {
		return path
	}
	sc, err := scenario.ExportScenario(s.Sandbox, "1,000,000 transactions on four accounts")
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	write := func(parts ...any) {
		for _, p := range parts {
			var err error
			if s, ok := p.(raw); ok {
				_, err = w.WriteString(string(s))
			} else {
				var data []byte
				if data, err = json.Marshal(p); err == nil {
					_, err = w.Write(data)
				}
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	write(raw(`{"format":`), sc.Format, raw(`,"note":`), sc.Note, raw(`,"customers":`), sc.Customers, raw(`,"accounts":[`))
	for i, a := range sc.Accounts {
		if i > 0 {
			write(raw(","))
		}
		txs := a.Transactions
		a.Transactions = nil
		header, err := json.Marshal(a)
		if err != nil {
			b.Fatal(err)
		}
		write(raw(header[:len(header)-1]), raw(`,"transactions":[`))
		for j, t := range txs {
			if j > 0 {
				write(raw(","))
			}
			write(t)
		}
		if i < 4 {
			writeGenerated(write, a, len(txs) > 0, perAccount(b))
		}
		write(raw("]}"))
	}
	write(raw(`],"cardAccounts":`), sc.CardAccounts, raw(`,"agreements":`), sc.Agreements, raw(`,"clock":`), sc.Clock, raw(`,"settings":`), sc.Settings, raw("}"))
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// perAccount is how many transactions millionFile adds to each of four
// accounts: 250,000, or a quarter of SANDBANK_SCENARIO_TRANSACTIONS.
func perAccount(b *testing.B) int {
	n := 1_000_000
	if v := os.Getenv("SANDBANK_SCENARIO_TRANSACTIONS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	return n / 4
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// raw is JSON text to write as it is.
type raw string

// writeGenerated writes n booked transactions of account a, with ids,
// 300 a day back from the day before the test clock's: newest first, as
// an export lists them, or oldest first with
// SANDBANK_SCENARIO_OLDEST_FIRST set.
func writeGenerated(write func(...any), a scenario.Account, comma bool, n int) {
	seq, _ := bank.SeqOf(bank.KindAccount, a.ID)
	text := func(s string) *string { return &s }
	day := testNow.AddDate(0, 0, -1)
	oldestFirst := os.Getenv("SANDBANK_SCENARIO_OLDEST_FIRST") != ""
	for k := range n {
		if comma || k > 0 {
			write(raw(","))
		}
		j := k // days back
		if oldestFirst {
			j = n - 1 - k
		}
		date := day.AddDate(0, 0, -j/300).Format(time.DateOnly)
		t := scenario.Transaction{ID: bank.FormatID(bank.KindTransaction, seq, uint64(1_000_000+j)), NewTransaction: bank.NewTransaction{
			Amount: bank.NumberOf(decimal.New(-int64(1000+j%90000), -2)), Currency: a.Currency, ValueDate: date, BookingDate: date,
			RemittanceInformationUnstructured: text(fmt.Sprintf("Varekjøp %d", j)), CreditorID: text(""), CreditorName: text("REMA 1000"),
			CreditorAccount: &bank.AccountRef{IBAN: "NO9098393368403", BBAN: "98393368403"}, UltimateCreditor: text(""),
			DebtorName: text(a.AccountName), DebtorAccount: &bank.AccountRef{IBAN: a.IBAN, BBAN: a.BBAN}, UltimateDebtor: text(""),
			PurposeCode: text(""), BankTransactionCode: "PMNT-CCRD-POSD", EndToEndID: fmt.Sprintf("E2E%08d%08d", seq, j),
		}}
		write(t)
	}
}

// BenchmarkImport_Million imports a scenario file of
// 1,000,000 transactions as a stream, as the window's Load does, into a
// data file in the known state. Run it once under /usr/bin/time -v for
// the peak memory (docs/BENCHMARKS.md).
func BenchmarkImport_Million(b *testing.B) {
	s, db := newBank(b)
	path := millionFile(b, s)
	runtime.GC()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		start, cpu := time.Now(), cpuTime(b)
		n, err := scenario.Import(s.Sandbox, f)
		_ = f.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/import")
		b.ReportMetric((cpuTime(b) - cpu).Seconds(), "s-cpu/import")
		b.ReportMetric(float64(n.Transactions), "transactions")
	}
	info, err := os.Stat(db.Path())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(info.Size()>>20), "MiB-file")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys>>20), "MiB-heap-sys")
}

// BenchmarkSummarise lists a scenario of 20,000 generated transactions,
// as the scenarios folder does (docs/BENCHMARKS.md).
func BenchmarkSummarise(b *testing.B) {
	s, _ := newBank(b)
	accounts, err := s.Sandbox.Accounts()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Sandbox.GenerateTransactions(context.Background(), accounts[0].ID, "everyday", 20_000, nil); err != nil {
		b.Fatal(err)
	}
	var doc bytes.Buffer
	if err := scenario.Write(s.Sandbox, &doc, "", ""); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(doc.Len()))
	b.ReportAllocs()
	for b.Loop() {
		f, err := scenario.Summarise(bytes.NewReader(doc.Bytes()))
		if err != nil || f.Counts.Transactions < 20_000 {
			b.Fatal(err, f.Counts)
		}
	}
}
