//go:build !unix

package smart

import "time"

// cpuTime is not measured on this platform.
func cpuTime() time.Duration { return 0 }
