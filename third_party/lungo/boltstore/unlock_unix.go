//go:build unix

package boltstore

import (
	"os"
	"syscall"
)

// release drops bbolt's lock on a file it opened and closes it. Closing alone
// does not release the lock while the file is still mapped (a panic in
// bbolt.Open leaves its mapping behind).
func release(f *os.File) {
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	_ = f.Close()
}
