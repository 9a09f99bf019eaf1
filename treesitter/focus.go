package treesitter

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/vsort"
)

// largeBody is the length in lines from which a function kept whole
// shows its inner definitions collapsed (a large function kept whole is
// outlined; a smaller one stays whole). It is here, with no build
// constraint, because focus reads it with and without tree-sitter.
const largeBody = 80

// LargeBody is largeBody for other packages: a function under it is kept
// whole with its inner definitions, so focusing one of them focuses it.
const LargeBody = largeBody

// The focus levels show a file around what a task points at: the
// functions at [Options.KeepLines] (a cursor, a selection, stack frames)
// and those named by [Options.KeepFuncs] are shown whole, with their doc
// comments, and the rest of the file is reduced to outline lines. They
// exist only when something is focused, and sit between Signatures and
// Outline: a large file whose signatures do not fit still shows the body
// that matters.
const (
	// Focus is the outline of the whole file with the focused functions
	// whole in place.
	Focus = ctxd.ViewFocus
	// FocusOnly is the focused functions whole, with only the outline
	// lines of what they refer to: the types they are methods of, the
	// declarations and fields they name, and the imports they use.
	FocusOnly = ctxd.ViewFocusOnly
)

// LongBody is the length in lines past which a function is too long to
// keep whole for a line in it (a cursor, a stack frame, a focus line):
// the focus views show it as its outline around the lines within
// longContext of the line, verbatim. Engine ranks the windows of such a
// function (its lines in runs of 2*longContext+1, LongWindow) in its
// place. A function named by [Options.KeepFuncs] is kept whole unless a
// kept line is in it.
const (
	LongBody    = 300
	longContext = 20
	// LongWindow is the number of lines the focus views show around a
	// line of a long function.
	LongWindow = 2*longContext + 1
)

// FocusLevels are the levels [FocusViews] returns, largest first.
var FocusLevels = []Level{Focus, FocusOnly}

// Focus limits: a named declaration that is not a function is focused only
// when it is short (a type, a constant), and a focused line outside any
// function focuses the innermost declaration around it only when that is
// short.
const (
	focusDeclLines = 60
	focusLineSpan  = 80
)

// focusFunctionKinds are the symbol kinds whose bodies are shown whole
// when named or at a focused line.
var focusFunctionKinds = map[string]bool{"function": true, "method": true, "test": true}

// focusViews renders the focus levels from a file's symbols and imports,
// or returns nil when opts focus nothing in it. Each view's Elided is
// every line outside the focused spans.
func focusViews(lang string, src []byte, li lineIndex, syms []Symbol, imports []string, opts Options) []View {
	if !opts.focuses() || len(syms) == 0 {
		return nil
	}
	return newFocusFile(lang, src, li, syms, imports).views(opts)
}

// focusFile is what the focus views of one file share whatever they
// focus: its lines, import lines, the names looked for in the focused
// code, and each line's words among them, scanned once the first time a
// view shows the line. The focus ladder renders up to seven sets of focus
// views of a file per request ([FocusViewsEach]); each split the lines,
// found the imports and scanned the focused functions again.
type focusFile struct {
	lang  string
	lines []string
	syms  []Symbol
	// hooks are the analysis's (analysis.hooks): outline lines only.
	hooks []Symbol
	// bodies are the analysis's collapsible bodies inside functions
	// (innerBodies), for Options.OutlineKept.
	bodies  []innerBody
	imports []string
	imps    []importLine
	names   map[string]uint8
	// words[at[l-1][0]:at[l-1][1]] are line l's words among names, with
	// their roles, once scanned[l-1] (one array for all the lines).
	words   []focusWord
	at      [][2]int
	scanned []bool
}

// focusWord is a word of a line that names holds, and its roles.
type focusWord struct {
	name string
	role uint8
}

func newFocusFile(lang string, src []byte, li lineIndex, syms []Symbol, imports []string) *focusFile {
	lines := splitLines(src, li)
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	imps := importLines(lines, syms)
	names := make(map[string]uint8, len(syms)+len(imports))
	for _, s := range syms {
		names[s.Name] |= nameView
		if dataKinds[s.Kind] {
			names[s.Name] |= nameUsed
		}
	}
	for _, imp := range imports {
		names[importName(imp)] |= nameView
	}
	for _, im := range imps {
		for _, n := range im.names {
			names[n] |= nameUsed
		}
	}
	return &focusFile{lang: lang, lines: lines, syms: syms, imports: imports, imps: imps, names: names,
		at: make([][2]int, len(lines)), scanned: make([]bool, len(lines))}
}

// found is identifiersIn(rangesText(f.lines, rs), f.names), from the
// lines' words scanned once: the same, since a word never spans a line
// break, unless a line without one (a file's last) is followed by another
// in rs, where the text is scanned whole as identifiersIn does.
func (f *focusFile) found(rs []ctxd.LineRange) map[string]uint8 {
	for i, r := range rs {
		for l := r.Start; l <= r.End; l++ {
			if !strings.HasSuffix(f.lines[l-1], "\n") && (i < len(rs)-1 || l < r.End) {
				return identifiersIn(rangesText(f.lines, rs), f.names)
			}
		}
	}
	out := map[string]uint8{}
	for _, r := range rs {
		for l := r.Start; l <= r.End; l++ {
			if !f.scanned[l-1] {
				lo := len(f.words)
				f.words = appendWords(f.words, f.lines[l-1], f.names)
				f.at[l-1], f.scanned[l-1] = [2]int{lo, len(f.words)}, true
			}
			for _, w := range f.words[f.at[l-1][0]:f.at[l-1][1]] {
				out[w.name] = w.role
			}
		}
	}
	return out
}

// views renders the focus levels of f for opts (focusViews).
func (f *focusFile) views(opts Options) []View {
	lang, lines, syms, imports := f.lang, f.lines, f.syms, f.imports
	spans := focusSpans(lang, lines, syms, f.imps, opts)
	if len(spans) == 0 {
		return nil
	}
	// One scan of the focused code finds the names both withUsed and the
	// focus-only view look up (a scan each was a third of the focus views'
	// time); the lines withUsed adds are scanned alone after.
	found := f.found(spans)
	spans, added, importsShown := withUsed(lines, syms, spans, f.imps, found)
	if len(added) > 0 {
		for n, role := range f.found(added) {
			found[n] |= role
		}
	}
	var holes []ctxd.LineRange
	if opts.OutlineKept {
		spans, holes = f.outlined(spans, opts)
	}
	used := make(map[string]bool, len(found))
	for n, role := range found {
		if role&nameView != 0 {
			used[n] = true
		}
	}
	var elided []ctxd.LineRange
	at := 1
	for _, s := range spans {
		if s.Start > at {
			elided = append(elided, ctxd.LineRange{Start: at, End: s.Start - 1})
		}
		at = s.End + 1
	}
	if at <= len(lines) {
		elided = append(elided, ctxd.LineRange{Start: at, End: len(lines)})
	}
	inSpan := func(l int) bool {
		for _, s := range spans {
			if s.Start <= l && l <= s.End {
				return true
			}
		}
		return false
	}
	parents := map[string]bool{}
	for _, s := range syms {
		if inSpan(s.Start) && s.Parent != "" {
			parents[s.Parent] = true
		}
	}
	// The function around a line shown alone (a call site) keeps its
	// outline line, and so does its type.
	around := map[int]bool{}
	for _, l := range opts.refLines() {
		for i, s := range syms {
			if s.Start < l && l <= s.End && !inSpan(s.Start) {
				around[i] = true
				if s.Parent != "" {
					parents[s.Parent] = true
				}
			}
		}
	}
	needed := func(i int, s Symbol) bool {
		switch {
		case around[i]:
			return true
		case s.Depth == 0:
			return used[s.Name] || parents[s.Name]
		case parents[s.Parent]:
			return used[s.Name]
		}
		return false
	}
	var full, only strings.Builder
	// Both hold the spans; full also an outline line a symbol, only
	// those it needs (a few): grown once each, not doubled from empty
	// (the doubling's copies were a twentieth of a warm request).
	shown := rangesLen(lines, spans)
	full.Grow(shown + 64*len(syms))
	only.Grow(shown + 32*len(spans) + 256)
	if imps := usedImports(imports, used); len(imps) > 0 && !importsShown {
		only.WriteString("imports: ")
		only.WriteString(strings.Join(imps, ", "))
		only.WriteString("\n")
	}
	var num []byte // scratch for line numbers
	next := 0      // the next span to write
	longs := longAround(syms, spans)
	writeSpans := func(before int) {
		for ; next < len(spans) && spans[next].Start <= before; next++ {
			s := spans[next]
			// The lines of a long function elided before the span and,
			// for its last span in the function, after it.
			var gapBefore, gapAfter int
			near := lines[s.Start-1] // the gap's indent
			if f, ok := longs[next]; ok {
				from := f.Start + 1
				if next > 0 && spans[next-1].End >= f.Start {
					from = spans[next-1].End + 1
				}
				gapBefore = s.Start - from
				if next+1 == len(spans) || spans[next+1].Start > f.End {
					gapAfter = f.End - s.End
				}
			} else if next > 0 && slices.ContainsFunc(holes, func(h ctxd.LineRange) bool { return h.Start == spans[next-1].End+1 && h.End == s.Start-1 }) {
				gapBefore = s.Start - spans[next-1].End - 1
				near = lines[spans[next-1].End] // the body's first line
			}
			for _, b := range []*strings.Builder{&full, &only} {
				if gapBefore > 0 {
					writeGap(b, near, gapBefore)
				}
				first := s.Start
				for first < s.End && strings.TrimSpace(lines[first-1]) == "" {
					// A blank margin (blankMargins) above the number
					// of the first line that says something.
					b.WriteString(lines[first-1])
					first++
				}
				num = strconv.AppendInt(num[:0], int64(first), 10)
				b.Write(num)
				b.WriteString(": ")
				for l := first; l <= s.End; l++ {
					b.WriteString(lines[l-1])
				}
				if !strings.HasSuffix(lines[s.End-1], "\n") {
					b.WriteString("\n")
				}
				if gapAfter > 0 {
					writeGap(b, lines[s.End-1], gapAfter)
				}
			}
		}
	}
	// Definitions inside a function body are listed only inside a
	// top-level definition that holds a focused span (the inner
	// functions beside the focused one): elsewhere they are noise.
	var tops []ctxd.LineRange
	for _, s := range syms {
		if s.Depth == 0 && !s.Inner && slices.ContainsFunc(spans, func(r ctxd.LineRange) bool { return r.Start <= s.End && s.Start <= r.End }) {
			tops = append(tops, ctxd.LineRange{Start: s.Start, End: s.End})
		}
	}
	var line []byte // an outline line: indent, number, signature
	// The hooks (the functions object literals hold) are outline lines
	// of the Focus view in place, as in the outline; the focus-only view
	// lists what the focused code needs, and they are never that.
	list, hook := syms, []bool(nil)
	if len(f.hooks) > 0 {
		list, hook = withHooks(syms, f.hooks)
	}
	i := -1 // s's index in syms
	for k, s := range list {
		isHook := hook != nil && hook[k]
		if !isHook {
			i++
			if i > 0 && s.Start == syms[i-1].Start && s.Signature == syms[i-1].Signature {
				continue
			}
		}
		writeSpans(s.Start)
		if inSpan(s.Start) || slices.ContainsFunc(holes, func(h ctxd.LineRange) bool { return h.Start <= s.Start && s.Start <= h.End }) {
			continue
		}
		if !isHook && s.Inner && !around[i] && !slices.ContainsFunc(tops, func(r ctxd.LineRange) bool { return r.Start <= s.Start && s.Start <= r.End }) {
			continue
		}
		line = line[:0]
		for range s.Depth {
			line = append(line, "  "...)
		}
		line = strconv.AppendInt(line, int64(s.Start), 10)
		line = append(line, ": "...)
		line = append(line, s.Signature...)
		line = append(line, '\n')
		full.Write(line)
		if !isHook && needed(i, s) {
			only.Write(line)
		}
	}
	writeSpans(len(lines) + 1)
	vs := []View{{Level: Focus, Language: lang, Text: full.String(), Elided: elided}}
	if only.Len() < full.Len() {
		vs = append(vs, View{Level: FocusOnly, Language: lang, Text: only.String(), Elided: slices.Clone(elided)})
	}
	return vs
}

// innerBody is a collapsible body inside a function: the lines its
// collapse elides, the function's lines, and the line count of the body
// around it (bodyEdit.outer).
type innerBody struct {
	elided, fn ctxd.LineRange
	outer      int
}

// outlined returns spans without the holes it cuts (Options.OutlineKept):
// the bodies inside a function of at least largeBody lines (outer) that
// lie in a span and hold no line opts keep, match or refer to, outermost
// first, except those inside a nested body holding such a line (the
// callback at the cursor stays whole with what it nests).
func (f *focusFile) outlined(spans []ctxd.LineRange, opts Options) ([]ctxd.LineRange, []ctxd.LineRange) {
	marks := slices.Concat(opts.KeepLines, opts.refLines())
	holds := func(r ctxd.LineRange) bool {
		return slices.ContainsFunc(marks, func(l int) bool { return r.Start <= l && l <= r.End })
	}
	in := func(a, b ctxd.LineRange) bool { return b.Start <= a.Start && a.End <= b.End }
	cut := make([]bool, len(f.lines)+2) // the lines of the holes
	found := false
	for _, b := range f.bodies {
		if b.outer < largeBody || b.elided.Start < 1 || b.elided.End > len(f.lines) || holds(b.fn) ||
			!slices.ContainsFunc(spans, func(s ctxd.LineRange) bool { return in(b.elided, s) }) ||
			slices.ContainsFunc(f.bodies, func(c innerBody) bool { return c.fn != b.fn && in(b.fn, c.fn) && holds(c.fn) && c.outer >= largeBody }) {
			continue
		}
		for l := b.elided.Start; l <= b.elided.End; l++ {
			cut[l] = true // a hole inside another is gone with it
		}
		found = true
	}
	if !found {
		return spans, nil
	}
	var out, holes []ctxd.LineRange
	for _, s := range spans {
		for l := s.Start; l <= s.End; {
			r := ctxd.LineRange{Start: l}
			for l <= s.End && cut[l] == cut[r.Start] {
				l++
			}
			r.End = l - 1
			if cut[r.Start] {
				holes = append(holes, r)
			} else {
				out = append(out, r)
			}
		}
	}
	return out, holes
}

// longAround returns, by index in spans, the function over LongBody lines
// each span lies strictly inside (a long function's lines around a kept
// line, focusSpans), innermost first: the focus views mark the lines of
// it they elide.
func longAround(syms []Symbol, spans []ctxd.LineRange) map[int]ctxd.LineRange {
	if !slices.ContainsFunc(syms, func(s Symbol) bool { return s.End-s.Start > LongBody && focusFunctionKinds[s.Kind] }) {
		return nil // most files: one pass, not one a span
	}
	var out map[int]ctxd.LineRange
	for k, r := range spans {
		best := -1
		for i, s := range syms {
			if focusFunctionKinds[s.Kind] && s.End-s.Start > LongBody && s.Start < r.Start && r.End <= s.End && (best < 0 || s.Depth > syms[best].Depth) {
				best = i
			}
		}
		if best >= 0 {
			if out == nil {
				out = map[int]ctxd.LineRange{}
			}
			out[k] = ctxd.LineRange{Start: syms[best].Start, End: syms[best].End}
		}
	}
	return out
}

// writeGap writes to b the line that stands for n elided lines of a long
// function, indented as the line next to it (near).
func writeGap(b *strings.Builder, near string, n int) {
	b.WriteString(near[:len(near)-len(strings.TrimLeft(near, " \t"))])
	fmt.Fprintf(b, "... (%d lines)\n", n)
}

// splitLines returns src's lines as strings.SplitAfter(src, "\n") does,
// cut at li (src's line index, from its analysis) when not nil instead
// of searching src for newlines again. The lines share src's bytes (no
// copy): they are read, never kept (the views copy them).
func splitLines(src []byte, li lineIndex) []string {
	text := unsafe.String(unsafe.SliceData(src), len(src))
	if li == nil {
		return strings.SplitAfter(text, "\n")
	}
	lines := make([]string, len(li))
	for i, start := range li {
		end := len(text)
		if i+1 < len(li) {
			end = li[i+1]
		}
		lines[i] = text[start:end]
	}
	return lines
}

// renderFocus returns the view at a focus level, or an error wrapping
// [ErrUnsupported] when nothing is focused.
func renderFocus(ctx context.Context, lang string, src []byte, level Level, opts Options) (View, error) {
	vs, err := FocusViews(ctx, lang, src, opts)
	if err != nil {
		return View{}, err
	}
	if v, ok := viewAt(vs, level); ok {
		return v, nil
	}
	if len(vs) > 0 {
		// FocusOnly is no smaller than Focus: Focus stands in.
		v := vs[0]
		v.Level = level
		return v, nil
	}
	return View{}, fmt.Errorf("render %s at %s: no function at the kept lines or of the kept names: %w", lang, level, ErrUnsupported)
}

// focusSpans returns the focused line ranges, doc comments included,
// sorted and merged.
func focusSpans(lang string, lines []string, syms []Symbol, imps []importLine, opts Options) []ctxd.LineRange {
	funcs := map[string]bool{}
	for _, f := range opts.KeepFuncs {
		funcs[f] = true
	}
	var spans []ctxd.LineRange
	add := func(s Symbol) {
		s = outerSmall(syms, s)
		if s.Start < 1 || s.End < s.Start || s.End > len(lines) {
			return
		}
		spans = append(spans, blankMargins(lines, ctxd.LineRange{Start: docStart(lang, lines, s.Start), End: s.End}))
	}
	for _, s := range syms {
		if !funcs[s.Name] && (s.Parent == "" || !funcs[s.Parent+"."+s.Name]) {
			continue
		}
		if focusFunctionKinds[s.Kind] && s.End-s.Start > LongBody && slices.ContainsFunc(opts.KeepLines, func(l int) bool { return s.Start <= l && l <= s.End }) {
			// A long function named and with a line kept in it (a
			// stack frame's, a focus line's) shows the lines around
			// that line (below), not all of its own.
			continue
		}
		if focusFunctionKinds[s.Kind] || s.Depth == 0 && s.End-s.Start < focusDeclLines {
			add(s)
		}
	}
	var heads map[int]bool // first lines of types whose head a kept line asks for
	for _, l := range opts.KeepLines {
		best, bestDecl := -1, -1
		for i, s := range syms {
			if s.Start > l || l > s.End {
				continue
			}
			if focusFunctionKinds[s.Kind] && (best < 0 || s.Depth > syms[best].Depth) {
				best = i
			}
			if s.End-s.Start < focusLineSpan && (bestDecl < 0 || s.Depth > syms[bestDecl].Depth) {
				bestDecl = i
			}
		}
		switch {
		case best >= 0 && syms[best].End-syms[best].Start > LongBody:
			// A long function's lines around l, in its outline: the
			// function whole would keep most of the file.
			s := syms[best]
			if s.Start >= 1 && s.End <= len(lines) {
				spans = append(spans, ctxd.LineRange{Start: max(l-longContext, s.Start), End: min(l+longContext, s.End)})
			}
		case best >= 0:
			add(syms[best])
		case bestDecl >= 0:
			add(syms[bestDecl])
		default:
			// A type too long to keep whole, kept at its first line (a
			// focus candidate of its head: a class's docstring and
			// attributes): its head.
			if heads == nil {
				heads = map[int]bool{}
			}
			heads[l] = true
		}
	}
	spans = append(spans, typeHeads(lang, lines, syms, spans, funcs, heads)...)
	for _, l := range opts.RefLines {
		if l >= 1 && l <= len(lines) {
			spans = append(spans, ctxd.LineRange{Start: l, End: l})
		}
	}
	for _, l := range slices.Concat(opts.MatchLines, opts.DeclLines) {
		if l >= 1 && l <= len(lines) {
			spans = append(spans, moduleSpan(lang, lines, syms, imps, l))
		}
	}
	vsort.Func(spans, func(a, b ctxd.LineRange) int { return a.Start - b.Start })
	return mergeRanges(spans)
}

// Limits of moduleSpan: a declaration of at most wholeDeclLines lines is
// shown whole for a line in it, an import group of at most
// importGroupLines, a statement of at most statementLines.
const (
	wholeDeclLines   = 12
	importGroupLines = 40
	statementLines   = 12
)

// moduleSpan returns the lines the focus views show for line l, a line
// holding a word of the request (MatchLines, DeclLines): l alone inside a
// function (the bodies view keeps the function; the focus views show the
// line in place); outside every function, what l belongs to, so a change
// to module-level code is seen with its context: the module-level
// statement around it when short (a constant over lines, `__all__`, a
// struct's fields, a Go var block, an exported object literal: the line
// a commit adds an entry after is in it; requests'
// `_preloaded_ssl_context.load_verify_locations(` and its arguments), else
// the short declaration around it, the import group it is in (requests'
// "Move ... from _utils.py" edited the `from ._utils import (` group), or
// the statement it opens, to where its brackets close.
func moduleSpan(lang string, lines []string, syms []Symbol, imps []importLine, l int) ctxd.LineRange {
	one := ctxd.LineRange{Start: l, End: l}
	if slices.ContainsFunc(syms, func(s Symbol) bool { return focusFunctionKinds[s.Kind] && s.Start <= l && l <= s.End }) {
		return one
	}
	// The module-level statement around l: from the nearest line above
	// it (or l) that starts at column 0 to where its brackets close.
	start := l
	for start > 1 && (strings.TrimSpace(lines[start-1]) == "" || indented(lines[start-1])) {
		start--
	}
	if !indented(lines[start-1]) {
		if end := statementEnd(lang, lines, start); end >= l && end > start && end-start < wholeDeclLines {
			return ctxd.LineRange{Start: docStart(lang, lines, start), End: end}
		}
	}
	// The outermost short declaration around l without a function in it.
	for _, s := range syms {
		if s.Start <= l && l <= s.End && s.End-s.Start < wholeDeclLines && s.End <= len(lines) && !slices.ContainsFunc(syms, func(m Symbol) bool {
			return focusFunctionKinds[m.Kind] && s.Start <= m.Start && m.End <= s.End
		}) {
			return ctxd.LineRange{Start: docStart(lang, lines, s.Start), End: s.End}
		}
	}
	if k := slices.IndexFunc(imps, func(im importLine) bool { return im.line == l || im.group == l }); k >= 0 && imps[k].group > 0 {
		g := imps[k].group
		end := l
		for _, im := range imps {
			if im.group == g {
				end = max(end, im.line)
			}
		}
		if end < len(lines) && closes(lines[end]) {
			end++ // the closing line, which binds no name
		}
		if end-g < importGroupLines {
			return ctxd.LineRange{Start: g, End: end}
		}
		return one
	}
	if end := statementEnd(lang, lines, l); end-l < statementLines {
		return ctxd.LineRange{Start: l, End: end}
	}
	return one
}

// indented reports a line that starts with a space or a tab.
func indented(line string) bool {
	return line != "" && (line[0] == ' ' || line[0] == '\t')
}

// closes reports a line that only closes brackets (an import group's
// `)` or `}`, a call's `)`), a comma or semicolon after them allowed.
func closes(line string) bool {
	t := strings.TrimRight(strings.TrimSpace(line), ",;")
	return t != "" && strings.Trim(t, ")]}") == ""
}

// statementEnd returns the line where the brackets opened on line l (of
// lines, 1-based) close, not counting those in quotes or a line comment;
// l when none stays open or they do not close within statementLines lines.
func statementEnd(lang string, lines []string, l int) int {
	hash := lang == "python" || lang == "ruby" || lang == "bash"
	depth := 0
	for k := l; k <= len(lines) && k-l < statementLines; k++ {
		var quote byte
		line := lines[k-1]
		for i := 0; i < len(line); i++ {
			ch := line[i]
			switch {
			case quote != 0:
				if ch == '\\' {
					i++
				} else if ch == quote {
					quote = 0
				}
			case ch == '#' && hash || ch == '/' && strings.HasPrefix(line[i:], "//") && !hash:
				i = len(line)
			case ch == '"' || ch == '\'' || ch == '`':
				quote = ch
			case ch == '(' || ch == '[' || ch == '{':
				depth++
			case ch == ')' || ch == ']' || ch == '}':
				depth--
			}
		}
		if depth <= 0 {
			return k
		}
	}
	return l
}

// Type heads (typeHeads): a named type shows at most NamedHeadLines lines
// of its head, the type of a focused member its head when that is at most
// memberHeadLines lines (12 and 24 showed long docstrings of classes whose
// methods were focused and cost httpx 8k one request of 50, all-lines 42
// -> 40%; BENCHMARKS.md "h25alloc").
const (
	NamedHeadLines  = 40
	memberHeadLines = 6
)

// typeHeads returns the heads of the types (classes and the like: any
// definition that is no function, with members nested in it) that hold a
// focused span, that funcs names or whose first line at holds (a focus
// line at a type's declaration: engine's candidate of its head) and are
// too long to keep whole: the
// lines from the type's declaration (doc comment included) to its first
// member that is not a field. They hold what a member's code means (its docstring, its
// fields and class attributes, `self.x` of a method), and a commit that
// adds a field or edits the docstring changes them (fastapi's APIRoute
// gained its attribute annotations under `class APIRoute(...):`, httpx's
// Client docstring was edited for "Client() class"); the outline line of
// the type showed its declaration but not a line below it.
func typeHeads(lang string, lines []string, syms []Symbol, spans []ctxd.LineRange, funcs map[string]bool, at map[int]bool) []ctxd.LineRange {
	var heads []ctxd.LineRange
	for i, t := range syms {
		if focusFunctionKinds[t.Kind] || t.Start < 1 || t.End <= t.Start || t.End > len(lines) {
			continue
		}
		named := funcs[t.Name] && !(t.Depth == 0 && t.End-t.Start < focusDeclLines) || at[t.Start]
		holds := slices.ContainsFunc(spans, func(r ctxd.LineRange) bool { return t.Start < r.Start && r.Start <= t.End })
		if !named && !holds {
			continue
		}
		// The head ends above the first member that is not a field (a
		// method, a nested type): fields and class attributes are part
		// of it.
		end := t.End
		for _, m := range syms[i+1:] {
			if m.Start > t.Start && m.Start <= t.End && !dataKinds[m.Kind] {
				end = docStart(lang, lines, m.Start) - 1
				break
			}
		}
		if end < t.Start {
			continue
		}
		limit := memberHeadLines
		if named {
			limit = NamedHeadLines
		}
		if end-t.Start+1 > limit {
			if !named {
				continue
			}
			end = t.Start + limit - 1
		}
		heads = append(heads, ctxd.LineRange{Start: docStart(lang, lines, t.Start), End: end})
	}
	return heads
}

// blankMargins returns r (a focused definition's lines, doc included)
// with the blank lines right above it and right below it, at most
// marginLines on each side: a function added next to a focused one is
// inserted there (gin's GetError went in at the blank line above the
// focused GetIntSlice's doc; at 8k on four development repositories, 4
// answer files hid only such lines), and a blank line costs next to
// nothing. Two, not one: Python leaves two blank lines between top-level
// definitions, and a function added below a focused one follows the
// second (requests' resolve_proxies below select_proxy).
func blankMargins(lines []string, r ctxd.LineRange) ctxd.LineRange {
	for k := 0; k < marginLines && r.Start > 1 && strings.TrimSpace(lines[r.Start-2]) == ""; k++ {
		r.Start--
	}
	for k := 0; k < marginLines && r.End < len(lines) && strings.TrimSpace(lines[r.End]) == ""; k++ {
		r.End++
	}
	return r
}

// marginLines bounds the blank lines blankMargins adds on each side.
const marginLines = 2

// outerSmall returns the function around an inner definition s when that
// function has fewer than largeBody lines, and so on outward; else s. A
// small function is kept whole with its inner definitions (render), and
// its own lines around the inner one are its context: focusing only the
// inner function had left them out (fastapi's setup, whose inner openapi
// and swagger_ui_html were shown without the lines of setup a commit
// changed). A large one is outlined around the inner definition instead.
func outerSmall(syms []Symbol, s Symbol) Symbol {
	for s.Inner {
		j := slices.IndexFunc(syms, func(p Symbol) bool {
			return p.Depth == s.Depth-1 && focusFunctionKinds[p.Kind] && p.Start <= s.Start && s.End <= p.End
		})
		if j < 0 || syms[j].End-syms[j].Start+1 >= largeBody {
			break
		}
		s = syms[j]
	}
	return s
}

// docStart extends a definition starting at line upward over the doc
// comments, attributes and decorators right above it.
func docStart(lang string, lines []string, line int) int {
	prefixes := []string{"//", "/*", "*", "@", "#["}
	if lang == "python" || lang == "ruby" {
		prefixes = []string{"#", "@"}
	}
	for line > 1 {
		prev := strings.TrimSpace(lines[line-2])
		if prev == "" && line > 2 && blockDocLangs[lang] && strings.HasSuffix(strings.TrimSpace(lines[line-3]), "*/") {
			// JSDoc separated by one blank line.
			line--
			continue
		}
		if prev == "" || !hasAnyPrefix(prev, prefixes) {
			break
		}
		line--
	}
	return line
}

// blockDocLangs allow a blank line between a doc block and its definition.
var blockDocLangs = map[string]bool{"javascript": true, "typescript": true, "tsx": true}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// The roles of a name focusViews looks for in the focused code: one the
// focus-only view lists when used (a symbol, an import), one withUsed
// shows the lines of (a short declaration, a name an import line binds).
const (
	nameView uint8 = 1 << iota
	nameUsed
)

// identifiersIn returns the identifier-like words of text that are among
// names, each with its roles (a map of every word of the text would
// mostly hold words nobody looks up). Words never span lines, so the
// words of lines scanned apart are those of the lines scanned together.
func identifiersIn(text string, names map[string]uint8) map[string]uint8 {
	out := map[string]uint8{}
	for _, w := range appendWords(nil, text, names) {
		out[w.name] = w.role
	}
	return out
}

// appendWords appends to dst the identifier-like words of text that are
// among names, each with its roles, in order (a word as often as it
// occurs).
func appendWords(dst []focusWord, text string, names map[string]uint8) []focusWord {
	start := -1
	for i := 0; i <= len(text); i++ {
		ident := i < len(text) && (text[i] == '_' || text[i] >= 'a' && text[i] <= 'z' || text[i] >= 'A' && text[i] <= 'Z' || text[i] >= '0' && text[i] <= '9' || text[i] >= 0x80)
		switch {
		case ident && start < 0:
			start = i
		case !ident && start >= 0:
			if role := names[text[start:i]]; role != 0 {
				dst = append(dst, focusWord{text[start:i], role})
			}
			start = -1
		}
	}
	return dst
}

// usedImports returns the imports whose last path element the focused
// code names ("net/http" for http.Get, "./util.js" for util.x).
func usedImports(imports []string, used map[string]bool) []string {
	var out []string
	for _, imp := range imports {
		if used[importName(imp)] && !slices.Contains(out, imp) {
			out = append(out, imp)
		}
	}
	return out
}

// importName is the name code uses for an import: the last element of
// its path, without a .js or .ts suffix ("net/http" is http).
func importName(imp string) string {
	name := strings.Trim(imp, `"'`)
	name = path.Base(name)
	if i := strings.LastIndexAny(name, ".:"); i >= 0 && i+1 < len(name) && !strings.HasSuffix(name, ".js") && !strings.HasSuffix(name, ".ts") {
		name = name[i+1:]
	}
	return strings.TrimSuffix(strings.TrimSuffix(name, ".js"), ".ts")
}

// Limits of withUsed: a declaration of at most usedDeclLines lines, at
// most usedLinesMax lines added to a view, import lines looked for in the
// first importHeadLines lines.
const (
	usedDeclLines   = 6
	usedLinesMax    = 16
	importHeadLines = 200
)

// dataKinds are the kinds of declaration that hold data: constants,
// variables (Python's module assignments, JavaScript's const and
// require), class attributes and struct fields. withUsed shows them whole
// when the focused code names them, and a type's head holds its members
// of these kinds (typeHeads).
var dataKinds = map[string]bool{"const": true, "var": true, "field": true}

// withUsed returns spans (sorted, merged) with the lines the focused code
// uses beside it: the import lines (imports, of importLines) that bring a
// name it uses, and the short declarations it names (a module constant or
// variable, a class attribute or field of its own type), each at most
// usedDeclLines long, usedLinesMax lines in all. A change to a function
// often touches them (the import of what its new code calls, the constant
// it compares against), and the outline shows a declaration's first line
// only as an elided outline line and an import not at all. found holds
// the names the focused code uses (identifiersIn), those with the role
// nameUsed being the ones looked for here.
//
// added is the ranges of lines added; importsShown reports import lines
// among them: the focus-only view then leaves out its list of the imports
// used.
func withUsed(lines []string, syms []Symbol, spans []ctxd.LineRange, imports []importLine, found map[string]uint8) (_, added []ctxd.LineRange, importsShown bool) {
	used := func(n string) bool { return found[n]&nameUsed != 0 }
	some := false
	for _, role := range found {
		some = some || role&nameUsed != 0
	}
	if !some {
		return spans, nil, false
	}
	inSpan := func(l int) bool { return ctxd.InRanges(spans, l) }
	parents := map[string]bool{}
	for _, s := range syms {
		if focusFunctionKinds[s.Kind] && s.Parent != "" && inSpan(s.Start) {
			parents[s.Parent] = true
		}
	}
	var add []ctxd.LineRange
	n := 0
	take := func(r ctxd.LineRange) {
		if k := r.End - r.Start + 1; n+k <= usedLinesMax && !inSpan(r.Start) {
			add = append(add, r)
			n += k
		}
	}
	for _, im := range imports {
		if slices.ContainsFunc(im.names, used) {
			if im.group > 0 {
				take(ctxd.LineRange{Start: im.group, End: im.group})
			}
			take(ctxd.LineRange{Start: im.line, End: im.line})
			importsShown = importsShown || ctxd.InRanges(add, im.line)
		}
	}
	for _, s := range syms {
		if !dataKinds[s.Kind] || !used(s.Name) || s.Inner || s.End-s.Start >= usedDeclLines || s.Start < 1 || s.End > len(lines) {
			continue
		}
		if s.Depth == 0 || s.Depth == 1 && parents[s.Parent] {
			take(ctxd.LineRange{Start: s.Start, End: s.End})
		}
	}
	if len(add) == 0 {
		return spans, nil, false
	}
	out := append(slices.Clone(spans), add...)
	vsort.Func(out, func(a, b ctxd.LineRange) int { return a.Start - b.Start })
	return mergeRanges(out), add, importsShown
}

// rangesText returns the lines of rs, in order, as one text.
func rangesText(lines []string, rs []ctxd.LineRange) string {
	var b strings.Builder
	b.Grow(rangesLen(lines, rs))
	for _, r := range rs {
		for l := r.Start; l <= r.End; l++ {
			b.WriteString(lines[l-1])
		}
	}
	return b.String()
}

// rangesLen returns the length in bytes of the lines of rs.
func rangesLen(lines []string, rs []ctxd.LineRange) int {
	n := 0
	for _, r := range rs {
		for l := r.Start; l <= r.End; l++ {
			n += len(lines[l-1])
		}
	}
	return n
}

// importLine is one line of a file's imports: its number, the line that
// opens its group when it is inside one (Go's `import (`, Python's
// `from m import (`, a JavaScript `import {` over several lines), 0
// otherwise, and the names it binds.
type importLine struct {
	line, group int
	names       []string
}

// importLines returns the import lines of the head of a file (before its
// first function or type, at most importHeadLines lines): lines that
// start with import, from, use, require or #include, and the lines of a
// group such a line opens. A line's names are its identifiers outside
// quotes but the keywords; for a line with none (Go's `"net/http"`), the
// last element of its quoted path.
func importLines(lines []string, syms []Symbol) []importLine {
	head := min(len(lines), importHeadLines)
	for _, s := range syms {
		if s.Depth == 0 && !dataKinds[s.Kind] && s.Kind != "module" && s.Start-1 < head {
			head = s.Start - 1
		}
	}
	var out []importLine
	group, closer := 0, ""
	for i := 0; i < head; i++ {
		t := strings.TrimSpace(lines[i])
		if group > 0 {
			if strings.Contains(uncommented(t), closer) { // `)`, `} from "x"`, Python's `b)`
				if names := importNames(t); len(names) > 0 {
					out = append(out, importLine{line: i + 1, group: group, names: names})
				}
				group = 0
				continue
			}
			if names := importNames(t); len(names) > 0 {
				out = append(out, importLine{line: i + 1, group: group, names: names})
			}
			continue
		}
		if !isImportStart(t) {
			continue
		}
		switch {
		case strings.HasSuffix(t, "("):
			group, closer = i+1, ")"
		case strings.HasSuffix(t, "{"):
			group, closer = i+1, "}"
		case opens(t, '(', ')'), opens(t, '{', '}'):
			// `from m import (a,` or `import {a,`: the group goes on
			// over lines, and this line binds names of it too.
			group, closer = i+1, ")"
			if !opens(t, '(', ')') {
				closer = "}"
			}
			if names := importNames(t); len(names) > 0 {
				out = append(out, importLine{line: i + 1, group: group, names: names})
			}
			continue
		}
		if group == 0 {
			if names := importNames(t); len(names) > 0 {
				out = append(out, importLine{line: i + 1, names: names})
			}
		}
	}
	return out
}

// uncommented returns t without a `//`, `#` or `/*` comment.
func uncommented(t string) string {
	for _, c := range []string{"//", "#", "/*"} {
		if i := strings.Index(t, c); i >= 0 {
			t = t[:i]
		}
	}
	return t
}

// opens reports a line that opens more brackets than it closes, outside
// quotes and comments.
func opens(t string, open, close byte) bool {
	t = uncommented(t)
	depth := 0
	var quote byte
	for i := 0; i < len(t); i++ {
		switch ch := t[i]; {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '"' || ch == '\'' || ch == '`':
			quote = ch
		case ch == open:
			depth++
		case ch == close:
			depth--
		}
	}
	return depth > 0
}

// isImportStart reports a line that starts an import statement.
func isImportStart(t string) bool {
	for _, p := range []string{"import ", "import(", "from ", "use ", "require "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// importKeywords are the words of import lines that bind no name.
var importKeywords = map[string]bool{"import": true, "from": true, "as": true, "use": true, "type": true, "typeof": true, "require": true, "include": true, "self": true, "super": true, "crate": true, "pub": true, "static": true, "mod": true, "_": true}

// importNames returns the names an import line binds: its identifiers
// outside quotes and comments but the keywords, or, when it has none, the
// last element of its first quoted path (Go's "net/http" binds http).
func importNames(t string) []string {
	for _, c := range []string{"//", "#", "/*"} {
		if i := strings.Index(t, c); i >= 0 {
			t = t[:i]
		}
	}
	var names []string
	var quoted string
	inQuote := byte(0)
	start := -1
	for i := 0; i <= len(t); i++ {
		var ch byte
		if i < len(t) {
			ch = t[i]
		}
		if inQuote != 0 {
			if ch == inQuote || i == len(t) {
				if quoted == "" {
					quoted = t[start:i]
				}
				inQuote, start = 0, -1
			}
			continue
		}
		ident := i < len(t) && (ch == '_' || ch == '$' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' && start >= 0)
		switch {
		case ch == '"' || ch == '\'' || ch == '`':
			inQuote, start = ch, i+1
		case ident && start < 0:
			start = i
		case !ident && start >= 0:
			if w := t[start:i]; !importKeywords[w] {
				names = append(names, w)
			}
			start = -1
		}
	}
	if len(names) == 0 && quoted != "" {
		names = append(names, importName(quoted))
	}
	return names
}
