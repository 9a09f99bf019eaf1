package engine

import (
	"context"
	"slices"
	"strconv"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/tree"
)

// Where a file's next change lands: the functions its last commits
// touched. On the development repositories' answer files with a focus
// ladder, every function holding the changed lines had been touched by the
// file's newest previous commit in 53 of 207 and by one of its two newest
// in 83, about as often as the ladder's best by the words held them (65),
// and 22 of the 53 were not ranked by the words at all (BENCHMARKS.md
// "hdef").
const (
	// histAdd: a definition the file's newest change touched (or the one
	// before, at half) joins the ranking at histAdd times the best
	// definition's score when the request's words did not rank it, unless
	// that change touched more than histAddMax such definitions (a first
	// commit, a reformat). Raising the ranked definitions' scores by the
	// history as well (x(1 + 0.5/k)) was measured and not kept: the views
	// whose scores grew were bought at other sizes (gin -1 at 8k).
	histAdd      = 0.5
	histAddRanks = 2
	histAddMax   = 3
)

// ladderHistories returns the line history (tree.LineHistory) of the
// files focusLines gives a ladder (at most focusLadderFiles files of at
// least focusMinTokens), by path: a clean file's from the line histories
// read once per HEAD off the request path (tree.ReadLineHistories, run by
// the background analysis); a file with uncommitted changes gets its
// diff against HEAD as the newest change, read from the patch the request
// gathered (diff), else (a patch cut before the file's end, a quoted name)
// with one git diff for the request's dirty ladder files, kept per path,
// content and HEAD in the store. None
// outside git, and none before the histories of the current HEAD are read:
// the request never waits for the log, it asks the analysis to read it.
func (e *Engine) ladderHistories(ctx context.Context, chunks []ctxd.Chunk, sums contentSums, diff *tree.Diff) map[string]*tree.LineHistory {
	var dirty []workspace.LineHistoryKey
	var lh *tree.LineHistories
	out := map[string]*tree.LineHistory{}
	n := 0
	for i := range chunks {
		c := &chunks[i]
		f := &c.Facts
		if !focusable(c) || c.Tokens < focusMinTokens {
			continue
		}
		cs := sums.of(c)
		if cs == nil {
			continue
		}
		if lh == nil {
			head := e.ws.Head()
			if head == "" {
				return nil
			}
			if lh = e.ws.CachedLineHistories(head); lh == nil {
				e.bg.Kick()
				return nil
			}
		}
		if f.Dirty {
			if h, ok := lh.WithPatch(c.Source, diff); ok {
				if h != nil {
					out[c.Source] = h
				}
			} else {
				dirty = append(dirty, workspace.LineHistoryKey{Rel: c.Source, Content: cs.sum, Head: lh.Head})
			}
		} else if h := lh.Of(c.Source); h != nil {
			out[c.Source] = h
		}
		if n++; n == focusLadderFiles {
			break
		}
	}
	if len(dirty) == 0 {
		return out
	}
	got := e.store.LineHistories(dirty, func(missing []workspace.LineHistoryKey) (map[workspace.LineHistoryKey]*tree.LineHistory, bool) {
		rels := make([]string, len(missing))
		for k, m := range missing {
			rels[k] = m.Rel
		}
		hs, err := e.ws.DirtyLineHistories(ctx, lh, rels)
		if err != nil {
			e.log.Debug("line history unavailable", "error", err)
			return nil, false
		}
		res := make(map[workspace.LineHistoryKey]*tree.LineHistory, len(hs))
		for _, m := range missing {
			if h := hs[m.Rel]; h != nil {
				res[m] = h
			}
		}
		return res, true
	})
	for k, h := range got {
		if h != nil {
			out[k.Rel] = h
		}
	}
	return out
}

// ReadLineHistories reads the line histories of the workspace's HEAD
// (what the daemon's background analysis does once per HEAD), so that the
// requests after it rank by them; eval recall calls it before each
// replayed commit's requests.
func (e *Engine) ReadLineHistories(ctx context.Context) error {
	_, err := e.ws.ReadLineHistories(ctx)
	return err
}

// byHistory adds to ranked (candidates of cs ranked by the request's
// words, best first) those of among (nil: all of cs; the runs of long
// functions left out) the words did not rank that the
// file's k-th newest change (h) touched, for k at most histAddRanks, at
// histAdd/k of the best score (of 1 when the words rank none: the
// touched definitions are then the file's only ladder), unless that
// change touched more than histAddMax of them; each definition, ranked or
// added, that a change touched has "changed:k" among its reasons (k the
// newest).
func byHistory(ranked []tree.DefScore, cs focusCands, among []int, h *tree.LineHistory) []tree.DefScore {
	if h == nil {
		return ranked
	}
	// When the words rank nothing (a request of fewer than two focus
	// terms in the file), the definitions the file's newest changes
	// touched are its only ladder, scored against a best of 1.
	best := 1.0
	if len(ranked) > 0 {
		best = ranked[0].Score
	}
	added := 0
	for n := 1; n <= histAddRanks; n++ {
		var touched []int
		for i, c := range cs {
			if among != nil && !slices.Contains(among, i) || c.long != 0 || slices.ContainsFunc(ranked, func(r tree.DefScore) bool { return r.Index == i }) {
				continue
			}
			if h.Newest(c.span.Start, c.span.End) == n {
				touched = append(touched, i)
			}
		}
		if added+len(touched) > histAddMax {
			continue
		}
		for _, i := range touched {
			ranked = append(ranked, tree.DefScore{Index: i, Score: best * histAdd / float64(n)})
			added++
		}
	}
	for k := range ranked {
		r := &ranked[k]
		if r.Index < 0 || r.Index >= len(cs) {
			continue
		}
		if n := h.Newest(cs[r.Index].span.Start, cs[r.Index].span.End); n > 0 {
			r.Terms = append(slices.Clip(r.Terms), "changed:"+strconv.Itoa(n))
		}
	}
	if added == 0 {
		return ranked
	}
	return tree.SortDefScores(ranked)
}
