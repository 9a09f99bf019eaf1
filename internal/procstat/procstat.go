// Package procstat reads a process's memory figures from Linux's
// /proc/PID/status, for ctxd's own measurements (the memory profile's
// stats line, benchscale's peak RSS).
package procstat

import (
	"os"
	"strconv"
	"strings"
)

// KiB returns the field (VmRSS, VmHWM, ...) of /proc/<pid>/status in KiB;
// pid "self" is this process. It is 0 when the file or the field cannot
// be read (not Linux, the process ended).
func KiB(pid, field string) int {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			k, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return k
		}
	}
	return 0
}
