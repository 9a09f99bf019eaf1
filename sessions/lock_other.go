//go:build !unix

package sessions

import (
	"context"
	"errors"
	"os"
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

func lockFile(ctx context.Context, _ *os.File) error {
	processLock.Lock()
	if err := ctx.Err(); err != nil {
		processLock.Unlock()
		return err
	}
	return nil
}

func unlockFile(*os.File) { processLock.Unlock() }

func linkUnsupported(error) bool { return false }
