package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// recordHAR exports the request log of the bank of data as a HAR with
// sandbankd log --har, as a pipeline does.
func recordHAR(t *testing.T, data, file string) {
	t.Helper()
	if out, stderr, code := sandbankd(t, "", "log", "--har", file, "--data", data); code != 0 {
		t.Fatalf("log --har: %d %s %s", code, out, stderr)
	}
}

// replayed runs sandbankd replay and returns its output and exit code.
func replayed(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return sandbankd(t, "", append([]string{"replay"}, args...)...)
}

// allMatch fails the test unless a replay's report says every entry it
// sent matched, at least min of them.
func allMatch(t *testing.T, what, out, stderr string, code, min int) {
	t.Helper()
	m := regexp.MustCompile(`(\d+) entr(?:y|ies) replayed against a fresh bank[^:]*: (\d+) match, 0 differ, (\d+) not sent`).FindStringSubmatch(out)
	if code != 0 || m == nil || atoi(m[2]) < min || atoi(m[1]) != atoi(m[2])+atoi(m[3]) {
		t.Fatalf("the replay of %s: exit %d, want 0 with %d or more entries matching:\n%s\n%s", what, code, min, out, stderr)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestReplay_GuideWalkthroughRoundTrip runs the TPP guide's walkthrough
// (scripts/tpp-walkthrough.sh: a consent, SCA, accounts, transactions, a
// payment, a signing basket and the operator's batch run, each request
// signed with openssl) against a real sandbankd, exports its traffic with
// sandbankd log --har, and replays it with --fresh: every entry matches.
func TestReplay_GuideWalkthroughRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "openssl", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: run scripts/install-deps", tool)
		}
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "sandbank.db")
	cert, key := newTPP(t, dir, data, "Guide TPP", "--roles", "PSP_AI,PSP_PI")
	d := startDaemon(t, data)
	op := filepath.Join(dir, "operator")
	if out, stderr, code := sandbankd(t, "", "cert", "new", "--operator", "--name", "Guide operator", "--out", op, "--data", data); code != 0 {
		t.Fatalf("cert new --operator: %d %s %s", code, out, stderr)
	}
	script, err := filepath.Abs("../../scripts/tpp-walkthrough.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(script)
	cmd.Env = append(os.Environ(), "BANK="+d.URLs[0], "CERT="+cert, "KEY="+key,
		"OPERATOR_CERT_PEM="+filepath.Join(op, "cert.pem"), "OPERATOR_KEY_PEM="+filepath.Join(op, "key.pem"))
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "is ACSC") {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	har := filepath.Join(dir, "walkthrough.har")
	recordHAR(t, data, har)
	out, stderr, code := replayed(t, har, "--fresh")
	allMatch(t, "the guide's walkthrough", out, stderr, code, 20)
	t.Logf("\n%s", out)
}

// TestReplay_ExamplesRoundTrip: the traffic of each examples/ client's
// walkthrough (Python, Node.js, Java: a consent with automated SCA,
// accounts and paged transactions, a payment, the operator's batch run),
// exported from the bank it ran against, replays on a fresh bank with
// every entry matching. A missing runtime skips the language, or fails it
// with SANDBANK_REQUIRE_EXAMPLES=1, as TestExamples_Walkthrough does.
func TestReplay_ExamplesRoundTrip(t *testing.T) {
	t.Parallel()
	for _, lang := range exampleLanguages {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			data := filepath.Join(dir, "sandbank.db")
			cert, key := newTPP(t, dir, data, "Example TPP", "--roles", "PSP_AI,PSP_PI")
			d := startDaemon(t, data)
			op := filepath.Join(dir, "operator")
			if out, stderr, code := sandbankd(t, "", "cert", "new", "--operator", "--name", "Example operator", "--out", op, "--data", data); code != 0 {
				t.Fatalf("cert new --operator: %d %s %s", code, out, stderr)
			}
			if out, code := (exampleRun{lang: lang, what: "its default setup", base: d.URLs[0], cert: cert, key: key, op: op}).run(t); code != 0 {
				t.Fatalf("examples/%s: exit %d\n%s", lang, code, out)
			}
			har := filepath.Join(dir, lang+".har")
			recordHAR(t, data, har)
			out, stderr, code := replayed(t, har, "--fresh")
			allMatch(t, "examples/"+lang, out, stderr, code, 8)
		})
	}
}

// fixture is a HAR of bank/replay's testdata.
func fixture(t *testing.T, name string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "..", "bank", "replay", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// editedFixture writes a copy of Chrome's fixture whose accounts answer
// holds another balance and another account name.
func editedFixture(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(fixture(t, "chrome-devtools.har"))
	if err != nil {
		t.Fatal(err)
	}
	// The answer is base64 in the file: the edit goes through the JSON.
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	content := doc["log"].(map[string]any)["entries"].([]any)[3].(map[string]any)["response"].(map[string]any)["content"].(map[string]any)
	text, err := base64.StdEncoding.DecodeString(content["text"].(string))
	if err != nil {
		t.Fatal(err)
	}
	// The first account's name and its three balances.
	content["text"] = strings.NewReplacer(`"24512.37"`, `"1.00"`, `"name":"Brukskonto"`, `"name":"Kari Nordmanns konto"`).Replace(string(text))
	delete(content, "encoding")
	out, _ := json.Marshal(doc)
	path := filepath.Join(dir, "edited.har")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplay_ReportAndExitStatus: a difference exits 1 with the table's
// row naming the path and both values; --ignore and --ignore-file leave
// it out (exit 0) and the JSON report lists it as ignored; --redact
// blanks the account name and numbers; --json writes the whole report.
func TestReplay_ReportAndExitStatus(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	edited := editedFixture(t, dir)
	out, stderr, code := replayed(t, edited, "--fresh")
	if code != 1 || !regexp.MustCompile(`(?m)^4 +GET /api-sandbox/v1/accounts\?withBalance=true +200 +200 +differs +\$\.accounts\[0\]\.name: recorded "Kari Nordmanns konto", new "Brukskonto" \(\+3 more\)$`).MatchString(out) ||
		!strings.Contains(stderr, "sandbankd: 1 of 5 entries differ from the recording; the report above says where") ||
		!strings.Contains(out, `$.accounts[0].balances[0].balanceAmount.amount: recorded "1.00", new "24512.37"`) {
		t.Fatalf("a difference: exit %d\n%s\n%s", code, out, stderr)
	}
	rules := filepath.Join(dir, "ignore.txt")
	if err := os.WriteFile(rules, []byte("# what this TPP renames\nGET /v1/accounts $.accounts[*].name\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = replayed(t, edited, "--fresh", "--ignore", "$.accounts[*].balances[*].balanceAmount.amount", "--ignore-file", rules, "--json")
	var rep struct {
		Matched, Differed int
		Exchanges         []struct {
			Ignored []struct {
				Path     string
				Recorded string
				Differs  bool
				Rule     string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || rep.Differed != 0 || rep.Matched != 4 {
		t.Fatalf("with ignore rules: exit %d %v\n%s\n%s", code, err, out, stderr)
	}
	var differing []string
	for _, ig := range rep.Exchanges[3].Ignored {
		if ig.Differs {
			differing = append(differing, ig.Path+" "+ig.Recorded+" "+ig.Rule)
		}
	}
	got := strings.Join(differing, "\n")
	if len(differing) != 4 || !strings.Contains(got, `$.accounts[0].name "Kari Nordmanns konto" GET /v1/accounts $.accounts[*].name`) ||
		!strings.Contains(got, `$.accounts[0].balances[0].balanceAmount.amount "1.00" $.accounts[*].balances[*].balanceAmount.amount`) {
		t.Fatalf("the ignored values that differ:\n%s", got)
	}
	out, _, code = replayed(t, edited, "--fresh", "--json", "--redact")
	for _, personal := range []string{"Kari Nordmanns konto", "NO3815030123457", "15030123457", "13039319955"} {
		if strings.Contains(out, personal) {
			t.Errorf("the redacted report holds %s", personal)
		}
	}
	if code != 1 || !strings.Contains(out, `"recorded": "\"<name `) {
		t.Fatalf("--redact: exit %d\n%s", code, out)
	}
}

// TestReplay_UsageAndBadInput: mistakes in the command line exit 2 with
// the usage line; a HAR that cannot be replayed exits 2 naming the entry.
func TestReplay_UsageAndBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notHAR := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notHAR, []byte("GET /v1/accounts\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "old.har")
	data, _ := os.ReadFile(fixture(t, "insomnia.har"))
	if err := os.WriteFile(old, []byte(strings.Replace(string(data), `"version": "1.2"`, `"version": "1.1"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	har := fixture(t, "chrome-devtools.har")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "give one HAR file, not 0 arguments"},
		{[]string{har, har}, "give one HAR file, not 2 arguments"},
		{[]string{har, "--fresh", "--data", filepath.Join(dir, "x.db")}, "--fresh replays against a new bank of its own"},
		{[]string{har, "--scenario", "s.json"}, "--scenario loads a scenario into the new bank of --fresh"},
		{[]string{har, "--fresh", "--clock", "later"}, `--clock is real or recorded, not "later"`},
		{[]string{har, "--clock", "recorded"}, "--clock recorded moves the sandbox clock, which only the bank's operator may"},
		{[]string{har, "--fresh", "--ignore", "balances.amount"}, "--ignore: ignore rule \"balances.amount\": \"balances.amount\" is neither a method"},
		{[]string{har, "--fresh", "--cert", "c.pem"}, "--cert and --key go together"},
		{[]string{filepath.Join(dir, "none.har"), "--fresh"}, "the HAR file: open"},
		{[]string{notHAR, "--fresh"}, notHAR + ": not a HAR file: invalid character 'G' looking for beginning of value at line 1, column 1"},
		{[]string{old, "--fresh"}, old + ": a HAR 1.1 file: the replay reads HAR 1.2 and 1.3"},
	} {
		out, stderr, code := replayed(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || out != "" {
			t.Errorf("replay %q: exit %d, want 2 and %q:\n%s%s", c.args, code, c.want, out, stderr)
		}
	}
	out, stderr, code := replayed(t, "-h")
	if code != 0 || !strings.Contains(stderr, "Usage:\n  sandbankd replay FILE.har --fresh [--scenario FILE] [flags]") || !strings.Contains(stderr, "-national-id") || out != "" {
		t.Errorf("replay -h: %d\n%s", code, stderr)
	}
}

// TestReplay_SupportCaseWithScenario: a customer's case, a scenario file
// and the TPP's HAR of what happened after it, replays on a fresh bank
// with the scenario loaded first; without it the case's reads differ.
func TestReplay_SupportCaseWithScenario(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "sandbank.db")
	cert, key := newTPP(t, dir, data, "Case TPP")
	out, stderr, code := sandbankd(t, `{"customerNumber": "01017012345", "name": "Kari Nordmann", "type": "private"}`,
		"call", "POST", "/v1/sandbox/customers", "--body", "-", "--body-only", "--data", data, "--cert", cert, "--key", key)
	var customer struct {
		ID string `json:"customerId"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &customer) != nil {
		t.Fatalf("create the customer: %d %s %s", code, out, stderr)
	}
	scenario := filepath.Join(dir, "case.json")
	if out, stderr, code := sandbankd(t, "", "scenario", "save", scenario, "--data", data); code != 0 {
		t.Fatalf("scenario save: %d %s %s", code, out, stderr)
	}
	d := startDaemon(t, data)
	if out, stderr, code := sandbankd(t, "", "call", "GET", "/v1/sandbox/customers/"+customer.ID+"?withAccounts=true", "--url", d.URLs[0], "--cert", cert, "--key", key, "--fail"); code != 0 {
		t.Fatalf("read the customer: %d %s %s", code, out, stderr)
	}
	har := filepath.Join(dir, "case.har")
	recordHAR(t, data, har)
	out, stderr, code = replayed(t, har, "--fresh", "--scenario", scenario)
	allMatch(t, "the case with its scenario", out, stderr, code, 1)
	if out, _, code := replayed(t, har, "--fresh"); code != 1 || !strings.Contains(out, "status: recorded 200, new 404") {
		t.Fatalf("the case without its scenario: exit %d\n%s", code, out)
	}
}
