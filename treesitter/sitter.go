//go:build cgo && !notreesitter

package treesitter

// This file is the only one that imports a tree-sitter binding. Everything
// else works on the Go-side [node] tree and the [grammar] interface below,
// so moving to the official github.com/tree-sitter/go-tree-sitter (v0.25)
// means rewriting this file alone: its Parser, Tree and TreeCursor have the
// same shape (SetTimeoutMicros becomes a progress callback there).

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/kotlin"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/swift"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// grammar is what the truncation algorithm needs from a tree-sitter
// binding for one language.
type grammar interface {
	// parse returns the syntax tree of src copied into Go memory. The C
	// tree is freed before it returns. Below a node for which shallow
	// returns d >= 0 only d levels are copied (function bodies: the
	// algorithm needs their braces and first statement, not the rest).
	// leaf, when not nil, is called with every named leaf of the whole
	// tree, copied or not (the symbol index's identifiers).
	parse(ctx context.Context, src []byte, timeout time.Duration, shallow func(*node) int, leaf func(typ string, start, end int)) (*node, error)
	// errors parses src and returns the spans of its ERROR and MISSING
	// nodes (none when src parses cleanly).
	errors(ctx context.Context, src []byte, timeout time.Duration) ([]span, error)
}

var grammarFuncs = map[string]func() *sitter.Language{
	"go":         golang.GetLanguage,
	"python":     python.GetLanguage,
	"javascript": javascript.GetLanguage,
	"typescript": typescript.GetLanguage,
	"tsx":        tsx.GetLanguage,
	"rust":       rust.GetLanguage,
	"java":       java.GetLanguage,
	"c":          c.GetLanguage,
	"cpp":        cpp.GetLanguage,
	"csharp":     csharp.GetLanguage,
	"ruby":       ruby.GetLanguage,
	"php":        php.GetLanguage,
	"kotlin":     kotlin.GetLanguage,
	"swift":      swift.GetLanguage,
}

// grammars holds one pool per language, built once.
var grammars = func() map[string]*sitterGrammar {
	m := make(map[string]*sitterGrammar, len(grammarFuncs))
	for name, f := range grammarFuncs {
		m[name] = newSitterGrammar(name, f())
	}
	return m
}()

func grammarFor(lang string) (grammar, bool) {
	g, ok := grammars[lang]
	return g, ok
}

// sitterGrammar parses one language with a pool of parsers. A parser is
// used by one goroutine at a time; the pool keeps at most GOMAXPROCS idle
// parsers and closes the rest.
type sitterGrammar struct {
	name   string
	lang   *sitter.Language
	types  []string // symbol id → node type name, interned
	named  []bool   // symbol id → named node
	fields []string // field id → field name, "" for none
	pool   chan *sitter.Parser
}

func newSitterGrammar(name string, lang *sitter.Language) *sitterGrammar {
	n := lang.SymbolCount()
	g := &sitterGrammar{
		name:  name,
		lang:  lang,
		types: make([]string, n),
		named: make([]bool, n),
		pool:  make(chan *sitter.Parser, runtime.GOMAXPROCS(0)),
	}
	for i := uint32(0); i < n; i++ {
		g.types[i] = lang.SymbolName(sitter.Symbol(i))
		g.named[i] = lang.SymbolType(sitter.Symbol(i)) == sitter.SymbolTypeRegular
	}
	g.fields = []string{""}
	for i := 1; ; i++ {
		f := lang.FieldName(i)
		if f == "" {
			break
		}
		g.fields = append(g.fields, f)
	}
	return g
}

func (g *sitterGrammar) get() *sitter.Parser {
	select {
	case p := <-g.pool:
		return p
	default:
		p := sitter.NewParser()
		p.SetLanguage(g.lang)
		return p
	}
}

func (g *sitterGrammar) put(p *sitter.Parser) {
	select {
	case g.pool <- p:
	default:
		p.Close()
	}
}

// tree parses src with a time limit: the smaller of timeout and the time
// left before ctx's deadline. The limit is tree-sitter's own clock check
// (ts_parser_set_timeout_micros), so no goroutine watches the context and
// a pooled parser never keeps a stale cancellation flag; a cancellation
// without a deadline is seen before and after the parse.
// parsesStarted counts the parses tree has started, for the tests.
var parsesStarted atomic.Int64

func (g *sitterGrammar) tree(ctx context.Context, src []byte, timeout time.Duration) (*sitter.Tree, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse %s: %w", g.name, err)
	}
	limit := timeout
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); left < limit {
			limit = left
		}
	}
	if limit <= 0 {
		return nil, timedOut(ctx, g.name, timeout)
	}
	parsesStarted.Add(1)
	p := g.get()
	us := limit.Microseconds()
	if us < 1 {
		us = 1
	}
	p.SetOperationLimit(int(us))
	t, err := p.ParseCtx(context.Background(), nil, src)
	if err != nil {
		// A halted parse would resume on the next call: start afresh.
		p.Reset()
		g.put(p)
		if errors.Is(err, sitter.ErrOperationLimit) {
			return nil, timedOut(ctx, g.name, limit)
		}
		return nil, fmt.Errorf("parse %s: %w", g.name, err)
	}
	g.put(p)
	if err := ctx.Err(); err != nil {
		t.Close()
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, timedOut(ctx, g.name, limit)
		}
		return nil, fmt.Errorf("parse %s: %w", g.name, err)
	}
	return t, nil
}

func (g *sitterGrammar) parse(ctx context.Context, src []byte, timeout time.Duration, shallow func(*node) int, leaf func(typ string, start, end int)) (*node, error) {
	t, err := g.tree(ctx, src, timeout)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	root := t.RootNode()
	var (
		a     arena
		top   *node
		path  []*node // the copied nodes from the root to the last one
		limit = -1    // depth below which nothing is copied, -1 when unlimited
		at    = -1    // depth of the shallow node that set limit
	)
	walk(t, root, func(e walkEntry) {
		d := e.depth
		if limit >= 0 && d <= at {
			limit, at = -1, -1 // left the shallow node
		}
		// A named leaf at or below the copy limit is reported by its
		// grammar symbol (an ERROR leaf there is not), as it was before
		// the walk moved to C.
		named := func() bool { return int(e.sym) < len(g.types) && g.named[e.sym] }
		if limit >= 0 && d > limit {
			if leaf != nil && !e.parent && named() {
				leaf(g.types[e.sym], e.start, e.end)
			}
			return
		}
		n := a.new()
		if int(e.sym) < len(g.types) {
			n.typ = g.types[e.sym]
			n.named = g.named[e.sym]
		} else {
			n.typ = "ERROR" // 0xFFFF is the error symbol
			n.named = true
		}
		n.start, n.end = e.start, e.end
		if int(e.field) < len(g.fields) {
			n.field = g.fields[e.field]
		}
		n.missing = e.miss
		path = path[:d]
		if d > 0 {
			p := path[d-1]
			n.parent = p
			n.idx = len(p.kids)
			p.kids = append(p.kids, n)
		} else {
			top = n
		}
		path = append(path, n)
		if limit < 0 && shallow != nil {
			if x := shallow(n); x >= 0 {
				limit, at = d+x, d
			}
		}
		if leaf != nil && !e.parent {
			report := n.named
			if limit >= 0 && d >= limit {
				report = named()
			}
			if report {
				leaf(n.typ, n.start, n.end)
			}
		}
	})
	top.hasError = root.HasError()
	return top, nil
}

func (g *sitterGrammar) errors(ctx context.Context, src []byte, timeout time.Duration) ([]span, error) {
	t, err := g.tree(ctx, src, timeout)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	root := t.RootNode()
	if !root.HasError() {
		return nil, nil
	}
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	var out []span
	for {
		n := c.CurrentNode()
		descend := false
		switch {
		case n.IsError() || n.IsMissing():
			out = append(out, span{int(n.StartByte()), int(n.EndByte())})
		case n.HasError():
			descend = true
		}
		if descend && c.GoToFirstChild() {
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return out, nil
			}
		}
	}
}

// arena allocates nodes in blocks to keep a large tree's allocations few.
type arena struct{ block []node }

func (a *arena) new() *node {
	if len(a.block) == cap(a.block) {
		a.block = make([]node, 0, 1024)
	}
	a.block = append(a.block, node{})
	return &a.block[len(a.block)-1]
}
