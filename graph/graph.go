// Package graph ranks the files of a workspace by how they link to the
// files a request starts from: a weighted file→file graph (imports and
// references to names defined in another file) walked by personalized
// PageRank, and git co-change (files that changed together with the seeds
// in recent history).
//
// Files are nodes numbered 0..n-1 by the caller (gather numbers them by
// its sorted walk). Edges come from a [Source]: gather's import resolver
// and [References], which reads per-file definitions and uses from a
// [SymbolTable] (gather's lexical defined-name terms today; a tree-sitter
// symbol index can implement the same interface). A built [Graph] is
// immutable and safe for concurrent use; it keeps only compressed rows
// (offsets, targets and weights), 8 bytes per edge.
package graph

import (
	"cmp"
	"math"
	"slices"
)

// Source yields weighted directed edges between nodes by index. A source
// may yield an edge more than once; the weights add up. A source that
// means a link both ways yields both edges (with the weights it wants).
type Source interface {
	Edges(add func(from, to int32, w float32))
}

// SourceFunc adapts a function to [Source].
type SourceFunc func(add func(from, to int32, w float32))

// Edges calls f.
func (f SourceFunc) Edges(add func(from, to int32, w float32)) { f(add) }

// Options shape a built graph.
type Options struct {
	// MaxOut caps the edges kept per node, strongest first (0: 64), so a
	// file that touches everything costs no more than one that touches
	// little.
	MaxOut int
	// SizeHint is the expected number of edges the sources yield (to
	// allocate once); 0 guesses from n.
	SizeHint int
}

// Graph is a weighted directed graph in compressed sparse rows; each row's
// weights sum to 1 (a random walk's transition probabilities).
type Graph struct {
	off []int32 // row i is dst[off[i]:off[i+1]]
	dst []int32
	w   []float32
}

type edge struct {
	from, to int32
	w        float32
}

// Build collects the edges of the sources over n nodes. Self-loops and
// edges out of range are dropped; duplicates are merged.
func Build(n int, opts Options, sources ...Source) *Graph {
	if opts.MaxOut <= 0 {
		opts.MaxOut = 64
	}
	if opts.SizeHint <= 0 {
		opts.SizeHint = 16 * n
	}
	es := make([]edge, 0, opts.SizeHint)
	add := func(from, to int32, w float32) {
		if from == to || from < 0 || to < 0 || int(from) >= n || int(to) >= n || !(w > 0) {
			return
		}
		es = append(es, edge{from, to, w})
	}
	for _, s := range sources {
		s.Edges(add)
	}
	// Bucket the edges by source (a counting sort), then sort each row by
	// target, merge duplicates, keep the strongest MaxOut and normalize.
	start := make([]int32, n+1)
	for _, e := range es {
		start[e.from+1]++
	}
	for i := 1; i <= n; i++ {
		start[i] += start[i-1]
	}
	byFrom := make([]edge, len(es))
	fill := slices.Clone(start[:n])
	for _, e := range es {
		byFrom[fill[e.from]] = e
		fill[e.from]++
	}
	es = nil
	g := &Graph{off: make([]int32, n+1)}
	acc := make([]float32, n) // merged weights of the current row, by target
	var touched []int32
	var ws []float32
	for i := range n {
		for _, e := range byFrom[start[i]:start[i+1]] {
			if acc[e.to] == 0 {
				touched = append(touched, e.to)
			}
			acc[e.to] += e.w
		}
		if len(touched) > opts.MaxOut {
			// Keep the MaxOut strongest: those above the MaxOut-th weight,
			// then those equal to it, lowest target first.
			ws = ws[:0]
			for _, t := range touched {
				ws = append(ws, acc[t])
			}
			slices.Sort(ws)
			cut := ws[len(ws)-opts.MaxOut]
			above := 0
			for _, w := range ws {
				if w > cut {
					above++
				}
			}
			slices.Sort(touched)
			ties := opts.MaxOut - above
			k := 0
			for _, t := range touched {
				switch w := acc[t]; {
				case w > cut:
				case w == cut && ties > 0:
					ties--
				default:
					acc[t] = 0
					continue
				}
				touched[k] = t
				k++
			}
			touched = touched[:k]
		} else {
			slices.Sort(touched)
		}
		var sum float32
		for _, t := range touched {
			sum += acc[t]
		}
		for _, t := range touched {
			g.dst = append(g.dst, t)
			g.w = append(g.w, acc[t]/sum)
			acc[t] = 0
		}
		touched = touched[:0]
		g.off[i+1] = int32(len(g.dst))
	}
	return g
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.off) - 1 }

// EdgeCount returns the number of edges kept.
func (g *Graph) EdgeCount() int { return len(g.dst) }

// Out returns the targets of node i's edges and their weights (summing
// to 1); the slices belong to the graph.
func (g *Graph) Out(i int32) ([]int32, []float32) {
	return g.dst[g.off[i]:g.off[i+1]], g.w[g.off[i]:g.off[i+1]]
}

// Bytes is the memory the graph holds.
func (g *Graph) Bytes() int { return 4*len(g.off) + 4*len(g.dst) + 4*len(g.w) }

// Defaults of [Graph.PageRank].
const (
	DefaultRestart = 0.3
	DefaultIters   = 20
)

// PageRank runs personalized PageRank: a random walk that follows an edge
// with probability 1-restart and jumps back to a seed (chosen in
// proportion to its weight) with probability restart; the walk's mass
// at a dead end returns to the seeds too. It returns each node's share of
// the stationary mass *received over edges*, that is with the restart
// mass of the seeds (jumps and dead ends) taken out, so a seed ranks by what the other seeds
// and their neighbors give it, not by being a seed. Seeds with weight ≤ 0
// are ignored; with none, every score is 0. iters ≤ 0 means
// DefaultIters; restart outside (0, 1) means DefaultRestart.
func (g *Graph) PageRank(seeds map[int32]float64, restart float64, iters int) []float64 {
	n := g.Len()
	score := make([]float64, n)
	if n == 0 {
		return score
	}
	restart, iters = walkDefaults(restart, iters)
	seedIDs, ps := restartDistribution(seeds, n)
	if len(seedIDs) == 0 {
		return score
	}
	p := make([]float64, n) // the restart distribution
	for k, i := range seedIDs {
		p[i] = ps[k]
	}
	cur := slices.Clone(p)
	next := make([]float64, n)
	// While the walk has reached few nodes, an iteration visits only
	// those (active, ascending: the same additions in the same order as a
	// scan of every node, so the scores are bit for bit those of the
	// scan); once it has spread, every node is scanned.
	active := slices.Clone(seedIDs)
	var reached []int32
	mark := make([]bool, n)
	jump := restart
	for range iters {
		var dangling float64
		dense := active == nil || len(active) > n/sparseShare
		if dense {
			clear(next)
			for i := range n {
				if m := cur[i]; m != 0 && !g.spread(int32(i), m, restart, next) {
					dangling += m
				}
			}
		} else {
			// next holds the iteration before last, nonzero on the nodes
			// it reached; reached collects this one's.
			for _, i := range reached {
				next[i] = 0
			}
			reached = reached[:0]
			for _, i := range active {
				m := cur[i]
				if m == 0 {
					continue
				}
				if !g.spread(i, m, restart, next) {
					dangling += m
					continue
				}
				for _, d := range g.dst[g.off[i]:g.off[i+1]] {
					if !mark[d] {
						mark[d] = true
						reached = append(reached, d)
					}
				}
			}
		}
		jump = restart + (1-restart)*dangling
		for _, i := range seedIDs {
			next[i] += jump * p[i]
		}
		cur, next = next, cur
		if dense {
			active = nil
			continue
		}
		for _, i := range seedIDs {
			if !mark[i] {
				mark[i] = true
				reached = append(reached, i)
			}
		}
		for _, i := range reached {
			mark[i] = false
		}
		slices.Sort(reached)
		// The nodes now nonzero (in cur) become the active set; the
		// previous active set is where next (the old cur) is nonzero.
		active, reached = reached, active
	}
	return seedless(score, cur, p, jump)
}

// seedless sets score[i] to what node i holds in cur less the restart
// mass jump sends to it as a seed (p[i] of it), where that is above
// PageRank's least score (1e-12), and returns score.
func seedless(score, cur, p []float64, jump float64) []float64 {
	for i := range score {
		v := cur[i] - jump*p[i]
		if v > 1e-12 {
			score[i] = v
		}
	}
	return score
}

// restartDistribution returns the seeds with a positive weight among n
// nodes, in node order, and each one's share of their total weight (the
// walk's restart distribution). The order makes the total, a float sum,
// independent of the map's: equal seeds give equal scores, bit for bit.
func restartDistribution(seeds map[int32]float64, n int) ([]int32, []float64) {
	var ids []int32
	for i, w := range seeds {
		if w > 0 && i >= 0 && int(i) < n {
			ids = append(ids, i)
		}
	}
	slices.Sort(ids)
	var total float64
	for _, i := range ids {
		total += seeds[i]
	}
	p := make([]float64, len(ids))
	for k, i := range ids {
		p[k] = seeds[i] / total
	}
	return ids, p
}

// walkDefaults returns restart, or DefaultRestart when it is outside
// (0, 1), and iters, or DefaultIters when it is not positive.
func walkDefaults(restart float64, iters int) (float64, int) {
	if restart <= 0 || restart >= 1 {
		restart = DefaultRestart
	}
	if iters <= 0 {
		iters = DefaultIters
	}
	return restart, iters
}

// sparseShare: an iteration that starts from at most 1/sparseShare of
// the nodes visits only those.
const sparseShare = 8

// Ranked is a node and its score.
type Ranked struct {
	Node  int32
	Score float64
}

// Top returns the nodes with a positive score, best first (ties by node),
// at most limit (all when limit ≤ 0).
func Top(score []float64, limit int) []Ranked {
	var out []Ranked
	if limit <= 0 {
		for i, s := range score {
			if s > 0 && !math.IsNaN(s) {
				out = append(out, Ranked{int32(i), s})
			}
		}
		slices.SortFunc(out, byRank)
		return out
	}
	// Keep the best limit in a heap whose root is the worst kept, so the
	// whole score vector is not sorted for a short list.
	for i, s := range score {
		if !(s > 0) {
			continue // NaN too
		}
		out = keepBest(out, Ranked{int32(i), s}, limit)
	}
	slices.SortFunc(out, byRank)
	return out
}

// keepBest adds r to h, a heap of at most limit ranks whose root is the
// worst kept, when h has room or r is better than that root.
func keepBest(h []Ranked, r Ranked, limit int) []Ranked {
	switch {
	case len(h) < limit:
		h = append(h, r)
		siftUp(h, len(h)-1)
	case byRank(r, h[0]) < 0:
		h[0] = r
		siftDown(h, 0)
	}
	return h
}

// byRank orders best first: higher score, then lower node.
func byRank(a, b Ranked) int {
	if a.Score != b.Score {
		if a.Score > b.Score {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.Node, b.Node)
}

// siftUp and siftDown keep h a heap with the worst-ranked at h[0].
func siftUp(h []Ranked, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if byRank(h[i], h[p]) <= 0 {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func siftDown(h []Ranked, i int) {
	for {
		w := i
		if l := 2*i + 1; l < len(h) && byRank(h[l], h[w]) > 0 {
			w = l
		}
		if r := 2*i + 2; r < len(h) && byRank(h[r], h[w]) > 0 {
			w = r
		}
		if w == i {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// spread adds node i's mass m, less the restart, to its out-neighbours in
// next, in edge order (so the scores are the same float sums whichever
// nodes an iteration visits). It returns false for a dead end, whose mass
// the caller spreads over the seeds.
func (g *Graph) spread(i int32, m, restart float64, next []float64) bool {
	lo, hi := g.off[i], g.off[i+1]
	if lo == hi {
		return false
	}
	m *= 1 - restart
	ws := g.w[lo:hi]
	for k, d := range g.dst[lo:hi] {
		next[d] += m * float64(ws[k])
	}
	return true
}
