//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/vsort"
)

// editKind tells the candidates apart when a repair disables one.
type editKind byte

const (
	kindBody editKind = iota
	kindDoc
	kindFold
)

type editKey struct {
	kind  editKind
	start int
}

type planned struct {
	edit
	key editKey
}

// keeper decides which functions stay whole.
type keeper struct {
	funcs map[string]bool
	lines []int
}

func newKeeper(o Options) keeper {
	k := keeper{funcs: map[string]bool{}, lines: o.KeepLines}
	for _, f := range o.KeepFuncs {
		k.funcs[f] = true
	}
	return k
}

func (k keeper) keep(names []string, first, last int) bool {
	for _, n := range names {
		if k.funcs[n] {
			return true
		}
	}
	for _, l := range k.lines {
		if first <= l && l <= last {
			return true
		}
	}
	return false
}

// plan returns the edits of level (Bodies or Signatures), sorted and
// disjoint, leaving out the disabled ones.
func (a *analysis) plan(level Level, o Options, disabled map[editKey]bool) []planned {
	kp := newKeeper(o)
	if level == Bodies {
		kp.lines = append(slices.Clip(kp.lines), o.RefLines...)
	}
	// A line matching the request is never elided: the function around
	// it stays whole at both levels.
	kp.lines = append(slices.Clip(kp.lines), o.MatchLines...)
	for _, b := range a.bodies {
		if b.outer > 0 && kp.keep(b.names, 0, -1) {
			// A named inner function keeps the functions around it.
			kp.lines = append(slices.Clip(kp.lines), b.fnFirst)
		}
	}
	if o.outlineInner {
		// Keep whole every body holding an inner edit that applies.
		for _, in := range a.bodies {
			if in.outer >= largeBody {
				for _, b := range a.bodies {
					if b.start < in.start && in.end <= b.end {
						kp.lines = append(slices.Clip(kp.lines), b.fnFirst)
					}
				}
			}
		}
	}
	var es []planned
	for _, b := range a.bodies {
		key := editKey{kindBody, b.start}
		if disabled[key] || kp.keep(b.names, b.fnFirst, b.fnLast) {
			continue
		}
		if level == Bodies && b.lines <= o.threshold() || b.outer > 0 && b.outer < largeBody {
			continue
		}
		es = append(es, planned{b.edit, key})
	}
	if level == Signatures {
		// A function kept whole is shown whole with its doc comment:
		// a Python docstring is inside the function, and a focus
		// function of a signatures view showed its body with its
		// docstring cut to one sentence (the lines of a commit changing
		// both hidden).
		var kept []ctxd.LineRange
		for _, b := range a.bodies {
			if kp.keep(b.names, b.fnFirst, b.fnLast) {
				kept = append(kept, ctxd.LineRange{Start: b.fnFirst, End: b.fnLast})
			}
		}
		for _, d := range a.docs {
			key := editKey{kindDoc, d.start}
			if !disabled[key] && !documents(kept, a.lines.line(d.start), d.elided.End) {
				es = append(es, planned{d, key})
			}
		}
		es = a.fold(es, kp, disabled)
	}
	sort.Slice(es, func(i, j int) bool { return es[i].start < es[j].start })
	// Drop an edit inside (or overlapping) the one before it.
	out := es[:0]
	for _, e := range es {
		if len(out) > 0 && e.start < out[len(out)-1].end {
			continue
		}
		out = append(out, e)
	}
	return out
}

// documents reports a doc comment of lines [first, last] inside one of
// the functions fns or ending on the line above one.
func documents(fns []ctxd.LineRange, first, last int) bool {
	return slices.ContainsFunc(fns, func(f ctxd.LineRange) bool {
		return f.Start <= first && last <= f.End || last+1 == f.Start
	})
}

// fold replaces runs of adjacent private members with one count, when the
// count is shorter than the run as rendered with the edits es.
func (a *analysis) fold(es []planned, kp keeper, disabled map[editKey]bool) []planned {
	var runs [][]member
	for i, m := range a.members {
		if !m.private || m.function || kp.keep(m.names, a.lines.line(m.start), a.lines.line(max(m.start, m.end-1))) {
			continue
		}
		if n := len(runs); n > 0 {
			prev := runs[n-1][len(runs[n-1])-1]
			if prev.scope == m.scope && a.members[i-1].start == prev.start && blankBetween(a.src, prev.end, m.start) {
				runs[n-1] = append(runs[n-1], m)
				continue
			}
		}
		runs = append(runs, []member{m})
	}
	for _, run := range runs {
		start, end := run[0].start, run[len(run)-1].end
		key := editKey{kindFold, start}
		if disabled[key] {
			continue
		}
		text, ok := a.foldText(len(run), end)
		if !ok {
			continue
		}
		// The run's length once the edits inside it are applied.
		size := end - start
		for _, e := range es {
			if e.start >= start && e.end <= end {
				size -= (e.end - e.start) - len(e.text)
			}
		}
		if len(text) >= size {
			continue
		}
		first, last, ok := contentLines(a.src, a.lines, start, end)
		if !ok {
			continue
		}
		es = slices.DeleteFunc(es, func(e planned) bool { return e.start >= start && e.end <= end })
		es = append(es, planned{edit{start: start, end: end, text: text, elided: ctxd.LineRange{Start: first, End: last}}, key})
	}
	return es
}

func (a *analysis) foldText(n int, end int) (string, bool) {
	what := ctxd.Plural(n, a.foldWord+" member", a.foldWord+" members")
	restBlank := blankBetween(a.src, end, lineEnd(a.src, end))
	switch a.style {
	case stylePython:
		if !restBlank {
			return "...", true
		}
		return "...  # " + what, true
	case styleRuby:
		if !restBlank {
			return "", false
		}
		return "# ... " + what, true
	}
	return "/* ... " + what + " */", true
}

// apply renders src with the edits es (sorted, disjoint) and returns the
// text, the elided line ranges, and each edit's span in the output.
func (a *analysis) apply(es []planned) (string, []ctxd.LineRange, []span) {
	var b strings.Builder
	b.Grow(len(a.src))
	var elided []ctxd.LineRange
	outs := make([]span, len(es))
	at := 0
	for i, e := range es {
		b.Write(a.src[at:e.start])
		outs[i].start = b.Len()
		b.WriteString(e.text)
		outs[i].end = b.Len()
		at = e.end
		if e.elided.Start > 0 && e.elided.End >= e.elided.Start {
			elided = append(elided, e.elided)
		}
	}
	b.Write(a.src[at:])
	return b.String(), mergeRanges(elided), outs
}

// maxRepairs bounds how many times a level is re-rendered without the
// edits next to a parse error before the level is given up.
const maxRepairs = 4

// renderAfter returns the view of level, checked to parse as cleanly as
// the original: edits next to a new syntax error are dropped and the level
// is rendered again, a few times at most. known is the text of a view
// known to parse (the level before, or ""): a rendering equal to it is not
// checked again (a test file's signatures view is often its bodies view).
//
// With store, the check's verdict is looked up by the view's hash first,
// and recorded.
//
// A view that keeps functions whole (o.KeepFuncs, o.KeepLines, o.RefLines:
// they change with every request) is not checked when its edits are some of
// those of the level's view without them, checked once per content (see
// [analysis.cleanEdits]).
func (a *analysis) renderAfter(ctx context.Context, g grammar, level Level, o Options, timeout func() timeLeft, store *Store, known string) (View, error) {
	if o.focuses() {
		if ref, err := a.cleanEdits(ctx, g, level, o, timeout, store, false); err == nil {
			es := a.plan(level, o, nil)
			ok := subsetOf(es, ref)
			if !ok && a.hasInner() {
				// A kept large function outlined: its inner edits are
				// some of those of the view with every such function
				// outlined, checked once per content too.
				if in, err := a.cleanEdits(ctx, g, level, o, timeout, store, true); err == nil {
					ok = subsetOf(es, mergeEdits(ref, in))
				}
			}
			if ok {
				text, elided, _ := a.apply(es)
				return View{Level: level, Language: a.lang, Text: text, Elided: elided}, nil
			}
		}
	}
	v, _, err := a.renderChecked(ctx, g, level, o, timeout, store, known)
	return v, err
}

// cleanEdits returns the edits of level's view without kept functions
// (o's threshold), as rendered and checked to parse (repairs done), once
// per analysis. Every subset of a clean edit set renders a view that
// parses too: each edit replaces a whole body, doc comment or member run
// (a node of the original's tree, which parses) by text the checked view
// shows parses in its place, so leaving some out puts back original nodes
// in their own context. TestKeptViewsParse checks the claim on real files
// of every language against the check parse.
//
// With inner, it is the view where every large function with inner
// definitions is outlined instead (their inner edits applied, see
// [largeBody]), the reference of a kept large function's view.
func (a *analysis) cleanEdits(ctx context.Context, g grammar, level Level, o Options, timeout func() timeLeft, store *Store, inner bool) ([]planned, error) {
	key := cleanKey{level, o.threshold(), inner}
	a.cleanMu.Lock()
	es, ok := a.clean[key]
	a.cleanMu.Unlock()
	if ok {
		return es, nil
	}
	_, es, err := a.renderChecked(ctx, g, level, Options{BodyThreshold: o.BodyThreshold, Timeout: o.Timeout, outlineInner: inner}, timeout, store, "")
	if err != nil {
		return nil, err
	}
	a.cleanMu.Lock()
	if a.clean == nil {
		a.clean = map[cleanKey][]planned{}
	}
	a.clean[key] = es
	a.cleanMu.Unlock()
	return es, nil
}

// cleanKey names a level's clean edits: the level, body threshold and
// whether large functions are outlined.
type cleanKey struct {
	level     Level
	threshold int
	inner     bool
}

// hasInner reports edits inside a large function (applied when it is
// kept).
func (a *analysis) hasInner() bool {
	return slices.ContainsFunc(a.bodies, func(b bodyEdit) bool { return b.outer >= largeBody })
}

// mergeEdits returns the edits of a and b (each sorted) in one list sorted
// by start.
func mergeEdits(a, b []planned) []planned {
	out := append(slices.Clone(a), b...)
	vsort.StableFunc(out, func(x, y planned) int { return x.start - y.start })
	return out
}

// subsetOf reports whether every edit of es (sorted) is one of ref
// (sorted), the same span and text.
func subsetOf(es, ref []planned) bool {
	j := 0
	for _, e := range es {
		for j < len(ref) && ref[j].start < e.start {
			j++
		}
		if j == len(ref) || ref[j].start != e.start || ref[j].end != e.end || ref[j].text != e.text {
			return false
		}
	}
	return true
}

// renderChecked is renderAfter with the check parse, also returning the
// edits of the view it returns.
func (a *analysis) renderChecked(ctx context.Context, g grammar, level Level, o Options, timeout func() timeLeft, store *Store, known string) (View, []planned, error) {
	disabled := map[editKey]bool{}
	for try := 0; ; try++ {
		es := a.plan(level, o, disabled)
		text, elided, outs := a.apply(es)
		v := View{Level: level, Language: a.lang, Text: text, Elided: elided}
		if len(es) == 0 || known != "" && text == known {
			return v, es, nil
		}
		errs, err := a.check(ctx, g, level, text, timeout, store)
		if err != nil {
			return View{}, nil, err
		}
		if len(errs) == 0 {
			return v, es, nil
		}
		if try == maxRepairs {
			return View{}, nil, fmt.Errorf("%s view of %s does not parse: %w", level, a.lang, ErrUnsupported)
		}
		for _, bad := range errs {
			hit := false
			for i, s := range outs {
				if s.start <= bad.end+1 && bad.start <= s.end+1 {
					disabled[es[i].key] = true
					hit = true
				}
			}
			if !hit {
				// Blame the nearest edit before the error.
				for i := len(outs) - 1; i >= 0; i-- {
					if outs[i].start <= bad.start {
						disabled[es[i].key] = true
						hit = true
						break
					}
				}
			}
			if !hit {
				disabled[es[0].key] = true
			}
		}
	}
}

// check returns the parse errors of a rendered view, from store when it
// has the view's verdict.
func (a *analysis) check(ctx context.Context, g grammar, level Level, text string, timeout func() timeLeft, store *Store) ([]span, error) {
	var key [32]byte
	if store != nil {
		key = verdictKey(a.lang, text)
		if errs, ok := store.verdict(key); ok {
			return errs, nil
		}
	}
	t := timeout()
	if t.err != nil {
		return nil, t.err
	}
	errs, err := g.errors(ctx, []byte(text), t.d)
	if err != nil {
		return nil, fmt.Errorf("check %s view: %w", level, err)
	}
	if store != nil {
		store.putVerdict(key, errs)
	}
	return errs, nil
}
