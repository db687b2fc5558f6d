package apptest

import (
	"os"
	"strconv"
	"testing"
)

// Scaled returns how many records a test of memory at scale builds: the
// number in the environment variable env (1000000 for the runs of
// docs/BENCHMARKS.md), or else n, halved under the race detector, whose
// checks make every record several times slower.
func Scaled(tb testing.TB, env string, n int) int {
	tb.Helper()
	if v := os.Getenv(env); v != "" {
		m, err := strconv.Atoi(v)
		if err != nil || m < 1 {
			tb.Fatalf("%s=%q: give a number of records", env, v)
		}
		return m
	}
	if raceDetector {
		return n / 2
	}
	return n
}

// HeapBudget is what a test of memory at scale lets the heap grow by
// while something streams size bytes: a quarter of them, or 32 MiB
// (what a batch being stored and the garbage not collected yet take)
// when that is more. Holding the stream whole takes more than either.
func HeapBudget(size int64) int64 { return max(size/4, 32<<20) }
