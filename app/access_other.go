//go:build !unix

package app

import "io/fs"

// ownerName is empty where files have no owner's uid (Windows: an ACL
// says who may do what).
func ownerName(fs.FileInfo) string { return "" }

// runnerName is empty where processes have no uid.
func runnerName() string { return "" }

// runsAsRoot is false where there is no root.
func runsAsRoot() bool { return false }
