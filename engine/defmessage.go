package engine

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/ctxd/ctxd/internal/vsort"
	"github.com/ctxd/ctxd/workspace/tree"
)

// The functions that past commits worded like the request changed: a
// request is most often worded like the project's own commit subjects,
// and the definitions those commits touched are where such work happens
// ("Fix parsing extra Form parameter list": fastapi's earlier Form fixes
// changed specific functions of dependencies/utils.py). The file-level
// version ranks files (tree.Messages, gather's message_rank); this one
// picks a ladder file's definitions.
const (
	// msgAdd: a definition that neither the words nor the file's newest
	// changes ranked and that past commits sharing the request's words
	// touched joins the ladder after every ranked one (at most the
	// lowest ranked score, as byName), at msgAdd times the best score
	// for the file's best such definition, down to focusLadderCut for the
	// weakest (by their message scores), at most msgAddMax of them per
	// file. Among the ranked ones, at up to msgAdd of the best and before
	// byHistory (whose best it then lowered), they took steps from the
	// words' and the history's definitions: training split 8k all-lines
	// gin 61 -> 60, requests 65.3 -> 63.9 (BENCHMARKS.md "hmsgdef").
	msgAdd    = 0.5
	msgAddMax = 2
	// msgMin is the least message score that counts: the summed inverse
	// document frequencies (over the log's subjects) of the subject terms
	// shared with the request, over the square root of the commit's
	// files, summed over the commits touching the definition. A word most
	// subjects hold ("fix", "add") scores under 1, one of a few in 200
	// subjects about 4. Of the definitions added at 2.5, 2 of 25 under 4
	// held a changed line of requests' training split and 5 of 17 over
	// it (8k).
	msgMin = 4.0
)

// defMessageScore returns the message score of the lines [from, to] of a
// file (h its line history): the sum of the scores (msgs, by commit;
// tree.LineHistories.MessageScores) of the commits that touched them.
func defMessageScore(h *tree.LineHistory, msgs []float64, from, to int) float64 {
	s := 0.0
	h.CommitsIn(from, to, func(c int) {
		if c < len(msgs) {
			s += msgs[c]
		}
	})
	return s
}

// byMessage adds to ranked (definitions of spans ranked by the request's
// words and the history, best first) the definitions of among (nil: all
// of spans; long marks the runs of long functions, left out) it does not
// hold whose message score (defMessageScore) is at least msgMin, the best
// msgAddMax of them, at msgAdd times the best score (of 1 when ranked is
// empty) for the file's best, scaled down with their score to
// focusLadderCut, and at most the lowest ranked score; each definition,
// ranked or added, with a score has "msg:<score>" among its reasons.
func byMessage(ranked []tree.DefScore, spans []tree.DefSpan, among, long []int, h *tree.LineHistory, msgs []float64) []tree.DefScore {
	if h == nil || msgs == nil {
		return ranked
	}
	type cand struct {
		i int
		s float64
	}
	var cands []cand
	for i := range spans {
		if among != nil && !slices.Contains(among, i) || i < len(long) && long[i] != 0 || slices.ContainsFunc(ranked, func(r tree.DefScore) bool { return r.Index == i }) {
			continue
		}
		if s := defMessageScore(h, msgs, spans[i].Start, spans[i].End); s >= msgMin {
			cands = append(cands, cand{i, s})
		}
	}
	for k := range ranked {
		r := &ranked[k]
		if r.Index < 0 || r.Index >= len(spans) {
			continue
		}
		if s := defMessageScore(h, msgs, spans[r.Index].Start, spans[r.Index].End); s > 0 {
			r.Terms = append(slices.Clip(r.Terms), "msg:"+strconv.FormatFloat(math.Round(s*10)/10, 'f', -1, 64))
		}
	}
	if len(cands) == 0 {
		return ranked
	}
	vsort.StableFunc(cands, func(a, b cand) int { return cmp.Compare(b.s, a.s) })
	cands = cands[:min(len(cands), msgAddMax)]
	best := 1.0
	if len(ranked) > 0 {
		best = ranked[0].Score
	}
	top := cands[0].s
	ceil := math.Inf(1)
	if len(ranked) > 0 {
		ceil = ranked[len(ranked)-1].Score
	}
	for _, c := range cands {
		share := focusLadderCut + (msgAdd-focusLadderCut)*c.s/top
		ranked = append(ranked, tree.DefScore{Index: c.i, Score: max(min(best*share, ceil), focusLadderCut*best), Terms: []string{"msg:" + strconv.FormatFloat(math.Round(c.s*10)/10, 'f', -1, 64)}})
	}
	return tree.SortDefScores(ranked)
}
