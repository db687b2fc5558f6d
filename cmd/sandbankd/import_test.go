package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"sandbank/app/apptest"
)

// maxImportResident is the most resident memory an import may take,
// whatever the scenario: 300 MB.
const maxImportResident = 300_000_000

// TestScenarioLoad_MemoryIsBoundedWhateverTheBody sends scenarios built to
// exhaust memory through the real binary, with scenario load: to a running
// bank over HTTP, and into the data file by the command itself. The
// bank's peak resident set (VmHWM, or the command's maximum resident set)
// stays under 300 MB, every refusal leaves the data file as it was, and
// the 2,000,000 duplicate keys get a short answer. The huge values are
// 40 MiB; SANDBANK_IMPORT_MIB=200 makes them 200 MiB, as in
// docs/BENCHMARKS.md.
func TestScenarioLoad_MemoryIsBoundedWhateverTheBody(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to read the peak resident set")
	}
	mib := 40
	if v := os.Getenv("SANDBANK_IMPORT_MIB"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 250 {
			t.Fatalf("SANDBANK_IMPORT_MIB=%q: give a whole number of MiB up to 250", v)
		}
		mib = n
	}
	size := mib << 20
	dir := t.TempDir()
	const head = `{"format":"sandbank-scenario/1",`
	customer := `"customers":[{"customerNumber":"01017012345","name":"Kari Nordmann","type":"private"`
	files := map[string]string{
		"note":           scenarioFile(t, dir, "note", head+`"note":"`, "x", size, `"}`),
		"name":           scenarioFile(t, dir, "name", head+`"customers":[{"customerNumber":"01017012345","type":"private","name":"`, "x", size, `"}]}`),
		"unknown text":   scenarioFile(t, dir, "unknown-text", head+customer+`,"photo":"`, "x", size, `"}]}`),
		"unknown array":  scenarioFile(t, dir, "unknown-array", head+`"attachments":[`, "0,", size/2, `0]}`),
		"duplicate keys": scenarioFile(t, dir, "duplicates", head+customer, `,"name":"A"`, 2_000_000, `}]}`),
	}
	refusals := []struct {
		file, code, path, text string
	}{
		{"note", "FORMAT_ERROR", "note", "must be at most 65536 bytes"},
		{"name", "FORMAT_ERROR", "customers[0].name", fmt.Sprintf("must be at most 70 characters, not %d", size)},
		{"unknown text", "BAD_REQUEST", "customers[0].photo", "is not a field the bank uses"},
		{"unknown array", "BAD_REQUEST", "attachments", "is not a field the bank uses"},
	}
	for _, mode := range []string{"data file", "running bank"} {
		t.Run(mode, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "sandbank.db")
			if out, stderr, code := sandbankd(t, "", "scenario", "save", filepath.Join(t.TempDir(), "first.json"), "--data", data); code != 0 {
				t.Fatalf("scenario save: %d %s %s", code, out, stderr)
			}
			var bank *apptest.Process
			if mode == "running bank" {
				bank = startDaemon(t, data)
			}
			load := func(t *testing.T, file string, want int) (stderr string) {
				t.Helper()
				if bank != nil {
					resetPeak(t, bank.Cmd.Process.Pid)
				}
				cmd := exec.Command(binary, "scenario", "load", file, "--data", data)
				start := time.Now()
				_, stderr, code := runCommand(t, cmd)
				peak := int64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) << 10
				if bank != nil {
					peak = peakResident(t, bank.Cmd.Process.Pid)
				}
				t.Logf("%s: peak resident %d MiB, %.1f s", filepath.Base(file), peak>>20, time.Since(start).Seconds())
				if peak > maxImportResident {
					t.Errorf("%s: the bank's peak resident set was %d MiB, over the %d MB an import may take", filepath.Base(file), peak>>20, maxImportResident/1_000_000)
				}
				if code != want {
					t.Errorf("%s: exit %d, want %d\n%.2000s", filepath.Base(file), code, want, stderr)
				}
				return stderr
			}
			for _, r := range refusals {
				before := apptest.Sum(t, data)
				stderr := load(t, files[r.file], 1)
				if want := "400 Bad Request " + r.code + "\n  " + r.path + ": "; !strings.Contains(stderr, want) || !strings.Contains(stderr, r.text) {
					t.Errorf("%s: the refusal does not say %q and %q:\n%.2000s", r.file, want, r.text, stderr)
				}
				if apptest.Sum(t, data) != before {
					t.Errorf("%s: the refused import changed the data file", r.file)
				}
			}

			// Strict mode refuses the first duplicate key; otherwise the
			// first 100 warnings come, and one line with the rest.
			if out, stderr, code := sandbankd(t, "", "settings", "set", "strict=true", "--data", data); code != 0 {
				t.Fatalf("settings set strict=true: %d %s %s", code, out, stderr)
			}
			before := apptest.Sum(t, data)
			stderr := load(t, files["duplicate keys"], 1)
			if n := strings.Count(stderr, "\n  customers[0].name: is given twice"); n != 1 || !strings.Contains(stderr, "strict mode refuses") {
				t.Errorf("strict mode: %d findings of the duplicate key, want 1:\n%.2000s", n, stderr)
			}
			if apptest.Sum(t, data) != before {
				t.Error("strict mode: the refused import changed the data file")
			}
			if out, stderr, code := sandbankd(t, "", "settings", "set", "strict=false", "--data", data); code != 0 {
				t.Fatalf("settings set strict=false: %d %s %s", code, out, stderr)
			}
			stderr = load(t, files["duplicate keys"], 0)
			if n := strings.Count(stderr, "sandbankd: warning: "); n != 101 || !strings.Contains(stderr, "1999900 more") || len(stderr) > 64<<10 {
				t.Errorf("%d warnings in %d bytes, want 101 (100 and one for the rest):\n%.2000s", n, len(stderr), stderr)
			}
		})
	}
}

// scenarioFile writes prefix, n times repeat and suffix to dir/name.json
// as a stream, and returns its path.
func scenarioFile(t *testing.T, dir, name, prefix, repeat string, n int, suffix string) string {
	t.Helper()
	path := filepath.Join(dir, name+".json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	_, _ = w.WriteString(prefix)
	// A block of repeats at a time: one write a repeat takes long
	// under the race detector.
	const perBlock = 4096
	block := strings.Repeat(repeat, perBlock)
	for range n / perBlock {
		_, _ = w.WriteString(block)
	}
	_, _ = w.WriteString(block[:n%perBlock*len(repeat)])
	_, _ = w.WriteString(suffix)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// resetPeak sets a process's peak resident set (VmHWM) back to its
// resident set now (Linux: clear_refs 5).
func resetPeak(t *testing.T, pid int) {
	t.Helper()
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Fatalf("reset the peak resident set: %v", err)
	}
}

// peakResident reads a process's peak resident set (VmHWM) in bytes.
func peakResident(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}
