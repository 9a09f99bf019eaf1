// Package patience lifts the time limits that keep a request responsive
// on a slow or loaded machine, for a caller whose results must not depend
// on the machine's load: ctxd eval.
//
// A request bounds each tree-sitter parse (treesitter.DefaultTimeout, 2 s)
// and each git command (10 s; the line-history log 2 min). When a limit
// is hit the request goes on without what ran out (a parse that timed out
// falls back to a head-and-tail cut, a git read to no facts): on a quiet
// machine nothing is hit, under load (another run, a build beside) the
// same binary on the same input can show other views. Under a context of
// [Unbounded] those limits are [Long], and whatever runs out of it anyway
// is counted in the [Tally], so a measurement can say how many of its
// results are the load's.
//
// A deadline the caller sets on the context itself still applies: only
// the limits the code chooses for itself are lifted.
package patience

import (
	"context"
	"sync/atomic"
	"time"
)

// Long is the limit that replaces a lifted one: far more than any parse
// (of at most treesitter.MaxSize bytes) or git read takes, but not
// forever, so a wedged git still ends.
const Long = time.Hour

// Tally counts what timed out under an [Unbounded] context. Its methods
// may be called concurrently; a nil *Tally counts nothing.
type Tally struct {
	parses, git atomic.Int64
}

// ParseTimeouts returns how many tree-sitter parses timed out.
func (t *Tally) ParseTimeouts() int64 {
	if t == nil {
		return 0
	}
	return t.parses.Load()
}

// GitTimeouts returns how many git commands timed out.
func (t *Tally) GitTimeouts() int64 {
	if t == nil {
		return 0
	}
	return t.git.Load()
}

type key struct{}

// Unbounded returns a context under which [Limit] lifts the limits and
// the timeouts are counted in t (when not nil).
func Unbounded(ctx context.Context, t *Tally) context.Context {
	if t == nil {
		t = new(Tally)
	}
	return context.WithValue(ctx, key{}, t)
}

// tally returns ctx's Tally, or nil when ctx is not Unbounded.
func tally(ctx context.Context) *Tally {
	t, _ := ctx.Value(key{}).(*Tally)
	return t
}

// Limit returns d, the limit the code chose, or [Long] under an
// [Unbounded] context.
func Limit(ctx context.Context, d time.Duration) time.Duration {
	if tally(ctx) != nil {
		return max(d, Long)
	}
	return d
}

// ParseTimedOut counts a parse that ran out of its time under ctx.
func ParseTimedOut(ctx context.Context) {
	if t := tally(ctx); t != nil {
		t.parses.Add(1)
	}
}

// GitTimedOut counts a git command that ran out of its time under ctx.
func GitTimedOut(ctx context.Context) {
	if t := tally(ctx); t != nil {
		t.git.Add(1)
	}
}
