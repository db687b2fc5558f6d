package ui

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"sandbank/bank"
	"sandbank/bank/apierr"
	"sandbank/bank/pki"
	"sandbank/bank/scenario"
)

// Preference keys of the desktop app.
const (
	PrefAddr    = "listen.http"
	PrefTLSAddr = "listen.https"
)

// serverScreen starts and stops the listeners and changes the bank's
// settings; it also exports the CA, issues TPP certificates and resets the
// sandbox.
type serverScreen struct {
	u *UI

	status     *widget.Label
	urls       *fyne.Container
	listenForm *form
	addr       *entry
	tlsAddr    *entry
	startBtn   *widget.Button
	stopBtn    *widget.Button

	settingsForm   *form
	trust          *widget.RadioGroup
	requireSig     *widget.Check
	strict         *widget.Check
	signing        *widget.Select
	operatorAccess *widget.RadioGroup
	loading        bool

	clockForm  *form
	clockNow   *widget.Label
	jumpDays   *entry
	legacyForm *form
	legacyDate *entry

	payForm    *form
	batchTimes *entry
	batchMode  *widget.RadioGroup
	retryDays  *entry
	ncbctFee   *entry
	exemption  *widget.RadioGroup
	fx         *entry
	logCount   *entry
	logBytes   *entry
	latency    *entry
	errorRate  *entry
	outage     *widget.Check
	paySave    *widget.Button

	certForm *form
	certName *entry
	certOrg  *entry
	certRole *widget.CheckGroup
	certDays *entry
	certDir  *entry
	certOp   *widget.Check
	certOut  *widget.Label
}

func newServerScreen(u *UI) *serverScreen { return &serverScreen{u: u} }

func (s *serverScreen) build() fyne.CanvasObject {
	s.status = heading("")
	s.urls = container.NewVBox()
	s.listenForm = newForm(s.start)
	addr, tlsAddr := s.u.host.Addrs()
	s.addr = s.listenForm.text("HTTP address", "addr", addr, "e.g. 127.0.0.1:7380; empty: no HTTP")
	s.tlsAddr = s.listenForm.text("HTTPS address", "tlsAddr", tlsAddr, "e.g. 127.0.0.1:7443; empty: no HTTPS")
	s.startBtn = widget.NewButtonWithIcon("Start", theme.MediaPlayIcon(), s.start)
	s.stopBtn = widget.NewButtonWithIcon("Stop", theme.MediaStopIcon(), s.stop)

	s.settingsForm = newForm(nil)
	s.trust = widget.NewRadioGroup([]string{bank.TrustAny, bank.TrustStore}, func(string) { s.saveSettings() })
	s.trust.Horizontal = true
	s.settingsForm.add("Trust mode", "trustMode", s.trust)
	s.requireSig = widget.NewCheck("Refuse unsigned requests", func(bool) { s.saveSettings() })
	s.settingsForm.add("Signatures", "requireSignature", s.requireSig)
	s.strict = widget.NewCheck("Strict: refuse what the bank accepts with a warning (client notes)", func(bool) { s.saveSettings() })
	s.settingsForm.add("Strict mode", "strict", s.strict)
	s.signing = widget.NewSelect(bank.SigningModes, func(string) { s.saveSettings() })
	s.settingsForm.add("Response signatures", "responseSigning", container.NewVBox(s.signing, helpText(
		"rsa: the bank's RSA-2048 certificate, as a real bank signs. ecdsa: an ECDSA P-256 certificate (algorithm ecdsa-sha256), far cheaper, for load tests. off: no Signature on responses; Digest stays. "+
			"The next answer follows the change; GET /v1/sandbox/bank-certificate serves the certificate of the mode (RSA while off).")))
	s.operatorAccess = widget.NewRadioGroup(bank.OperatorAccessModes, func(string) { s.saveSettings() })
	s.operatorAccess.Horizontal = true
	s.settingsForm.add("Operator access", "operatorAccess", s.operatorAccess)
	trustHelp := helpText("Trust mode any: every certificate whose signature verifies, self-signed included. store: also a chain to the Sandbank test CA or a CA file in " + s.u.host.TrustDir() + " (watched: a file dropped there is trusted at once). " +
		"Operator access operator: only this window, sandbankd on the data file and operator certificates of the bank's CA may do what concerns every TPP (settings, the clock, batch runs, every TPP's payments and traffic); a TPP reads its own. any-tpp: every TPP may, for one team alone.")

	s.clockNow = widget.NewLabel("")
	s.clockForm = newForm(s.jump)
	s.jumpDays = s.clockForm.text("Jump ahead by days", "days", "1", "whole days; negative goes back")
	jump := widget.NewButtonWithIcon("Jump", theme.MediaFastForwardIcon(), s.jump)
	realClock := widget.NewButtonWithIcon("Back to the real clock", theme.HistoryIcon(), s.resetClock)
	clockHelp := helpText("Consent ages (180 days), SCA sessions and authorisations (1 hour), the 90-day history rule, the daily limits and the batch runs all read this clock; a jump ahead makes the batch runs it passes over. Certificates are checked against the real clock.")
	s.legacyForm = newForm(s.saveLegacy)
	s.legacyDate = s.legacyForm.text("Legacy date", "legacyDate", "", "YYYY-MM-DD; empty: the API as of today")
	applyLegacy := widget.NewButtonWithIcon("Apply", theme.ConfirmIcon(), s.saveLegacy)
	legacyHelp := helpText("Emulate the API as it was on a past date: x-accept-fix fixes that became default after it (longer-names, cash-account-type-iso and the card amount switch: 2024-09-05; amount-as-string: 2020-08-01) apply only to requests that name them.")

	payments, paymentsHelp := s.buildPayments()

	copyCA := widget.NewButtonWithIcon("Copy the CA certificate", theme.ContentCopyIcon(), func() {
		s.u.app.Clipboard().SetContent(string(s.u.host.CACertPEM()))
	})
	saveCA := widget.NewButtonWithIcon("Save the CA certificate…", theme.DocumentSaveIcon(), s.saveCADialog)

	s.certForm = newForm(s.issue)
	s.certName = s.certForm.text("Name", "name", "Test TPP", "")
	s.certOrg = s.certForm.text("Organisation number", "org", "933012867", "digits; the TPP id becomes NO-FSA-<number>")
	s.certRole = widget.NewCheckGroup(pki.Roles, nil)
	s.certRole.Horizontal = true
	s.certRole.SetSelected([]string{pki.RoleAI, pki.RolePI})
	s.certForm.add("Roles", "roles", s.certRole)
	s.certDays = s.certForm.text("Valid for days", "days", "730", "")
	s.certDir = s.certForm.text("Save to folder", "dir", filepath.Join(s.u.host.DataDir(), "tpp"), "cert.pem and key.pem are written here")
	s.certOp = widget.NewCheck("An operator certificate: it may also do what concerns every TPP", nil)
	s.certForm.add("Operator", "operator", s.certOp)
	s.certOut = helpText("")

	reset := widget.NewButtonWithIcon("Reset to the known state…", theme.ViewRefreshIcon(), s.reset)
	reset.Importance = widget.DangerImportance

	s.reloadSettings()
	s.refresh()
	return container.NewVScroll(container.NewVBox(
		s.status, s.urls, s.listenForm.object(), container.NewHBox(s.startBtn, s.stopBtn),
		widget.NewSeparator(), heading("Settings"), s.settingsForm.object(), trustHelp,
		widget.NewSeparator(), heading("Sandbox clock"), s.clockNow, s.clockForm.object(), container.NewHBox(jump, realClock), clockHelp,
		s.legacyForm.object(), container.NewHBox(applyLegacy), legacyHelp,
		widget.NewSeparator(), heading("Payments, the request log and faults"), payments, container.NewHBox(s.paySave), paymentsHelp,
		widget.NewSeparator(), heading("HTTPS"), widget.NewLabel("Trust Sandbank's CA in your TPP app to call https://localhost."), container.NewHBox(copyCA, saveCA),
		widget.NewSeparator(), heading("Issue a TPP test certificate"), s.certForm.object(),
		container.NewHBox(widget.NewButtonWithIcon("Issue", theme.ConfirmIcon(), s.issue)), s.certOut,
		widget.NewSeparator(), heading("Sandbox data"), container.NewHBox(reset),
	))
}

// refresh shows whether the bank serves and where.
func (s *serverScreen) refresh() {
	urls := s.u.host.URLs()
	s.urls.RemoveAll()
	if len(urls) == 0 {
		s.status.SetText("Stopped: TPPs cannot reach the bank")
	} else {
		s.status.SetText("Serving")
		row := func(label, url string) {
			copyBtn := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { s.u.app.Clipboard().SetContent(url) })
			s.urls.Add(container.NewHBox(widget.NewLabel(label+url), copyBtn))
		}
		for _, u := range urls {
			row("", u+"/v1")
		}
		row("The contract, OpenAPI 3.1: ", urls[0]+"/v1/openapi.json")
	}
	enable(s.startBtn, len(urls) == 0)
	enable(s.stopBtn, len(urls) > 0)
}

func (s *serverScreen) start() {
	s.listenForm.clear()
	addr, tlsAddr := strings.TrimSpace(s.addr.Text), strings.TrimSpace(s.tlsAddr.Text)
	s.u.host.SetAddrs(addr, tlsAddr)
	// A listener that cannot start is shown; the other one serves.
	if err := s.u.host.Start(); err != nil {
		s.listenForm.show(err)
	} else {
		s.u.app.Preferences().SetString(PrefAddr, addr)
		s.u.app.Preferences().SetString(PrefTLSAddr, tlsAddr)
	}
	s.refresh()
}

func (s *serverScreen) stop() {
	if err := s.u.host.Stop(); err != nil {
		s.u.showError(err)
	}
	s.refresh()
}

// reloadSettings shows the stored settings.
func (s *serverScreen) reloadSettings() {
	st, err := s.u.ops.Settings()
	if err != nil {
		s.u.showError(err)
		return
	}
	s.loading = true
	s.trust.SetSelected(st.TrustMode)
	s.requireSig.SetChecked(st.RequireSignature)
	s.strict.SetChecked(st.Strict)
	s.signing.SetSelected(st.ResponseSigning)
	s.operatorAccess.SetSelected(st.OperatorAccess)
	s.loading = false
	c := s.u.ops.Clock()
	text := "Now: " + c.Now.Format("Monday 2006-01-02 15:04 MST")
	if c.OffsetSeconds == 0 {
		text += " (the real clock)"
	} else {
		text += fmt.Sprintf(" (%s from the real clock)", offsetText(c.OffsetSeconds))
	}
	s.clockNow.SetText(text)
	if st.LegacyDate.IsZero() {
		s.legacyDate.SetText("")
	} else {
		s.legacyDate.SetText(st.LegacyDate.String())
	}
	s.showPayments(st)
}

// jump moves the sandbox clock by the days given.
func (s *serverScreen) jump() {
	s.clockForm.clear()
	days, err := strconv.Atoi(strings.TrimSpace(s.jumpDays.Text))
	if err != nil {
		s.clockForm.show(apierr.PathError(apierr.CodeFormatError, "days", "give a whole number of days, e.g. 181 to see a consent expire"))
		return
	}
	if _, err := s.u.ops.JumpClock(days); err != nil {
		s.clockForm.show(err)
		return
	}
	s.reloadSettings()
}

func (s *serverScreen) resetClock() {
	s.clockForm.clear()
	zero := int64(0)
	if _, err := s.u.ops.SetClock(bank.ClockChange{OffsetSeconds: &zero}); err != nil {
		s.clockForm.show(err)
		return
	}
	s.reloadSettings()
}

// saveLegacy stores the legacy date; empty clears it.
func (s *serverScreen) saveLegacy() {
	s.legacyForm.clear()
	text := strings.TrimSpace(s.legacyDate.Text)
	_, _, err := s.u.ops.ChangeSettings(bank.SettingsDoc{LegacyDate: &text})
	s.legacyForm.show(err)
}

// saveSettings stores the settings as the controls show them.
func (s *serverScreen) saveSettings() {
	if s.loading {
		return
	}
	trust, require, strict, signing, access := s.trust.Selected, s.requireSig.Checked, s.strict.Checked, s.signing.Selected, s.operatorAccess.Selected
	_, _, err := s.u.ops.ChangeSettings(bank.SettingsDoc{TrustMode: &trust, RequireSignature: &require, Strict: &strict, ResponseSigning: &signing, OperatorAccess: &access})
	s.settingsForm.show(err)
}

func (s *serverScreen) saveCADialog() {
	f := newForm(nil)
	path := f.text("File", "file", filepath.Join(s.u.host.DataDir(), "sandbank-ca.pem"), "")
	s.u.showModal("Save the CA certificate", "Save", f, nil, func() error {
		if err := os.WriteFile(path.Text, s.u.host.CACertPEM(), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", path.Text, err)
		}
		return nil
	}, func() {
		s.u.info("Saved", "The CA certificate is in "+path.Text)
	})
}

// issue makes a TPP test certificate and saves it with its key.
func (s *serverScreen) issue() {
	s.certForm.clear()
	s.certOut.SetText("")
	days, err := strconv.Atoi(strings.TrimSpace(s.certDays.Text))
	if err != nil || days < 1 || days > 3650 {
		s.certForm.show(fmt.Errorf("valid for days: give a whole number from 1 to 3650"))
		return
	}
	req := pki.TPPRequestFor(strings.TrimSpace(s.certName.Text), strings.TrimSpace(s.certOrg.Text), s.certRole.Selected, days, time.Now())
	cert, certPath, keyPath, err := s.u.host.IssueTPP(req, s.certOp.Checked, strings.TrimSpace(s.certDir.Text))
	if err != nil {
		s.certForm.show(err)
		return
	}
	what, try := "TPP id", "GET /v1/sandbox/customers"
	if s.certOp.Checked {
		what, try = "An operator certificate: keep its key to yourself. TPP id", "GET /v1/sandbox/settings"
	}
	s.certOut.SetText(fmt.Sprintf("Wrote %s and %s. %s %s, roles %s, valid to %s.\nSign with: sandbankd call %s --cert %s --key %s",
		certPath, keyPath, what, pki.TPPID(cert), strings.Join(s.certRole.Selected, ", "), whenZoned(cert.NotAfter), try, certPath, keyPath))
}

func (s *serverScreen) reset() {
	s.u.confirm("Reset to the known state", "Replace all sandbox data (customers, accounts, transactions, agreements) with the known state? Settings, certificates and TPP contacts stay.", "Reset", func() {
		var n scenario.Counts
		s.u.longWork("Resetting to the known state", func() (err error) {
			n, err = scenario.Initialize(s.u.sandbox)
			return err
		}, func(err error) {
			if err != nil {
				s.u.showError(err)
				return
			}
			s.u.info("Reset", fmt.Sprintf("The known state is loaded: %d customers, %d accounts, %d card accounts.", n.Customers, n.Accounts, n.CardAccounts))
		})
	})
}

// buildPayments lays out the settings of payments, the request log's
// limits and the simulated faults: one form that Save stores at once.
func (s *serverScreen) buildPayments() (form, help fyne.CanvasObject) {
	f := newForm(s.savePayments)
	s.payForm = f
	s.batchTimes = f.text("Batch times", "batchTimes", "", "HH:MM, comma separated, e.g. 06:00, 09:00, 12:00, 15:00, 18:00")
	s.batchMode = widget.NewRadioGroup([]string{bank.BatchSchedule, bank.BatchImmediate}, nil)
	s.batchMode.Horizontal = true
	s.batchMode.Required = true
	f.add("Batch mode", "batchMode", container.NewVBox(s.batchMode, helpText(
		"schedule: authorised payments settle at the batch runs. immediate: one that is due today settles when it is authorised, on a banking day, as a batch run would settle it; future-dated ones and retries still wait for the batch runs.")))
	s.retryDays = f.text("Cover retry days", "coverRetryDays", "", "banking days a payment without cover (PDNG) is retried, 0 to 30")
	s.ncbctFee = f.text("NCBCT fee (NOK)", "ncbctFee", "", "the fee of a cross-border transfer, e.g. 250")
	s.exemption = widget.NewRadioGroup([]string{bank.ExemptNever, bank.ExemptOwnAccounts}, nil)
	s.exemption.Horizontal = true
	s.exemption.Required = true
	f.add("SCA exemption", "exemptionPolicy", container.NewVBox(s.exemption, helpText(
		"never: every payment needs the PSU's SCA. own-accounts: a private PSU's transfer between their own accounts is authorised when the TPP creates it, without an SCA page (scaStatus exempted).")))
	s.fx = newEntry("one currency a line: EUR 11.65")
	s.fx.MultiLine = true
	s.fx.Wrapping = fyne.TextWrapOff
	s.fx.SetMinRowsVisible(6)
	f.add("Exchange rates (NOK per unit)", "fxRates", s.fx)
	s.logCount = f.text("Request log: requests kept", "requestLog.maxCount", "", fmt.Sprintf("the newest requests the Traffic screen keeps, 1 to %d", bank.MaxRequestLogCount))
	s.logBytes = f.text("Request log: body bytes kept", "requestLog.maxBytes", "", "fewer requests are kept when their bodies hold more, e.g. 33554432 (32 MiB)")
	s.latency = f.text("Fault: latency (ms)", "faults.latencyMs", "", "added before every /v1 request, 0 to 60000")
	s.errorRate = f.text("Fault: error rate", "faults.errorRate", "", "0 to 1: the share of /v1 requests answered 500, e.g. 0.05")
	s.outage = widget.NewCheck("answer every /v1 request 503 SYSTEM_ERROR", nil)
	f.add("Fault: outage", "faults.outage", s.outage)
	s.paySave = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), s.savePayments)
	help = helpText("At each batch time on a banking day (Europe/Oslo, on the sandbox clock) a batch run settles the due payments: with cover they become ACSC (a cross-border transfer is picked up first, ACSP, and settles at the next run); without cover PDNG, retried at every run for the cover retry days, then RJCT. Moving the clock ahead makes the runs it passes over. " +
		"The exchange rates convert a payment to the debtor account's currency for cover and limits; NOK must be 1. " +
		"The faults apply to the TPPs' /v1 requests, not to this window; PUT /v1/sandbox/faults is spared, so a test suite can turn them off. " +
		"A test suite reads and changes these settings with GET, PUT and PATCH /v1/sandbox/settings.")
	return f.object(), help
}

// showPayments shows the stored payment settings, the request log's
// limits and the faults.
func (s *serverScreen) showPayments(st bank.Settings) {
	s.batchTimes.SetText(strings.Join(st.BatchTimes, ", "))
	s.batchMode.SetSelected(st.BatchMode)
	s.retryDays.SetText(strconv.Itoa(st.CoverRetryDays))
	s.ncbctFee.SetText(bank.FormatAmount(st.NCBCTFee, "NOK"))
	s.exemption.SetSelected(st.Exemption)
	lines := make([]string, 0, len(st.FX))
	for _, c := range slices.Sorted(maps.Keys(st.FX)) {
		lines = append(lines, c+" "+st.FX[c].String())
	}
	s.fx.SetText(strings.Join(lines, "\n"))
	s.logCount.SetText(strconv.Itoa(st.RequestLog.MaxCount))
	s.logBytes.SetText(strconv.Itoa(st.RequestLog.MaxBytes))
	s.latency.SetText(strconv.Itoa(st.Faults.LatencyMs))
	s.errorRate.SetText(strconv.FormatFloat(st.Faults.ErrorRate, 'f', -1, 64))
	s.outage.SetChecked(st.Faults.Outage)
}

// fxLines reads the exchange table as typed, one "EUR 11.65" a line, into
// the rates of the settings document; the bank judges the codes and the
// rates. A line that is not a code and a rate, or a code given twice, is
// reported at the table.
func fxLines(v *apierr.Violations, text string) (map[string]bank.AmountText, bool) {
	out := map[string]bank.AmountText{}
	ok := true
	for i, line := range strings.Split(text, "\n") {
		fields := strings.FieldsFunc(line, func(r rune) bool { return unicode.IsSpace(r) || r == '=' || r == ':' })
		if len(fields) == 0 {
			continue
		}
		code := strings.ToUpper(fields[0])
		if len(fields) != 2 {
			v.Format("fxRates", "line %d %q: write a currency and its rate, e.g. EUR 11.65", i+1, strings.TrimSpace(line))
			ok = false
			continue
		}
		if _, twice := out[code]; twice {
			v.Format("fxRates."+code, "%s: given twice (line %d)", code, i+1)
			ok = false
			continue
		}
		out[code] = bank.AmountText{Text: numberText(fields[1])}
	}
	return out, ok
}

// wholeNumber reads a whole number typed into an entry; a text that is not
// one is a finding at path, with hint.
func wholeNumber(v *apierr.Violations, path string, e *entry, hint string) (*int, bool) {
	text := strings.TrimSpace(e.Text)
	n, err := strconv.Atoi(numberText(text))
	if err != nil {
		v.Format(path, "%q is not a whole number; %s", text, hint)
		return nil, false
	}
	return &n, true
}

// savePayments stores the payment settings, the request log's limits and
// the faults as the form shows them, in one change through the bank's
// settings document, which judges every value. A text that does not read
// as a number is shown at its field, with what the bank finds in the
// rest, and nothing is stored.
func (s *serverScreen) savePayments() {
	f := s.payForm
	f.clear()
	var v apierr.Violations
	times := strings.FieldsFunc(s.batchTimes.Text, func(r rune) bool { return r == ',' || r == ';' || unicode.IsSpace(r) })
	mode, exemption := s.batchMode.Selected, s.exemption.Selected
	doc := bank.SettingsDoc{
		BatchTimes: append([]string{}, times...), BatchMode: &mode, ExemptionPolicy: &exemption,
		NCBCTFee: &bank.AmountText{Text: numberText(s.ncbctFee.Text)}, RequestLog: &bank.RequestLogDoc{},
	}
	doc.CoverRetryDays, _ = wholeNumber(&v, "coverRetryDays", s.retryDays, "give banking days, e.g. 3")
	if fx, ok := fxLines(&v, s.fx.Text); ok {
		doc.FXRates = fx
	}
	doc.RequestLog.MaxCount, _ = wholeNumber(&v, "requestLog.maxCount", s.logCount, "give a number of requests, e.g. 2000")
	doc.RequestLog.MaxBytes, _ = wholeNumber(&v, "requestLog.maxBytes", s.logBytes, "give bytes, e.g. 33554432 for 32 MiB")
	faults := bank.Faults{Outage: s.outage.Checked}
	if n, ok := wholeNumber(&v, "faults.latencyMs", s.latency, "give milliseconds, e.g. 500"); ok {
		faults.LatencyMs = *n
	}
	if r, err := decimalText(s.errorRate.Text); err != nil {
		v.Format("faults.errorRate", "%q is not a number; give a share from 0 to 1, e.g. 0.05", strings.TrimSpace(s.errorRate.Text))
	} else {
		faults.ErrorRate = r.InexactFloat64()
	}
	doc.Faults = &faults
	if !v.Empty() {
		// Show at once what the bank would find in the values that read.
		if e, ok := apierr.AsError(s.u.ops.CheckSettings(doc)); ok {
			v.Merge("", e)
		}
		f.show(namedFX(v.Err()))
		return
	}
	_, warnings, err := s.u.ops.ChangeSettings(doc)
	if f.show(namedFX(err)) {
		return
	}
	s.reloadSettings()
	f.warn(warnings)
}

// namedFX starts the bank's findings about an exchange rate with the
// currency, since they all show at the one exchange table field.
func namedFX(err error) error {
	return editMessages(err, func(m *apierr.Message) {
		if code, ok := strings.CutPrefix(m.Path, "fxRates."); ok && !strings.HasPrefix(m.Text, code) {
			m.Text = code + ": " + m.Text
		}
	})
}
