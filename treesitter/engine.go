//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
	"unsafe"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/patience"
)

// Render returns the file's view at level. It returns an error wrapping
// [ErrUnsupported] for a language it cannot parse, a file with syntax
// errors, or a level whose view could not be made to parse; the caller
// then falls back to a head-and-tail cut. A parse that runs out of time
// returns a [*TimeoutError]. Render may run concurrently.
func Render(ctx context.Context, lang string, src []byte, level Level, opts Options) (View, error) {
	if !validLevel(level) {
		return View{}, fmt.Errorf("render %s: unknown level %q: %w", lang, level, ctxd.ErrInvalidParams)
	}
	if level == Full {
		if err := check(lang, src); err != nil {
			return View{}, err
		}
		return View{Level: Full, Language: lang, Text: string(src)}, nil
	}
	if v, ok, err := renderLevel(ctx, lang, src, level, opts); ok || err != nil {
		return v, err
	}
	return View{}, fmt.Errorf("render %s at %s: the view does not parse: %w", lang, level, ErrUnsupported)
}

// Views renders every level from one parse, largest first. A level whose
// view could not be made to parse is left out (Full and Outline are always
// there), so the compressor tries what is returned in order. Results are
// cached by content hash. Views may run concurrently.
func Views(ctx context.Context, lang string, src []byte, opts Options) ([]View, error) {
	if err := check(lang, src); err != nil {
		return nil, err
	}
	return cachedViews(ctx, "views", lang, src, opts, func(ctx context.Context, sum sourceSum) ([]View, error) {
		left := budget(ctx, lang, opts.timeout(ctx))
		a, err := analyzeStored(ctx, lang, src, sum, left, opts.Store)
		if err != nil {
			return nil, err
		}
		return a.views(ctx, src, opts, left)
	})
}

// cachedViews returns the views of src kept in the view cache under kind,
// or renders them with render, bounded by opts' timeout, and keeps them.
func cachedViews(ctx context.Context, kind, lang string, src []byte, opts Options, render func(context.Context, sourceSum) ([]View, error)) ([]View, error) {
	sum := sumWith(src, opts)
	key := keyOf(kind, lang, sum, opts)
	if vs, ok := viewCache.get(key); ok {
		touch(opts.Store, lang, sum)
		return cloneViews(vs), nil
	}
	ctx, cancel := context.WithTimeout(ctx, opts.timeout(ctx))
	defer cancel()
	vs, err := render(ctx, sum)
	if err != nil {
		return nil, err
	}
	if !CachesOff(ctx) {
		viewCache.put(key, vs, viewsSize(vs))
	}
	return cloneViews(vs), nil
}

// views renders every level of a's source src, largest first (see
// [Views]).
func (a *analysis) views(ctx context.Context, src []byte, opts Options, left func() timeLeft) ([]View, error) {
	lang := a.lang
	g, _ := grammarFor(lang)
	full := View{Level: Full, Language: lang, Text: a.text()}
	vs := []View{full}
	prev := full
	known := "" // the text of a checked view
	for _, level := range []Level{Bodies, Signatures} {
		v, err := a.renderAfter(ctx, g, level, opts, left, opts.Store, known)
		var te *TimeoutError
		switch {
		case errors.As(err, &te), errors.Is(err, context.Canceled):
			return nil, err
		case errors.Is(err, ErrUnsupported):
			continue
		case err != nil:
			return nil, err
		}
		if len(v.Text) > len(prev.Text) {
			// Never larger than the level before; the previous view is
			// valid, so it stands in (this guard is for pathological
			// inputs where a repair undid more than it saved).
			v = View{Level: level, Language: lang, Text: prev.Text, Elided: prev.Elided}
		}
		vs = append(vs, v)
		prev = v
		known = v.Text
	}
	out := View{Level: Outline, Language: lang, Text: outlineText(a.symbols, a.hooks)}
	if n := a.lines.count(len(src)); n > 0 {
		out.Elided = []ctxd.LineRange{{Start: 1, End: n}}
	}
	if len(out.Text) > len(prev.Text) {
		out.Text, out.Elided = prev.Text, prev.Elided
	}
	return append(vs, out), nil
}

// FocusViews renders the focus levels ([Focus], [FocusOnly]) from one
// parse, largest first, or returns nil when opts.KeepFuncs and
// opts.KeepLines focus nothing in the file. FocusOnly is left out when it
// is not smaller than Focus. A file with syntax errors still has focus
// views (they copy whole lines and need not parse). FocusViews may run
// concurrently.
func FocusViews(ctx context.Context, lang string, src []byte, opts Options) ([]View, error) {
	vs, errs := FocusViewsEach(ctx, lang, src, opts, [][]int{opts.KeepLines})
	return vs[0], errs[0]
}

// FocusViewsEach is [FocusViews] for each of keeps in turn (opts with
// KeepLines set to keeps[i]): views[i] and errs[i] are what that call
// returns (FocusViews is the one-keep case), each cached alone, and what the calls share (the file's
// analysis, lines, imports and the words of its lines) is found once. The
// focus ladder asks for up to seven focus views of one file a request.
func FocusViewsEach(ctx context.Context, lang string, src []byte, opts Options, keeps [][]int) (views [][]View, errs []error) {
	return FocusViewsOf(ctx, lang, src, KeepsOf(opts, keeps))
}

// FocusViewsOf is [FocusViews] for each of opts in turn, sharing what
// [FocusViewsEach] shares: views[i] and errs[i] are what FocusViews with
// opts[i] returns. Every opts[i].Sum, when set, must be src's.
func FocusViewsOf(ctx context.Context, lang string, src []byte, opts []Options) (views [][]View, errs []error) {
	views, errs = make([][]View, len(opts)), make([]error, len(opts))
	if err := check(lang, src); err != nil {
		for i := range errs {
			errs[i] = err
		}
		return views, errs
	}
	var file *focusFile // once analysed
	for i, o := range opts {
		if !o.focuses() {
			continue
		}
		views[i], errs[i] = cachedViews(ctx, "focus", lang, src, o, func(ctx context.Context, sum sourceSum) ([]View, error) {
			if file == nil {
				a, err := analyzeStored(ctx, lang, src, sum, budget(ctx, lang, o.timeout(ctx)), o.Store)
				if err != nil && !errors.Is(err, errSyntax) {
					return nil, err // not kept: the next asks again, as FocusViews would
				}
				if len(a.symbols) == 0 {
					return nil, nil
				}
				file = newFocusFile(lang, a.src, a.lines, a.symbols, a.imports)
				file.hooks = a.hooks
				file.bodies = innerBodies(a.bodies)
			}
			return file.views(o), nil
		})
	}
	return views, errs
}

// Symbols returns the definitions and imports of a file. A file with
// syntax errors still yields the symbols the parser recognized. The parse
// is bounded by ctx's deadline, or by [DefaultTimeout] when ctx has none.
// Symbols may run concurrently.
func Symbols(ctx context.Context, lang string, src []byte) (*FileSymbols, error) {
	return SymbolsStored(ctx, lang, src, nil)
}

// SymbolsStored is [Symbols] that first looks for the source's analysis in
// store (when not nil) and records there what it parses, as [Views] does
// with [Options.Store]: a restarted daemon or a fresh process reads the
// symbols of an unchanged file without parsing it.
func SymbolsStored(ctx context.Context, lang string, src []byte, store *Store) (*FileSymbols, error) {
	if err := supportedSize(lang, src); err != nil {
		return nil, err
	}
	ctx, limit, cancel := parseLimit(ctx)
	defer cancel()
	a, err := analyzeStored(ctx, lang, src, sumOf(src), budget(ctx, lang, limit), store)
	if err != nil && !errors.Is(err, errSyntax) {
		return nil, err
	}
	o := &FileSymbols{Language: lang, Symbols: append([]Symbol(nil), a.symbols...), Imports: append([]string(nil), a.imports...), Hooks: append([]Symbol(nil), a.hooks...)}
	return o, nil
}

func validLevel(l Level) bool {
	return slices.Contains(Levels, l) || slices.Contains(FocusLevels, l)
}

func supportedSize(lang string, src []byte) error {
	if _, ok := specs[lang]; !ok {
		return fmt.Errorf("language %q: %w", lang, ErrUnsupported)
	}
	if len(src) > MaxSize {
		return fmt.Errorf("%s file of %d bytes is over the %d byte limit: %w", lang, len(src), MaxSize, ErrUnsupported)
	}
	return nil
}

// check rejects what cannot be truncated structurally.
func check(lang string, src []byte) error { return supportedSize(lang, src) }

// timeLeft is the time a parse may take, or the error to return instead.
type timeLeft struct {
	d   time.Duration
	err error
}

// budget returns a function giving the time left before ctx's deadline,
// so the parses of one call share one limit.
func budget(ctx context.Context, lang string, total time.Duration) func() timeLeft {
	return func() timeLeft {
		if err := ctx.Err(); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return timeLeft{err: timedOut(ctx, lang, total)}
			}
			return timeLeft{err: fmt.Errorf("parse %s: %w", lang, err)}
		}
		d := total
		if dl, ok := ctx.Deadline(); ok {
			d = time.Until(dl)
		}
		if d <= 0 {
			return timeLeft{err: timedOut(ctx, lang, total)}
		}
		return timeLeft{d: d}
	}
}

// errSyntax marks an analysis of a file with syntax errors: its symbols are
// usable, its views are not.
var errSyntax = fmt.Errorf("syntax errors: %w", ErrUnsupported)

// analyzeStored parses and analyzes src, or returns the cached analysis,
// also looking in store (when not nil) before parsing and putting what it
// parses there. With syntax errors it returns the analysis and an error
// wrapping both errSyntax and ErrUnsupported.
func analyzeStored(ctx context.Context, lang string, src []byte, sum sourceSum, left func() timeLeft, store *Store) (*analysis, error) {
	return analyzeLeaves(ctx, lang, src, sum, left, nil, store)
}

// analyzeLeaves is analyzeStored that also reports the named leaves of the
// whole tree to leaf (when not nil), from the same parse; with leaf set
// it always parses (the leaves are not cached), and caches the analysis
// for the views that follow.
// sum is src's sumOf.
func analyzeLeaves(ctx context.Context, lang string, src []byte, sum sourceSum, left func() timeLeft, leaf func(typ string, start, end int), store *Store) (*analysis, error) {
	return analyzeKept(ctx, lang, src, sum, left, leaf, store, true)
}

// analyzeKept is analyzeLeaves that puts what it parses in the process's
// cache only when cache is set (and ctx is not WithoutCaches).
func analyzeKept(ctx context.Context, lang string, src []byte, sum sourceSum, left func() timeLeft, leaf func(typ string, start, end int), store *Store, cache bool) (*analysis, error) {
	cache = cache && !CachesOff(ctx)
	key := keyOf("analysis", lang, sum, Options{})
	if a, ok := analysisCache.get(key); ok && leaf == nil {
		if store != nil {
			store.learn(key, a)
		}
		return a, a.err()
	}
	spec := specs[lang]
	g, _ := grammarFor(lang)
	own := append([]byte(nil), src...)
	if store != nil && leaf == nil {
		if data, ok := store.analysisData(key); ok {
			a, err := decodeAnalysis(data, lang, own)
			if err == nil {
				if cache {
					analysisCache.put(key, a, a.size())
				}
				return a, a.err()
			}
			store.dropAnalysis(key) // parsed again below
		}
	}
	var a *analysis
	if len(own) == 0 {
		a = &analysis{lang: lang, src: own, style: spec.style, foldWord: spec.foldWord}
	} else {
		t := left()
		if t.err != nil {
			return nil, t.err
		}
		// A content whose parse ran out of as much time is not parsed
		// again (see timeoutVerdict).
		var tkey [32]byte
		verdict := false
		if store != nil {
			tkey = timeoutKey(lang, sum)
			v, ok := store.timeout(tkey)
			if ok && v.holds(t.d, now()) {
				return nil, timedOut(ctx, lang, t.d)
			}
			verdict = ok && v.limit > 0
		}
		root, err := g.parse(ctx, own, t.d, spec.shallowFunc(own), leaf)
		if te := (*TimeoutError)(nil); store != nil && errors.As(err, &te) {
			store.putTimeout(tkey, t.d)
		}
		if err != nil {
			return nil, err
		}
		if verdict {
			store.putTimeout(tkey, 0) // it fits now
		}
		a = analyze(spec, root, own)
		if root.hasError {
			a.syntax = true
			a.syntaxLine = firstErrorLine(root, a.lines)
		}
	}
	if cache {
		analysisCache.put(key, a, a.size())
	}
	if store != nil {
		store.putAnalysis(key, encodeAnalysis(a))
	}
	return a, a.err()
}

// touch tells store (when not nil) that src's analysis is in use, when
// the views came from the process's cache: the store learns it if another
// engine's request made it, and keeps it among the recently used.
func touch(store *Store, lang string, src sourceSum) {
	if store == nil {
		return
	}
	key := keyOf("analysis", lang, src, Options{})
	if a, ok := analysisCache.get(key); ok {
		store.learn(key, a)
	}
}

// text returns the analysis's source as a string without a copy: a.src
// is the analysis's own copy of the source, never written after the
// analysis is made (a Full view of every candidate file was a copy of it
// per request, most of them dropped by the caller).
func (a *analysis) text() string { return unsafe.String(unsafe.SliceData(a.src), len(a.src)) }

func (a *analysis) err() error {
	switch {
	case !a.syntax:
		return nil
	case a.syntaxLine > 0:
		return fmt.Errorf("%s source, first error near line %d: %w", a.lang, a.syntaxLine, errSyntax)
	}
	return fmt.Errorf("%s source: %w", a.lang, errSyntax)
}

func (a *analysis) size() int {
	n := len(a.src) + 8*len(a.lines) + 64
	for _, s := range a.symbols {
		n += 128 + len(s.Signature) + len(s.Doc)
	}
	for _, b := range a.bodies {
		n += 96 + len(b.text)
	}
	for _, d := range a.docs {
		n += 64 + len(d.text)
	}
	return n + 48*len(a.members)
}

// firstErrorLine returns the line of the first ERROR or MISSING node.
func firstErrorLine(n *node, li lineIndex) int {
	if n.typ == "ERROR" || n.missing {
		return li.line(n.start)
	}
	for _, k := range n.kids {
		if l := firstErrorLine(k, li); l > 0 {
			return l
		}
	}
	return 0
}

func cloneViews(vs []View) []View {
	out := make([]View, len(vs))
	for i, v := range vs {
		v.Elided = append([]ctxd.LineRange(nil), v.Elided...)
		out[i] = v
	}
	return out
}

func viewsSize(vs []View) int {
	n := 0
	for _, v := range vs {
		n += len(v.Text) + 16*len(v.Elided) + 64
	}
	return n
}

var (
	viewCache     = newLRU[[]View](32 << 20)
	analysisCache = newLRU[*analysis](32 << 20)
)

// parseLimit bounds a parse by ctx's deadline, or by [DefaultTimeout] when
// ctx has none (lifted under a patience.Unbounded ctx): it returns the context to parse under, the time left and
// the function that releases it.
func parseLimit(ctx context.Context) (context.Context, time.Duration, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok {
		return ctx, time.Until(dl), func() {}
	}
	d := patience.Limit(ctx, DefaultTimeout)
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, d, cancel
}

// innerBodies returns the collapsible bodies inside functions (outer > 0),
// for the outlined focus views (Options.OutlineKept).
func innerBodies(bs []bodyEdit) []innerBody {
	var out []innerBody
	for _, b := range bs {
		if b.outer > 0 {
			out = append(out, innerBody{elided: b.elided, fn: ctxd.LineRange{Start: b.fnFirst, End: b.fnLast}, outer: b.outer})
		}
	}
	return out
}
