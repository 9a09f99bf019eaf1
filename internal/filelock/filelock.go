// Package filelock takes exclusive locks on the files that several
// processes share (a daemon and a CLI beside it append to the same
// stores). On unix a lock is a flock(2): it excludes other processes,
// and the kernel releases it when its holder dies, SIGKILL included.
// Elsewhere it excludes the holders in this process only ([Exclusive] is
// false); callers there verify what they read instead of trusting it.
//
// Two forms: [Lock] and [Unlock] lock a file the caller has open (an
// append to a shared file); [LockPath] opens a lock file and waits for it
// as long as a context allows. Both exclude each other on one file.
package filelock

import (
	"context"
	"path/filepath"
	"sync"
)

// procLocks are per-file locks within one process: the locks of systems
// without flock. The file is named by its absolute path. It builds on
// every system, so its tests run where flock does too.
type procLocks struct {
	// mu guards m.
	mu sync.Mutex
	m  map[string]*procLock
}

// procLock is one file's lock: a token in ch is the lock held; refs
// counts the holders and waiters, and the entry goes when none is left.
type procLock struct {
	ch   chan struct{}
	refs int
}

// lock waits until the lock of path is free, or ctx ends.
func (p *procLocks) lock(ctx context.Context, path string) error {
	k := lockKey(path)
	p.mu.Lock()
	if p.m == nil {
		p.m = map[string]*procLock{}
	}
	l := p.m[k]
	if l == nil {
		l = &procLock{ch: make(chan struct{}, 1)}
		p.m[k] = l
	}
	l.refs++
	p.mu.Unlock()
	if ctx.Err() == nil {
		select {
		case l.ch <- struct{}{}:
			return nil
		case <-ctx.Done():
		}
	}
	p.mu.Lock()
	p.drop(k, l)
	p.mu.Unlock()
	return ctx.Err()
}

// unlock releases the lock of path, which the caller holds.
func (p *procLocks) unlock(path string) {
	k := lockKey(path)
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.m[k]
	if l == nil {
		panic("filelock: unlock of " + k + ", not locked")
	}
	select {
	case <-l.ch:
	default:
		panic("filelock: unlock of " + k + ", not locked")
	}
	p.drop(k, l)
}

// drop forgets one holder or waiter of l. p.mu must be held.
func (p *procLocks) drop(k string, l *procLock) {
	if l.refs--; l.refs == 0 {
		delete(p.m, k)
	}
}

// lockKey names a file by its absolute path, so that two spellings of
// one path share a lock.
func lockKey(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return filepath.Clean(path)
}
