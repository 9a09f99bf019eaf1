// Package compress fits scored context chunks into a token budget. It is
// the context fitter only: conversation compaction lives in compact/.
//
// Fit allocates the budget: the best chunks are first placed at a cheap
// view (whole when small, structural outline or signatures, or a short
// head-and-tail cut for text), then upgraded by value per token (a view is
// worth the share of its file it shows, the file whole most); the rest
// fill what is left; what cannot fit is skipped with a reason. The budget
// is never exceeded, as counted by the real tokenizer on each chunk
// exactly as the prompt renders it.
package compress

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/par"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/tokens"
)

// DefaultMinPartial is the smallest space, in tokens, worth filling with a
// partial view of a chunk; below it the rest of the chunks are skipped.
const DefaultMinPartial = 48

// View is a reduced rendering of a chunk's content, at a named level.
type View struct {
	Level  ctxd.View // ctxd.ViewBodies, ViewSignatures, ViewOutline
	Text   string
	Elided []ctxd.LineRange
}

// ViewsFunc returns a chunk's structural views, largest first, or nil when
// the chunk has none (not code, unsupported language, does not parse).
type ViewsFunc func(ctx context.Context, c *ctxd.Chunk) []View

// Options configure Fit.
type Options struct {
	// Budget is the context budget in tokens.
	Budget int
	// Counter counts tokens (the model's encoding).
	Counter tokens.Counter
	// Render returns a chunk as the prompt shows it (headers and fences
	// included); its count is the chunk's cost. Nil counts the content.
	Render func(ctxd.Chunk) string
	// AppendRender, when set, appends what Render returns to a buffer:
	// the fitter renders every candidate view only to count it, so it
	// counts them in a buffer it reuses instead of a new string each.
	// Counter must then not keep the texts it counts (tokens' counters
	// keep hashes and copies only).
	AppendRender func(dst []byte, c ctxd.Chunk) []byte
	// Views supplies structural views for code; nil means head-and-tail
	// only.
	Views ViewsFunc
	// MinPartial is the smallest space worth a partial view
	// (DefaultMinPartial when 0).
	MinPartial int
	// Task is the request's task type: outside test tasks, a test file's
	// larger views are worth half as much in the upgrade pass (see weight).
	Task ctxd.TaskType
	// Values are the fitter's value constants (DefaultValues when nil).
	// Fit copies them when it starts.
	Values *Values

	// greedy switches allocate off: TestFitAllocatesByTotalValue checks
	// that its cases need it (the greedy order alone hides their line).
	greedy bool
}

// Allocation shares: the presence pass spends at most presenceShare of the
// first presenceFirst tokens of the budget and presenceRest of the rest
// (presenceBudget), and at most Values.PresenceCap of the budget on any one
// chunk, and looks at the best presenceChunks chunks.
// A chunk of up to presenceWhole tokens is placed whole in that pass; a
// larger one at its smallest structural view, or a head-and-tail cut of
// presenceWhole tokens.
const (
	presenceShare  = 0.5
	presenceFirst  = 4000
	presenceRest   = 0.25
	presenceChunks = 12
	presenceWhole  = 400
	// presencePer is the mean cost the presence pass plans for per chunk:
	// a larger budget makes more chunks present (presenceBudget /
	// presencePer, at least presenceChunks).
	presencePer = 250
	// Past the best Values.PresenceFull chunks, the presence pass places a
	// presence line of at most presenceLine tokens (the path and the
	// start of the outline, see line): on the development set's commits
	// (eval recall --dump, 8k, gin, httpx, vite, fastapi) the files ranked
	// 4th-12th took 1,280 tokens of a 4,000-token context as small files
	// whole, outlines and cuts, and were an answer in 35 of 1,039 such
	// placements, while the best files' functions the task changes stayed
	// collapsed. Whether one of them is worth more
	// than its line is the upgrade pass's choice, by value per token.
	// A file the request names (Facts.Mentioned) is placed as the best
	// ones are, at its cheap view: the user asked to see it.
	presenceLine = 64
)

// RoomyBudget is the context budget from which the presence pass plans
// for its best presenceChunks chunks by room (presenceBudget(b) /
// presencePer reaches presenceChunks; above it, more chunks): 8,000
// tokens with the shares above. Below it a file that gathering adds takes
// the place of one its own signal ranked, so package gather's rules that
// widen or narrow gathering for room (fused files, the cap on tests)
// apply from it.
const RoomyBudget = presenceFirst + int((presenceChunks*presencePer-presenceShare*presenceFirst)/presenceRest)

// presenceBudget is what the presence pass may spend of left tokens. Half
// of a small budget: a file that is not there at all cannot be asked
// about. Of a larger one, a quarter of what is above presenceFirst: the
// chance that a file is the one the task needs falls fast with its rank
// (on the development set's commits the first file held an answer 53% of
// the time, the tenth 3%, each after the twentieth under 1%), so at 32k
// half the budget on outlines of thirty files left the best files at
// bodies and focus views that hid their changed lines.
func (v *Values) presenceBudget(left int) int {
	first := min(left, presenceFirst)
	return int(v.PresenceScale * (presenceShare*float64(first) + presenceRest*float64(left-first)))
}

// Fit fits cs, which must be sorted by score (highest first), into the
// budget. It allocates instead of filling greedily:
//
//  0. critical chunks (open files, error locations) are placed first at
//     a cheap view, without the presence pass's limits;
//  1. presence: the best chunks are placed first at a cheap view (whole
//     when small, else their smallest structural view, else a short
//     head-and-tail cut; past the best PresenceFull, a presence line),
//     within presenceBudget, so one large file cannot starve the ones
//     after it;
//  2. allocate: every chunk's view is chosen at once, the one
//     combination of views worth the most (weight times quality, summed)
//     that fits, a presence placement its floor; then upgrade: the
//     space the table's rounding leaves goes, one step at a time, to the larger
//     view (whole included) with the most value gained per token, value
//     being the chunk's weight times the quality the view adds (qualityAt);
//     then a lookahead (swap) shows a larger view of a better chunk that
//     no longer fits by putting chunks ranked below it back to smaller
//     views or their presence lines, when that gains more value than they
//     lose;
//  3. the rest are placed as space allows, largest view first.
//
// Included chunks keep score order and get Tokens set to their rendered
// cost, and Truncated, Truncation and Elided when reduced. The sum of
// included Tokens is TokensUsed, which never exceeds opts.Budget. A view
// with no text is never included. Skipped chunks keep their score
// breakdown and say how many tokens they would have needed.
func Fit(ctx context.Context, cs []ctxd.Chunk, opts Options) (ctxd.CompressedContext, error) {
	if opts.Counter == nil {
		return ctxd.CompressedContext{}, fmt.Errorf("fit: no token counter")
	}
	if opts.MinPartial <= 0 {
		opts.MinPartial = DefaultMinPartial
	}
	out := ctxd.CompressedContext{Budget: max(opts.Budget, 0), Chunks: []ctxd.Chunk{}, Skipped: []ctxd.Skipped{}}
	f := fitter{opts: opts, v: DefaultValues(), memo: make([]chunkMemo, len(cs))}
	if opts.Values != nil {
		f.v = *opts.Values
	}
	placed := make([]*ctxd.Chunk, len(cs))
	used := 0
	if err := f.prepare(ctx, cs); err != nil {
		return out, fmt.Errorf("fit chunks: %w", err)
	}

	// 0. Critical chunks (open files, error locations: what the user
	// pointed at) are all placed first at a cheap view, without the
	// presence share's limits; the upgrade pass grows them first.
	// The first of them with a focus (the innermost stack frame's file,
	// the file at the cursor or selection) may take focusShare of the
	// budget at a view that keeps the focused functions whole: the
	// structural views keep them, the outline does not.
	focusDone := false
	for i := range cs {
		if cs[i].Priority < ctxd.PriorityCritical {
			continue
		}
		if !focusDone && hasFocus(cs[i]) {
			focusDone = true
			if got, ok := f.focus(ctx, i, cs[i], min(int(focusShare*float64(out.Budget)), out.Budget-used)); ok {
				placed[i] = &got
				used += got.Tokens
				continue
			}
		}
		if got, ok := f.cheap(ctx, i, cs[i], out.Budget-used); ok {
			placed[i] = &got
			used += got.Tokens
		}
	}
	// Then, before any other chunk is placed, they grow to the largest
	// structural view (bodies at most) that fits: their code is the task.
	for i := range cs {
		if placed[i] == nil || !placed[i].Truncated || cs[i].Priority < ctxd.PriorityCritical {
			continue
		}
		room := out.Budget - used + placed[i].Tokens
		for j, v := range f.viewsOf(ctx, i, &cs[i]) {
			if v.Level == placed[i].Truncation {
				break
			}
			if got := f.viewAt(i, j, cs[i], v, placed[i].OriginalTokens); got.Tokens <= room && got.Tokens > placed[i].Tokens {
				used += got.Tokens - placed[i].Tokens
				placed[i] = &got
				break
			}
		}
	}
	// 1. Presence.
	share := used + f.v.presenceBudget(out.Budget-used)
	limit := max(int(f.v.PresenceCap*float64(out.Budget)), opts.MinPartial)
	n := max(presenceChunks, f.v.presenceBudget(out.Budget-used)/presencePer)
	for i := range cs[:min(len(cs), n)] {
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("fit chunks: %w", err)
		}
		if placed[i] != nil {
			continue
		}
		room := min(share-used, limit, out.Budget-used)
		if room < opts.MinPartial {
			break
		}
		if float64(i) >= f.v.PresenceFull && !cs[i].Facts.Mentioned {
			if got, ok := f.lineIn(ctx, i, cs[i], room); ok {
				placed[i] = &got
				used += got.Tokens
				continue
			}
		}
		if got, ok := f.cheap(ctx, i, cs[i], room); ok {
			placed[i] = &got
			used += got.Tokens
		}
	}
	// 2. Upgrade by value per token: among every chunk's larger views
	// (absent chunks included), take the one with the most value gained
	// per token spent that fits, until none does.
	if !opts.greedy {
		used = f.allocate(ctx, cs, placed, used, out.Budget)
	}
	used = f.upgrade(ctx, cs, placed, used, out.Budget)
	used = f.swap(ctx, cs, placed, used, out.Budget)
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("fit chunks: %w", err)
	}
	// 3. The rest.
	for i := range cs {
		if placed[i] != nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("fit chunks: %w", err)
		}
		got, reason := f.place(ctx, i, cs[i], out.Budget-used)
		if reason != "" {
			c := &cs[i]
			out.Skipped = append(out.Skipped, ctxd.Skipped{Source: c.Source, Reason: reason, Tokens: c.Tokens, Score: c.Score, ScoreBreakdown: c.ScoreBreakdown})
			continue
		}
		placed[i] = &got
		used += got.Tokens
	}
	for _, p := range placed {
		if p != nil {
			out.Chunks = append(out.Chunks, *p)
			out.TokensUsed += p.Tokens
		}
	}
	if out.Budget > 0 {
		out.Utilization = float64(out.TokensUsed) / float64(out.Budget)
	}
	return out, nil
}

// viewQuality is the quality of a structural view (not the outline) that
// shows shown of its file's whole tokens.
func (v *Values) viewQuality(shown, whole int) float64 {
	if whole <= 0 {
		return v.ViewBase
	}
	return v.ViewBase + v.ViewShown*min(1, float64(shown)/float64(whole))
}

// quality is qualityAt for this fit's budget: a focus view's share is
// taken of at most FocusShareOf times the budget.
func (f *fitter) quality(c *ctxd.Chunk) float64 {
	return f.v.qualityAt(c, int(f.v.FocusShareOf*float64(max(f.opts.Budget, 1))))
}

// mayPutBack reports a placement p of chunk c that the lookahead (swap,
// allocate) may take back to its presence line to free tokens: larger
// than a presence line, not critical, not a file the request names.
func mayPutBack(c *ctxd.Chunk, p *ctxd.Chunk) bool {
	return p != nil && p.Tokens > presenceLine && c.Priority < ctxd.PriorityCritical && !c.Facts.Mentioned
}

// qualityAt returns the share of its chunk's value a placement carries (0
// for none), a focus view's share of its file taken of at most focusWhole
// tokens (no bound when 0).
func (v *Values) qualityAt(c *ctxd.Chunk, focusWhole int) float64 {
	switch {
	case c == nil:
		return 0
	case !c.Truncated:
		// The whole file shows every definition: the global term
		// (globalShown) raises it as it raises the views, so the step
		// from a focus view to the whole file keeps its gain.
		return v.Whole + v.GlobalMore*v.globalShown(c)
	case c.Truncation == ctxd.ViewMiddle:
		if c.OriginalTokens <= 0 {
			return v.MiddleBase
		}
		return v.MiddleBase + v.MiddleShown*min(1, float64(c.Tokens)/float64(c.OriginalTokens))
	case c.Truncation == ctxd.ViewOutline:
		return v.Outline * refShown(c)
	}
	whole := c.OriginalTokens
	if focusWhole > 0 && (c.Truncation == ctxd.ViewFocus || c.Truncation == ctxd.ViewFocusOnly) {
		whole = min(whole, focusWhole)
	}
	q := v.viewQuality(c.Tokens, whole) + v.FocusMore*focusShown(c)
	if (c.Truncation == ctxd.ViewFocus || c.Truncation == ctxd.ViewFocusOnly) && focusNone(c) {
		// The named definitions alone (engine's smallest focus view),
		// without a function the focus lines chose.
		q -= v.FocusMore
	}
	q += v.GlobalMore * v.globalShown(c)
	return q * refShown(c)
}

// globalShown is the chance, by the focus definitions' global scores
// (engine's DefScore.Global: each one's score among every looked-into
// file's definitions over the request's best), that the view shows the
// definition the task needs: GlobalOdds times the best Global of those
// whose body it shows. A view's share of its file and its own file's
// scores (focusShown) do not know how good its functions are beside
// other files': the file whose function matches the request best was
// left at its outline while its budget went to other files' presence
// (BENCHMARKS.md "hglob": 19 answer files at an outline held their
// changed function in their best 3). The best one, not a product over
// all: thirteen weak definitions of a file are not one strong one (gin's
// gin.go, 13 at 0.42, then outvalued its signatures view). Views whose
// focus definitions carry no Global gain nothing.
func (v *Values) globalShown(c *ctxd.Chunk) float64 {
	best := 0.0
	for _, d := range c.Facts.FocusDefs {
		if d.Global > best && !ctxd.InRanges(c.Elided, d.Line) && !ctxd.InRanges(c.Elided, d.Line+1) {
			best = d.Global
		}
	}
	return v.GlobalOdds * min(best, 1)
}

// refShown scales a view's quality by the share of the chunk's reference
// lines (the uses of a name a rename or a "where is it used" question is
// about) it shows: a view without them is worth half as much, so the
// upgrade pass prefers the views that show the uses in place.
func refShown(c *ctxd.Chunk) float64 {
	n := len(c.Facts.RefLines)
	if n == 0 {
		return 1
	}
	shown := 0
	for _, l := range c.Facts.RefLines {
		if !ctxd.InRanges(c.Elided, l) {
			shown++
		}
	}
	return 0.5 + 0.5*float64(shown)/float64(n)
}

// focusShown is the part of the focus lines after the first that a focus
// view shows the functions of (0 for the best function alone, 1 for all),
// each focus line weighing its definition's score (Facts.FocusDefs; a
// line without one, such as a helper a focused test uses, weighs the
// least score, and all weigh alike when none has one). Without it the
// view of the best function alone was worth as much as the one with the
// best three, and a file the request is about (the test file a test is to
// be added to) never grew past its one function while weaker files were
// upgraded whole; with the scores, a step of the focus ladder (engine's
// views keeping the best 1, 2, 3, 5, 8 functions whole) is worth what its
// added functions match of the request. A view without focus lines (a
// cursor's, an error's) gains nothing.
func focusShown(c *ctxd.Chunk) float64 {
	fl := c.Facts.FocusLines
	if len(fl) < 2 {
		return 0
	}
	least := 0.0
	for _, d := range c.Facts.FocusDefs {
		if d.Score > 0 && (least == 0 || d.Score < least) {
			least = d.Score
		}
	}
	weight := func(k int) float64 {
		if k < len(c.Facts.FocusDefs) && c.Facts.FocusDefs[k].Line == fl[k] && c.Facts.FocusDefs[k].Score > 0 {
			return c.Facts.FocusDefs[k].Score
		}
		return max(least, 1)
	}
	total, shown := 0.0, 0.0
	for k, l := range fl {
		w := weight(k)
		total += w
		if focusLineShown(c, l) {
			shown += w
		}
	}
	first := weight(0)
	if total <= first {
		return 0
	}
	return max(shown-first, 0) / (total - first)
}

// focusLinesShown counts c's focus lines outside its elided ranges, and
// its focus lines.
func focusLinesShown(c *ctxd.Chunk) (shown, n int) {
	for _, l := range c.Facts.FocusLines {
		if focusLineShown(c, l) {
			shown++
		}
	}
	return shown, len(c.Facts.FocusLines)
}

// focusLineShown reports c showing the function whose first line is the
// focus line l: l is outside its elided ranges and, when l is also a
// match line (Facts.MatchLines, which every view but the outline shows
// alone, in place), so is the line after it. A definition's first line
// holding a request identifier shown alone, its body elided, counted as
// the function shown: a focus view of a few such lines was worth as much
// as the one with the functions whole (BENCHMARKS.md "h25small").
func focusLineShown(c *ctxd.Chunk, l int) bool {
	return !ctxd.InRanges(c.Elided, l) && (!slices.Contains(c.Facts.MatchLines, l) || !ctxd.InRanges(c.Elided, l+1))
}

// dropsFocus reports an upgrade from cur to o that would hide a focus
// line's function cur shows: the focus ladder's views keep the best k
// functions in the outline, the focus-only views them alone, and a
// larger view of fewer functions (the outline's lines outweigh a
// function's) would hide a function the request matches to show the
// file's list of names.
func dropsFocus(cur, o *ctxd.Chunk) bool {
	if cur == nil || len(o.Facts.FocusLines) == 0 || !o.Truncated || cur.Truncation != ctxd.ViewFocus && cur.Truncation != ctxd.ViewFocusOnly {
		// Only a focus view chose the functions it shows: a head and a
		// tail or a bodies view shows them by chance.
		return false
	}
	for _, l := range o.Facts.FocusLines {
		if !focusLineShown(o, l) && focusLineShown(cur, l) {
			return true
		}
	}
	return false
}

// focusNone reports a focus view with focus lines that shows none of
// their functions: worth less than the view of the best one, or the
// upgrade pass had no reason to grow a file from its named type (Client)
// to the function that answers (redirectBehavior).
func focusNone(c *ctxd.Chunk) bool {
	shown, n := focusLinesShown(c)
	return n > 0 && shown == 0
}

// weight is the value of the chunk at rank i (0-based, by score): its
// score (at least 1) over its rank, times answerOdds. The score alone
// barely separates the first files (1,500 against 1,200), while the first
// is far more often the one the task needs; dividing by the rank makes
// the upgrade pass deepen the best files before it widens the context
// with cheap views of the rest.
//
// Outside test tasks a test file's weight is halved: its upgrades (every
// test's title and body) then come after the source files' of similar
// rank, whose code the task is about.
//
// It depends only on the chunk and its rank, so it is computed once per
// chunk: the upgrade and swap passes ask for it on every step.
func (f *fitter) weight(c *ctxd.Chunk, i int) float64 {
	m := &f.memo[i]
	if m.weightDone {
		return m.weight
	}
	w := max(c.Score, 1) / f.v.rankDiv(i) * f.v.answerOdds(c)
	if c.Facts.Test && f.opts.Task != ctxd.TaskTest {
		w *= f.v.TestWeight
	}
	m.weight, m.weightDone = w, true
	return w
}

// answerOdds corrects score / (rank+1) towards the odds that the chunk
// is a file the task changes: exp of a sum over its score terms, each
// point of a term counting as answerTerms says, times its size in tokens
// to the power Values.OddsTokens. It is a conditional logit fit on the
// development set's commits (eval recall --dump, 100 commits each of
// gin, cli, requests, httpx, express, vite and fastapi at 8k: every
// candidate file's score terms against whether the commit changed it,
// the old weight's log as a fixed offset; BENCHMARKS.md, "h25rank
// (2026-11-29 21:28"). Left out of the fit, each repository's answers
// were better predicted than by score / (rank+1): held-out
// log-likelihood per answer -1.49 against -1.66 on the mean. What it
// says: a point of lexical relevance or co-change predicts an answer
// better than a point of lexical rank, graph rank or priority (the
// priority base of a lexical match is high because it matched, which
// relevance says already), and a large file holds more of the changes
// than a small one. A critical chunk's priority (an open file, an error
// location) is the user's pointing, not the gatherer's guess: it is not
// corrected. A chunk without score terms or size keeps its old weight.
func (v *Values) answerOdds(c *ctxd.Chunk) float64 {
	x := v.OddsTokens * math.Log(float64(max(c.Tokens, 1)))
	for _, t := range c.ScoreBreakdown {
		if t.Term == ctxd.TermPriority && c.Priority >= ctxd.PriorityCritical {
			continue
		}
		x += answerTerms[t.Term] * t.Value
	}
	return math.Exp(v.OddsPow * x)
}

// answerTerms holds answerOdds's coefficients per point of each score
// term (written per the term's full scale); Values.OddsTokens is the log
// of the size's. Nothing writes it.
var answerTerms = map[string]float64{
	ctxd.TermRelevance: 0.556 / 100,
	ctxd.TermRank:      0.083 / 300,
	ctxd.TermCoChange:  0.399 / 150,
	ctxd.TermGraph:     -0.252 / 150,
	ctxd.TermMention:   0.181 / 100,
	ctxd.TermRecency:   0.086 / 100,
	ctxd.TermSize:      -0.164 / 100,
	ctxd.TermPriority:  -0.298 / 100,
}

// upgrade spends the budget left on the chunks' larger views in order of
// value per token: repeatedly, of every chunk's views larger than its
// placement (whole included; an absent chunk has none), it takes the one
// whose gain, weight × (quality − quality now), per token added is
// highest and that fits. It returns the tokens used.
func (f *fitter) upgrade(ctx context.Context, cs []ctxd.Chunk, placed []*ctxd.Chunk, used, budget int) int {
	for ctx.Err() == nil {
		left := budget - used
		bi, best := -1, 0.0
		var pick ctxd.Chunk
		for i := range cs {
			cur := placed[i]
			q, have := f.quality(cur), 0
			if cur != nil {
				if !cur.Truncated {
					continue
				}
				have = cur.Tokens
			}
			if cur == nil && f.smallest(ctx, i, &cs[i]) > left {
				continue
			}
			w := f.weight(&cs[i], i)
			for _, o := range f.options(ctx, i, &cs[i]) {
				d := o.Tokens - have
				if d <= 0 || d > left || dropsFocus(cur, &o) {
					continue
				}
				g := w * (f.quality(&o) - q)
				if r := g / float64(d); g > 0 && r > best {
					bi, best, pick = i, r, o
				}
			}
		}
		if bi < 0 {
			return used
		}
		if placed[bi] != nil {
			used -= placed[bi].Tokens
		}
		p := pick
		placed[bi] = &p
		used += p.Tokens
	}
	return used
}

// swapRounds bounds the exchanges swap makes in one Fit.
const swapRounds = 8

// swap is the upgrade pass's lookahead: a greedy by value per token
// starves a lump, a file whose next step is large (its best function alone
// a thousand tokens) once cheaper steps of files ranked below it have
// taken the budget, though the lump is worth more than all of them. For
// each of the best presenceChunks chunks and each larger view of it that
// does not fit, swap frees the tokens missing from chunks ranked below
// it, those losing the least value per token freed first: each back to
// its presence line, or each to whichever smaller view it has (computed
// already) loses the least per token (a small file from whole to its
// bodies), the better of the two; it makes the exchange that gains the most value net
// (the view's gain over what the others lose), when one gains any, then
// lets upgrade spend what is left, and again, at most swapRounds times.
// Each exchange raises the allocation's total value, so none is undone.
// Critical chunks and files the request names are never put back, and no chunk's own view is
// exchanged for one that hides a function it shows (dropsFocus). It
// returns the tokens used, never over budget.
func (f *fitter) swap(ctx context.Context, cs []ctxd.Chunk, placed []*ctxd.Chunk, used, budget int) int {
	type down struct {
		j     int
		to    ctxd.Chunk
		loss  float64
		freed int
	}
	// The ways to free chunk j's tokens, the same for every chunk above
	// it within a round (placed changes only between rounds): computed
	// on first use in a round.
	type downs struct {
		line, fine down
		ok, done   bool
	}
	downsOf := func(j int) (line, fine down, ok bool) {
		p := placed[j]
		if !mayPutBack(&cs[j], p) {
			// A chunk at a presence line's size or less has nothing
			// worth freeing.
			return line, fine, false
		}
		wj, qj := f.weight(&cs[j], j), f.quality(p)
		to, ok := f.presenceLine(ctx, j, cs[j])
		if !ok || to.Tokens >= p.Tokens {
			return line, fine, false
		}
		ln := down{j, to, wj * max(qj-f.quality(&to), 0), p.Tokens - to.Tokens}
		best := ln
		for _, o := range f.memo[j].choices {
			if o.Tokens >= p.Tokens || o.Tokens <= to.Tokens {
				continue
			}
			dn := down{j, o, wj * max(qj-f.quality(&o), 0), p.Tokens - o.Tokens}
			if dn.loss*float64(best.freed) < best.loss*float64(dn.freed) {
				best = dn
			}
		}
		return ln, best, true
	}
	round := make([]downs, len(cs))
	for range swapRounds {
		if ctx.Err() != nil {
			return used
		}
		left := budget - used
		bi, bestNet := -1, 0.0
		var bestView ctxd.Chunk
		var bestDowns []down
		clear(round)
		for i := range cs[:min(len(cs), presenceChunks)] {
			cur := placed[i]
			if cur == nil || !cur.Truncated {
				continue
			}
			// Two ways to free tokens: each chunk below back to its
			// presence line, or to whichever smaller view it has loses
			// the least value per token freed (a small file from whole
			// to its bodies, a ladder step down).
			var lines, fine []down
			for j := i + 1; j < len(cs); j++ {
				d := &round[j]
				if !d.done {
					d.line, d.fine, d.ok = downsOf(j)
					d.done = true
				}
				if d.ok {
					lines = append(lines, d.line)
					fine = append(fine, d.fine)
				}
			}
			if len(lines) == 0 {
				continue
			}
			byRatio := func(a, b down) int {
				return cmp.Compare(a.loss/float64(a.freed), b.loss/float64(b.freed))
			}
			slices.SortStableFunc(lines, byRatio)
			slices.SortStableFunc(fine, byRatio)
			q, w := f.quality(cur), f.weight(&cs[i], i)
			for _, o := range f.options(ctx, i, &cs[i]) {
				d := o.Tokens - cur.Tokens
				if d <= left || dropsFocus(cur, &o) {
					continue
				}
				g := w * (f.quality(&o) - q)
				if g <= bestNet {
					continue
				}
				for _, downs := range [][]down{fine, lines} {
					need, freed, loss, k := d-left, 0, 0.0, 0
					for ; freed < need && k < len(downs); k++ {
						freed += downs[k].freed
						loss += downs[k].loss
					}
					if freed < need {
						continue
					}
					if net := g - loss; net > bestNet {
						bi, bestNet, bestView, bestDowns = i, net, o, slices.Clone(downs[:k])
					}
				}
			}
		}
		if bi < 0 {
			return used
		}
		for _, dn := range bestDowns {
			used -= placed[dn.j].Tokens - dn.to.Tokens
			to := dn.to
			placed[dn.j] = &to
		}
		used += bestView.Tokens - placed[bi].Tokens
		placed[bi] = &bestView
		used = f.upgrade(ctx, cs, placed, used, budget)
	}
	return used
}

// presenceLine returns chunk i's presence line (see line), computed once.
func (f *fitter) presenceLine(ctx context.Context, i int, c ctxd.Chunk) (ctxd.Chunk, bool) {
	m := &f.memo[i]
	if !m.lineDone {
		m.line, m.lineOK = f.line(ctx, i, c, presenceLine)
		m.lineDone = true
	}
	return m.line, m.lineOK
}

// lineIn returns chunk i's presence line in min(room, presenceLine)
// tokens: the one presenceLine keeps when room allows a whole line (the
// lookahead asks for it again), else one cut to room.
func (f *fitter) lineIn(ctx context.Context, i int, c ctxd.Chunk, room int) (ctxd.Chunk, bool) {
	if room >= presenceLine {
		return f.presenceLine(ctx, i, c)
	}
	return f.line(ctx, i, c, room)
}

// options returns chunk i whole and at each structural view, with Tokens
// set to each one's rendered cost, computed once.
func (f *fitter) options(ctx context.Context, i int, c *ctxd.Chunk) []ctxd.Chunk {
	m := &f.memo[i]
	if m.choices != nil {
		return m.choices
	}
	whole := *c
	whole.Tokens = f.wholeCost(i, whole)
	cs := []ctxd.Chunk{whole}
	for j, v := range f.viewsOf(ctx, i, c) {
		cs = append(cs, f.viewAt(i, j, *c, v, whole.Tokens))
	}
	m.choices = cs
	return cs
}

// smallest returns the cost of chunk i's cheapest option.
func (f *fitter) smallest(ctx context.Context, i int, c *ctxd.Chunk) int {
	n := -1
	for _, o := range f.options(ctx, i, c) {
		if n < 0 || o.Tokens < n {
			n = o.Tokens
		}
	}
	return n
}

// cheap returns chunk i at the cheapest useful view that fits in room:
// whole when it fits, else its smallest non-empty structural view, else a
// head-and-tail cut of room tokens.
func (f *fitter) cheap(ctx context.Context, i int, c ctxd.Chunk, room int) (ctxd.Chunk, bool) {
	whole := f.wholeCost(i, c)
	if whole <= min(room, presenceWhole) {
		c.Tokens = whole
		return c, true
	}
	if vs := f.viewsOf(ctx, i, &c); len(vs) > 0 {
		if len(c.Facts.RefLines) > 0 {
			// The smallest view that shows every use the request asks
			// about, when it fits: an outline without them answers
			// nothing.
			for j := len(vs) - 1; j >= 0; j-- {
				if r := f.viewAt(i, j, c, vs[j], whole); r.Tokens <= room && refShown(&r) == 1 {
					return r, true
				}
			}
		}
		// The smallest view; larger ones cost more.
		if r := f.viewAt(i, len(vs)-1, c, vs[len(vs)-1], whole); r.Tokens <= room {
			return r, true
		}
		if r, ok := f.cutOutline(c, vs[len(vs)-1], whole, min(room, presenceWhole)); ok {
			return r, true
		}
	}
	return f.middle(c, whole, min(room, presenceWhole))
}

// line returns chunk i as a presence line in room tokens: whole when that
// small, else its outline cut to the definitions that match the request
// and as many first ones as fit (the file's path and a line or two of
// what it defines), else a head and a tail of room tokens. A chunk with
// reference lines (the uses a rename or usages request is about) is
// placed as cheap places it: a line without the uses answers nothing.
func (f *fitter) line(ctx context.Context, i int, c ctxd.Chunk, room int) (ctxd.Chunk, bool) {
	if len(c.Facts.RefLines) > 0 {
		return c, false
	}
	whole := f.wholeCost(i, c)
	if whole <= room {
		c.Tokens = whole
		return c, true
	}
	if vs := f.viewsOf(ctx, i, &c); len(vs) > 0 {
		if r := f.viewAt(i, len(vs)-1, c, vs[len(vs)-1], whole); r.Tokens <= room {
			return r, true
		}
		if r, ok := f.cutOutline(c, vs[len(vs)-1], whole, room); ok {
			return r, true
		}
	}
	return f.middle(c, whole, room)
}

// focusShare is the share of the budget the first focused critical chunk
// may take so that its focused functions show whole.
const focusShare = 0.75

// hasFocus reports a chunk whose lines the user or an error pointed at.
func hasFocus(c ctxd.Chunk) bool {
	return c.Facts.Cursor > 0 || c.Facts.Selection != nil || len(c.Facts.ErrorLines) > 0
}

// focus returns chunk i whole, or at its smallest structural view that
// keeps the focused functions (any but the outline), when that fits in
// room.
func (f *fitter) focus(ctx context.Context, i int, c ctxd.Chunk, room int) (ctxd.Chunk, bool) {
	whole := f.wholeCost(i, c)
	if whole <= room {
		c.Tokens = whole
		return c, true
	}
	vs := f.viewsOf(ctx, i, &c)
	for j := len(vs) - 1; j >= 0; j-- { // smallest first
		if vs[j].Level == ctxd.ViewOutline {
			continue
		}
		if r := f.viewAt(i, j, c, vs[j], whole); r.Tokens <= room {
			return r, true
		}
	}
	return c, false
}

// viewsOf returns chunk i's non-empty structural views, largest first,
// computed once.
func (f *fitter) viewsOf(ctx context.Context, i int, c *ctxd.Chunk) []View {
	if f.opts.Views == nil {
		return nil
	}
	m := &f.memo[i]
	if m.viewsDone {
		return m.views
	}
	var vs []View
	for _, v := range f.opts.Views(ctx, c) {
		if strings.TrimSpace(v.Text) != "" {
			vs = append(vs, v)
		}
	}
	m.views, m.viewsDone = vs, true
	return vs
}

type fitter struct {
	opts Options
	v    Values      // opts.Values, or DefaultValues
	memo []chunkMemo // by chunk index
}

// chunkMemo is what the fitter computed once of one chunk. Only the work
// on its chunk writes it (prepare runs chunks at once).
type chunkMemo struct {
	views      []View // see viewsOf
	viewsDone  bool
	choices    []ctxd.Chunk // see options; nil until computed
	whole      int          // see wholeCost
	wholeDone  bool
	at         []ctxd.Chunk // by view index, see viewAt
	atDone     []bool
	primed     bool       // see viewAt
	line       ctxd.Chunk // see presenceLine
	lineOK     bool
	lineDone   bool
	weight     float64 // see weight
	weightDone bool
}

// prepare computes, on all cores, the options (whole and each view,
// counted) of the chunks with structural views that are not small: the
// passes below ask for nearly all of them, one at a time, and they
// depend on nothing the passes decide. A small chunk (presenceWhole
// tokens or fewer whole) is mostly placed whole and needs no views; its
// cost is computed here. The result is the same as computing each on
// first use: only the time differs.
func (f *fitter) prepare(ctx context.Context, cs []ctxd.Chunk) error {
	if f.opts.Views == nil || len(cs) < 2 {
		return nil
	}
	// The largest first: one computed last would leave the other cores
	// idle meanwhile.
	order := make([]int, len(cs))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(cs[b].Content), len(cs[a].Content)) })
	return par.Each(ctx, len(order), func(k int) {
		i := order[k]
		if f.wholeCost(i, cs[i]) > presenceWhole {
			f.options(ctx, i, &cs[i])
		}
	})
}

// wholeCost returns chunk i's rendered cost whole, c being cs[i], counted
// once: the passes ask for it again and again.
func (f *fitter) wholeCost(i int, c ctxd.Chunk) int {
	m := &f.memo[i]
	if m.wholeDone {
		return m.whole
	}
	n := f.cost(c)
	m.whole, m.wholeDone = n, true
	return n
}

// viewAt returns chunk i at its view j, c being cs[i], v its view j
// and whole its wholeCost: Tokens set to its rendered cost, Truncated,
// Truncation, Elided and OriginalTokens to the view's; or chunk i whole
// when the view costs as much or more (a view is never chosen when it is
// not smaller than the whole file). It is rendered
// and counted once: the passes try a chunk's views again and again.
func (f *fitter) viewAt(i, j int, c ctxd.Chunk, v View, whole int) ctxd.Chunk {
	m := &f.memo[i]
	if j < len(m.atDone) && m.atDone[j] {
		return m.at[j]
	}
	r := c
	r.Content = v.Text
	r.Truncated, r.Truncation, r.Elided = true, v.Level, v.Elided
	r.OriginalTokens = whole
	// A view the counter has not counted (one keeping the functions the
	// request is about whole) is counted by blocks, most of them the
	// content's: the content's recorded block counts, put in the
	// counter's cache first (once per chunk), spare BPE over them.
	r.Tokens = f.count(r, func() {
		if !m.primed {
			m.primed = true
			tokens.Prime(f.opts.Counter, c.Content)
		}
	})
	if r.Tokens >= whole {
		// A view no smaller than the file (a file of short functions
		// whose "bodies" view adds elision markers) is the file whole:
		// it fits wherever the view fits and shows everything.
		r = c
		r.Tokens = whole
	}
	if j >= len(m.atDone) {
		m.at = append(m.at, make([]ctxd.Chunk, j+1-len(m.at))...)
		m.atDone = append(m.atDone, make([]bool, j+1-len(m.atDone))...)
	}
	m.at[j], m.atDone[j] = r, true
	return r
}

// render returns c as the prompt shows it (its content when no Render).
func (f *fitter) render(c ctxd.Chunk) string {
	if f.opts.Render == nil {
		return c.Content
	}
	return f.opts.Render(c)
}

func (f *fitter) cost(c ctxd.Chunk) int { return f.count(c, nil) }

// count returns the cost of c as the prompt shows it, calling miss (when
// not nil) before the counter runs its tokenizer (tokens.CountThen).
func (f *fitter) count(c ctxd.Chunk, miss func()) int {
	if f.opts.AppendRender == nil {
		return tokens.CountThen(f.opts.Counter, f.render(c), miss)
	}
	bp := renderBufs.Get().(*[]byte)
	b := f.opts.AppendRender((*bp)[:0], c)
	// Read only, and no longer than the count: the counter keeps no text.
	n := tokens.CountThen(f.opts.Counter, unsafe.String(unsafe.SliceData(b), len(b)), miss)
	if cap(b) <= maxRenderBuf {
		*bp = b
		renderBufs.Put(bp)
	}
	return n
}

// renderBufs holds the buffers count renders into (one per goroutine at
// a time: prepare counts chunks at once).
var renderBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxRenderBuf is the largest buffer kept for reuse; a larger rendering
// (a file of megabytes) gets its own.
const maxRenderBuf = 4 << 20

// place returns chunk i as it fits in left tokens at its largest view, or
// a reason to skip it.
func (f *fitter) place(ctx context.Context, i int, c ctxd.Chunk, left int) (ctxd.Chunk, string) {
	whole := f.wholeCost(i, c)
	if whole <= left {
		c.Tokens = whole
		return c, ""
	}
	if left < f.opts.MinPartial {
		return c, fmt.Sprintf("over budget: needs %d tokens, %d left", whole, left)
	}
	for j, v := range f.viewsOf(ctx, i, &c) {
		if r := f.viewAt(i, j, c, v, whole); r.Tokens <= left {
			return r, ""
		}
	}
	if vs := f.viewsOf(ctx, i, &c); len(vs) > 0 {
		if r, ok := f.cutOutline(c, vs[len(vs)-1], whole, left); ok {
			return r, ""
		}
	}
	if r, ok := f.middle(c, whole, left); ok {
		return r, ""
	}
	return c, fmt.Sprintf("over budget: needs %d tokens, %d left, and no partial view fits", whole, left)
}

// middle cuts the chunk's content to a head and a tail that fit, with the
// framing counted: it asks for the space left minus the framing's cost, and
// shrinks the request by the overshoot if token merges at the seams make
// the rendered whole slightly larger than its parts.
func (f *fitter) middle(c ctxd.Chunk, whole, left int) (ctxd.Chunk, bool) {
	return f.cut(c, whole, left, ctxd.ViewMiddle, nil)
}

// cut is middle labelled level; elided, when not nil, stands for the
// ranges the cut reports (the source lines an outline leaves out, say).
func (f *fitter) cut(c ctxd.Chunk, whole, left int, level ctxd.View, elided []ctxd.LineRange) (ctxd.Chunk, bool) {
	empty := c
	empty.Content = ""
	empty.Truncated, empty.Truncation = true, level
	frame := f.cost(empty)
	want := left - frame
	for attempt := 0; attempt < 4 && want >= f.opts.MinPartial/2; attempt++ {
		m := tokens.Middle(f.opts.Counter, c.Content, want, tokens.MiddleOptions{TailRatio: tailRatio(c), WholeLines: wholeLines(c)})
		// A cut of a file that shows no line, or only its imports and its
		// last line, is presence only: the header says as much for fewer
		// tokens.
		header := level == ctxd.ViewMiddle && c.ChunkType == ctxd.ChunkFile && m.Truncated && (m.Shown == 0 || fillerOnly(m.Text))
		if !header && (strings.TrimSpace(m.Text) == "" || m.Truncated && m.Shown == 0) {
			return c, false
		}
		r := c
		r.Content = m.Text
		r.Truncated, r.Truncation = true, level
		r.Elided = elided
		if elided == nil && m.Truncated && m.Elided.Start > 0 {
			r.Elided = []ctxd.LineRange{m.Elided}
		}
		if header {
			h := headerOnly(c)
			r.Content, r.Elided = h.Content, h.Elided
		}
		r.OriginalTokens = whole
		n := f.cost(r)
		if n <= left {
			r.Tokens = n
			return r, true
		}
		want -= n - left
	}
	return c, false
}

// cutOutline is the chunk's outline view v (its smallest) cut to a head
// and a tail that fit left tokens: for a file too large for even its
// outline, a part of the list of its definitions says more than a head
// and a tail of its source (the licence, the imports and a closing
// brace). It is an outline view: no source line is shown whole.
func (f *fitter) cutOutline(c ctxd.Chunk, v View, whole, left int) (ctxd.Chunk, bool) {
	if v.Level != ctxd.ViewOutline || left < f.opts.MinPartial {
		return c, false
	}
	o := c
	o.Content = v.Text
	if r, ok := f.cutOutlineKeeping(o, v, whole, left); ok {
		return r, true
	}
	return f.cut(o, whole, left, ctxd.ViewOutline, v.Elided)
}

// cutOutlineKeeping cuts the outline v of chunk c to the lines that match
// the request (a symbol it names, the definitions holding the cursor, a
// focus, error or reference line) and as many of the first lines as fit,
// each gap a one-line count: a head and a tail of the outline would hide
// the very definition asked about in the middle. It reports false when no
// line matches or the matching lines alone do not fit.
func (f *fitter) cutOutlineKeeping(c ctxd.Chunk, v View, whole, left int) (ctxd.Chunk, bool) {
	lines := strings.SplitAfter(strings.TrimSuffix(v.Text, "\n"), "\n")
	must := outlineMatches(c, lines)
	if len(must) == 0 {
		return c, false
	}
	build := func(head int) ctxd.Chunk {
		var b strings.Builder
		gap := 0
		flush := func() {
			if gap > 0 {
				fmt.Fprintf(&b, "... %s ...\n", ctxd.Plural(gap, "outline line", "outline lines"))
				gap = 0
			}
		}
		for i, l := range lines {
			if i < head || must[i] {
				flush()
				b.WriteString(l)
				if !strings.HasSuffix(l, "\n") {
					b.WriteByte('\n')
				}
				continue
			}
			gap++
		}
		flush()
		r := c
		r.Content = b.String()
		r.Truncated, r.Truncation = true, ctxd.ViewOutline
		r.Elided = v.Elided
		r.OriginalTokens = whole
		r.Tokens = f.cost(r)
		return r
	}
	best := build(0)
	if best.Tokens > left {
		return c, false
	}
	// The longest head that fits, by bisection (cost grows with head); an
	// outline line costs at least two tokens (its number and its name),
	// so no head of more than left/2 lines fits: a presence line of 64
	// tokens counts a few short heads, not halves of a long outline.
	lo, hi := 0, min(len(lines), left/2)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if r := build(mid); r.Tokens <= left {
			lo, best = mid, r
		} else {
			hi = mid - 1
		}
	}
	return best, true
}

// outlineMatches returns the indexes of the outline lines ("12: func
// Serve(...)", indented by depth) that match the request: a line whose
// signature names one of c's mentioned symbols, and the last definition
// starting at or before each of c's cursor, focus, error, reference and
// matching lines (the one holding it).
func outlineMatches(c ctxd.Chunk, lines []string) map[int]bool {
	must := map[int]bool{}
	starts := make([]int, len(lines))
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if j := strings.Index(t, ": "); j > 0 {
			if n, err := strconv.Atoi(t[:j]); err == nil {
				starts[i] = n
			}
			t = t[j+2:]
		}
		for _, s := range c.Facts.MentionedSymbols {
			if k := strings.LastIndexByte(s, '.'); k >= 0 {
				s = s[k+1:]
			}
			if query.NameIndex(t, s) >= 0 {
				must[i] = true
			}
		}
	}
	at := slices.Concat([]int{c.Facts.Cursor}, c.Facts.FocusLines, c.Facts.ErrorLines, c.Facts.RefLines, c.Facts.MatchLines)
	for _, l := range at {
		best := -1
		for i, s := range starts {
			if s > 0 && s <= l && (best < 0 || s >= starts[best]) {
				best = i
			}
		}
		if l > 0 && best >= 0 {
			must[best] = true
		}
	}
	return must
}

// wholeLines reports whether cuts of c keep whole lines: source, outlines
// and diffs do (a half line is neither code nor a count of what was left
// out); a commit log, whose one long message line may be all there is,
// may be cut inside a line.
func wholeLines(c ctxd.Chunk) bool {
	return c.ChunkType != ctxd.ChunkHistory
}

// tailRatio keeps more of the end of diffs and error-bearing files, where
// the newest or failing part usually is.
func tailRatio(c ctxd.Chunk) float64 {
	if c.ChunkType == ctxd.ChunkHistory {
		return 0.2 // newest commits come first
	}
	if c.Facts.Role == ctxd.RoleError {
		return 0.6
	}
	return 0
}
