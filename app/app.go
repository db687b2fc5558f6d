// Package app is Sandbank's composition root: it opens the data file,
// builds the bank, its HTTP server and request log, starts and stops the
// listeners, watches the trust and scenario folders, and closes
// everything in order. Both binaries (the desktop app and sandbankd) run
// the bank through it.
package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"sandbank/bank"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
	"sandbank/bank/psd2api"
	"sandbank/bank/reqlog"
	"sandbank/bank/scenario"
	"sandbank/storage"
)

// MaxHeaderBytes bounds the bytes of a request's headers on each
// listener. MaxConnections and MaxConnectionsPerAddress bound its
// connections.
const MaxHeaderBytes = 64 << 10

// Timeouts bound a connection: a request must be read (headers and body)
// within Read, and an idle keep-alive connection is closed after Idle.
// The zero value is DefaultTimeouts.
type Timeouts struct {
	Read, Idle time.Duration
}

// DefaultTimeouts are the listeners' timeouts: a minute to send a request
// (a 256 MiB scenario takes seconds on loopback), and a minute of idling.
var DefaultTimeouts = Timeouts{Read: time.Minute, Idle: time.Minute}

// Defaults of the listen addresses.
const (
	DefaultAddr    = "127.0.0.1:7380"
	DefaultTLSAddr = "127.0.0.1:7443"
)

// DefaultDataPath returns sandbank/sandbank.db under the user's config
// folder.
func DefaultDataPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the user config folder (set --data): %w", err)
	}
	return filepath.Join(dir, "sandbank", "sandbank.db"), nil
}

// Config is how to run the bank.
type Config struct {
	DataPath string // the bbolt data file
	Addr     string // HTTP listen address; empty disables
	TLSAddr  string // HTTPS listen address; empty disables
	// PublicURL is the URL TPPs and PSUs reach the bank at when it is not
	// the listener's own (a proxy, a container's published port), like
	// https://bank.example:8443 (see ParsePublicURL); empty: each link
	// names the Host its request came with.
	PublicURL string
	// Trust overrides the stored trust mode when not empty.
	Trust string
	// RequireSignature overrides the stored setting when not nil.
	RequireSignature *bool
	// Strict overrides the stored strict mode when not nil.
	Strict *bool
	// OperatorAccess overrides the stored operator access
	// (bank.OperatorOnly, bank.OperatorAnyTPP) when not empty.
	OperatorAccess string
	// OperatorCertOut, when set, is a folder the bank writes an operator
	// certificate into at start (cert.pem, key.pem, ca.pem), for the CI
	// job that started it in a container.
	OperatorCertOut string
	// ResponseSigning overrides the stored response signing mode
	// (bank.SigningRSA, SigningECDSA, SigningOff) when not empty.
	ResponseSigning string
	// WatchScenarios lists and watches the scenarios folder (the desktop
	// app's Scenarios screen); a bank without a window leaves it alone
	// unless asked.
	WatchScenarios bool
	// Profiler, when set, is a loopback address (CheckProfilerAddr) the
	// Go profiler (net/http/pprof) is served at, on a listener of its
	// own, from Open to Close.
	Profiler string
	// Timeouts bound the listeners' connections; zero values take
	// DefaultTimeouts.
	Timeouts Timeouts
	Logger   *slog.Logger
	// Clock is the bank's clock; nil is the real clock.
	Clock bank.Clock
}

// App is an open bank: its data file, services and request log, and the
// listeners while it serves.
type App struct {
	DB        *storage.DB
	Bank      *bank.Bank
	Authority *pki.Authority
	// BankCert signs the bank's responses with RSA (responseSigning rsa).
	BankCert *httpsig.Signer

	// requests keeps the recent requests (RequestLog).
	requests *reqlog.Log
	logger   *slog.Logger
	timeouts Timeouts
	public   string // Config.PublicURL
	verifier *httpsig.Verifier
	trust    *trustStore
	handler  http.Handler
	tlsCert  tls.Certificate
	stopBg   context.CancelFunc
	bg       sync.WaitGroup // the scheduler
	unsub    func()
	scen     scenarios
	profiler *profiler // --pprof
	// policyMu orders the verifier's policy and response signing
	// updates: each reads the settings after the change it was told of,
	// so the last one is newest.
	policyMu sync.Mutex
	// signing is the response signing in force (ResponseSigner);
	// bankECDSA the ECDSA signer, made on first use.
	signing   atomic.Pointer[responseSigning]
	bankECDSA *httpsig.Signer

	mu      sync.Mutex
	addr    string
	tlsAddr string
	running []*listener
	// runningGen counts the starts and stops: the running file is written
	// for the start it was begun for only (writeRunning).
	runningGen uint64

	closeOnce sync.Once
	closeErr  error
}

// listener is one serving listener.
type listener struct {
	url  string
	srv  *http.Server
	done chan error
}

// Open opens the data file (creating it in the known state when it is
// new), loads the certificates, and prepares the HTTP server and the
// folders it watches. It does not listen yet (Start does). It fails at
// once when another Sandbank holds the data file (storage.ErrInUse).
//
// It opens the file read-only first and reads everything the bank needs
// from it (the settings and the certificates) before it reopens the file
// for writing, so a start that fails on a bad file writes nothing to it.
// A damaged file is refused with an error wrapping storage.ErrDamaged; a
// file, or a new file's folder, that this process may not read or write
// with one that names the missing permission, the owner and what to do
// (wrapping fs.ErrPermission). An Open that fails removes what it created:
// a new data file, its folders.
//
// With Config.Profiler it serves the Go profiler there from now until
// Close, whether or not the bank's listeners serve; an address that
// cannot be bound fails the Open with a *ListenError.
func Open(cfg Config) (*App, error) {
	made := footprintOf(cfg)
	a, err := open(cfg)
	if err != nil && !errors.Is(err, storage.ErrInUse) { // in use: another Sandbank made what is there
		made.undo()
	}
	return a, err
}

// open is Open, without the removal of what a failed one created.
func open(cfg Config) (*App, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Clock == nil {
		cfg.Clock = bank.SystemClock{}
	}
	public, err := ParsePublicURL(cfg.PublicURL)
	if err != nil {
		return nil, err
	}
	cfg.PublicURL = public
	db, err := storage.OpenReadOnly(cfg.DataPath, 100*time.Millisecond)
	if err != nil {
		return nil, describeAccess(cfg.DataPath, err)
	}
	a := &App{
		DB: db, Bank: bank.New(db, cfg.Clock), requests: reqlog.NewLog(bank.DefaultRequestLogCount, bank.DefaultRequestLogBytes),
		logger: logger, addr: cfg.Addr, tlsAddr: cfg.TLSAddr, timeouts: cfg.Timeouts, public: cfg.PublicURL,
	}
	if a.timeouts.Read <= 0 {
		a.timeouts.Read = DefaultTimeouts.Read
	}
	if a.timeouts.Idle <= 0 {
		a.timeouts.Idle = DefaultTimeouts.Idle
	}
	go func() { _, _ = operatorKey() }() // the running file needs it soon
	if err := a.prepare(cfg); err != nil {
		_ = a.Close()
		return nil, err
	}
	if cfg.OperatorCertOut != "" {
		if _, _, err := a.WriteOperatorFiles(cfg.OperatorCertOut); err != nil {
			_ = a.Close()
			return nil, err
		}
	}
	if cfg.Profiler != "" {
		if a.profiler, err = startProfiler(cfg.Profiler, logger); err != nil {
			_ = a.Close()
			return nil, err
		}
	}
	return a, nil
}

// prepare reads and checks what the bank needs while the data file is
// read-only, and only then opens it for writing, stores what is new, and
// starts serving and the background work.
func (a *App) prepare(cfg Config) error {
	path := a.DB.Path()
	settings, err := a.Bank.Ops.Settings()
	if err != nil {
		return storage.Damaged(path, "its settings cannot be read: "+err.Error())
	}
	if err := settings.Check(); err != nil {
		return storage.Damaged(path, "its settings are out of range: "+err.Error())
	}
	want := cfg.settings(settings)
	creds, newKeys, err := loadCredentials(a.DB, time.Now(), want.ResponseSigning == bank.SigningECDSA)
	var bad badKeys
	if errors.As(err, &bad) {
		return storage.Damaged(path, bad.Error())
	}
	if err != nil {
		return fmt.Errorf("make certificates: %w", err)
	}
	// Only now is anything written.
	if settings, err = a.writeStart(settings, want, newKeys); err != nil {
		return err
	}
	a.Authority, a.BankCert, a.bankECDSA, a.tlsCert = creds.ca, creds.bank, creds.bankECDSA, creds.server
	if err := a.setSigning(settings.ResponseSigning); err != nil {
		return err
	}
	a.requests.SetLimits(settings.RequestLog.MaxCount, settings.RequestLog.MaxBytes)
	a.trust = newTrustStore(a.TrustDir(), creds.ca.Cert, a.logger)
	a.verifier = httpsig.NewVerifier(a.policy(settings), time.Now)
	a.handler = psd2api.NewServer(psd2api.Config{
		Bank: a.Bank, Verifier: a.verifier, BankSigner: a.ResponseSigner, Authority: creds.ca,
		Logger: a.logger, Now: time.Now, Version: Version(), RequestLog: a.requests, PublicURL: cfg.PublicURL,
	})
	// Settings changed anywhere (the desktop app, a test) apply at once.
	a.unsub = a.Bank.Ops.Subscribe(func(e bank.Event) {
		if e.Kind == bank.EventSettings {
			a.applySettings()
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	a.stopBg = cancel
	a.bg.Go(func() { a.runScheduler(ctx) })
	if err := watchFolder(ctx, a.TrustDir(), a.trust.reload); err != nil {
		a.logger.Warn("the trust folder is not watched; restart to pick up changes", "err", err)
	}
	if !cfg.WatchScenarios {
		return nil
	}
	return a.startScenarios(ctx, true)
}

// settings returns the stored settings with the command line's choices.
func (cfg Config) settings(stored bank.Settings) bank.Settings {
	want := stored
	if cfg.Trust != "" {
		want.TrustMode = cfg.Trust
	}
	if cfg.RequireSignature != nil {
		want.RequireSignature = *cfg.RequireSignature
	}
	if cfg.Strict != nil {
		want.Strict = *cfg.Strict
	}
	if cfg.ResponseSigning != "" {
		want.ResponseSigning = cfg.ResponseSigning
	}
	if cfg.OperatorAccess != "" {
		want.OperatorAccess = cfg.OperatorAccess
	}
	return want
}

// writeStart opens the data file for writing and stores what the start made:
// the known state in a new file, new keys, and the command line's
// settings where they differ from the stored ones, which it returns.
func (a *App) writeStart(settings, want bank.Settings, newKeys *keys) (bank.Settings, error) {
	if err := a.DB.Writable(); err != nil {
		return settings, describeAccess(a.DB.Path(), err)
	}
	if a.DB.Created() {
		if _, err := scenario.Initialize(a.Bank.Sandbox); err != nil {
			return settings, fmt.Errorf("load the known state into the new data file: %w", err)
		}
	}
	if newKeys != nil {
		if err := saveKeys(a.DB, newKeys); err != nil {
			return settings, fmt.Errorf("store certificates: %w", err)
		}
	}
	if want.TrustMode == settings.TrustMode && want.RequireSignature == settings.RequireSignature && want.Strict == settings.Strict &&
		want.ResponseSigning == settings.ResponseSigning && want.OperatorAccess == settings.OperatorAccess {
		return settings, nil
	}
	return a.Bank.Ops.UpdateSettings(func(s *bank.Settings) {
		s.TrustMode, s.RequireSignature, s.Strict = want.TrustMode, want.RequireSignature, want.Strict
		s.ResponseSigning, s.OperatorAccess = want.ResponseSigning, want.OperatorAccess
	})
}

// applySettings puts changed settings in force: the verifier's policy,
// the request log's limits and the response signing mode.
func (a *App) applySettings() {
	a.policyMu.Lock()
	defer a.policyMu.Unlock()
	st, err := a.Bank.Ops.Settings()
	if err != nil {
		return
	}
	a.verifier.SetPolicy(a.policy(st))
	a.requests.SetLimits(st.RequestLog.MaxCount, st.RequestLog.MaxBytes)
	if err := a.setSigning(st.ResponseSigning); err != nil {
		a.logger.Error("the response signing mode did not change: the bank signs as before; check that the data file can be written, then set the mode again", "mode", st.ResponseSigning, "err", err)
	}
}

// policy turns settings into what the signature verifier accepts.
func (a *App) policy(s bank.Settings) httpsig.Policy {
	p := httpsig.Policy{RequireSignature: s.RequireSignature, Strict: s.Strict, Operator: a.Authority.IsOperator}
	if s.TrustMode == bank.TrustStore {
		p.Trust = a.trust.verify
	}
	return p
}

// responseSigning is how the bank signs its responses now.
type responseSigning struct {
	signer *httpsig.Signer
	sign   bool
}

// setSigning puts a response signing mode in force at once: the signer of
// the next response is the mode's. The ECDSA key and certificate are made
// and stored in the data file the first time the mode is ecdsa.
func (a *App) setSigning(mode string) error {
	next := &responseSigning{signer: a.BankCert, sign: mode != bank.SigningOff}
	if mode == bank.SigningECDSA {
		if a.bankECDSA == nil {
			s, err := ecdsaBank(a.DB, a.Authority, time.Now())
			if err != nil {
				return err
			}
			a.bankECDSA = s
		}
		next.signer = a.bankECDSA
	}
	a.signing.Store(next)
	return nil
}

// ResponseSigner returns the signer of the bank's responses in force and
// whether responses are signed (the responseSigning setting): the ECDSA
// signer with ecdsa, else the RSA one, which with off does not sign.
// GET /v1/sandbox/bank-certificate serves its certificate.
func (a *App) ResponseSigner() (signer *httpsig.Signer, sign bool) {
	s := a.signing.Load()
	return s.signer, s.sign
}

// Sandbox is the bank's door to the test data.
func (a *App) Sandbox() *bank.Sandbox { return a.Bank.Sandbox }

// Ops is the bank's door for the operator.
func (a *App) Ops() *bank.Ops { return a.Bank.Ops }

// RequestLog keeps the recent requests for the traffic screen.
func (a *App) RequestLog() *reqlog.Log { return a.requests }

// DataDir is the folder of the data file; the trust and scenarios folders
// are in it.
func (a *App) DataDir() string { return filepath.Dir(a.DB.Path()) }

// TrustDir is the folder of extra trusted CA files for trust mode store.
func (a *App) TrustDir() string { return trustDir(a.DB.Path()) }

// trustDir is the trust folder of the data file at data.
func trustDir(data string) string { return filepath.Join(filepath.Dir(data), "trust") }

// Handler returns the bank's HTTP handler.
func (a *App) Handler() http.Handler { return a.handler }

// Addrs returns the HTTP and HTTPS listen addresses of the next Start.
func (a *App) Addrs() (addr, tlsAddr string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.addr, a.tlsAddr
}

// SetAddrs changes the listen addresses; they apply at the next Start. An
// empty address turns that listener off.
func (a *App) SetAddrs(addr, tlsAddr string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.addr, a.tlsAddr = addr, tlsAddr
}

// tls12Suites are the cipher suites the HTTPS listener offers with TLS 1.2:
// ECDHE key exchange with an AEAD cipher (AES-GCM or ChaCha20-Poly1305),
// none with CBC or RSA key exchange. TLS 1.3 has only AEAD suites, and
// Go does not let them be chosen.
var tls12Suites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// ListenError is a listener that could not start: its address cannot be
// bound.
type ListenError struct {
	Listener string // HTTP or HTTPS
	Flag     string // the command-line flag of its address
	Addr     string
	Err      error
}

// Error names the listener and its address, the OS's reason, and what to
// do.
func (e *ListenError) Error() string {
	cause := e.Err
	var sys *os.SyscallError
	if errors.As(e.Err, &sys) {
		cause = sys.Err // "address already in use" rather than "listen tcp ...: bind: ..."
	}
	msg := fmt.Sprintf("the %s listener did not start on %s: %v", e.Listener, e.Addr, cause)
	switch {
	case errors.Is(e.Err, syscall.EADDRINUSE):
		msg += "; another program listens there"
		if _, port, err := net.SplitHostPort(e.Addr); err == nil {
			msg += whoListens(port)
		}
	case errors.Is(e.Err, syscall.EACCES):
		msg += "; ports below 1024 need privileges"
	}
	return msg + fmt.Sprintf("; choose another %s address (%s), or none (%s '')", e.Listener, e.Flag, e.Flag)
}

// Unwrap returns the error of the bind.
func (e *ListenError) Unwrap() error { return e.Err }

// whoListens names a command that shows the program listening on port.
func whoListens(port string) string {
	switch runtime.GOOS {
	case "linux":
		return fmt.Sprintf(" (ss -ltnp 'sport = :%s' shows which)", port)
	case "windows":
		return fmt.Sprintf(" (netstat -ano | findstr :%s shows which)", port)
	}
	return fmt.Sprintf(" (lsof -nP -iTCP:%s -sTCP:LISTEN shows which)", port)
}

// Start binds the listeners and serves on each it can bind. An address
// that cannot be bound is a *ListenError in the error returned (one per
// listener, joined), and the other listener serves all the same. It fails,
// binding nothing, when the bank already serves.
func (a *App) Start() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.running) > 0 {
		return errors.New("the bank is serving already; stop it first")
	}
	var lns []net.Listener
	var urls []string
	var errs []error
	if a.addr != "" {
		ln, err := net.Listen("tcp", a.addr)
		if err != nil {
			errs = append(errs, &ListenError{Listener: "HTTP", Flag: "--addr", Addr: a.addr, Err: err})
		} else {
			lns, urls = append(lns, newFairListener(ln, a.logger)), append(urls, "http://"+ln.Addr().String())
		}
	}
	if a.tlsAddr != "" {
		ln, err := net.Listen("tcp", a.tlsAddr)
		if err != nil {
			errs = append(errs, &ListenError{Listener: "HTTPS", Flag: "--tls-addr", Addr: a.tlsAddr, Err: err})
		} else {
			host := ln.Addr().String()
			if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
				host = fmt.Sprintf("localhost:%d", tcp.Port)
			}
			lns = append(lns, tls.NewListener(newFairListener(ln, a.logger), &tls.Config{MinVersion: tls.VersionTLS12, CipherSuites: tls12Suites, Certificates: []tls.Certificate{a.tlsCert}}))
			urls = append(urls, "https://"+host)
		}
	}
	for _, ln := range lns {
		if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
			a.logger.Warn(nonLoopbackWarning(ln.Addr().String(), a.public), "addr", ln.Addr().String())
			if a.Bank.Ops.AnyTPPIsOperator() {
				a.logger.Warn(anyTPPWarning(ln.Addr().String()), "addr", ln.Addr().String())
			}
		}
	}
	for i, ln := range lns {
		l := &listener{url: urls[i], done: make(chan error, 1), srv: &http.Server{
			Handler: a.handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: a.timeouts.Read, IdleTimeout: a.timeouts.Idle,
			MaxHeaderBytes: MaxHeaderBytes, ConnState: trackConnState,
			ErrorLog: slog.NewLogLogger(a.logger.Handler(), slog.LevelDebug),
		}}
		go func() {
			err := l.srv.Serve(ln)
			if errors.Is(err, http.ErrServerClosed) {
				err = nil
			}
			l.done <- err
		}()
		a.running = append(a.running, l)
	}
	a.runningGen++
	if len(a.running) > 0 {
		gen, urls := a.runningGen, slices.Clone(urls)
		go a.writeRunning(gen, urls)
	}
	return errors.Join(errs...)
}

// anyTPPWarning is the warning of a listener on addr beyond loopback while
// every TPP is the operator.
func anyTPPWarning(addr string) string {
	return "operator access is any-tpp, and the bank listens on " + addr + ": anyone who reaches it with any certificate the trust mode accepts may change its settings, move its clock, force payments and read every TPP's traffic; use --operator-access operator unless one team alone reaches this bank"
}

// nonLoopbackWarning is the warning of a listener on addr beyond
// loopback: who can reach it, which Host names it answers to and where its
// scaRedirect links point.
func nonLoopbackWarning(addr, public string) string {
	links := "scaRedirect links name the Host each request came with; give --public-url (like https://bank.example:8443) when TPPs and PSUs reach the bank at another address, through a proxy or a container's published port"
	if public != "" {
		links = "scaRedirect links point at " + public + " (--public-url)"
	}
	return "the bank listens on " + addr + ", not on loopback only: other machines can reach it, and anyone who can may read and change the sandbox data and get certificates from its CA; use 127.0.0.1 unless you mean this. This listener answers to every Host name; " + links
}

// Running reports whether the bank serves.
func (a *App) Running() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.running) > 0
}

// URLs returns the base URLs the bank serves now, one per listener.
func (a *App) URLs() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]string, len(a.running))
	for i, l := range a.running {
		out[i] = l.url
	}
	return out
}

// Stop closes the listeners, letting requests in flight finish (at most 5
// seconds). Stopping a bank that does not serve does nothing.
func (a *App) Stop() error {
	a.mu.Lock()
	running := a.running
	a.running = nil
	a.runningGen++
	if len(running) > 0 {
		a.removeRunning()
	}
	a.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var firstErr error
	for _, l := range running {
		if err := l.srv.Shutdown(ctx); err != nil && firstErr == nil {
			firstErr = err
		}
		if err := <-l.done; err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// Run serves until ctx ends, then stops gracefully.
func (a *App) Run(ctx context.Context) error {
	if !a.Running() {
		if err := a.Start(); err != nil {
			return err
		}
	}
	<-ctx.Done()
	return a.Stop()
}

// Serve opens the data file of cfg, serves the bank until ctx ends and
// closes the file: the whole life of a bank without a window. It prints
// the banner to stdout first and a last line once the file is closed. A
// start that fails (a listen address that cannot be bound) removes what it
// created, as Open does.
func Serve(ctx context.Context, cfg Config, stdout io.Writer) error {
	made := footprintOf(cfg)
	a, err := Open(cfg)
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	// A bank without a window serves every listener asked for or none: a
	// pipeline that asked for a port must not test against whatever else
	// holds it. Nor does it leave behind what it created to serve: a new
	// data file, its folders.
	if err := a.Start(); err != nil {
		_ = a.Close()
		made.undo()
		return err
	}
	if err := a.Banner(stdout); err != nil {
		return err
	}
	if err := a.Run(ctx); err != nil {
		return err
	}
	if err := a.Close(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "Sandbank stopped; the data file is closed")
	return nil
}

// Close stops serving, stops watching folders and closes the data file.
// It is safe to call more than once.
func (a *App) Close() error {
	a.closeOnce.Do(func() {
		stopErr := a.Stop()
		if a.stopBg != nil {
			a.stopBg()
		}
		a.bg.Wait() // the scheduler may be in a batch run
		if a.unsub != nil {
			a.unsub()
		}
		a.closeErr = errors.Join(stopErr, a.profiler.stop(), a.DB.Close())
	})
	return a.closeErr
}
