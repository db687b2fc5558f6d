package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"sandbank/bank"
	"sandbank/bank/scenario"
)

// waitForFile waits until the watched scenarios folder lists a file, and
// applies the change to the screens.
func (h *harness) waitForFile(name string) {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, f := range h.core.Scenarios() {
			if f.Name == name {
				h.u.catchUp()
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.t.Fatalf("%s did not appear in the scenarios folder", name)
}

func TestScenarios_ExamplesAndWatchedFolder(t *testing.T) {
	h := newHarness(t, false)
	s := h.u.scenarios
	names := []string{}
	for _, f := range s.files {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "account-100k-transactions.json,corporate-two-approvers.json,empty-bank.json,payments-in-every-status.json" {
		t.Fatalf("the example scenarios are %v", names)
	}
	for _, f := range s.files {
		if f.Err != nil {
			t.Fatalf("example %s does not load: %v", f.Name, f.Err)
		}
	}
	// A file written into the folder appears, with its summary, and loads.
	scenario := `{"format": "sandbank-scenario/1", "note": "Written by a test", "customers": [{"customerNumber": "31313131", "name": "Scenario Person", "type": "private"}], "accounts": [], "cardAccounts": [], "agreements": []}`
	if err := os.WriteFile(filepath.Join(h.core.ScenarioDir(), "from-test.json"), []byte(scenario), 0o600); err != nil {
		t.Fatal(err)
	}
	h.waitForFile("from-test.json")
	var idx = -1
	for i, f := range s.files {
		if f.Name == "from-test.json" {
			idx = i
		}
	}
	if idx < 0 {
		t.Fatal("the new file is not listed")
	}
	s.list.Select(idx)
	if !strings.Contains(s.detail.Text, "Written by a test") || !strings.Contains(s.detail.Text, "1 customer,") || s.loadBtn.Disabled() {
		t.Fatalf("detail %q", s.detail.Text)
	}
	test.Tap(s.loadBtn)
	test.Tap(h.modal().submit)
	h.u.work.Wait()
	if _, ok := h.customer("31313131"); !ok {
		t.Fatal("the scenario was not loaded")
	}
	if _, ok := h.customer("13039319955"); ok {
		t.Fatal("loading kept the old data")
	}
	// Save the current data as a new file; the name may not leave the folder.
	test.Tap(widgetIn(t, h.u.tabs, "Save current as…"))
	h.typeInto("File name", "../escape")
	test.Tap(h.modal().submit)
	if !strings.Contains(h.modal().form.general.Text, "not a scenario file name") {
		t.Fatalf("a path name shows %q", h.modal().form.general.Text)
	}
	h.typeInto("File name", "support case 42")
	h.typeInto("Note", "saved in a test")
	test.Tap(h.modal().submit)
	h.u.work.Wait()
	h.waitForFile("support case 42.json")
	data, err := os.ReadFile(filepath.Join(h.core.ScenarioDir(), "support case 42.json"))
	if err != nil || !strings.Contains(string(data), "Scenario Person") || !strings.Contains(string(data), "saved in a test") {
		t.Fatalf("saved %s %v", data, err)
	}
	test.Tap(widgetIn(t, h.u.tabs, "Save current as…"))
	h.typeInto("File name", "support case 42")
	test.Tap(h.modal().submit)
	if m := h.u.topModal(); m == nil || !strings.Contains(m.form.general.Text, "exists") {
		t.Fatalf("overwriting shows %q", h.modal().form.general.Text)
	}
}

func TestScenarios_BrokenFileIsListedAndNotLoaded(t *testing.T) {
	h := newHarness(t, false)
	s := h.u.scenarios
	for name, content := range map[string]string{
		"broken.json":     `{"format": "sandbank-scenario/1", "customers": [`,
		"wrong-kind.json": `{"hello": "world"}`,
		"bad-rule.json":   `{"format": "sandbank-scenario/1", "customers": [{"customerNumber": "x", "name": "Bad", "type": "private"}], "accounts": [], "cardAccounts": [], "agreements": []}`,
		"future.json":     `{"format": "sandbank-scenario/3", "customers": []}`,
	} {
		if err := os.WriteFile(filepath.Join(h.core.ScenarioDir(), name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h.waitForFile("wrong-kind.json")
	h.waitForFile("broken.json")
	h.waitForFile("bad-rule.json")
	h.waitForFile("future.json")
	for i, f := range s.files {
		switch f.Name {
		case "broken.json", "wrong-kind.json", "future.json":
			if f.Err == nil {
				t.Fatalf("%s is listed as loadable", f.Name)
			}
			if f.Name == "future.json" && !strings.Contains(f.Err.Error(), `reads "sandbank-scenario/1" and "sandbank-scenario/2"`) {
				t.Fatalf("a newer version is listed with %v", f.Err)
			}
			s.list.Select(i)
			if !s.loadBtn.Disabled() || !strings.Contains(s.detail.Text, "cannot be loaded") {
				t.Fatalf("%s: load enabled %v, detail %q", f.Name, !s.loadBtn.Disabled(), s.detail.Text)
			}
		case "bad-rule.json":
			// It parses, so it is listed as loadable; the bank refuses it
			// on load and nothing changes.
			s.list.Select(i)
			test.Tap(s.loadBtn)
			test.Tap(h.modal().submit)
			h.u.work.Wait()
			if _, ok := h.customer("13039319955"); !ok {
				t.Fatal("a refused scenario changed the data")
			}
		}
	}
}

// The window saves and loads the whole sandbox: a payment with its
// reservation, the settings and the clock come back as they were saved,
// and the list shows what a file holds.
func TestScenarios_SaveAndLoadCarryPaymentsAndClock(t *testing.T) {
	h := newHarness(t, false)
	s := h.u.scenarios
	h.bankingMorning()
	p := h.pay("123", true)
	if p.Status != bank.StatusACTC || p.Items[0].PendingTxID == "" {
		t.Fatalf("payment %+v", p)
	}
	saved := h.core.Bank.Ops.Clock().Now
	balance := func() string {
		a, err := h.core.Bank.Sandbox.Account("enc!!BMqoT2eLQOgt-DAQsuGXRQ")
		if err != nil {
			t.Fatal(err)
		}
		return a.Balances.Expected.String()
	}
	reserved := balance()
	test.Tap(widgetIn(t, h.u.tabs, "Save current as…"))
	h.typeInto("File name", "case 7")
	test.Tap(h.modal().submit)
	h.u.work.Wait()
	h.waitForFile("case 7.json")

	if _, err := scenario.Initialize(h.core.Bank.Sandbox); err != nil {
		t.Fatal(err)
	}
	if _, err := h.core.Bank.Ops.JumpClock(5); err != nil {
		t.Fatal(err)
	}
	for i, f := range s.files {
		if f.Name == "case 7.json" {
			s.list.Select(i)
		}
	}
	if !strings.Contains(s.detail.Text, "Format sandbank-scenario/2") || !strings.Contains(s.detail.Text, "1 payment") || !strings.Contains(s.detail.Text, "settings") || !strings.Contains(s.detail.Text, "clock at "+saved.Format("2006-01-02 15:04")) {
		t.Fatalf("detail %q", s.detail.Text)
	}
	test.Tap(s.loadBtn)
	test.Tap(h.modal().submit)
	h.u.work.Wait()
	back, err := h.core.Bank.Ops.Payment(p.ID)
	if err != nil || back.Status != bank.StatusACTC || back.Items[0].PendingTxID != p.Items[0].PendingTxID {
		t.Fatalf("after loading: %+v, %v", back, err)
	}
	if got := balance(); got != reserved {
		t.Fatalf("expected balance %s after loading, %s when saved", got, reserved)
	}
	if now := h.core.Bank.Ops.Clock().Now; now.Sub(saved).Abs() > time.Minute {
		t.Fatalf("the clock is at %v after loading, %v when saved", now, saved)
	}
}
