//go:build unix

package sessions

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// lockExclusive reports that lockFile excludes other processes, so a
// lock holder may treat temporary files as orphans.
const lockExclusive = true

// errSyncUnsupported is what fsync of a directory returns on filesystems
// that do not support it; the store goes on without it there.
var errSyncUnsupported error = syscall.EINVAL

// lockFile takes an exclusive flock on f, polling so that ctx can cancel
// the wait (a blocking flock cannot be interrupted). The kernel releases
// the lock when its holder dies, SIGKILL included.
func lockFile(ctx context.Context, f *os.File) error {
	wait := 100 * time.Microsecond
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, 5*time.Millisecond)
	}
}

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// linkUnsupported reports a filesystem without hard links.
func linkUnsupported(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS)
}
