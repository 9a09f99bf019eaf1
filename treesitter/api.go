package treesitter

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/patience"
)

// Level is how much of a file a [View] shows: the one view name set,
// [ctxd.View].
type Level = ctxd.View

// The truncation levels, from whole to smallest. Each level's text is never
// larger (in bytes) than the previous level's.
const (
	// Full is the file as it is.
	Full = ctxd.ViewFull
	// Bodies keeps imports, docs, declarations and signatures, and
	// collapses function bodies longer than [Options.BodyThreshold] lines
	// into a placeholder that still parses.
	Bodies = ctxd.ViewBodies
	// Signatures is Bodies with every collapsible body collapsed, doc
	// comments cut to their first sentence and private members folded into
	// a count.
	Signatures = ctxd.ViewSignatures
	// Outline is one line per symbol with its line number.
	Outline = ctxd.ViewOutline
)

// Levels lists every [Level] from largest to smallest.
var Levels = []Level{Full, Bodies, Signatures, Outline}

// ParseLevel accepts a level name in any case ("full", "bodies",
// "signatures", "outline", "focus", "focus-only"; "none" and "whole" as
// old names of full).
func ParseLevel(s string) (Level, error) {
	l, err := ctxd.ParseView(s)
	if err == nil && (slices.Contains(Levels, l) || slices.Contains(FocusLevels, l)) {
		return l, nil
	}
	return "", fmt.Errorf("unknown level %q (want full, bodies, signatures, outline, focus or focus-only): %w", s, ctxd.ErrInvalidParams)
}

// Defaults of [Options].
const (
	// DefaultBodyThreshold: at the Bodies level, bodies of more than 3
	// lines are collapsed. Three lines keep getters, setters and one-line
	// delegations readable while everything with real logic folds away.
	DefaultBodyThreshold = 3
	// DefaultTimeout bounds each parse.
	DefaultTimeout = 2 * time.Second
	// MaxSize is the largest source Render, Views and Symbols accept; larger
	// files (almost always generated) return [ErrUnsupported]. It bounds
	// the memory a parse takes (the tree is about 10 bytes per source byte).
	MaxSize = 8 << 20
)

// Options tune a rendering. The zero value selects the defaults.
type Options struct {
	// BodyThreshold: at the Bodies level, bodies with more lines than this
	// are collapsed. Zero or less selects [DefaultBodyThreshold]. The
	// Signatures level collapses every body whose placeholder is shorter
	// than the body.
	BodyThreshold int
	// KeepFuncs names functions and methods kept whole at the Bodies and
	// Signatures levels: "Serve" matches every function or method called
	// Serve, "Server.Serve" only the method of Server.
	KeepFuncs []string
	// KeepLines are 1-based lines (a cursor, the lines a stack trace names):
	// the outermost function enclosing each is kept whole at the Bodies
	// and Signatures levels; at the focus levels the innermost, or, in
	// a function over [LongBody] lines, the lines around it.
	KeepLines []int
	// RefLines are 1-based lines that use a name the task is about (the
	// call sites of a function being renamed): at the focus levels each is
	// shown alone, in place, under the outline line of the function around
	// it; at the Bodies level the function around it is kept whole.
	RefLines []int
	// MatchLines are 1-based lines holding an identifier the request
	// names: no view but the outline elides them. At the Bodies and
	// Signatures levels the function around each is kept whole; at the
	// focus levels each is shown alone, in place, as RefLines are.
	MatchLines []int
	// DeclLines are 1-based module-level lines (outside every function)
	// holding a word of the request: at the focus levels each is shown
	// in place with what it belongs to, the short declaration around it
	// whole (a constant, a struct's fields, `__all__`), its import group
	// or the bracketed statement it opens (a setup() call's argument, a
	// module-level call). The other levels ignore them: bodies and
	// signatures keep module-level code anyway, the outline shows none.
	DeclLines []int
	// Timeout bounds each parse; zero or less selects [DefaultTimeout]. A
	// deadline of the context that comes sooner wins. Under a context of
	// patience.Unbounded (ctxd eval) the limit is patience.Long.
	Timeout time.Duration
	// Store, when not nil, is consulted before parsing and learns what
	// is parsed (a persisted cache across processes; see [Store]). It
	// never changes a view.
	Store *Store
	// Sum, when not nil, is the SHA-256 of the source, for a caller that
	// renders one source several times ([Views], then [FocusViews]): it
	// is hashed once. It must be the source's (a wrong sum would serve
	// another source's views).
	Sum *[32]byte
	// OutlineKept outlines, at the focus levels, a function of at least
	// [LargeBody] lines shown for a kept line: each callback, closure or
	// inner definition in it that holds no kept, matching, reference or
	// declaration line is shown as its first and last lines around a
	// "... (N lines)" line, and the nested one holding a kept line is
	// whole (the step between the cursor's function whole and its
	// outline line).
	OutlineKept bool

	// outlineInner keeps whole every function with inner definitions
	// that apply (the reference view of kept large functions, checked
	// once per content; see analysis.cleanEdits).
	outlineInner bool
}

// focuses reports options that focus something: the focus levels exist.
func (o Options) focuses() bool {
	return len(o.KeepFuncs) > 0 || len(o.KeepLines) > 0 || len(o.RefLines) > 0 || len(o.MatchLines) > 0 || len(o.DeclLines) > 0
}

// refLines are the lines the focus levels show alone, in place: the
// reference lines and the lines matching the request.
func (o Options) refLines() []int {
	if len(o.MatchLines) == 0 && len(o.DeclLines) == 0 {
		return o.RefLines
	}
	return slices.Concat(o.RefLines, o.MatchLines, o.DeclLines)
}

func (o Options) threshold() int {
	if o.BodyThreshold <= 0 {
		return DefaultBodyThreshold
	}
	return o.BodyThreshold
}

// timeout is the limit of each parse under ctx: o.Timeout or
// DefaultTimeout, lifted under a patience.Unbounded ctx (ctxd eval).
func (o Options) timeout(ctx context.Context) time.Duration {
	if o.Timeout <= 0 {
		return patience.Limit(ctx, DefaultTimeout)
	}
	return patience.Limit(ctx, o.Timeout)
}

// View is a rendering of one file at one level.
type View struct {
	Level    Level  `json:"level"`
	Language string `json:"language"`
	Text     string `json:"text"`
	// Elided lists the original 1-based line ranges not shown verbatim,
	// sorted and disjoint, so an editor can open them.
	Elided []ctxd.LineRange `json:"elided,omitempty"`
}

// Symbol is a definition found in a file.
type Symbol struct {
	Name string `json:"name"`
	// Kind is one of function, method, class, struct, interface, enum,
	// trait, impl, type, const, var, field, module, macro; suite and test
	// for a test framework's calls (describe and it), named by their
	// titles.
	Kind string `json:"kind"`
	// Start and End are 1-based lines, doc comments excluded.
	Start int `json:"start"`
	End   int `json:"end"`
	// Signature is the declaration up to its body, on one line.
	Signature string `json:"signature"`
	// Exported reports a symbol visible outside its file or module by the
	// language's rules (capitalized in Go, pub in Rust, not private in
	// Java, no leading underscore in Python, ...).
	Exported bool `json:"exported"`
	// Doc is the first sentence of the symbol's doc comment or docstring.
	Doc string `json:"doc,omitempty"`
	// Parent is the enclosing type's name for members ("Server" for a
	// method of Server, also for Go methods), "" at the top level.
	Parent string `json:"parent,omitempty"`
	// Depth is 0 for top-level symbols, 1 for members of a top-level type
	// or definitions inside a top-level function, and so on.
	Depth int `json:"depth"`
	// Inner marks a definition inside a function body (an inner function,
	// a closure assigned to a name, a class declared in a function): its
	// Parent is the enclosing definition's name.
	Inner bool `json:"inner,omitempty"`
}

// Callable reports a symbol with a body that runs: a function, a method
// or a test (the units the cursor's and the focus views keep whole).
func (s Symbol) Callable() bool {
	return s.Kind == "function" || s.Kind == "method" || s.Kind == "test"
}

// KeepsOf returns opts with KeepLines set to each of keeps in turn (the
// options of [FocusViewsOf] for one file focused several ways).
func KeepsOf(opts Options, keeps [][]int) []Options {
	os := make([]Options, len(keeps))
	for i, keep := range keeps {
		os[i] = opts
		os[i].KeepLines = keep
	}
	return os
}

// renderLevel is what Render does in both builds once the level is
// checked: a focus level from [FocusViews], any other from [Views]. ok is
// false, with a nil error, when the views have none at level.
func renderLevel(ctx context.Context, lang string, src []byte, level Level, opts Options) (v View, ok bool, err error) {
	if level == Focus || level == FocusOnly {
		v, err := renderFocus(ctx, lang, src, level, opts)
		return v, err == nil, err
	}
	vs, err := Views(ctx, lang, src, opts)
	if err != nil {
		return View{}, false, err
	}
	v, ok = viewAt(vs, level)
	return v, ok, nil
}

// viewAt returns the view of vs at level, if vs has one.
func viewAt(vs []View, level Level) (View, bool) {
	for _, v := range vs {
		if v.Level == level {
			return v, true
		}
	}
	return View{}, false
}

// Span is a half-open range of a file's bytes.
type Span struct{ Start, End int }

// FileSymbols is the symbols and imports of one file. (The brief named it
// Outline, which Go cannot have beside the [Outline] level constant.)
type FileSymbols struct {
	Language string   `json:"language"`
	Symbols  []Symbol `json:"symbols"`
	// Imports are the imported modules or paths as written ("fmt",
	// "./util", "std::collections::HashMap", "java.util.List").
	Imports []string `json:"imports"`
	// Hooks are the functions object literals hold (a plugin factory's
	// `configureServer(server) {...}`), in line order: the outline lists
	// them under the definition around them; they are not in Symbols (no
	// symbol index entry or focus candidate). See [FileSymbols.Outline].
	Hooks []Symbol `json:"-"`
}

// Outline returns the symbols and the hooks in line order, as the
// outline lists them.
func (f *FileSymbols) Outline() []Symbol {
	if len(f.Hooks) == 0 {
		return f.Symbols
	}
	out, _ := withHooks(f.Symbols, f.Hooks)
	return out
}

// ErrUnsupported is returned for a language that cannot be parsed, a file
// too large, or a file that does not parse cleanly enough to truncate
// safely. The caller falls back to a head-and-tail cut.
var ErrUnsupported = errors.New("unsupported for structural truncation")

// TimeoutError reports a parse that did not finish within its time limit.
// It wraps [context.DeadlineExceeded].
type TimeoutError struct {
	Language string
	Timeout  time.Duration
}

func (e *TimeoutError) Error() string {
	// Rounded: the limit scales with the file's size, and "1.874426602s"
	// read as noise.
	return fmt.Sprintf("parse %s: timed out after %v", e.Language, e.Timeout.Round(time.Millisecond))
}

// Unwrap returns [context.DeadlineExceeded].
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// timedOut returns the error of a parse of lang that ran out of its limit
// d under ctx, and counts it in ctx's patience.Tally (ctxd eval reports
// how many of its parses timed out).
func timedOut(ctx context.Context, lang string, d time.Duration) *TimeoutError {
	patience.ParseTimedOut(ctx)
	return &TimeoutError{Language: lang, Timeout: d}
}

// MaxComputedMember bounds the text of a computed member that names a
// function (jsMember).
const MaxComputedMember = 40
