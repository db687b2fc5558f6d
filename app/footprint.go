package app

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"sandbank/assets"
)

// footprint is what a start may create that was not there before it: the
// data file and the folders above it, the trust and scenarios folders
// beside it (with the example scenarios), the running file, and what
// --operator-cert-out writes. A start that fails removes it again (undo),
// so that it leaves nothing behind: a busy port does not leave a new data
// file.
type footprint struct {
	// files and dirs are the files and folders that did not exist, as
	// absolute paths.
	files, dirs []string
}

// footprintOf notes what a start with cfg may create that does not exist
// now.
func footprintOf(cfg Config) footprint {
	var f footprint
	data := cfg.DataPath
	f.addDirs(filepath.Dir(data))
	f.addDirs(trustDir(data))
	if scenarios := filepath.Join(filepath.Dir(data), "scenarios"); !exists(scenarios) { // as ScenarioDir
		f.addDirs(scenarios)
		if entries, err := fs.ReadDir(assets.Scenarios, "scenarios"); err == nil {
			for _, e := range entries {
				f.addFiles(filepath.Join(scenarios, e.Name()))
			}
		}
	}
	f.addFiles(data, RunningPath(data), RunningPath(data)+".tmp")
	if out := cfg.OperatorCertOut; out != "" {
		f.addDirs(out)
		f.addFiles(filepath.Join(out, "cert.pem"), filepath.Join(out, "key.pem"), filepath.Join(out, "ca.pem"))
	}
	return f
}

// addDirs notes dir and the folders above it that do not exist.
func (f *footprint) addDirs(dir string) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	for ; !exists(d) && !slices.Contains(f.dirs, d); d = filepath.Dir(d) {
		f.dirs = append(f.dirs, d)
		if filepath.Dir(d) == d {
			return
		}
	}
}

// addFiles notes the files that do not exist.
func (f *footprint) addFiles(files ...string) {
	for _, file := range files {
		if abs, err := filepath.Abs(file); err == nil && !exists(abs) {
			f.files = append(f.files, abs)
		}
	}
}

// exists reports whether something is at path; what cannot be looked at
// counts as there, so that it is never removed.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// undo removes what the start created: the files, then the folders,
// inner ones first, each only when it is empty, so that nothing put there
// by anyone else goes.
func (f footprint) undo() {
	for _, file := range f.files {
		_ = os.Remove(file)
	}
	dirs := slices.Clone(f.dirs)
	slices.SortFunc(dirs, func(a, b string) int { return len(b) - len(a) }) // a folder's path is longer than the one above it
	for _, dir := range dirs {
		_ = os.Remove(dir)
	}
}
