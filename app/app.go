// Package app is Sandbank's composition root: it opens the data file,
// builds the bank and its HTTP server, listens, and closes everything in
// order. Both binaries (the desktop app and sandbankd) run the bank
// through it.
package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"sandbank/bank"
	"sandbank/bank/httpsig"
	"sandbank/bank/pki"
	"sandbank/bank/psd2api"
	"sandbank/storage"
)

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
	// Trust overrides the stored trust mode when not empty.
	Trust string
	// RequireSignature overrides the stored setting when not nil.
	RequireSignature *bool
	Logger           *slog.Logger
	// Clock is the bank's clock; nil is the real clock.
	Clock bank.Clock
}

// App is a running bank.
type App struct {
	DB        *storage.DB
	Bank      *bank.Service
	Authority *pki.Authority
	BankCert  *httpsig.Signer
	// URLs are the base URLs the bank serves, one per listener.
	URLs []string

	cfg       Config
	logger    *slog.Logger
	verifier  *httpsig.Verifier
	trust     *trustStore
	handler   http.Handler
	listeners []net.Listener
	servers   []*http.Server
	closeOnce sync.Once
	closeErr  error
}

// Open opens the data file (creating it in the known state when it is
// new), loads the certificates and binds the listeners. It fails at once
// when another Sandbank holds the data file (storage.ErrInUse).
func Open(cfg Config) (*App, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Clock == nil {
		cfg.Clock = bank.SystemClock{}
	}
	db, err := storage.Open(cfg.DataPath, 100*time.Millisecond)
	if err != nil {
		return nil, err
	}
	a := &App{DB: db, cfg: cfg, logger: logger, Bank: bank.New(db, cfg.Clock)}
	if err := a.prepare(); err != nil {
		_ = a.Close()
		return nil, err
	}
	return a, nil
}

func (a *App) prepare() error {
	if a.DB.Created() {
		if _, err := a.Bank.Initialize(); err != nil {
			return fmt.Errorf("load the known state into the new data file: %w", err)
		}
	}
	creds, err := loadCredentials(a.DB, time.Now())
	if err != nil {
		return fmt.Errorf("load certificates: %w", err)
	}
	a.Authority, a.BankCert = creds.ca, creds.bank
	settings, err := a.Bank.UpdateSettings(func(s *bank.Settings) {
		if a.cfg.Trust != "" {
			s.TrustMode = a.cfg.Trust
		}
		if a.cfg.RequireSignature != nil {
			s.RequireSignature = *a.cfg.RequireSignature
		}
	})
	if err != nil {
		return err
	}
	a.trust = newTrustStore(a.TrustDir(), creds.ca.Cert, a.logger)
	a.verifier = httpsig.NewVerifier(a.policy(settings), time.Now)
	a.handler = psd2api.NewServer(psd2api.Config{
		Bank: a.Bank, Verifier: a.verifier, BankSigner: creds.bank, Authority: creds.ca,
		Logger: a.logger, Now: time.Now,
	})
	if a.cfg.Addr != "" {
		ln, err := net.Listen("tcp", a.cfg.Addr)
		if err != nil {
			return fmt.Errorf("listen on %s (choose another with --addr): %w", a.cfg.Addr, err)
		}
		a.listen(ln, "http")
	}
	if a.cfg.TLSAddr != "" {
		ln, err := net.Listen("tcp", a.cfg.TLSAddr)
		if err != nil {
			return fmt.Errorf("listen on %s (choose another with --tls-addr, or disable HTTPS with --tls-addr ''): %w", a.cfg.TLSAddr, err)
		}
		a.listen(tls.NewListener(ln, &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{creds.server}}), "https")
	}
	return nil
}

func (a *App) listen(ln net.Listener, scheme string) {
	host := ln.Addr().String()
	if scheme == "https" {
		if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
			host = fmt.Sprintf("localhost:%d", tcp.Port)
		}
	}
	a.listeners = append(a.listeners, ln)
	a.URLs = append(a.URLs, scheme+"://"+host)
}

// policy turns settings into what the signature verifier accepts.
func (a *App) policy(s bank.Settings) httpsig.Policy {
	p := httpsig.Policy{RequireSignature: s.RequireSignature}
	if s.TrustMode == bank.TrustStore {
		p.Trust = a.trust.verify
	}
	return p
}

// TrustDir is the folder of extra trusted CA files for trust mode store.
func (a *App) TrustDir() string { return filepath.Join(filepath.Dir(a.DB.Path()), "trust") }

// Handler returns the bank's HTTP handler.
func (a *App) Handler() http.Handler { return a.handler }

// Run serves on every listener until ctx ends, then shuts the servers
// down gracefully (at most 5 seconds) and returns.
func (a *App) Run(ctx context.Context) error {
	if err := watchFolder(ctx, a.TrustDir(), a.trust.reload); err != nil {
		a.logger.Warn("trust folder is not watched; restart to pick up changes", "err", err)
	}
	errs := make(chan error, len(a.listeners))
	for _, ln := range a.listeners {
		srv := &http.Server{Handler: a.handler, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(a.logger.Handler(), slog.LevelDebug)}
		a.servers = append(a.servers, srv)
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errs <- err
			}
		}()
	}
	select {
	case <-ctx.Done():
	case err := <-errs:
		a.shutdown()
		return fmt.Errorf("serve: %w", err)
	}
	a.shutdown()
	return nil
}

func (a *App) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, srv := range a.servers {
		_ = srv.Shutdown(ctx)
	}
}

// Close closes the listeners and the data file. It is safe to call more
// than once.
func (a *App) Close() error {
	a.closeOnce.Do(func() {
		for _, ln := range a.listeners {
			_ = ln.Close()
		}
		a.closeErr = a.DB.Close()
	})
	return a.closeErr
}
