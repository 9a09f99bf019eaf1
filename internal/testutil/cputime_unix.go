//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// CPUTime is the user+system CPU time of this process so far, so that
// benchmarks on a shared machine can report CPU next to wall time.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
