package app_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"sandbank/app"
)

func TestFlags_PublicURL(t *testing.T) {
	var stderr bytes.Buffer
	for give, want := range map[string]string{
		"":                          "",
		"https://bank.example:8443": "https://bank.example:8443",
		"HTTPS://Bank.Example/":     "https://bank.example",
		"http://[::1]:7380":         "http://[::1]:7380",
		"http://10.0.0.5":           "http://10.0.0.5",
	} {
		if cfg := parseFlags(t, &stderr, "--public-url", give); cfg.PublicURL != want {
			t.Errorf("--public-url %q: %q, want %q", give, cfg.PublicURL, want)
		}
	}
	for _, bad := range []string{"bank.example", "bank.example:8443", "ftp://bank.example", "https://", "https://:8443", "https://bank.example/psd2",
		"https://bank.example?x=1", "https://bank.example/#f", "https://user@bank.example", "https://bank.example:0", "https://bank.example:65536", "https://bank.example:x", " https://bank.example"} {
		_, err := app.ParsePublicURL(bad)
		if !errors.Is(err, app.ErrUsage) || !strings.Contains(err.Error(), "--public-url") {
			t.Errorf("--public-url %q: %v", bad, err)
		}
	}
}

// The warning of a listener beyond loopback says which Host names it
// answers to and where scaRedirect links point, and suggests
// --public-url until it is given; the banner names the public URL.
func TestSecurity_NonLoopbackWarningNamesHostsAndPublicURL(t *testing.T) {
	var stderr bytes.Buffer
	a := open(t, parseFlags(t, &stderr, "--addr", "0.0.0.0:0", "--tls-addr", ""))
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	log := stderr.String()
	if !strings.Contains(log, "answers to every Host name") || !strings.Contains(log, "name the Host each request came with") || !strings.Contains(log, "give --public-url") {
		t.Fatalf("stderr: %q", log)
	}
	var banner bytes.Buffer
	if err := a.Banner(&banner); err != nil || strings.Contains(banner.String(), "public-url") {
		t.Fatalf("banner without --public-url: %q %v", banner.String(), err)
	}

	stderr.Reset()
	b := open(t, parseFlags(t, &stderr, "--addr", "0.0.0.0:0", "--tls-addr", "", "--public-url", "https://bank.example:8443"))
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	log = stderr.String()
	if !strings.Contains(log, "answers to every Host name") || !strings.Contains(log, "scaRedirect links point at https://bank.example:8443 (--public-url)") || strings.Contains(log, "give --public-url") {
		t.Fatalf("stderr with --public-url: %q", log)
	}
	banner.Reset()
	if err := b.Banner(&banner); err != nil || !strings.Contains(banner.String(), "\n  scaRedirect links point at https://bank.example:8443 (--public-url)\n  http://") {
		t.Fatalf("banner with --public-url: %q %v", banner.String(), err)
	}
}

// Open checks a public URL given in code as the flag does, and keeps it
// in its one form.
func TestOpen_PublicURL(t *testing.T) {
	if _, err := app.Open(app.Config{DataPath: t.TempDir() + "/sandbank.db", PublicURL: "bank.example"}); !errors.Is(err, app.ErrUsage) {
		t.Fatalf("Open with a public URL without a scheme: %v", err)
	}
	a := open(t, app.Config{Addr: "127.0.0.1:0", PublicURL: "HTTPS://Bank.Example:8443/"})
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	var banner bytes.Buffer
	if err := a.Banner(&banner); err != nil || !strings.Contains(banner.String(), "scaRedirect links point at https://bank.example:8443 (--public-url)") {
		t.Fatalf("banner %q %v", banner.String(), err)
	}
}
