package storage

import (
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// releasePages drops the pages of the data file that tx's reads mapped
// into this process from its resident memory (madvise MADV_DONTNEED):
// bbolt maps the file read-only and shared, so the pages stay in the
// system's page cache and a later read maps them again, unchanged. A long
// read (a scenario export of a million transactions, the structure check
// at open) would otherwise leave the whole file counted in the process's
// resident memory. The mapping cannot move while tx is open (bbolt
// remaps only when no read transaction is), so the range is tx's own.
func releasePages(tx *bolt.Tx) {
	info := tx.DB().Info()
	if info == nil || info.Data == 0 || tx.Size() <= 0 {
		return
	}
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, info.Data, uintptr(tx.Size()), syscall.MADV_DONTNEED)
}
