//go:build !unix

package procstat

import "time"

// CPU is not measured outside unix: it is always 0.
func CPU() time.Duration { return 0 }
