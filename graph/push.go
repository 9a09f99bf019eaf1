package graph

import (
	"math"
	"slices"
	"sync"
)

// WalkOptions tune [Graph.TopPersonalized].
type WalkOptions struct {
	// Restart is the walk's restart probability (DefaultRestart when
	// outside (0, 1)).
	Restart float64
	// Epsilon is the local pushes' threshold per out-edge
	// (DefaultEpsilon when ≤ 0).
	Epsilon float64
	// Tolerance is the residual mass the walk may leave unpushed
	// (DefaultTolerance when ≤ 0).
	Tolerance float64
}

// DefaultTolerance is the residual mass a walk leaves unpushed: less than
// PageRank's DefaultIters power iterations leave (0.7^20 ≈ 8e-4), so the
// best 200 agree with [Graph.PageRank]'s as closely as PageRank's own
// at 20 and at 200 iterations agree (gather's TestLinkWalkAgreesOnTrees;
// BENCHMARKS.md, "h14ppr").
const DefaultTolerance = 3e-4

// DefaultEpsilon is the local pushes' threshold: a node pushes while it
// holds at least DefaultEpsilon per out-edge.
const DefaultEpsilon = 1e-5

// TopPersonalized returns the best limit nodes (all reached when
// limit ≤ 0) of the personalized PageRank from seeds, best first (ties by
// node), with the scores [Graph.PageRank] converges to: the mass each
// node receives over edges, the seeds' restart mass (jumps and dead ends)
// taken out. Seeds with weight ≤ 0 or out of range are ignored.
//
// Each node keeps a residual, the mass that has reached it and not moved
// on; pushing a node keeps the restart share of its residual and passes
// the rest over its edges (a dead end returns it to the seeds, as
// PageRank does). A node's score is restart times all it received, less
// its share as a seed. The walk first pushes locally from the seeds
// (forward push: Andersen, Chung and Lang, "Local graph partitioning
// using PageRank vectors", 2006), first in first out, while a node holds
// at least Epsilon per out-edge; then it sweeps in node order, pushing in
// place, until the residual left is below Tolerance. Sweeps visit the
// nodes reached while they are at most 1/sparseShare of the graph, and
// every node after, so a walk that stays local costs what it reaches
// (its memory is pooled and cleared where it was touched), and one that
// spreads costs fewer passes than PageRank's iterations. The sweeps over
// every node are over-relaxed (a node passes on overRelax times its
// residual, which may then turn negative; the residual left is the sum
// of their absolute values): about 7 of them against 20 iterations on
// the link graph of the Go tree.
//
// The order of the pushes is fixed by the seeds' node order, so equal
// seeds give equal results, bit for bit.
func (g *Graph) TopPersonalized(seeds map[int32]float64, opts WalkOptions, limit int) []Ranked {
	restart, eps, tol := opts.Restart, opts.Epsilon, opts.Tolerance
	n := g.Len()
	if n <= 0 {
		return nil
	}
	restart, _ = walkDefaults(restart, 0)
	if !(eps > 0) {
		eps = DefaultEpsilon
	}
	if !(tol > 0) {
		tol = DefaultTolerance
	}
	seedIDs, p := restartDistribution(seeds, n) // p by seedIDs
	if len(seedIDs) == 0 {
		return nil
	}

	s := scratch(n)
	defer release(s)
	resid, out := s.resid, s.out
	for k, i := range seedIDs {
		s.touched = append(s.touched, i)
		resid[i] = p[k]
	}
	for _, i := range seedIDs {
		s.enqueue(g, i, eps)
	}
	// A graph read from disk may have rows that do not sum to 1, where
	// the mass need not shrink; budget caps the work at what PageRank's
	// iterations would do ten times.
	budget := 10 * DefaultIters * (len(g.dst) + n)
	rsum := 1.0      // the residual mass, less by each push's restart share
	var dead float64 // the mass dead ends returned to the seeds
	// take moves node u's residual m out (its restart share stays) and
	// returns what goes on over its edges, or false for a dead end, whose
	// mass goes back to the seeds.
	take := func(u int32, m float64) (float64, bool) {
		resid[u] = 0
		out[u] += m
		rsum -= restart * m
		m *= 1 - restart
		if g.off[u] == g.off[u+1] {
			budget -= len(seedIDs)
			dead += m
			for k, i := range seedIDs {
				resid[i] += m * p[k]
			}
			return 0, false
		}
		budget -= int(g.off[u+1] - g.off[u])
		return m, true
	}
	// push takes node u's residual (take) and passes it on over u's
	// edges; with queue, it queues each node that then holds at least eps
	// per out-edge. It reports false for a dead end.
	push := func(u int32, queue bool) bool {
		m, ok := take(u, resid[u])
		if !ok {
			return false
		}
		lo, hi := g.off[u], g.off[u+1]
		ws := g.w[lo:hi]
		for k, d := range g.dst[lo:hi] {
			a := m * float64(ws[k])
			if resid[d] == 0 && out[d] == 0 && a > 0 {
				s.touched = append(s.touched, d)
			}
			resid[d] += a
			if queue {
				s.enqueue(g, d, eps)
			}
		}
		return true
	}
	// Local pushes, first in first out, while a node holds at least eps
	// per out-edge. A node is in touched from the first mass it receives
	// (when its residual and out are still 0).
	for head := 0; head < len(s.queue) && budget > 0; head++ {
		u := s.queue[head]
		s.queued[u] = false
		if !push(u, true) {
			for _, i := range seedIDs {
				s.enqueue(g, i, eps)
			}
			continue
		}
		// Compact the queue now and then so it holds only what is pending.
		if head >= 4096 && head*2 >= len(s.queue) {
			s.queue = s.queue[:copy(s.queue, s.queue[head+1:])]
			head = -1
		}
	}
	for _, i := range s.queue {
		s.queued[i] = false
	}
	s.queue = s.queue[:0]
	// Then sweeps in node order, each pushing in place (a node later in
	// the order passes on in the same sweep what an earlier one gave it),
	// until the residual is below tol: over the nodes reached while they
	// are few, over all once they are not (as PageRank's iterations). A
	// node holding no more than skip waits: all of them together hold
	// less than tol/4, and what they would pass on scores less than
	// PageRank's least (1e-12), so the walk reaches the nodes PageRank
	// ranks, however little they get.
	skip := min(tol/float64(4*n), 1e-13)
	sorted := 0
	var signed float64 // the residuals' sum, in dense sweeps
	denseSweeps := 0
	for rsum > tol && budget > 0 {
		pushed := false
		if !s.dense && len(s.touched) > n/sparseShare {
			s.dense = true
			signed = rsum // no residual is negative before
		}
		if s.dense {
			// Over-relaxed: a node passes on overRelax times what it
			// holds, so residuals may turn negative and the residual
			// left is their absolute sum.
			for u := range int32(n) {
				r := resid[u]
				if r <= skip && r >= -skip {
					continue
				}
				pushed = true
				m := overRelax * r
				resid[u] = r - m
				out[u] += m
				signed -= restart * m
				m *= 1 - restart
				lo, hi := g.off[u], g.off[u+1]
				if lo == hi {
					budget -= len(seedIDs)
					dead += m
					for k, i := range seedIDs {
						resid[i] += m * p[k]
					}
					continue
				}
				budget -= int(hi - lo)
				ws := g.w[lo:hi]
				for k, d := range g.dst[lo:hi] {
					resid[d] += m * float64(ws[k])
				}
			}
			// The residuals' plain sum falls by the restart share of
			// each push (rows sum to 1); while it is well above tol, so
			// is the sum of their absolute values, which is then not
			// summed (but every 4th sweep, for rows read from disk).
			denseSweeps++
			if signed > 2*tol && denseSweeps%4 != 0 {
				rsum = signed
			} else {
				rsum = absSum(resid)
			}
		} else {
			if len(s.touched) != sorted {
				slices.Sort(s.touched)
				sorted = len(s.touched)
			}
			for k := 0; k < len(s.touched); k++ {
				u := s.touched[k]
				if resid[u] <= skip {
					continue
				}
				pushed = true
				push(u, false)
			}
		}
		if !pushed {
			break
		}
	}
	// What a node received over edges is all it received (what it
	// passed on and its residual) less its restart and dead-end share.
	score := func(i int32) float64 {
		e := out[i] + resid[i]
		if k, ok := slices.BinarySearch(seedIDs, i); ok {
			e -= p[k] * (1 + dead)
		}
		return restart * e
	}
	// The candidates in the scratch's buffer (appended from empty, they
	// were doubled again and again on a dense walk), the result a copy.
	top := s.top[:0]
	if s.dense {
		for i := range int32(n) {
			if out[i] != 0 || resid[i] != 0 {
				if v := score(i); v > 1e-12 {
					top = append(top, Ranked{i, v})
				}
			}
		}
	} else {
		top = slices.Grow(top, len(s.touched))
		for _, i := range s.touched {
			if v := score(i); v > 1e-12 {
				top = append(top, Ranked{i, v})
			}
		}
	}
	s.top = top
	if len(top) == 0 {
		return nil
	}
	return slices.Clone(topOf(top, limit))
}

// topOf sorts rs best first and keeps at most limit (all when limit ≤ 0),
// through a heap when limit is short of len(rs).
func topOf(rs []Ranked, limit int) []Ranked {
	if limit <= 0 || limit >= len(rs) {
		slices.SortFunc(rs, byRank)
		return rs
	}
	h := rs[:0:limit]
	for _, r := range rs {
		h = keepBest(h, r, limit)
	}
	slices.SortFunc(h, byRank)
	return slices.Clip(h)
}

// pushScratch is one walk's working memory over a graph's nodes. While
// a walk reaches few nodes, only the entries of touched are ever nonzero
// and release clears just those, so a walk costs what it reaches, not
// the graph's size; once it has reached many (dense), release clears all.
type pushScratch struct {
	resid   []float64 // the mass that reached a node and has not moved on
	out     []float64 // the mass that has moved on from a node
	queued  []bool
	touched []int32 // the nodes reached, while not dense
	queue   []int32 // the local pushes pending
	top     []Ranked
	dense   bool
}

// enqueue queues i for a local push when it holds at least eps per
// out-edge.
func (s *pushScratch) enqueue(g *Graph, i int32, eps float64) {
	if s.queued[i] {
		return
	}
	if d := g.off[i+1] - g.off[i]; s.resid[i] >= eps*float64(max(d, 1)) {
		s.queued[i] = true
		s.queue = append(s.queue, i)
	}
}

// scratches holds walks' working memory between walks, for graphs of any
// size (a graph is immutable and shared, so its walks run concurrently).
var scratches sync.Pool

// scratch returns working memory for a walk over n nodes, all zero.
func scratch(n int) *pushScratch {
	if s, ok := scratches.Get().(*pushScratch); ok && cap(s.resid) >= n {
		s.resid, s.out, s.queued = s.resid[:n], s.out[:n], s.queued[:n]
		return s
	}
	return &pushScratch{resid: make([]float64, n), out: make([]float64, n), queued: make([]bool, n)}
}

// release zeroes s and keeps it for another walk.
func release(s *pushScratch) {
	if s.dense {
		clear(s.resid)
		clear(s.out)
		clear(s.queued)
	} else {
		for _, i := range s.touched {
			s.resid[i], s.out[i] = 0, 0
			s.queued[i] = false
		}
	}
	s.touched, s.queue, s.top, s.dense = s.touched[:0], s.queue[:0], s.top[:0], false
	scratches.Put(s)
}

// overRelax is how much more than it holds a node passes on in a dense
// sweep (successive over-relaxation): about a third fewer sweeps than
// passing on what it holds on the link graphs of the Go tree and of the
// development repositories, with the same agreement with PageRank
// (BENCHMARKS.md, "h15walk").
const overRelax = 1.15

// absSum is the sum of the absolute values of xs.
func absSum(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += math.Abs(x)
	}
	return t
}
