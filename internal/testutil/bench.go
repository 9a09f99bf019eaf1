package testutil

import (
	"slices"
	"testing"
	"time"
)

// ReportPercentiles reports p50 and p95 of a benchmark's per-run
// durations (sorted in place) in microseconds, the unit prefixed (wall
// time: "p50-µs"; CPU time, prefix "cpu-": "cpu-p50-µs").
func ReportPercentiles(b *testing.B, ds []time.Duration, prefix string) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	p := func(q float64) float64 { return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))].Microseconds()) }
	b.ReportMetric(p(0.50), prefix+"p50-µs")
	b.ReportMetric(p(0.95), prefix+"p95-µs")
}
