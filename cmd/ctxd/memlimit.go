package main

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// ctxd's heap is mostly the index (live) plus the garbage of reading and
// tokenizing files; with the default GC pacing (GOGC=100) the heap may
// grow to twice the live size before a collection, which on a 100k-file
// tree put the peak RSS over 500 MB. A soft memory limit collects sooner
// when the heap nears it. When the live heap itself grows past most of the
// limit (a larger tree), the limit moves up to twice the live heap, so the
// collector never runs back to back; GOMEMLIMIT, when set, wins.

const (
	defaultMemoryLimit = 320 << 20
	memoryCheckEvery   = 5 * time.Second
)

// limitMemory sets the soft memory limit and keeps it above the live heap
// until ctx ends.
func limitMemory(ctx context.Context) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := int64(defaultMemoryLimit)
	debug.SetMemoryLimit(limit)
	go func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(memoryCheckEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				return
			}
			if next := raisedLimit(limit, int64(sample[0].Value.Uint64())); next != limit {
				limit = next
				debug.SetMemoryLimit(limit)
			}
		}
	}()
}

// raisedLimit returns the limit for a live heap: unchanged while the live
// heap stays under three quarters of it, else twice the live heap.
func raisedLimit(limit, live int64) int64 {
	if live > limit/4*3 {
		return 2 * live
	}
	return limit
}
