//go:build unix

package sessions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockExclusive reports that lockPath excludes other processes, so a
// lock holder may treat temporary files as orphans.
const lockExclusive = true

// errSyncUnsupported is what fsync of a directory returns on filesystems
// that do not support it; the store goes on without it there.
var errSyncUnsupported error = syscall.EINVAL

// fileLock is an exclusive flock held on a lock file. The kernel releases
// it when its holder dies, SIGKILL included.
type fileLock struct{ fd int }

// lockPath opens (creating) the lock file at path and takes an exclusive
// flock on it. The wait is a blocking flock, so waiters are served by the
// kernel rather than by polling (a poller can starve behind a writer that
// saves in a loop); it runs in a goroutine so that ctx can end the wait,
// after which the goroutine releases what it gets.
func lockPath(ctx context.Context, path string) (*fileLock, error) {
	fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_CREAT|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		return &fileLock{fd}, nil
	}
	done := make(chan error, 1)
	go func() {
		for {
			err := syscall.Flock(fd, syscall.LOCK_EX)
			if !errors.Is(err, syscall.EINTR) {
				done <- err
				return
			}
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			syscall.Close(fd)
			return nil, fmt.Errorf("flock %s: %w", path, err)
		}
		return &fileLock{fd}, nil
	case <-ctx.Done():
		go func() {
			if <-done == nil {
				_ = syscall.Flock(fd, syscall.LOCK_UN)
			}
			syscall.Close(fd)
		}()
		return nil, ctx.Err()
	}
}

// current reports whether the locked file is still the one at path (a
// session deleted meanwhile has a new lock file, or none).
func (l *fileLock) current(path string) bool {
	var held, cur syscall.Stat_t
	if syscall.Fstat(l.fd, &held) != nil || syscall.Stat(path, &cur) != nil {
		return false
	}
	return held.Dev == cur.Dev && held.Ino == cur.Ino
}

func (l *fileLock) unlock() {
	_ = syscall.Flock(l.fd, syscall.LOCK_UN)
	_ = syscall.Close(l.fd)
}

// linkUnsupported reports a filesystem without hard links.
func linkUnsupported(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS)
}
