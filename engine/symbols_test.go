package engine

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

func TestFindSymbol(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"store/store.go": "package store\n\ntype Store struct{}\n\n// Put adds.\nfunc (s *Store) Put(k string) error {\n\treturn nil\n}\n\nfunc Put(k string) {}\n",
		"cache/cache.go": "package cache\n\ntype Cache struct{}\n\nfunc (c *Cache) Put(k string) {}\n",
		"main.go":        "package main\n\nfunc main() {\n\tvar s store.Store\n\ts.Put(\"a\") // Put\n\tPutter()\n}\n",
		"app.py":         "class Store:\n    def put(self, k):\n        pass\n\nStore().put(1)\n",
		"docs/store.md":  "# Store\n\nCall Store.put to add, or Put in Go.\n",
		"web/render.js":  "function createRenderer() {\n" + strings.Repeat("  // filler\n", 30) + "  function mountChildren(c) {\n    return c;\n  }\n  return mountChildren;\n}\n",
		// A definition that starts at its annotation or decorator: the
		// line naming it is not a reference to it.
		"Builder.java": "class Builder {\n  @Deprecated\n  // setFormat sets it.\n  public Builder setFormat(String p) {\n    return this;\n  }\n  void use() { setFormat(\"x\"); }\n}\n",
		"tasks.py":     "@cache\ndef load_all(k):\n    return k\n\nload_all(1)\n",
	})
	e := newEngine(t, dir)
	tests := []struct {
		name      string
		defs      []string // path:line
		refs      []string
		wantError bool
		docs      bool
	}{
		{name: "put()", defs: []string{"app.py:2"}, refs: []string{"app.py:5"}},
		{name: "Store.put(k)", defs: []string{"app.py:2"}, refs: []string{"app.py:5"}},
		{name: "Store.put", defs: []string{"app.py:2"}, refs: []string{"app.py:5", "docs/store.md:3"}, docs: true},
		{name: "mountChildren", defs: []string{"web/render.js:32"}, refs: []string{"web/render.js:35"}},
		{name: "createRenderer.mountChildren", defs: []string{"web/render.js:32"}, refs: []string{"web/render.js:35"}},
		{"Put", []string{"cache/cache.go:5", "store/store.go:6", "store/store.go:10"}, []string{"main.go:5"}, false, false},
		{"Store.Put", []string{"store/store.go:6"}, []string{"main.go:5"}, false, false},
		{"cache.Put", []string{"cache/cache.go:5"}, []string{"main.go:5"}, false, false},
		{"Store.put", []string{"app.py:2"}, []string{"app.py:5"}, false, false},
		// One splitter (query.SplitQualified): the qualifier is the last
		// part before the name, and # and a trailing () split as in requests.
		{"x/cache.Put", []string{"cache/cache.go:5"}, []string{"main.go:5"}, false, false},
		{"store.Store.Put", []string{"store/store.go:6"}, []string{"main.go:5"}, false, false},
		{"Store#put", []string{"app.py:2"}, []string{"app.py:5"}, false, false},
		{"Store.Put()", []string{"store/store.go:6"}, []string{"main.go:5"}, false, false},
		{"setFormat", []string{"Builder.java:2"}, []string{"Builder.java:7"}, false, false},
		{"load_all", []string{"tasks.py:2"}, []string{"tasks.py:5"}, false, false},
		{"Nowhere", nil, nil, false, false},
		{"two words", nil, nil, true, false},
		{"", nil, nil, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.FindSymbol(t.Context(), SymbolRequest{Name: tt.name, IncludeDocs: tt.docs})
			if tt.wantError {
				if err == nil {
					t.Fatal("want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var defs, refs []string
			for _, d := range res.Definitions {
				defs = append(defs, d.Path+":"+strconv.Itoa(d.Line))
			}
			for _, r := range res.References {
				refs = append(refs, r.Path+":"+strconv.Itoa(r.Line))
			}
			if !slices.Equal(defs, tt.defs) || !slices.Equal(refs, tt.refs) {
				t.Errorf("defs %v refs %v, want %v %v", defs, refs, tt.defs, tt.refs)
			}
		})
	}
}
