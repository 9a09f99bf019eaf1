package engine

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/symbols"
	"github.com/ctxd/ctxd/treesitter"
	"github.com/ctxd/ctxd/workspace/tree"
)

// SymbolRequest is the input of [Engine.FindSymbol]: a name ("Open") or a
// qualified name ("Store.Open", "artifacts.Open", "store::open").
type SymbolRequest struct {
	Name string `json:"name"`
	// MaxReferences caps the references returned (default 50).
	MaxReferences int `json:"max_references,omitempty"`
	// IncludeDocs also lists the lines of documentation files (Markdown,
	// reStructuredText, AsciiDoc, plain text) that name the symbol: left
	// out by default, where a name in the docs of a large project (and its
	// translations) crowded out the code's own uses.
	IncludeDocs bool `json:"include_docs,omitempty"`
}

// SymbolHit is a definition or a reference: a root-relative path and a
// 1-based line.
type SymbolHit struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	// EndLine, Kind, Parent and Signature are set for definitions.
	EndLine   int    `json:"end_line,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Parent    string `json:"parent,omitempty"`
	Signature string `json:"signature,omitempty"`
	// Text is the reference's line, trimmed (references only).
	Text string `json:"text,omitempty"`
	// Receiver is, for a reference of a qualified name, the qualifier
	// when the file shows the use is on it (a variable declared of that
	// type, the type or package itself, a method of the type);
	// ReceiverUnknown marks one whose receiver's type the file does not
	// say, listed all the same.
	Receiver        string `json:"receiver,omitempty"`
	ReceiverUnknown bool   `json:"receiver_unknown,omitempty"`
}

// String is the hit as the CLI and MCP print it: "def PATH:LINE-END
// KIND SIGNATURE" for a definition (the kind left out when the
// signature already starts with it: "const MaxSize = 10", not "const
// const ..."), "ref PATH:LINE TEXT" for a reference ("ref?" when a
// qualified name's use is on a receiver whose type is not known).
func (h SymbolHit) String() string {
	if h.Kind == "" && h.Signature == "" && h.EndLine == 0 {
		if h.ReceiverUnknown {
			return fmt.Sprintf("ref? %s:%d %s", h.Path, h.Line, h.Text)
		}
		return fmt.Sprintf("ref %s:%d %s", h.Path, h.Line, h.Text)
	}
	sig := h.Signature
	if first, _, _ := strings.Cut(sig, " "); first != h.Kind {
		sig = strings.TrimSpace(h.Kind + " " + sig)
	}
	return fmt.Sprintf("def %s:%d-%d %s", h.Path, h.Line, h.EndLine, sig)
}

// SymbolResult lists a symbol's definitions and references.
type SymbolResult struct {
	Name        string      `json:"name"`
	Definitions []SymbolHit `json:"definitions"`
	References  []SymbolHit `json:"references"`
	// Truncated reports references left out by MaxReferences.
	Truncated bool `json:"truncated,omitempty"`
	// OtherReceivers counts the uses a qualified name left out: their
	// receiver is, by the file, another type that defines the name
	// (`in.beginObject()` with `JsonReader in`, for JsonWriter#beginObject).
	// ReceiverUnknown counts the references listed though their
	// receiver's type is not known.
	OtherReceivers  int `json:"other_receivers,omitempty"`
	ReceiverUnknown int `json:"receiver_unknown,omitempty"`
	// FilesSearched counts the workspace files read.
	FilesSearched int `json:"files_searched"`
	// Redactions lists the secrets replaced by markers in the files
	// that gave a hit (source, line, rule; never the secret).
	Redactions []ctxd.Redaction `json:"redactions,omitempty"`
}

// FindSymbol finds a symbol's definitions (from the symbol index: the
// tree-sitter definitions of the workspace's files, parsed once per
// content and persisted) and its references (code lines where the name
// occurs as a whole identifier, outside comments and definitions of the
// name). A qualifier narrows the definitions and, where the file tells
// the receiver's type, the references (receiver.go): a use on another
// type that defines the name is left out (counted), one on the
// qualifier is marked so, one on a receiver of unknown type is listed
// and marked unknown. Only files that
// contain the name are parsed, and only when the index has no entry for
// their content. It reads
// the editor's unsaved buffers first, a new file only open in the editor
// included, and may run concurrently.
func (e *Engine) FindSymbol(ctx context.Context, req SymbolRequest) (*SymbolResult, error) {
	qual, name := splitSymbol(req.Name)
	if m := strings.TrimSpace(req.Name); computedMember(m) {
		// The symbol index's name of a function assigned to a computed
		// member (Express's `app[method] = function`), as the outline
		// lists it: the whole text, no qualifier.
		qual, name = "", m
	} else if name == "" || !isName(strings.TrimPrefix(name, "#")) {
		return nil, fmt.Errorf("find symbol %q: want an identifier, a qualified name such as Type.Method, Type#method or f(), or a computed member such as app[method]: %w", req.Name, ctxd.ErrInvalidParams)
	} else if parts, ok := chainParts(req.Name); !ok {
		if len(parts) > maxChain {
			return nil, fmt.Errorf("find symbol %q: a qualified name has at most %d parts (package.Type.member, such as store.Store.Put or walk::Walker::scan); name the member by its last two (%s): %w", req.Name, maxChain, lastTwo(req.Name, parts), ctxd.ErrInvalidParams)
		}
		return nil, fmt.Errorf("find symbol %q: every part of a qualified name is an identifier (Type.Method, pkg.Type.Method, Type#method, mod::f): %w", req.Name, ctxd.ErrInvalidParams)
	}
	if req.MaxReferences < 0 {
		// As max_files and a session list's limit: a typo'd sign is
		// said, not read as the default.
		return nil, fmt.Errorf("max_references must not be negative, got %d (0 or absent: 50): %w", req.MaxReferences, ctxd.ErrInvalidParams)
	}
	maxRefs := req.MaxReferences
	if maxRefs == 0 {
		maxRefs = 50
	}
	files, err := e.ws.Files(ctx)
	if err != nil {
		return nil, err
	}
	// A new file only open in the editor is searched as a prompt
	// gathers it (Tree.OverlayKept).
	files = e.ws.WithOverlayPaths(files, e.buffers.Snapshot())
	x := e.store.Symbols()
	defer e.store.Save()
	res := &SymbolResult{Name: req.Name, Definitions: []SymbolHit{}, References: []SymbolHit{}}
	needle := []byte(name)
	defines := definesName(strings.TrimPrefix(name, "#"))
	// With a qualifier, every use is kept with its receivers' types and
	// decided once every definition of the name is known (owners: the
	// types that define it with a body).
	var pending []pendingRef
	fx := &fixtures{e: e, x: x}
	owners := map[string]bool{}
	mine := map[string]bool{qual: true, modulePrefix + qual: true} // the qualifier, and with its package
	// The listing is the workspace's: filtered into a slice of its own.
	files = slices.DeleteFunc(slices.Clone(files), func(rel string) bool {
		_, doc := docFormats[strings.ToLower(path.Ext(rel))]
		return doc && !req.IncludeDocs
	})
	var found []symbolFile // the batch's files that hold the name
	for len(found) > 0 || len(files) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(found) == 0 {
			n := min(len(files), symbolBatch)
			found, files = e.symbolFiles(ctx, x, files[:n], needle), files[n:]
			continue
		}
		rel, src, reds, ent := found[0].rel, found[0].src, found[0].reds, found[0].ent
		found = found[1:]
		res.FilesSearched++
		hits := len(res.Definitions) + len(res.References) + len(pending)
		// defs are the definitions asked for; named are every definition
		// of the name (not references, whatever the qualifier).
		var defs, named, fileDefs []index.Def
		lines := bytes.Split(src, []byte("\n"))
		if ent != nil {
			fileDefs = withInnerDefs(ctx, rel, src, lines, ent.Defs, name, defines)
			for _, d := range fileDefs {
				if d.Name != name {
					continue
				}
				named = append(named, d)
				module := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
				if d.Parent == "" {
					// A top-level definition is reached through its
					// module: walk::scan for src/walk.rs or
					// src/walk/mod.rs (receiverTypes).
					owners[modulePrefix+module] = true
					owners[modulePrefix+path.Base(path.Dir(rel))] = true
				}
				if d.Parent != "" && !abstractIn(ent.Defs, d) {
					// As a declaration names the type: bare, or with its
					// package (Go's store.Store; the directory stands for
					// the package).
					owners[d.Parent] = true
					owners[path.Base(path.Dir(rel))+"."+d.Parent] = true
				}
				if qual == "" || d.Parent == qual || path.Base(path.Dir(rel)) == qual || d.Parent == "" && module == qual {
					defs = append(defs, d)
					if d.Parent == qual {
						mine[path.Base(path.Dir(rel))+"."+qual] = true
					}
				}
			}
		}
		for _, d := range defs {
			res.Definitions = append(res.Definitions, SymbolHit{Path: rel, Line: d.Line, EndLine: d.End, Kind: d.Kind, Parent: d.Parent, Signature: d.Signature})
		}
		decl := declLines(named, lines, needle)
		var decls map[string][]typedDecl
		var py *pyFile // a Python file's
		strs := nonCodeOf(ctx, rel, src, ent)
		off := 0 // the line's first byte in src
		for i, line := range lines {
			n := i + 1
			at := off
			off += len(line) + 1
			if !query.HasName(line, needle) || decl[n] || commentLine(line) {
				continue
			}
			if qual != "" {
				if decls == nil {
					decls = fileDecls(rel, lines)
					if path.Ext(rel) == ".py" {
						own := fileFixtures(lines, fileDefs)
						py = &pyFile{lines: lines, fixture: func(v string) (string, bool) { return fx.of(ctx, rel, own, v) }}
					}
				}
				pending = append(pending, pendingRef{hit: SymbolHit{Path: rel, Line: n, Text: trimRef(line)}, types: receiverTypes(line, needle, n, decls, fileDefs, py), strs: strs, line: line, at: at})
				continue
			}
			if len(res.References) >= maxRefs {
				// More lines name it (one may be a string's: the file
				// is not parsed to tell, as it is not for a line listed).
				res.Truncated = true
				break
			}
			if strs.only(line, at, needle) {
				continue
			}
			res.References = append(res.References, SymbolHit{Path: rel, Line: n, Text: trimRef(line)})
		}
		if len(res.Definitions)+len(res.References)+len(pending) > hits {
			res.Redactions = append(res.Redactions, reds...)
		}
	}
	for _, p := range pending {
		if len(res.References) < maxRefs && p.strs.only(p.line, p.at, needle) {
			continue
		}
		h, keep := p.decide(qual, mine, owners)
		if !keep {
			res.OtherReceivers++
			continue
		}
		if len(res.References) >= maxRefs {
			res.Truncated = true
			break
		}
		if h.ReceiverUnknown {
			res.ReceiverUnknown++
		}
		res.References = append(res.References, h)
	}
	sort.SliceStable(res.Definitions, func(i, j int) bool {
		return res.Definitions[i].Path < res.Definitions[j].Path
	})
	return res, nil
}

// ReceiverNote says what a qualified name did to its references, for the
// CLI and MCP to print: "" when it left none out and marked none unknown.
func (r *SymbolResult) ReceiverNote() string {
	var parts []string
	if r.OtherReceivers > 0 {
		parts = append(parts, fmt.Sprintf("%d uses on other types that define the name left out", r.OtherReceivers))
	}
	if r.ReceiverUnknown > 0 {
		parts = append(parts, fmt.Sprintf("%d listed as ref? (their receiver's type is not known)", r.ReceiverUnknown))
	}
	return strings.Join(parts, "; ")
}

// splitSymbol splits a symbol request as query.SplitQualified does,
// except that a JavaScript private name keeps its #: "Ky.#retry" and
// "#retry" name #retry (the symbol index's name for it), where # alone
// separates a type from its method (Store#open).
func splitSymbol(s string) (qual, name string) {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, "#"); i >= 0 && (i == 0 || s[i-1] == '.') && isName(s[i+1:]) {
		qual, _ = query.SplitQualified(strings.TrimSuffix(s[:i], ".") + ".x")
		return qual, s[i:]
	}
	return query.SplitQualified(s)
}

// pendingRef is a use of a qualified name with its receivers' types
// ("" where unknown), one per occurrence on the line.
type pendingRef struct {
	hit   SymbolHit
	types []string
	// strs, line and at tell whether the use is inside a string or a
	// comment (nonCode.only), asked only of the uses listed.
	strs *nonCode
	line []byte
	at   int
}

// decide keeps a use one of whose receivers is the qualifier (mine: the
// qualifier, bare or with its package; marked so), leaves out one all of whose receivers are other types that define
// the name, and keeps the rest marked unknown (a type that does not
// define the name may inherit the qualifier's).
func (p pendingRef) decide(qual string, mine, owners map[string]bool) (SymbolHit, bool) {
	other := len(p.types) > 0
	for _, t := range p.types {
		if mine[t] {
			p.hit.Receiver = qual
			return p.hit, true
		}
		if t == "" || !owners[t] {
			other = false
		}
	}
	if other {
		return p.hit, false
	}
	p.hit.ReceiverUnknown = true
	return p.hit, true
}

// trimRef is a reference's line as listed: trimmed, at most 200 bytes.
func trimRef(line []byte) string {
	t := strings.TrimSpace(string(line))
	if len(t) > 200 {
		t = t[:200]
	}
	return t
}

// symbolBatch is how many files FindSymbol reads, redacts and indexes at
// once, on every core, before it reads their lines in order: a common
// name in a tree the symbol index has not seen (`ctxd symbol Write` on
// 10k files, 2,000 of them holding it) is mostly parses.
const symbolBatch = 64

// symbolFile is a file FindSymbol searches: its text, secrets redacted
// before anything is cut from it (redactSource, as for an outline), and
// its symbol-index entry (nil when it has none).
type symbolFile struct {
	rel  string
	src  []byte
	reds []ctxd.Redaction
	ent  *index.Symbols
}

// symbolFiles returns the files of rels that hold needle, in rels' order,
// read, redacted and indexed in parallel.
func (e *Engine) symbolFiles(ctx context.Context, x *symbols.Index, rels []string, needle []byte) []symbolFile {
	out := make([]symbolFile, len(rels))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, rel := range rels {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if ctx.Err() != nil {
				return
			}
			src, ok := e.symbolSource(rel, true)
			if !ok || !bytes.Contains(src, needle) {
				return
			}
			src, reds := e.redactStored(rel, src)
			ent, err := x.File(ctx, rel, src)
			if err != nil {
				ent = nil
			}
			out[i] = symbolFile{rel: rel, src: src, reds: reds, ent: ent}
		})
	}
	wg.Wait()
	return slices.DeleteFunc(out, func(f symbolFile) bool { return f.rel == "" })
}

// symbolSource reads a workspace file for FindSymbol: the editor's buffer,
// else the file on disk (files over tree-sitter's limit are skipped). A
// listed file (the tree's listing, which holds no symlink: the walk never
// follows one) is read at its place under the root, as gathering reads
// it; another path (a conftest.py beside a listed file) is resolved
// first, symlinks and all, and refused outside the root. Resolving every
// listed file cost two-thirds of a warm `ctxd symbol Write` on a
// 10k-file tree (four lstat calls per file, twice).
func (e *Engine) symbolSource(rel string, listed bool) ([]byte, bool) {
	if listed {
		if buf, ok := e.buffers.Get(rel); ok {
			return []byte(buf), true
		}
		src, err := ReadSource(filepath.Join(e.root, filepath.FromSlash(rel)))
		return src, err == nil
	}
	if buf, ok := e.Buffer(rel); ok {
		return []byte(buf), true
	}
	abs, _, err := tree.Resolve(e.root, rel)
	if err != nil {
		return nil, false
	}
	src, err := ReadSource(abs)
	return src, err == nil
}

// computedMember reports a computed member's text as the symbol index
// names a function assigned to it (treesitter's jsMember): a name, then
// one bracketed expression of names, dots, quotes and spaces ending the
// text, at most treesitter.MaxComputedMember bytes ("app[method]",
// "proto['get']").
func computedMember(s string) bool {
	open := strings.IndexByte(s, '[')
	if open <= 0 || len(s) > treesitter.MaxComputedMember || !strings.HasSuffix(s, "]") || !isName(strings.ReplaceAll(s[:open], ".", "_")) {
		return false
	}
	inner := s[open+1 : len(s)-1]
	return inner != "" && strings.Trim(inner, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$.'\" -") == ""
}

// isName reports a code name (see query.IsNameByte).
func isName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !query.IsNameByte(s[i]) {
			return false
		}
	}
	return s != ""
}

// declLines are the lines that declare defs: each definition's first
// line naming it, which is not its first line when an annotation (Java's
// @Override, a Rust attribute) or a doc comment starts it.
func declLines(defs []index.Def, lines [][]byte, name []byte) map[int]bool {
	decl := make(map[int]bool, len(defs))
	for _, d := range defs {
		decl[d.Line] = true
		for n := d.Line; n <= max(d.End, d.Line) && n <= len(lines); n++ {
			if query.HasName(lines[n-1], name) && !commentLine(lines[n-1]) {
				decl[n] = true
				break
			}
		}
	}
	return decl
}

// withInnerDefs returns defs (a file's symbol-index definitions) with the
// file's definitions of name inside small function bodies, which the
// index leaves out (treesitter.DefsAtAnyDepth): `def wrapped():` in a
// five-line method, a closure `const patch = (n) => ...` in a short
// factory. Only a file where a line that holds no indexed definition
// defines name by its shape (defines) is parsed again.
func withInnerDefs(ctx context.Context, rel string, src []byte, lines [][]byte, defs []index.Def, name string, defines *regexp.Regexp) []index.Def {
	at := map[int]bool{}
	for _, d := range defs {
		at[d.Line] = true
	}
	needle := []byte(name)
	may := false
	for i, line := range lines {
		if !at[i+1] && bytes.Contains(line, needle) && defines.Match(line) {
			may = true
			break
		}
	}
	if !may {
		return defs
	}
	lang := treesitter.Detect(rel, src)
	if lang == "" {
		return defs
	}
	all, err := treesitter.DefsAtAnyDepth(ctx, lang, src)
	if err != nil {
		return defs
	}
	out := slices.Clone(defs)
	for _, s := range all {
		if s.Inner && s.Name == name && !at[s.Start] {
			out = append(out, index.Def{Name: s.Name, Parent: s.Parent, Kind: s.Kind, Line: s.Start, End: s.End, Signature: s.Signature})
		}
	}
	return out
}

// nonCode is a file's spans that are no code (treesitter.NonCode),
// read when a line naming the symbol first may be inside one.
type nonCode struct {
	ctx   context.Context
	rel   string
	src   []byte
	multi int // the file may hold a string over several lines: 1 no, 2 yes, 0 not known yet
	read  bool
	spans []treesitter.Span
}

// nonCodeOf is rel's spans to read: none (nil) for a file the symbol
// index could not parse.
func nonCodeOf(ctx context.Context, rel string, src []byte, ent *index.Symbols) *nonCode {
	if ent == nil {
		return nil
	}
	return &nonCode{ctx: ctx, rel: rel, src: src}
}

// mayBeQuoted reports a line where a use of name may be inside a string
// or a comment by the line alone: an odd count of one kind of quote
// before it, or a comment's mark (//, #, /*) outside quotes before it. It only
// spares the parse of a file whose uses are plain code (`w.Write(p)`
// beside a string, `fmt.Fprintf(w, "%d", n)`); the parse decides.
func mayBeQuoted(line, name []byte) bool {
	var quote byte // the open quote, 0 outside one
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '#' || c == '/' && i+1 < len(line) && (line[i+1] == '/' || line[i+1] == '*'):
			return bytes.Contains(line[i:], name)
		case bytes.HasPrefix(line[i:], name) && (i == 0 || !query.IsNameByte(line[i-1])):
			i += len(name) - 1
		}
		if quote != 0 && i+1 < len(line) && bytes.HasPrefix(line[i+1:], name) {
			return true
		}
	}
	return false
}

// multiLine reports a file that may hold a string of several lines: a
// Python triple quote, or a line with an odd count of backticks (a Go raw
// string or a JavaScript template that goes on; Go's struct tags close
// theirs on the line).
func multiLine(src []byte) bool {
	if bytes.Contains(src, []byte(`"""`)) || bytes.Contains(src, []byte("'''")) {
		return true
	}
	for rest := src; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if bytes.Count(line, []byte("`"))%2 == 1 {
			return true
		}
	}
	return false
}

// only reports a line (starting at byte at of the file) whose every use
// of name is inside a string literal or a comment by the file's parse: a
// docstring's `Router.url_path_for` is no use of it. The file is parsed
// only when the line may be so (a quote before the name on the line, or
// a file that may hold a string of several lines).
func (c *nonCode) only(line []byte, at int, name []byte) bool {
	if c == nil {
		return false
	}
	if !mayBeQuoted(line, name) {
		if c.multi == 0 {
			c.multi = 1
			if multiLine(c.src) {
				c.multi = 2
			}
		}
		if c.multi == 1 {
			return false
		}
	}
	if !c.read {
		c.read = true
		if lang := treesitter.Detect(c.rel, c.src); lang != "" {
			c.spans, _ = treesitter.NonCode(c.ctx, lang, c.src)
		}
	}
	if len(c.spans) == 0 {
		return false
	}
	found := false
	for from := 0; from < len(line); {
		j := bytes.Index(line[from:], name)
		if j < 0 {
			break
		}
		j += from
		from = j + 1
		end := j + len(name)
		if j > 0 && query.IsNameByte(line[j-1]) || end < len(line) && query.IsNameByte(line[end]) {
			continue
		}
		found = true
		p := at + j
		k, ok := slices.BinarySearchFunc(c.spans, p, func(s treesitter.Span, p int) int {
			switch {
			case s.End <= p:
				return -1
			case s.Start > p:
				return 1
			}
			return 0
		})
		if !ok || k == len(c.spans) {
			return false
		}
	}
	return found
}

// definesName matches a line that may define name: after a definition's
// keyword (`def name`, `function name`, `class name`, `fn name`), assigned
// a function (`name := func`, `const name = (x) =>`, `name = lambda`), a
// method's head (`name(x) {`), or an object literal's property holding a
// function or an object of them (`load: async (id) => {`, `transform: {`).
func definesName(name string) *regexp.Regexp {
	n := regexp.QuoteMeta(name)
	return regexp.MustCompile(`\b(def|class|function\*?|func|fn)\s+` + n + `\b` +
		`|(^|[^\w$.])` + n + `\s*(:=|=)\s*(async\s+)?(func\b|function\b|lambda\b|\(|[\w$]+\s*=>)` +
		`|^\s*(async\s+)?` + n + `\s*\(.*\)\s*\{\s*$` +
		`|^\s*['"]?` + n + `['"]?\s*:\s*((async\s+)?(function\b|\(|[\w$]+\s*=>)|\{\s*$)`)
}

// commentLine reports a line that is only a comment (references are
// code).
func commentLine(line []byte) bool {
	t := bytes.TrimSpace(line)
	for _, p := range []string{"//", "#", "/*", "*", "--", ";"} {
		if bytes.HasPrefix(t, []byte(p)) {
			return true
		}
	}
	return false
}

// maxChain is the most parts a qualified name has: a package, a type and
// its member (store.Store.Put, requests.Session.get, walk::Walker::scan),
// after a package path ending in a slash (net/http.Get).
const maxChain = 3

// chainParts splits a qualified name (its call parentheses and package
// path cut) at its separators (., ::, :, and # between a type and its
// method; a # after a dot or first starts a JavaScript private name) and
// reports whether every part is a name and there are at most maxChain:
// `a.b.c.d.e` read as d.e listed every use of e, and `a..b` or `a.b-c.d`
// read as something else.
func chainParts(s string) ([]string, bool) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		s = strings.TrimSpace(s[:i])
	}
	s = s[strings.LastIndexByte(s, '/')+1:]
	s = strings.ReplaceAll(s, "::", ":")
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' || c == ':' || c == '#' && i > 0 && s[i-1] != '.' {
			parts = append(parts, s[start:i])
			start = i
			if c != '#' {
				start = i + 1
			}
		}
	}
	parts = append(parts, s[start:])
	for i, p := range parts {
		if i > 0 || len(parts) == 1 {
			p = strings.TrimPrefix(p, "#")
		}
		if !isName(p) {
			return parts, false
		}
	}
	return parts, len(parts) <= maxChain
}

// lastTwo writes a chain's last two parts (chainParts of name) as a name
// to ask for, with the chain's separator: Type.member, Type#member,
// mod::f, and Type.#private (a JavaScript private name keeps its dot:
// Type#private would name the method private).
func lastTwo(name string, parts []string) string {
	q, m := parts[len(parts)-2], parts[len(parts)-1]
	switch {
	case strings.HasPrefix(m, "#") && strings.Contains(name, "."+m):
		return q + "." + m
	case strings.HasPrefix(m, "#"):
		return q + m
	case strings.Contains(name, "::"):
		return q + "::" + m
	}
	return q + "." + m
}
