// Command sandbank is Sandbank's desktop app: a window over the sandbox
// bank's data, with the bank itself serving the signed PSD2 API in the same
// process. With --headless it serves without a window, like sandbankd.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"sandbank/app"
	"sandbank/assets"
	_ "sandbank/cmd/sandbank/internal/posixlocale" // before Fyne reads the locale
	"sandbank/storage"
	"sandbank/ui"
)

// metadata is the app's identity; FyneApp.toml holds the same values for
// packaging (a test keeps the two in step).
var metadata = fyne.AppMetadata{
	ID:         "no.sandbank.desktop",
	Name:       "Sandbank",
	Version:    "0.1.0",
	Build:      1,
	Icon:       fyne.NewStaticResource("icon.png", assets.Icon),
	Migrations: map[string]bool{"fyneDo": true},
}

// The composition root is the window's host.
var _ ui.Host = (*app.App)(nil)

// Window size preferences.
const (
	prefWidth  = "window.width"
	prefHeight = "window.height"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sandbank", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flags := app.AddFlags(fs)
	headless := fs.Bool("headless", false, "serve the bank without a window")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if flags.Version() {
		fmt.Fprintln(stdout, "sandbank", app.Version())
		return 0
	}
	cfg, err := flags.Config(stderr)
	if err != nil {
		fmt.Fprintln(stderr, "sandbank:", err)
		return 2
	}
	if *headless {
		return serveHeadless(cfg, stdout, stderr)
	}
	// Without a display the window cannot open: say so before the data
	// file is created or a listener bound.
	if err := checkDisplay(); err != nil {
		fmt.Fprintf(stderr, "sandbank: %v; %s\n", err, noDisplayHint)
		return 1
	}
	fyneapp.SetMetadata(metadata)
	a := fyneapp.NewWithID(metadata.ID)
	a.SetIcon(metadata.Icon)
	prefs := a.Preferences()
	if !flags.Given("addr") {
		cfg.Addr = prefs.StringWithFallback(ui.PrefAddr, cfg.Addr)
	}
	if !flags.Given("tls-addr") {
		cfg.TLSAddr = prefs.StringWithFallback(ui.PrefTLSAddr, cfg.TLSAddr)
	}
	cfg.WatchScenarios = true // the Scenarios screen lists the folder
	core, err := app.Open(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "sandbank:", err)
		showFatal(a, err)
		if errors.Is(err, storage.ErrInUse) {
			return 3
		}
		return 1
	}
	startErr := core.Start()
	if startErr != nil {
		fmt.Fprintln(stderr, "sandbank:", startErr)
	}
	w := a.NewWindow("Sandbank")
	w.Resize(fyne.NewSize(float32(prefs.FloatWithFallback(prefWidth, 1280)), float32(prefs.FloatWithFallback(prefHeight, 800))))
	u := ui.New(a, w, core)
	w.SetContent(u.Content())
	if err := core.Banner(stdout); err != nil {
		fmt.Fprintln(stderr, "sandbank:", err)
	}
	// Closing the window (or SIGINT/SIGTERM) quits the app rather than
	// destroying the window first: GLFW can deliver a cursor event for a
	// window it has just destroyed, which crashes Fyne (fyne-io/fyne#5981).
	// Quitting stops the event loop before anything is destroyed.
	quit := func() {
		prefs.SetFloat(prefWidth, float64(w.Canvas().Size().Width))
		prefs.SetFloat(prefHeight, float64(w.Canvas().Size().Height))
		a.Quit()
	}
	w.SetCloseIntercept(quit)
	w.SetMainMenu(u.MainMenu(quit))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		fyne.Do(quit)
	}()
	if startErr != nil {
		// The window opens anyway: the Server screen can start the bank
		// on other addresses.
		go fyne.Do(func() { u.ShowStartError(startErr) })
	}
	w.ShowAndRun()
	u.Close()
	if err := core.Close(); err != nil {
		fmt.Fprintln(stderr, "sandbank: close the data file:", err)
		return 1
	}
	fmt.Fprintln(stdout, "Sandbank stopped; the data file is closed")
	return 0
}

// serveHeadless runs the bank without a window until SIGINT or SIGTERM.
func serveHeadless(cfg app.Config, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := app.Serve(ctx, cfg, stdout); err != nil {
		fmt.Fprintln(stderr, "sandbank:", err)
		if errors.Is(err, storage.ErrInUse) {
			return 3
		}
		if errors.As(err, new(*app.ListenError)) {
			return 4
		}
		return 1
	}
	return 0
}

// showFatal shows why the app cannot start in a small window, for users who
// start it from a desktop menu and see no terminal.
func showFatal(a fyne.App, err error) {
	w := a.NewWindow("Sandbank cannot start")
	msg := widget.NewLabel(err.Error())
	msg.Wrapping = fyne.TextWrapWord
	w.SetContent(container.NewVBox(msg, widget.NewButton("Quit", a.Quit)))
	w.Resize(fyne.NewSize(520, 160))
	w.ShowAndRun()
}
