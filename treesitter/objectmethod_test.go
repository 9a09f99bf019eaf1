//go:build cgo && !notreesitter

package treesitter

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// pluginSource is a vite-style plugin: a function returning an object
// whose hooks are a method (buildStart), a property holding an arrow
// function (resolveId), one holding a function expression (load), and a
// method of a nested object (transform's handler); then a module-level
// object with a method. It returns the source and each hook's first line.
func pluginSource(body int) (string, map[string]int) {
	var b strings.Builder
	line := 1
	w := func(format string, args ...any) {
		fmt.Fprintf(&b, format+"\n", args...)
		line++
	}
	at := map[string]int{}
	stmts := func(tag string) {
		for j := range body {
			w("      emit(%q, %d);", tag, j)
		}
	}
	w("export function assetPlugin(config) {")
	w("  const seen = new Set();")
	w("  return {")
	w("    name: 'vite:asset',")
	at["buildStart"] = line
	w("    buildStart() {")
	stmts("start")
	w("    },")
	at["resolveId"] = line
	w("    resolveId: async (id) => {")
	stmts("resolve")
	w("    },")
	at["load"] = line
	w("    load: function (id) {")
	stmts("load")
	w("    },")
	at["transform"] = line
	w("    transform: {")
	w("      filter: { id: /\\.png$/ },")
	at["handler"] = line
	w("      async handler(code, id) {")
	stmts("transform")
	w("      },")
	w("    },")
	w("    version: '1',")
	w("  };")
	w("}")
	w("")
	w("export const registry = {")
	at["lookup"] = line
	w("  lookup(name) {")
	w("    return table[name];")
	w("  },")
	w("};")
	return b.String(), at
}

// TestObjectMethodsForFindSymbol: DefsAtAnyDepth (find_symbol's reader)
// lists the functions an object literal holds, whatever their syntax, as
// methods of the definition around them (a hook object's functions as
// the property's); a property holding no function is none. Symbols (the
// outline, the symbol index, the views' analysis) lists none of them:
// as focus candidates they moved vite's eval (hnoview).
func TestObjectMethodsForFindSymbol(t *testing.T) {
	parents := map[string]string{"buildStart": "assetPlugin", "resolveId": "assetPlugin", "load": "assetPlugin", "transform": "assetPlugin", "handler": "transform", "lookup": "registry"}
	for _, body := range []int{2, 40} {
		src, at := pluginSource(body)
		for _, lang := range []string{"javascript", "typescript"} {
			t.Run(fmt.Sprintf("%s/%d", lang, body), func(t *testing.T) {
				all, err := DefsAtAnyDepth(t.Context(), lang, []byte(src))
				if err != nil {
					t.Fatal(err)
				}
				for name, line := range at {
					k := slices.IndexFunc(all, func(s Symbol) bool { return s.Name == name })
					if k < 0 {
						t.Errorf("no definition %s in %+v", name, all)
						continue
					}
					if s := all[k]; s.Kind != "method" || !s.Inner || s.Start != line || s.Parent != parents[name] || s.End <= s.Start {
						t.Errorf("%s: %+v, want a method at line %d, inner, of %s", name, s, line, parents[name])
					}
				}
				for _, s := range all {
					if s.Name == "name" || s.Name == "version" || s.Name == "filter" {
						t.Errorf("a property holding no function is a definition: %+v", s)
					}
				}
				fs, err := Symbols(t.Context(), lang, []byte(src))
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range fs.Symbols {
					if _, ok := at[s.Name]; ok {
						t.Errorf("the analysis lists a hook: %+v", s)
					}
				}
			})
		}
	}
}

// TestNonCode: NonCode's spans cover a file's strings, docstrings and
// comments and nothing else; an interpolation inside a string is code.
func TestNonCode(t *testing.T) {
	tests := []struct {
		lang, src string
		code      []string // texts that are code (their first byte)
		non       []string // texts inside a string or a comment
	}{
		{"python", "def f(r):\n    \"\"\"Use r.url_for here.\"\"\"\n    s = f\"{r.url_go(1)} and url_str\"\n    return r.url_call()  # url_cmt\n",
			[]string{"url_go", "url_call"}, []string{"url_for", "url_str", "url_cmt"}},
		{"go", "package p\n\n// Doc names Hdoc.\nfunc F() {\n\ts := \"Hstr\" + `Hraw\nHraw2`\n\tHcode(s)\n}\n",
			[]string{"Hcode"}, []string{"Hdoc", "Hstr", "Hraw", "Hraw2"}},
		{"java", "class A {\n  String s = \"\"\"\n    jText\n    \"\"\";\n  void f() { jCall(\"jStr\"); }\n}\n",
			[]string{"jCall"}, []string{"jText", "jStr"}},
		{"typescript", "const a = `tpl ${fnSub(1)} tplText`\nconst b = 'qStr'\nfnCall(a, b) /* cmt */\n",
			[]string{"fnSub", "fnCall"}, []string{"tplText", "qStr", "cmt"}},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			spans, err := NonCode(t.Context(), tt.lang, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			in := func(text string) bool {
				p := strings.Index(tt.src, text)
				if p < 0 {
					t.Fatalf("%q not in the source", text)
				}
				return slices.ContainsFunc(spans, func(s Span) bool { return s.Start <= p && p < s.End })
			}
			for _, c := range tt.code {
				if in(c) {
					t.Errorf("%q is code, inside a span of %v", c, spans)
				}
			}
			for _, n := range tt.non {
				if !in(n) {
					t.Errorf("%q is no code, outside the spans %v", n, spans)
				}
			}
		})
	}
}
