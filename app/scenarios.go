package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"sandbank/assets"
	"sandbank/bank/hub"
	"sandbank/bank/scenario"
)

// scenarios watches the scenarios folder.
type scenarios struct {
	mu      sync.Mutex
	files   []scenario.File
	changed hub.Hub[[]scenario.File]
	// read holds the summaries read so far, by path: a file whose size and
	// time have not changed is not read again.
	read map[string]scenario.File
}

// MaxScenarioFile is the largest scenario file the folder lists and loads.
// A file is read as a stream, a record at a time, so its size costs time,
// not memory; the limit keeps a stray file from holding the window for
// long. A request body (psd2api.MaxScenarioBody) is spooled to a
// temporary file first, so its limit is lower.
const MaxScenarioFile = 2 << 30

// ScenarioDir is the folder of scenario files.
func (a *App) ScenarioDir() string { return filepath.Join(a.DataDir(), "scenarios") }

// startScenarios makes the scenarios folder (writing the example scenarios
// when it is new), reads it once and, when watch is set, watches it.
func (a *App) startScenarios(ctx context.Context, watch bool) error {
	dir := a.ScenarioDir()
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := writeExamples(dir); err != nil {
			a.logger.Warn("write the example scenarios", "dir", dir, "err", err)
		}
	}
	a.rescanScenarios()
	if !watch {
		return nil
	}
	if err := watchFolder(ctx, dir, a.rescanScenarios); err != nil {
		a.logger.Warn("the scenarios folder is not watched", "dir", dir, "err", err)
	}
	return nil
}

// writeExamples writes the example scenarios shipped with Sandbank.
func writeExamples(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	entries, err := fs.ReadDir(assets.Scenarios, "scenarios")
	if err != nil {
		return err
	}
	for _, e := range entries {
		data, err := fs.ReadFile(assets.Scenarios, "scenarios/"+e.Name())
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// rescanScenarios reads the folder again and tells subscribers.
func (a *App) rescanScenarios() {
	entries, err := os.ReadDir(a.ScenarioDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		a.logger.Warn("read the scenarios folder", "err", err)
	}
	a.scen.mu.Lock()
	known := a.scen.read
	a.scen.mu.Unlock()
	read := map[string]scenario.File{}
	var files []scenario.File
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.EqualFold(filepath.Ext(e.Name()), ".json") {
			continue
		}
		path := filepath.Join(a.ScenarioDir(), e.Name())
		f, ok := known[path]
		if info, err := e.Info(); !ok || err != nil || info.Size() != f.Size || !info.ModTime().Equal(f.Modified) {
			f = readScenarioFile(path)
		}
		read[path] = f
		files = append(files, f)
	}
	slices.SortFunc(files, func(x, y scenario.File) int { return strings.Compare(x.Name, y.Name) })
	a.scen.mu.Lock()
	a.scen.files, a.scen.read = files, read
	a.scen.mu.Unlock()
	a.scen.changed.Publish(files)
}

// readScenarioFile summarises one file as a stream (bounded memory); a
// file over MaxScenarioFile is listed with why it cannot be loaded, unread.
func readScenarioFile(path string) scenario.File {
	f := scenario.File{Name: filepath.Base(path), Path: path}
	info, err := os.Stat(path)
	if err != nil {
		f.Err = err
		return f
	}
	f.Modified, f.Size = info.ModTime(), info.Size()
	if f.Size > MaxScenarioFile {
		f.Err = fmt.Errorf("the file has %d MiB, more than the %d MiB a scenario import takes; split it", f.Size>>20, MaxScenarioFile>>20)
		return f
	}
	file, err := os.Open(path)
	if err != nil {
		f.Err = err
		return f
	}
	defer func() { _ = file.Close() }()
	sum, err := scenario.Summarise(bufio.NewReader(file))
	sum.Name, sum.Path, sum.Modified, sum.Size, sum.Err = f.Name, f.Path, f.Modified, f.Size, err
	return sum
}

// Scenarios returns the scenario files as last read.
func (a *App) Scenarios() []scenario.File {
	a.scen.mu.Lock()
	defer a.scen.mu.Unlock()
	return slices.Clone(a.scen.files)
}

// SubscribeScenarios calls fn with the list whenever the folder changes,
// until cancel. fn must not block.
func (a *App) SubscribeScenarios(fn func([]scenario.File)) (cancel func()) {
	// Each subscriber gets its own copy of the list.
	return a.scen.changed.Subscribe(func(files []scenario.File) { fn(slices.Clone(files)) })
}

// LoadScenario replaces the sandbox data with a scenario file of the
// scenarios folder, at once or not at all, read as a stream
// (scenario.Import): its oddities are warnings in the
// counts, refused in strict mode. Like the folder's list, it
// takes regular files only, not a symbolic link to a file elsewhere.
func (a *App) LoadScenario(name string) (scenario.Counts, error) {
	path, err := a.scenarioPath(name)
	if err != nil {
		return scenario.Counts{}, err
	}
	if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() {
		return scenario.Counts{}, fmt.Errorf("%s is not a regular file in the scenarios folder", filepath.Base(path))
	}
	if info, err := os.Stat(path); err == nil && info.Size() > MaxScenarioFile {
		return scenario.Counts{}, fmt.Errorf("%s has %d MiB, more than the %d MiB a scenario import takes; split it", filepath.Base(path), info.Size()>>20, MaxScenarioFile>>20)
	}
	file, err := os.Open(path)
	if err != nil {
		return scenario.Counts{}, err
	}
	defer func() { _ = file.Close() }()
	return scenario.Import(a.Bank.Sandbox, file)
}

var scenarioName = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,99}$`)

// scenarioPath returns the path of a scenario file name in the folder,
// refusing names that would leave it.
func (a *App) scenarioPath(name string) (string, error) {
	base := strings.TrimSuffix(name, filepath.Ext(name))
	if !scenarioName.MatchString(base) || strings.Contains(base, "..") {
		return "", fmt.Errorf("%q is not a scenario file name; use letters, digits, spaces, '.', '_' and '-'", name)
	}
	return filepath.Join(a.ScenarioDir(), base+".json"), nil
}

// CheckScenarioName reports whether name can be a new scenario file: a
// plain file name that does not exist yet.
func (a *App) CheckScenarioName(name string) error {
	path, err := a.scenarioPath(name)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s exists already; choose another name", filepath.Base(path))
	}
	return nil
}

// SaveScenario writes the current sandbox data as a new scenario file
// name(.json) with a note, account by account (scenario.Write),
// and returns its path. It does not overwrite an existing file.
func (a *App) SaveScenario(name, note string) (string, error) {
	if err := a.CheckScenarioName(name); err != nil {
		return "", err
	}
	path, _ := a.scenarioPath(name)
	if err := os.MkdirAll(a.ScenarioDir(), 0o700); err != nil {
		return "", fmt.Errorf("write the scenario: %w", err)
	}
	tmp, err := os.CreateTemp(a.ScenarioDir(), ".saving-*.tmp")
	if err != nil {
		return "", fmt.Errorf("write the scenario: %w", err)
	}
	err = scenario.Write(a.Bank.Sandbox, tmp, note, "  ")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return "", fmt.Errorf("write the scenario: %w", err)
	}
	return path, nil
}
