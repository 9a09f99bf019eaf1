//go:build unix

package query_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used (user and system):
// a benchmark's cost on a loaded machine, where wall time is mostly the
// other processes'.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
