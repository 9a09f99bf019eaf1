//go:build !unix

package testutil

import "time"

// CPUTime is not measured on this platform.
func CPUTime() time.Duration { return 0 }
