package engine

import (
	"bytes"
	"context"
	"path"
	"regexp"
	"strings"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/symbols"
)

// Python's receivers the file does not declare, for a qualified
// [Engine.FindSymbol]: a test's parameter that names a pytest fixture
// (`def test_x(runner): runner.invoke(...)`, with `def runner(): return
// CliRunner()` under @pytest.fixture in a conftest.py), and super()
// inside a class with one base. A fixture is known only when every
// return or yield of its body is one constructor call; anything else
// stays unknown.

// fixtureDecorator matches a pytest fixture's decorator line, name=
// (a fixture renamed) as its group.
var (
	fixtureDecorator = regexp.MustCompile(`^@(?:pytest\.)?fixture\b(?:.*\bname\s*=\s*["']([A-Za-z_][A-Za-z0-9_]*)["'])?`)
	// returnsCall matches a return or yield of a call: the callee,
	// dotted, as its group.
	returnsCall = regexp.MustCompile(`^(?:return|yield)\s+([A-Za-z_][A-Za-z0-9_.]*)\s*\(`)
	// superCall matches a call of super() ending a line's text: bare, or
	// Python 2's super(Class, self).
	superCall = regexp.MustCompile(`\bsuper\(\s*(?:[A-Za-z_][A-Za-z0-9_]*\s*,\s*self\s*)?\)$`)
)

// fileFixtures returns the fixtures a Python file defines, by name: the
// type of the instance each one returns, "" when it is not one
// constructor call (a nearer fixture of the name hides a farther one all
// the same).
func fileFixtures(lines [][]byte, defs []index.Def) map[string]string {
	var fx map[string]string
	for _, d := range defs {
		if d.Parent != "" || d.Kind != "function" || d.Line < 1 || d.Line > len(lines) {
			continue
		}
		name, ok := d.Name, false
		decorator := func(t []byte) {
			if m := fixtureDecorator.FindSubmatch(t); m != nil {
				ok = true
				if len(m[1]) > 0 {
					name = string(m[1])
				}
			}
		}
		// The decorators above the def (a multi-line one's lines), and
		// those of a definition whose first line is its decorator's.
		for i := d.Line - 2; i >= 0; i-- {
			t := bytes.TrimSpace(lines[i])
			if len(t) == 0 || t[0] != '@' && t[0] != ')' && !bytes.HasSuffix(t, []byte(",")) && !bytes.HasSuffix(t, []byte("(")) {
				break
			}
			decorator(t)
		}
		for i := d.Line - 1; i < len(lines) && i < d.Line+4; i++ {
			t := bytes.TrimSpace(lines[i])
			if bytes.HasPrefix(t, []byte("def ")) || bytes.HasPrefix(t, []byte("async def ")) {
				break
			}
			decorator(t)
		}
		if !ok {
			continue
		}
		if fx == nil {
			fx = map[string]string{}
		}
		fx[name] = returnedType(lines, d)
	}
	return fx
}

// returnedType is the class a function's every return and yield
// constructs (`return CliRunner()`), "" when one returns anything else or
// there is none.
func returnedType(lines [][]byte, d index.Def) string {
	typ := ""
	for i := d.Line; i < max(d.End, d.Line) && i < len(lines); i++ {
		t := bytes.TrimSpace(lines[i])
		if !bytes.HasPrefix(t, []byte("return")) && !bytes.HasPrefix(t, []byte("yield")) {
			continue
		}
		m := returnsCall.FindSubmatch(t)
		if m == nil {
			return "" // return x, yield, return None: not a constructor's
		}
		callee := string(m[1])
		callee = callee[strings.LastIndexByte(callee, '.')+1:]
		if callee == "" || callee[0] < 'A' || callee[0] > 'Z' || typ != "" && typ != callee {
			return ""
		}
		typ = callee
	}
	return typ
}

// fixtures finds the fixtures a Python file sees: its own, then those
// of the conftest.py files in its directory and above, the nearest
// first. conftests caches a directory's conftest.py fixtures for one
// FindSymbol.
type fixtures struct {
	e         *Engine
	x         *symbols.Index
	conftests map[string]map[string]string
}

// of returns the fixture name's type for a use in rel (own: rel's own
// fixtures), and whether a fixture of that name is visible there.
func (f *fixtures) of(ctx context.Context, rel string, own map[string]string, name string) (string, bool) {
	if t, ok := own[name]; ok {
		return t, true
	}
	for dir := path.Dir(rel); ; dir = path.Dir(dir) {
		if t, ok := f.conftest(ctx, dir)[name]; ok {
			return t, true
		}
		if dir == "." || dir == "/" {
			return "", false
		}
	}
}

// conftest returns the fixtures of dir's conftest.py (nil for none).
func (f *fixtures) conftest(ctx context.Context, dir string) map[string]string {
	if fx, ok := f.conftests[dir]; ok {
		return fx
	}
	var fx map[string]string
	rel := path.Join(dir, "conftest.py")
	if src, ok := f.e.symbolSource(rel, false); ok && bytes.Contains(src, []byte("fixture")) {
		if ent, err := f.x.File(ctx, rel, src); err == nil && ent != nil {
			fx = fileFixtures(bytes.Split(src, []byte("\n")), ent.Defs)
		}
	}
	if f.conftests == nil {
		f.conftests = map[string]map[string]string{}
	}
	f.conftests[dir] = fx
	return fx
}

// paramOf returns the first line and the name of the innermost function
// around line n that takes a parameter v, by Python's indentation: the def lines
// above n, each indented less than the last (the symbol index leaves out
// a decorated function defined in another's body, `@click.command()
// def cli(ctx):` inside a test). A closure sees its outer function's
// parameters.
func paramOf(lines [][]byte, v string, n int) (int, string, bool) {
	if n < 1 || n > len(lines) {
		return 0, "", false
	}
	ind := indentOf(lines[n-1])
	for i := n - 2; i >= 0 && ind > 0; i-- {
		t := bytes.TrimSpace(lines[i])
		if len(t) == 0 || t[0] == '#' || t[0] == ')' || indentOf(lines[i]) >= ind {
			continue // a multi-line header's "):" too
		}
		ind = indentOf(lines[i])
		if !bytes.HasPrefix(t, []byte("def ")) && !bytes.HasPrefix(t, []byte("async def ")) {
			continue // a class, or a block (if, for, with): no parameters
		}
		// The header, over lines up to the one that ends it.
		header := string(t)
		for k := i + 1; k < len(lines) && k < i+10 && !strings.HasSuffix(strings.TrimSpace(header), ":"); k++ {
			header += " " + string(bytes.TrimSpace(lines[k]))
		}
		if hasParam(header, v) {
			name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(header, "async "), "def "), "(")
			return i + 1, strings.TrimSpace(name), true
		}
	}
	return 0, "", false
}

// indentOf is the width of a line's leading white space (a tab as one).
func indentOf(line []byte) int {
	return len(line) - len(bytes.TrimLeft(line, " \t"))
}

// hasParam reports whether a Python def's signature takes a parameter v
// ("def test_x(self, runner, *args, tmp: Path = None)").
func hasParam(sig, v string) bool {
	open := strings.IndexByte(sig, '(')
	if open < 0 {
		return false
	}
	for _, p := range splitTop(sig[open+1:]) {
		p = strings.TrimLeft(strings.TrimSpace(p), "*")
		if i := strings.IndexAny(p, ":="); i >= 0 {
			p = p[:i]
		}
		if strings.TrimSpace(p) == v {
			return true
		}
	}
	return false
}

// splitTop splits s at its top-level commas up to the bracket that closes
// the list s starts in: "a, b: dict[str, int]) -> X" is "a", "b: dict[str, int]".
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return append(out, s[start:i])
			}
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// superType is the class super() reaches in a method at line n: the one
// base of the enclosing class ("class Group(Command):" gives Command;
// generics and keywords such as metaclass= left out), "" when the class
// has none or several (the method resolution order decides which).
func superType(defs []index.Def, n int) string {
	var cls *index.Def
	for i, d := range defs {
		if d.Kind == "class" && d.Line <= n && n <= max(d.End, d.Line) && (cls == nil || d.Line >= cls.Line) {
			cls = &defs[i]
		}
	}
	if cls == nil {
		return ""
	}
	open := strings.IndexByte(cls.Signature, '(')
	if open < 0 {
		return ""
	}
	var bases []string
	for _, b := range splitTop(cls.Signature[open+1:]) {
		b = strings.TrimSpace(b)
		if b == "" || strings.Contains(b, "=") {
			continue
		}
		if i := strings.IndexByte(b, '['); i >= 0 {
			b = b[:i]
		}
		bases = append(bases, b)
	}
	if len(bases) != 1 || bases[0] == "object" {
		return ""
	}
	return bases[0]
}

// pyFile is a Python file's lines and the fixtures it sees (name to
// type, whether one is visible), for receiverTypes.
type pyFile struct {
	lines   [][]byte
	fixture func(v string) (string, bool)
}

// paramType returns the type of v at line n when v is a parameter of a
// function around n (py nil: not Python): its annotation or a declaration
// in that function up to n, else, for a test (a function named test*,
// as pytest collects them), the type of the fixture it names ("" when
// the fixture's is not known, or no fixture has the name). A declaration
// elsewhere in the file is another variable's, and a function a test
// defines is not given fixtures.
func (py *pyFile) paramType(decls map[string][]typedDecl, v string, n int) (string, bool) {
	if py == nil {
		return "", false
	}
	from, fn, ok := paramOf(py.lines, v, n)
	if !ok {
		return "", false
	}
	t := ""
	for _, d := range decls[v] {
		if d.line >= from && d.line <= n {
			t = d.typ
		}
	}
	if t == "" && strings.HasPrefix(fn, "test") {
		t, _ = py.fixture(v) // pytest passes fixtures to its tests
	}
	return t, true
}
