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

// Timer records the wall and CPU time of each timed run of a benchmark
// loop: Start before the run, Stop after it, Report after the loop.
type Timer struct {
	wall, cpu []time.Duration
	start     time.Time
	c0        time.Duration
}

// Start starts timing one run.
func (tm *Timer) Start() { tm.start, tm.c0 = time.Now(), CPUTime() }

// Stop ends the run Start began.
func (tm *Timer) Stop() {
	tm.wall = append(tm.wall, time.Since(tm.start))
	tm.cpu = append(tm.cpu, CPUTime()-tm.c0)
}

// Report reports the runs' wall and CPU p50 and p95 ([ReportPercentiles]:
// "p50-µs", "cpu-p50-µs", ...).
func (tm *Timer) Report(b *testing.B) {
	ReportPercentiles(b, tm.wall, "")
	ReportPercentiles(b, tm.cpu, "cpu-")
}
