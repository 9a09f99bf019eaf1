//go:build cgo && !notreesitter

package treesitter

import (
	"fmt"
	"strings"
	"sync"

	"github.com/ctxd/ctxd"
)

// The algorithm, shared by every language (see docs/truncation.md):
//
//  1. Walk the scopes of the tree: the root, the bodies of containers
//     (classes, impls, namespaces) and transparent wrappers (export
//     statements, decorated definitions, preprocessor conditionals). Each
//     definition in a scope becomes a [Symbol]; the comments right above it
//     are its doc; the attributes and decorators right above it belong to it.
//  2. Every function-like node met outside a body (a definition or a
//     closure in a top-level expression) offers its body to collapse; the
//     walk does not go into bodies.
//  3. Rendering a level applies a subset of the edits found: collapses
//     (Bodies: longer than the threshold; Signatures: all that shrink),
//     doc cuts and folds of private members (Signatures).
//
// Language specifics (node types, names, visibility, placeholders) are in
// langs.go.

// analysis is what one parse of a file yields. It holds no tree, so it is
// cheap to cache.
type analysis struct {
	lang    string
	src     []byte
	lines   lineIndex
	symbols []Symbol
	imports []string
	bodies  []bodyEdit
	docs    []edit
	members []member
	// hooks are the functions object literals hold (vite's plugin
	// hooks: `configureServer(server) {...}`, `load: async (id) =>
	// {...}`, `transform: { handler() {...} }`), for the outline lines
	// of the outline and focus views only: they are no symbols, so no
	// focus candidate, symbol index entry or kept name (as candidates
	// they moved vite's eval: hnoview, BENCHMARKS.md).
	hooks    []Symbol
	style    bodyStyle
	foldWord string
	// syntax reports ERROR or MISSING nodes; syntaxLine is the line of the
	// first one found (0 when it is inside a body, which is not copied).
	syntax     bool
	syntaxLine int

	// cleanMu guards clean, the checked edit sets of the views without
	// kept functions (cleanEdits), by level and threshold.
	cleanMu sync.Mutex
	clean   map[cleanKey][]planned
}

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
	elided     ctxd.LineRange
}

// bodyEdit is a body that can be collapsed.
type bodyEdit struct {
	edit
	lines        int // elided line count
	fnFirst      int // lines of the whole function, for KeepLines
	fnLast       int
	names        []string // "Serve", "Server.Serve"; empty for closures
	keepInBodies bool     // collapse only at Signatures (not past threshold)
	// outer is the line count of the function body this edit is inside
	// (an inner function, a closure, a literal in a body), 0 at the top:
	// it applies only when that function is kept whole and is large
	// (outer >= largeBody).
	outer int
}

// member is a definition inside a container (or a Go method), in source
// order; consecutive private members fold into one count at Signatures.
type member struct {
	scope      int
	start, end int
	private    bool
	names      []string
	// function marks functions and methods: their signatures are never
	// folded, exported or not (a signatures view names every one).
	function bool
}

type bodyStyle int

const (
	styleBrace  bodyStyle = iota // { /* ... 12 lines */ }
	stylePython                  // ...  # 12 lines
	styleRuby                    // # ... 12 lines
)

// maxDescent bounds the walk into nested expressions: closures deeper than
// this in a top-level expression keep their bodies. It protects the stack
// from pathological nesting.
const maxDescent = 200

type scope struct {
	id       int
	depth    int
	parent   string // enclosing type's name
	kind     string // enclosing container's node type, "" at top level
	access   string // current access section ("private", "public", ...), "" = language default
	exported bool   // inside an export statement
}

// pending collects the comments and attributes seen before a definition.
type pending struct {
	docs  []*node
	attrs []*node
	// wrap is the start of an own wrapper (export, decorated definition,
	// template) around the next definition, -1 when none.
	wrap int
}

func newPending() *pending { return &pending{wrap: -1} }

type walker struct {
	spec   *langSpec
	src    []byte
	lines  lineIndex
	a      *analysis
	scopes int
	suites int // test suites around the walk (their tests' symbol depth)
	// inFunc counts the function bodies around the walk (inner
	// definitions); outer is the line count of the innermost one.
	inFunc int
	outer  int
	// owner is the innermost definition being walked: inner definitions
	// are its children (Depth owner.depth+1, Parent owner.name).
	owner owner
	// innerMin is the smallest body walked for inner definitions
	// (innerMinLines; 1 for [DefsAtAnyDepth]).
	innerMin int
	// objectMethods records the functions object literals hold (the
	// language's objectMethod) as definitions: only for [DefsAtAnyDepth]
	// (find_symbol), never for the analysis the views and the symbol
	// index are made of, where, as focus candidates, vite's plugin hooks
	// moved its eval (hnoview, BENCHMARKS.md).
	objectMethods bool
	// hookAt is the stack of hooks (analysis.hooks) being walked: a
	// hook in an object a hook holds is one level deeper.
	hookAt []hookScope
}

// hookScope is a hook whose value the walk is in.
type hookScope struct {
	end, depth int
}

// owner is a definition whose body the walk is in.
type owner struct {
	depth int
	name  string
}

// Definitions inside function bodies (docs/truncation.md, "Definitions at
// any depth"): a body of at least innerMinLines lines is walked for the
// functions and classes it defines, at most maxInner bodies deep; an edit
// inside a body applies only when that body has at least largeBody lines
// (a large function kept whole is outlined; a small one stays whole).
const (
	innerMinLines = 30
	maxInner      = 8
)

// innerKinds are the symbol kinds recorded inside a function body: its
// local variables and constants are not definitions a reader looks for.
var innerKinds = map[string]bool{"function": true, "method": true, "class": true, "struct": true, "interface": true, "test": true, "suite": true}

func analyze(spec *langSpec, root *node, src []byte) *analysis {
	return analyzeInner(spec, root, src, innerMinLines, false)
}

// analyzeInner is analyze walking every function body of at least
// innerMin lines for its inner definitions, and with objectMethods the
// functions object literals hold.
func analyzeInner(spec *langSpec, root *node, src []byte, innerMin int, objectMethods bool) *analysis {
	a := &analysis{
		lang:     spec.name,
		src:      src,
		lines:    newLineIndex(src),
		style:    spec.style,
		foldWord: spec.foldWord,
	}
	w := &walker{spec: spec, src: src, lines: a.lines, a: a, innerMin: innerMin, objectMethods: objectMethods}
	if spec.moduleDoc != nil {
		if d := spec.moduleDoc(root, src); d != nil {
			w.docstring(d)
		}
	}
	w.walkScope(root, scope{}, newPending())
	return a
}

func (w *walker) line(off int) int { return w.lines.line(off) }

// lastLine is the line of n's last byte.
func (w *walker) lastLine(n *node) int {
	if n.end > n.start {
		return w.line(n.end - 1)
	}
	return w.line(n.start)
}

func (w *walker) walkScope(parent *node, sc scope, pend *pending) {
	prevLast := -1    // last line of the previous named sibling
	var inner []*node // a run of module doc comments
	defer func() { w.innerDoc(inner) }()
	for _, k := range parent.kids {
		if !k.named {
			continue // punctuation and keywords between declarations
		}
		if len(inner) > 0 && !(w.spec.comments[k.typ] && w.spec.innerDoc != nil && w.spec.innerDoc(k.text(w.src))) {
			w.innerDoc(inner)
			inner = inner[:0]
		}
		trailing := w.line(k.start) == prevLast
		prevLast = w.lastLine(k)
		switch {
		case w.spec.comments[k.typ] && trailing:
			continue // "x int // note" documents x, not what follows
		case w.spec.comments[k.typ] && w.spec.innerDoc != nil && w.spec.innerDoc(k.text(w.src)):
			if n := len(inner); n > 0 && w.line(k.start) > w.lastLine(inner[n-1])+1 {
				w.innerDoc(inner)
				inner = inner[:0]
			}
			inner = append(inner, k)
			continue
		case w.spec.comments[k.typ]:
			if n := len(pend.docs); n > 0 && (len(pend.attrs) > 0 || w.line(k.start) > w.lastLine(pend.docs[n-1])+1) {
				pend.docs = pend.docs[:0] // not adjacent: a new run starts
				pend.attrs = pend.attrs[:0]
			}
			pend.docs = append(pend.docs, k)
			continue
		case w.spec.attrs[k.typ]:
			pend.attrs = append(pend.attrs, k)
			continue
		}
		if w.spec.access != nil {
			if acc, ok := w.spec.access(k, w.src); ok {
				sc.access = acc
				*pend = *newPending()
				continue
			}
		}
		if d, ok := w.spec.defs[k.typ]; ok {
			w.define(k, d, sc, pend)
			*pend = *newPending()
			continue
		}
		if w.spec.transparent[k.typ] {
			sub := sc
			if w.spec.exportWrappers[k.typ] {
				sub.exported = true
			}
			if w.spec.ownWrappers[k.typ] && pend.wrap < 0 {
				pend.wrap = k.start
			}
			if w.spec.imports != nil {
				w.a.imports = append(w.a.imports, w.spec.imports(k, w.src)...)
			}
			w.walkScope(k, sub, pend)
			*pend = *newPending()
			continue
		}
		w.visit(k, 0, "")
		*pend = *newPending()
	}
}

// define records a definition: its symbols, doc, member entry, and its
// body (collapsed if a function, walked if a container).
func (w *walker) define(n *node, d def, sc scope, pend *pending) {
	src := w.src
	var names []string
	if d.names != nil {
		names = d.names(n, src)
	} else if nm := n.child("name"); nm != nil {
		names = []string{nm.text(src)}
	}
	var body *node
	if d.body != nil {
		body = d.body(n)
	}

	// The doc run counts when it ends on the line right above the
	// definition (or above its first attribute).
	spanStart := n.start
	if pend.wrap >= 0 && pend.wrap < spanStart {
		spanStart = pend.wrap
	}
	firstLine := w.line(spanStart)
	if len(pend.attrs) > 0 && pend.attrs[0].start < spanStart {
		spanStart = pend.attrs[0].start
		firstLine = w.line(spanStart)
	}
	var doc []*node
	if k := len(pend.docs); k > 0 && w.spec.docComments && (w.lastLine(pend.docs[k-1])+1 >= firstLine || w.blockDocAbove(pend.docs[k-1], firstLine)) {
		doc = pend.docs
		spanStart = doc[0].start
	}
	if len(doc) == 0 && w.spec.docComments {
		// Some grammars put the comment above a definition inside the
		// node before it (Kotlin's import list ends with it).
		if prev := prevNamedSibling(n); prev != nil && prev.end <= spanStart {
			last := prev.last()
			for last != nil && !w.spec.comments[last.typ] && last.end == prev.end && len(last.kids) > 0 {
				last = last.last()
			}
			if last != nil && w.spec.comments[last.typ] && last.end == prev.end &&
				w.lastLine(last)+1 >= firstLine && w.line(last.start) > w.line(prev.start) {
				doc = []*node{last}
			}
		}
	}
	docText := ""
	if len(doc) > 0 {
		run := string(src[doc[0].start:doc[len(doc)-1].end])
		docText = firstSentence(run)
		if cut, ok := cutComment(run); ok {
			w.addDoc(doc[0].start, doc[len(doc)-1].end, cut)
		}
	}
	if d.docstring != nil && body != nil {
		if ds := d.docstring(body, src); ds != nil {
			docText = firstSentence(pyStringProse(ds, src))
			w.docstring(ds)
		}
	}

	kind := d.kind
	if d.kindOf != nil {
		kind = d.kindOf(n, src)
	}
	if kind == "function" && sc.kind != "" && w.spec.typeScopes[sc.kind] {
		kind = "method"
	}
	if w.inFunc > 0 && !innerKinds[kind] {
		kind = "" // a local variable
		if w.spec.funcValue != nil && w.spec.funcValue(n) {
			kind = "function" // var f = func() { ... }
		}
	}
	parent := sc.parent
	if d.parent != nil {
		if p := d.parent(n, src); p != "" {
			parent = p
		}
	}
	exported := true
	if w.spec.exported != nil {
		exported = w.spec.exported(n, src, names, sc)
	}
	sig := w.signature(n, d, body)
	if kind != "" {
		for _, name := range names {
			if name == "" {
				continue
			}
			w.a.symbols = append(w.a.symbols, Symbol{
				Name:      name,
				Kind:      kind,
				Start:     w.line(n.start),
				End:       w.lastLine(n),
				Signature: sig,
				Exported:  exported,
				Doc:       docText,
				Parent:    parent,
				Depth:     sc.depth,
				Inner:     w.inFunc > 0,
			})
		}
	}
	keys := make([]string, 0, 2*len(names))
	for _, name := range names {
		keys = append(keys, name)
		if parent != "" {
			keys = append(keys, parent+"."+name)
		}
	}
	if kind != "" && len(names) > 0 {
		prev := w.owner
		w.owner = owner{depth: sc.depth, name: names[0]}
		defer func() { w.owner = prev }()
	}
	if kind != "" && (sc.depth > 0 || d.member) && w.inFunc == 0 {
		end := n.end
		// A member's trailing ";" or "," and comment on the same line go
		// with it.
		last := w.lastLine(n)
		for nx := nextSibling(n); nx != nil && (nx.typ == ";" || nx.typ == "," || w.spec.comments[nx.typ]) && blankBetween(src, end, nx.start) && w.line(nx.start) == last; nx = nextSibling(nx) {
			end = nx.end
			if w.spec.comments[nx.typ] {
				if src[end-1] == '\n' {
					end-- // keep the line break of a comment node that holds it
				}
				break
			}
		}
		w.a.members = append(w.a.members, member{scope: sc.id, start: spanStart, end: end, private: !exported, names: keys, function: d.function || kind == "method" || kind == "function"})
	}

	switch {
	case d.function && body != nil:
		w.collapse(n, body, keys)
	case d.container && body != nil:
		w.scopes++
		sub := scope{id: w.scopes, depth: sc.depth + 1, kind: n.typ, exported: sc.exported}
		if len(names) > 0 {
			sub.parent = names[0]
		}
		if d.containerName != nil {
			sub.parent = d.containerName(n, src)
		}
		w.walkScope(body, sub, newPending())
		for _, k := range n.kids {
			if k != body && !isAncestor(k, body) {
				w.visit(k, 1, firstOr(names))
			}
		}
	default:
		for _, k := range n.kids {
			w.visit(k, 1, firstOr(names))
		}
	}
}

// blockDocAbove reports a "/**" comment that ends two lines above line,
// with a blank line between, in a language that allows that gap.
func (w *walker) blockDocAbove(c *node, line int) bool {
	if !w.spec.blockDocGap || w.lastLine(c)+2 != line || !strings.HasPrefix(c.text(w.src), "/**") {
		return false
	}
	return blankBetween(w.src, c.end, w.lines.lineStart(w.lines[line-1]))
}

func firstOr(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func isAncestor(a, n *node) bool {
	for p := n.parent; p != nil; p = p.parent {
		if p == a {
			return true
		}
	}
	return false
}

func prevNamedSibling(n *node) *node {
	if n.parent == nil {
		return nil
	}
	for i := n.idx - 1; i >= 0; i-- {
		if k := n.parent.kids[i]; k.named {
			return k
		}
	}
	return nil
}

func nextSibling(n *node) *node {
	if n.parent == nil || n.idx+1 >= len(n.parent.kids) {
		return nil
	}
	return n.parent.kids[n.idx+1]
}

// visit looks for closures and nested functions in an expression, to
// collapse their bodies. It records no symbols.
func (w *walker) visit(n *node, depth int, name string) {
	if depth > maxDescent || len(n.kids) == 0 {
		return
	}
	if w.spec.imports != nil {
		w.a.imports = append(w.a.imports, w.spec.imports(n, w.src)...)
	}
	if w.spec.testCall != nil {
		if kind, p := w.spec.testCall(n, w.src); kind != notTest {
			w.test(n, kind, p, depth)
			return
		}
	}
	if w.objectMethod(n, depth, name) {
		return
	}
	if w.hook(n) {
		defer w.popHook()
	}
	if bodyOf, ok := w.spec.lambdas[n.typ]; ok {
		if body := bodyOf(n); body != nil {
			var keys []string
			if name != "" {
				keys = []string{name}
			}
			w.collapse(n, body, keys)
			return
		}
	}
	if d, ok := w.spec.defs[n.typ]; ok && d.function {
		if body := d.body(n); body != nil {
			var keys []string
			if nm := n.child("name"); nm != nil {
				keys = []string{nm.text(w.src)}
			}
			w.collapse(n, body, keys)
			return
		}
	}
	if dataLiterals[n.typ] && w.shortenLiteral(n) {
		return
	}
	for _, k := range n.kids {
		w.visit(k, depth+1, name)
	}
}

// objectMethod records a function an object literal holds (the
// language's objectMethod; only with w.objectMethods) as a method of the
// walk's owner, marked Inner as the definitions inside a function body
// are, and collapses its body; a property whose value is an object
// holding functions (vite's `transform: { handler(code) {...} }`) is
// recorded too, its functions its children. name is the enclosing
// definition's, which named the body before. It reports whether n was
// such a function or property.
func (w *walker) objectMethod(n *node, depth int, name string) bool {
	if !w.objectMethods || w.spec.objectMethod == nil {
		return false
	}
	m, fn, body := w.spec.objectMethod(n, w.src)
	if body == nil {
		return false
	}
	d := w.owner.depth + 1
	w.a.symbols = append(w.a.symbols, w.objectSymbol(n, m, fn, body, d, true))
	prev := w.owner
	w.owner = owner{depth: d, name: m}
	defer func() { w.owner = prev }()
	if fn == body {
		// An object of hooks: its functions are the property's.
		for _, k := range body.kids {
			w.visit(k, depth+1, m)
		}
		return true
	}
	keys := []string{m}
	if name != "" && name != m {
		keys = append(keys, name)
	}
	w.collapse(fn, body, keys)
	return true
}

// hook records a function an object literal holds (the language's
// objectMethod) as an outline line of the analysis (analysis.hooks),
// changing nothing else: its body collapses as before, and the walk goes
// on into it. It records one in a module-level object (`module.exports =
// {...}`, `const handlers = {...}`) and in an object a definition's own
// body builds (a plugin factory's `return {...}`), not in the bodies of
// inner functions, hooks or tests, whose lines the outline does not list.
// A hook's depth is that of the definition around it plus one, or its
// enclosing hook's plus one. It reports whether n was recorded (the
// caller pops it with popHook once n is walked).
func (w *walker) hook(n *node) bool {
	if w.objectMethods || w.spec.objectMethod == nil || w.suites > 0 || w.inFunc > 1 || w.inFunc == 1 && w.owner.name == "" {
		return false
	}
	m, fn, body := w.spec.objectMethod(n, w.src)
	if body == nil {
		return false
	}
	d := 0
	if w.owner.name != "" {
		d = w.owner.depth + 1
	}
	if k := len(w.hookAt); k > 0 && n.start < w.hookAt[k-1].end {
		d = max(d, w.hookAt[k-1].depth+1)
	}
	w.a.hooks = append(w.a.hooks, w.objectSymbol(n, m, fn, body, d, w.inFunc > 0))
	w.hookAt = append(w.hookAt, hookScope{end: n.end, depth: d})
	return true
}

// objectSymbol is the symbol of n, a function an object literal holds
// (the language's objectMethod read m, fn and body of it), under the
// current owner at depth: its signature, or `transform: {` for a
// property holding an object of hooks (fn == body).
func (w *walker) objectSymbol(n *node, m string, fn, body *node, depth int, inner bool) Symbol {
	sig := w.signature(n, def{}, body)
	if fn == body {
		sig = m + ": {" // `transform: {`
	}
	return Symbol{
		Name:      m,
		Kind:      "method",
		Start:     w.line(n.start),
		End:       w.lastLine(n),
		Signature: sig,
		Exported:  true,
		Parent:    w.owner.name,
		Depth:     depth,
		Inner:     inner,
	}
}

func (w *walker) popHook() { w.hookAt = w.hookAt[:len(w.hookAt)-1] }

// test records a test framework's call as a symbol (kind "suite" or
// "test", named by its title): a suite's callback is walked for its tests
// and hooks, a test's body collapses on its own. A test file's bodies and
// signatures views then keep every describe and it line instead of one
// collapsed suite.
func (w *walker) test(n *node, kind testKind, p testCallParts, depth int) {
	k := "test"
	if kind == testSuite {
		k = "suite"
	}
	name := oneLine(unquote(p.title.text(w.src)))
	w.a.symbols = append(w.a.symbols, Symbol{
		Name:      clip(name, 120),
		Kind:      k,
		Start:     w.line(n.start),
		End:       w.lastLine(n),
		Signature: clip(oneLine(string(w.src[n.start:p.title.end]))+")", 240), // it('counts')
		Exported:  true,
		Depth:     w.suites,
		Inner:     w.inFunc > 0,
	})
	if kind == testCase {
		w.collapse(p.fn, p.body, nil)
		return
	}
	w.suites++
	for _, k := range p.body.kids {
		w.visit(k, depth+1, "")
	}
	w.suites--
}

// dataLiterals are the node types of data literals whose long element
// lists the bodies view shortens: Go composite literals, Python lists,
// dicts, sets and tuples, JavaScript/TypeScript arrays, Java and C array
// initializers. (Object literals are left alone: in JavaScript they hold
// methods.)
var dataLiterals = map[string]bool{
	"literal_value": true, "list": true, "dictionary": true, "set": true, "tuple": true,
	"array": true, "array_initializer": true, "initializer_list": true,
}

// Data literal shortening: a literal of more than literalMinLines lines
// with more than literalKeep+2 elements keeps its first literalKeep
// elements and collapses the rest into a comment counting the lines.
const (
	literalMinLines = 30
	literalKeep     = 3
)

// shortenLiteral records the tail of a long data literal as collapsible
// (a table, a big array), cut at element boundaries so the view still
// parses. It reports whether n was such a literal.
func (w *walker) shortenLiteral(n *node) bool {
	if w.line(n.end)-w.line(n.start) < literalMinLines || len(n.kids) < 2 {
		return false
	}
	elems := namedKids(n)
	if len(elems) <= literalKeep+2 {
		return false
	}
	closing := n.kids[len(n.kids)-1]
	if closing.named || closing.start < elems[len(elems)-1].end {
		return false
	}
	start := elems[literalKeep-1].end
	if nx := nextSibling(elems[literalKeep-1]); nx != nil && nx.typ == "," {
		start = nx.end
	}
	end := w.lines.lineStart(closing.start)
	if end <= start || !blankBetween(w.src, end, closing.start) {
		end = closing.start
	}
	first, last, ok := contentLines(w.src, w.lines, start, end)
	if !ok {
		return false
	}
	lines := last - first + 1
	indent := w.src[w.lines.lineStart(elems[0].start):elems[0].start]
	if !blankBetween(indent, 0, len(indent)) {
		return false // elements on the opening line: leave it
	}
	comment := "/* ... %s */"
	if w.spec.style == stylePython || w.spec.style == styleRuby {
		comment = "# ... %s"
	}
	text := "\n" + string(indent) + fmt.Sprintf(comment, ctxd.Plural(lines, "line", "lines")) + "\n"
	if end == closing.start {
		text += string(w.src[w.lines.lineStart(closing.start):closing.start])
	}
	if len(text) >= end-start {
		return false
	}
	w.a.bodies = append(w.a.bodies, bodyEdit{
		edit:    edit{start: start, end: end, text: text, elided: ctxd.LineRange{Start: first, End: last}},
		lines:   lines,
		fnFirst: w.line(n.start),
		fnLast:  w.lastLine(n),
		outer:   w.outer,
	})
	return true
}

// innerDoc cuts a run of module doc comments (Rust's //!) at Signatures.
func (w *walker) innerDoc(run []*node) {
	if len(run) == 0 {
		return
	}
	start, end := run[0].start, run[len(run)-1].end
	if cut, ok := cutComment(string(w.src[start:end])); ok {
		w.addDoc(start, end, cut)
	}
}

// collapse records the body of fn as collapsible, in the language's
// placeholder style, if the placeholder is shorter than what it replaces.
func (w *walker) collapse(fn, body *node, keys []string) {
	defer w.inner(body)
	src := w.src
	var e edit
	lb, rb := braces(body)
	switch {
	case lb != nil:
		e.start, e.end = lb.end, rb.start
		e.text = " /* ... %s */ "
	case w.spec.style == stylePython && body.typ == "block":
		stmts := namedKids(body)
		if len(stmts) == 0 {
			return
		}
		e.start, e.end = body.start, body.end
		indent := src[w.lines.lineStart(body.start):body.start]
		inline := !blankBetween(indent, 0, len(indent))
		if ds := pyDocstring(body, src); ds != nil {
			if len(stmts) == 1 || inline {
				return
			}
			stmt := ds.parent
			e.start = stmt.end
			ind := src[w.lines.lineStart(stmt.start):stmt.start]
			if !blankBetween(ind, 0, len(ind)) {
				return
			}
			e.text = "\n" + string(ind) + "...  # %s"
		} else if inline {
			e.text = "..."
		} else {
			e.text = "...  # %s"
			// Comments between the colon and the first statement are
			// part of the body.
			if colon := pyColon(fn, body); colon != nil {
				for _, k := range fn.kids {
					if k.start >= colon.end && k.start < body.start && w.spec.comments[k.typ] && w.line(k.start) > w.line(colon.start) {
						e.start = k.start
						break
					}
				}
			}
		}
		if !blankBetween(src, e.end, lineEnd(src, e.end)) {
			e.text = strings.TrimSuffix(e.text, "  # %s")
		}
	case w.spec.style == styleRuby && body.typ == "body_statement":
		e.start, e.end = body.start, body.end
		if !blankBetween(src, e.end, lineEnd(src, e.end)) {
			return // "end" on the same line would be commented out
		}
		e.text = "# ... %s"
	default:
		return
	}
	first, last, ok := contentLines(src, w.lines, e.start, e.end)
	if !ok {
		return
	}
	n := last - first + 1
	e.elided = ctxd.LineRange{Start: first, End: last}
	if strings.Contains(e.text, "%s") {
		e.text = fmt.Sprintf(e.text, ctxd.Plural(n, "line", "lines"))
	}
	if len(e.text) >= e.end-e.start {
		return
	}
	w.a.bodies = append(w.a.bodies, bodyEdit{
		edit:    e,
		lines:   n,
		fnFirst: w.line(fn.start),
		fnLast:  w.lastLine(fn),
		names:   keys,
		outer:   w.outer,
	})
}

// inner walks a large function body (or closure body) for the
// definitions inside it: their symbols are children of the walk's owner,
// their bodies collapsible inside it.
func (w *walker) inner(body *node) {
	if w.inFunc >= maxInner || len(body.kids) == 0 {
		return
	}
	n := w.lastLine(body) - w.line(body.start) + 1
	if n < w.innerMin && !(w.inFunc == 0 && moduleCallback(body)) {
		return
	}
	prevOuter := w.outer
	w.inFunc++
	w.outer = n
	w.scopes++
	w.walkScope(body, scope{id: w.scopes, depth: w.owner.depth + 1, parent: w.owner.name}, newPending())
	w.inFunc--
	w.outer = prevOuter
}

// moduleCallback reports the body of a function passed as an argument
// (JavaScript's `methods.forEach(function (method) { app[method] =
// function ... })` at module level): its definitions are walked whatever
// its size, since the callback is no definition whose lines would hold
// theirs (Express's verb methods were in no symbol and no focus ladder).
func moduleCallback(body *node) bool {
	fn := body.parent
	return fn != nil && fn.parent != nil && fn.parent.typ == "arguments"
}

// pyColon returns the ":" that ends a Python definition's header.
func pyColon(fn, body *node) *node {
	var c *node
	for _, k := range fn.kids {
		if k.typ == ":" && k.end <= body.start {
			c = k
		}
	}
	return c
}

// braces returns the first "{" and the last "}" among n's children.
func braces(n *node) (lb, rb *node) {
	for _, k := range n.kids {
		if k.typ == "{" {
			lb = k
			break
		}
	}
	for i := len(n.kids) - 1; i >= 0; i-- {
		if n.kids[i].typ == "}" {
			rb = n.kids[i]
			break
		}
	}
	if lb == nil || rb == nil || rb.start < lb.end {
		return nil, nil
	}
	return lb, rb
}

func namedKids(n *node) []*node {
	var out []*node
	for _, k := range n.kids {
		if k.named && k.typ != "comment" {
			out = append(out, k)
		}
	}
	return out
}

func (w *walker) addDoc(start, end int, text string) {
	first, last, ok := contentLines(w.src, w.lines, start, end)
	if !ok {
		return
	}
	// The kept first sentence is shown; only the cut lines are elided.
	keptLast := first + strings.Count(strings.TrimRight(text, "\n"), "\n")
	if keptLast >= last {
		keptLast = last
	}
	w.a.docs = append(w.a.docs, edit{start: start, end: end, text: text, elided: ctxd.LineRange{Start: keptLast, End: last}})
}

// docstring records a Python docstring (a string node) to cut to its
// first sentence at Signatures.
func (w *walker) docstring(s *node) {
	if cut, ok := cutDocstring(s, w.src); ok {
		w.addDoc(s.start, s.end, cut)
	}
}

// signature is the declaration's text up to its body, on one line.
func (w *walker) signature(n *node, d def, body *node) string {
	end := n.end
	if body != nil && body.start >= n.start && body.start <= n.end {
		end = body.start
		if c := pyColon(n, body); c != nil && w.spec.style == stylePython {
			end = c.start
		}
		for _, k := range body.kids {
			if k.typ == "{" {
				end = k.start
				break
			}
		}
	}
	start := n.start
	// Attributes inside the node (Java annotations in modifiers, Rust
	// attributes) stay; leading comments do not.
	for _, k := range n.kids {
		if w.spec.comments[k.typ] && k.start == start {
			start = k.end
		}
	}
	text := string(w.src[start:end])
	if body == nil {
		// Only the first line of a declaration without a body: a
		// variable's value can be long and is not its signature.
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[:i]
		}
	}
	s := oneLine(text)
	s = strings.TrimSuffix(strings.TrimRight(s, " ;"), " =")
	if w.spec.style == stylePython {
		s = strings.TrimSuffix(s, ":")
	}
	if d.sigPrefix != nil {
		if p := d.sigPrefix(n, w.src); p != "" {
			s = p + " " + s
		}
	}
	return clip(s, 240)
}
