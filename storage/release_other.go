//go:build !linux

package storage

import bolt "go.etcd.io/bbolt"

// releasePages leaves the mapped pages to the system where the bank does
// not release them itself (release_linux.go).
func releasePages(*bolt.Tx) {}
