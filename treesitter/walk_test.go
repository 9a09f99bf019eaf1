//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
	sitter "github.com/smacker/go-tree-sitter"
)

// TestWalkMatchesCursor: the walk in C (parse) builds the same nodes and
// reports the same leaves as the binding's cursor walk it replaced
// (parseCursor), with and without shallow subtrees, whatever the number of
// nodes one C call returns.
func TestWalkMatchesCursor(t *testing.T) {
	type file struct {
		name string
		src  []byte
	}
	var files []file
	for _, in := range goldenInputs(t) {
		files = append(files, file{in.path, in.src})
	}
	// Larger Go files (the smaller one alone under the race detector), and
	// a file with a syntax error (missing and error nodes).
	large := []string{"src/net/http/server.go", "src/unicode/tables.go"}
	if testutil.RaceEnabled || testing.Short() {
		large = large[:1]
	}
	for _, p := range large {
		b, err := os.ReadFile(filepath.Join(runtime.GOROOT(), p))
		if err != nil {
			t.Logf("skipped: %v", err)
			continue
		}
		files = append(files, file{p, b})
	}
	if b, err := os.ReadFile("testdata/golden/server.go"); err == nil {
		files = append(files, file{"broken.go", append(b[:len(b)/2:len(b)/2], []byte("\nfunc (x {\n")...)})
	}
	defer func(v int) { walkChunk = v }(walkChunk)
	for _, f := range files {
		lang := Detect(f.name, f.src)
		g, ok := grammars[lang]
		if !ok {
			t.Fatalf("%s: no grammar for %q", f.name, lang)
		}
		spec := specs[lang]
		for _, shallow := range []bool{false, true} {
			for _, leaves := range []bool{false, true} {
				walk := func(cursor bool, chunk int) string {
					walkChunk = chunk
					var sb strings.Builder
					var leaf func(typ string, start, end int)
					if leaves {
						leaf = func(typ string, start, end int) { fmt.Fprintf(&sb, "L %s %d %d\n", typ, start, end) }
					}
					var sf func(*node) int
					if shallow {
						sf = spec.shallowFunc(f.src)
					}
					parse := g.parse
					if cursor {
						parse = g.parseCursor
					}
					root, err := parse(context.Background(), f.src, time.Minute, sf, leaf)
					if err != nil {
						t.Fatalf("%s: %v", f.name, err)
					}
					dumpNode(&sb, root, 0)
					return sb.String()
				}
				want := walk(true, 4096)
				if strings.Count(want, "\n") < 10 {
					t.Fatalf("%s: %d lines of nodes", f.name, strings.Count(want, "\n"))
				}
				chunks := []int{1, 3, 4096}
				if len(f.src) > 64<<10 {
					chunks = []int{997, 4096}
				}
				for _, chunk := range chunks {
					if got := walk(false, chunk); got != want {
						t.Errorf("%s (shallow %v, leaves %v): the C walk %d nodes a call differs from the cursor's", f.name, shallow, leaves, chunk)
					}
				}
			}
		}
	}
}

func dumpNode(sb *strings.Builder, n *node, depth int) {
	fmt.Fprintf(sb, "%d %s %q %d %d %v %v %v %d\n", depth, n.typ, n.field, n.start, n.end, n.named, n.missing, n.hasError, n.idx)
	for _, k := range n.kids {
		if k.parent != n {
			sb.WriteString("bad parent\n")
		}
		dumpNode(sb, k, depth+1)
	}
}

// parseCursor is parse as it was before the walk moved to C: the
// binding's cursor, six cgo calls and a cached Go node per node.
func (g *sitterGrammar) parseCursor(ctx context.Context, src []byte, timeout time.Duration, shallow func(*node) int, leaf func(typ string, start, end int)) (*node, error) {
	t, err := g.tree(ctx, src, timeout)
	if err != nil {
		return nil, err
	}
	root := t.RootNode()
	c := sitter.NewTreeCursor(root)
	defer func() {
		c.Close()
		t.Close()
	}()
	hasErr := root.HasError()
	var a arena
	mk := func(parent *node) *node {
		sn := c.CurrentNode()
		sym := sn.Symbol()
		n := a.new()
		if int(sym) < len(g.types) {
			n.typ = g.types[sym]
			n.named = g.named[sym]
		} else {
			n.typ = "ERROR" // 0xFFFF is the error symbol
			n.named = true
		}
		n.start = int(sn.StartByte())
		n.end = int(sn.EndByte())
		n.field = c.CurrentFieldName()
		if hasErr && sn.IsMissing() {
			n.missing = true
		}
		n.parent = parent
		if parent != nil {
			n.idx = len(parent.kids)
			parent.kids = append(parent.kids, n)
		}
		return n
	}
	// leaves reports the named leaves below the cursor's node cur, not
	// copied, and leaves the cursor on that node.
	var below []int // the child indexes from cur down to the cursor
	leaves := func(cur *node) {
		below = below[:0]
		for {
			if c.GoToFirstChild() {
				below = append(below, 0)
				continue
			}
			sn := c.CurrentNode()
			if sym := int(sn.Symbol()); sym < len(g.types) && g.named[sym] {
				leaf(g.types[sym], int(sn.StartByte()), int(sn.EndByte()))
			}
			for {
				if len(below) == 0 {
					return
				}
				if c.GoToNextSibling() {
					below[len(below)-1]++
					break
				}
				c.GoToParent()
				below = below[:len(below)-1]
			}
		}
	}
	top := mk(nil)
	top.hasError = hasErr
	cur := top
	depth := 0
	limit := -1 // depth below which nothing is copied, -1 when unlimited
	at := -1    // depth of the shallow node that set limit
	for {
		if limit < 0 && shallow != nil {
			if d := shallow(cur); d >= 0 {
				limit, at = depth+d, depth
			}
		}
		descend := limit < 0 || depth < limit
		if descend && c.GoToFirstChild() {
			cur = mk(cur)
			depth++
			continue
		}
		switch {
		case leaf == nil:
		case descend: // a leaf, copied
			if cur.named {
				leaf(cur.typ, cur.start, cur.end)
			}
		default:
			leaves(cur)
		}
		for {
			if limit >= 0 && depth <= at {
				limit, at = -1, -1 // leaving the shallow node
			}
			if depth > 0 && c.GoToNextSibling() {
				cur = mk(cur.parent)
				break
			}
			if depth == 0 || !c.GoToParent() {
				return top, nil
			}
			cur = cur.parent
			depth--
		}
	}
}
