package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// MainMenu is the window's menu: File with Quit, which calls quit, and
// Help with About Sandbank.
func (u *UI) MainMenu(quit func()) *fyne.MainMenu {
	q := fyne.NewMenuItem("Quit", quit)
	q.IsQuit = true
	return fyne.NewMainMenu(
		fyne.NewMenu("File", q),
		fyne.NewMenu("Help", fyne.NewMenuItem("About Sandbank", u.showAbout)),
	)
}

// showAbout shows what this is, its version (the one GET / answers and
// sandbank --version prints), the data folder and where the bank serves.
func (u *UI) showAbout() {
	serves := "The bank does not serve now (Server screen: Start)."
	if urls := u.host.URLs(); len(urls) > 0 {
		serves = "The bank serves " + strings.Join(urls, " and ") + "."
	}
	content := container.NewVBox(
		heading("Sandbank"),
		widget.NewLabel("Version "+u.host.Version()),
		helpText("A Norwegian bank's PSD2 interface (Berlin Group NextGenPSD2 1.3) on your machine, with a sandbox data API."),
		widget.NewLabel("Data folder: "+u.host.DataDir()),
		widget.NewLabel(serves),
	)
	d := dialog.NewCustom("About Sandbank", "Close", content, u.win)
	d.Resize(fyne.NewSize(520, 260))
	u.open(d)
}
