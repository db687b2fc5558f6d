// Command sandbankd is Sandbank's headless bank: it serves the signed PSD2
// API of the sandbox bank for CI pipelines, and carries the tools a TPP
// developer needs: call (sign and send one request), cert (test
// certificates) and health (a container's health check), and the desktop
// window's work for a pipeline or a support engineer: settings, scenario,
// payments, batch, clock, log and grants, each a client of the bank's
// signed operator API.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"sandbank/app"
	"sandbank/bank/replay"
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

// defaultURL is where the bank listens unless told otherwise.
const defaultURL = "http://127.0.0.1:7380"

// errUsage marks an error in the command line.
var errUsage = app.ErrUsage

func exitCode(err error) int {
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, storage.ErrInUse):
		return 3
	case errors.As(err, new(*app.ListenError)):
		return 4
	case errors.As(err, new(*statusError)):
		return 22 // as curl --fail
	case errors.As(err, new(*replay.InputError)):
		return 2 // a HAR that cannot be replayed
	}
	return 1
}

const usage = `Sandbank headless bank.

Usage:
  sandbankd [serve] [flags]         serve the bank (flags below)
  sandbankd --version               print the version
  sandbankd call METHOD PATH [...]  sign and send one request, like curl
  sandbankd cert new [...]          issue a TPP test certificate and key
  sandbankd cert ca [...]           print the CA certificate (trust it for HTTPS)
  sandbankd health [--url BASE]     exit 0 when the bank at BASE answers /healthz
  sandbankd replay FILE.har [...]   send a recorded session (HAR) again and compare
                                    each answer with the recorded one (--fresh: on
                                    a new bank); exit 0 when all match, 1 when not

The desktop window's work, for a pipeline or a support engineer:
  sandbankd settings [get KEY | set KEY=VALUE...]   the settings
  sandbankd scenario save FILE | load FILE          all sandbox data as one file
  sandbankd payments [show ID | force ID STATUS]    every TPP's payments
  sandbankd batch run | list | show RUNID           batch runs
  sandbankd clock [set TIME | ahead 3d | back 1d | real]   the sandbox clock
  sandbankd log [--errors] [--har FILE] [ID]        the running bank's request log
  sandbankd grants [revoke GRANT_ID]                what each TPP may read

These work on the data file (--data) directly, or ask the running bank
that holds it (--url); --url without --data asks that bank only. They
print tables, or the bank's JSON with --json, and exit 1 when the bank
refuses, with its findings on standard error.

Run "sandbankd COMMAND -h" for a command's flags.

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
		case "health":
			return runHealth(ctx, args[1:], stdout, stderr)
		case "replay":
			return runReplay(ctx, args[1:], stdout, stderr)
		case "settings":
			return runSettings(ctx, args[1:], stdout, stderr)
		case "scenario":
			return runScenario(ctx, args[1:], stdin, stdout, stderr)
		case "payments":
			return runPayments(ctx, args[1:], stdout, stderr)
		case "batch":
			return runBatch(ctx, args[1:], stdout, stderr)
		case "clock":
			return runClock(ctx, args[1:], stdout, stderr)
		case "log":
			return runLog(ctx, args[1:], stdout, stderr)
		case "grants":
			return runGrants(ctx, args[1:], stdout, stderr)
		case "serve":
			args = args[1:]
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
	flags := app.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q; see sandbankd -h", errUsage, fs.Arg(0))
	}
	if flags.Version() {
		fmt.Fprintln(stdout, "sandbankd", app.Version())
		return nil
	}
	cfg, err := flags.Config(stderr)
	if err != nil {
		return err
	}
	return app.Serve(ctx, cfg, stdout)
}

func usageErr(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return fmt.Errorf("%w: %v", errUsage, strings.TrimSpace(err.Error()))
}
