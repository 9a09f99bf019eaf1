package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/treesitter"
)

// pluginHook returns a hook method of a plugin object (vite's plugins
// are functions returning such objects) of n blocks of plain statements.
func pluginHook(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "    %s(code: string, id: string) {\n", name)
	for i := range n {
		fmt.Fprintf(&b, "      const step%d = prepare%d(code, id);\n      if (step%d === undefined) {\n        fallback%d(id);\n      }\n", i, i%9, i, i%5)
	}
	b.WriteString("      return code;\n    },\n")
	return b.String()
}

// TestObjectMethodFocused: a hook of a plugin object that a long function
// returns (vite's cssPostPlugin: 680 lines, its renderChunk and
// generateBundle hooks inside) is a definition the focus ladder can keep
// whole, for a request whose words its body holds. Before, an object
// literal's methods were no symbols: the ladder offered the long
// function's runs of 41 lines, and the hook's lines past its best run's
// window stayed hidden at every budget the whole file did not fit.
func TestObjectMethodFocused(t *testing.T) {
	hook := "    renderChunk(code: string, chunk: RenderedChunk) {\n" +
		"      // The legacy guard goes before the first import of a modern chunk.\n" +
		"      const legacyGuard = modernChunkLegacyGuard(chunk.fileName);\n" +
		"      if (chunk.isEntry && !code.includes(legacyGuard)) {\n"
	for i := range 26 {
		hook += fmt.Sprintf("        const part%d = chunk.imports[%d] ?? '';\n        if (part%d.endsWith('.css')) {\n          cssChunks.add(part%d); // guardMarker%d\n        }\n", i, i, i, i, i)
	}
	hook += "        return legacyGuard + code; // prependMarker\n      }\n      return code;\n    },\n"
	plugin := "export function cssPostPlugin(config: ResolvedConfig): Plugin {\n  const cssChunks = new Set<string>();\n  const isModern = (chunk: RenderedChunk) => chunk.isEntry;\n  return {\n    name: 'vite:css-post',\n" +
		pluginHook("buildStart", 30) + pluginHook("transform", 40) + hook + pluginHook("generateBundle", 50) + pluginHook("writeBundle", 30) +
		"  };\n}\n"
	files := map[string]string{
		"package.json":          "{\"name\": \"web\", \"type\": \"module\"}\n",
		"src/plugins/css.ts":    "// CSS plugins.\n" + filler("ts", 4) + "\n" + plugin + strings.ReplaceAll(filler("ts", 4), "helper", "pad"),
		"src/plugins/assets.ts": "// Assets.\n" + strings.ReplaceAll(filler("ts", 6), "helper", "asset"),
		"src/utils.ts":          "// Utilities.\n" + strings.ReplaceAll(filler("ts", 5), "helper", "util"),
	}
	src := files["src/plugins/css.ts"]
	lines := strings.Split(src, "\n")
	first := strings.Count(src[:strings.Index(src, "    renderChunk(")], "\n") + 1
	last := first + strings.Count(hook, "\n") - 1
	start := strings.Count(src[:strings.Index(src, "export function cssPostPlugin")], "\n") + 1
	if n := strings.Count(plugin, "\n"); n <= treesitter.LongBody {
		t.Fatalf("cssPostPlugin is %d lines, want over %d", n, treesitter.LongBody)
	}
	if !strings.HasPrefix(lines[last-1], "    },") || last-first+1 <= treesitter.LongWindow {
		t.Fatalf("the hook is lines %d-%d (%q), want more than %d", first, last, lines[last-1], treesitter.LongWindow)
	}
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	for _, budget := range []int{2500, 3000, 4000, 6000, 9000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{
				UserRequest: "the legacy guard is prepended to a modern chunk that already has it, and its css imports are lost",
				TokenBudget: &BudgetRequest{Total: budget},
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, order := targetChunk(t, &env.Context, "src/plugins/css.ts")
			if got == nil {
				t.Fatalf("css.ts not in the envelope; included %v", order)
			}
			if !got.Truncated {
				t.Fatalf("css.ts is whole (%d tokens): the test tests nothing at %d", got.Tokens, budget)
			}
			for l := first; l <= last; l++ {
				if ctxd.InRanges(got.Elided, l) || !strings.Contains(got.Content, strings.TrimSpace(lines[l-1])) {
					t.Fatalf("css.ts at view %q (%d tokens) hides line %d of renderChunk (%d-%d, in cssPostPlugin from %d): %q; elided %v; included %v",
						got.Truncation, got.Tokens, l, first, last, start, lines[l-1], got.Elided, order)
				}
			}
		})
	}
}
