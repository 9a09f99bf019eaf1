//go:build cgo && !notreesitter

package treesitter

import (
	"bytes"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// langSpec is the data the shared algorithm needs about one language: which
// node types define what, where bodies are, what is private. Small
// functions cover what a table cannot (names inside C declarators, Go
// receivers, access sections).
type langSpec struct {
	name     string
	style    bodyStyle
	foldWord string // "private members", "unexported members"
	// docComments: comments right above a definition are its doc.
	docComments bool
	// blockDocGap: a "/**" block comment is a definition's doc even with
	// one blank line between them (JSDoc as Express writes it).
	blockDocGap bool
	comments    map[string]bool
	attrs       map[string]bool // decorators and attributes that precede a definition as siblings
	// transparent nodes hold declarations at their own level (export
	// statements, preprocessor conditionals, Python if/try blocks).
	transparent map[string]bool
	// ownWrappers are transparent nodes that belong wholly to the one
	// definition inside them (a folded member takes them along).
	ownWrappers    map[string]bool
	exportWrappers map[string]bool // transparent nodes that export what they hold
	typeScopes     map[string]bool // containers whose functions are methods
	defs           map[string]def
	lambdas        map[string]func(*node) *node // closures: node type → body
	// lambdaHints are texts that may start a closure or a function
	// inside an expression ("func", "=>"): data literals without one are
	// not walked.
	lambdaHints []string
	// innerHints are texts that may start a definition inside a function
	// body ("func(", "def "): a large body holding one is copied whole, so
	// the walk finds its inner functions and classes.
	innerHints []string
	// funcValue reports a variable declared inside a function whose value
	// is a function (Go's f := func() { ... }): a definition there.
	funcValue func(n *node) bool
	// access reads an access section marker (C++ "private:", Ruby's bare
	// private) and returns the section.
	access   func(n *node, src []byte) (string, bool)
	exported func(n *node, src []byte, names []string, sc scope) bool
	imports  func(n *node, src []byte) []string
	// moduleDoc returns a module docstring (Python).
	moduleDoc func(root *node, src []byte) *node
	// innerDoc reports a comment that documents the enclosing module
	// (Rust's //!): never attached to the next item.
	innerDoc func(text string) bool
	// testCall reads a test framework's call (Mocha, Jest and Vitest's
	// describe and it, Go's t.Run): a suite's callback is walked like a
	// scope, a test's body collapses on its own, and both become symbols
	// of kind "test", so a test file's views keep every title.
	testCall func(n *node, src []byte) (testKind, testCallParts)
	// objectMethod reads a function an object literal holds (JavaScript's
	// `transform(code) { ... }` and `load: async (id) => { ... }`): its
	// name, the function node and its body; for a property whose value
	// is an object holding such functions (`transform: { handler() {} }`)
	// the object as both; body nil when n is none. Read for find_symbol
	// only (walker.objectMethods).
	objectMethod func(n *node, src []byte) (name string, fn, body *node)
}

// testKind tells a suite (describe) from a test case (it) and from any
// other call.
type testKind byte

const (
	notTest testKind = iota
	testSuite
	testCase
)

// testCallParts are the title (a string) and the callback of a test call.
type testCallParts struct {
	title, fn, body *node
}

// def describes one definition node type.
type def struct {
	kind   string // symbol kind; "" = no symbol (docs still attach: Go's package clause)
	kindOf func(n *node, src []byte) string
	names  func(n *node, src []byte) []string // default: the "name" field
	body   func(n *node) *node
	// function: the body is collapsible. container: the body holds members.
	function  bool
	container bool
	// member: folds like a member even at top level (Go methods).
	member        bool
	containerName func(n *node, src []byte) string // the members' Parent
	parent        func(n *node, src []byte) string // this symbol's Parent
	sigPrefix     func(n *node, src []byte) string
	docstring     func(body *node, src []byte) *node
}

// isBody reports a node that is the body of a function or closure: its
// content is never walked.
func (s *langSpec) isBody(n *node) bool {
	p := n.parent
	if p == nil {
		return false
	}
	if d, ok := s.defs[p.typ]; ok && d.function && d.body != nil {
		return d.body(p) == n
	}
	if f, ok := s.lambdas[p.typ]; ok {
		return f(p) == n
	}
	return false
}

// testBody reports the body of a test suite's callback (describe's
// function), whose tests the walk reaches, or of a test's (it's), which
// only collapses. n's ancestors up to the call are copied when the copy
// asks (preorder: the call's function first).
func (s *langSpec) testBody(n *node, src []byte) testKind {
	fn := n.parent
	if fn == nil || fn.parent == nil || fn.parent.parent == nil {
		return notTest
	}
	k, p := s.testCall(fn.parent.parent, src)
	if p.body != n {
		return notTest
	}
	return k
}

// dataNodes are literal types that hold data (tables, long strings); a
// large one without a closure inside is copied without its children.
var dataNodes = set("literal_value", "composite_literal", "expression_list", "array", "object",
	"list", "dictionary", "tuple", "set", "initializer_list", "array_expression", "tuple_expression",
	"token_tree", "array_creation_expression", "array_initializer", "element_value_array_initializer",
	"collection_literal", "array_literal", "dictionary_literal", "hash", "string",
	"interpreted_string_literal", "raw_string_literal", "template_string", "string_literal",
	"concatenated_string", "heredoc_body", "initializer_expression", "arguments", "argument_list")

// Copy depths for [grammar.parse].
const (
	bodyDepth = 3 // a body's braces, statements and a docstring's quotes
	bigData   = 1024
	// literalLevels is how deep a large data literal is copied.
	literalLevels = 3
)

// shallowFunc returns the copy rule for one source: function bodies keep
// three levels; a large data literal with no closure in it keeps
// literalLevels, down to its elements.
func (s *langSpec) shallowFunc(src []byte) func(*node) int {
	hints := offsetsOf(src, s.lambdaHints)
	inner := offsetsOf(src, s.innerHints)
	hinted := func(a, b int) bool { return within(hints, a, b) }
	return func(n *node) int {
		if s.isBody(n) {
			if s.testCall != nil {
				switch s.testBody(n, src) {
				case testSuite:
					return -1 // its tests are collapsed one by one
				case testCase:
					return 1 // only collapsed: its braces are enough
				}
			}
			if n.end-n.start >= innerMinBytes && within(inner, n.start, n.end) {
				return -1 // a large body that may define functions: walked for them
			}
			return bodyDepth
		}
		if n.end-n.start > bigData && dataNodes[n.typ] && !hinted(n.start, n.end) {
			// Three levels (a value list, its literal, the literal's
			// elements) so the bodies view can shorten a long literal at
			// element boundaries; nothing inside the elements.
			return literalLevels
		}
		return -1
	}
}

// innerMinBytes is the smallest body copied whole for its inner
// definitions: innerMinLines lines of 20 bytes (a smaller body is rarely
// that long, and copying every closure-holding body cost a quarter more
// on net/http's server.go).
const innerMinBytes = 20 * innerMinLines

// offsetsOf returns the start offsets of every occurrence of the texts in
// src, ascending.
func offsetsOf(src []byte, texts []string) []int {
	var out []int
	for _, h := range texts {
		for i := 0; ; {
			j := bytes.Index(src[i:], []byte(h))
			if j < 0 {
				break
			}
			out = append(out, i+j)
			i += j + 1
		}
	}
	slices.Sort(out)
	return out
}

// within reports an offset of offs (ascending) in [a, b).
func within(offs []int, a, b int) bool {
	i, _ := slices.BinarySearch(offs, a)
	return i < len(offs) && offs[i] < b
}

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// field finds a child by field name.
// container is a definition of kind whose body holds other definitions
// (a class, a module, a namespace).
func container(kind string) def { return def{kind: kind, body: field("body"), container: true} }

func field(f string) func(*node) *node { return func(n *node) *node { return n.child(f) } }

// ofType finds a child by type.
func ofType(ts ...string) func(*node) *node { return func(n *node) *node { return n.ofType(ts...) } }

// self uses the node itself as its body (its braces are direct children).
func self(n *node) *node { return n }

// fieldPath follows steps: a field name, or "=type" for a child of that type.
func fieldPath(steps ...string) func(*node) *node {
	return func(n *node) *node {
		for _, s := range steps {
			if n == nil {
				return nil
			}
			if strings.HasPrefix(s, "=") {
				n = n.ofType(s[1:])
			} else {
				n = n.child(s)
			}
		}
		return n
	}
}

// names helpers

func fieldNames(f string) func(n *node, src []byte) []string {
	return func(n *node, src []byte) []string {
		var out []string
		for _, k := range n.children(f) {
			out = append(out, k.text(src))
		}
		return out
	}
}

func typeName(ts ...string) func(n *node, src []byte) []string {
	return func(n *node, src []byte) []string {
		if k := n.ofType(ts...); k != nil {
			return []string{k.text(src)}
		}
		return nil
	}
}

// firstKeyword returns the text of the node's first child (Go's "type",
// "var", "const" of the enclosing declaration).
func parentKeyword(n *node, src []byte) string {
	for p := n.parent; p != nil; p = p.parent {
		if f := p.first(); f != nil && !f.named {
			switch t := f.text(src); t {
			case "type", "var", "const":
				return t
			}
		}
	}
	return ""
}

// stripType turns "*pkg.Server[T]" into "Server".
func stripType(s string) string {
	s = strings.TrimLeft(s, "*&")
	if i := strings.IndexAny(s, "[<("); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexAny(s, ".:"); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

func hasModifier(n *node, src []byte, container string, words ...string) bool {
	m := n.ofType(container)
	if m == nil {
		return false
	}
	txt := " " + m.text(src) + " "
	for _, w := range words {
		if strings.Contains(txt, " "+w+" ") || strings.Contains(txt, "\n"+w+" ") || strings.Contains(txt, " "+w+"\n") {
			return true
		}
	}
	return false
}

// modifierWords returns the texts of n's modifier children (C# "modifier",
// Kotlin/Swift "visibility_modifier" inside "modifiers", Java tokens).
func modifierWords(n *node, src []byte) []string {
	var out []string
	var walk func(m *node, depth int)
	walk = func(m *node, depth int) {
		for _, k := range m.kids {
			switch k.typ {
			case "modifiers", "modifier", "visibility_modifier", "accessibility_modifier", "member_modifier":
				if len(k.kids) == 0 || depth > 2 {
					out = append(out, strings.TrimSpace(k.text(src)))
				} else {
					walk(k, depth+1)
				}
			case "private", "public", "protected", "internal", "fileprivate", "open":
				out = append(out, k.typ)
			}
		}
	}
	walk(n, 0)
	return out
}

func hasWord(words []string, w ...string) bool {
	for _, x := range words {
		for _, y := range w {
			if x == y || strings.HasPrefix(x, y+"(") || strings.HasPrefix(x, y+" ") {
				return true
			}
		}
	}
	return false
}

func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && strings.ContainsRune("\"'`<", rune(s[0])) {
		return s[1 : len(s)-1]
	}
	return s
}

var specs = map[string]*langSpec{}

func init() {
	for _, s := range []*langSpec{
		goSpec(), pythonSpec(), jsSpec("javascript"), jsSpec("typescript"), jsSpec("tsx"),
		rustSpec(), javaSpec(), cSpec("c"), cSpec("cpp"), csharpSpec(), rubySpec(),
		phpSpec(), kotlinSpec(), swiftSpec(),
	} {
		if s.comments == nil {
			s.comments = set("comment")
		}
		specs[s.name] = s
	}
}

// ---- Go

func goSpec() *langSpec {
	exported := func(n *node, src []byte, names []string, sc scope) bool {
		if len(names) == 0 {
			return true
		}
		r, _ := utf8.DecodeRuneInString(names[0])
		return unicode.IsUpper(r)
	}
	return &langSpec{
		name:        "go",
		lambdaHints: []string{"func"},
		innerHints:  []string{"= func("}, // named closures (f := func, var f = func); callbacks are not definitions
		funcValue:   goFuncValue,
		style:       styleBrace,
		foldWord:    "unexported",
		docComments: true,
		transparent: set("type_declaration", "var_declaration", "const_declaration", "var_spec_list"),
		typeScopes:  set("type_spec"),
		defs: map[string]def{
			"package_clause":       {},
			"function_declaration": {kind: "function", body: field("body"), function: true},
			"method_declaration": {kind: "method", body: field("body"), function: true, member: true,
				parent: func(n *node, src []byte) string {
					if r := n.child("receiver"); r != nil {
						if p := r.ofType("parameter_declaration"); p != nil {
							if t := p.child("type"); t != nil {
								return stripType(t.text(src))
							}
						}
					}
					return ""
				}},
			"type_spec": {
				kindOf: func(n *node, src []byte) string {
					if t := n.child("type"); t != nil {
						switch t.typ {
						case "struct_type":
							return "struct"
						case "interface_type":
							return "interface"
						}
					}
					return "type"
				},
				body: func(n *node) *node {
					t := n.child("type")
					if t == nil {
						return nil
					}
					switch t.typ {
					case "struct_type":
						return t.ofType("field_declaration_list")
					case "interface_type":
						return t
					}
					return nil
				},
				container: true,
				sigPrefix: parentKeyword,
			},
			"type_alias":        {kind: "type", sigPrefix: parentKeyword},
			"var_spec":          {kind: "var", names: fieldNames("name"), sigPrefix: parentKeyword},
			"const_spec":        {kind: "const", names: fieldNames("name"), sigPrefix: parentKeyword},
			"field_declaration": {kind: "field", names: goFieldNames},
			"method_elem":       {kind: "method"},
			"method_spec":       {kind: "method"},
			// Only inside function bodies: f := func() { ... } defines f
			// (funcValue), anything else is a local.
			"short_var_declaration": {names: func(n *node, src []byte) []string {
				if !goFuncValue(n) {
					return nil
				}
				return fieldNames("left")(n, src)
			}},
		},
		lambdas:  map[string]func(*node) *node{"func_literal": field("body")},
		exported: exported,
		imports: func(n *node, src []byte) []string {
			if n.typ != "import_declaration" {
				return nil
			}
			var out []string
			var walk func(m *node)
			walk = func(m *node) {
				for _, k := range m.kids {
					if k.typ == "import_spec" {
						if p := k.child("path"); p != nil {
							out = append(out, unquote(p.text(src)))
						}
					} else if k.typ == "import_spec_list" {
						walk(k)
					}
				}
			}
			walk(n)
			return out
		},
	}
}

// goFuncValue reports a var spec or short variable declaration whose
// value is one function literal.
func goFuncValue(n *node) bool {
	v := n.child("value")
	if v == nil {
		v = n.child("right")
	}
	if v == nil {
		return false
	}
	if v.typ == "expression_list" {
		kids := namedKids(v)
		if len(kids) != 1 {
			return false
		}
		v = kids[0]
	}
	return v.typ == "func_literal"
}

func goFieldNames(n *node, src []byte) []string {
	if names := fieldNames("name")(n, src); len(names) > 0 {
		return names
	}
	if t := n.child("type"); t != nil {
		return []string{stripType(t.text(src))} // embedded field
	}
	return nil
}

// ---- Python

func pythonSpec() *langSpec {
	return &langSpec{
		name:        "python",
		lambdaHints: []string{"def", "class"},
		innerHints:  []string{"def ", "class "},
		style:       stylePython,
		foldWord:    "private",
		attrs:       set("decorator"),
		transparent: set("decorated_definition", "if_statement", "elif_clause", "else_clause", "try_statement", "except_clause", "finally_clause", "with_statement", "block"),
		ownWrappers: set("decorated_definition"),
		typeScopes:  set("class_definition"),
		defs: map[string]def{
			"function_definition": {kind: "function", body: field("body"), function: true, docstring: pyDocstring},
			"class_definition":    {kind: "class", body: field("body"), container: true, docstring: pyDocstring},
			"expression_statement": {
				kindOf: func(n *node, src []byte) string {
					if len(pyAssigned(n, src)) > 0 {
						return "var"
					}
					return ""
				},
				names: pyAssigned,
			},
		},
		exported: func(n *node, src []byte, names []string, sc scope) bool {
			if len(names) == 0 {
				return true
			}
			s := names[0]
			return !strings.HasPrefix(s, "_") || (strings.HasPrefix(s, "__") && strings.HasSuffix(s, "__"))
		},
		imports: func(n *node, src []byte) []string {
			switch n.typ {
			case "import_statement":
				var out []string
				for _, k := range n.children("name") {
					if k.typ == "aliased_import" {
						k = k.child("name")
					}
					if k != nil {
						out = append(out, k.text(src))
					}
				}
				return out
			case "import_from_statement":
				if m := n.child("module_name"); m != nil {
					return []string{m.text(src)}
				}
			}
			return nil
		},
		moduleDoc: func(root *node, src []byte) *node { return pyDocstring(root, src) },
	}
}

// pyAssigned returns the names a module- or class-level assignment binds.
func pyAssigned(n *node, src []byte) []string {
	a := n.first()
	if a == nil || a.typ != "assignment" {
		return nil
	}
	left := a.child("left")
	if left == nil {
		return nil
	}
	switch left.typ {
	case "identifier":
		return []string{left.text(src)}
	case "pattern_list", "tuple_pattern":
		var out []string
		for _, k := range left.kids {
			if k.typ == "identifier" {
				out = append(out, k.text(src))
			}
		}
		return out
	}
	return nil
}

// pyDocstring returns the string node of a docstring: the first statement
// of body when it is a lone string literal.
func pyDocstring(body *node, src []byte) *node {
	for _, k := range body.kids {
		if !k.named || k.typ == "comment" {
			continue
		}
		if k.typ != "expression_statement" || len(k.kids) != 1 || k.kids[0].typ != "string" {
			return nil
		}
		s := k.kids[0]
		for _, p := range s.kids {
			if p.typ == "interpolation" {
				return nil
			}
		}
		return s
	}
	return nil
}

// pyStringProse is the text between a string's quotes.
func pyStringProse(s *node, src []byte) string {
	if len(s.kids) < 2 {
		return ""
	}
	return string(src[s.kids[0].end:s.last().start])
}

// cutDocstring cuts a docstring to its first sentence: `"""Fetch a user.
// More."""` → `"""Fetch a user."""`.
func cutDocstring(s *node, src []byte) (string, bool) {
	if len(s.kids) < 2 || s.kids[0].typ != "string_start" || s.last().typ != "string_end" {
		return "", false
	}
	open, close := s.kids[0], s.last()
	content := string(src[open.end:close.start])
	lead := len(content) - len(strings.TrimLeft(content, " \t\r\n"))
	n, ok := sentenceEnd(content[lead:])
	if !ok {
		return "", false
	}
	kept := strings.TrimRight(content[:lead+n], " \t\r\n")
	if strings.HasSuffix(kept, `\`) || kept == "" {
		return "", false
	}
	out := string(src[s.start:open.end]) + kept + string(src[close.start:close.end])
	if len(out) >= s.end-s.start {
		return "", false
	}
	return out, true
}

// ---- JavaScript, TypeScript, TSX

func jsSpec(name string) *langSpec {
	fn := def{kind: "function", body: field("body"), function: true}
	class := container("class")
	return &langSpec{
		name:           name,
		lambdaHints:    []string{"=>", "function", ")", "class"},
		innerHints:     []string{"=>", "function", "class "},
		style:          styleBrace,
		foldWord:       "private",
		docComments:    true,
		blockDocGap:    true,
		attrs:          set("decorator"),
		transparent:    set("export_statement", "ambient_declaration", "lexical_declaration", "variable_declaration", "expression_statement"),
		ownWrappers:    set("export_statement", "ambient_declaration"),
		exportWrappers: set("export_statement"),
		typeScopes:     set("class_declaration", "abstract_class_declaration", "interface_declaration", "class"),
		defs: map[string]def{
			"function_declaration":           fn,
			"generator_function_declaration": fn,
			"function_signature":             {kind: "function"},
			"class_declaration":              class,
			"abstract_class_declaration":     class,
			"method_definition":              {kind: "method", body: field("body"), function: true},
			"abstract_method_signature":      {kind: "method"},
			"method_signature":               {kind: "method"},
			"public_field_definition":        {kind: "field"},
			"field_definition":               {kind: "field", names: fieldNames("property")},
			"property_signature":             {kind: "field"},
			"interface_declaration":          container("interface"),
			"type_alias_declaration":         {kind: "type"},
			"enum_declaration":               {kind: "enum"},
			"internal_module":                container("module"),
			"module":                         container("module"),
			// "res.send = function send(body) { ... }", "exports.x = () =>
			// ...", "Foo.prototype.bar = function () { ... }": a function
			// assigned to a member defines it (Express, CommonJS modules).
			"assignment_expression": {
				kindOf: func(n *node, src []byte) string {
					if jsAssignedFunc(n) != nil && jsMember(n, src) != "" {
						return "function"
					}
					return ""
				},
				names: func(n *node, src []byte) []string {
					if jsAssignedFunc(n) == nil {
						return nil
					}
					if jsMember(n, src) == "" {
						return nil
					}
					return jsMembers(n, src)
				},
				parent: func(n *node, src []byte) string {
					if jsAssignedFunc(n) == nil || jsMember(n, src) == "" {
						return ""
					}
					obj := n.child("left").child("object")
					if obj == nil {
						return ""
					}
					return strings.TrimSuffix(obj.text(src), ".prototype")
				},
				body: func(n *node) *node {
					if f := jsAssignedFunc(n); f != nil {
						return f.child("body")
					}
					return nil
				},
				function: true,
			},
			"variable_declarator": {
				kindOf: func(n *node, src []byte) string {
					if v := n.child("value"); v != nil {
						switch v.typ {
						case "arrow_function", "function_expression", "function", "generator_function":
							return "function"
						}
					}
					if p := n.parent; p != nil && p.first() != nil && p.first().text(src) == "const" {
						return "const"
					}
					return "var"
				},
				names: func(n *node, src []byte) []string {
					if nm := n.child("name"); nm != nil && nm.typ == "identifier" {
						return []string{nm.text(src)}
					}
					return nil
				},
				sigPrefix: func(n *node, src []byte) string {
					if p := n.parent; p != nil && p.first() != nil {
						switch t := p.first().text(src); t {
						case "const", "let", "var":
							return t
						}
					}
					return ""
				},
			},
		},
		testCall:     jsTestCall,
		objectMethod: jsObjectMethod,
		lambdas: map[string]func(*node) *node{
			"arrow_function":      field("body"),
			"function_expression": field("body"),
			"function":            field("body"),
			"generator_function":  field("body"),
		},
		exported: func(n *node, src []byte, names []string, sc scope) bool {
			if sc.depth == 0 {
				return sc.exported
			}
			if nm := n.child("name"); nm != nil && nm.typ == "private_property_identifier" {
				return false
			}
			if nm := n.child("property"); nm != nil && nm.typ == "private_property_identifier" {
				return false
			}
			return !hasWord(modifierWords(n, src), "private")
		},
		imports: func(n *node, src []byte) []string {
			switch n.typ {
			case "import_statement", "export_statement":
				if s := n.child("source"); s != nil {
					return []string{unquote(s.text(src))}
				}
			case "call_expression":
				f := n.child("function")
				args := n.child("arguments")
				if f != nil && f.typ == "identifier" && f.text(src) == "require" && args != nil {
					if s := args.ofType("string"); s != nil {
						return []string{unquote(s.text(src))}
					}
				}
			}
			return nil
		},
	}
}

// jsSuites and jsTests are the names of Mocha's, Jest's and Vitest's
// suite and test functions (describe.only, it.each(...) and the like
// resolve to the name before the first dot).
var (
	jsSuites = set("describe", "context", "suite", "fdescribe", "xdescribe")
	jsTests  = set("it", "test", "specify", "fit", "xit", "bench")
)

// jsTestCall reads describe('title', function () { ... }) and
// it('title', () => { ... }).
func jsTestCall(n *node, src []byte) (testKind, testCallParts) {
	if n.typ != "call_expression" {
		return notTest, testCallParts{}
	}
	f, args := n.child("function"), n.child("arguments")
	if f == nil || args == nil {
		return notTest, testCallParts{}
	}
	for f != nil && f.typ != "identifier" {
		switch f.typ {
		case "member_expression":
			f = f.child("object")
		case "call_expression": // describe.each([...])('title', fn)
			f = f.child("function")
		default:
			f = nil
		}
	}
	if f == nil {
		return notTest, testCallParts{}
	}
	kind := notTest
	switch name := f.text(src); {
	case jsSuites[name]:
		kind = testSuite
	case jsTests[name]:
		kind = testCase
	default:
		return notTest, testCallParts{}
	}
	var p testCallParts
	for _, a := range args.kids {
		switch a.typ {
		case "string", "template_string":
			if p.title == nil {
				p.title = a
			}
		case "arrow_function", "function_expression", "function":
			p.fn, p.body = a, a.child("body")
		}
	}
	if p.title == nil || p.fn == nil || p.body == nil || p.body.typ != "statement_block" {
		return notTest, testCallParts{}
	}
	return kind, p
}

// jsObjectMethod reads a function an object literal holds: a method
// (`transform(code) { ... }`, `async load(id) { ... }`, a getter) or a
// property whose value is a function with a block body (`resolveId:
// async (id) => { ... }`, `bar: function () { ... }`), named by its key;
// or a property whose value is an object holding such a function
// (`transform: { order: 'pre', handler(code) { ... } }`), returned as
// fn and body both. Vite's plugins are such objects, returned by a
// function.
func jsObjectMethod(n *node, src []byte) (string, *node, *node) {
	if n.parent == nil || n.parent.typ != "object" {
		return "", nil, nil
	}
	name := jsKeyName(n, src)
	if name == "" {
		return "", nil, nil
	}
	if fn, body := jsObjectFunc(n); body != nil {
		return name, fn, body
	}
	if v := n.child("value"); n.typ == "pair" && v != nil && v.typ == "object" {
		for _, k := range v.kids {
			if _, body := jsObjectFunc(k); body != nil && jsKeyName(k, src) != "" {
				return name, v, v
			}
		}
	}
	return "", nil, nil
}

// jsObjectFunc returns the function and block body of a method of an
// object literal or of a property whose value is a function with a block
// body; nil for any other member.
func jsObjectFunc(n *node) (fn, body *node) {
	switch n.typ {
	case "method_definition":
		fn = n
	case "pair":
		fn = n.child("value")
		if fn == nil {
			return nil, nil
		}
		switch fn.typ {
		case "function_expression", "function", "arrow_function", "generator_function":
		default:
			return nil, nil
		}
	default:
		return nil, nil
	}
	if b := fn.child("body"); b != nil && b.typ == "statement_block" {
		return fn, b
	}
	return nil, nil
}

// jsKeyName is the name of a member of an object literal: its key's text
// when it is a name or a string, "" for a computed key.
func jsKeyName(n *node, src []byte) string {
	key := n.child("name")
	if n.typ == "pair" {
		key = n.child("key")
	}
	if key == nil {
		return ""
	}
	switch key.typ {
	case "property_identifier", "identifier":
		return key.text(src)
	case "string":
		return unquote(key.text(src))
	}
	return ""
}

// jsAssignedFunc returns the function of an assignment of a function
// expression to a member ("res.send = function send() {}"), nil for any
// other assignment.
func jsAssignedFunc(n *node) *node {
	left, right := n.child("left"), n.child("right")
	if left == nil || right == nil || left.typ != "member_expression" && left.typ != "subscript_expression" {
		return nil
	}
	switch right.typ {
	case "function_expression", "function", "arrow_function", "generator_function":
		return right
	case "assignment_expression":
		// "res.set = res.header = function header(...) { ... }": the
		// chain's last assignment holds the function, every member in it
		// names it.
		return jsAssignedFunc(right)
	}
	return nil
}

// jsMember returns the property name of an assignment's member target
// ("send" of "res.send"), or a computed member's text ("app[method]" of
// Express's `methods.forEach(function (method) { app[method] = function
// ... })`: the function is in no other definition's lines, and a commit
// changing it was in no candidate of the focus ladder), "" when it is
// neither a plain name nor a short computed member on one line.
func jsMember(n *node, src []byte) string {
	left := n.child("left")
	if left == nil {
		return ""
	}
	if left.typ == "subscript_expression" {
		if t := left.text(src); len(t) <= MaxComputedMember && !strings.ContainsAny(t, "\n\r") {
			return t
		}
		return ""
	}
	p := left.child("property")
	if p == nil || p.typ != "property_identifier" {
		return ""
	}
	return p.text(src)
}

// jsMembers returns the property names of a chain of member assignments
// of one function ("set" and "header" of "res.set = res.header =
// function header() {}"), those that are plain names.
func jsMembers(n *node, src []byte) []string {
	var names []string
	for n != nil && n.typ == "assignment_expression" {
		if m := jsMember(n, src); m != "" {
			names = append(names, m)
		}
		n = n.child("right")
	}
	return names
}

// ---- Rust

func rustSpec() *langSpec {
	return &langSpec{
		name:        "rust",
		lambdaHints: []string{"|", "fn"},
		style:       styleBrace,
		foldWord:    "private",
		docComments: true,
		comments:    set("line_comment", "block_comment"),
		attrs:       set("attribute_item"),
		transparent: set("foreign_mod_item"),
		typeScopes:  set("impl_item", "trait_item"),
		defs: map[string]def{
			"function_item":           {kind: "function", body: field("body"), function: true},
			"function_signature_item": {kind: "function"},
			"struct_item":             container("struct"),
			"union_item":              container("struct"),
			"enum_item":               {kind: "enum"},
			"trait_item":              container("trait"),
			"impl_item": {kind: "impl", body: field("body"), container: true,
				names: func(n *node, src []byte) []string {
					if t := n.child("type"); t != nil {
						return []string{stripType(t.text(src))}
					}
					return nil
				}},
			"mod_item":          container("module"),
			"const_item":        {kind: "const"},
			"static_item":       {kind: "var"},
			"type_item":         {kind: "type"},
			"macro_definition":  {kind: "macro"},
			"field_declaration": {kind: "field"},
		},
		lambdas: map[string]func(*node) *node{"closure_expression": field("body")},
		exported: func(n *node, src []byte, names []string, sc scope) bool {
			if n.has("visibility_modifier") || n.typ == "impl_item" {
				return true
			}
			if sc.kind == "trait_item" {
				return true
			}
			if sc.kind == "impl_item" {
				// Members of a trait impl are as visible as the trait.
				if p := n.parent; p != nil && p.parent != nil && p.parent.child("trait") != nil {
					return true
				}
			}
			return false
		},
		imports: func(n *node, src []byte) []string {
			switch n.typ {
			case "use_declaration":
				if a := n.child("argument"); a != nil {
					return []string{oneLine(a.text(src))}
				}
			case "extern_crate_declaration":
				if nm := n.child("name"); nm != nil {
					return []string{nm.text(src)}
				}
			}
			return nil
		},
		innerDoc: func(text string) bool {
			return strings.HasPrefix(text, "//!") || strings.HasPrefix(text, "/*!")
		},
	}
}

// ---- Java

func javaSpec() *langSpec {
	declNames := func(n *node, src []byte) []string {
		var out []string
		for _, d := range n.children("declarator") {
			if nm := d.child("name"); nm != nil {
				out = append(out, nm.text(src))
			}
		}
		return out
	}
	return &langSpec{
		name:        "java",
		lambdaHints: []string{"->", "new"},
		style:       styleBrace,
		foldWord:    "private",
		docComments: true,
		comments:    set("line_comment", "block_comment", "comment"),
		transparent: set("enum_body_declarations"),
		typeScopes:  set("class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration"),
		defs: map[string]def{
			"package_declaration":             {},
			"class_declaration":               container("class"),
			"interface_declaration":           container("interface"),
			"enum_declaration":                container("enum"),
			"record_declaration":              container("class"),
			"annotation_type_declaration":     container("interface"),
			"method_declaration":              {kind: "method", body: field("body"), function: true},
			"constructor_declaration":         {kind: "method", body: field("body"), function: true},
			"compact_constructor_declaration": {kind: "method", body: field("body"), function: true},
			"field_declaration":               {kind: "field", names: declNames},
			"constant_declaration":            {kind: "field", names: declNames},
		},
		lambdas: map[string]func(*node) *node{"lambda_expression": field("body")},
		exported: func(n *node, src []byte, names []string, sc scope) bool {
			return !hasModifier(n, src, "modifiers", "private")
		},
		imports: func(n *node, src []byte) []string {
			if n.typ != "import_declaration" {
				return nil
			}
			s := strings.TrimSpace(n.text(src))
			s = strings.TrimPrefix(s, "import")
			s = strings.TrimSuffix(s, ";")
			s = strings.TrimSpace(s)
			s = strings.TrimPrefix(s, "static ")
			return []string{oneLine(strings.TrimSpace(s))}
		},
	}
}

// ---- C and C++

// declaratorName follows C's nested declarators to the declared name:
// "int *(*f)(int)" → "f", "int C<int>::get() const" → "C<int>::get".
func declaratorName(n *node, src []byte) string {
	for i := 0; n != nil && i < 32; i++ {
		switch n.typ {
		case "identifier", "field_identifier", "type_identifier", "qualified_identifier",
			"destructor_name", "operator_name", "primitive_type", "namespace_identifier":
			return n.text(src)
		}
		next := n.child("declarator")
		if next == nil {
			next = n.ofType("function_declarator", "pointer_declarator", "reference_declarator",
				"array_declarator", "parenthesized_declarator", "identifier", "field_identifier",
				"qualified_identifier", "destructor_name", "operator_name", "type_identifier")
		}
		n = next
	}
	return ""
}

func hasFunctionDeclarator(n *node) bool {
	for i := 0; n != nil && i < 32; i++ {
		if n.typ == "function_declarator" {
			return true
		}
		next := n.child("declarator")
		if next == nil {
			next = n.ofType("function_declarator", "pointer_declarator", "reference_declarator", "parenthesized_declarator")
		}
		n = next
	}
	return false
}

// cName splits "ns::C<int>::get" into ("get", "C").
func cName(full string) (name, parent string) {
	i := strings.LastIndex(full, "::")
	if i < 0 {
		return full, ""
	}
	return full[i+2:], stripType(full[:i])
}

func cSpec(name string) *langSpec {
	declNames := func(n *node, src []byte) []string {
		var out []string
		for _, d := range n.children("declarator") {
			if nm, _ := cName(declaratorName(d, src)); nm != "" {
				out = append(out, nm)
			}
		}
		return out
	}
	funcNames := func(n *node, src []byte) []string {
		nm, _ := cName(declaratorName(n.child("declarator"), src))
		if nm == "" {
			return nil
		}
		return []string{nm}
	}
	funcParent := func(n *node, src []byte) string {
		_, p := cName(declaratorName(n.child("declarator"), src))
		return p
	}
	record := func(kind string) def {
		return def{kind: kind, body: field("body"), container: true,
			names: func(n *node, src []byte) []string {
				if nm := n.child("name"); nm != nil {
					return []string{nm.text(src)}
				}
				return nil
			}}
	}
	s := &langSpec{
		name:        name,
		style:       styleBrace,
		foldWord:    "private",
		docComments: true,
		transparent: set("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef", "linkage_specification", "declaration_list", "template_declaration"),
		ownWrappers: set("template_declaration"),
		typeScopes:  set("class_specifier", "struct_specifier", "union_specifier"),
		defs: map[string]def{
			"function_definition": {kind: "function", names: funcNames, parent: funcParent, body: field("body"), function: true},
			"declaration": {
				kindOf: func(n *node, src []byte) string {
					for _, d := range n.children("declarator") {
						if hasFunctionDeclarator(d) {
							return "function"
						}
					}
					return "var"
				},
				names: declNames,
			},
			"struct_specifier": record("struct"),
			"union_specifier":  record("struct"),
			"enum_specifier":   {kind: "enum"},
			"type_definition": {kind: "type", names: declNames, body: fieldPath("type", "body"), container: true,
				containerName: func(n *node, src []byte) string {
					if ns := declNames(n, src); len(ns) > 0 {
						return ns[0]
					}
					return ""
				}},
			"field_declaration": {
				kindOf: func(n *node, src []byte) string {
					for _, d := range n.children("declarator") {
						if hasFunctionDeclarator(d) {
							return "method"
						}
					}
					return "field"
				},
				names: declNames,
			},
			"preproc_def":          {kind: "macro"},
			"preproc_function_def": {kind: "macro"},
		},
		exported: func(n *node, src []byte, names []string, sc scope) bool {
			if sc.depth == 0 || sc.kind == "namespace_definition" {
				st := n.ofType("storage_class_specifier")
				return st == nil || st.text(src) != "static"
			}
			switch sc.access {
			case "private":
				return false
			case "":
				return sc.kind != "class_specifier"
			}
			return true
		},
		imports: func(n *node, src []byte) []string {
			if n.typ == "preproc_include" {
				if p := n.child("path"); p != nil {
					return []string{unquote(p.text(src))}
				}
			}
			return nil
		},
	}
	if name == "cpp" {
		s.defs["class_specifier"] = record("class")
		s.defs["namespace_definition"] = record("module")
		s.defs["alias_declaration"] = def{kind: "type"}
		s.defs["concept_definition"] = def{kind: "type"}
		s.lambdas = map[string]func(*node) *node{"lambda_expression": field("body")}
		s.lambdaHints = []string{"]"}
		s.access = func(n *node, src []byte) (string, bool) {
			if n.typ != "access_specifier" {
				return "", false
			}
			return strings.TrimSpace(n.text(src)), true
		}
	}
	return s
}

// ---- C#

func csharpSpec() *langSpec {
	method := def{kind: "method", body: field("body"), function: true}
	return &langSpec{
		name:        "csharp",
		lambdaHints: []string{"=>", "delegate", "get", "set"},
		style:       styleBrace,
		foldWord:    "private",
		docComments: true,
		typeScopes:  set("class_declaration", "struct_declaration", "interface_declaration", "record_declaration", "record_struct_declaration"),
		defs: map[string]def{
			"namespace_declaration":             container("module"),
			"file_scoped_namespace_declaration": {kind: "module"},
			"class_declaration":                 container("class"),
			"struct_declaration":                container("struct"),
			"interface_declaration":             container("interface"),
			"record_declaration":                container("class"),
			"record_struct_declaration":         container("struct"),
			"enum_declaration":                  {kind: "enum"},
			"delegate_declaration":              {kind: "type"},
			"method_declaration":                method,
			"constructor_declaration":           method,
			"destructor_declaration":            method,
			"operator_declaration":              {kind: "method", body: field("body"), function: true, names: func(n *node, src []byte) []string { return []string{"operator"} }},
			"conversion_operator_declaration":   {kind: "method", body: field("body"), function: true, names: func(n *node, src []byte) []string { return []string{"operator"} }},
			"property_declaration":              {kind: "field"},
			"indexer_declaration":               {kind: "field", names: func(n *node, src []byte) []string { return []string{"this"} }},
			"event_declaration":                 {kind: "field"},
			"event_field_declaration":           {kind: "field", names: csVarNames},
			"field_declaration":                 {kind: "field", names: csVarNames},
		},
		lambdas: map[string]func(*node) *node{
			"accessor_declaration": field("body"),
			"lambda_expression":    field("body"),
		},
		exported: func(n *node, src []byte, names []string, sc scope) bool {
			mods := modifierWords(n, src)
			switch {
			case hasWord(mods, "private"):
				return false
			case hasWord(mods, "public", "protected", "internal"):
				return true
			}
			switch sc.kind {
			case "class_declaration", "struct_declaration", "record_declaration", "record_struct_declaration":
				return false // members are private by default
			}
			return true
		},
		imports: func(n *node, src []byte) []string {
			if n.typ != "using_directive" {
				return nil
			}
			s := strings.TrimSpace(n.text(src))
			s = strings.TrimPrefix(s, "global ")
			s = strings.TrimPrefix(s, "using")
			s = strings.TrimSuffix(s, ";")
			s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "static "))
			if i := strings.Index(s, "="); i >= 0 {
				s = strings.TrimSpace(s[i+1:])
			}
			return []string{oneLine(s)}
		},
	}
}

func csVarNames(n *node, src []byte) []string {
	var out []string
	if vd := n.ofType("variable_declaration"); vd != nil {
		for _, d := range vd.kids {
			if d.typ == "variable_declarator" {
				if nm := d.child("name"); nm != nil {
					out = append(out, nm.text(src))
				} else if id := d.ofType("identifier"); id != nil {
					out = append(out, id.text(src))
				}
			}
		}
	}
	return out
}

// ---- Ruby

func rubySpec() *langSpec {
	return &langSpec{
		name:        "ruby",
		lambdaHints: []string{"do", "def"},
		style:       styleRuby,
		foldWord:    "private",
		docComments: true,
		typeScopes:  set("class", "module", "singleton_class"),
		defs: map[string]def{
			"method":           {kind: "function", body: field("body"), function: true},
			"singleton_method": {kind: "method", body: field("body"), function: true},
			"class":            container("class"),
			"module":           container("module"),
			"singleton_class":  {kind: "class", body: field("body"), container: true, names: func(*node, []byte) []string { return []string{"self"} }},
		},
		lambdas: map[string]func(*node) *node{"do_block": field("body")},
		access: func(n *node, src []byte) (string, bool) {
			if n.typ != "identifier" {
				return "", false
			}
			switch t := n.text(src); t {
			case "private", "protected", "public":
				return t, true
			}
			return "", false
		},
		exported: func(n *node, src []byte, names []string, sc scope) bool {
			return sc.access != "private" && sc.access != "protected"
		},
		imports: func(n *node, src []byte) []string {
			if n.typ != "call" {
				return nil
			}
			m := n.child("method")
			if m == nil || n.child("receiver") != nil {
				return nil
			}
			switch m.text(src) {
			case "require", "require_relative", "load":
				if args := n.child("arguments"); args != nil {
					if s := args.ofType("string"); s != nil {
						return []string{unquote(s.text(src))}
					}
				}
			}
			return nil
		},
	}
}

// ---- PHP

// elementNames names a declaration of several elements (PHP's "public
// $a, $b;", "const A = 1, B = 2;"): the text of each element kid's child
// of type name.
func elementNames(element, name string) func(*node, []byte) []string {
	return func(n *node, src []byte) []string {
		var out []string
		for _, k := range n.kids {
			if k.typ == element {
				if v := k.ofType(name); v != nil {
					out = append(out, v.text(src))
				}
			}
		}
		return out
	}
}

func phpSpec() *langSpec {
	return &langSpec{
		name:        "php",
		lambdaHints: []string{"function", "fn"},
		style:       styleBrace,
		foldWord:    "private",
		docComments: true,
		typeScopes:  set("class_declaration", "interface_declaration", "trait_declaration", "enum_declaration"),
		defs: map[string]def{
			"namespace_definition":  container("module"),
			"class_declaration":     container("class"),
			"interface_declaration": container("interface"),
			"trait_declaration":     container("trait"),
			"enum_declaration":      container("enum"),
			"function_definition":   {kind: "function", body: field("body"), function: true},
			"method_declaration":    {kind: "method", body: field("body"), function: true},
			"property_declaration":  {kind: "field", names: elementNames("property_element", "variable_name")},
			"const_declaration":     {kind: "const", names: elementNames("const_element", "name")},
		},
		lambdas: map[string]func(*node) *node{
			"anonymous_function_creation_expression": field("body"),
			"anonymous_function":                     field("body"),
		},
		exported: func(n *node, src []byte, names []string, sc scope) bool {
			v := n.ofType("visibility_modifier")
			return v == nil || v.text(src) != "private"
		},
		imports: func(n *node, src []byte) []string {
			switch n.typ {
			case "namespace_use_declaration":
				var out []string
				for _, k := range n.kids {
					if k.typ == "namespace_use_clause" {
						out = append(out, oneLine(k.text(src)))
					}
				}
				return out
			case "require_once_expression", "require_expression", "include_expression", "include_once_expression":
				if s := n.ofType("string", "encapsed_string"); s != nil {
					return []string{unquote(s.text(src))}
				}
			}
			return nil
		},
	}
}

// ---- Kotlin (its grammar has few field names: children are found by type)

func kotlinSpec() *langSpec {
	classBody := ofType("class_body", "enum_class_body")
	return &langSpec{
		name:        "kotlin",
		lambdaHints: []string{"fun", "init", "get", "set"},
		style:       styleBrace,
		foldWord:    "private",
		docComments: true,
		comments:    set("line_comment", "multiline_comment", "comment"),
		typeScopes:  set("class_declaration", "object_declaration", "companion_object"),
		defs: map[string]def{
			"package_header": {},
			"class_declaration": {
				kindOf: func(n *node, src []byte) string {
					switch {
					case n.has("interface"):
						return "interface"
					case n.has("enum_class_body"):
						return "enum"
					}
					return "class"
				},
				names: typeName("type_identifier"), body: classBody, container: true,
			},
			"object_declaration": {kind: "class", names: typeName("type_identifier"), body: classBody, container: true},
			"companion_object": {kind: "class", body: classBody, container: true,
				names: func(n *node, src []byte) []string {
					if t := n.ofType("type_identifier"); t != nil {
						return []string{t.text(src)}
					}
					return []string{"Companion"}
				}},
			"function_declaration":  {kind: "function", names: typeName("simple_identifier"), body: ofType("function_body"), function: true},
			"secondary_constructor": {kind: "method", names: func(*node, []byte) []string { return []string{"constructor"} }, body: self, function: true},
			"property_declaration": {kind: "field", names: func(n *node, src []byte) []string {
				if v := n.ofType("variable_declaration"); v != nil {
					if id := v.ofType("simple_identifier"); id != nil {
						return []string{id.text(src)}
					}
				}
				return nil
			}},
			"type_alias": {kind: "type", names: typeName("type_identifier")},
		},
		lambdas: map[string]func(*node) *node{
			"anonymous_initializer": self,
			"anonymous_function":    ofType("function_body"),
			"getter":                ofType("function_body"),
			"setter":                ofType("function_body"),
		},
		exported: func(n *node, src []byte, names []string, sc scope) bool {
			return !hasWord(modifierWords(n, src), "private")
		},
		imports: func(n *node, src []byte) []string {
			switch n.typ {
			case "import_list":
				var out []string
				for _, k := range n.kids {
					if k.typ == "import_header" {
						out = append(out, kotlinImport(k, src))
					}
				}
				return out
			case "import_header":
				if n.parent == nil || n.parent.typ != "import_list" {
					return []string{kotlinImport(n, src)}
				}
			}
			return nil
		},
	}
}

func kotlinImport(n *node, src []byte) string {
	s := ""
	if id := n.ofType("identifier"); id != nil {
		s = id.text(src)
	}
	if n.has("wildcard_import") {
		s += ".*"
	}
	return s
}

// ---- Swift

func swiftSpec() *langSpec {
	return &langSpec{
		name:        "swift",
		lambdaHints: []string{"{"},
		style:       styleBrace,
		foldWord:    "private",
		docComments: true,
		comments:    set("comment", "multiline_comment"),
		typeScopes:  set("class_declaration", "protocol_declaration"),
		defs: map[string]def{
			"class_declaration": {
				kindOf: func(n *node, src []byte) string {
					if k := n.child("declaration_kind"); k != nil {
						switch k.text(src) {
						case "struct":
							return "struct"
						case "enum":
							return "enum"
						case "extension":
							return "impl"
						}
					}
					return "class"
				},
				body: field("body"), container: true,
				names: func(n *node, src []byte) []string {
					if nm := n.child("name"); nm != nil {
						return []string{stripType(nm.text(src))}
					}
					return nil
				},
			},
			"protocol_declaration":          container("interface"),
			"function_declaration":          {kind: "function", body: field("body"), function: true},
			"init_declaration":              {kind: "method", names: func(*node, []byte) []string { return []string{"init"} }, body: field("body"), function: true},
			"deinit_declaration":            {kind: "method", names: func(*node, []byte) []string { return []string{"deinit"} }, body: field("body"), function: true},
			"subscript_declaration":         {kind: "method", names: func(*node, []byte) []string { return []string{"subscript"} }},
			"protocol_function_declaration": {kind: "method"},
			"property_declaration":          {kind: "field"},
			"protocol_property_declaration": {kind: "field"},
			"typealias_declaration":         {kind: "type"},
		},
		lambdas: map[string]func(*node) *node{"computed_property": self},
		exported: func(n *node, src []byte, names []string, sc scope) bool {
			return !hasWord(modifierWords(n, src), "private", "fileprivate")
		},
		imports: func(n *node, src []byte) []string {
			if n.typ == "import_declaration" {
				if id := n.ofType("identifier"); id != nil {
					return []string{id.text(src)}
				}
			}
			return nil
		},
	}
}
