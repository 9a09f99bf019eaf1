package lang

import (
	"bytes"
	"path"
	"regexp"
	"strings"
)

// importSyntax is how one language's files name what they import. The
// table below is the one place that says which languages have imports and
// how a file's lines say them: read is the statement reader of the
// languages whose imports the link graph resolves (Go, Python, JS/TS,
// Java, Kotlin), which knows an import statement over lines; lines are
// one-line patterns (each pattern's first group is an import) of the
// others. [ImportsAt] reads both; [Imports] (the index's imports and the
// link graph), the focus views' module-level lines (engine's decl lines)
// and the build without tree-sitter all read through it. Tree-sitter's
// own readers (treesitter/langs.go) walk the syntax tree of the
// languages it parses; a test there holds them to this table.
type importSyntax struct {
	read  func(src []byte) []Import
	lines []*regexp.Regexp
}

// Import is one import of a file as written, where it is said.
type Import struct {
	// Spec is what is imported: a Go import path, a Python module name
	// (relative ones keep their leading dots), a JS/TS module specifier,
	// a Java class ("a.b.C", "a.b.*"), a line pattern's group.
	Spec string
	// Line is the 1-based line holding Spec (for a Python name, the line
	// of the name); Start and End are the lines of the statement around
	// it (Go's `import (` group, Python's `from m import (` to `)` or a
	// line continued by `\`, a JS `import {` over lines to its `from`).
	Line, Start, End int
	// Name marks a Python `from m import a` read as "m.a": a may be a
	// submodule, or a name m binds. The module is the entry before it.
	Name bool
}

var importSyntaxes = map[string]importSyntax{
	"go":         {read: goImports},
	"python":     {read: pyImports},
	"javascript": {read: jsImports},
	"typescript": {read: jsImports},
	"tsx":        {read: jsImports},
	"vue":        {read: jsImports},
	"svelte":     {read: jsImports},
	"java":       {read: javaImports},
	"kotlin":     {read: javaImports},
	"rust":       {lines: []*regexp.Regexp{regexp.MustCompile(`^(?:pub\s+)?use\s+([^;]+);`)}},
	"c":          {lines: cFamilyLines},
	"cpp":        {lines: cFamilyLines},
	"csharp":     {lines: []*regexp.Regexp{regexp.MustCompile(`^\s*(?:global\s+)?using\s+(?:static\s+)?([\w.]+)\s*;`)}},
	"ruby":       {lines: []*regexp.Regexp{regexp.MustCompile(`^\s*require(?:_relative)?\s*\(?\s*['"]([^'"]+)['"]`)}},
	"php": {lines: []*regexp.Regexp{
		regexp.MustCompile(`^use\s+([\w\\]+)`),
		regexp.MustCompile(`^\s*(?:require|include)(?:_once)?\s*\(?\s*['"]([^'"]+)['"]`),
	}},
	"swift": {lines: []*regexp.Regexp{regexp.MustCompile(`^import\s+(?:\w+\s+)?([\w.]+)`)}},
}

var cFamilyLines = []*regexp.Regexp{regexp.MustCompile(`^\s*#\s*include\s*[<"]([^>"]+)[>"]`)}

// ImportsAt returns the imports of a source file in lang, in the order
// written, each with its line and its statement's lines (nil for a
// language without imports). Only the file's text is read; nothing is
// resolved.
func ImportsAt(lang string, src []byte) []Import {
	syn := importSyntaxes[lang]
	if syn.read != nil {
		return syn.read(src)
	}
	if len(syn.lines) == 0 {
		return nil
	}
	var out []Import
	n := 0
	for line := range bytes.Lines(src) {
		n++
		for _, re := range syn.lines {
			if m := re.FindSubmatch(bytes.TrimRight(line, "\r\n")); m != nil {
				out = append(out, Import{Spec: string(m[1]), Line: n, Start: n, End: n})
			}
		}
	}
	return out
}

// Imports returns the import specifications of a source file as written,
// those of [ImportsAt] for the languages the link graph resolves: Go
// import paths; Python module names (relative ones keep their leading
// dots, and "from m import a" also yields "m.a" since a may be a
// submodule); JS/TS module specifiers of import, export-from, require and
// dynamic import; Java imported classes ("a.b.C", or "a.b.*"). Other
// languages have none here.
func Imports(lang string, src []byte) []string {
	read := importSyntaxes[lang].read
	if read == nil {
		return nil
	}
	imps := read(src)
	if len(imps) == 0 {
		return nil
	}
	out := make([]string, len(imps))
	for i, im := range imps {
		out[i] = im.Spec
	}
	return out
}

// HasImports reports whether lang's files have imports at all.
func HasImports(lang string) bool {
	_, ok := importSyntaxes[lang]
	return ok
}

// goImports reads the import declarations at the top of a Go file.
func goImports(src []byte) []Import {
	var out []Import
	block := 0 // the line of an open `import (`
	n := 0
	for line := range bytes.Lines(src) {
		n++
		s := strings.TrimSpace(string(line))
		switch {
		case block > 0:
			if strings.HasPrefix(s, ")") {
				closeGroup(out, block, n)
				block = 0
				continue
			}
			if q := quoted(s); q != "" {
				out = append(out, Import{Spec: q, Line: n, Start: block})
			}
		case strings.HasPrefix(s, "import"):
			rest := strings.TrimSpace(strings.TrimPrefix(s, "import"))
			if strings.HasPrefix(rest, "(") {
				block = n
				rest = strings.TrimSpace(rest[1:])
				if q := quoted(rest); q != "" {
					out = append(out, Import{Spec: q, Line: n, Start: n})
				}
				if strings.Contains(rest, ")") {
					closeGroup(out, block, n)
					block = 0
				}
				continue
			}
			if q := quoted(rest); q != "" {
				out = append(out, Import{Spec: q, Line: n, Start: n, End: n})
			}
		case strings.HasPrefix(s, "func ") || strings.HasPrefix(s, "type ") ||
			strings.HasPrefix(s, "var ") || strings.HasPrefix(s, "const "):
			if block > 0 {
				closeGroup(out, block, n-1)
			}
			return out
		}
	}
	if block > 0 {
		closeGroup(out, block, n)
	}
	return out
}

// closeGroup sets End of the imports of the group opened on line start.
func closeGroup(imps []Import, start, end int) {
	for i := len(imps) - 1; i >= 0 && imps[i].Start == start; i-- {
		imps[i].End = end
	}
}

// quoted returns the first double- or back-quoted string of s.
func quoted(s string) string {
	for _, q := range []byte{'"', '`'} {
		i := strings.IndexByte(s, q)
		if i < 0 {
			continue
		}
		j := strings.IndexByte(s[i+1:], q)
		if j < 0 {
			continue
		}
		return s[i+1 : i+1+j]
	}
	return ""
}

var (
	pyImportRe = regexp.MustCompile(`^\s*import\s+(.+)$`)
	pyFromRe   = regexp.MustCompile(`^\s*from\s+(\.*[\w.]*)\s+import\s+(\(?)([^#)]*)(\)?)`)
)

// pyImports reads Python import statements, `from m import (` over lines
// to its `)` and a line continued by a backslash included.
func pyImports(src []byte) []Import {
	var out []Import
	lines := strings.SplitAfter(string(src), "\n")
	for i := 0; i < len(lines); i++ {
		s := strings.TrimRight(lines[i], "\r\n")
		start := i + 1
		if m := pyFromRe.FindStringSubmatch(s); m != nil {
			mod := m[1]
			first := len(out)
			out = append(out, Import{Spec: mod, Line: start, Start: start})
			names := func(text string, line int) {
				for _, name := range strings.Split(text, ",") {
					name, _, _ = strings.Cut(strings.TrimSpace(name), " ")
					if name == "" || name == "*" || name == "\\" {
						continue
					}
					spec := mod + "." + name
					if strings.HasSuffix(mod, ".") {
						spec = mod + name
					}
					out = append(out, Import{Spec: spec, Line: line, Start: start, Name: true})
				}
			}
			names(m[3], start)
			// Over lines: an open parenthesis to its close, or a
			// backslash at the end of a line.
			open := m[2] == "(" && m[4] == "" && !strings.Contains(afterComment(s), ")")
			cont := !open && strings.HasSuffix(strings.TrimRight(afterComment(s), " \t"), "\\")
			for (open || cont) && i+1 < len(lines) {
				i++
				t := afterComment(strings.TrimRight(lines[i], "\r\n"))
				if open {
					before, _, closed := strings.Cut(t, ")")
					names(before, i+1)
					open = !closed
					continue
				}
				t = strings.TrimRight(t, " \t")
				cont = strings.HasSuffix(t, "\\")
				names(strings.TrimSuffix(t, "\\"), i+1)
			}
			for k := first; k < len(out); k++ {
				out[k].End = i + 1
			}
			continue
		}
		if m := pyImportRe.FindStringSubmatch(s); m != nil {
			first := len(out)
			text := m[1]
			for {
				t := strings.TrimRight(afterComment(text), " \t")
				cont := strings.HasSuffix(t, "\\")
				for _, part := range strings.Split(strings.TrimSuffix(t, "\\"), ",") {
					name, _, _ := strings.Cut(strings.TrimSpace(part), " ")
					if name != "" {
						out = append(out, Import{Spec: name, Line: i + 1, Start: start})
					}
				}
				if !cont || i+1 >= len(lines) {
					break
				}
				i++
				text = strings.TrimRight(lines[i], "\r\n")
			}
			for k := first; k < len(out); k++ {
				out[k].End = i + 1
			}
		}
	}
	return out
}

// afterComment returns a Python line without its # comment.
func afterComment(s string) string {
	s, _, _ = strings.Cut(s, "#")
	return s
}

var (
	// jsImportRe reads JS/TS module specifiers: of import, export-from,
	// require and dynamic import.
	jsImportRe = regexp.MustCompile(`(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"\n]+)['"]`)
	// javaImportRe reads Java and Kotlin imports.
	javaImportRe = regexp.MustCompile(`(?m)^\s*import\s+(?:static\s+)?(\w+(?:\.\w+)*(?:\.\*)?)\s*;?`)
)

// jsImports reads JS/TS module specifiers. A specifier after `from` on a
// line that does not open its statement (`} from 'x'`) belongs to the
// `import` or `export` line above it, through lines of names.
func jsImports(src []byte) []Import {
	return groupImports(jsImportRe, src, func(m []int, im *Import) {
		if bytes.HasPrefix(src[m[0]:], []byte("from")) {
			im.Start = jsStatementStart(src, m[0], im.Line)
		}
	})
}

// groupImports returns an Import of each match of re in src: its first
// group, on the line it is on; adjust (when not nil) sees the match's
// indexes and may change the import.
func groupImports(re *regexp.Regexp, src []byte, adjust func(m []int, im *Import)) []Import {
	ms := re.FindAllSubmatchIndex(src, -1)
	if len(ms) == 0 {
		return nil
	}
	out := make([]Import, 0, len(ms))
	line, at := 1, 0 // the line of src[at]
	for _, m := range ms {
		line += bytes.Count(src[at:m[2]], []byte("\n"))
		at = m[2]
		im := Import{Spec: string(src[m[2]:m[3]]), Line: line, Start: line, End: line}
		if adjust != nil {
			adjust(m, &im)
		}
		out = append(out, im)
	}
	return out
}

// jsStatementStart returns the line of the `import` or `export` that opens
// the statement whose `from` is at src[from] (on line): the nearest line
// above that starts with one, when the lines between hold only names
// (no `;`, no quote, no other statement); line when there is none.
func jsStatementStart(src []byte, from, line int) int {
	lineStart := bytes.LastIndexByte(src[:from], '\n') + 1
	t := bytes.TrimSpace(src[lineStart:from])
	for k := line; k >= 1 && k > line-jsGroupLines; k-- {
		if bytes.HasPrefix(t, []byte("import")) || bytes.HasPrefix(t, []byte("export")) {
			return k
		}
		if bytes.ContainsAny(t, ";'\"`=(") || lineStart == 0 {
			return line
		}
		end := lineStart - 1
		lineStart = bytes.LastIndexByte(src[:end], '\n') + 1
		t = bytes.TrimSpace(src[lineStart:end])
	}
	return line
}

// jsGroupLines bounds the lines of names a JS import statement is read
// over.
const jsGroupLines = 200

// javaImports reads Java and Kotlin imports.
func javaImports(src []byte) []Import { return groupImports(javaImportRe, src, nil) }

// ImportResolver answers whether an import of one file names another.
type ImportResolver struct {
	// GoModule returns the module path and module root directory of the Go
	// module holding dir ("" when none).
	GoModule func(dir string) (modPath, modRoot string)
	// Py resolves Python imports to the repository's files (nil: none
	// resolve).
	Py *PyModules
}

// GoImportPath returns the import path of the Go package in dir.
func (r ImportResolver) GoImportPath(dir string) string {
	mod, root := r.GoModule(dir)
	if mod == "" {
		return ""
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(dir, root), "/")
	if root == "." || root == "" {
		rel = dir
		if rel == "." {
			rel = ""
		}
	}
	switch {
	case rel == "":
		return mod
	case mod == "std":
		return rel // the standard library's packages have no module prefix
	}
	return mod + "/" + rel
}

// Imports reports whether importer (lang, its import specs) imports the
// file target. Go imports name packages, so any file of target's directory
// counts.
func (r ImportResolver) Imports(importer, lang string, specs []string, target string) bool {
	t := r.ImportsOf(target)
	return t.By(importer, lang, specs)
}

// ImportTest is Imports with the target fixed: what depends on the target
// alone (its Go import path, Python module names, Java class) is worked
// out once, on first use, for a scan of every file of the tree.
type ImportTest struct {
	r                      ImportResolver
	target, targetDir, cls string
	goIP                   string
	goDone                 bool
}

func (r ImportResolver) ImportsOf(target string) ImportTest {
	return ImportTest{r: r, target: target, targetDir: path.Dir(target),
		cls: strings.TrimSuffix(strings.TrimSuffix(target, ".java"), ".kt")}
}

// By reports whether importer (lang, its import specs) imports the target.
func (t *ImportTest) By(importer, lang string, specs []string) bool {
	if len(specs) == 0 {
		return false
	}
	switch lang {
	case "go":
		if path.Ext(t.target) != ".go" {
			return false
		}
		if !t.goDone {
			t.goIP, t.goDone = t.r.GoImportPath(t.targetDir), true
		}
		if t.goIP == "" || path.Dir(importer) == t.targetDir {
			return false
		}
		for _, s := range specs {
			if s == t.goIP {
				return true
			}
		}
	case "python":
		if path.Ext(t.target) != ".py" {
			return false
		}
		for _, s := range specs {
			if t.r.Py.Resolves(importer, s, t.target) {
				return true
			}
		}
	case "javascript", "typescript", "tsx", "vue", "svelte":
		for _, s := range specs {
			if !strings.HasPrefix(s, ".") {
				continue
			}
			base := path.Join(path.Dir(importer), s)
			if jsMatches(base, t.target) {
				return true
			}
		}
	case "java", "kotlin":
		for _, s := range specs {
			if strings.HasSuffix(s, ".*") {
				pkg := strings.ReplaceAll(strings.TrimSuffix(s, ".*"), ".", "/")
				if strings.HasSuffix(t.targetDir, pkg) {
					return true
				}
				continue
			}
			if strings.HasSuffix(t.cls, strings.ReplaceAll(s, ".", "/")) {
				return true
			}
		}
	}
	return false
}

// pyModuleNames returns the dotted names a Python file ends: its path with
// every leading directory dropped in turn ("src/app/db.py" is
// "src.app.db", "app.db" and "db"); a package's __init__.py is the
// package itself. Which of them an import means is [PyModules]'s to say.
func pyModuleNames(rel string) []string {
	if path.Ext(rel) != ".py" {
		return nil
	}
	p := strings.TrimSuffix(rel, ".py")
	p = strings.TrimSuffix(p, "/__init__")
	segs := strings.Split(p, "/")
	var out []string
	for i := range segs {
		out = append(out, strings.Join(segs[i:], "."))
	}
	return out
}

// pyAbsolute turns a relative Python import ("..x.y") of importer into a
// dotted name relative to the root.
func pyAbsolute(importer, spec string) string {
	dots := len(spec) - len(strings.TrimLeft(spec, "."))
	dir := path.Dir(importer)
	for i := 1; i < dots; i++ {
		dir = path.Dir(dir)
	}
	rest := spec[dots:]
	base := ""
	if dir != "." {
		base = strings.ReplaceAll(dir, "/", ".")
	}
	switch {
	case base == "":
		return rest
	case rest == "":
		return base
	}
	return base + "." + rest
}

// jsMatches reports whether a resolved relative specifier base (no
// extension, or with one) names target: base itself, base plus a JS/TS
// extension, or base/index.*.
func jsMatches(base, target string) bool {
	if base == target {
		return true
	}
	ext := path.Ext(target)
	stem := strings.TrimSuffix(target, ext)
	okExt := false
	for _, e := range JSExts {
		if ext == e {
			okExt = true
		}
	}
	if !okExt {
		return false
	}
	// "./x.js" in TypeScript sources names x.ts.
	b := base
	for _, e := range JSExts {
		if strings.HasSuffix(b, e) {
			b = strings.TrimSuffix(b, e)
			break
		}
	}
	return stem == b || stem == b+"/index"
}

// SameFamily reports languages that import each other.
func SameFamily(a, b string) bool {
	fam := func(l string) string {
		switch l {
		case "javascript", "typescript", "tsx", "vue", "svelte":
			return "js"
		case "java", "kotlin":
			return "jvm"
		}
		return l
	}
	return a != "" && fam(a) == fam(b)
}
