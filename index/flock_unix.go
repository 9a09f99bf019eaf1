//go:build unix

package index

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f, which excludes other processes
// (a daemon and a CLI appending to the same record files); the kernel
// releases it when its holder dies.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

// unlockFile releases lockFile's lock.
func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// inodeOf is st's inode: a keys file replaced by another process's
// compaction has a new one.
func inodeOf(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Ino
	}
	return 0
}
