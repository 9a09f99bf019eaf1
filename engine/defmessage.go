package engine

import (
	"math"
	"slices"
	"strconv"

	"github.com/ctxd/ctxd/workspace/tree"
)

// The functions that past commits worded like the request changed: a
// request is most often worded like the project's own commit subjects,
// and the definitions those commits touched are where such work happens
// ("Fix parsing extra Form parameter list": fastapi's earlier Form fixes
// changed specific functions of dependencies/utils.py). The file-level
// version ranks files (tree.Messages, gather's message_rank); this one
// orders a ladder file's ranked definitions.
const (
	// msgBoost raises the score of a ranked definition (by the words or
	// the history) whose message score is at least msgMin: of the
	// ladder's definitions at one place in it, those such commits touched
	// held a changed line two to three times as often (gin's first, 15 of
	// 32 against 6 of 38). Adding the definitions nothing else ranked
	// instead was measured and not kept: 1 of 24 (gin) and 1 of 12
	// (requests) of those added held a changed line, and the newest 100
	// lost 8k all-lines (59.801 -> 59.659; BENCHMARKS.md "hmsgdef").
	msgBoost = 1.5
	// msgMin is the least message score that counts: the summed inverse
	// document frequencies (over the log's subjects) of the subject terms
	// shared with the request, over the square root of the commit's
	// files, summed over the commits touching the definition. A word most
	// subjects hold ("fix", "add") scores under 1, one of a few in 200
	// subjects about 4. Of the definitions an addition rule added at 2.5,
	// 2 of 25 under 4 held a changed line of requests' training split and
	// 5 of 17 over it (8k).
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

// byMessage raises by msgBoost the score of each definition of ranked
// (of spans, ranked by the request's words and the history, best first)
// whose message score (defMessageScore) is at least msgMin, and ranks
// them again; each one with a message score has "msg:<score>" among its
// reasons. It adds none.
func byMessage(ranked []tree.DefScore, spans []tree.DefSpan, h *tree.LineHistory, msgs []float64) []tree.DefScore {
	if h == nil || msgs == nil {
		return ranked
	}
	boosted := false
	for k := range ranked {
		r := &ranked[k]
		if r.Index < 0 || r.Index >= len(spans) {
			continue
		}
		if s := defMessageScore(h, msgs, spans[r.Index].Start, spans[r.Index].End); s > 0 {
			if s >= msgMin {
				r.Score *= msgBoost
				boosted = true
			}
			r.Terms = append(slices.Clip(r.Terms), "msg:"+strconv.FormatFloat(math.Round(s*10)/10, 'f', -1, 64))
		}
	}
	if !boosted {
		return ranked
	}
	return tree.SortDefScores(ranked)
}
