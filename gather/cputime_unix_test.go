//go:build unix

package gather

import (
	"syscall"
	"time"
)

// cpuTime is the user+system CPU time of this process so far, so that
// benchmarks on a shared machine can report CPU next to wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
