//go:build !unix

package query_test

import "time"

// cpuTime is not known here: BenchmarkParse reports wall time alone.
func cpuTime() time.Duration { return 0 }
