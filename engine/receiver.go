package engine

import (
	"bytes"
	"path"
	"regexp"
	"strings"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/query"
)

// What a file says about the type of a use's receiver, for a qualified
// [Engine.FindSymbol] ("JsonWriter#beginObject"): a text match cannot
// tell whose beginObject `in.beginObject()` calls, but the file often
// declares `in` (`JsonReader in`, `in: JsonReader`, `in := &JsonReader{`)
// or the use sits in a method of the type it calls on (a bare call,
// `this.`, `self.`). No type inference beyond that: a receiver the file
// does not type is unknown.

// typedDecl is a declaration of a variable (parameter, local, field)
// with its type, at a 1-based line.
type typedDecl struct {
	line int
	typ  string
}

// Declaration shapes, each with the variable and the type as its two
// groups, in that order (typeFirst: the type comes first).
var (
	// Java, C#, C++, Kotlin's and Dart's typed parameters and fields:
	// "JsonReader in)", "final JsonWriter out;", "List<Foo> xs =".
	declTypeName = regexp.MustCompile(`\b([A-Z][A-Za-z0-9_]*)(?:<[^;(){}]*?>)?(?:\[\])*\s+([a-z_][A-Za-z0-9_]*)\s*(?:[,;=)]|$)`)
	// TypeScript, Python, Kotlin, Rust, Swift, Scala: "in: JsonReader",
	// "w: &mut Writer".
	declNameColonType = regexp.MustCompile(`\b([a-z_][A-Za-z0-9_]*)\s*\??:\s*(?:&\s*)?(?:mut\s+)?([A-Z][A-Za-z0-9_]*)\b`)
	// A constructor call assigned: "w = new JsonWriter(", "w = Writer(",
	// "w := &Writer{".
	declAssignNew = regexp.MustCompile(`\b([a-z_][A-Za-z0-9_]*)\s*:?=\s*(?:new\s+|&)?([A-Z][A-Za-z0-9_]*)\s*[({]`)
	// Python's constructor call through a module, assigned:
	// "runner = click.testing.CliRunner(" (the class's name: a Python
	// file calls a class by its module path or by its bare name after an
	// import, alike).
	declAssignModule = regexp.MustCompile(`\b([a-z_][A-Za-z0-9_]*)\s*=\s*(?:[a-z_][A-Za-z0-9_]*\.)+([A-Z][A-Za-z0-9_]*)\s*\(`)
	// Go's parameters, fields and vars: "w *Writer", "var s store.Store"
	// (the type keeps its package: http.Handler is not a local Handler).
	declGo = regexp.MustCompile(`\b([a-z_][A-Za-z0-9_]*)\s+\*?((?:[a-z_][A-Za-z0-9_]*\.)?[A-Z][A-Za-z0-9_]*)\b`)
)

// fileDecls returns the file's typed declarations by variable, in line
// order.
func fileDecls(rel string, lines [][]byte) map[string][]typedDecl {
	shapes := []struct {
		re        *regexp.Regexp
		typeFirst bool
	}{{declTypeName, true}, {declNameColonType, false}, {declAssignNew, false}}
	switch path.Ext(rel) {
	case ".py":
		shapes = append(shapes, struct {
			re        *regexp.Regexp
			typeFirst bool
		}{declAssignModule, false})
	case ".go":
		shapes = shapes[1:] // Go writes the type after the name
		shapes = append(shapes, struct {
			re        *regexp.Regexp
			typeFirst bool
		}{declGo, false})
	}
	decls := map[string][]typedDecl{}
	for i, line := range lines {
		for _, s := range shapes {
			for _, m := range s.re.FindAllSubmatch(line, -1) {
				v, t := string(m[1]), string(m[2])
				if s.typeFirst {
					v, t = t, v
				}
				decls[v] = append(decls[v], typedDecl{line: i + 1, typ: t})
			}
		}
	}
	return decls
}

// declaredType is the type of variable v at line n: its nearest
// declaration at or before n, else its first after (a field declared
// below its methods); "" when the file declares none.
func declaredType(decls map[string][]typedDecl, v string, n int) string {
	ds := decls[v]
	t := ""
	for _, d := range ds {
		if d.line > n {
			if t == "" {
				t = d.typ
			}
			break
		}
		t = d.typ
	}
	return t
}

// enclosingType is the type whose method or body holds line n: the
// innermost definition around it with a parent, or a class-like one.
func enclosingType(defs []index.Def, n int) string {
	best, bestLine := "", 0
	for _, d := range defs {
		if d.Line > n || max(d.End, d.Line) < n || d.Line < bestLine {
			continue
		}
		switch {
		case d.Parent != "":
			best, bestLine = d.Parent, d.Line
		case classLike[d.Kind]:
			best, bestLine = d.Name, d.Line
		}
	}
	return best
}

// abstractIn reports a definition d of defs declared inside an interface
// (Go's interface, Java's and TypeScript's, a Rust trait): a call on a
// variable of that type may reach any implementation.
func abstractIn(defs []index.Def, d index.Def) bool {
	for _, o := range defs {
		if o.Name != d.Parent || o.Line > d.Line || max(o.End, o.Line) < d.Line {
			continue
		}
		if o.Kind == "interface" || o.Kind == "trait" || o.Kind == "type" && strings.Contains(o.Signature, "interface") {
			return true
		}
	}
	return false
}

// classLike are the definition kinds whose body is a type's.
var classLike = map[string]bool{"class": true, "struct": true, "interface": true, "trait": true, "impl": true, "type": true, "enum": true, "object": true, "module": true}

// modulePrefix marks a module's name among receiver types: `walk::scan`
// reaches the function scan of module walk, which no type of that name
// defines.
const modulePrefix = "mod "

// receiverTypes returns the receiver type of each use of name on line n
// ("" where the file does not say): for the word before `.name`,
// `->name` or `::name`, the type the file declares it of, else the word
// itself (a type or a package: the caller tells which words are); the
// enclosing type for a bare use or one on this/self. In a Python file
// (py not nil), a function's parameter is typed within the function
// only, else by the pytest fixture it names (pyreceiver.go), and super()
// is the enclosing class's one base.
func receiverTypes(line []byte, name []byte, n int, decls map[string][]typedDecl, defs []index.Def, py *pyFile) []string {
	line = codePart(line)
	var types []string
	for off := 0; ; {
		i := bytes.Index(line[off:], name)
		if i < 0 {
			break
		}
		i += off
		off = i + len(name)
		if (i > 0 && query.IsNameByte(line[i-1])) || (off < len(line) && query.IsNameByte(line[off])) {
			continue // part of a longer name
		}
		j := i
		for j > 0 && (line[j-1] == ' ' || line[j-1] == '\t') {
			j--
		}
		sep := 0
		switch {
		case j > 0 && line[j-1] == '.':
			sep = 1
			if j > 1 && line[j-2] == '?' { // ?. (Kotlin, TypeScript)
				sep = 2
			}
		case j > 1 && (string(line[j-2:j]) == "->" || string(line[j-2:j]) == "::"):
			sep = 2
		}
		if sep == 0 {
			types = append(types, enclosingType(defs, n))
			continue
		}
		k := j - sep
		for k > 0 && (line[k-1] == ' ' || line[k-1] == '\t') {
			k--
		}
		w := k
		for w > 0 && query.IsNameByte(line[w-1]) {
			w--
		}
		recv := string(line[w:k])
		switch {
		case recv == "" && k > 0 && line[k-1] == ')' && py != nil && superCall.Match(line[:k]):
			types = append(types, superType(defs, n)) // super().invoke
		case recv == "" && k > 0 && line[k-1] == ')':
			types = append(types, constructed(line[:k])) // Store().put, new R(x).read
		case recv == "":
			types = append(types, "") // an index's result, a literal's
		case recv == "this" || recv == "self" || recv == "Self":
			types = append(types, enclosingType(defs, n))
		default:
			if t, ok := py.paramType(decls, recv, n); ok {
				recv = t // a Python parameter: "" when not known
			} else if t := declaredType(decls, recv, n); t != "" {
				recv = t
			} else if sep == 2 && line[j-1] == ':' && recv[0] >= 'a' && recv[0] <= 'z' {
				// walk::scan: a path through a module (Rust's are
				// snake_case), not a receiver; FindSymbol knows the
				// modules that define the name (modulePrefix).
				recv = modulePrefix + recv
			}
			types = append(types, recv)
		}
	}
	return types
}

// constructed is the type a call ending b makes when the call is a
// constructor's (`new JsonReader(r)`, Python's `Store()`: a capitalized
// name), else "".
func constructed(b []byte) string {
	depth := 0
	for i := len(b) - 1; i >= 0; i-- {
		switch b[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				w := i
				for w > 0 && query.IsNameByte(b[w-1]) {
					w--
				}
				if w < i && b[w] >= 'A' && b[w] <= 'Z' {
					return string(b[w:i])
				}
				return ""
			}
		}
	}
	return ""
}

// codePart is line without a trailing comment (`//`, or `#` after a
// space) outside quotes: a name in `s.Put("a") // Put` is used once.
func codePart(line []byte) []byte {
	var quote byte
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
		case c == '/' && i+1 < len(line) && line[i+1] == '/',
			c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i]
		}
	}
	return line
}
