// Command sandbankd is Sandbank's headless bank: it serves the signed PSD2
// API of the sandbox bank for CI pipelines, and carries the tools a TPP
// developer needs: call (sign and send one request) and cert (test
// certificates).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"sandbank/app"
	"sandbank/storage"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "sandbankd:", err)
		}
		os.Exit(exitCode(err))
	}
}

// errUsage marks an error in the command line.
var errUsage = errors.New("usage")

func exitCode(err error) int {
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, storage.ErrInUse):
		return 3
	}
	return 1
}

const usage = `Sandbank headless bank.

Usage:
  sandbankd [flags]                 serve the bank (flags below)
  sandbankd call METHOD PATH [...]  sign and send one request, like curl
  sandbankd cert new [...]          issue a TPP test certificate and key
  sandbankd cert ca [...]           print the CA certificate (trust it for HTTPS)

Run "sandbankd call -h" or "sandbankd cert new -h" for their flags.

Flags:
`

// run is sandbankd's whole life, testable: it parses args, writes to
// stdout and stderr and returns when ctx ends or on error.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "call":
			return runCall(ctx, args[1:], stdin, stdout, stderr)
		case "cert":
			return runCert(ctx, args[1:], stdout, stderr)
		}
	}
	return serve(ctx, args, stdout, stderr)
}

// dataFlag adds --data with its default to a flag set.
func dataFlag(fs *flag.FlagSet) *string {
	def, err := app.DefaultDataPath()
	if err != nil {
		def = "sandbank.db"
	}
	return fs.String("data", def, "the data file (bbolt)")
}

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sandbankd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	data := dataFlag(fs)
	addr := fs.String("addr", app.DefaultAddr, "HTTP listen address; empty disables HTTP")
	tlsAddr := fs.String("tls-addr", app.DefaultTLSAddr, "HTTPS listen address; empty disables HTTPS")
	trust := fs.String("trust", "any", "trust mode: any (any certificate whose signature verifies) or store (also a chain to a trusted CA)")
	requireSig := fs.Bool("require-signature", true, "refuse unsigned requests")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q; see sandbankd -h", errUsage, fs.Arg(0))
	}
	if *trust != "any" && *trust != "store" {
		return fmt.Errorf("%w: --trust must be any or store, not %q", errUsage, *trust)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("%w: --log-level must be debug, info, warn or error", errUsage)
	}
	cfg := app.Config{
		DataPath: *data, Addr: *addr, TLSAddr: *tlsAddr,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
	}
	// Flags given on the command line override the data file's settings;
	// the others leave them as they are.
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "trust":
			cfg.Trust = *trust
		case "require-signature":
			cfg.RequireSignature = requireSig
		}
	})
	a, err := app.Open(cfg)
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	st, err := a.Bank.Settings()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Sandbank serves %s (trust %s, signatures %s)\n", a.DB.Path(), st.TrustMode, map[bool]string{true: "required", false: "optional"}[st.RequireSignature])
	for _, u := range a.URLs {
		fmt.Fprintf(stdout, "  %s/v1\n", u)
	}
	if len(a.URLs) > 0 {
		fmt.Fprintf(stdout, "  %s/healthz\n", a.URLs[0])
	}
	if len(a.URLs) == 0 {
		fmt.Fprintln(stdout, "  no listener: both --addr and --tls-addr are empty")
	}
	if err := a.Run(ctx); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "Sandbank stopped; the data file is closed")
	return a.Close()
}

func usageErr(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return fmt.Errorf("%w: %v", errUsage, strings.TrimSpace(err.Error()))
}
