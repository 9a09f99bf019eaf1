//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"slices"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
)

// FileTags returns a file's definitions and references: the definitions of
// [Symbols] and the identifier leaves of its syntax tree. A file with
// syntax errors still yields what the parser recognized. The parses are
// bounded by ctx's deadline, or by [DefaultTimeout] each when ctx has none.
// FileTags may run concurrently.
func FileTags(ctx context.Context, lang string, src []byte) (*Tags, error) {
	syms, err := Symbols(ctx, lang, src)
	if err != nil {
		return nil, err
	}
	g, _ := grammarFor(lang)
	limit := DefaultTimeout
	if dl, ok := ctx.Deadline(); ok {
		limit = time.Until(dl)
	}
	refs, err := g.(*sitterGrammar).identifiers(ctx, src, limit)
	if err != nil {
		return nil, err
	}
	return &Tags{Language: lang, Defs: syms.Symbols, Refs: refs}, nil
}

// identifiers parses src and returns the text of its identifier leaves,
// sorted and unique. The walk stays in C but for the leaves' symbols.
func (g *sitterGrammar) identifiers(ctx context.Context, src []byte, timeout time.Duration) ([]string, error) {
	if len(src) == 0 {
		return nil, nil
	}
	t, err := g.tree(ctx, src, timeout)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	c := sitter.NewTreeCursor(t.RootNode())
	defer c.Close()
	isID := make([]int8, len(g.types)) // 0 unknown, 1 identifier, -1 not
	seen := map[string]struct{}{}
	for {
		if c.GoToFirstChild() {
			continue
		}
		// A leaf.
		n := c.CurrentNode()
		if sym := int(n.Symbol()); sym < len(g.types) {
			if isID[sym] == 0 {
				isID[sym] = -1
				if g.named[sym] && isIdentifierType(g.types[sym]) {
					isID[sym] = 1
				}
			}
			if isID[sym] == 1 {
				s, e := n.StartByte(), n.EndByte()
				if e > s && int(e) <= len(src) && e-s <= 128 {
					if _, ok := seen[string(src[s:e])]; !ok {
						seen[string(src[s:e])] = struct{}{}
					}
				}
			}
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				out := make([]string, 0, len(seen))
				for s := range seen {
					out = append(out, s)
				}
				slices.Sort(out)
				return out, nil
			}
		}
	}
}
