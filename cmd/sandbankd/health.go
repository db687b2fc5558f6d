package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

const healthUsage = `Ask a running bank whether it serves: GET BASE/healthz. Exits 0 when it
answers 200, else 1. A container image has no curl; its health check runs
this.

Usage:
  sandbankd health [--url BASE]

Flags:
`

func runHealth(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sandbankd health", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, healthUsage)
		fs.PrintDefaults()
	}
	base := fs.String("url", defaultURL, "the bank's base URL (its HTTP listener)")
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the answer")
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q; see sandbankd health -h", errUsage, fs.Arg(0))
	}
	if *timeout <= 0 {
		return fmt.Errorf("%w: --timeout must be positive, like 5s", errUsage)
	}
	url := strings.TrimSuffix(*base, "/") + "/healthz"
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("%w: --url %q is not a URL like %s", errUsage, *base, defaultURL)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w; is the bank running, and is --url its HTTP address?", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s answered %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	fmt.Fprintf(stdout, "%s: %s\n", url, strings.TrimSpace(string(body)))
	return nil
}
