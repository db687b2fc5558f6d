package ui

import (
	"fmt"
	"net/url"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"sandbank/bank"
)

var (
	grantColumns   = []string{"TPP", "PSU", "Context", "Accounts", "Age", "Expires (Oslo)", "Status"}
	sessionColumns = []string{"TPP", "PSU", "TPP-Session-ID", "Expires (Oslo)", "Status"}
	authColumns    = []string{"TPP", "Kind", "Status", "PSU", "Started (Oslo)", "Expires (Oslo)", "Redirect URI"}
)

// consentsScreen shows what TPPs may read: the grants per TPP and PSU, the
// SCA sessions, and the authorisations still waiting for a PSU.
type consentsScreen struct {
	u *UI

	data      bank.ConsentsOverview
	grant     string // id of the selected grant
	auth      string // id of the selected authorisation
	clock     *widget.Label
	grants    *widget.Table
	sessions  *widget.Table
	auths     *widget.Table
	detail    *widget.Label
	revokeBtn *widget.Button
	openBtn   *widget.Button
	copyBtn   *widget.Button
}

func newConsentsScreen(u *UI) *consentsScreen { return &consentsScreen{u: u} }

func (s *consentsScreen) build() fyne.CanvasObject {
	s.clock = widget.NewLabel("")
	s.grants = textTable(grantColumns, []float32{170, 260, 200, 300, 80, 140, 70},
		func() int { return len(s.data.Grants) }, s.grantCell, func(row int) {
			s.grant = s.data.Grants[row].ID
			s.showGrant()
		})
	s.sessions = textTable(sessionColumns, []float32{170, 260, 260, 160, 80},
		func() int { return len(s.data.Sessions) }, s.sessionCell, nil)
	s.auths = textTable(authColumns, []float32{170, 80, 150, 260, 140, 140, 300},
		func() int { return len(s.data.Authorisations) }, s.authCell, func(row int) {
			s.auth = s.data.Authorisations[row].ID
			enable(s.openBtn, true)
			enable(s.copyBtn, true)
		})
	s.detail = helpText("Select a grant to see its PSU ids and accounts.")
	s.revokeBtn = widget.NewButtonWithIcon("Revoke…", theme.DeleteIcon(), s.revoke)
	s.revokeBtn.Importance = widget.DangerImportance
	s.revokeBtn.Disable()
	s.openBtn = widget.NewButtonWithIcon("Open the SCA page in the browser", theme.ComputerIcon(), s.openSCA)
	s.openBtn.Disable()
	s.copyBtn = widget.NewButtonWithIcon("Copy its link", theme.ContentCopyIcon(), func() {
		if link, err := s.scaLink(); err == nil {
			s.u.app.Clipboard().SetContent(link)
		}
	})
	s.copyBtn.Disable()
	refresh := widget.NewButtonWithIcon("Refresh", theme.ViewRefreshIcon(), s.reload)

	grantSplit := container.NewVSplit(s.grants, container.NewVScroll(s.detail))
	grantSplit.Offset = 0.6
	grants := container.NewBorder(
		container.NewBorder(nil, nil, heading("Grants (consents): what each TPP may read, for 180 days"), container.NewHBox(s.revokeBtn, refresh)),
		nil, nil, nil, grantSplit)
	sessions := container.NewBorder(heading("SCA sessions: an hour in which a TPP may read more than 90 days back"), nil, nil, nil, s.sessions)
	auths := container.NewBorder(
		container.NewBorder(nil, nil, heading("Open authorisations: SCA pages waiting for a PSU"), container.NewHBox(s.openBtn, s.copyBtn)),
		nil, nil, nil, s.auths)
	lower := container.NewVSplit(sessions, auths)
	split := container.NewVSplit(grants, lower)
	split.Offset = 0.55
	s.reload()
	return container.NewBorder(s.clock, nil, nil, nil, split)
}

// reload reads the grants, sessions and authorisations again.
func (s *consentsScreen) reload() {
	data, err := s.u.ops.Consents()
	if err != nil {
		s.u.showError(err)
		return
	}
	s.data = data
	c := s.u.ops.Clock()
	text := "Sandbox clock: " + c.Now.Format("2006-01-02 15:04 MST")
	if c.OffsetSeconds != 0 {
		text += fmt.Sprintf(" (%s from the real clock; change it on the Server screen)", offsetText(c.OffsetSeconds))
	}
	s.clock.SetText(text)
	s.grants.Refresh()
	s.sessions.Refresh()
	s.auths.Refresh()
	s.showGrant()
	if _, ok := s.authorisation(); !ok {
		s.auth = ""
		s.auths.UnselectAll()
	}
	enable(s.openBtn, s.auth != "")
	enable(s.copyBtn, s.auth != "")
}

func (s *consentsScreen) grantCell(row, col int) string {
	g := s.data.Grants[row]
	switch col {
	case 0:
		return g.TPPID
	case 1:
		return customerLabel(g.Customer)
	case 2:
		return g.ContextName
	case 3:
		return strings.Join(g.AccountNames, ", ")
	case 4:
		return duration(s.data.Now.Sub(g.Created))
	case 5:
		return when(g.Expires())
	case 6:
		if g.Expired {
			return "expired"
		}
		return "active"
	}
	return ""
}

func (s *consentsScreen) sessionCell(row, col int) string {
	ss := s.data.Sessions[row]
	switch col {
	case 0:
		return ss.TPPID
	case 1:
		return customerLabel(ss.Customer)
	case 2:
		return ss.SessionID
	case 3:
		return when(ss.Expires)
	case 4:
		if ss.Valid {
			return "valid"
		}
		return "ended"
	}
	return ""
}

func (s *consentsScreen) authCell(row, col int) string {
	a := s.data.Authorisations[row]
	switch col {
	case 0:
		return a.TPPID
	case 1:
		return a.Kind
	case 2:
		if a.Expired {
			return "past its hour"
		}
		return a.Status
	case 3:
		if a.Customer.ID != "" {
			return customerLabel(a.Customer)
		}
		return "not yet identified"
	case 4:
		return when(a.Created)
	case 5:
		return when(a.Expires())
	case 6:
		return a.RedirectURI
	}
	return ""
}

func (s *consentsScreen) selectedGrant() (bank.GrantInfo, int, bool) {
	for i, g := range s.data.Grants {
		if g.ID == s.grant {
			return g, i, true
		}
	}
	return bank.GrantInfo{}, -1, false
}

// showGrant shows the selected grant's ids and accounts.
func (s *consentsScreen) showGrant() {
	g, _, ok := s.selectedGrant()
	enable(s.revokeBtn, ok)
	if !ok {
		s.grant = ""
		s.grants.UnselectAll()
		s.detail.SetText("Select a grant to see its PSU ids and accounts.")
		return
	}
	text := fmt.Sprintf("Grant %s of %s for %s, %s.\nGiven %s, expires %s.\nPSU-ID: %s", g.ID, g.TPPID, customerLabel(g.Customer), g.ContextName, whenZoned(g.Created), whenZoned(g.Expires()), g.PSUID)
	if g.CorporateID != "" {
		text += "\nPSU-Corporate-ID: " + g.CorporateID
	}
	text += "\nAccounts:\n  " + strings.Join(g.AccountNames, "\n  ")
	s.detail.SetText(text)
}

// selectGrant selects a grant by id, as the traffic screen's link does.
func (s *consentsScreen) selectGrant(id string) bool {
	s.reload()
	s.grant = id
	_, row, ok := s.selectedGrant()
	if ok {
		s.grants.Select(widget.TableCellID{Row: row, Col: 0})
	}
	s.showGrant()
	return ok
}

func (s *consentsScreen) revoke() {
	g, _, ok := s.selectedGrant()
	if !ok {
		return
	}
	s.u.confirm("Revoke the consent",
		fmt.Sprintf("Revoke %s's consent for %s, %s? Its next account-information request gets 401 CONSENT_INVALID and a link to a new SCA.", g.TPPID, customerLabel(g.Customer), g.ContextName),
		"Revoke", func() {
			if err := s.u.ops.RevokeGrant(g.ID); err != nil {
				s.u.showError(err)
			}
			s.reload()
		})
}

func (s *consentsScreen) authorisation() (bank.AuthorisationInfo, bool) {
	for _, a := range s.data.Authorisations {
		if a.ID == s.auth {
			return a, true
		}
	}
	return bank.AuthorisationInfo{}, false
}

// scaLink is the SCA page of the selected authorisation on a listener of
// the bank.
func (s *consentsScreen) scaLink() (string, error) {
	a, ok := s.authorisation()
	if !ok {
		return "", fmt.Errorf("select an open authorisation first")
	}
	urls := s.u.host.URLs()
	if len(urls) == 0 {
		return "", fmt.Errorf("the bank is stopped: start it on the Server screen, then open the SCA page")
	}
	return urls[0] + a.PagePath(), nil
}

func (s *consentsScreen) openSCA() {
	link, err := s.scaLink()
	if err != nil {
		s.u.showError(err)
		return
	}
	u, err := url.Parse(link)
	if err == nil {
		err = s.u.openURL(u)
	}
	if err != nil {
		s.u.showError(fmt.Errorf("could not open a browser (%v); open %s yourself", err, link))
	}
}
