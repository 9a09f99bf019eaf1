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
// reason the envelope gives for a chunk's view still holds. Measured
// (BENCHMARKS.md, "h25alloc (2026-11-30"): the greedy order's total was
// within about 1% of the table's (httpx, 40 commits: +0.9% at 8k, +0.03%
// at 32k), and the table showed every changed line of a few more
// commits at 8k (mean all-lines 56.4 -> 57.0) with flips both ways: the
// objective is nearly flat between allocations that show different
// answer lines, so its terms, not this search, decide most of them.
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
			if mayPutBack(c, cur) {
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
	kept := items[:0]
	for _, it := range items {
		wt, base := f.weight(&cs[it.i], it.i), 0
		if o := opts[it.start]; o != nil {
			base = o.Tokens
		}
		// The options that fit in the table, the floor first.
		end := it.start + 1
		for k := it.start; k < it.end; k++ {
			o := opts[k]
			if o != nil {
				w[k] = (o.Tokens - base + g - 1) / g
				v[k] = wt * f.quality(o)
			}
			if k > it.start && w[k] <= nb && end-it.start < math.MaxUint8 {
				opts[end], w[end], v[end] = o, w[k], v[k]
				end++
			}
		}
		if end == it.start+1 && opts[it.start] == placed[it.i] {
			// Nothing but its placement fits: it adds the same to
			// every total.
			continue
		}
		it.end = end
		kept = append(kept, it)
	}
	items = kept
	// best[b] is the most value the items so far add over their floors
	// in b buckets (offset is the floors' value); a chunk with one option
	// over its floor records its choice in a bit per bucket, one with
	// more in a byte.
	best := make([]float64, nb+1)
	offset := 0.0
	words := (nb + 64) / 64
	rows := make([]int, len(items)) // each item's row in bits or bytes
	nbits, nbytes := 0, 0
	for n, it := range items {
		if it.end-it.start == 2 && w[it.start+1] > 0 {
			rows[n], nbits = nbits, nbits+words
		} else {
			rows[n], nbytes = nbytes, nbytes+nb+1
		}
	}
	bits := make([]uint64, nbits)
	bytes := make([]uint8, nbytes)
	for n, it := range items {
		if ctx.Err() != nil {
			return used
		}
		v0 := v[it.start]
		offset += v0
		if it.end-it.start == 2 && w[it.start+1] > 0 {
			w1, d := w[it.start+1], v[it.start+1]-v0
			row := bits[rows[n] : rows[n]+words]
			for b := nb; b >= w1; b-- {
				if x := best[b-w1] + d; x > best[b] {
					best[b] = x
					row[b>>6] |= 1 << (b & 63)
				}
			}
			continue
		}
		row := bytes[rows[n] : rows[n]+nb+1]
		ws, vs := w[it.start+1:it.end], v[it.start+1:it.end]
		for b := nb; b >= 0; b-- {
			bv, bj := best[b], 0
			for j, wj := range ws {
				if wj <= b {
					if x := best[b-wj] + (vs[j] - v0); x > bv {
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
	if best[nb]+offset <= now+1e-12 {
		return used
	}
	b := nb
	for n := len(items) - 1; n >= 0; n-- {
		it := items[n]
		k := it.start
		if it.end-it.start == 2 && w[it.start+1] > 0 {
			if bits[rows[n]+b>>6]&(1<<(b&63)) != 0 {
				k++
			}
		} else {
			k += int(bytes[rows[n]+b])
		}
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
