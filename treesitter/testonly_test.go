//go:build cgo && !notreesitter

package treesitter

import "context"

// Functions only the tests use (they were exported or compiled into the
// binary before).

// len returns the number of cached items.
func (c *lru[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// analyzeCached parses and analyzes src, or returns the cached analysis.
// With syntax errors it returns the analysis and an error wrapping both
// errSyntax and ErrUnsupported.
func analyzeCached(ctx context.Context, lang string, src []byte, left func() timeLeft) (*analysis, error) {
	return analyzeLeaves(ctx, lang, src, sumOf(src), left, nil, nil)
}

// render is renderAfter without a view known to parse.
func (a *analysis) render(ctx context.Context, g grammar, level Level, o Options, timeout func() timeLeft, store *Store) (View, error) {
	return a.renderAfter(ctx, g, level, o, timeout, store, "")
}
