// Package ui is Sandbank's desktop window: one tab per screen over the
// embedded bank. Screens call the same bank services as the API, so they
// show the API's validation findings at the form fields, and they follow
// the bank's change events, so a change made through the API appears
// without a manual refresh.
package ui

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"sandbank/bank"
	"sandbank/bank/reqlog"
	"sandbank/bank/scenario"
)

// UI is the window content.
type UI struct {
	app  fyne.App
	win  fyne.Window
	host Host
	// sandbox and ops are the bank's doors the screens use.
	sandbox *bank.Sandbox
	ops     *bank.Ops

	tabs         *container.AppTabs
	consentsTab  *container.TabItem
	paymentsTab  *container.TabItem
	serverTab    *container.TabItem
	customers    *customersScreen
	accounts     *accountsScreen
	transactions *transactionsScreen
	consents     *consentsScreen
	payments     *paymentsScreen
	traffic      *trafficScreen
	server       *serverScreen
	scenarios    *scenariosScreen

	// openURL opens a link in the desktop's browser.
	openURL func(*url.URL) error

	dialogs []dialog.Dialog // open dialogs, newest last
	modals  []*modal        // the open dialogs that are modals
	work    sync.WaitGroup  // background work (generation, scenario loads)

	changes changes
	signal  chan struct{}
	stop    context.CancelFunc
	unsubs  []func()
}

// changes collects what happened since the screens last caught up.
type changes struct {
	mu        sync.Mutex
	kinds     map[bank.EventKind]map[string]bool
	entries   []reqlog.Entry
	cleared   bool // the request log was cleared before entries came
	scenarios []scenario.File
	scenSet   bool
}

// New builds the window content over the bank a host runs and starts
// following its events; changes reach the screens through fyne.Do.
func New(a fyne.App, w fyne.Window, host Host) *UI {
	u := newUI(a, w, host)
	ctx, cancel := context.WithCancel(context.Background())
	u.stop = cancel
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-u.signal:
				fyne.DoAndWait(u.catchUp)
			}
		}
	}()
	return u
}

// newUI builds the UI without the goroutine that applies changes: tests
// call catchUp themselves, on their own goroutine.
func newUI(a fyne.App, w fyne.Window, host Host) *UI {
	u := &UI{app: a, win: w, host: host, sandbox: host.Sandbox(), ops: host.Ops(), signal: make(chan struct{}, 1), stop: func() {}, openURL: a.OpenURL}
	u.customers = newCustomersScreen(u)
	u.accounts = newAccountsScreen(u)
	u.transactions = newTransactionsScreen(u)
	u.consents = newConsentsScreen(u)
	u.payments = newPaymentsScreen(u)
	u.traffic = newTrafficScreen(u)
	u.server = newServerScreen(u)
	u.scenarios = newScenariosScreen(u)
	u.consentsTab = container.NewTabItemWithIcon("Consents & sessions", theme.LoginIcon(), u.consents.build())
	u.paymentsTab = container.NewTabItemWithIcon("Payments", theme.UploadIcon(), u.payments.build())
	u.serverTab = container.NewTabItemWithIcon("Server", theme.SettingsIcon(), u.server.build())
	u.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon("Customers", theme.AccountIcon(), u.customers.build()),
		container.NewTabItemWithIcon("Accounts", theme.StorageIcon(), u.accounts.build()),
		container.NewTabItemWithIcon("Transactions", theme.ListIcon(), u.transactions.build()),
		u.consentsTab,
		u.paymentsTab,
		container.NewTabItemWithIcon("Traffic", theme.MailSendIcon(), u.traffic.build()),
		u.serverTab,
		container.NewTabItemWithIcon("Scenarios", theme.FolderOpenIcon(), u.scenarios.build()),
	)
	u.unsubs = append(u.unsubs,
		u.ops.Subscribe(u.noteEvent),
		host.RequestLog().Subscribe(u.noteLog),
		host.SubscribeScenarios(u.noteScenarios),
	)
	w.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) {
		if k.Name == fyne.KeyEscape {
			u.closeTop()
		}
	})
	return u
}

// Content returns the window content.
func (u *UI) Content() fyne.CanvasObject { return u.tabs }

// Close stops following the bank, after background work finishes.
func (u *UI) Close() {
	u.work.Wait()
	u.stop()
	for _, unsub := range u.unsubs {
		unsub()
	}
}

func (u *UI) poke() {
	select {
	case u.signal <- struct{}{}:
	default:
	}
}

func (u *UI) noteEvent(e bank.Event) {
	u.changes.mu.Lock()
	if u.changes.kinds == nil {
		u.changes.kinds = map[bank.EventKind]map[string]bool{}
	}
	if u.changes.kinds[e.Kind] == nil {
		u.changes.kinds[e.Kind] = map[string]bool{}
	}
	u.changes.kinds[e.Kind][e.ID] = true
	u.changes.mu.Unlock()
	u.poke()
}

func (u *UI) noteLog(c reqlog.Change) {
	u.changes.mu.Lock()
	if c.Cleared {
		u.changes.entries, u.changes.cleared = nil, true
	} else {
		maxCount, maxBytes := u.host.RequestLog().Limits()
		u.changes.entries = reqlog.Trim(append(u.changes.entries, c.Entry), maxCount, maxBytes)
	}
	u.changes.mu.Unlock()
	u.poke()
}

func (u *UI) noteScenarios(files []scenario.File) {
	u.changes.mu.Lock()
	u.changes.scenarios, u.changes.scenSet = files, true
	u.changes.mu.Unlock()
	u.poke()
}

// catchUp applies what happened since the last call, on the UI thread:
// many events in a burst (a batch of generated transactions, a busy TPP)
// make one refresh.
func (u *UI) catchUp() {
	u.changes.mu.Lock()
	c := changes{kinds: u.changes.kinds, entries: u.changes.entries, cleared: u.changes.cleared, scenarios: u.changes.scenarios, scenSet: u.changes.scenSet}
	u.changes.kinds, u.changes.entries, u.changes.cleared, u.changes.scenarios, u.changes.scenSet = nil, nil, false, nil, false
	u.changes.mu.Unlock()
	if len(c.kinds) > 0 {
		changed := func(kinds ...bank.EventKind) bool {
			for _, k := range append(kinds, bank.EventReset) {
				if c.kinds[k] != nil {
					return true
				}
			}
			return false
		}
		if changed(bank.EventCustomers, bank.EventAgreements, bank.EventAccounts) {
			u.customers.reload()
		}
		if changed(bank.EventCustomers, bank.EventAccounts, bank.EventCardAccounts) {
			u.accounts.reload()
		}
		if changed(bank.EventAccounts, bank.EventCardAccounts) {
			u.transactions.reloadAccounts()
		}
		// A payment that is authorised, cancelled or rejected adds or
		// removes a pending item on its debtor account.
		if c.kinds[bank.EventReset] != nil || c.kinds[bank.EventPayments] != nil || c.kinds[bank.EventTransactions][u.transactions.selected] || c.kinds[bank.EventCardTransactions][u.transactions.selected] {
			u.transactions.reload()
		}
		if changed(bank.EventSettings) {
			u.server.reloadSettings()
			u.traffic.apply() // the request log's limits may have changed
		}
		if changed(bank.EventConsents, bank.EventCustomers, bank.EventAgreements, bank.EventAccounts, bank.EventCardAccounts, bank.EventSettings) {
			u.consents.reload()
		}
		if changed(bank.EventPayments, bank.EventCustomers, bank.EventAccounts) {
			u.payments.reloadPayments()
		}
		if changed(bank.EventPayments) {
			u.payments.reloadBaskets()
		}
		if changed(bank.EventBatchRuns, bank.EventSettings) {
			u.payments.reloadRuns()
		}
	}
	if c.cleared {
		u.traffic.reset()
	}
	if len(c.entries) > 0 {
		u.traffic.add(c.entries)
	}
	if c.scenSet {
		u.scenarios.set(c.scenarios)
	}
}

// open shows a dialog and keeps it on the stack that Escape closes.
func (u *UI) open(d dialog.Dialog) {
	u.dialogs = append(u.dialogs, d)
	d.SetOnClosed(func() {
		for i, x := range u.dialogs {
			if x == d {
				u.dialogs = append(u.dialogs[:i], u.dialogs[i+1:]...)
				break
			}
		}
	})
	d.Show()
}

// background runs fn on its own goroutine, so long work never blocks the
// window; fn reaches widgets only through fyne.Do.
func (u *UI) background(fn func()) {
	u.work.Add(1)
	go func() {
		defer u.work.Done()
		fn()
	}()
}

// longWork runs fn in the background behind a dialog with a busy bar, so
// the window stays responsive; then runs done (with fn's error) on the UI
// thread.
func (u *UI) longWork(title string, fn func() error, done func(error)) {
	d := dialog.NewCustomWithoutButtons(title, widget.NewProgressBarInfinite(), u.win)
	d.Resize(fyne.NewSize(420, 120))
	u.open(d)
	u.background(func() {
		err := fn()
		fyne.Do(func() {
			d.Hide()
			done(err)
		})
	})
}

// progressWork is longWork with a bar that shows how far fn has got:
// progress is asked every 100 ms for done of total (ok false: nothing to
// show yet).
func (u *UI) progressWork(title string, progress func() (done, total int, ok bool), fn func() error, done func(error)) {
	bar := widget.NewProgressBar()
	label := helpText("Starting…")
	d := dialog.NewCustomWithoutButtons(title, container.NewVBox(label, bar), u.win)
	d.Resize(fyne.NewSize(420, 150))
	u.open(d)
	stop := make(chan struct{})
	u.background(func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if n, total, ok := progress(); ok && total > 0 {
				fyne.Do(func() {
					bar.SetValue(float64(n) / float64(total))
					label.SetText(fmt.Sprintf("%d of %d records", n, total))
				})
			}
		}
	})
	u.background(func() {
		err := fn()
		close(stop)
		fyne.Do(func() {
			d.Hide()
			done(err)
		})
	})
}

// showGrant shows a grant on the Consents & sessions screen.
func (u *UI) showGrant(id string) {
	u.tabs.Select(u.consentsTab)
	if !u.consents.selectGrant(id) {
		u.info("Grant gone", "Grant "+id+" no longer exists: it was revoked, replaced by a newer consent, or its PSU was deleted.")
	}
}

// closeTop closes the newest open dialog.
func (u *UI) closeTop() {
	if n := len(u.dialogs); n > 0 {
		u.dialogs[n-1].Hide()
	}
}

// ShowStartError tells that the listeners could not start, on the Server
// screen, where other addresses can be tried.
func (u *UI) ShowStartError(err error) {
	u.tabs.Select(u.serverTab)
	u.server.listenForm.show(err)
	u.server.refresh()
}
