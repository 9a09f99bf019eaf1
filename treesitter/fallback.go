//go:build !cgo || notreesitter

package treesitter

// The line-based fallback, built with -tags notreesitter or CGO_ENABLED=0:
// no parser, so only the levels that need none. Full is the text; Outline
// and Symbols come from per-language patterns over top-level lines; Bodies
// and Signatures, which must parse, return ErrUnsupported and the caller
// cuts the middle instead.

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/lang"
)

// Render returns the file's view at level: Full and Outline only; Bodies
// and Signatures return an error wrapping [ErrUnsupported] in this build.
// Render may run concurrently.
func Render(ctx context.Context, lang string, src []byte, level Level, opts Options) (View, error) {
	if v, ok, err := renderLevel(ctx, lang, src, level, opts); ok || err != nil {
		return v, err
	}
	if level == Bodies || level == Signatures {
		return View{}, fmt.Errorf("render %s at %s: built without tree-sitter: %w", lang, level, ErrUnsupported)
	}
	return View{}, fmt.Errorf("render %s: unknown level %q: %w", lang, level, ctxd.ErrInvalidParams)
}

// Views returns the Full and Outline views. Views may run concurrently.
func Views(ctx context.Context, lang string, src []byte, opts Options) ([]View, error) {
	syms, err := Symbols(ctx, lang, src)
	if err != nil {
		return nil, err
	}
	full := View{Level: Full, Language: lang, Text: string(src)}
	out := View{Level: Outline, Language: lang, Text: outlineText(syms.Symbols, nil)}
	if n := newLineIndex(src).count(len(src)); n > 0 {
		out.Elided = []ctxd.LineRange{{Start: 1, End: n}}
	}
	if len(out.Text) > len(full.Text) {
		out.Text, out.Elided = full.Text, nil
	}
	return []View{full, out}, nil
}

// FocusViews renders the focus levels ([Focus], [FocusOnly]) from the
// line patterns' symbols, largest first, or returns nil when nothing is
// focused. FocusViews may run concurrently.
func FocusViews(ctx context.Context, lang string, src []byte, opts Options) ([]View, error) {
	if !opts.focuses() {
		return nil, nil
	}
	syms, err := Symbols(ctx, lang, src)
	if err != nil {
		return nil, err
	}
	return focusViews(lang, src, nil, syms.Symbols, syms.Imports, opts), nil
}

// FocusViewsEach is [FocusViews] for each of keeps in turn (opts with
// KeepLines set to keeps[i]): views[i] and errs[i] are what that call
// returns.
func FocusViewsEach(ctx context.Context, lang string, src []byte, opts Options, keeps [][]int) (views [][]View, errs []error) {
	return FocusViewsOf(ctx, lang, src, KeepsOf(opts, keeps))
}

// FocusViewsOf is [FocusViews] for each of opts in turn.
func FocusViewsOf(ctx context.Context, lang string, src []byte, opts []Options) (views [][]View, errs []error) {
	views, errs = make([][]View, len(opts)), make([]error, len(opts))
	for i, o := range opts {
		views[i], errs[i] = FocusViews(ctx, lang, src, o)
	}
	return views, errs
}

// SymbolsStored is [Symbols]: without tree-sitter there is no analysis to
// store.
func SymbolsStored(ctx context.Context, lang string, src []byte, _ *Store) (*FileSymbols, error) {
	return Symbols(ctx, lang, src)
}

// Symbols finds top-level definitions (and Python and Ruby methods) by
// patterns over lines. It cannot see where a definition ends: End is the
// line before the next symbol at the same or a lower depth. Symbols may
// run concurrently.
func Symbols(ctx context.Context, language string, src []byte) (*FileSymbols, error) {
	if !supported(language) {
		return nil, fmt.Errorf("language %q: %w", language, ErrUnsupported)
	}
	if len(src) > MaxSize {
		return nil, fmt.Errorf("%s file of %d bytes is over the %d byte limit: %w", language, len(src), MaxSize, ErrUnsupported)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("symbols of %s: %w", language, err)
	}
	p := linePatterns[language]
	out := &FileSymbols{Language: language}
	lines := strings.Split(string(src), "\n")
	for _, im := range lang.ImportsAt(language, src) {
		if !im.Name {
			out.Imports = append(out.Imports, im.Spec)
		}
	}
	var class string // the enclosing class (indented languages)
	var doc []string
	for i, line := range lines {
		trim := strings.TrimSpace(line)
		if p.comment != "" && strings.HasPrefix(trim, p.comment) {
			doc = append(doc, trim)
			continue
		}
		indented := line != "" && (line[0] == ' ' || line[0] == '\t')
		if !indented && trim != "" && !strings.HasPrefix(trim, "@") && !strings.HasPrefix(trim, "#[") {
			class = ""
		}
		for _, d := range p.defs {
			sm := d.re.FindStringSubmatch(line)
			if sm == nil {
				continue
			}
			s := Symbol{Name: sm[d.name], Kind: d.kind, Start: i + 1, Signature: lineSignature(trim), Exported: p.exported(trim, sm[d.name])}
			if indented {
				if class == "" || !p.methods {
					continue
				}
				s.Depth, s.Parent = 1, class
				if s.Kind == "function" {
					s.Kind = "method"
				}
			} else if d.kind == "class" || d.kind == "module" {
				class = s.Name
			}
			if len(doc) > 0 {
				s.Doc = firstSentence(strings.Join(doc, "\n"))
			}
			out.Symbols = append(out.Symbols, s)
			break
		}
		if trim != "" {
			doc = doc[:0]
		}
	}
	// A symbol ends before the next one at its depth or above.
	n := len(lines)
	if n > 0 && lines[n-1] == "" {
		n--
	}
	for i := range out.Symbols {
		out.Symbols[i].End = n
		for j := i + 1; j < len(out.Symbols); j++ {
			if out.Symbols[j].Depth <= out.Symbols[i].Depth {
				out.Symbols[i].End = max(out.Symbols[i].Start, out.Symbols[j].Start-1)
				break
			}
		}
	}
	return out, nil
}

func lineSignature(s string) string {
	s = strings.TrimRight(s, " \t{:")
	return clip(oneLine(s), 160)
}

type lineDef struct {
	re   *regexp.Regexp
	kind string
	name int // submatch index of the name
}

type linePattern struct {
	comment  string // line comment marker for docs
	methods  bool   // indented defs under a class are its methods
	defs     []lineDef
	exported func(line, name string) bool
}

func def(re, kind string, name int) lineDef {
	return lineDef{regexp.MustCompile(re), kind, name}
}

func notWord(words ...string) func(line, name string) bool {
	return func(line, name string) bool {
		for _, w := range words {
			if strings.Contains(" "+line+" ", " "+w+" ") {
				return false
			}
		}
		return true
	}
}

var (
	jsDefs = []lineDef{
		def(`^(?:export\s+)?(?:default\s+)?(?:async\s+)?function\*?\s+([\w$]+)`, "function", 1),
		def(`^(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([\w$]+)`, "class", 1),
		def(`^(?:export\s+)?(?:declare\s+)?interface\s+([\w$]+)`, "interface", 1),
		def(`^(?:export\s+)?(?:declare\s+)?type\s+([\w$]+)`, "type", 1),
		def(`^(?:export\s+)?(?:declare\s+)?(?:const\s+)?enum\s+([\w$]+)`, "enum", 1),
		def(`^(?:export\s+)?(?:declare\s+)?(?:const|let|var)\s+([\w$]+)`, "var", 1),
	}
	jsExported = func(line, name string) bool { return strings.HasPrefix(line, "export") }
)

var linePatterns = map[string]linePattern{
	"go": {
		comment: "//",
		defs: []lineDef{
			def(`^func\s+\([^)]*\)\s*(\w+)`, "method", 1),
			def(`^func\s+(\w+)`, "function", 1),
			def(`^type\s+(\w+)\s+struct\b`, "struct", 1),
			def(`^type\s+(\w+)\s+interface\b`, "interface", 1),
			def(`^type\s+(\w+)`, "type", 1),
			def(`^var\s+(\w+)`, "var", 1),
			def(`^const\s+(\w+)`, "const", 1),
		},
		exported: func(line, name string) bool {
			return name != "" && strings.ToUpper(name[:1]) == name[:1] && name[:1] != "_"
		},
	},
	"python": {
		methods: true,
		defs: []lineDef{
			def(`^\s*(?:async\s+)?def\s+(\w+)`, "function", 1),
			def(`^\s*class\s+(\w+)`, "class", 1),
		},
		exported: func(line, name string) bool {
			return !strings.HasPrefix(name, "_") || (strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__"))
		},
	},
	"javascript": {comment: "//", defs: jsDefs, exported: jsExported},
	"typescript": {comment: "//", defs: jsDefs, exported: jsExported},
	"tsx":        {comment: "//", defs: jsDefs, exported: jsExported},
	"rust": {
		comment: "///",
		defs: []lineDef{
			def(`^(?:pub(?:\([\w:]+\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"\w+"\s+)?fn\s+(\w+)`, "function", 1),
			def(`^(?:pub(?:\([\w:]+\))?\s+)?struct\s+(\w+)`, "struct", 1),
			def(`^(?:pub(?:\([\w:]+\))?\s+)?enum\s+(\w+)`, "enum", 1),
			def(`^(?:pub(?:\([\w:]+\))?\s+)?(?:unsafe\s+)?trait\s+(\w+)`, "trait", 1),
			def(`^(?:pub(?:\([\w:]+\))?\s+)?type\s+(\w+)`, "type", 1),
			def(`^(?:pub(?:\([\w:]+\))?\s+)?mod\s+(\w+)`, "module", 1),
			def(`^(?:pub(?:\([\w:]+\))?\s+)?(?:const|static)\s+(?:mut\s+)?(\w+)`, "const", 1),
			def(`^(?:unsafe\s+)?impl\b(?:<[^>]*>)?\s+(?:[\w:<>, ]+\s+for\s+)?([\w:]+)`, "impl", 1),
			def(`^macro_rules!\s+(\w+)`, "macro", 1),
		},
		exported: func(line, name string) bool { return strings.HasPrefix(line, "pub") || strings.HasPrefix(line, "impl") },
	},
	"java": {
		comment: "//",
		defs: []lineDef{
			def(`^(?:@\w+\s+)*(?:(?:public|protected|private|abstract|final|static|sealed|non-sealed|strictfp)\s+)*(class|interface|enum|record|@interface)\s+(\w+)`, "class", 2),
		},
		exported: notWord("private"),
	},
	"c": {
		comment: "//",
		defs: []lineDef{
			def(`^(?:static\s+|extern\s+|inline\s+)*[\w\s\*]+?\b(\w+)\s*\([^;]*$`, "function", 1),
			def(`^(?:typedef\s+)?struct\s+(\w+)`, "struct", 1),
			def(`^#define\s+(\w+)`, "macro", 1),
		},
		exported: notWord("static"),
	},
	"cpp": {
		comment: "//",
		defs: []lineDef{
			def(`^(?:template\s*<.*>\s*)?(?:class|struct)\s+(\w+)`, "class", 1),
			def(`^namespace\s+([\w:]+)`, "module", 1),
			def(`^(?:static\s+|extern\s+|inline\s+|virtual\s+|constexpr\s+)*[\w\s\*&:<>,]+?\b([\w~]+)\s*\([^;]*$`, "function", 1),
			def(`^#define\s+(\w+)`, "macro", 1),
		},
		exported: notWord("static"),
	},
	"csharp": {
		comment: "///",
		defs: []lineDef{
			def(`^\s*namespace\s+([\w.]+)`, "module", 1),
			def(`^\s*(?:\[.*\]\s*)*(?:(?:public|internal|protected|private|static|abstract|sealed|partial|readonly|file)\s+)*(?:class|interface|struct|enum|record)\s+(\w+)`, "class", 1),
		},
		exported: notWord("private"),
	},
	"ruby": {
		comment: "#",
		methods: true,
		defs: []lineDef{
			def(`^\s*def\s+((?:self\.)?[\w?!=]+)`, "function", 1),
			def(`^\s*class\s+([\w:]+)`, "class", 1),
			def(`^\s*module\s+([\w:]+)`, "module", 1),
		},
		exported: func(line, name string) bool { return true },
	},
	"php": {
		comment: "//",
		defs: []lineDef{
			def(`^\s*(?:(?:abstract|final|readonly)\s+)*(?:class|interface|trait|enum)\s+(\w+)`, "class", 1),
			def(`^function\s+&?(\w+)`, "function", 1),
			def(`^namespace\s+([\w\\]+)`, "module", 1),
		},
		exported: notWord("private"),
	},
	"kotlin": {
		comment: "//",
		defs: []lineDef{
			def(`^(?:@\w+\s+)*(?:(?:public|internal|private|protected|abstract|open|sealed|data|enum|inner|value|annotation)\s+)*(?:class|interface|object)\s+(\w+)`, "class", 1),
			def(`^(?:(?:public|internal|private|protected|inline|suspend|operator|infix|tailrec)\s+)*fun\s+(?:<[^>]*>\s*)?(?:[\w.]+\.)?(\w+)`, "function", 1),
			def(`^(?:(?:public|internal|private|protected|const)\s+)*va[lr]\s+(\w+)`, "var", 1),
			def(`^typealias\s+(\w+)`, "type", 1),
		},
		exported: notWord("private"),
	},
	"swift": {
		comment: "///",
		defs: []lineDef{
			def(`^(?:@\w+\s+)*(?:(?:public|internal|private|fileprivate|open|final)\s+)*(?:class|struct|enum|protocol|extension|actor)\s+(\w+)`, "class", 1),
			def(`^(?:@\w+\s+)*(?:(?:public|internal|private|fileprivate|open|static|mutating)\s+)*func\s+(\w+)`, "function", 1),
			def(`^(?:(?:public|internal|private|fileprivate)\s+)*(?:let|var)\s+(\w+)`, "var", 1),
			def(`^typealias\s+(\w+)`, "type", 1),
		},
		exported: notWord("private", "fileprivate"),
	},
}

// FileTagsStored returns a file's definitions, from the line patterns of
// [Symbols], and its identifiers, every identifier-like word (comments and
// strings included: there is no parser to tell them apart). Without
// tree-sitter there is no analysis to store.
func FileTagsStored(ctx context.Context, lang string, src []byte, _ *Store) (*Tags, error) {
	syms, err := Symbols(ctx, lang, src)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var refs []string
	for _, w := range identRE.FindAllString(string(src), -1) {
		if !seen[w] && len(w) <= 128 {
			seen[w] = true
			refs = append(refs, w)
		}
	}
	sort.Strings(refs)
	return &Tags{Language: lang, Defs: syms.Symbols, Refs: refs}, nil
}

// Prepare is [FileTagsStored] here (without tags false, nothing): the fallback
// keeps no store. See the tree-sitter build's Prepare.
func Prepare(ctx context.Context, lang string, src []byte, _ *Store, tags bool) (*Tags, []View, error) {
	if !tags {
		return nil, nil, nil
	}
	t, err := FileTagsStored(ctx, lang, src, nil)
	return t, nil, err
}

var identRE = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*`)

// DefsAtAnyDepth returns src's definitions from the line patterns of
// [Symbols]: without a parser there are no inner definitions to add.
func DefsAtAnyDepth(ctx context.Context, lang string, src []byte) ([]Symbol, error) {
	fs, err := Symbols(ctx, lang, src)
	if err != nil {
		return nil, err
	}
	return fs.Symbols, nil
}

// NonCode needs a parser: without one there are no spans to say.
func NonCode(ctx context.Context, lang string, src []byte) ([]Span, error) {
	return nil, ErrUnsupported
}
