package tree

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/graph"
	"github.com/ctxd/ctxd/internal/benchreq"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/query"
)

// walkSeeds are seed sets for a tree's link graph as requests make them:
// the lexical seeds of the benchmark requests (benchreq), then random
// ones like lexical matches (a few files near one another in path order,
// so mostly of one directory, weighted 0.2..1), some with a file named
// by the user (weight 2).
func walkSeeds(s *Snapshot, random int) []map[int32]float64 {
	var sets []map[int32]float64
	reqs := slices.Concat(benchreq.Stdlib, benchreq.StdlibNovel, benchreq.StdlibNovelB)
	for _, q := range reqs {
		ids := map[int32]float64{}
		for rel, w := range LexicalSeeds(s.Index.Rank(query.Parse(q), 50), DefaultLinks().LexicalSeeds) {
			if i, ok := s.FileIndex(rel); ok {
				ids[i] = w
			}
		}
		if len(ids) > 0 {
			sets = append(sets, ids)
		}
	}
	r := rand.New(rand.NewPCG(7, uint64(len(s.Files))))
	var code []int32
	for i, f := range s.Files {
		if f.doc != nil && f.doc.role == lang.RoleCode && !f.doc.test {
			code = append(code, int32(i))
		}
	}
	for range random {
		if len(code) == 0 {
			break
		}
		ids := map[int32]float64{}
		k := 1 + r.IntN(10)
		at := r.IntN(len(code))
		for range k {
			j := at + r.IntN(30) - 15
			if r.IntN(4) == 0 {
				j = r.IntN(len(code))
			}
			j = min(max(j, 0), len(code)-1)
			ids[code[j]] = 0.2 + 0.8*r.Float64()
		}
		if r.IntN(3) == 0 {
			ids[code[at]] = 2
		}
		sets = append(sets, ids)
	}
	return sets
}

// walkAgreement is how closely one walk's best nodes follow another's.
type walkAgreement struct {
	sets       int
	top200     float64 // mean share of the reference's best 200 also in the other's
	minTop200  float64
	top20Same  int     // sets whose best 20 are in the same order
	top20Pos   float64 // mean share of the best 20's places holding the same node
	firstFiles int     // sets whose first two files (not hubs) agree: the files gather adds
}

func (a *walkAgreement) add(ref, got []graph.Ranked, files int) {
	a.sets++
	in := map[int32]bool{}
	for _, r := range got {
		in[r.Node] = true
	}
	both := 0
	for _, r := range ref {
		if in[r.Node] {
			both++
		}
	}
	share := 1.0
	if len(ref) > 0 {
		share = float64(both) / float64(len(ref))
	}
	a.top200 += share
	if a.sets == 1 || share < a.minTop200 {
		a.minTop200 = share
	}
	n20 := min(20, len(ref))
	same := 0
	for k := range n20 {
		if k < len(got) && got[k].Node == ref[k].Node {
			same++
		}
	}
	if same == n20 && len(got) >= n20 {
		a.top20Same++
	}
	if n20 > 0 {
		a.top20Pos += float64(same) / float64(n20)
	} else {
		a.top20Pos++
	}
	firstFiles := func(rs []graph.Ranked) []int32 {
		var out []int32
		for _, r := range rs {
			if int(r.Node) < files && len(out) < 2 {
				out = append(out, r.Node)
			}
		}
		return out
	}
	if slices.Equal(firstFiles(ref), firstFiles(got)) {
		a.firstFiles++
	}
}

func (a walkAgreement) String() string {
	n := float64(max(a.sets, 1))
	return fmt.Sprintf("%d seed sets: top-200 overlap mean %.4f min %.3f; top-20 same order %d/%d, same place %.4f; first two files same %d/%d",
		a.sets, a.top200/n, a.minTop200, a.top20Same, a.sets, a.top20Pos/n, a.firstFiles, a.sets)
}

// TestLinkWalkAgreesOnTrees compares the walk gather ranks by (forward
// push, graph.TopPersonalized) with PageRank's power iteration on the
// link graphs of real trees, CTXD_WALK_TREES (paths separated by the
// path list separator; skipped when unset), over the benchmark requests'
// seed sets and random ones; it logs the agreement (and PageRank's own at
// 20 against 200 iterations) and fails below 0.97 mean top-200 overlap or
// 0.95 of the seed sets with the same first two files.
//
//	CTXD_WALK_TREES=/work/data/ctxd-scale/stdlib-10k:/work/data/gin-gonic+gin go test -run LinkWalkAgreesOnTrees -v ./gather
func TestLinkWalkAgreesOnTrees(t *testing.T) {
	env := testutil.Env(t, "CTXD_WALK_TREES", "")
	for _, src := range filepath.SplitList(env) {
		t.Run(filepath.Base(src), func(t *testing.T) {
			s := treeSnapshot(t, src)
			lg := s.Links(t.Context(), nil)
			sets := walkSeeds(s, 200)
			var vsIter, vsConverged, iterVsConverged walkAgreement
			for _, ids := range sets {
				ref := graph.Top(lg.Graph.PageRank(ids, DefaultLinks().Restart, 0), linkTop)
				conv := graph.Top(lg.Graph.PageRank(ids, DefaultLinks().Restart, 200), linkTop)
				got := lg.Graph.TopPersonalized(ids, graph.WalkOptions{Restart: DefaultLinks().Restart}, linkTop)
				vsIter.add(ref, got, lg.FileNodes)
				vsConverged.add(conv, got, lg.FileNodes)
				iterVsConverged.add(conv, ref, lg.FileNodes)
			}
			t.Logf("%s: %d nodes, %d edges", strings.TrimPrefix(src, "/work/data/"), lg.Graph.Len(), lg.Graph.EdgeCount())
			t.Logf("push vs PageRank (20 iterations): %v", vsIter)
			t.Logf("push vs PageRank (200 iterations): %v", vsConverged)
			t.Logf("PageRank 20 vs 200 iterations: %v", iterVsConverged)
			if e := os.Getenv("CTXD_WALK_EPS"); e != "" {
				for _, f := range strings.Fields(e) {
					var eps, tol float64
					e, tl, _ := strings.Cut(f, "/")
					fmt.Sscan(e, &eps)
					fmt.Sscan(tl, &tol)
					wo := graph.WalkOptions{Restart: DefaultLinks().Restart, Epsilon: eps, Tolerance: tol}
					var a, c walkAgreement
					t0 := time.Now()
					for _, ids := range sets {
						lg.Graph.TopPersonalized(ids, wo, linkTop)
					}
					d := time.Since(t0)
					t1 := time.Now()
					for _, ids := range sets {
						graph.Top(lg.Graph.PageRank(ids, DefaultLinks().Restart, 0), linkTop)
					}
					d1 := time.Since(t1)
					for _, ids := range sets {
						ref := graph.Top(lg.Graph.PageRank(ids, DefaultLinks().Restart, 0), linkTop)
						conv := graph.Top(lg.Graph.PageRank(ids, DefaultLinks().Restart, 200), linkTop)
						got := lg.Graph.TopPersonalized(ids, wo, linkTop)
						a.add(ref, got, lg.FileNodes)
						c.add(conv, got, lg.FileNodes)
					}
					t.Logf("eps %g tol %g: push %v/set, pagerank %v/set\n\tvs 20 it: %v\n\tvs 200 it: %v", eps, tol, d/time.Duration(len(sets)), d1/time.Duration(len(sets)), a, c)
				}
			}
			if n := float64(vsIter.sets); vsIter.top200/n < 0.97 || float64(vsIter.firstFiles)/n < 0.95 {
				t.Errorf("push strays from PageRank: %v", vsIter)
			}
		})
	}
}

// BenchmarkLinkWalk walks a tree's link graph (GOROOT/src, or
// CTXD_BENCH_TREE) from the lexical seeds of the benchmark requests, in
// turn, and keeps the best linkTop as gather does: by PageRank's power
// iteration and by forward push.
//
//	CTXD_BENCH_TREE=/work/data/ctxd-scale/stdlib-10k go test -run '^$' -bench LinkWalk -count 5 ./gather
func BenchmarkLinkWalk(b *testing.B) {
	s := benchTreeSnapshot(b)
	lg := s.Links(b.Context(), nil)
	sets := walkSeeds(s, 0)
	walks := []struct {
		name string
		walk func(ids map[int32]float64)
	}{
		{"pagerank", func(ids map[int32]float64) { graph.Top(lg.Graph.PageRank(ids, DefaultLinks().Restart, 0), linkTop) }},
		{"push", func(ids map[int32]float64) {
			lg.Graph.TopPersonalized(ids, graph.WalkOptions{Restart: DefaultLinks().Restart}, linkTop)
		}},
	}
	for _, w := range walks {
		b.Run(w.name, func(b *testing.B) {
			i := 0
			c0 := testutil.CPUTime()
			for b.Loop() {
				w.walk(sets[i%len(sets)])
				i++
			}
			b.ReportMetric(float64((testutil.CPUTime()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
