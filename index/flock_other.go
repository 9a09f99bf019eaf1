//go:build !unix

package index

import (
	"os"
	"sync"
)

// Without flock the record files serialize the writers of one process
// only: two processes appending at once may tear an entry, which its
// checksum then rejects (the record is computed again, never trusted).
var processLock sync.Mutex

func lockFile(*os.File) error { processLock.Lock(); return nil }

func unlockFile(*os.File) error { processLock.Unlock(); return nil }

// inodeOf is 0 here: another process's compaction is not noticed until
// this one reopens the files (its reads are still verified).
func inodeOf(os.FileInfo) uint64 { return 0 }
