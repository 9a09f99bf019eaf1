package engine

import (
	"cmp"
	"context"
	"slices"
	"strconv"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/tree"
)

// Where a file's next change lands: the definitions its recent changes
// touched. h25fit measured the focus ladder's ranking by the request's
// words alone: in 39 of 51 answer files whose changed lines a ranked
// function held but no view showed, the ladder's definitions were scored
// alike (the best under 1.5 times the second); the words do not say which
// of them the change is about, the file's history often does.
const (
	// histCommits is how many of the last commits that changed any of a
	// request's ladder files one `git log -U0` reads.
	histCommits = 40
	// histWeight is the share of its score a definition gains when the
	// newest change of its file touched it; the change ranked k gains
	// histWeight/k: among definitions the words score alike, the one
	// changed last comes first.
	histWeight = 0.5
	// histAdd: a definition the file's newest change (or the one before,
	// at half) touched joins the ranking at histAdd times the best
	// definition's score even when the request's words do not reach it
	// (at most histAddMax of them): on the development repositories'
	// answer files with a focus ladder, the function a commit changed was
	// one the file's previous commit had touched as often as it was the
	// ladder's best by the words, and most of those were not ranked at
	// all (BENCHMARKS.md "hdef").
	histAdd      = 0.5
	histAddRanks = 2
	histAddMax   = 3
)

// ladderHistories returns the line history (tree.LineHistory) of the
// files focusLines gives a ladder (at most focusLadderFiles files of at
// least focusMinTokens), by path, from the store when the file's content
// and HEAD are those it was read at, else with one git log for all of them.
// None outside git.
func (e *Engine) ladderHistories(ctx context.Context, chunks []ctxd.Chunk, sums contentSums) map[string]*tree.LineHistory {
	var keys []workspace.LineHistoryKey
	var dirty []string
	head := ""
	for i := range chunks {
		c := &chunks[i]
		f := &c.Facts
		if c.ChunkType != ctxd.ChunkFile || f.Minified || f.Cursor > 0 || f.Selection != nil || len(f.ErrorLines) > 0 || c.Tokens < focusMinTokens {
			continue
		}
		cs := sums.of(c)
		if cs == nil {
			continue
		}
		if head == "" {
			if head = e.ws.Head(); head == "" {
				return nil
			}
		}
		keys = append(keys, workspace.LineHistoryKey{Rel: c.Source, Content: cs.sum, Head: head})
		if f.Dirty {
			dirty = append(dirty, c.Source)
		}
		if len(keys) == focusLadderFiles {
			break
		}
	}
	if len(keys) == 0 {
		return nil
	}
	got := e.store.LineHistories(keys, func(missing []workspace.LineHistoryKey) (map[workspace.LineHistoryKey]*tree.LineHistory, bool) {
		rels := make([]string, len(missing))
		for k, m := range missing {
			rels[k] = m.Rel
		}
		hs, err := e.ws.LineHistories(ctx, rels, dirty, histCommits)
		if err != nil {
			e.log.Debug("line history unavailable", "error", err)
			return nil, false
		}
		out := make(map[workspace.LineHistoryKey]*tree.LineHistory, len(hs))
		for _, m := range missing {
			if h := hs[m.Rel]; h != nil {
				out[m] = h
			}
		}
		return out, true
	})
	out := make(map[string]*tree.LineHistory, len(got))
	for k, h := range got {
		if h != nil {
			out[k.Rel] = h
		}
	}
	return out
}

// byHistory reorders ranked (definitions of spans, by the request's
// words) by where the file's recent changes landed (h): a definition
// whose lines the file's k-th newest change touched scores 1 + histWeight/k
// times as much, with "changed:k" among its reasons; a definition of
// among (nil: all of spans; long marks the runs of long functions) that
// the words did not rank joins at histAdd/k of the best score when k is at
// most histAddRanks, unless that change touched more than histAddMax of
// them.
func byHistory(ranked []tree.DefScore, spans []tree.DefSpan, among, long []int, h *tree.LineHistory) []tree.DefScore {
	if h == nil || len(ranked) == 0 {
		return ranked
	}
	moved := false
	best := ranked[0].Score
	added := 0
	for n := 1; n <= histAddRanks; n++ {
		var touched []int
		for i := range spans {
			if among != nil && !slices.Contains(among, i) || i < len(long) && long[i] != 0 || slices.ContainsFunc(ranked, func(r tree.DefScore) bool { return r.Index == i }) {
				continue
			}
			if h.Newest(spans[i].Start, spans[i].End) == n {
				touched = append(touched, i)
			}
		}
		if added+len(touched) > histAddMax {
			// A change this wide (a file's first commit, a reformat)
			// says nothing of where the next one lands.
			continue
		}
		for _, i := range touched {
			// Its boost below makes it histAdd/n of the best.
			ranked = append(ranked, tree.DefScore{Index: i, Score: best * histAdd / float64(n) / (1 + histWeight/float64(n))})
			added++
		}
	}
	for k := range ranked {
		r := &ranked[k]
		if r.Index < 0 || r.Index >= len(spans) {
			continue
		}
		if n := h.Newest(spans[r.Index].Start, spans[r.Index].End); n > 0 {
			r.Score *= 1 + histWeight/float64(n)
			r.Terms = append(slices.Clip(r.Terms), "changed:"+strconv.Itoa(n))
			moved = true
		}
	}
	if !moved {
		return ranked
	}
	slices.SortStableFunc(ranked, func(a, b tree.DefScore) int { return cmp.Compare(b.Score, a.Score) })
	for k := range ranked {
		ranked[k].Best = ranked[0].Score
	}
	return ranked
}
