// Package heapgoal bounds the process's memory while request bodies are
// in flight: the collector runs when the heap has grown by a small
// percentage over what it found live, and the runtime's soft memory
// limit is what the process holds when idle plus a multiple of the bytes
// of the bodies in flight, or plus a fixed slack when that is more.
//
// With the collector's default (GOGC 100) the heap may grow to twice
// what was live after the last collection before the next one starts.
// After the first request a proxy holds its tokenizer tables (about
// 27 MB live), so a request that allocates less than that never meets a
// collection at all, and everything it allocates, garbage included, adds
// to the process's peak: 30,000 messages of 67 bytes cost 15x their
// body (BENCHMARKS.md, "h28model").
//
// The percentage makes the peak follow what is live: a request whose
// work holds L bytes per body byte at its peak peaks at about
// (idle + L x body) x (1 + percent/100), a line in the body's size whose
// slope is L plus a tenth of it (issue 28: the proxy's peak is at most
// 4x the body plus a constant; proxy.TestLivePeak bounds L). While the
// bodies in flight are under the slack, the percentage is raised for a
// small idle process so the collector has at least the slack to work in
// (a small request does not collect back to back). The memory limit is the backstop for a request whose live
// set would be more than its multiple of the body: there the collector
// works harder rather than the process growing. The slack is a floor,
// not an addition (4 MiB added to 4x was 6x a 2 MB body).
//
// The limit and the percentage are the runtime's: one [Goal] is meant per
// process, in a process where nothing else sets them (the proxy; `serve`
// sets a fixed limit). A limit already set lower (GOMEMLIMIT) and a
// percentage already lower (GOGC) are kept.
package heapgoal

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Goal sets the collector's percentage (GOGC) and the runtime's soft
// memory limit while bodies are in flight.
// It is safe for concurrent use; a nil *Goal does nothing.
type Goal struct {
	percent int   // the collector's percentage while bodies are in flight, at least
	perByte int64 // limit bytes per body byte in flight
	slack   int64 // the least bytes over the idle memory, for the collector to work in

	mu      sync.Mutex
	holds   int
	bytes   int64 // of the bodies in flight
	base    int64 // the idle memory when the first of them arrived
	prev    int64 // the limit before it
	prevPct int   // the collector's percentage before it

	idle       func() int64      // memory the runtime holds, less its garbage
	setLimit   func(int64) int64 // debug.SetMemoryLimit
	setPercent func(int) int     // debug.SetGCPercent
}

// New returns a goal that runs the collector when the heap has grown by
// percent (or by slack bytes over the idle process, when that is more)
// over what it found live, under a memory limit of perByte bytes per
// body byte in flight over the idle process, and at least slack bytes.
func New(percent int, perByte, slack int64) *Goal {
	return &Goal{percent: percent, perByte: perByte, slack: slack, idle: idleMemory, setLimit: debug.SetMemoryLimit, setPercent: debug.SetGCPercent}
}

// Hold counts n bytes of a body in flight until release is called. The
// first hold reads the process's idle memory and the limit in force; the
// last release restores that limit.
func (g *Goal) Hold(n int64) (release func()) {
	if g == nil {
		return func() {}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.holds == 0 {
		g.prev = g.setLimit(-1)
		g.prevPct = g.setPercent(g.percent) // apply sets the one for the bodies
		g.base = g.idle()
	}
	g.holds++
	g.bytes += n
	g.apply()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.holds--
			g.bytes -= n
			if g.holds == 0 {
				g.setLimit(g.prev)
				g.setPercent(g.prevPct)
				return
			}
			g.apply()
		})
	}
}

// apply sets the limit for the bodies in flight; g.mu is held.
func (g *Goal) apply() {
	g.setLimit(min(g.prev, Limit(g.base, g.slack, g.perByte, g.bytes)))
	pct := Percent(g.base, g.slack, g.percent, g.bytes)
	if g.prevPct < pct {
		pct = g.prevPct // GOGC lower already, or off
	}
	g.setPercent(pct)
}

// Limit is the memory limit for base bytes of idle memory and perByte
// bytes per body byte of inflight, or slack bytes when that is more,
// saturating rather than overflowing.
func Limit(base, slack, perByte, inflight int64) int64 {
	if slack > math.MaxInt64-base || inflight > 0 && perByte > (math.MaxInt64-base)/inflight {
		return math.MaxInt64
	}
	return base + max(slack, perByte*inflight)
}

// Percent is the collector's percentage for base bytes of idle memory
// and inflight bytes of bodies: percent; or, while the bodies are under
// slack bytes, what gives the collector slack bytes to work in over base
// when that is more (rounded up), never over 100 (the runtime's default).
// A body of slack bytes or more holds enough live for percent of it to be
// room enough.
func Percent(base, slack int64, percent int, inflight int64) int {
	if inflight >= slack {
		return percent
	}
	if base <= 0 || slack >= base {
		return 100
	}
	p := (slack*100 + base - 1) / base // slack < base: no overflow below 2^56
	return int(min(max(int64(percent), p), 100))
}

// The runtime/metrics samples idleMemory reads, in this order.
var samples = []string{
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/objects:bytes",
	"/gc/heap/live:bytes",
}

// idleMemory is what the runtime's memory limit counts (all its memory
// but the pages returned to the system), less the heap objects that the
// last collection did not find live: the process as the next collection
// would leave it, about.
func idleMemory() int64 {
	s := make([]metrics.Sample, len(samples))
	for i, name := range samples {
		s[i].Name = name
	}
	metrics.Read(s)
	var v [4]int64
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = int64(s[i].Value.Uint64())
		}
	}
	total, released, objects, live := v[0], v[1], v[2], v[3]
	return total - released - max(objects-live, 0)
}
