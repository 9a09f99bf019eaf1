package eval

import (
	"cmp"
	"slices"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/vsort"
)

// rankCap is the rank an answer file counts at in the mean when it is
// ranked past it or not at all: gather keeps at most 50 files by default
// (gather.Options.MaxFiles), so ranks past 50 say nothing more about ctxd,
// and the baseline is capped the same way to stay comparable.
const rankCap = 51

// Rank says where a method ranked the answer files, apart from what its
// allocator then showed of them: the share of answer files ranked first,
// in the top 3, 5 and 10, and their mean rank (a file ranked past 50 or
// not at all counts as 51).
type Rank struct {
	Top1, Top3, Top5, Top10 float64
	Mean                    float64
}

// rankTally sums answer-file ranks over cases.
type rankTally struct {
	files                   int
	top1, top3, top5, top10 int
	sum                     int
}

// add counts one answer file at rank r (1 = best, 0 = not ranked).
func (t *rankTally) add(r int) {
	t.files++
	if r <= 0 || r > rankCap {
		r = rankCap
	}
	t.sum += r
	for _, c := range []struct {
		n   *int
		max int
	}{{&t.top1, 1}, {&t.top3, 3}, {&t.top5, 5}, {&t.top10, 10}} {
		if r <= c.max {
			*c.n++
		}
	}
}

func (t rankTally) rank() Rank {
	if t.files == 0 {
		return Rank{}
	}
	n := float64(t.files)
	return Rank{Top1: float64(t.top1) / n, Top3: float64(t.top3) / n, Top5: float64(t.top5) / n, Top10: float64(t.top10) / n, Mean: float64(t.sum) / n}
}

// metaSources are the chunks that are no file of the workspace.
var metaSources = []string{"structure", "deps", "git:log", "git:diff"}

// fileRanks returns the rank of every file ctxd scored for a request, the
// included and the skipped ones together, by score (1 = best; ties in the
// fitter's order, included first). The structure, dependency and git
// chunks take no rank.
func fileRanks(env *ctxd.Envelope) map[string]int {
	type scored struct {
		src   string
		score float64
	}
	var all []scored
	for _, ch := range env.Context.Chunks {
		if ch.ChunkType == ctxd.ChunkFile {
			all = append(all, scored{ch.Source, ch.Score})
		}
	}
	for _, sk := range env.Context.Skipped {
		if !slices.Contains(metaSources, sk.Source) {
			all = append(all, scored{sk.Source, sk.Score})
		}
	}
	vsort.StableFunc(all, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	ranks := make(map[string]int, len(all))
	for i, s := range all {
		if _, ok := ranks[s.src]; !ok {
			ranks[s.src] = i + 1
		}
	}
	return ranks
}

// listRanks returns the rank of every path of a best-first list.
func listRanks(paths []string) map[string]int {
	ranks := make(map[string]int, len(paths))
	for i, p := range paths {
		if _, ok := ranks[p]; !ok {
			ranks[p] = i + 1
		}
	}
	return ranks
}
