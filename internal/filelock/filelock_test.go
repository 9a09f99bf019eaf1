package filelock

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// holdFor bounds how long a test waits for a lock it must not get: the
// wait ends with context.DeadlineExceeded, never with the lock.
const holdFor = 100 * time.Millisecond

// TestLockPathWaits: a second LockPath waits while the first holds the
// lock, gives up when its context is cancelled or times out (keeping
// nothing), and gets the lock once it is released.
func TestLockPathWaits(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	a, err := LockPath(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Current() {
		t.Fatal("a new lock is not current")
	}
	ctx, cancel := context.WithTimeout(t.Context(), holdFor)
	defer cancel()
	if b, err := LockPath(ctx, p); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lock while held: %v, %v; want DeadlineExceeded", b, err)
	}
	ctx, cancel = context.WithCancel(t.Context())
	got := make(chan error, 1)
	go func() {
		_, err := LockPath(ctx, p)
		got <- err
	}()
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v, want Canceled", err)
	}
	a.Unlock()
	// The abandoned waiters released what they got: this one gets it.
	c, err := LockPath(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	c.Unlock()
}

// TestLockExcludes: holders on separate descriptors of one file, through
// both forms, are never inside at once; locks of other files do not wait
// for them.
func TestLockExcludes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "shared")
	var inside, shared atomic.Int32
	enter := func() {
		if inside.Add(1) != 1 {
			shared.Add(1)
		}
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			for i := range 200 {
				if (w+i)%2 == 0 {
					if err := Lock(f); err != nil {
						t.Error(err)
						return
					}
					enter()
					inside.Add(-1)
					if err := Unlock(f); err != nil {
						t.Error(err)
						return
					}
					continue
				}
				l, err := LockPath(t.Context(), p)
				if err != nil {
					t.Error(err)
					return
				}
				enter()
				inside.Add(-1)
				l.Unlock()
			}
		})
	}
	wg.Wait()
	if n := shared.Load(); n != 0 {
		t.Errorf("%d times two holders were inside at once", n)
	}

	// An open file locked with Lock makes LockPath wait; another file's
	// lock is free meanwhile.
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Lock(f); err != nil {
		t.Fatal(err)
	}
	defer Unlock(f)
	ctx, cancel := context.WithTimeout(t.Context(), holdFor)
	defer cancel()
	if l, err := LockPath(ctx, p); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("LockPath while Lock holds: %v, %v; want DeadlineExceeded", l, err)
	}
	ctx, cancel = context.WithTimeout(t.Context(), holdFor)
	defer cancel()
	b, err := LockPath(ctx, filepath.Join(dir, "other"))
	if err != nil {
		t.Fatalf("another file's lock: %v", err)
	}
	b.Unlock()
}

// TestCurrent: a lock whose file was removed or replaced is not current.
func TestCurrent(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	l, err := LockPath(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if l.Current() {
		t.Error("removed lock file is current")
	}
	if !Exclusive {
		return // the lock does not hold the file: a new one counts
	}
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if l.Current() {
		t.Error("replaced lock file is current")
	}
}

// TestProcLocks runs the locks of systems without flock here too: a
// waiter gives up with its context, and an unlocked path's entry goes.
func TestProcLocks(t *testing.T) {
	var p procLocks
	path := filepath.Join(t.TempDir(), "x")
	if err := p.lock(t.Context(), path); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	got := make(chan error, 1)
	go func() { got <- p.lock(ctx, path) }()
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v, want Canceled", err)
	}
	if err := p.lock(t.Context(), path+"2"); err != nil {
		t.Fatalf("another path waited: %v", err)
	}
	p.unlock(path + "2")
	done := make(chan error, 1)
	go func() { done <- p.lock(t.Context(), path) }()
	p.unlock(path)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	p.unlock(path)
	if len(p.m) != 0 {
		t.Errorf("%d entries left after every unlock", len(p.m))
	}
}

// helperEnv names the lock file a helper process (this test binary run
// as TestHelperProcess) locks.
const helperEnv = "FILELOCK_HELPER_PATH"

// TestHelperProcess is the other process of TestLockProcesses: it locks
// the file with Lock, says so on stdout, and holds the lock until it is
// killed (its stdin stays open until then).
func TestHelperProcess(t *testing.T) {
	p := os.Getenv(helperEnv)
	if p == "" {
		t.Skip("a helper process only")
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := Lock(f); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked\n")
	io.Copy(io.Discard, os.Stdin)
}

// TestLockProcesses: a lock held by another process excludes this one,
// and the kernel releases it when that process dies (SIGKILL).
func TestLockProcesses(t *testing.T) {
	if !Exclusive {
		t.Skip("locks exclude this process's holders only")
	}
	p := filepath.Join(t.TempDir(), "lock")
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+p)
	in, out := testutil.StartPiped(t, cmd)
	defer in.Close()
	defer cmd.Wait()
	defer cmd.Process.Kill()
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "locked\n" {
		t.Fatalf("helper said %q, %v", line, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), holdFor)
	defer cancel()
	if l, err := LockPath(ctx, p); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("lock held by another process: %v, %v; want DeadlineExceeded", l, err)
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := make(chan error, 1)
	go func() { got <- Lock(f) }()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("lock after the holder died: %v", err)
	}
	Unlock(f)
}
