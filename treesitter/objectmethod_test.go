//go:build cgo && !notreesitter

package treesitter

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// pluginSource is a vite-style plugin: a function of more than
// largeBody lines returning an object whose hooks are a method
// (buildStart), a property holding an arrow function (resolveId), a
// property holding a function expression (load) and a method of a nested
// object (transform's handler); and a module-level object with a method.
// It returns the source and the first line of each hook, by name.
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
	w("  const isPublic = (id) => id.startsWith(config.publicDir);")
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

// TestObjectMethodSymbols: the functions an object literal holds are
// symbols (kind method, Inner, children of the definition around them),
// whatever their syntax; a property holding no function is none. Before,
// their bodies collapsed but no symbol named them: no focus could keep
// vite's plugin hooks whole, and find_symbol found none.
func TestObjectMethodSymbols(t *testing.T) {
	src, at := pluginSource(12)
	for _, lang := range []string{"javascript", "typescript"} {
		t.Run(lang, func(t *testing.T) {
			fs, err := Symbols(t.Context(), lang, []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			for name, line := range at {
				k := slices.IndexFunc(fs.Symbols, func(s Symbol) bool { return s.Name == name })
				if k < 0 {
					t.Errorf("no symbol %s; symbols %+v", name, fs.Symbols)
					continue
				}
				s := fs.Symbols[k]
				parent, depth := "assetPlugin", 1
				if name == "lookup" {
					parent = "registry"
				}
				if s.Kind != "method" || !s.Inner || s.Start != line || s.Parent != parent || s.Depth != depth || s.End <= s.Start {
					t.Errorf("%s: %+v, want a method at line %d, inner, of %s at depth %d", name, s, line, parent, depth)
				}
			}
			for _, s := range fs.Symbols {
				if s.Name == "name" || s.Name == "version" || s.Name == "filter" {
					t.Errorf("a property holding no function is a symbol: %+v", s)
				}
			}
		})
	}
}

// TestObjectMethodKeptLine: a line kept inside a hook of a large plugin
// function (a cursor, a focus line) keeps that hook whole and not its
// siblings: the innermost definition around the line. Before, the
// innermost was the plugin function, kept whole with every hook.
func TestObjectMethodKeptLine(t *testing.T) {
	src, at := pluginSource(30)
	lines := strings.Split(src, "\n")
	if n := slices.IndexFunc(lines, func(l string) bool { return l == "}" }) + 1; n < largeBody || n > LongBody {
		t.Fatalf("assetPlugin is %d lines, want %d to %d", n, largeBody, LongBody)
	}
	views, err := FocusViews(t.Context(), "typescript", []byte(src), Options{KeepLines: []int{at["load"] + 5}})
	if err != nil {
		t.Fatal(err)
	}
	v, ok := viewAt(views, FocusOnly)
	if !ok {
		t.Fatalf("no focus-only view: %+v", views)
	}
	for _, want := range []string{"load: function (id) {", `emit("load", 0);`, `emit("load", 29);`} {
		if !strings.Contains(v.Text, want) {
			t.Errorf("the focus-only view lacks %q:\n%s", want, v.Text)
		}
	}
	for _, hidden := range []string{`emit("resolve", 3);`, `emit("start", 3);`, `emit("transform", 3);`} {
		if strings.Contains(v.Text, hidden) {
			t.Errorf("the focus-only view shows a sibling hook's %q:\n%s", hidden, v.Text)
		}
	}
}
