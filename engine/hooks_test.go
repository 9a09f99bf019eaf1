package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// pluginFile is a vite-style plugin module: three factories each
// returning an object of hooks (a method, an arrow-valued property, a
// hook object with a handler), each hook with a long body, so that the
// file is far over a small budget and shown at an outline-level view.
// It returns the source and the outline line of the hook named hook.
func pluginFile(hook string) (string, string) {
	var b strings.Builder
	line := 1
	w := func(format string, args ...any) {
		fmt.Fprintf(&b, format+"\n", args...)
		line++
	}
	want := ""
	stmts := func(tag string) {
		for j := range 40 {
			w("      ctx.emit(%q, %d, id);", tag, j)
		}
	}
	w("import { createFilter } from './utils';")
	w("")
	for _, p := range []string{"asset", "style", "worker", "json", "wasm", "html", "define", "manifest", "license", "reporter"} {
		w("export function %sPlugin(config: ResolvedConfig): Plugin {", p)
		w("  const cache = new Map<string, string>();")
		w("  return {")
		w("    name: 'vite:%s',", p)
		if p == "style" {
			want = fmt.Sprintf("  %d: %s(server)", line, hook)
			w("    %s(server) {", hook)
		} else {
			w("    %sStart(server) {", p)
		}
		stmts(p + "-start")
		w("    },")
		w("    resolveId: async (id: string) => {")
		stmts(p + "-resolve")
		w("    },")
		w("    transform: {")
		w("      filter: { id: /\\.%s$/ },", p)
		w("      async handler(code: string, id: string) {")
		stmts(p + "-transform")
		w("      },")
		w("    },")
		w("  };")
		w("}")
		w("")
	}
	w("export function normalizeStyleId(id: string): string {")
	w("  const q = id.indexOf('?');")
	w("  return q < 0 ? id : id.slice(0, q); // normalizeMarker")
	w("}")
	w("")
	for i := range 60 {
		w("registerBuiltin('builtin-%d', { order: %d, enabled: true, env: 'client' });", i, i)
	}
	return b.String(), want
}

// TestHookInOutline: a file of plugin factories over the budget, beside
// the small file the request is about (styleIdOf): the plugin file is
// shown at its focus view, the function the request's file calls whole
// and the rest as outline lines, and those list each factory's hooks
// under it in place (configureServer of stylePlugin, which the request
// does not name; main listed the factories' lines alone), within the
// budget. (At 2,000 tokens the fitter buys the focus-only view, which
// lists no outline line.)
func TestHookInOutline(t *testing.T) {
	src, want := pluginFile("configureServer")
	dir := testutil.GitRepo(t, map[string]string{
		"src/plugins/style.ts": src,
		"src/index.ts":         "export { stylePlugin } from './plugins/style';\n",
		"src/ids.ts":           "export function styleIdOf(id: string): string {\n  return normalizeStyleId(id) + '.style';\n}\n",
	})
	e := newEngine(t, dir)
	for _, budget := range []int{800, 1200, 1600} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: "styleIdOf should append .css to the style plugin ids", TokenBudget: &BudgetRequest{Context: budget}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if env.Context.TokensUsed > env.Context.Budget {
				t.Errorf("context %d over its budget %d", env.Context.TokensUsed, env.Context.Budget)
			}
			for _, c := range env.Context.Chunks {
				if c.Source != "src/plugins/style.ts" {
					continue
				}
				if !strings.Contains(c.Content, want+"\n") {
					t.Errorf("the %s view does not list the hook's line %q:\n%s", c.Truncation, want, c.Content)
				}
				return
			}
			t.Fatalf("src/plugins/style.ts not in the context: %+v", env.Context.Skipped)
		})
	}
}
