package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Each permission problem of a data file gets one sentence: which file or
// folder, whose it is, what is missing and what to do, for its owner, for
// another user, for root (whom something besides the mode stops), on a
// system without owners (Windows), and on a read-only file system.
func TestAccessError_SaysWhatToDo(t *testing.T) {
	denied := &fs.PathError{Op: "open", Path: "/srv/ro.db", Err: syscall.EACCES}
	for _, c := range []struct {
		name string
		e    accessError
		want string
	}{
		{"the owner's read-only file",
			accessError{data: "/srv/ro.db", path: "/srv/ro.db", missing: "write", owner: "kari", runner: "kari", mode: 0o444},
			"the data file /srv/ro.db cannot be written by kari, who runs Sandbank: it belongs to kari, its mode is -r--r--r--, and write permission is missing; give yourself the permission (chmod u+w /srv/ro.db), or choose another --data file"},
		{"another user's file",
			accessError{data: "/srv/ro.db", path: "/srv/ro.db", missing: "write", owner: "root", runner: "kari", mode: 0o644},
			"the data file /srv/ro.db cannot be written by kari, who runs Sandbank: it belongs to root, its mode is -rw-r--r--, and write permission is missing; run Sandbank as root, make kari its owner (sudo chown kari /srv/ro.db), or copy it to a folder of yours (cp /srv/ro.db COPY: the copy is yours) and start with --data COPY"},
		{"another user's unreadable file",
			accessError{data: "/srv/ro.db", path: "/srv/ro.db", missing: "read and write", owner: "root", runner: "kari", mode: 0o600},
			"the data file /srv/ro.db cannot be read or written by kari, who runs Sandbank: it belongs to root, its mode is -rw-------, and read and write permission is missing; run Sandbank as root, or make kari its owner (sudo chown kari /srv/ro.db)"},
		{"the owner's locked folder",
			accessError{data: "/srv/new.db", path: "/srv", folder: true, missing: "write", owner: "kari", runner: "kari", mode: fs.ModeDir | 0o555},
			"the folder /srv of the data file /srv/new.db cannot be written by kari, who runs Sandbank: it belongs to kari, its mode is dr-xr-xr-x, and write permission is missing; give yourself the permission (chmod u+w /srv), or choose a --data file in a folder you can write"},
		{"another user's folder",
			accessError{data: "/srv/new.db", path: "/srv", folder: true, missing: "write", owner: "root", runner: "kari", mode: fs.ModeDir | 0o755},
			"the folder /srv of the data file /srv/new.db cannot be written by kari, who runs Sandbank: it belongs to root, its mode is drwxr-xr-x, and write permission is missing; choose a --data file in a folder kari may write (the default is under the user's config folder), or have root give kari write permission on /srv"},
		{"the owner's folder that cannot be searched",
			accessError{data: "/srv/a/new.db", path: "/srv", folder: true, missing: "search", owner: "kari", runner: "kari", mode: fs.ModeDir | 0o600},
			"the folder /srv of the data file /srv/a/new.db cannot be searched by kari, who runs Sandbank: it belongs to kari, its mode is drw-------, and search permission is missing; give yourself the permission (chmod u+x /srv), or choose a --data file in another folder"},
		{"root, stopped by something besides the mode",
			accessError{data: "/srv/ro.db", path: "/srv/ro.db", missing: "write", owner: "root", runner: "root", mode: 0o644, elsewhere: true, cause: syscall.EPERM},
			"the data file /srv/ro.db cannot be written by root, who runs Sandbank: it belongs to root, its mode is -rw-r--r--, yet write permission is refused (operation not permitted), so something besides the mode forbids it: an immutable attribute (lsattr /srv/ro.db), a read-only mount, or a security policy (SELinux, AppArmor); lift it, or choose another --data file"},
		{"no owners (Windows)",
			accessError{data: `C:\srv\ro.db`, path: `C:\srv\ro.db`, missing: "write", mode: 0o444},
			`the data file C:\srv\ro.db cannot be written: its mode is -r--r--r--, and write permission is missing; give the user who runs Sandbank write permission on C:\srv\ro.db (on Windows: its Properties, Security), or choose another --data file`},
		{"a read-only file system",
			accessError{data: "/media/cd/ro.db", path: "/media/cd/ro.db", readOnlyFS: true},
			"the data file /media/cd/ro.db is on a file system mounted read-only, and Sandbank writes to its data file as it serves: copy the data file to a folder you can write and start with --data COPY, or mount the file system read-write"},
	} {
		c.e.err = denied
		if got := c.e.Error(); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
		if !errors.Is(&c.e, fs.ErrPermission) {
			t.Errorf("%s: the error does not wrap fs.ErrPermission", c.name)
		}
	}
}

// describeAccess turns a permission error of the data file, or of a
// folder above it, into an accessError, and leaves other errors, and a
// permission error of another file, as they are.
func TestDescribeAccess(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sub", "sandbank.db")
	mkdir := fmt.Errorf("create data folder: %w", &fs.PathError{Op: "mkdir", Path: filepath.Join(dir, "sub"), Err: syscall.EACCES})
	var e *accessError
	if err := describeAccess(data, mkdir); !errors.As(err, &e) || e.path != dir || !e.folder || e.missing != "write" || e.mode&fs.ModeDir == 0 {
		t.Errorf("a folder that cannot be made: %#v", err)
	}
	other := fmt.Errorf("--operator-cert-out: %w", &fs.PathError{Op: "mkdir", Path: "/elsewhere/op", Err: syscall.EACCES})
	if err := describeAccess(data, other); err != other {
		t.Errorf("a permission error of another file became %v", err)
	}
	if err := describeAccess(data, os.ErrClosed); err != os.ErrClosed {
		t.Errorf("another error became %v", err)
	}
	rofs := &fs.PathError{Op: "open", Path: data, Err: syscall.EROFS}
	if err := describeAccess(data, rofs); !errors.As(err, &e) || !e.readOnlyFS || !strings.Contains(err.Error(), "mounted read-only") {
		t.Errorf("a read-only file system: %v", err)
	}
}
