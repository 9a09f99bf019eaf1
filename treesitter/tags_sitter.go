//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// FileTagsStored returns a file's definitions and references: the
// definitions of [Symbols] and the identifier leaves of its syntax tree,
// from one parse (whose analysis is cached for the file's views). A file
// with syntax errors still yields what the parser recognized. The parse is
// bounded by ctx's deadline, or by [DefaultTimeout] when ctx has none. It
// records the analysis it parses in store (when not nil), as
// [SymbolsStored] does, and does not parse a content whose parse ran out
// of time before (see timeoutVerdict). FileTagsStored may run
// concurrently.
func FileTagsStored(ctx context.Context, lang string, src []byte, store *Store) (*Tags, error) {
	if err := supportedSize(lang, src); err != nil {
		return nil, err
	}
	ctx, limit, cancel := parseLimit(ctx)
	defer cancel()
	t, _, err := fileTags(ctx, lang, src, sumOf(src), budget(ctx, lang, limit), store, true)
	return t, err
}

// fileTags parses src once for its tags and analysis (see
// analyzeKept for store and cache).
func fileTags(ctx context.Context, lang string, src []byte, sum sourceSum, left func() timeLeft, store *Store, cache bool) (*Tags, *analysis, error) {
	isID := map[string]bool{}
	seen := map[string]struct{}{}
	leaf := func(typ string, start, end int) {
		id, ok := isID[typ]
		if !ok {
			id = isIdentifierType(typ)
			isID[typ] = id
		}
		if id && end > start && end <= len(src) && end-start <= 128 {
			if _, ok := seen[string(src[start:end])]; !ok {
				seen[string(src[start:end])] = struct{}{}
			}
		}
	}
	a, err := analyzeKept(ctx, lang, src, sum, left, leaf, store, cache)
	if err != nil && !errors.Is(err, errSyntax) {
		return nil, nil, err
	}
	refs := make([]string, 0, len(seen))
	for s := range seen {
		refs = append(refs, s)
	}
	slices.Sort(refs)
	// Tests and suites are named by their titles, not identifiers: they
	// stay out of the symbol index.
	defs := slices.DeleteFunc(slices.Clone(a.symbols), func(s Symbol) bool { return s.Kind == "test" || s.Kind == "suite" })
	return &Tags{Language: lang, Defs: defs, Refs: refs}, a, nil
}

// Prepare is the daemon's background analysis of one file: one parse
// gives the file's tags (as [FileTagsStored]) and its analysis, which goes into
// store, and the standard views ([Views] without keep lists) are rendered
// from it, so their check parses' verdicts are stored too. The process's
// caches are left alone: a whole tree going through them would evict
// what requests use. Without tags (false), the symbol index has the
// file already and only the views are prepared. It returns the tags (nil
// without) and the views (nil for a file without: syntax errors). Prepare
// may run concurrently.
func Prepare(ctx context.Context, lang string, src []byte, store *Store, tags bool) (*Tags, []View, error) {
	if err := supportedSize(lang, src); err != nil {
		return nil, nil, err
	}
	ctx, limit, cancel := parseLimit(ctx)
	defer cancel()
	sum := sumOf(src)
	left := budget(ctx, lang, limit)
	var t *Tags
	var a *analysis
	var err error
	if tags {
		t, a, err = fileTags(ctx, lang, src, sum, left, store, false)
		if err != nil {
			return nil, nil, err
		}
	} else {
		a, err = analyzeKept(ctx, lang, src, sum, left, nil, store, false)
		if err != nil && !errors.Is(err, errSyntax) {
			return nil, nil, err
		}
	}
	if a.syntax {
		return t, nil, nil // no structural views (Views fails alike)
	}
	vs, err := a.views(ctx, src, Options{Store: store}, left)
	return t, vs, err
}

// DefsAtAnyDepth returns src's definitions as [FileTagsStored] does, and
// also those inside function bodies of any size: the views and the symbol
// index walk only bodies of innerMinLines lines or more for them (a small
// function shows whole anyway), but a reader looking a name up wants its
// definition found wherever it is (`def wrapped():` inside a five-line
// method). It parses src whole (a walk the analysis the views render from
// does not keep), so callers ask only for a file that may hold such a
// definition; the result is kept per content (innerCache), so asking
// again (find_symbol of another name in the same file, or of the same
// name in the next request) does not parse again.
func DefsAtAnyDepth(ctx context.Context, lang string, src []byte) ([]Symbol, error) {
	if err := supportedSize(lang, src); err != nil {
		return nil, err
	}
	key := keyOf("inner-defs", lang, sumOf(src), Options{})
	if syms, ok := innerCache.get(key); ok {
		return slices.Clone(*syms), nil
	}
	syms, err := defsAtAnyDepth(ctx, lang, src)
	if err != nil {
		return nil, err
	}
	if !CachesOff(ctx) {
		n := 0
		for _, s := range syms {
			n += 128 + len(s.Signature) + len(s.Doc)
		}
		kept := slices.Clone(syms)
		innerCache.put(key, &kept, n)
	}
	return syms, nil
}

// innerCache keeps DefsAtAnyDepth's result per content. A pointer: the
// LRU's code for pointers is the analyses' (no other instantiation in the
// release binary).
var innerCache = newLRU[*[]Symbol](4 << 20)

// parseOwn parses a copy of src (the tree points into it) in lang under
// the parse limits, for the readers only find_symbol uses.
func parseOwn(ctx context.Context, lang string, src []byte) (*node, []byte, error) {
	ctx, limit, cancel := parseLimit(ctx)
	defer cancel()
	g, _ := grammarFor(lang)
	t := budget(ctx, lang, limit)()
	if t.err != nil {
		return nil, nil, t.err
	}
	own := append([]byte(nil), src...)
	root, err := g.parse(ctx, own, t.d, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	return root, own, nil
}

func defsAtAnyDepth(ctx context.Context, lang string, src []byte) ([]Symbol, error) {
	root, own, err := parseOwn(ctx, lang, src)
	if err != nil {
		return nil, err
	}
	a := analyzeInner(specs[lang], root, own, 1, true)
	return slices.DeleteFunc(a.symbols, func(s Symbol) bool { return s.Kind == "test" || s.Kind == "suite" }), nil
}

// NonCode returns the byte spans of src that are no code: its string
// literals (a docstring, a template's text; an interpolation inside one,
// `${f()}` or `{f()}`, is code again) and its comments, sorted by start.
// find_symbol reads a name inside one as no use of it. The result is
// kept per content (nonCodeCache).
func NonCode(ctx context.Context, lang string, src []byte) ([]Span, error) {
	if err := supportedSize(lang, src); err != nil {
		return nil, err
	}
	key := keyOf("non-code", lang, sumOf(src), Options{})
	if spans, ok := nonCodeCache.get(key); ok {
		return slices.Clone(*spans), nil
	}
	root, _, err := parseOwn(ctx, lang, src)
	if err != nil {
		return nil, err
	}
	var spans []Span
	comments := specs[lang].comments
	var walk func(n *node)
	// text emits a string's spans around the interpolations inside it
	// (cur: where the string's text resumes), walked as code.
	var text func(n *node, cur *int)
	text = func(n *node, cur *int) {
		for _, k := range n.kids {
			if strings.Contains(k.typ, "interpolat") || strings.Contains(k.typ, "substitution") {
				spans = append(spans, Span{Start: *cur, End: k.start})
				walk(k)
				*cur = k.end
				continue
			}
			text(k, cur)
		}
	}
	walk = func(n *node) {
		switch {
		case comments[n.typ] || strings.Contains(n.typ, "comment"):
			spans = append(spans, Span{Start: n.start, End: n.end})
			return
		case n.named && (strings.Contains(n.typ, "string") || n.typ == "text_block"):
			cur := n.start
			text(n, &cur)
			spans = append(spans, Span{Start: cur, End: n.end})
			return
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(root)
	spans = slices.DeleteFunc(spans, func(s Span) bool { return s.End <= s.Start })
	slices.SortFunc(spans, func(a, b Span) int { return a.Start - b.Start })
	if !CachesOff(ctx) {
		kept := slices.Clone(spans)
		nonCodeCache.put(key, &kept, 64+16*len(kept))
	}
	return spans, nil
}

// nonCodeCache keeps NonCode's result per content.
var nonCodeCache = newLRU[*[]Span](1 << 20)
