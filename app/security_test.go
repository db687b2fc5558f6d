package app_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sandbank/app"
	"sandbank/bank/scenario"
)

// The security tests of docs/SECURITY.md for the folders and listeners.
// TestScenarios_FolderSafety (app_test.go) covers the first names.

// listing returns the names in a folder.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// fileSum is a digest of a file.
func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(data)
}

func TestSecurity_ScenarioNamesStayInTheFolder(t *testing.T) {
	a := open(t, app.Config{WatchScenarios: true})
	dataDir, scenDir := listing(t, a.DataDir()), listing(t, a.ScenarioDir())
	parent := listing(t, filepath.Dir(a.DataDir()))
	sum := fileSum(t, a.DB.Path())
	for _, name := range []string{
		"../x", `..\x`, "..", "../../etc/passwd", "x/../../y", "x/..", `x\..\..\y`, "a/b", `a\b`,
		"/tmp/x", "/etc/passwd.json", `C:\x`, `\\server\share\x`, "~/x",
		"x\x00y", "x\x00/../../y", "x\x00.json", "x\ny", " x", ".x", "-x",
		"%2e%2e%2fx", "..%2fx", "x\u2215..\u2215y",
		strings.Repeat("a", 101), strings.Repeat("a", 100_000), strings.Repeat("../", 1000) + "x",
	} {
		if err := a.CheckScenarioName(name); err == nil {
			t.Errorf("CheckScenarioName(%q) accepts it", name)
		}
		if _, err := a.SaveScenario(name, ""); err == nil {
			t.Errorf("SaveScenario(%q) succeeded", name)
		}
		if _, err := a.LoadScenario(name); err == nil {
			t.Errorf("LoadScenario(%q) succeeded", name)
		}
	}
	if !slices.Equal(listing(t, a.DataDir()), dataDir) || !slices.Equal(listing(t, a.ScenarioDir()), scenDir) || !slices.Equal(listing(t, filepath.Dir(a.DataDir())), parent) {
		t.Fatal("a refused name created a file")
	}
	if fileSum(t, a.DB.Path()) != sum {
		t.Fatal("a refused name changed the data file")
	}
	// The longest name that is allowed stays in the folder.
	path, err := a.SaveScenario(strings.Repeat("a", 100), "")
	if err != nil || filepath.Dir(path) != a.ScenarioDir() {
		t.Fatalf("a 100-character name: %s %v", path, err)
	}
}

func TestSecurity_ScenarioSymlinksAreNotFollowed(t *testing.T) {
	a := open(t, app.Config{WatchScenarios: true})
	outside := t.TempDir()
	// A valid scenario outside the folder, linked into it.
	saved, err := a.SaveScenario("real", "")
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(outside, "elsewhere.json")
	if err := os.Rename(saved, target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(a.ScenarioDir(), "linked.json")); err != nil {
		t.Fatal(err)
	}
	sum := fileSum(t, a.DB.Path())
	if _, err := a.LoadScenario("linked"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a symlink to a file outside is loaded: %v", err)
	}
	if fileSum(t, a.DB.Path()) != sum {
		t.Fatal("a refused load changed the data file")
	}
	// A dangling link is a name taken: saving does not write through it.
	dangling := filepath.Join(outside, "written.json")
	if err := os.Symlink(dangling, filepath.Join(a.ScenarioDir(), "new.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SaveScenario("new", ""); err == nil {
		t.Fatal("SaveScenario wrote over a symlink")
	}
	if _, err := os.Lstat(dangling); err == nil {
		t.Fatal("SaveScenario wrote through a symlink to a file outside the folder")
	}
	// A linked folder in the scenarios folder is not a way out either.
	if err := os.Symlink(outside, filepath.Join(a.ScenarioDir(), "sub")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.LoadScenario("sub/elsewhere"); err == nil {
		t.Fatal("a scenario in a linked folder is loaded")
	}
	if slices.ContainsFunc(a.Scenarios(), func(f scenario.File) bool { return f.Name == "linked.json" || f.Name == "new.json" }) {
		t.Fatal("the folder's list shows a symlink")
	}
}

// parseFlags parses a command line as both binaries do; their log (and so
// the listener warning) goes to stderr.
func parseFlags(t *testing.T, stderr *bytes.Buffer, args ...string) app.Config {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := app.AddFlags(fs)
	if err := fs.Parse(append([]string{"--data", filepath.Join(t.TempDir(), "sandbank.db")}, args...)); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.Config(stderr)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// withFreePort keeps an address's host and lets the kernel choose the port.
func withFreePort(t *testing.T, addr string) string {
	t.Helper()
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort(host, "0")
}

func TestSecurity_ListensOnLoopbackByDefault(t *testing.T) {
	var stderr bytes.Buffer
	cfg := parseFlags(t, &stderr)
	for _, addr := range []string{cfg.Addr, cfg.TLSAddr} {
		host, _, err := net.SplitHostPort(addr)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			t.Fatalf("the default address %q is not a loopback IP", addr)
		}
	}
	cfg.Addr, cfg.TLSAddr = withFreePort(t, cfg.Addr), withFreePort(t, cfg.TLSAddr)
	a := open(t, cfg)
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	var ports []string
	for _, raw := range a.URLs() {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		ips, err := net.LookupIP(u.Hostname())
		if err != nil || len(ips) == 0 {
			t.Fatalf("%s: %v", raw, err)
		}
		for _, ip := range ips {
			if !ip.IsLoopback() {
				t.Fatalf("%s is served on %s, not loopback", raw, ip)
			}
		}
		ports = append(ports, u.Port())
	}
	if strings.Contains(stderr.String(), "WARN") {
		t.Fatalf("a warning for loopback listeners: %s", stderr.String())
	}
	// Other machines cannot connect: the ports are closed on every other
	// address of this machine.
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, ad := range addrs {
		ipnet, ok := ad.(*net.IPNet)
		if !ok || ipnet.IP.IsLoopback() || ipnet.IP.IsLinkLocalUnicast() {
			continue
		}
		for _, port := range ports {
			if conn, err := net.Dial("tcp", net.JoinHostPort(ipnet.IP.String(), port)); err == nil {
				_ = conn.Close()
				t.Errorf("port %s answers on %s", port, ipnet.IP)
			}
		}
	}
}

func TestSecurity_WarnsOnANonLoopbackAddress(t *testing.T) {
	var stderr bytes.Buffer
	a := open(t, parseFlags(t, &stderr, "--addr", "0.0.0.0:0", "--tls-addr", "localhost:0"))
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	log := stderr.String()
	if strings.Count(log, "level=WARN") != 1 || !strings.Contains(log, "not on loopback only") || !strings.Contains(log, "other machines can reach it") {
		t.Fatalf("stderr: %q", log)
	}
	// The desktop app's Server screen changes addresses and starts again:
	// the warning comes each time.
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	a.SetAddrs("127.0.0.1:0", "0.0.0.0:0")
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	if strings.Count(stderr.String(), "level=WARN") != 2 {
		t.Fatalf("stderr: %q", stderr.String())
	}
}

// TestSecurity_AnyTPPOperatorWarnsOffLoopback: --operator-access any-tpp
// warns at start when a listener is not on loopback, and says what it
// shares; on loopback it warns nothing, and the stored setting stands at
// the next start without the flag.
func TestSecurity_AnyTPPOperatorWarnsOffLoopback(t *testing.T) {
	var stderr bytes.Buffer
	a := open(t, parseFlags(t, &stderr, "--addr", "127.0.0.1:0", "--tls-addr", "", "--operator-access", "any-tpp"))
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr.String(), "level=WARN") || !a.Bank.Ops.AnyTPPIsOperator() {
		t.Fatalf("any-tpp on loopback: any TPP the operator %v; stderr %q", a.Bank.Ops.AnyTPPIsOperator(), stderr.String())
	}
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	a.SetAddrs("0.0.0.0:0", "")
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	log := stderr.String()
	if strings.Count(log, "level=WARN") != 2 || !strings.Contains(log, "operator access is any-tpp") || !strings.Contains(log, "--operator-access operator") {
		t.Fatalf("stderr: %q", log)
	}
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := app.AddFlags(fs)
	if err := fs.Parse([]string{"--operator-access", "everyone"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Config(&stderr); !errors.Is(err, app.ErrUsage) || !strings.Contains(err.Error(), "--operator-access must be operator or any-tpp") {
		t.Fatalf("a bad --operator-access: %v", err)
	}
}

// rawConn opens a connection to a listener of a, with a generous deadline
// for the whole exchange.
func rawConn(t *testing.T, a *app.App) net.Conn {
	t.Helper()
	u, err := url.Parse(a.URLs()[0])
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(60 * time.Second))
	return conn
}

// A slow body, an idle keep-alive connection and a header of 100 KiB do
// not hold the bank's resources: the connection is timed out or the
// request refused. An unsigned request that announces a body and sends
// none is answered at once: the signature is checked before the body is
// read.
func TestSecurity_ConnectionsAreBounded(t *testing.T) {
	off := false
	a := open(t, app.Config{Addr: "127.0.0.1:0", RequireSignature: &off, Timeouts: app.Timeouts{Read: time.Second, Idle: time.Second}})
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(a.URLs()[0], "http://")

	// A body that never ends: cut off after the read timeout, long before
	// the 60 s the test allows.
	conn := rawConn(t, a)
	start := time.Now()
	fmt.Fprintf(conn, "POST /v1/sandbox/customers HTTP/1.1\r\nHost: %s\r\nX-Request-ID: slow\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"customerNumber\": ", host)
	if _, err := io.ReadAll(conn); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("a slow body: %v after %s", err, time.Since(start))
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("a slow body held the connection for %s", took)
	}

	// An idle keep-alive connection is closed.
	conn = rawConn(t, a)
	fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", host)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %v %v", resp, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	start = time.Now()
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("an idle connection: %v", err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("an idle connection stayed open %s", took)
	}

	// Headers over the limit are refused.
	conn = rawConn(t, a)
	fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: %s\r\nX-Big: %s\r\n\r\n", host, strings.Repeat("a", 100<<10))
	if resp, err := http.ReadResponse(bufio.NewReader(conn), nil); err != nil || resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("a 100 KiB header: %v %v", resp, err)
	}
}

// A listener holds at most MaxConnectionsPerAddress connections of one
// client address and MaxConnections in all. At a limit the connection
// idle the longest makes room for a new one (of the address, at its
// limit); a new connection that finds none idle is closed at once, not
// left waiting in the operating system's queue. Slow headers and bodies
// count as busy. TestSecurity_BusyConnectionsAreShared and
// TestSecurity_ManyConnectionsFromOneAddressBlockNobody
// (connections_test.go) go on from here.
func TestSecurity_ConnectionsAreLimited(t *testing.T) {
	off := false // so that the bank waits for a slow body
	a := open(t, app.Config{Addr: "127.0.0.1:0", RequireSignature: &off})
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(a.URLs()[0], "http://")
	needLoopbackAddresses(t, addr)

	// 127.0.0.2 holds its limit of idle keep-alive connections; one more
	// is served, and its longest-idle one is closed.
	idle := make([]net.Conn, app.MaxConnectionsPerAddress)
	for i := range idle {
		idle[i] = dialFrom(t, "127.0.0.2", addr)
		checkAnswered(t, idle[i], fmt.Sprintf("127.0.0.2's connection %d", i+1))
	}
	checkAnswered(t, dialFrom(t, "127.0.0.2", addr), "127.0.0.2's connection over its limit")
	checkClosed(t, idle[0], "127.0.0.2's longest-idle connection")
	checkOpen(t, idle[1], "127.0.0.2's second connection")

	// 127.0.0.3 holds its limit of busy connections: slow bodies, and
	// slow headers last. One more, with none idle to give up, is closed
	// at once.
	for i := range app.MaxConnectionsPerAddress {
		conn := dialFrom(t, "127.0.0.3", addr)
		var err error
		if i < app.MaxConnectionsPerAddress-8 {
			err = startSlowBody(conn, addr)
		} else {
			_, err = fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: %s\r\n", addr)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	over := dialFrom(t, "127.0.0.3", addr)
	_, _ = fmt.Fprintf(over, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	checkClosed(t, over, "127.0.0.3's connection over its limit")

	// The listener holds MaxConnections: 127.0.0.4 is served, and the
	// connection idle the longest of all, 127.0.0.2's second, is closed.
	checkAnswered(t, dialFrom(t, "127.0.0.4", addr), "127.0.0.4's connection")
	checkClosed(t, idle[1], "the longest-idle connection of the listener")
	checkOpen(t, idle[2], "127.0.0.2's third connection")
}

// With signatures required, an unsigned POST that announces a body and
// sends none is refused at once, not awaited.
func TestSecurity_SignatureIsCheckedBeforeTheBody(t *testing.T) {
	a := open(t, app.Config{Addr: "127.0.0.1:0"})
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	conn := rawConn(t, a)
	fmt.Fprintf(conn, "POST /v1/sandbox/customers HTTP/1.1\r\nHost: %s\r\nX-Request-ID: nobody\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n", strings.TrimPrefix(a.URLs()[0], "http://"))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(body), "SIGNATURE_MISSING") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

// TestSecurity_TLS12OffersOnlyAEADSuites: a TLS 1.2 client that offers
// only CBC suites gets no connection; one that offers an AEAD suite gets
// it, and TLS 1.3 is as it was.
func TestSecurity_TLS12OffersOnlyAEADSuites(t *testing.T) {
	a := open(t, app.Config{TLSAddr: "127.0.0.1:0"})
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(a.URLs()[0])
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(a.Authority.Cert)
	handshake := func(max uint16, suites ...uint16) (tls.ConnectionState, error) {
		conn, err := tls.Dial("tcp", net.JoinHostPort("127.0.0.1", u.Port()), &tls.Config{
			RootCAs: roots, ServerName: "localhost", MaxVersion: max, CipherSuites: suites,
		})
		if err != nil {
			return tls.ConnectionState{}, err
		}
		defer func() { _ = conn.Close() }()
		return conn.ConnectionState(), nil
	}
	for _, s := range []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256} {
		if _, err := handshake(tls.VersionTLS12, s); err == nil {
			t.Errorf("a TLS 1.2 handshake with %s succeeded", tls.CipherSuiteName(s))
		}
	}
	for _, s := range []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256} {
		st, err := handshake(tls.VersionTLS12, s)
		if err != nil || st.Version != tls.VersionTLS12 || st.CipherSuite != s {
			t.Errorf("a TLS 1.2 handshake with %s: %v (version %x, suite %s)", tls.CipherSuiteName(s), err, st.Version, tls.CipherSuiteName(st.CipherSuite))
		}
	}
	if st, err := handshake(0); err != nil || st.Version != tls.VersionTLS13 {
		t.Errorf("a default handshake: %v, version %x; want TLS 1.3", err, st.Version)
	}
}
