package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
)

// The operator commands (settings, scenario, payments, batch, clock, log,
// grants) run through the real binary, each on a data file of its own, in
// both ways they reach a bank: on the free data file, which the command
// opens itself, and against a running sandbankd that holds it.

// seedTPP is the TPP of the seeded data file.
const seedTPP = "NO-FSA-933012867"

// bankMode is a seeded data file and the flags that name its bank.
type bankMode struct {
	data    string
	url     string   // the running bank's; "" when the command opens the file
	flags   []string // --data and, for a running bank, --url
	payment string   // a payment waiting for the PSU's SCA (RCVD)
}

// run runs sandbankd args... with the mode's flags after them.
func (m bankMode) run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return sandbankd(t, "", append(args, m.flags...)...)
}

// ok runs sandbankd as run does and fails the test unless it exits 0.
func (m bankMode) ok(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, code := m.run(t, args...)
	if code != 0 {
		t.Fatalf("sandbankd %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, stderr)
	}
	return out
}

// refused runs sandbankd as run does and checks that it exits with code,
// says each of want on standard error, and leaves the data file as it
// was, byte for byte.
func (m bankMode) refused(t *testing.T, code int, want []string, args ...string) {
	t.Helper()
	before := apptest.Sum(t, m.data)
	out, stderr, got := m.run(t, args...)
	if got != code {
		t.Errorf("sandbankd %s: exit %d, want %d\n%s\n%s", strings.Join(args, " "), got, code, out, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("sandbankd %s: stderr does not say %q:\n%s", strings.Join(args, " "), w, stderr)
		}
	}
	if out != "" {
		t.Errorf("sandbankd %s: a refusal printed on standard output: %s", strings.Join(args, " "), out)
	}
	if apptest.Sum(t, m.data) != before {
		t.Errorf("sandbankd %s: the data file changed", strings.Join(args, " "))
	}
}

// bothModes runs fn on a new seeded data file with the file free, then
// on another held by a running sandbankd.
func bothModes(t *testing.T, fn func(t *testing.T, m bankMode)) {
	t.Run("data file", func(t *testing.T) {
		m := seeded(t)
		fn(t, m)
	})
	t.Run("running bank", func(t *testing.T) {
		m := seeded(t)
		d := startDaemon(t, m.data)
		m.url = d.URLs[0]
		m.flags = append(m.flags, "--url", m.url)
		fn(t, m)
	})
}

// seeded makes a data file in the known state with a grant (Test
// Testperson 1's consent for NO-FSA-933012867) and a payment that waits
// for SCA, through the bank in this process, and closes it again.
func seeded(t *testing.T) bankMode {
	t.Helper()
	data := filepath.Join(t.TempDir(), "sandbank.db")
	b := apptest.Start(t, apptest.Options{DataPath: data})
	tpp := b.NewTPP("933012867", 0, pki.RoleAI, pki.RolePI)
	b.Consent(tpp, "13039319955", "PRIVATE", nil)
	r := b.Do(tpp, http.MethodPost, "/v1/payments/norwegian-domestic-credit-transfers", map[string]any{
		"instructedAmount": map[string]string{"amount": "101.00", "currency": "NOK"},
		"debtorAccount":    map[string]string{"iban": "NO3815030123457"}, "creditorAccount": map[string]string{"iban": "NO3015030234569"},
		"creditorName": "Test Testperson 2", "remittanceInformationUnstructured": "seeded",
	}, "TPP-Redirect-URI: https://tpp.example/cb", "TPP-Session-ID: seed")
	if r.Status != http.StatusCreated {
		t.Fatalf("create the payment: %d %s", r.Status, r.Body)
	}
	var p struct{ PaymentID string }
	r.JSON(t, &p)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	return bankMode{data: data, flags: []string{"--data", data}, payment: p.PaymentID}
}

// runningOperator is the operator of the running bank that holds the
// data file, as its running file gives it.
func runningOperator(t testing.TB, data string) *httpsig.Signer {
	t.Helper()
	run, err := waitRunning(data)
	if err != nil {
		t.Fatalf("the running file: %v", err)
	}
	signer, err := runningSigner(run)
	if err != nil {
		t.Fatal(err)
	}
	return signer
}

// operatorGet sends a GET to the running bank that holds the data file,
// signed as its operator with the running file's credential, and returns
// the 200 answer's body.
func operatorGet(t *testing.T, data, base, path string) []byte {
	t.Helper()
	signer := runningOperator(t, data)
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := signer.SignRequest(req, nil); err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s %v", path, resp.StatusCode, body, err)
	}
	return body
}

// settingsDoc reads the settings document of settings get --json.
type settingsDoc struct {
	TrustMode       string            `json:"trustMode"`
	Strict          bool              `json:"strict"`
	LegacyDate      *string           `json:"legacyDate"`
	ExemptionPolicy string            `json:"exemptionPolicy"`
	BatchTimes      []string          `json:"batchTimes"`
	CoverRetryDays  int               `json:"coverRetryDays"`
	NCBCTFee        string            `json:"ncbctFee"`
	FXRates         map[string]string `json:"fxRates"`
	BatchMode       string            `json:"batchMode"`
	RequestLog      struct {
		MaxCount int `json:"maxCount"`
		MaxBytes int `json:"maxBytes"`
	} `json:"requestLog"`
}

func TestSettings_SetThenGetRoundTrips(t *testing.T) {
	bothModes(t, func(t *testing.T, m bankMode) {
		out := m.ok(t, "settings")
		for _, row := range []string{"SETTING ", "exemptionPolicy ", "batchTimes ", "06:00,09:00,12:00,15:00,18:00", "fxRates.EUR ", "requestLog.maxCount "} {
			if !strings.Contains(out, row) {
				t.Errorf("settings: no %q in\n%s", row, out)
			}
		}
		out = m.ok(t, "settings", "set", "exemptionPolicy=own-accounts", "batchTimes=06:00,14:00", "fxRates.BHD=28.70",
			"requestLog.maxCount=500", "legacyDate=2020-07-31", "coverRetryDays=5", "strict=false", "fxRates.JPY=null", "NCBCTFEE=300")
		if !regexp.MustCompile(`(?m)^exemptionPolicy +own-accounts$`).MatchString(out) || !regexp.MustCompile(`(?m)^fxRates.JPY +\(removed\)$`).MatchString(out) ||
			!regexp.MustCompile(`(?m)^ncbctFee +300.00$`).MatchString(out) || strings.Contains(out, "trustMode") {
			t.Errorf("settings set printed:\n%s", out)
		}
		got := m.ok(t, "settings", "get", "--json")
		var doc settingsDoc
		if err := json.Unmarshal([]byte(got), &doc); err != nil {
			t.Fatalf("settings get --json: %v\n%s", err, got)
		}
		if doc.ExemptionPolicy != "own-accounts" || strings.Join(doc.BatchTimes, ",") != "06:00,14:00" || doc.FXRates["BHD"] != "28.7" ||
			doc.FXRates["EUR"] != "11.65" || doc.FXRates["JPY"] != "" || doc.RequestLog.MaxCount != 500 || doc.RequestLog.MaxBytes != 33554432 ||
			doc.LegacyDate == nil || *doc.LegacyDate != "2020-07-31" || doc.CoverRetryDays != 5 || doc.NCBCTFee != "300.00" || doc.TrustMode != "any" {
			t.Errorf("settings get --json after set:\n%s", got)
		}
		if out := m.ok(t, "settings", "get", "exemptionpolicy"); out != "own-accounts\n" {
			t.Errorf("settings get exemptionpolicy: %q", out)
		}
		if out := m.ok(t, "settings", "get", "batchTimes"); out != "06:00,14:00\n" {
			t.Errorf("settings get batchTimes: %q", out)
		}
		// null takes the default again.
		m.ok(t, "settings", "set", "legacyDate=null")
		if out := m.ok(t, "settings", "get", "legacyDate", "--json"); out != "null\n" {
			t.Errorf("legacyDate after null: %q", out)
		}
		// The running bank answers what the command set; a data file
		// keeps it for the bank that opens it next.
		base := m.url
		if base == "" {
			base = startDaemon(t, m.data).URLs[0]
		}
		var served settingsDoc
		if err := json.Unmarshal(operatorGet(t, m.data, base, "/v1/sandbox/settings"), &served); err != nil {
			t.Fatal(err)
		}
		if served.ExemptionPolicy != "own-accounts" || served.FXRates["BHD"] != "28.7" || served.RequestLog.MaxCount != 500 || served.LegacyDate != nil {
			t.Errorf("GET /v1/sandbox/settings of the bank: %+v", served)
		}
	})
}

func TestSettings_RefusalsChangeNothing(t *testing.T) {
	bothModes(t, func(t *testing.T, m bankMode) {
		before := m.ok(t, "settings", "get", "--json")
		m.refused(t, 2, []string{"sandbankd: usage: foo is not a setting; the settings are batchMode, batchTimes,", "see sandbankd settings -h"},
			"settings", "set", "exemptionPolicy=own-accounts", "foo=1")
		m.refused(t, 2, []string{"requestLog.maxCont is not a setting: requestLog has no maxCont"}, "settings", "set", "requestLog.maxCont=5")
		m.refused(t, 2, []string{"exemptionPolicy.x: exemptionPolicy is not an object"}, "settings", "set", "exemptionPolicy.x=5")
		m.refused(t, 2, []string{`"batchMode" is not KEY=VALUE`}, "settings", "set", "batchMode")
		m.refused(t, 2, []string{"coverRetryDays: given twice"}, "settings", "set", "coverRetryDays=4", "coverRetryDays=5")
		m.refused(t, 2, []string{"fxRates.BHD: fxRates is given whole already"}, "settings", "set", `fxRates={"NOK": "1"}`, "fxRates.BHD=2")
		m.refused(t, 2, []string{"batchTimes: the value starts with [ but is not JSON"}, "settings", "set", "batchTimes=[06:00")
		m.refused(t, 2, []string{"unknown command settings frob"}, "settings", "frob")
		// The bank's own refusals: its message and each finding's path.
		m.refused(t, 1, []string{"refused PATCH /v1/sandbox/settings: 400 Bad Request FORMAT_ERROR", "\n  coverRetryDays: ", "\n  batchTimes[1]: \"25:00\" is not a time of day",
			"\n  fxRates.EUR: \"abc\" is not a rate"}, "settings", "set", "coverRetryDays=99", "batchTimes=06:00,25:00", "fxRates.EUR=abc", "batchMode=immediate")
		m.refused(t, 1, []string{"400 Bad Request BAD_REQUEST", "\n  coverRetryDays: must be a whole number, not a JSON string"}, "settings", "set", "coverRetryDays=three")
		m.refused(t, 1, []string{"\n  exemptionPolicy: "}, "settings", "set", "exemptionPolicy=sometimes")
		if after := m.ok(t, "settings", "get", "--json"); after != before {
			t.Errorf("the settings changed:\n%s\n%s", before, after)
		}
	})
}

func TestScenario_SaveAndLoad(t *testing.T) {
	bothModes(t, func(t *testing.T, m bankMode) {
		dir := t.TempDir()
		first := filepath.Join(dir, "first.json")
		out := m.ok(t, "scenario", "save", first, "--note", "case 4711")
		if !strings.HasPrefix(out, "Saved the scenario of the bank ") || !strings.Contains(out, " to "+first+" (") {
			t.Errorf("scenario save printed %q", out)
		}
		saved, err := os.ReadFile(first)
		if err != nil {
			t.Fatal(err)
		}
		var scenario struct {
			Format, Note string
			Customers    []any
			Accounts     []struct{ Transactions []any }
		}
		if err := json.Unmarshal(saved, &scenario); err != nil || !strings.HasPrefix(scenario.Format, "sandbank-scenario/") || scenario.Note != "case 4711" || len(scenario.Customers) != 4 {
			t.Fatalf("the saved scenario: %v %s %q %d", err, scenario.Format, scenario.Note, len(scenario.Customers))
		}
		transactions := 0
		for _, a := range scenario.Accounts {
			transactions += len(a.Transactions)
		}
		// Loaded back, padded past the 1 MiB of other bodies: the
		// command streams it, with its digest.
		big := filepath.Join(dir, "big.json")
		if err := os.WriteFile(big, append(saved, bytes.Repeat([]byte(" \n"), 1<<20)...), 0o600); err != nil {
			t.Fatal(err)
		}
		out = m.ok(t, "scenario", "load", big)
		if !strings.HasPrefix(out, "Loaded "+big+" into the bank ") || !regexp.MustCompile(`(?m)^customers +4$`).MatchString(out) ||
			!regexp.MustCompile(fmt.Sprintf(`(?m)^transactions +%d$`, transactions)).MatchString(out) {
			t.Errorf("scenario load printed:\n%s", out)
		}
		var counts map[string]any
		if err := json.Unmarshal([]byte(m.ok(t, "scenario", "load", first, "--json")), &counts); err != nil || counts["accounts"] != float64(len(scenario.Accounts)) {
			t.Errorf("scenario load --json: %v %v", counts, err)
		}
		// An export of what was imported is the same file.
		if second := m.ok(t, "scenario", "save", "-", "--note", "case 4711"); !sameScenario(t, second, string(saved)) {
			t.Errorf("a second export differs from the first (%d and %d bytes)", len(second), len(saved))
		}

		// Ugly cases change nothing.
		m.refused(t, 1, []string{"open the scenario: open " + filepath.Join(dir, "missing.json") + ": no such file"}, "scenario", "load", filepath.Join(dir, "missing.json"))
		notJSON := filepath.Join(dir, "notes.txt")
		if err := os.WriteFile(notJSON, []byte("customers: 4\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		m.refused(t, 1, []string{"refused PUT /v1/sandbox/scenario: 400 Bad Request BAD_REQUEST", "the body is not valid JSON"}, "scenario", "load", notJSON)
		wrong := filepath.Join(dir, "wrong.json")
		if err := os.WriteFile(wrong, []byte(`{"format": "sandbank-scenario/1", "customers": [{"customerNumber": "13039319955", "name": "X", "type": "martian"}]}`), 0o600); err != nil {
			t.Fatal(err)
		}
		m.refused(t, 1, []string{"400 Bad Request FORMAT_ERROR", "\n  customers[0].type: "}, "scenario", "load", wrong)
		m.refused(t, 2, []string{"scenario load takes one FILE (- for standard input), not 0 arguments", "\n  sandbankd scenario load FILE [--json]\n"}, "scenario", "load")
		m.refused(t, 2, []string{"give save FILE or load FILE"}, "scenario", "frob", "x")
		m.refused(t, 1, []string{"write " + filepath.Join(dir, "no", "s.json")}, "scenario", "save", filepath.Join(dir, "no", "s.json"))
		if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
			t.Errorf("temporary files left: %v", left)
		}
	})
}

// sameScenario reports whether two scenario exports hold the same, but
// for the moment of export: the sandbox clock's now and the offset the
// real time between export and import moves (docs/SANDBOX-API.md 2.13).
func sameScenario(t *testing.T, a, b string) bool {
	t.Helper()
	var docs [2]map[string]any
	for i, s := range []string{a, b} {
		if err := json.Unmarshal([]byte(s), &docs[i]); err != nil {
			t.Fatalf("a scenario export: %v", err)
		}
		if clock, ok := docs[i]["clock"].(map[string]any); ok {
			delete(clock, "now")
		}
		if settings, ok := docs[i]["settings"].(map[string]any); ok {
			delete(settings, "clockOffsetSeconds")
		}
	}
	return reflect.DeepEqual(docs[0], docs[1])
}

func TestPayments_ListShowForce(t *testing.T) {
	bothModes(t, func(t *testing.T, m bankMode) {
		out := m.ok(t, "payments")
		if !strings.HasPrefix(out, "CREATED ") || !strings.Contains(out, m.payment) || !strings.Contains(out, " NDCT ") ||
			!strings.Contains(out, seedTPP) || !strings.Contains(out, "101.00 NOK") || !strings.Contains(out, "RCVD") {
			t.Errorf("payments:\n%s", out)
		}
		var list []struct{ PaymentID, TransactionStatus string }
		if err := json.Unmarshal([]byte(m.ok(t, "payments", "--status", "RCVD", "--tpp", seedTPP, "--json")), &list); err != nil || len(list) != 1 || list[0].PaymentID != m.payment {
			t.Errorf("payments --status RCVD --tpp --json: %v %+v", err, list)
		}
		if out := m.ok(t, "payments", "--status", "ACSC"); strings.Contains(out, m.payment) {
			t.Errorf("payments --status ACSC lists the RCVD payment:\n%s", out)
		}
		out = m.ok(t, "payments", "show", m.payment)
		for _, want := range []string{`^PAYMENT +` + m.payment + `$`, `^kind +NDCT \(payments, norwegian-domestic-credit-transfers\)$`, `^TPP +` + seedTPP + `$`,
			`^status +RCVD$`, `^101.00 NOK +Test Testperson 2 +NO3015030234569 +seeded `, `^Status history:$`} {
			if !regexp.MustCompile("(?m)" + want).MatchString(out) {
				t.Errorf("payments show: no %s in\n%s", want, out)
			}
		}
		out = m.ok(t, "payments", "force", m.payment, "RJCT", "--note", "reproduces case 4711")
		if out != "Payment "+m.payment+": RCVD → RJCT, by support (forced) (reproduces case 4711)\n" {
			t.Errorf("payments force printed %q", out)
		}
		var p struct {
			TransactionStatus string
			StatusHistory     []struct {
				To     string
				Forced bool
			}
		}
		if err := json.Unmarshal([]byte(m.ok(t, "payments", "show", m.payment, "--json")), &p); err != nil || p.TransactionStatus != "RJCT" ||
			!p.StatusHistory[len(p.StatusHistory)-1].Forced {
			t.Errorf("after force: %v %+v", err, p)
		}
		m.refused(t, 1, []string{"refused GET /v1/sandbox/payments/nope: 404 Not Found RESOURCE_UNKNOWN"}, "payments", "show", "nope")
		m.refused(t, 1, []string{"refused POST /v1/sandbox/payments/nope/status: 404 Not Found RESOURCE_UNKNOWN"}, "payments", "force", "nope", "RJCT")
		m.refused(t, 2, []string{`usage: "DONE" is not a payment status; give one of RCVD, PATC,`, "\n  sandbankd payments force ID STATUS [--note TEXT] [--json]\n"}, "payments", "force", m.payment, "DONE")
		m.refused(t, 1, []string{"\n  status: "}, "payments", "--status", "done")
		m.refused(t, 2, []string{"--note is for payments force"}, "payments", "--note", "x")
		m.refused(t, 2, []string{"--status is for payments list"}, "payments", "show", m.payment, "--status", "RJCT")
	})
}

func TestBatch_RunListShow(t *testing.T) {
	bothModes(t, func(t *testing.T, m bankMode) {
		out := m.ok(t, "batch", "run")
		if !regexp.MustCompile(`^Batch run \S+ at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d CES?T: `).MatchString(out) {
			t.Errorf("batch run printed %q", out)
		}
		var run struct{ RunID string }
		if err := json.Unmarshal([]byte(m.ok(t, "batch", "run", "--json")), &run); err != nil || run.RunID == "" {
			t.Fatalf("batch run --json: %v", err)
		}
		if out := m.ok(t, "batch", "list"); !strings.Contains(out, run.RunID) || !strings.Contains(out, "run now") {
			t.Errorf("batch list:\n%s", out)
		}
		if out := m.ok(t, "batch", "show", run.RunID); !strings.HasPrefix(out, "Batch run "+run.RunID+" at ") || !strings.Contains(out, "PAYMENT ID") {
			t.Errorf("batch show:\n%s", out)
		}
		m.refused(t, 1, []string{"404 Not Found RESOURCE_UNKNOWN"}, "batch", "show", "nope")
		m.refused(t, 2, []string{"give batch run, batch list or batch show RUNID"}, "batch")
	})
}

func TestClock_ShowSetAheadReal(t *testing.T) {
	type clock struct {
		Now           time.Time
		OffsetSeconds int64
	}
	read := func(t *testing.T, out string) clock {
		t.Helper()
		var c clock
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return c
	}
	bothModes(t, func(t *testing.T, m bankMode) {
		if out := m.ok(t, "clock"); !strings.HasPrefix(out, "Sandbox clock: ") || !strings.HasSuffix(out, " (Europe/Oslo, the real clock)\n") {
			t.Errorf("clock: %q", out)
		}
		m.ok(t, "clock", "ahead", "3d")
		if c := read(t, m.ok(t, "clock", "ahead", "1d12h", "--json")); c.OffsetSeconds != 4*86400+12*3600 {
			t.Errorf("after ahead 3d and 1d12h: offset %d", c.OffsetSeconds)
		}
		if out := m.ok(t, "clock", "back", "12h"); !strings.HasSuffix(out, " (Europe/Oslo, +4d from the real clock)\n") {
			t.Errorf("clock back 12h: %q", out)
		}
		at := "2031-01-15T09:00:00+01:00"
		want, err := time.Parse(time.RFC3339, at)
		if err != nil {
			t.Fatal(err)
		}
		if c := read(t, m.ok(t, "clock", "set", at, "--json")); c.Now.Before(want) || c.Now.After(want.Add(5*time.Second)) {
			t.Errorf("clock set %s: now %s", at, c.Now)
		}
		if c := read(t, m.ok(t, "clock", "real", "--json")); c.OffsetSeconds != 0 {
			t.Errorf("clock real: offset %d", c.OffsetSeconds)
		}
		m.refused(t, 2, []string{`usage: clock set "tomorrow": write an RFC 3339 date-time with an offset`}, "clock", "set", "tomorrow")
		m.refused(t, 2, []string{"clock ahead 3x: write whole days, hours, minutes or seconds"}, "clock", "ahead", "3x")
		m.refused(t, 2, []string{"clock ahead 0d: give a span longer than 0"}, "clock", "ahead", "0d")
		m.refused(t, 2, []string{"give clock, clock set RFC3339"}, "clock", "ahead")
	})
}

func TestGrants_ListRevoke(t *testing.T) {
	bothModes(t, func(t *testing.T, m bankMode) {
		out := m.ok(t, "grants", "--tpp", seedTPP)
		if !strings.HasPrefix(out, "GRANT ID ") || !strings.Contains(out, "Test Testperson 1 (13039319955)") || !strings.Contains(out, "Brukskonto NO3815030123457") {
			t.Errorf("grants:\n%s", out)
		}
		var grants []struct{ GrantID string }
		if err := json.Unmarshal([]byte(m.ok(t, "grants", "--psu", "13039319955", "--json")), &grants); err != nil || len(grants) != 1 {
			t.Fatalf("grants --psu --json: %v %+v", err, grants)
		}
		if out := m.ok(t, "grants", "revoke", grants[0].GrantID); !strings.HasPrefix(out, "Revoked grant "+grants[0].GrantID) {
			t.Errorf("grants revoke: %q", out)
		}
		if out := m.ok(t, "grants", "--json"); out != "[]\n" {
			t.Errorf("grants after the revocation: %s", out)
		}
		m.refused(t, 1, []string{"refused DELETE /v1/sandbox/grants/" + grants[0].GrantID + ": 404 Not Found RESOURCE_UNKNOWN"}, "grants", "revoke", grants[0].GrantID)
	})
}

// The request log is the running bank's: the list, the HAR export, and one
// request whole, found by the id of an error answer, also of a refused
// signature.
func TestLog_ListHARAndOneRequest(t *testing.T) {
	m := seeded(t)
	d := startDaemon(t, m.data)
	m.url = d.URLs[0]
	m.flags = append(m.flags, "--url", m.url)
	// A refusal of the bank names the command that shows what it saw.
	_, stderr, code := m.run(t, "settings", "set", "coverRetryDays=99")
	hint := regexp.MustCompile(`\n  sandbankd log (\S+) --data \S+ --url \S+ shows what the bank saw and decided\n$`).FindStringSubmatch(stderr)
	if code != 1 || hint == nil {
		t.Fatalf("a refused settings set: exit %d, no hint in\n%s", code, stderr)
	}
	out := m.ok(t, "log", hint[1])
	for _, want := range []string{"PATCH /v1/sandbox/settings answered 400", "Error FORMAT_ERROR", "Signature check, step by step:", "Signing string",
		"(request-target): patch /v1/sandbox/settings", "Request: PATCH " + m.url + "/v1/sandbox/settings HTTP/1.1", `"coverRetryDays": 99`,
		"Response: 400 Bad Request", "coverRetryDays: must be 0 to 30"} {
		if !strings.Contains(out, want) {
			t.Errorf("log ID: no %q in\n%s", want, out)
		}
	}

	// A request whose signature the bank refused: its error body's id.
	key := apptest.Key(t, 1)
	cert, err := pki.SelfSigned(key, "bad signer", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	signer, err := httpsig.NewSigner(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodGet, m.url+"/v1/sandbox/clock", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Request-ID", "signed")
	if err := signer.SignRequest(req, nil); err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Request-ID", "changed after signing")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var refused struct{ ID, Code string }
	if err := json.NewDecoder(resp.Body).Decode(&refused); err != nil || refused.Code != "SIGNATURE_INVALID" {
		t.Fatalf("the tampered request: %v %+v", err, refused)
	}
	_ = resp.Body.Close()
	out = m.ok(t, "log", refused.ID)
	for _, want := range []string{"Refused at the signature step: ", "signature: FAILED", "x-request-id: changed after signing", "SIGNATURE_INVALID"} {
		if !strings.Contains(out, want) {
			t.Errorf("log of the refused signature: no %q in\n%s", want, out)
		}
	}
	var detail struct {
		Verdict struct{ SigningString string }
	}
	if err := json.Unmarshal([]byte(m.ok(t, "log", refused.ID, "--json")), &detail); err != nil || !strings.Contains(detail.Verdict.SigningString, "x-request-id: changed after signing") {
		t.Errorf("log ID --json: %v %+v", err, detail)
	}

	out = m.ok(t, "log", "--errors")
	if !strings.HasPrefix(out, "TIME ") || !strings.Contains(out, refused.ID) || !strings.Contains(out, hint[1]) || strings.Contains(out, " 200 ") {
		t.Errorf("log --errors:\n%s", out)
	}
	if out := m.ok(t, "log", "--status", "400", "--method", "get"); !strings.Contains(out, refused.ID) || strings.Contains(out, hint[1]) {
		t.Errorf("log --status 400 --method get:\n%s", out)
	}
	har := filepath.Join(t.TempDir(), "traffic.har")
	if out := m.ok(t, "log", "--har", har, "--errors"); !strings.HasPrefix(out, "Wrote the request log of the bank at "+m.url+" to "+har) {
		t.Errorf("log --har printed %q", out)
	}
	data, err := os.ReadFile(har)
	if err != nil {
		t.Fatal(err)
	}
	if entries := apptest.CheckHAR(t, data)["log"].(map[string]any)["entries"].([]any); len(entries) != 2 {
		t.Errorf("the HAR of the errors holds %d entries, want 2", len(entries))
	}
	m.refused(t, 1, []string{"404 Not Found RESOURCE_UNKNOWN", "no request with id nope"}, "log", "nope")
	m.refused(t, 1, []string{"\n  status: \"99\" is not an HTTP status"}, "log", "--status", "99")
	m.refused(t, 2, []string{"--errors is for the list"}, "log", refused.ID, "--errors")
}

// Without a running bank there is no request log: one line that says what
// to do, and the data file is not touched (nor made when it is missing).
func TestLog_NeedsARunningBank(t *testing.T) {
	m := seeded(t)
	before := apptest.Sum(t, m.data)
	for _, data := range []string{m.data, filepath.Join(t.TempDir(), "none.db")} {
		for _, args := range [][]string{{"log"}, {"log", "--har", filepath.Join(t.TempDir(), "x.har")}, {"log", "c73257ff-24a1-4e8a-94f2-e2a9057e5f66"}} {
			out, stderr, code := sandbankd(t, "", append(args, "--data", data)...)
			if code != 1 || out != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "sandbankd: the request log is in the memory of the bank that serves the data file, and ") ||
				!strings.Contains(stderr, "start the bank (sandbankd --data "+data) {
				t.Errorf("%v --data %s: exit %d\n%s\n%s", args, data, code, out, stderr)
			}
		}
	}
	if apptest.Sum(t, m.data) != before {
		t.Error("the data file changed")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(m.data), "none.db")); err == nil {
		t.Error("log made a data file")
	}
}

// In trust mode store a running bank refuses the command's own
// certificate, and says to sign with one from its CA; --cert and --key do.
// On the data file the command signs with a certificate from the file's
// own CA, which the bank trusts.
func TestOps_TrustModeStore(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sandbank.db")
	cert, key := newTPP(t, dir, data, "Store TPP")
	if out, stderr, code := sandbankd(t, "", "settings", "set", "trustMode=store", "--data", data); code != 0 {
		t.Fatalf("settings set trustMode=store: %d %s %s", code, out, stderr)
	}
	if out, _, code := sandbankd(t, "", "settings", "get", "trustMode", "--data", data); code != 0 || out != "store\n" {
		t.Fatalf("on the data file in trust mode store: %d %q", code, out)
	}
	d := startDaemon(t, data)
	_, stderr, code := sandbankd(t, "", "settings", "--url", d.URLs[0])
	if code != 1 || !strings.Contains(stderr, "CERTIFICATE_INVALID") || !strings.Contains(stderr, "--cert FILE --key FILE (sandbankd cert new makes a pair)") {
		t.Errorf("a self-signed certificate in trust mode store: exit %d\n%s", code, stderr)
	}
	// A TPP's certificate of the bank's CA passes the trust store, and is
	// no operator; the running file's credential is.
	if out, stderr, code := sandbankd(t, "", "settings", "get", "trustMode", "--url", d.URLs[0], "--cert", cert, "--key", key); code != 1 || !strings.Contains(stderr, "403 Forbidden FORBIDDEN") {
		t.Errorf("a TPP's --cert and --key: exit %d %q %s", code, out, stderr)
	}
	if out, stderr, code := sandbankd(t, "", "payments", "--url", d.URLs[0], "--cert", cert, "--key", key); code != 0 {
		t.Errorf("a TPP's own payments with --cert and --key: exit %d %q %s", code, out, stderr)
	}
	if out, stderr, code := sandbankd(t, "", "settings", "get", "trustMode", "--data", data); code != 0 || out != "store\n" {
		t.Errorf("on the running bank of the data file: exit %d %q %s", code, out, stderr)
	}
	if _, stderr, code := sandbankd(t, "", "settings", "--data", data, "--url", d.URLs[0], "--cert", cert); code != 2 || !strings.Contains(stderr, "--cert and --key go together") {
		t.Errorf("--cert without --key: exit %d %s", code, stderr)
	}
}

// --url without --data asks that bank only: the default data file is not
// opened, nor made.
func TestOps_URLWithoutDataAsksTheBankOnly(t *testing.T) {
	m := seeded(t)
	d := startDaemon(t, m.data)
	config := t.TempDir()
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(binary, args...)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+config, "HOME="+config)
		return runCommand(t, cmd)
	}
	// A command of its own certificate is a TPP: it lists its own
	// payments, none; the operator's certificate lists every TPP's.
	out, stderr, code := run("payments", "--url", d.URLs[0])
	if code != 0 || strings.Contains(out, m.payment) || strings.Contains(stderr, "in use") {
		t.Errorf("payments --url: exit %d\n%s\n%s", code, out, stderr)
	}
	opDir := t.TempDir()
	if out, stderr, code := sandbankd(t, "", "cert", "new", "--operator", "--name", "CI operator", "--out", opDir, "--data", m.data); code != 0 || !strings.Contains(out, "operator certificate") {
		t.Fatalf("cert new --operator on the running bank's data file: exit %d\n%s\n%s", code, out, stderr)
	}
	out, stderr, code = run("payments", "--url", d.URLs[0], "--cert", filepath.Join(opDir, "cert.pem"), "--key", filepath.Join(opDir, "key.pem"))
	if code != 0 || !strings.Contains(out, m.payment) {
		t.Errorf("payments --url as the operator: exit %d\n%s\n%s", code, out, stderr)
	}
	if entries, _ := os.ReadDir(config); len(entries) != 0 {
		t.Errorf("the command made %v in the config folder", entries)
	}
	_, stderr, code = run("payments", "--url", "http://127.0.0.1:1")
	if code != 1 || !strings.HasPrefix(stderr, "sandbankd: no bank answers at http://127.0.0.1:1: start it") {
		t.Errorf("no bank at --url: exit %d %s", code, stderr)
	}
}
