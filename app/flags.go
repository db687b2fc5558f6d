package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"sandbank/bank"
)

// ErrUsage marks a mistake in the command line.
var ErrUsage = errors.New("usage")

// Flags are the command-line flags both binaries take.
type Flags struct {
	fs         *flag.FlagSet
	data       *string
	addr       *string
	tlsAddr    *string
	trust      *string
	requireSig *bool
	strict     *bool
	signing    *string
	opAccess   *string
	opCertOut  *string
	watchScen  *bool
	logLevel   *string
	publicURL  *string
	pprof      *string
	version    *bool
}

// AddFlags adds --data, --addr, --tls-addr, --public-url, --trust,
// --require-signature, --strict, --response-signing, --operator-access,
// --operator-cert-out, --watch-scenarios, --log-level, --pprof and
// --version to fs.
func AddFlags(fs *flag.FlagSet) *Flags {
	def, err := DefaultDataPath()
	if err != nil {
		def = "sandbank.db"
	}
	return &Flags{
		fs:         fs,
		data:       fs.String("data", def, "the data file (bbolt)"),
		addr:       fs.String("addr", DefaultAddr, "HTTP listen address; empty disables HTTP"),
		tlsAddr:    fs.String("tls-addr", DefaultTLSAddr, "HTTPS listen address; empty disables HTTPS"),
		trust:      fs.String("trust", "", "trust mode: any (any certificate whose signature verifies) or store (also a chain to a trusted CA)"+stored("any")),
		requireSig: fs.Bool("require-signature", false, "refuse unsigned requests: --require-signature=true or =false"+stored("true")),
		strict:     fs.Bool("strict", false, "refuse what the bank otherwise accepts with a warning (odd headers, unknown fields, a keyId that writes part of the issuer): --strict=true or =false"+stored("false")),
		signing:    fs.String("response-signing", "", "how the bank signs its responses: rsa (RSA-2048), ecdsa (ECDSA P-256, far cheaper, for load tests) or off (no Signature; Digest stays)"+stored(bank.SigningRSA)),
		opAccess:   fs.String("operator-access", "", "who may do what concerns every TPP (settings, the clock, batch runs, every TPP's payments and traffic): operator (the window, sandbankd on the data file, operator certificates of the bank's CA) or any-tpp (every caller: for one team alone)"+stored(bank.OperatorOnly)),
		opCertOut:  fs.String("operator-cert-out", "", "a folder to write an operator certificate into at start (cert.pem, key.pem, ca.pem), for the CI job that started the bank in a container"),
		watchScen:  fs.Bool("watch-scenarios", false, "list and watch the scenarios folder next to the data file (the desktop app's window always does)"),
		logLevel:   fs.String("log-level", "info", "log level: debug (adds the signing string the bank rebuilt for each refused signature), info, warn or error"),
		publicURL:  fs.String("public-url", "", "the URL TPPs and PSUs reach the bank at, e.g. https://bank.example:8443 behind a proxy or in a container: scaRedirect links use it, and every listener also answers to its host name"),
		pprof:      fs.String("pprof", "", "serve the Go profiler (net/http/pprof) on this loopback address and port, like 127.0.0.1:6060, on a listener of its own; any other address is refused (docs/BENCHMARKS.md, \"Profiling a running bank\")"),
		version:    fs.Bool("version", false, "print the version and exit"),
	}
}

// stored ends the help of a flag whose value the data file keeps: without
// the flag, the data file's value stands, and a new data file takes
// newFile.
func stored(newFile string) string {
	return "; kept in the data file: without this flag the data file's value stands (a new data file: " + newFile + "), and the banner prints the value in force"
}

// Version reports whether --version was given: print Version() and exit.
func (f *Flags) Version() bool { return *f.version }

// Given reports whether a flag was set on the command line.
func (f *Flags) Given(name string) bool {
	given := false
	f.fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == name })
	return given
}

// Config returns the configuration the flags ask for, logging to logOut.
// --trust, --require-signature, --strict, --response-signing and
// --operator-access override the data file's settings only when they are
// given; the stored values stand otherwise.
func (f *Flags) Config(logOut io.Writer) (Config, error) {
	if f.Given("trust") && *f.trust != bank.TrustAny && *f.trust != bank.TrustStore {
		return Config{}, fmt.Errorf("%w: --trust must be any or store, not %q", ErrUsage, *f.trust)
	}
	if f.Given("response-signing") && !slices.Contains(bank.SigningModes, *f.signing) {
		return Config{}, fmt.Errorf("%w: --response-signing must be rsa, ecdsa or off, not %q", ErrUsage, *f.signing)
	}
	if f.Given("operator-access") && !slices.Contains(bank.OperatorAccessModes, *f.opAccess) {
		return Config{}, fmt.Errorf("%w: --operator-access must be operator or any-tpp, not %q", ErrUsage, *f.opAccess)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*f.logLevel)); err != nil {
		return Config{}, fmt.Errorf("%w: --log-level must be debug, info, warn or error", ErrUsage)
	}
	public, err := ParsePublicURL(*f.publicURL)
	if err != nil {
		return Config{}, err
	}
	if err := CheckProfilerAddr(*f.pprof); err != nil {
		return Config{}, err
	}
	cfg := Config{
		DataPath: *f.data, Addr: *f.addr, TLSAddr: *f.tlsAddr, WatchScenarios: *f.watchScen, PublicURL: public, OperatorCertOut: *f.opCertOut, Profiler: *f.pprof,
		Logger: slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level})),
	}
	if f.Given("trust") {
		cfg.Trust = *f.trust
	}
	if f.Given("require-signature") {
		cfg.RequireSignature = f.requireSig
	}
	if f.Given("strict") {
		cfg.Strict = f.strict
	}
	if f.Given("response-signing") {
		cfg.ResponseSigning = *f.signing
	}
	if f.Given("operator-access") {
		cfg.OperatorAccess = *f.opAccess
	}
	return cfg, nil
}

// ParsePublicURL checks the value of --public-url: empty, or an http or
// https URL of a host and an optional port, without a path, query or
// user. It returns the URL without a trailing slash.
func ParsePublicURL(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", fmt.Errorf("%w: --public-url must be an http or https URL with a host name, like https://bank.example:8443, not %q", ErrUsage, raw)
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("%w: --public-url names only the scheme, host and port the bank is reached at, like https://bank.example:8443; the bank serves from / and takes no path, query or user in %q", ErrUsage, raw)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("%w: the port of --public-url must be 1 to 65535, not %q", ErrUsage, p)
		}
	}
	return u.Scheme + "://" + strings.ToLower(u.Host), nil
}

// Banner writes what the bank serves: the data file, the settings in
// force that the command line's --trust, --require-signature, --strict,
// --response-signing and --operator-access set (the data file's own where
// the flags are not given), and one URL per line.
func (a *App) Banner(w io.Writer) error {
	st, err := a.Bank.Ops.Settings()
	if err != nil {
		return err
	}
	sig := "required"
	if !st.RequireSignature {
		sig = "optional"
	}
	strict := "off"
	if st.Strict {
		strict = "on"
	}
	responses := "responses signed with RSA"
	switch st.ResponseSigning {
	case bank.SigningECDSA:
		responses = "responses signed with ECDSA"
	case bank.SigningOff:
		responses = "responses unsigned"
	}
	access := "operator access operator"
	if st.OperatorAccess == bank.OperatorAnyTPP {
		access = "operator access any-tpp: every TPP is the operator"
	}
	fmt.Fprintf(w, "Sandbank serves %s (trust %s, signatures %s, strict mode %s, %s, %s)\n", a.DB.Path(), st.TrustMode, sig, strict, responses, access)
	if u := a.ProfilerURL(); u != "" {
		fmt.Fprintf(w, "  the Go profiler (--pprof): %s\n", u)
	}
	urls := a.URLs()
	for _, u := range urls {
		fmt.Fprintf(w, "  %s/v1\n", u)
	}
	if len(urls) == 0 {
		if addr, tlsAddr := a.Addrs(); addr == "" && tlsAddr == "" {
			fmt.Fprintln(w, "  no listener: both --addr and --tls-addr are empty")
		} else {
			fmt.Fprintln(w, "  no listener: none could start (the reasons are on standard error)")
		}
		return nil
	}
	if a.public != "" {
		fmt.Fprintf(w, "  scaRedirect links point at %s (--public-url)\n", a.public)
	}
	fmt.Fprintf(w, "  %s/healthz\n", urls[0])
	return nil
}
