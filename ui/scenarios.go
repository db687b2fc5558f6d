package ui

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"sandbank/bank"
	"sandbank/bank/scenario"
)

// scenariosScreen lists the scenario files of the watched scenarios folder,
// loads one, and saves the current data as a new one.
type scenariosScreen struct {
	u *UI

	files    []scenario.File
	selected string // file name

	list    *widget.List
	detail  *widget.Label
	loadBtn *widget.Button
}

func newScenariosScreen(u *UI) *scenariosScreen { return &scenariosScreen{u: u} }

func (s *scenariosScreen) build() fyne.CanvasObject {
	s.list = widget.NewList(
		func() int { return len(s.files) },
		func() fyne.CanvasObject {
			name := heading("template-scenario-file-name.json")
			summary := widget.NewLabel("template summary of the scenario")
			summary.Truncation = fyne.TextTruncateEllipsis
			return container.NewVBox(name, summary)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			f := s.files[i]
			box := o.(*fyne.Container)
			box.Objects[0].(*widget.Label).SetText(f.Name)
			summary := box.Objects[1].(*widget.Label)
			summary.SetText(f.Summary())
			if f.Err != nil {
				summary.Importance = widget.DangerImportance
			} else {
				summary.Importance = widget.MediumImportance
			}
			summary.Refresh()
		})
	s.list.OnSelected = func(i widget.ListItemID) {
		s.selected = s.files[i].Name
		s.showDetail()
	}
	s.detail = helpText("Select a scenario file.")
	s.loadBtn = widget.NewButtonWithIcon("Load…", theme.DownloadIcon(), s.load)
	save := widget.NewButtonWithIcon("Save current as…", theme.DocumentSaveIcon(), s.saveDialog)
	folder := helpText("Folder: " + s.u.host.ScenarioDir() + " (watched: a .json file written there appears here)")
	s.set(s.u.host.Scenarios())
	split := container.NewHSplit(s.list, container.NewVScroll(s.detail))
	split.Offset = 0.45
	return container.NewBorder(container.NewVBox(folder, container.NewHBox(s.loadBtn, save)), nil, nil, nil, split)
}

// set shows a new list of files, keeping the selection.
func (s *scenariosScreen) set(files []scenario.File) {
	s.files = files
	reselectItem(s.list, len(files), func(i int) bool { return files[i].Name == s.selected })
	s.showDetail()
}

func (s *scenariosScreen) file() (scenario.File, bool) {
	for _, f := range s.files {
		if f.Name == s.selected {
			return f, true
		}
	}
	return scenario.File{}, false
}

func (s *scenariosScreen) showDetail() {
	f, ok := s.file()
	enable(s.loadBtn, ok && f.Err == nil)
	if !ok {
		s.detail.SetText("Select a scenario file.")
		return
	}
	text := fmt.Sprintf("%s\n%s, %d bytes, changed %s\n", f.Name, f.Path, f.Size, f.Modified.In(bank.Oslo).Format("2006-01-02 15:04:05 MST"))
	if f.Format != "" {
		text += "Format " + f.Format + "\n"
	}
	text += "\n"
	if f.Err != nil {
		text += "This file cannot be loaded; nothing will be read from it:\n" + f.Err.Error()
	} else {
		text += f.Summary() + "\n\n" + f.Note
	}
	s.detail.SetText(text)
}

// load replaces the sandbox data with the selected file, after asking, in
// the background.
func (s *scenariosScreen) load() {
	f, ok := s.file()
	if !ok || f.Err != nil {
		return
	}
	s.u.confirm("Load scenario", fmt.Sprintf("Replace all sandbox data with %s (%s)? %s", f.Name, f.Summary(), f.Replaces()), "Load", func() {
		start := time.Now()
		var n scenario.Counts
		s.u.progressWork("Loading "+f.Name, s.importProgress, func() (err error) {
			n, err = s.u.host.LoadScenario(f.Name)
			return err
		}, func(err error) {
			if err != nil {
				s.u.showError(err)
				return
			}
			text := fmt.Sprintf("%s loaded in %s: %d customers, %d accounts, %d card accounts, %d transactions, %d payments, %d baskets, %d consents, %d grants.",
				f.Name, time.Since(start).Round(time.Millisecond), n.Customers, n.Accounts, n.CardAccounts, n.Transactions+n.CardTransactions,
				n.Payments, n.Baskets, n.Consents, n.Grants)
			if len(n.Warnings) > 0 {
				text += "\n\nWith warnings:\n" + warningLines(n.Warnings)
			}
			s.u.info("Loaded", text)
		})
	})
}

// importProgress is how far the import that runs is.
func (s *scenariosScreen) importProgress() (done, total int, ok bool) {
	p, ok := s.u.ops.Importing()
	if !ok {
		return 0, 0, false
	}
	return p.Done(), p.Total(), true
}

func (s *scenariosScreen) saveDialog() {
	f := newForm(nil)
	name := f.text("File name", "name", "", "e.g. support-case-4711")
	note := f.text("Note", "note", "", "what the scenario shows")
	var fileName, text string
	s.u.showModal("Save the current data as a scenario", "Save", f, nil, func() error {
		fileName, text = name.Text, note.Text
		return s.u.host.CheckScenarioName(fileName)
	}, func() {
		var path string
		s.u.longWork("Saving "+fileName, func() (err error) {
			path, err = s.u.host.SaveScenario(fileName, text)
			return err
		}, func(err error) {
			if err != nil {
				s.u.showError(err)
				return
			}
			s.u.info("Saved", "The scenario is in "+path)
		})
	})
}
