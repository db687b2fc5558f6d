package app_test

import (
	"bytes"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandbank/app"
	"sandbank/app/apptest"
	"sandbank/bank"
	"sandbank/bank/scenario"
	"sandbank/storage"
)

func open(t *testing.T, cfg app.Config) *app.App {
	t.Helper()
	switch {
	case cfg.DataPath != "":
	case cfg.Clock == nil:
		cfg.DataPath = apptest.DataFile(t)
	default:
		cfg.DataPath = filepath.Join(t.TempDir(), "sandbank.db")
	}
	a, err := app.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

func TestApp_StartStopAndAddresses(t *testing.T) {
	a := open(t, app.Config{Addr: "127.0.0.1:0", TLSAddr: "127.0.0.1:0"})
	if a.Running() || len(a.URLs()) != 0 {
		t.Fatal("Open listens already")
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	urls := a.URLs()
	if len(urls) != 2 || !strings.HasPrefix(urls[0], "http://127.0.0.1:") || !strings.HasPrefix(urls[1], "https://localhost:") {
		t.Fatalf("URLs %v", urls)
	}
	if err := a.Start(); err == nil {
		t.Fatal("a second Start succeeds")
	}
	var banner bytes.Buffer
	if err := a.Banner(&banner); err != nil || !strings.Contains(banner.String(), urls[0]+"/v1") || !strings.Contains(banner.String(), "/healthz") {
		t.Fatalf("banner %q %v", banner.String(), err)
	}
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(urls[0] + "/healthz"); err == nil {
		t.Fatal("the listener still answers after Stop")
	}
	// A busy address is named in the error, with the OS's reason and what
	// to do; the other listener serves all the same.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busy.Close() }()
	a.SetAddrs(busy.Addr().String(), "127.0.0.1:0")
	err = a.Start()
	var le *app.ListenError
	if !errors.As(err, &le) || le.Listener != "HTTP" || le.Addr != busy.Addr().String() {
		t.Fatalf("start on a busy HTTP address: %v", err)
	}
	for _, want := range []string{"HTTP listener", busy.Addr().String(), "address already in use", "another program listens there", "--addr"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
	if urls := a.URLs(); len(urls) != 1 || !strings.HasPrefix(urls[0], "https://localhost:") {
		t.Fatalf("the HTTPS listener does not serve: %v", urls)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := client.Get(a.URLs()[0] + "/healthz")
	if err != nil {
		t.Fatalf("HTTPS beside a busy HTTP address: %v", err)
	}
	_ = resp.Body.Close()
	banner.Reset()
	_ = a.Banner(&banner)
	if !strings.Contains(banner.String(), a.URLs()[0]+"/healthz") {
		t.Fatalf("banner with HTTPS only %q", banner.String())
	}
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	// Both busy: nothing serves, and the banner says why.
	a.SetAddrs(busy.Addr().String(), busy.Addr().String())
	err = a.Start()
	if err == nil || a.Running() || strings.Count(err.Error(), busy.Addr().String()) < 2 || !strings.Contains(err.Error(), "--tls-addr") {
		t.Fatalf("both busy: %v, running %v", err, a.Running())
	}
	banner.Reset()
	_ = a.Banner(&banner)
	if !strings.Contains(banner.String(), "none could start") {
		t.Fatalf("banner when none could start %q", banner.String())
	}
	// A malformed address is named too.
	a.SetAddrs("not an address", "")
	if err := a.Start(); !errors.As(err, &le) || le.Addr != "not an address" || a.Running() {
		t.Fatalf("a malformed address: %v", err)
	}
	a.SetAddrs("", "")
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	banner.Reset()
	_ = a.Banner(&banner)
	if !strings.Contains(banner.String(), "no listener") {
		t.Fatalf("banner without listeners %q", banner.String())
	}
}

func TestApp_SecondOpenIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbank.db")
	open(t, app.Config{DataPath: path})
	_, err := app.Open(app.Config{DataPath: path})
	if !errors.Is(err, storage.ErrInUse) {
		t.Fatalf("second open: %v", err)
	}
}

func TestApp_SettingsOverridesAndLivePolicy(t *testing.T) {
	off := false
	path := filepath.Join(t.TempDir(), "sandbank.db")
	a, err := app.Open(app.Config{DataPath: path, Trust: bank.TrustStore, RequireSignature: &off})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := a.Bank.Ops.Settings()
	if st.TrustMode != bank.TrustStore || st.RequireSignature {
		t.Fatalf("overrides not applied: %+v", st)
	}
	_ = a.Close()
	// Without overrides the stored settings stand.
	a = open(t, app.Config{DataPath: path, Addr: "127.0.0.1:0"})
	if st, _ := a.Bank.Ops.Settings(); st.TrustMode != bank.TrustStore || st.RequireSignature {
		t.Fatalf("stored settings lost: %+v", st)
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	unsigned := func() int {
		req, _ := http.NewRequest("GET", a.URLs()[0]+"/v1/sandbox/customers", nil)
		req.Header.Set("X-Request-ID", "x")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	if got := unsigned(); got != 200 {
		t.Fatalf("unsigned with requireSignature off: %d", got)
	}
	// A settings change applies to the next request, without a restart.
	if _, err := a.Bank.Ops.UpdateSettings(func(s *bank.Settings) { s.RequireSignature = true }); err != nil {
		t.Fatal(err)
	}
	if got := unsigned(); got != 400 {
		t.Fatalf("unsigned after requireSignature on: %d", got)
	}
}

func TestFlags_Config(t *testing.T) {
	parse := func(args ...string) (app.Config, error) {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		f := app.AddFlags(fs)
		if err := fs.Parse(args); err != nil {
			return app.Config{}, err
		}
		return f.Config(&bytes.Buffer{})
	}
	cfg, err := parse()
	if err != nil || cfg.Trust != "" || cfg.RequireSignature != nil || cfg.ResponseSigning != "" || cfg.Addr != app.DefaultAddr || cfg.TLSAddr != app.DefaultTLSAddr {
		t.Fatalf("defaults %+v %v", cfg, err)
	}
	for _, mode := range []string{"rsa", "ecdsa", "off"} {
		if cfg, err := parse("--response-signing", mode); err != nil || cfg.ResponseSigning != mode {
			t.Errorf("--response-signing %s: %q %v", mode, cfg.ResponseSigning, err)
		}
	}
	cfg, err = parse("--trust", "store", "--require-signature=false", "--addr", "", "--data", "x.db")
	if err != nil || cfg.Trust != "store" || cfg.RequireSignature == nil || *cfg.RequireSignature || cfg.Addr != "" || cfg.DataPath != "x.db" {
		t.Fatalf("given %+v %v", cfg, err)
	}
	for _, bad := range [][]string{{"--trust", "all"}, {"--log-level", "loud"}, {"--response-signing", "RSA"}, {"--response-signing", ""}, {"--response-signing", "ed25519"}} {
		if _, err := parse(bad...); !errors.Is(err, app.ErrUsage) {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

func TestScenarios_FolderSafety(t *testing.T) {
	a := open(t, app.Config{WatchScenarios: true})
	if len(a.Scenarios()) != 4 {
		t.Fatalf("%d example scenarios", len(a.Scenarios()))
	}
	for _, name := range []string{"../evil", "/etc/passwd", "a/b", "..", "", ".hidden", strings.Repeat("x", 200)} {
		if _, err := a.SaveScenario(name, ""); err == nil {
			t.Errorf("SaveScenario(%q) succeeded", name)
		}
		if _, err := a.LoadScenario(name); err == nil {
			t.Errorf("LoadScenario(%q) succeeded", name)
		}
	}
	path, err := a.SaveScenario("mine", "note")
	if err != nil || filepath.Dir(path) != a.ScenarioDir() {
		t.Fatalf("save: %s %v", path, err)
	}
	if _, err := a.SaveScenario("mine.json", ""); err == nil {
		t.Fatal("an existing file is overwritten")
	}
	// A deleted example is not written again on the next start.
	if err := os.Remove(filepath.Join(a.ScenarioDir(), "empty-bank.json")); err != nil {
		t.Fatal(err)
	}
	dataPath := a.DB.Path()
	_ = a.Close()
	a = open(t, app.Config{DataPath: dataPath, WatchScenarios: true})
	for _, f := range a.Scenarios() {
		if f.Name == "empty-bank.json" {
			t.Fatal("a deleted example came back")
		}
	}
	n, err := a.LoadScenario("corporate-two-approvers")
	if err != nil || n.Customers != 3 || n.Engagements != 2 {
		t.Fatalf("load example: %+v %v", n, err)
	}
}

// A bank without a window leaves the scenarios folder alone unless asked;
// the folder is listed as a stream and once per file version, so a large
// file costs time to list but not memory, and one over the import limit is
// listed with why, unread.
func TestScenarios_ListingIsBounded(t *testing.T) {
	headless := open(t, app.Config{})
	if _, err := os.Stat(headless.ScenarioDir()); !errors.Is(err, fs.ErrNotExist) || len(headless.Scenarios()) != 0 {
		t.Fatalf("a bank without --watch-scenarios made or read the folder: %v, %d files", err, len(headless.Scenarios()))
	}
	_ = headless.Close()

	a := open(t, app.Config{DataPath: headless.DB.Path(), WatchScenarios: true})
	// A scenario of 200,000 transactions (about 30 MB): its counts come
	// from a stream.
	var b strings.Builder
	b.WriteString(`{"format": "sandbank-scenario/1", "note": "big", "customers": [{"customerNumber": "1", "name": "A", "type": "private"}], "accounts": [{"customerNumber": "1", "accountName": "A", "bban": "12345678903", "currency": "NOK", "product": "P", "cashAccountType": "CACC", "creditLine": 0, "balances": [], "transactions": [`)
	for i := range 200_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"bookingDate": "2026-01-02", "valueDate": "2026-01-02", "transactionAmount": {"amount": %d, "currency": "NOK"}, "remittanceInformationUnstructured": "Betaling nummer %d med litt tekst"}`, i, i)
	}
	b.WriteString(`]}]}`)
	big := filepath.Join(a.ScenarioDir(), "big.json")
	if err := os.WriteFile(big, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	// A note over 64 KiB: listed with why it cannot be loaded, the
	// reason import gives.
	long := filepath.Join(a.ScenarioDir(), "long.json")
	if err := os.WriteFile(long, []byte(`{"format": "sandbank-scenario/1", "note": "`+strings.Repeat("n", scenario.MaxNote+1)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// A file over the import limit (sparse: it takes no disk).
	huge, err := os.Create(filepath.Join(a.ScenarioDir(), "huge.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := huge.Truncate(app.MaxScenarioFile + 1); err != nil {
		t.Fatal(err)
	}
	_ = huge.Close()
	var files map[string]scenario.File
	deadline := time.Now().Add(5 * time.Minute)
	for {
		files = map[string]scenario.File{}
		for _, f := range a.Scenarios() {
			files[f.Name] = f
		}
		if _, ok := files["huge.json"]; ok && files["big.json"].Size == int64(b.Len()) && files["long.json"].Size > scenario.MaxNote {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the folder did not list the new files: %+v", files)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if f := files["big.json"]; f.Err != nil || f.Note != "big" || f.Counts.Transactions != 200_000 || f.Counts.Accounts != 1 || f.Counts.Customers != 1 {
		t.Fatalf("big.json: %+v", f)
	}
	if f := files["huge.json"]; f.Err == nil || !strings.Contains(f.Err.Error(), fmt.Sprintf("more than the %d MiB", app.MaxScenarioFile>>20)) {
		t.Fatalf("huge.json: %+v", f)
	}
	tooLong := "note: must be at most 65536 bytes (64 KiB), not 65537"
	if f := files["long.json"]; f.Err == nil || !strings.HasPrefix(f.Summary(), "cannot be loaded: "+tooLong) {
		t.Fatalf("long.json: %+v", f)
	}
	if _, err := a.LoadScenario("long"); err == nil || !strings.Contains(err.Error(), tooLong) {
		t.Fatalf("loading long.json: %v", err)
	}
	if _, err := a.LoadScenario("huge"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than the %d MiB", app.MaxScenarioFile>>20)) {
		t.Fatalf("loading huge.json: %v", err)
	}
}
