package compress

import (
	"context"
	"math"

	"github.com/ctxd/ctxd"
)

// allocBuckets is the number of token buckets allocate's table has: the
// budget left above every chunk's least view is cut into at most this
// many, each view's added cost rounded up to whole buckets, so what the
// table chooses always fits; upgrade spends what the rounding leaves.
const allocBuckets = 1024

// allocExact switches allocate on (tests compare it with the greedy
// order alone).
var allocExact = true

// allocate chooses every chunk's view at once, by the fitter's own
// objective: the sum over chunks of weight × quality of the view placed,
// within the budget. It is a multiple-choice knapsack solved by dynamic
// programming over token buckets: each chunk picks one view of its menu,
// which is
//
//   - for an absent chunk: none, or any of its options (whole or a view);
//   - for a placed one: its placement, or any larger option that hides no
//     focus function the placement shows (dropsFocus, as upgrade);
//     and, for a chunk the lookahead may put back (not critical, not a
//     file the request names, larger than a presence line), its presence
//     line or any option between that and its placement (as swap).
//
// The greedy order (upgrade, then swap) takes the step with the most
// value per token that fits, so a large step of a file ranked above can
// take the tokens of a small answer file whole and more budget can show
// less (BENCHMARKS.md, "Lead (2026-11-29 21:24": cli b5d4a04 lost
// funcs.go whole at 8k when app.go's signatures step fit first). The
// table compares totals instead: a step is bought when no other use of
// its tokens is worth more. The presence pass's placements stay the
// floor (a chunk is never put below its presence line), so every
// reason the envelope gives for a chunk's view still holds.
//
// It returns the tokens used, never over budget.
func (f *fitter) allocate(ctx context.Context, cs []ctxd.Chunk, placed []*ctxd.Chunk, used, budget int) int {
	// Each chunk's menu, its floor first (nil: an absent chunk's none),
	// as pointers into the fitter's memo (options, presence lines) and
	// the placements: nothing is copied.
	type item struct {
		i          int
		start, end int // its menu in opts, w, v
	}
	var (
		items []item
		opts  []*ctxd.Chunk
		floor int
	)
	for i := range cs {
		if ctx.Err() != nil {
			return used
		}
		cur, c := placed[i], &cs[i]
		start := len(opts)
		switch {
		case cur == nil:
			opts = append(opts, nil)
			for k := range f.options(ctx, i, c) {
				if o := &f.memo[i].choices[k]; o.Tokens > 0 && o.Tokens <= budget {
					opts = append(opts, o)
				}
			}
		default:
			low := cur
			if cur.Tokens > presenceLine && c.Priority < ctxd.PriorityCritical && !c.Facts.Mentioned {
				if _, ok := f.presenceLine(ctx, i, *c); ok && f.memo[i].line.Tokens < cur.Tokens {
					low = &f.memo[i].line
				}
			}
			opts = append(opts, low)
			if low != cur {
				for k := range f.options(ctx, i, c) {
					if o := &f.memo[i].choices[k]; o.Tokens > low.Tokens && o.Tokens < cur.Tokens {
						opts = append(opts, o)
					}
				}
				opts = append(opts, cur)
			}
			if cur.Truncated {
				for k := range f.options(ctx, i, c) {
					if o := &f.memo[i].choices[k]; o.Tokens > cur.Tokens && !dropsFocus(cur, o) {
						opts = append(opts, o)
					}
				}
			}
			floor += low.Tokens
		}
		if len(opts)-start > 1 {
			items = append(items, item{i, start, len(opts)})
		} else {
			opts = opts[:start]
		}
	}
	left := budget - floor
	if left <= 0 || len(items) == 0 {
		return used
	}
	g := (left + allocBuckets - 1) / allocBuckets
	nb := left / g
	w := make([]int, len(opts))
	v := make([]float64, len(opts))
	for _, it := range items {
		wt, base := f.weight(&cs[it.i], it.i), 0
		if o := opts[it.start]; o != nil {
			base = o.Tokens
		}
		for k := it.start; k < it.end; k++ {
			if opts[k] == nil {
				continue
			}
			w[k] = (opts[k].Tokens - base + g - 1) / g
			v[k] = wt * f.quality(opts[k])
		}
	}
	best := make([]float64, nb+1)
	choice := make([]uint8, len(items)*(nb+1))
	for n, it := range items {
		if ctx.Err() != nil {
			return used
		}
		row := choice[n*(nb+1) : (n+1)*(nb+1)]
		v0 := v[it.start]
		ws, vs := w[it.start+1:it.end], v[it.start+1:it.end]
		if len(ws) >= math.MaxUint8 {
			ws, vs = ws[:math.MaxUint8-1], vs[:math.MaxUint8-1]
		}
		for b := nb; b >= 0; b-- {
			bv, bj := best[b]+v0, 0
			for j, wj := range ws {
				if wj <= b {
					if x := best[b-wj] + vs[j]; x > bv {
						bv, bj = x, j+1
					}
				}
			}
			best[b], row[b] = bv, uint8(bj)
		}
	}
	// The table's choice against the placements as they are: taken only
	// when worth more (equal totals keep what the passes before chose).
	now := 0.0
	for _, it := range items {
		now += f.weight(&cs[it.i], it.i) * f.quality(placed[it.i])
	}
	if best[nb] <= now+1e-12 {
		return used
	}
	b := nb
	for n := len(items) - 1; n >= 0; n-- {
		it := items[n]
		k := it.start + int(choice[n*(nb+1)+b])
		b -= w[k]
		i := it.i
		if placed[i] != nil {
			used -= placed[i].Tokens
		}
		if opts[k] == nil {
			placed[i] = nil
			continue
		}
		p := *opts[k]
		placed[i] = &p
		used += p.Tokens
	}
	return used
}
