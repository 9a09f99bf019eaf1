package lang

import (
	"bytes"
	"path"
	"regexp"
	"strings"
)

// importSyntax is how one language's files name what they import. The
// table below is the one place that says which languages have imports:
// read is the whole-file reader behind [Imports] (the index's imports and
// the link graph); lines are the per-line patterns of the build without
// tree-sitter ([ImportLines]: each pattern's first group is an import).
// Tree-sitter's own readers (treesitter/langs.go) walk the syntax tree of
// the languages it parses; a test there holds them to this table.
type importSyntax struct {
	read  func(src []byte) []string
	lines []*regexp.Regexp
}

var (
	jsLines = []*regexp.Regexp{
		regexp.MustCompile(`^\s*(?:import|export)\b.*?\bfrom\s*['"]([^'"]+)['"]`),
		regexp.MustCompile(`^\s*import\s*['"]([^'"]+)['"]`),
		regexp.MustCompile(`\brequire\(\s*['"]([^'"]+)['"]\s*\)`),
	}
	cFamilyLines = []*regexp.Regexp{regexp.MustCompile(`^\s*#\s*include\s*[<"]([^>"]+)[>"]`)}
)

var importSyntaxes = map[string]importSyntax{
	"go": {read: goImports, lines: []*regexp.Regexp{
		regexp.MustCompile(`^import\s+(?:\w+\s+)?"([^"]+)"`),
		regexp.MustCompile(`^\s+(?:[\w.]+\s+)?"([^"]+)"\s*$`),
	}},
	"python": {read: pyImports, lines: []*regexp.Regexp{
		regexp.MustCompile(`^import\s+([\w.]+)`),
		regexp.MustCompile(`^from\s+([\w.]+)\s+import`),
	}},
	"javascript": {read: jsImports, lines: jsLines},
	"typescript": {read: jsImports, lines: jsLines},
	"tsx":        {read: jsImports, lines: jsLines},
	"vue":        {read: jsImports},
	"svelte":     {read: jsImports},
	"java":       {read: javaImports, lines: []*regexp.Regexp{regexp.MustCompile(`^import\s+(?:static\s+)?([\w.*]+)\s*;`)}},
	"kotlin":     {read: javaImports, lines: []*regexp.Regexp{regexp.MustCompile(`^import\s+([\w.*]+)`)}},
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

// Imports returns the import specifications of a source file as written:
// Go import paths; Python module names (relative ones keep their leading
// dots, and "from m import a" also yields "m.a" since a may be a
// submodule); JS/TS module specifiers of import, export-from, require and
// dynamic import; Java imported classes ("a.b.C", or "a.b.*"). Other
// languages have none here (their imports are read only line by line:
// [ImportLines]). Only the file's text is read; nothing is resolved.
func Imports(lang string, src []byte) []string {
	if read := importSyntaxes[lang].read; read != nil {
		return read(src)
	}
	return nil
}

// ImportLines returns the line patterns of lang's import statements, each
// with the import as its first group, for a reader with no parser (nil
// when lang has none). The slice is shared: callers must not change it.
func ImportLines(lang string) []*regexp.Regexp {
	return importSyntaxes[lang].lines
}

// HasImports reports whether lang's files have imports at all.
func HasImports(lang string) bool {
	_, ok := importSyntaxes[lang]
	return ok
}

// goImports reads the import declarations at the top of a Go file.
func goImports(src []byte) []string {
	var out []string
	inBlock := false
	for line := range bytes.Lines(src) {
		s := strings.TrimSpace(string(line))
		switch {
		case inBlock:
			if strings.HasPrefix(s, ")") {
				inBlock = false
				continue
			}
			if q := quoted(s); q != "" {
				out = append(out, q)
			}
		case strings.HasPrefix(s, "import"):
			rest := strings.TrimSpace(strings.TrimPrefix(s, "import"))
			if strings.HasPrefix(rest, "(") {
				inBlock = true
				rest = strings.TrimSpace(rest[1:])
				if q := quoted(rest); q != "" {
					out = append(out, q)
				}
				if strings.Contains(rest, ")") {
					inBlock = false
				}
				continue
			}
			if q := quoted(rest); q != "" {
				out = append(out, q)
			}
		case strings.HasPrefix(s, "func ") || strings.HasPrefix(s, "type ") ||
			strings.HasPrefix(s, "var ") || strings.HasPrefix(s, "const "):
			return out
		}
	}
	return out
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
	pyFromRe   = regexp.MustCompile(`^\s*from\s+(\.*[\w.]*)\s+import\s+\(?([^#)]*)`)
)

// pyImports reads Python import statements.
func pyImports(src []byte) []string {
	var out []string
	for line := range bytes.Lines(src) {
		s := strings.TrimRight(string(line), "\r\n")
		if m := pyFromRe.FindStringSubmatch(s); m != nil {
			mod := m[1]
			out = append(out, mod)
			for _, name := range strings.Split(m[2], ",") {
				name, _, _ = strings.Cut(strings.TrimSpace(name), " ")
				if name == "" || name == "*" || name == "\\" {
					continue
				}
				if strings.HasSuffix(mod, ".") {
					out = append(out, mod+name)
				} else {
					out = append(out, mod+"."+name)
				}
			}
			continue
		}
		if m := pyImportRe.FindStringSubmatch(s); m != nil {
			for _, part := range strings.Split(m[1], ",") {
				name, _, _ := strings.Cut(strings.TrimSpace(part), " ")
				if name != "" && !strings.HasPrefix(name, "#") {
					out = append(out, name)
				}
			}
		}
	}
	return out
}

var (
	// jsImports reads JS/TS module specifiers.
	jsImports = firstGroups(regexp.MustCompile(`(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"\n]+)['"]`))
	// javaImports reads Java and Kotlin imports.
	javaImports = firstGroups(regexp.MustCompile(`(?m)^\s*import\s+(?:static\s+)?(\w+(?:\.\w+)*(?:\.\*)?)\s*;?`))
)

// firstGroups reads the first group of each match of re.
func firstGroups(re *regexp.Regexp) func(src []byte) []string {
	return func(src []byte) []string {
		var out []string
		for _, m := range re.FindAllSubmatch(src, -1) {
			out = append(out, string(m[1]))
		}
		return out
	}
}

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
