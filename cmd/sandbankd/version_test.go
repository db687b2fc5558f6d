package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sandbank/app/apptest"
)

// A release links its version in (make dist does, with git describe):
// --version prints it, and GET / shows it.
func TestVersion_LinkedInShowsInFlagAndLandingPage(t *testing.T) {
	const version = "v9.8.7-3-gabc1234-dirty"
	bin := filepath.Join(t.TempDir(), "sandbankd")
	build := exec.Command("go", "build", "-ldflags", "-X sandbank/app.version="+version, "-o", bin, ".")
	build.Env = append(build.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"--version"}, {"-version"}, {"serve", "--version"}} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil || string(out) != "sandbankd "+version+"\n" {
			t.Errorf("sandbankd %s: %q %v", strings.Join(args, " "), out, err)
		}
	}
	d := apptest.StartProcess(t, bin, nil, "--data", filepath.Join(t.TempDir(), "sandbank.db"), "--addr", "127.0.0.1:0", "--tls-addr", "")
	resp, err := http.Get(d.URLs[0] + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var landing struct {
		Version string `json:"version"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&landing); err != nil || landing.Version != version {
		t.Fatalf("GET / version %q, %v", landing.Version, err)
	}
	// Without the link flag the version names the build, never nothing.
	out, _, code := sandbankd(t, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "sandbankd devel") {
		t.Fatalf("unlinked --version: %d %q", code, out)
	}
}

// A binary built as make builds it (go build -buildvcs=auto, which wins
// over a GOFLAGS of -buildvcs=false) in a git checkout names the commit it
// was built from, and whether the tree was modified: --version, GET / and
// the HAR export's creator.version alike.
func TestVersion_BuildNamesItsCommit(t *testing.T) {
	if err := exec.Command("git", "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skipf("the source is not a git checkout git can read (%v): Go records no commit, and --version says devel", err)
	}
	bin := filepath.Join(t.TempDir(), "sandbankd")
	build := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, ".")
	build.Env = append(build.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	m := regexp.MustCompile(`^sandbankd (devel ([0-9a-f]{12})( \(modified\))?)\n$`).FindStringSubmatch(string(out))
	if err != nil || m == nil {
		t.Fatalf("--version: %q %v, want sandbankd devel COMMIT", out, err)
	}
	if err := exec.Command("git", "cat-file", "-e", m[2]+"^{commit}").Run(); err != nil {
		t.Fatalf("--version names %s, which is no commit of this checkout: %v", m[2], err)
	}
	version := m[1]
	dir := t.TempDir()
	data := filepath.Join(dir, "sandbank.db")
	d := apptest.StartProcess(t, bin, nil, "--data", data, "--addr", "127.0.0.1:0", "--tls-addr", "")
	resp, err := http.Get(d.URLs[0] + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var landing struct {
		Version string `json:"version"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&landing); err != nil || landing.Version != version {
		t.Fatalf("GET / version %q, %v; want %q", landing.Version, err, version)
	}
	har := filepath.Join(dir, "traffic.har")
	if out, stderr, code := sandbankd(t, "", "log", "--har", har, "--data", data); code != 0 {
		t.Fatalf("log --har: %d %s %s", code, out, stderr)
	}
	harData, err := os.ReadFile(har)
	if err != nil {
		t.Fatal(err)
	}
	creator := apptest.CheckHAR(t, harData)["log"].(map[string]any)["creator"].(map[string]any)
	if creator["version"] != version {
		t.Fatalf("HAR creator %v, want version %q", creator, version)
	}
}

// With --public-url, the bank started by the real binary puts the public
// URL in scaRedirect, answers to its host name on a loopback listener, and
// says so in its banner.
func TestServe_PublicURL(t *testing.T) {
	const public = "https://bank.example:8443"
	dir := t.TempDir()
	data := filepath.Join(dir, "sandbank.db")
	d := startDaemon(t, data, "--public-url", public+"/")
	if !strings.Contains(d.Stdout(), "\n  scaRedirect links point at "+public+" (--public-url)\n") {
		t.Fatalf("banner: %s", d.Stdout())
	}
	out, stderr, code := sandbankd(t, "", "cert", "new", "--org", "933012867", "--name", "Public TPP", "--out", filepath.Join(dir, "tpp"), "--data", data, "--url", d.URLs[0])
	if code != 0 {
		t.Fatalf("cert new: %d\n%s\n%s", code, out, stderr)
	}
	cert, key := filepath.Join(dir, "tpp", "cert.pem"), filepath.Join(dir, "tpp", "key.pem")
	out, _, code = sandbankd(t, "", "call", "POST", "/v1/consents", "-H", "TPP-Redirect-URI: https://tpp.example/cb", "-H", "TPP-Session-ID: s-1",
		"--cert", cert, "--key", key, "--url", d.URLs[0])
	if code != 0 || !strings.Contains(out, "201 Created") || !strings.Contains(out, `"href": "`+public+`/sca/enc!!`) {
		t.Fatalf("POST /v1/consents:\n%s", out)
	}
	for host, want := range map[string]int{"bank.example:8443": 200, "bank.example": 200, "localhost": 200, "evil.example:8443": 403} {
		req, err := http.NewRequest("GET", d.URLs[0]+"/healthz", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
	_, stderr, code = sandbankd(t, "", "--data", filepath.Join(dir, "other.db"), "--public-url", "bank.example:8443")
	if code != 2 || !strings.Contains(stderr, "--public-url must be an http or https URL") {
		t.Fatalf("a bad --public-url: %d %s", code, stderr)
	}
}

// sandbankd health is the health check of a container without curl: 0
// when the bank answers /healthz, 1 when nothing listens, 2 on a bad
// command line.
func TestHealth_ExitsZeroOnlyWhenTheBankServes(t *testing.T) {
	d := startDaemon(t, filepath.Join(t.TempDir(), "sandbank.db"))
	out, stderr, code := sandbankd(t, "", "health", "--url", d.URLs[0]+"/")
	if code != 0 || out != d.URLs[0]+"/healthz: {\"status\":\"ok\"}\n" {
		t.Fatalf("health of a running bank: %d %q %q", code, out, stderr)
	}
	if err := d.Stop(t); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = sandbankd(t, "", "health", "--url", d.URLs[0], "--timeout", "30s")
	if code != 1 || !strings.Contains(stderr, "is the bank running") {
		t.Fatalf("health of a stopped bank: %d %q", code, stderr)
	}
	for _, args := range [][]string{{"health", "extra"}, {"health", "--url", "::"}, {"health", "--timeout", "0s"}} {
		if _, stderr, code := sandbankd(t, "", args...); code != 2 {
			t.Errorf("sandbankd %v: %d %q", args, code, stderr)
		}
	}
}
