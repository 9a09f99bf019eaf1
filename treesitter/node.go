//go:build cgo && !notreesitter

package treesitter

// node is a syntax tree node copied out of tree-sitter into Go memory, so
// the algorithm walks plain Go values (no cgo call per step) and the C tree
// can be freed right after the parse.
type node struct {
	typ      string // node type ("function_declaration", "{", "ERROR")
	field    string // field name in the parent ("body", "name"), or ""
	start    int    // byte offsets, half-open
	end      int
	named    bool
	missing  bool
	hasError bool // set on the root only: the tree has ERROR or MISSING nodes
	idx      int  // index in parent.kids
	parent   *node
	kids     []*node
}

func (n *node) text(src []byte) string { return string(src[n.start:n.end]) }

// child returns the first child with the field name f.
func (n *node) child(f string) *node {
	for _, k := range n.kids {
		if k.field == f {
			return k
		}
	}
	return nil
}

// children returns every child with the field name f.
func (n *node) children(f string) []*node {
	var out []*node
	for _, k := range n.kids {
		if k.field == f {
			out = append(out, k)
		}
	}
	return out
}

// ofType returns the first child whose type is one of types.
func (n *node) ofType(types ...string) *node {
	for _, k := range n.kids {
		for _, t := range types {
			if k.typ == t {
				return k
			}
		}
	}
	return nil
}

// has reports a direct child of type t (named or a keyword token).
func (n *node) has(t string) bool { return n.ofType(t) != nil }

// first and last return the first and last child, or nil.
func (n *node) first() *node {
	if len(n.kids) == 0 {
		return nil
	}
	return n.kids[0]
}

func (n *node) last() *node {
	if len(n.kids) == 0 {
		return nil
	}
	return n.kids[len(n.kids)-1]
}
