package bank_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/scenario"
	"sandbank/storage"
)

// timeTravelBank is a bank over a data file at path with 1,000 pending
// payments (authorised, executing on days spread over the next year) and
// a daily standing order, on the sandbox clock's testNow.
func timeTravelBank(tb testing.TB, path string) (*bank.Bank, *storage.DB) {
	tb.Helper()
	db, err := storage.Open(path, time.Second)
	if err != nil {
		tb.Fatal(err)
	}
	db.SetNoSync(true) // building: a crash here loses nothing that matters
	s := bank.New(db, fixedClock{testNow})
	if _, err := scenario.Initialize(s.Sandbox); err != nil {
		tb.Fatal(err)
	}
	from, to := fundedPair(tb, s, 100_000_000)
	pay := func(service, date string, i int) {
		tb.Helper()
		remittance := fmt.Sprint("Betaling ", i)
		in := bank.PaymentInit{
			TPPID: "NO-FSA-933012867", Service: service, Product: bank.ProductNDCT, AllowDuplicate: true,
			RedirectURI: "https://tpp.example/cb", SessionID: "s",
			Body: bank.PaymentRequest{
				InstructedAmount: &bank.AmountIn{Amount: bank.AmountText{Text: fmt.Sprint(10 + i%500)}, Currency: "NOK"},
				DebtorAccount:    &bank.AccountIn{IBAN: from.IBAN}, CreditorAccount: &bank.AccountIn{IBAN: to.IBAN},
				CreditorName: "Mottaker", RemittanceInformationUnstructured: &remittance, RequestedExecutionDate: &date,
			},
		}
		if service == bank.ServicePeriodic {
			in.Body.RequestedExecutionDate, in.Body.StartDate, in.Body.Frequency = nil, date, "Daily"
		}
		created, err := s.PSD2.CreatePayment(in)
		if err != nil {
			tb.Fatalf("payment %d: %v", i, err)
		}
		if _, err := s.PSD2.AutomatedSCA("NO-FSA-933012867", created.Authorisation.ID, bank.AutoSCA{NationalID: from.Owner.Number, Decision: "approve"}); err != nil {
			tb.Fatalf("SCA of payment %d: %v", i, err)
		}
	}
	today := bank.DateOf(testNow)
	pay(bank.ServicePeriodic, today.String(), 0)
	for i := 1; i <= 1000; i++ {
		pay(bank.ServiceSingle, today.AddDays(1+i%360).String(), i)
	}
	db.SetNoSync(false)
	// The schedule starts now, as the scheduler starts it when the bank
	// starts.
	if _, err := s.Ops.RunDueBatches(); err != nil {
		tb.Fatal(err)
	}
	return s, db
}

// changedPages counts the 4 KiB pages in which two versions of a file
// differ, and the pages one has beyond the other.
func changedPages(a, b []byte) int {
	const page = 4096
	n := 0
	for off := 0; off < max(len(a), len(b)); off += page {
		pa, pb := a[min(off, len(a)):min(off+page, len(a))], b[min(off, len(b)):min(off+page, len(b))]
		if !bytes.Equal(pa, pb) {
			n++
		}
	}
	return n
}

// A jump of 100 years does work in proportion to the payments that come
// due, not to the days passed, and saves where the schedule stands, so a
// restart after it has nothing to catch up and writes almost nothing.
// The limits are generous, for 2 busy cores: the figures are in docs/BENCHMARKS.md
// (BenchmarkBatch_CenturyJump).
func TestBatch_CenturyJumpIsCheapAndNotRepeatedAtRestartAtScale(t *testing.T) {
	apptest.AtScale(t)
	path := filepath.Join(t.TempDir(), "sandbank.db")
	s, db := timeTravelBank(t, path)
	start := time.Now()
	if _, err := s.Ops.JumpClock(36500); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	list, err := s.Ops.Payments(bank.PaymentFilter{Status: bank.StatusACSC, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if list.Total != 1000 {
		t.Fatalf("%d payments settled, want 1000", list.Total)
	}
	t.Logf("a jump of 100 years with 1,000 pending payments and a daily standing order took %s", took)
	// Only a guard against a jump that does work for each day passed
	// (hours even on a free core); what it costs is the benchmark's.
	if took > 5*time.Minute {
		t.Fatalf("the jump took %s", took)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	// A restart: open the file, catch up as the scheduler does at start,
	// close.
	written := bytesWritten(t)
	db, err = storage.Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s = bank.New(db, fixedClock{testNow})
	start = time.Now()
	runs, err := s.Ops.RunDueBatches()
	if err != nil {
		t.Fatal(err)
	}
	restart := time.Since(start)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	written = bytesWritten(t) - written
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pages := changedPages(before, after)
	t.Logf("the restart's catch-up made %d runs in %s, wrote %d KiB and changed %d pages (%d KiB) of the data file", len(runs), restart, written>>10, pages, pages*4)
	if len(runs) != 0 || written >= 1<<20 || pages*4096 >= 1<<20 {
		t.Fatalf("a restart after the jump made %d runs, wrote %d KiB and changed %d KiB", len(runs), written>>10, pages*4)
	}
}

// bytesWritten is how many bytes this process has written so far, by
// every write call (Linux's /proc/self/io wchar): the data file's writes,
// whether or not they change its pages. Elsewhere it is 0.
func bytesWritten(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	return 0
}

// BenchmarkBatch_CenturyJump measures a jump of 100 years over 1,000
// pending payments and a daily standing order.
func BenchmarkBatch_CenturyJump(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		s, db := timeTravelBank(b, filepath.Join(b.TempDir(), "sandbank.db"))
		b.StartTimer()
		if _, err := s.Ops.JumpClock(36500); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		_ = db.Close()
	}
}
