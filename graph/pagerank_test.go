package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// scanPageRank is PageRank as first written: every iteration scans every
// node. The faster PageRank must give the same scores bit for bit.
func scanPageRank(g *Graph, seeds map[int32]float64, restart float64, iters int) []float64 {
	n := g.Len()
	score := make([]float64, n)
	if n == 0 {
		return score
	}
	restart, iters = walkDefaults(restart, iters)
	// Summed in node order (the first version summed in the map's
	// order, so its last bits varied from call to call).
	var ids []int32
	for i := range seeds {
		ids = append(ids, i)
	}
	slices.Sort(ids)
	var total float64
	for _, i := range ids {
		if w := seeds[i]; w > 0 && int(i) < n && i >= 0 {
			total += w
		}
	}
	if total == 0 {
		return score
	}
	p := make([]float64, n)
	for i, w := range seeds {
		if w > 0 && int(i) < n && i >= 0 {
			p[i] = w / total
		}
	}
	cur := slices.Clone(p)
	next := make([]float64, n)
	jump := restart
	for range iters {
		var dangling float64
		for i := range next {
			next[i] = 0
		}
		for i := range n {
			m := cur[i]
			if m == 0 {
				continue
			}
			lo, hi := g.off[i], g.off[i+1]
			if lo == hi {
				dangling += m
				continue
			}
			m *= 1 - restart
			for k := lo; k < hi; k++ {
				next[g.dst[k]] += m * float64(g.w[k])
			}
		}
		jump = restart + (1-restart)*dangling
		for i := range next {
			if p[i] != 0 {
				next[i] += jump * p[i]
			}
		}
		cur, next = next, cur
	}
	return seedless(score, cur, p, jump)
}

// sortTop is Top through a sort of every positive score (its path when
// limit ≤ 0) cut to limit: the reference of Top's heap of the best limit.
func sortTop(score []float64, limit int) []Ranked {
	out := Top(score, 0)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// randomGraph has n nodes, some without edges (dead ends), and out
// degrees skewed like a code base's (a few hubs).
func randomGraph(r *rand.Rand, n, deg int) *Graph {
	return Build(n, Options{}, SourceFunc(func(add func(from, to int32, w float32)) {
		for i := range n {
			if r.IntN(10) == 0 {
				continue // a dead end
			}
			d := 1 + r.IntN(2*deg)
			if r.IntN(50) == 0 {
				d *= 20
			}
			for range d {
				// Mostly near neighbors (a package), sometimes anywhere.
				to := i + r.IntN(40) - 20
				if r.IntN(4) == 0 {
					to = r.IntN(n)
				}
				add(int32(i), int32(to), float32(1+r.IntN(4))/2)
			}
		}
	}))
}

func TestPageRankMatchesTheFullScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name       string
		n, deg     int
		seeds      int
		restart    float64
		iters      int
		seedWeight func() float64
	}{
		{"tiny", 5, 1, 1, 0, 0, func() float64 { return 1 }},
		{"one seed", 2000, 8, 1, 0.3, 20, func() float64 { return 1 }},
		{"ten seeds", 12000, 10, 10, 0.3, 20, func() float64 { return 0.2 + r.Float64() }},
		{"many seeds", 3000, 5, 600, 0.3, 20, func() float64 { return r.Float64() }},
		{"sparse graph", 5000, 1, 3, 0.15, 30, func() float64 { return 1 }},
		{"tiny weights", 1000, 4, 4, 0.3, 20, func() float64 { return 1e-300 }},
		{"negative ignored", 1000, 4, 4, 0.3, 5, func() float64 { return r.Float64() - 0.5 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for trial := range 5 {
				g := randomGraph(r, tt.n, tt.deg)
				seeds := map[int32]float64{}
				for range tt.seeds {
					seeds[int32(r.IntN(tt.n))] = tt.seedWeight()
				}
				seeds[-1], seeds[int32(tt.n)] = 1, 1 // out of range: ignored
				want := scanPageRank(g, seeds, tt.restart, tt.iters)
				got := g.PageRank(seeds, tt.restart, tt.iters)
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("trial %d: node %d: got %v, want %v (the full scan)", trial, i, got[i], want[i])
					}
				}
				for _, limit := range []int{0, 1, 7, 200, tt.n + 5} {
					if got, want := Top(got, limit), sortTop(want, limit); !slices.Equal(got, want) {
						t.Fatalf("trial %d: Top(%d) = %v, want %v", trial, limit, got, want)
					}
				}
			}
		})
	}
}

func TestTopTiesAndNaN(t *testing.T) {
	score := []float64{0.5, math.NaN(), 0.5, 0, -1, 0.9, 0.5, math.Inf(1)}
	// Positive scores only, best first, ties by node.
	all := []Ranked{{7, math.Inf(1)}, {5, 0.9}, {0, 0.5}, {2, 0.5}, {6, 0.5}}
	for limit := range len(score) + 2 {
		want := all
		if limit > 0 && limit < len(all) {
			want = all[:limit]
		}
		if got := Top(score, limit); !slices.Equal(got, want) {
			t.Errorf("Top(%d) = %v, want %v", limit, got, want)
		}
		if got := sortTop(score, limit); !slices.Equal(got, want) {
			t.Errorf("sortTop(%d) = %v, want %v", limit, got, want)
		}
	}
}

// BenchmarkPageRank walks a graph the size of the Go tree's (11.5k files)
// and of seven of them, from ten seeds, and keeps the best 200 as gather
// does.
func BenchmarkPageRank(b *testing.B) {
	for _, n := range []int{12_000, 100_000} {
		r := rand.New(rand.NewPCG(3, 4))
		g := randomGraph(r, n, 10)
		seeds := map[int32]float64{}
		for range 10 {
			seeds[int32(r.IntN(n))] = 0.2 + r.Float64()
		}
		b.Run(fmt.Sprint("nodes=", n), func(b *testing.B) {
			for b.Loop() {
				Top(g.PageRank(seeds, 0.3, 0), 200)
			}
		})
		b.Run(fmt.Sprint("push/nodes=", n), func(b *testing.B) {
			for b.Loop() {
				g.TopPersonalized(seeds, WalkOptions{Restart: 0.3}, 200)
			}
		})
		b.Run(fmt.Sprint("scan/nodes=", n), func(b *testing.B) {
			for b.Loop() {
				sortTop(scanPageRank(g, seeds, 0.3, 0), 200)
			}
		})
	}
}

// TestTopPersonalizedAgrees compares the pushed walk with PageRank (the
// full scan above, 20 iterations) on graphs shaped like a code base's:
// the best 200 are the same nodes, and the best 20 in the same order,
// except where PageRank's own error (against 200 iterations) reorders
// them as much.
func TestTopPersonalizedAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	tests := []struct {
		name      string
		n, deg    int
		seeds     int
		restart   float64
		minTop200 float64 // mean share of PageRank's best 200 found
		minTop20  float64 // share of seed sets with the best 20 in order
	}{
		{"small", 300, 6, 3, 0.3, 0.999, 0.9},
		{"10k", 12_000, 10, 10, 0.3, 0.995, 0.9},
		{"one seed", 12_000, 10, 1, 0.3, 0.995, 0.9},
		{"many seeds", 5000, 5, 300, 0.3, 0.995, 0.8},
		{"restart 0.15", 5000, 8, 5, 0.15, 0.99, 0.8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var top200 float64
			same20, sameRef20 := 0, 0
			const trials = 8
			for range trials {
				g := randomGraph(r, tt.n, tt.deg)
				seeds := map[int32]float64{}
				for range tt.seeds {
					seeds[int32(r.IntN(tt.n))] = 0.2 + r.Float64()
				}
				want := sortTop(scanPageRank(g, seeds, tt.restart, 0), 200)
				conv := sortTop(scanPageRank(g, seeds, tt.restart, 200), 200)
				got := g.TopPersonalized(seeds, WalkOptions{Restart: tt.restart}, 200)
				in := map[int32]bool{}
				for _, x := range got {
					in[x.Node] = true
				}
				both := 0
				for _, x := range want {
					if in[x.Node] {
						both++
					}
				}
				switch {
				case len(want) > 0:
					top200 += float64(both) / float64(len(want))
				case len(got) == 0:
					top200++ // a lone seed at a dead end: no scores
				default:
					t.Errorf("PageRank scores none, the walk %v", got)
				}
				first := func(rs []Ranked) []Ranked { return rs[:min(20, len(rs))] }
				nodes := func(rs []Ranked) []int32 {
					var out []int32
					for _, x := range first(rs) {
						out = append(out, x.Node)
					}
					return out
				}
				if slices.Equal(nodes(got), nodes(want)) {
					same20++
				}
				if slices.Equal(nodes(conv), nodes(want)) {
					sameRef20++
				}
				for k, x := range got {
					if k > 0 && byRank(got[k-1], x) >= 0 {
						t.Fatalf("not best first at %d: %v then %v", k, got[k-1], x)
					}
				}
			}
			if m := top200 / trials; m < tt.minTop200 {
				t.Errorf("best 200: mean overlap %.4f, want ≥ %.3f", m, tt.minTop200)
			}
			if float64(same20)/trials < tt.minTop20 && same20 < sameRef20 {
				t.Errorf("best 20 in PageRank's order in %d of %d seed sets (PageRank at 200 iterations: %d)", same20, trials, sameRef20)
			}
			t.Logf("best 200 overlap %.4f; best 20 same order %d/%d (PageRank 200 iterations vs 20: %d/%d)", top200/trials, same20, trials, sameRef20, trials)
		})
	}
}

func TestTopPersonalizedEdges(t *testing.T) {
	g := Build(6, Options{}, edges{{0, 1, 1}, {1, 2, 1}, {3, 4, 1}, {4, 3, 1}, {5, 0, 1},
		{1, 0, 0.5}, {2, 1, 0.5}, {0, 5, 0.5}})
	tests := []struct {
		name  string
		seeds map[int32]float64
		limit int
	}{
		{"none", nil, 0},
		{"ignored", map[int32]float64{-1: 1, 6: 1, 2: 0, 3: -1}, 0},
		{"one", map[int32]float64{0: 1}, 0},
		{"limit", map[int32]float64{0: 1}, 2},
		{"dead end seed", map[int32]float64{2: 1, 3: 0.5}, 0},
		{"lone dead end", map[int32]float64{2: 1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := sortTop(scanPageRank(g, tt.seeds, 0, 200), tt.limit)
			// The rows' weights are float32s summing to 1 within 1e-7,
			// so the scores agree within about that.
			got := g.TopPersonalized(tt.seeds, WalkOptions{Tolerance: 1e-12}, tt.limit)
			if len(got) != len(want) {
				t.Fatalf("got %v, want %v", got, want)
			}
			for k := range want {
				if got[k].Node != want[k].Node || math.Abs(got[k].Score-want[k].Score) > 1e-7 {
					t.Fatalf("got %v, want %v", got, want)
				}
			}
		})
	}
	// Two calls (the second on pooled memory) agree bit for bit.
	seeds := map[int32]float64{0: 1, 4: 0.3}
	a := g.TopPersonalized(seeds, WalkOptions{}, 0)
	if b := g.TopPersonalized(seeds, WalkOptions{}, 0); !slices.Equal(a, b) {
		t.Errorf("second walk %v, first %v", b, a)
	}
}

// TestTopPersonalizedConverges drives over-relaxed walks (whose residuals
// turn negative) on code-shaped graphs with dead ends to a tight
// tolerance: every score is PageRank's converged one, each node once.
func TestTopPersonalizedConverges(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	tests := []struct {
		name          string
		n, deg, seeds int
	}{
		{"sparse start", 3000, 6, 1},
		{"many seeds", 3000, 4, 40},
		{"dense start", 400, 8, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 4 {
				g := randomGraph(r, tt.n, tt.deg)
				seeds := map[int32]float64{}
				for range tt.seeds {
					seeds[int32(r.IntN(tt.n))] = 0.2 + r.Float64()
				}
				want := scanPageRank(g, seeds, 0.3, 300)
				got := g.TopPersonalized(seeds, WalkOptions{Restart: 0.3, Tolerance: 1e-11}, 0)
				seen := map[int32]bool{}
				for _, x := range got {
					if seen[x.Node] || !(x.Score > 0) {
						t.Fatalf("node %d twice or scored %g", x.Node, x.Score)
					}
					seen[x.Node] = true
					if d := math.Abs(x.Score - want[x.Node]); d > 1e-9 {
						t.Fatalf("node %d: %g, PageRank %g", x.Node, x.Score, want[x.Node])
					}
				}
				for i, s := range want {
					if s > 1e-9 && !seen[int32(i)] {
						t.Fatalf("node %d (PageRank %g) missing", i, s)
					}
				}
			}
		})
	}
}
