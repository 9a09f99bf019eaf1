//go:build unix

package artifacts

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f: the writers of a pack, in this
// process or another (the CLI beside the daemon), append one at a time.
// The kernel releases it when the holder dies.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
