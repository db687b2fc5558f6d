package apptest

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// AtScale marks a test at scale: one whose point is volume, memory that
// stays flat as the records grow, a document of tens of MiB, or a
// century of days.
//
// Under the race detector the test is skipped. Its checks make every
// record and every byte several times slower, and its shadow memory is
// not the bank's: these tests run without -race, in a step of make test
// of their own (go test -run AtScale), while the paths they drive run
// under -race at a small scale in other tests. The step finds them by
// name, so a test that calls AtScale must say AtScale in its name.
func AtScale(tb testing.TB) {
	tb.Helper()
	if !strings.Contains(tb.Name(), "AtScale") {
		tb.Fatalf("%s is a test at scale: put AtScale in its name, so that make test's scale step (go test -run AtScale) runs it", tb.Name())
	}
	if raceDetector {
		tb.Skip("a test at scale: make test runs it without -race (go test -run AtScale)")
	}
}

// Records returns how many records a test at scale builds: the number in
// the environment variable env (1000000 for the runs of
// docs/BENCHMARKS.md), or else n.
func Records(tb testing.TB, env string, n int) int {
	tb.Helper()
	if v := os.Getenv(env); v != "" {
		m, err := strconv.Atoi(v)
		if err != nil || m < 1 {
			tb.Fatalf("%s=%q: give a number of records", env, v)
		}
		return m
	}
	return n
}

// HeapBudget is what a test of memory at scale lets the heap grow by
// while something streams size bytes: a quarter of them, or 32 MiB
// (what a batch being stored and the garbage not collected yet take)
// when that is more. Holding the stream whole takes more than either.
func HeapBudget(size int64) int64 { return max(size/4, 32<<20) }
