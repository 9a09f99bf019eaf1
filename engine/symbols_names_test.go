package engine

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestFindSymbolUsersNames: find_symbol finds what users name and
// nothing it should not (issue 25; BENCHMARKS.md "hsym"). The functions an object
// literal holds are definitions (vite's plugin hooks listed only the
// Plugin type's field), parent the function returning the object or the
// variable holding it, an object of hooks (`transform: { handler() {} }`)
// reachable by its key; a name inside a string, a docstring or a comment
// is no use (a docstring's Router.url_path_for was listed); a chain of
// more than three parts, or with a part that is no identifier, is refused
// (a.b.c.d.e listed every use of e).
func TestFindSymbolUsersNames(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"src/plugin.ts": "export interface Plugin {\n  name: string\n  configureServer?: (server: unknown) => void\n}\n",
		"src/css.ts": strings.Join([]string{
			"export function cssPlugin(config) {", // 1
			"  const seen = new Set()",
			"  return {",
			"    name: 'vite:css',",
			"    configureServer(server) {", // 5
			"      seen.clear()",
			"    },",
			"    load: async (id) => {", // 8
			"      return seen.has(id)",
			"    },",
			"    transform: {", // 11
			"      order: 'pre',",
			"      async handler(code, id) {", // 13
			"        return code",
			"      },",
			"    },",
			"  }",
			"}",
			"",
			"export const registry = {", // 20
			"  lookup(name) {",          // 21
			"    return name",
			"  },",
			"  options: { port: 1 },",
			"}",
			"",
			"const server = { configureServer: null }",  // 27: a key, listed as a use
			"cssPlugin(config).configureServer(server)", // 28
			"registry.lookup('configureServer')",        // 29
			"",
		}, "\n"),
		"app/routing.py": strings.Join([]string{
			"class Router:",                     // 1
			"    def url_path_for(self, name):", // 2
			"        \"\"\"Return the URL of a route.",
			"",
			"        Use Router.url_path_for(name) or",              // 5
			"        request.url_for, as Router.url_path_for says.", // 6
			"        \"\"\"",
			"        return name",
			"",
			"def mount(router):",
			"    log = \"router.url_path_for\"", // 11
			"    url = router.url_path_for('home')  # url_path_for", // 12
			"    msg = f\"at {router.url_path_for('x')}\"",          // 13
			"    return url, log, msg",
			"",
		}, "\n"),
		"app/api.go": "package app\n\n// Serve calls Handle.\nfunc Serve() {\n\tname := \"Handle\"\n\tdoc := `the Handle\nof it`\n\tHandle(name + doc)\n}\n\nfunc Handle(s string) {}\n",
		// No string over several lines here: the line alone tells when
		// to parse (an escaped quote, a rune, a trailing comment).
		// A string going on past the line's last byte (a backslash).
		"app/cont.py": "s = Handle + \"x \\\ny\"\n",
		"app/gate.go": "package app\n\nvar f = g(\"a\\\"\", Handle, 'x') // Handle\nvar h = g(\"it's Handle\", 1) /* Handle */\nvar k = g(\"Handle\") + Handle\nvar m = `Handle\\`\n",
	})
	e := newEngine(t, dir)
	tests := []struct {
		name      string
		defs      []string // path:line parent
		refs      []string // path:line
		wantError string
	}{
		// 1: the functions an object literal holds.
		{name: "configureServer", defs: []string{"src/css.ts:5 cssPlugin", "src/plugin.ts:3 Plugin"}, refs: []string{"src/css.ts:27", "src/css.ts:28"}},
		{name: "cssPlugin.configureServer", defs: []string{"src/css.ts:5 cssPlugin"}, refs: []string{"src/css.ts:27", "src/css.ts:28"}},
		{name: "load", defs: []string{"src/css.ts:8 cssPlugin"}},
		{name: "transform", defs: []string{"src/css.ts:11 cssPlugin"}},
		{name: "transform.handler", defs: []string{"src/css.ts:13 transform"}},
		{name: "lookup", defs: []string{"src/css.ts:21 registry"}, refs: []string{"src/css.ts:29"}},
		// A property holding no function is no definition.
		{name: "options", refs: []string{"src/css.ts:24"}},
		// 2: uses inside strings, docstrings and comments are none; an
		// f-string's interpolation is code.
		{name: "Router.url_path_for", defs: []string{"app/routing.py:2 Router"}, refs: []string{"app/routing.py:12", "app/routing.py:13"}},
		{name: "url_path_for", defs: []string{"app/routing.py:2 Router"}, refs: []string{"app/routing.py:12", "app/routing.py:13"}},
		{name: "Handle", defs: []string{"app/api.go:11 "}, refs: []string{"app/api.go:8", "app/cont.py:1", "app/gate.go:3", "app/gate.go:5"}},
		// 3: at most three parts, each an identifier.
		{name: "app.Router.url_path_for", defs: []string{"app/routing.py:2 Router"}, refs: []string{"app/routing.py:12", "app/routing.py:13"}},
		{name: "x/app.Handle", defs: []string{"app/api.go:11 "}, refs: []string{"app/api.go:8", "app/cont.py:1", "app/gate.go:3", "app/gate.go:5"}},
		{name: "a.b.c.Router.url_path_for", wantError: "at most 3 parts"},
		{name: "a::b::c::url_path_for", wantError: "(c::url_path_for)"},
		{name: "a.b.Ky#retry", wantError: "(Ky#retry)"},
		{name: "a.b.Ky.#retry", wantError: "(Ky.#retry)"},
		{name: "app..url_path_for", wantError: "every part"},
		{name: "app.rou-ter.url_path_for", wantError: "every part"},
		{name: "Router.url_path_for(name)", defs: []string{"app/routing.py:2 Router"}, refs: []string{"app/routing.py:12", "app/routing.py:13"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.FindSymbol(t.Context(), SymbolRequest{Name: tt.name})
			if tt.wantError != "" {
				if err == nil || !errors.Is(err, ctxd.ErrInvalidParams) || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("error %v, want an invalid-params error saying %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var defs, refs []string
			for _, d := range res.Definitions {
				defs = append(defs, d.Path+":"+strconv.Itoa(d.Line)+" "+d.Parent)
			}
			for _, r := range res.References {
				refs = append(refs, r.Path+":"+strconv.Itoa(r.Line))
			}
			slices.Sort(defs)
			if !slices.Equal(defs, tt.defs) || !slices.Equal(refs, tt.refs) {
				t.Errorf("defs %q refs %q, want %q %q", defs, refs, tt.defs, tt.refs)
			}
		})
	}
}
