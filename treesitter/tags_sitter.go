//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"errors"
	"slices"
)

// FileTags returns a file's definitions and references: the definitions of
// [Symbols] and the identifier leaves of its syntax tree, from one parse
// (whose analysis is cached for the file's views). A file with syntax
// errors still yields what the parser recognized. The parse is bounded by
// ctx's deadline, or by [DefaultTimeout] when ctx has none. FileTags may
// run concurrently.
func FileTags(ctx context.Context, lang string, src []byte) (*Tags, error) {
	if err := supportedSize(lang, src); err != nil {
		return nil, err
	}
	ctx, limit, cancel := parseLimit(ctx)
	defer cancel()
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
	a, err := analyzeLeaves(ctx, lang, src, sumOf(src), budget(ctx, lang, limit), leaf, nil)
	if err != nil && !errors.Is(err, errSyntax) {
		return nil, err
	}
	refs := make([]string, 0, len(seen))
	for s := range seen {
		refs = append(refs, s)
	}
	slices.Sort(refs)
	// Tests and suites are named by their titles, not identifiers: they
	// stay out of the symbol index.
	defs := slices.DeleteFunc(slices.Clone(a.symbols), func(s Symbol) bool { return s.Kind == "test" || s.Kind == "suite" })
	return &Tags{Language: lang, Defs: defs, Refs: refs}, nil
}
