package cmem

import (
	"context"
	"runtime/metrics"
	"time"
)

// TrimWhileBusy calls Trim every interval in which the Go collector ran
// (a sign the process did work: parses free their trees then) until ctx
// ends; an idle process only reads a counter. glibc keeps the pages of
// freed chunks unless they sit at the top of a heap past a threshold
// that grows with the largest chunk freed, so without it the C heap
// holds what the largest parses ever needed (stdlib-100k from scratch:
// 72 MB held, 2 MB in use).
func TrimWhileBusy(ctx context.Context, interval time.Duration) {
	if !trims {
		return
	}
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	var last uint64
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		metrics.Read(s)
		if n := s[0].Value.Uint64(); n != last {
			last = n
			Trim()
		}
	}
}
