package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// accessError is a data file that Sandbank may not read or write, or a
// folder on its way it may not search or write (a new data file's): it
// names the file or folder, its owner and mode, who runs Sandbank, the
// permission that is missing and what to do. It wraps the error of the
// open, so errors.Is(err, fs.ErrPermission) holds.
type accessError struct {
	// data is the data file; path is what lacks the permission: the data
	// file itself, or a folder (folder set).
	data, path string
	folder     bool
	// missing is the permission that is missing: "read", "write",
	// "read and write" or "search"; readOnlyFS is set instead when path
	// is on a file system mounted read-only.
	missing    string
	readOnlyFS bool
	// owner owns path and runner runs Sandbank (empty when the system
	// does not say, as on Windows); mode is path's.
	owner, runner string
	mode          fs.FileMode
	// elsewhere is set when the mode grants the permission (or Sandbank
	// runs as root): something besides the mode forbids it.
	elsewhere bool
	// err is the error of the open; cause the system's reason in it.
	err, cause error
}

// Unwrap returns the error of the open.
func (e *accessError) Unwrap() error { return e.err }

// Error says which file or folder, whose it is, what is missing and what
// to do.
func (e *accessError) Error() string {
	what := "the data file " + e.path
	if e.folder {
		what = "the folder " + e.path + " of the data file " + e.data
	}
	if e.readOnlyFS {
		return what + " is on a file system mounted read-only, and Sandbank writes to its data file as it serves: copy the data file to a folder you can write and start with --data COPY, or mount the file system read-write"
	}
	verb := map[string]string{"read": "be read", "write": "be written", "read and write": "be read or written", "search": "be searched"}[e.missing]
	msg := fmt.Sprintf("%s cannot %s", what, verb)
	if e.runner != "" {
		msg += " by " + e.runner + ", who runs Sandbank"
	}
	msg += ":"
	if e.owner != "" {
		msg += " it belongs to " + e.owner + ","
	}
	if e.elsewhere {
		return msg + fmt.Sprintf(" its mode is %s, yet %s permission is refused (%v), so something besides the mode forbids it: an immutable attribute (lsattr %s), a read-only mount, or a security policy (SELinux, AppArmor); lift it, or choose another --data file", e.mode, e.missing, e.cause, e.path)
	}
	return msg + fmt.Sprintf(" its mode is %s, and %s permission is missing; %s", e.mode, e.missing, e.remedy())
}

// remedy says what to do about the missing permission.
func (e *accessError) remedy() string {
	own := e.owner != "" && e.owner == e.runner
	bits := map[string]string{"read": "r", "write": "w", "read and write": "rw", "search": "x"}[e.missing]
	switch {
	case e.owner == "" || e.runner == "":
		return fmt.Sprintf("give the user who runs Sandbank %s permission on %s (on Windows: its Properties, Security), or choose another --data file", e.missing, e.path)
	case !e.folder && own:
		return fmt.Sprintf("give yourself the permission (chmod u+%s %s), or choose another --data file", bits, e.path)
	case !e.folder && e.missing == "write":
		return fmt.Sprintf("run Sandbank as %s, make %s its owner (sudo chown %s %s), or copy it to a folder of yours (cp %s COPY: the copy is yours) and start with --data COPY", e.owner, e.runner, e.runner, e.path, e.path)
	case !e.folder:
		return fmt.Sprintf("run Sandbank as %s, or make %s its owner (sudo chown %s %s)", e.owner, e.runner, e.runner, e.path)
	case own && e.missing == "search":
		return fmt.Sprintf("give yourself the permission (chmod u+x %s), or choose a --data file in another folder", e.path)
	case own:
		return fmt.Sprintf("give yourself the permission (chmod u+%s %s), or choose a --data file in a folder you can write", bits, e.path)
	}
	return fmt.Sprintf("choose a --data file in a folder %s may write (the default is under the user's config folder), or have %s give %s %s permission on %s", e.runner, e.owner, e.runner, e.missing, e.path)
}

// describeAccess returns, for an error of opening the data file at data
// that a permission is missing for (or a read-only file system), an
// *accessError that says which file or folder lacks what; other errors it
// returns as they are.
func describeAccess(data string, err error) error {
	readOnlyFS := errors.Is(err, syscall.EROFS)
	var pe *fs.PathError
	if !(errors.Is(err, fs.ErrPermission) || readOnlyFS) || !errors.As(err, &pe) || !onTheWay(pe.Path, data) {
		return err
	}
	e := &accessError{data: data, path: pe.Path, readOnlyFS: readOnlyFS, runner: runnerName(), err: err, cause: pe.Err}
	info, statErr := os.Stat(pe.Path)
	switch {
	case pe.Op == "mkdir" || errors.Is(statErr, fs.ErrNotExist):
		// A new data file, or its folder, cannot be made in the folder
		// above it.
		e.path, e.folder, e.missing = filepath.Dir(pe.Path), true, "write"
	case statErr != nil:
		// A folder on the way cannot be searched: the nearest one that
		// can be looked at.
		e.path, e.folder, e.missing = searchBlocker(pe.Path), true, "search"
	case info.IsDir():
		e.folder, e.missing = true, "write"
	default:
		e.missing = missingOnFile(pe.Path)
	}
	if info, statErr := os.Stat(e.path); statErr == nil {
		e.mode, e.owner = info.Mode(), ownerName(info)
	}
	e.elsewhere = runsAsRoot() || (e.owner != "" && e.owner == e.runner && ownerMayAlready(e.mode, e.missing))
	return e
}

// ownerMayAlready reports whether mode grants its owner the permission
// missing ("read", "write", "read and write" or "search").
func ownerMayAlready(mode fs.FileMode, missing string) bool {
	need := map[string]fs.FileMode{"read": 0o400, "write": 0o200, "read and write": 0o600, "search": 0o100}[missing]
	return need != 0 && mode.Perm()&need == need
}

// onTheWay reports whether path is the data file or a folder above it.
func onTheWay(path, data string) bool {
	path, data = filepath.Clean(path), filepath.Clean(data)
	for {
		if path == data {
			return true
		}
		up := filepath.Dir(data)
		if up == data {
			return false
		}
		data = up
	}
}

// searchBlocker is the folder that keeps path from being looked at: the
// nearest folder above it that can be.
func searchBlocker(path string) string {
	dir := filepath.Dir(path)
	for {
		if _, err := os.Stat(dir); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return dir
		}
		dir = up
	}
}

// missingOnFile is the permission the file at path lacks for this
// process: "read", "write", or "read and write".
func missingOnFile(path string) string {
	read, write := true, true
	if f, err := os.Open(path); err != nil {
		read = false
	} else {
		_ = f.Close()
	}
	if f, err := os.OpenFile(path, os.O_WRONLY, 0); err != nil {
		write = false
	} else {
		_ = f.Close()
	}
	switch {
	case !read && !write:
		return "read and write"
	case !read:
		return "read"
	}
	return "write"
}
