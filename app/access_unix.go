//go:build unix

package app

import (
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// ownerName names the user who owns a file: the user name, else the uid.
func ownerName(info fs.FileInfo) string {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return userName(int(st.Uid))
}

// runnerName names the user this process runs as (its effective uid).
func runnerName() string { return userName(os.Geteuid()) }

// runsAsRoot reports whether this process runs as root, whom the mode
// of a file does not bind.
func runsAsRoot() bool { return os.Geteuid() == 0 }

// userName is the name of the user with uid, else "uid N".
func userName(uid int) string {
	id := strconv.Itoa(uid)
	if u, err := user.LookupId(id); err == nil && u.Username != "" {
		return u.Username
	}
	return "uid " + id
}
