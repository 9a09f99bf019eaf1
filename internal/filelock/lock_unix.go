//go:build unix

package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Exclusive reports whether a lock excludes other processes (flock), and
// not only the holders in this one: a holder may then treat what another
// writer left half done as an orphan.
const Exclusive = true

// Lock takes an exclusive lock on f, waiting as long as it takes. The
// lock belongs to f's open file: another open of the same file, in this
// process or another, waits for it. Closing f releases it.
func Lock(f *os.File) error { return flock(int(f.Fd()), syscall.LOCK_EX) }

// Unlock releases [Lock]'s lock on f.
func Unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// PathLock is a lock file held by [LockPath].
type PathLock struct {
	fd   int
	path string
}

// LockPath opens (creating) the lock file at path and takes an exclusive
// lock on it. The wait is a blocking flock, so waiters are served by the
// kernel rather than by polling (a poller can starve behind a writer that
// locks in a loop); it runs in a goroutine so that ctx can end the wait,
// after which the goroutine releases what it gets. A file that cannot be
// opened returns an [*os.PathError] (fs.ErrNotExist for a directory that
// went away).
func LockPath(ctx context.Context, path string) (*PathLock, error) {
	fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_CREAT|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		return &PathLock{fd, path}, nil
	}
	done := make(chan error, 1)
	go func() { done <- flock(fd, syscall.LOCK_EX) }()
	select {
	case err := <-done:
		if err != nil {
			syscall.Close(fd)
			return nil, fmt.Errorf("flock %s: %w", path, err)
		}
		return &PathLock{fd, path}, nil
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

// Current reports whether the locked file is still the one at its path:
// a lock file removed (or replaced) meanwhile locks nothing a newcomer
// would wait for.
func (l *PathLock) Current() bool {
	var held, cur syscall.Stat_t
	if syscall.Fstat(l.fd, &held) != nil || syscall.Stat(l.path, &cur) != nil {
		return false
	}
	return held.Dev == cur.Dev && held.Ino == cur.Ino
}

// Unlock releases the lock and closes the lock file.
func (l *PathLock) Unlock() {
	_ = syscall.Flock(l.fd, syscall.LOCK_UN)
	_ = syscall.Close(l.fd)
}

// flock is flock(2), again when a signal interrupts the wait.
func flock(fd, how int) error {
	for {
		err := syscall.Flock(fd, how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
