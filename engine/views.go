package engine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"slices"
	"unsafe"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compress"
	"github.com/ctxd/ctxd/treesitter"
)

// views returns a code chunk's structural views (bodies, signatures,
// outline) for the compressor, keeping whole the functions around the
// cursor, the selection, the lines an error points at and the focus lines
// (the functions matching the request's words, focusLines). Chunks in
// languages tree-sitter cannot parse get no views and are cut in the
// middle instead; those that do not parse cleanly get only their focus
// views (when something focuses them).
func (e *Engine) views(ctx context.Context, c *ctxd.Chunk) []compress.View {
	return e.viewsSum(ctx, c, nil)
}

// viewsSum is views of a chunk whose content's facts a request carries
// (nil for none): its hash is not taken again.
func (e *Engine) viewsSum(ctx context.Context, c *ctxd.Chunk, cs *contentSum) []compress.View {
	if c.ChunkType != ctxd.ChunkFile || c.Facts.Minified {
		return nil
	}
	// The text as bytes for every call below, without a copy (a copy of
	// every candidate file per request was a tenth of the views' time).
	src := readOnly(c.Content)
	lang := treesitter.Detect(c.Source, src)
	if lang == "" {
		return nil
	}
	keep := append(append([]int(nil), c.Facts.ErrorLines...), c.Facts.FocusLines...)
	if c.Facts.Cursor > 0 {
		keep = append(keep, c.Facts.Cursor)
	}
	if s := c.Facts.Selection; s != nil {
		for l := s.Start; l <= s.End && l-s.Start < 200; l++ {
			keep = append(keep, l)
		}
	}
	pointed := keep
	keep, starts := wholeUnits(ctx, lang, src, keep, c.Facts)
	// One hash of the source for the three calls below: the request's
	// (gathering took it) when it has the content's.
	var sum [32]byte
	if cs != nil {
		sum = cs.sum
	} else {
		sum = sha256.Sum256(src)
	}
	opts := treesitter.Options{KeepLines: keep, KeepFuncs: c.Facts.MentionedSymbols, RefLines: c.Facts.RefLines, MatchLines: c.Facts.MatchLines, Store: e.store.Views(), Sum: &sum}
	// The module-level lines holding the request's words matter to the
	// focus views only (bodies and signatures keep module-level code):
	// the structural views' cache keys stay those without them.
	focusOpts := opts
	focusOpts.DeclLines = c.Facts.DeclLines
	vs, err := treesitter.Views(ctx, lang, src, opts)
	if err != nil {
		e.log.Debug("no structural views", "source", c.Source, "language", lang, "error", err)
		// A file with syntax errors (a grammar older than the language:
		// TypeScript's `interface Box<out O>`) still has focus views,
		// which copy whole lines: the function at the cursor or named
		// by the request stays visible instead of a head and a tail.
		if fs, ferr := treesitter.FocusViews(ctx, lang, src, focusOpts); ferr == nil && len(fs) > 0 {
			return orderViews(nil, fs)
		}
		return nil
	}
	// The focus views: those of keep, then (below) the ladder's, all from
	// one pass over the file (treesitter.FocusViewsOf).
	n := len(c.Facts.FocusLines)
	keeps := [][]int{keep}
	one, bare := -1, -1 // their places in keeps
	if n > 1 && len(c.Facts.FocusDefs) == 0 {
		one = len(keeps)
		keeps = append(keeps, c.Facts.FocusLines[:1])
	}
	steps := len(keeps)
	if n > 1 && len(c.Facts.FocusDefs) > 0 {
		for _, k := range focusSteps {
			if k >= n {
				break
			}
			keeps = append(keeps, c.Facts.FocusLines[:k])
		}
	}
	stepsEnd := len(keeps)
	if n > 0 && len(c.Facts.MentionedSymbols) > 0 {
		bare = len(keeps)
		keeps = append(keeps, nil)
	}
	each := treesitter.KeepsOf(focusOpts, keeps)
	// The smallest focus view without the module-level lines (below),
	// from the same pass: its place in each.
	least := -1
	if len(focusOpts.DeclLines) > 0 && len(keep) > 0 {
		least = len(each)
		o := opts
		o.KeepLines = keep
		if n > 0 {
			o.KeepLines = c.Facts.FocusLines[:1]
		}
		each = append(each, o)
	}
	// The function the user points at outlined: its callbacks and inner
	// defs collapsed but the one at the cursor and those matching the
	// request, the step between it whole (keep) and its outline line,
	// for a budget the whole function does not fit.
	outlined := -1
	if len(starts) > 0 {
		outlined = len(each)
		o := focusOpts
		// The units' first lines: a nested def at the cursor (a Python
		// one is a symbol) would be focused alone, not in its unit.
		o.KeepLines, o.OutlineKept = slices.Concat(pointed, starts), true
		each = append(each, o)
	}
	got, errs := treesitter.FocusViewsOf(ctx, lang, src, each)
	fs, err := got[0], errs[0]
	if err != nil {
		e.log.Debug("no focus views", "source", c.Source, "language", lang, "error", err)
		return orderViews(vs, fs)
	}
	if one >= 0 && errs[one] == nil {
		// The best-matching function alone, for a file without the
		// ladder (engine's focusLines ranks only the best few files').
		for _, v := range got[one] {
			if v.Level == treesitter.FocusOnly {
				fs = append(fs, v)
			}
		}
	}
	// The ladder: for each step k under n, the outline with the best k
	// functions whole and those functions alone, so the fitter can buy as
	// many of the ranked functions as are worth their tokens (the best
	// one alone for a budget where no more fit; focus lines are set only
	// when nothing else focuses the file).
	for i := steps; i < stepsEnd; i++ {
		if errs[i] == nil {
			fs = append(fs, got[i]...)
		}
	}
	if least >= 0 && errs[least] == nil {
		// The smallest focus view without the module-level lines (the
		// best function alone, or what keep focuses): they are in every
		// other focus view, and a file placed at its smallest view (a
		// presence line) fell to a head-and-tail cut when that view
		// grew by them (fastapi's routing.py, d8aad20).
		for _, v := range got[least] {
			if v.Level == treesitter.FocusOnly {
				fs = append(fs, v)
			}
		}
	}
	if outlined >= 0 && errs[outlined] == nil {
		// Alone: the file's outline with it outlined is larger than
		// the function whole alone, and shows less of what matters.
		for _, v := range got[outlined] {
			if v.Level == treesitter.FocusOnly {
				fs = append(fs, v)
			}
		}
	}
	if bare >= 0 && errs[bare] == nil {
		// The named definitions alone (a named class's header without
		// its focused methods): the smallest view, for a file that would
		// otherwise not fit at all.
		for _, v := range got[bare] {
			if v.Level == treesitter.FocusOnly {
				fs = append(fs, v)
			}
		}
	}
	return orderViews(vs, fs)
}

// wholeUnits returns keep (the cursor's, the selection's, the error
// lines of a chunk) with, for each line the user points at (the cursor, the
// selection, a stack frame; not the focus lines the engine ranks), every
// line of the innermost function around it when that function has at
// most treesitter.LongBody lines: the function the user is working on is
// kept whole with everything nested in it (its callbacks, closures and
// inner defs), which a large function kept for one line shows collapsed
// (commander.js's _executeSubCommand, 149 lines, with the cursor on it
// showed its `proc.on('close', ...)` callback as `{ /* ... 12 lines */ }`).
// The innermost named definition: an anonymous callback is no unit of its
// own. A file without such lines is not parsed again. starts are the first
// lines of the functions the outlined view shows (the outermost of at most
// LongBody lines around each unit).
func wholeUnits(ctx context.Context, lang string, src []byte, keep []int, f ctxd.Facts) (out, starts []int) {
	var at []int
	if f.Cursor > 0 {
		at = append(at, f.Cursor)
	}
	if s := f.Selection; s != nil {
		at = append(at, s.Start, s.End)
	}
	at = append(at, f.ErrorLines...)
	if len(at) == 0 {
		return keep, nil
	}
	syms, err := treesitter.DefsAtAnyDepth(ctx, lang, src)
	if err != nil {
		return keep, nil
	}
	seen := map[[2]int]bool{}
	out = keep
	for _, l := range at {
		best := -1
		for i, s := range syms {
			if s.Callable() && s.Start <= l && l <= s.End && (best < 0 || s.Start >= syms[best].Start && s.End <= syms[best].End) {
				best = i
			}
		}
		if best < 0 {
			continue
		}
		s := syms[best]
		r := [2]int{s.Start, s.End}
		if s.End-s.Start > treesitter.LongBody || seen[r] {
			continue
		}
		seen[r] = true
		if len(out) == len(keep) {
			out = slices.Clip(keep)
		}
		for k := s.Start; k <= s.End; k++ {
			out = append(out, k)
		}
		// The outlined view's function: the outermost around l that is
		// not too long to keep (a nested def at the cursor, a Python
		// or Go one, is shown inside it).
		for _, o := range syms {
			if o.Callable() && o.Start <= s.Start && s.End <= o.End && o.End-o.Start <= treesitter.LongBody && o.Start < s.Start {
				s = o
			}
		}
		starts = append(starts, s.Start)
	}
	return out, starts
}

// focusSteps are the numbers of ranked functions the focus ladder's views
// keep whole (each under the chunk's focus lines; the view of them all is
// the ladder's top).
var focusSteps = []int{1, 2, 3, 5, 8}

// readOnly returns s's bytes without a copy, for callees that only read a
// source (treesitter, the symbol index: they copy what they keep). It
// must never be written.
func readOnly(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// orderViews returns the views the fitter tries, most informative first
// and each smaller than the one before: bodies, signatures, then the focus
// views (the outline with the focused functions whole, then those
// functions alone with what they use), then the outline, which is left out
// when a focus-only view is no larger (it would show less for as much).
func orderViews(vs, focus []treesitter.View) []compress.View {
	var all []treesitter.View
	for _, v := range vs {
		if v.Level != treesitter.Full && v.Level != treesitter.Outline {
			all = append(all, v)
		}
	}
	// The focus views largest first: the ladder's steps and the focused
	// functions alone come in no order of size.
	focus = slices.Clone(focus)
	slices.SortStableFunc(focus, func(a, b treesitter.View) int { return cmp.Compare(len(b.Text), len(a.Text)) })
	all = append(all, focus...)
	for _, v := range vs {
		if v.Level == treesitter.Outline {
			all = append(all, v)
		}
	}
	out := make([]compress.View, 0, len(all))
	for _, v := range all {
		if n := len(out); n > 0 && len(v.Text) >= len(out[n-1].Text) {
			continue
		}
		out = append(out, compress.View{Level: v.Level, Text: v.Text, Elided: v.Elided})
	}
	return out
}
