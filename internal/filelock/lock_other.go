//go:build !unix

package filelock

import (
	"context"
	"os"
)

// Exclusive is false without flock: a lock excludes the holders in this
// process only. A file another process writes at the same time may hold
// a torn write, which its reader must detect.
const Exclusive = false

var procs procLocks

// Lock takes an exclusive lock on f among the holders in this process
// (any open of the same path), waiting as long as it takes.
func Lock(f *os.File) error { return procs.lock(context.Background(), f.Name()) }

// Unlock releases [Lock]'s lock on f. Closing f does not.
func Unlock(f *os.File) error { procs.unlock(f.Name()); return nil }

// PathLock is a lock file held by [LockPath].
type PathLock struct{ path string }

// LockPath opens (creating) the lock file at path and takes an exclusive
// lock on it among the holders in this process, waiting until ctx ends.
// The file is not kept open (an open file could not be removed here).
func LockPath(ctx context.Context, path string) (*PathLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	f.Close()
	if err := procs.lock(ctx, path); err != nil {
		return nil, err
	}
	return &PathLock{path}, nil
}

// Current reports whether the lock file is still there.
func (l *PathLock) Current() bool {
	_, err := os.Stat(l.path)
	return err == nil
}

// Unlock releases the lock.
func (l *PathLock) Unlock() { procs.unlock(l.path) }
