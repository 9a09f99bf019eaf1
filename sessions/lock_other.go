//go:build !unix

package sessions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
)

// lockExclusive is false without flock: the lock below serializes the
// writers of one process only. Checkpoints are still never overwritten
// (publication by hard link fails on an existing name and the writer
// takes the next number), but a temporary file may belong to a writer in
// another process, so none is removed as an orphan.
const lockExclusive = false

var errSyncUnsupported = errors.New("sync unsupported")

// processLock serializes the writers of this process.
var processLock sync.Mutex

type fileLock struct{ path string }

func lockPath(ctx context.Context, path string) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	f.Close()
	processLock.Lock()
	if err := ctx.Err(); err != nil {
		processLock.Unlock()
		return nil, err
	}
	return &fileLock{filepath.Clean(path)}, nil
}

func (l *fileLock) current(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func (l *fileLock) unlock() { processLock.Unlock() }

func linkUnsupported(error) bool { return false }
