// Package par runs independent pieces of work on all cores.
package par

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls fn(i) for every i in [0, n) on GOMAXPROCS workers, each i
// once, and returns when all calls have returned. Once ctx ends no new
// call starts; Each then returns ctx's error. fn must only write what is
// its own (slot i of a slice, say).
func Each(ctx context.Context, n int, fn func(i int)) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}
