package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestMatchDocVisible: hand-written requests about a doc comment's words
// (gin's RemoteIP doc naming Engine.TrustedProxies, express's
// res.location examples): the doc line the request matches is visible
// verbatim at every budget, whatever view the fitter chose for its file
// but the outline, the signatures view included; that view cut every doc
// comment to its first sentence, and the fitter bought it over focus
// views that showed the line (BENCHMARKS.md "hview").
func TestMatchDocVisible(t *testing.T) {
	funcs := make([]string, 24)
	for i := range funcs {
		funcs[i] = fmt.Sprintf("// Step%d prepares part %d of a reply.\n// It reads the header and the body of the request,\n// checks the length against the limit, and copies\n// the remaining bytes into the buffer it returns.\nfunc (c *Context) Step%d(n int) string {\n\tif n > %d {\n\t\treturn strings.Repeat(\"x\", n)\n\t}\n\treturn c.name\n}\n\n", i, i, i, i)
	}
	gosrc := "package web\n\nimport (\n\t\"net\"\n\t\"strings\"\n)\n\n// Context is a request's context.\ntype Context struct {\n\tname string\n}\n\n" +
		strings.Join(funcs[:12], "") +
		"// RemoteIP parses the IP from the request's remote address.\n// It also checks whether the remote IP is a trusted proxy:\n// it must lie within one of the CIDR blocks\n// defined in Engine.TrustedProxies // goDocMarker\nfunc (c *Context) RemoteIP() (net.IP, bool) {\n\treturn net.ParseIP(c.name), true\n}\n\n" +
		strings.Join(funcs[12:], "")
	jsfuncs := make([]string, 20)
	for i := range jsfuncs {
		jsfuncs[i] = fmt.Sprintf("/**\n * Set part %d of the response.\n *\n * Examples:\n *\n *    res.part%d('a');\n *    res.part%d('b');\n *\n * @param {String} value\n * @api public\n */\n\nres.part%d = function part%d(value) {\n  if (value === %d) {\n    return this.set('Part', value);\n  }\n  return this;\n};\n\n", i, i, i, i, i, i)
	}
	jssrc := "'use strict';\n\nvar res = module.exports = {};\n\n" + strings.Join(jsfuncs[:10], "") +
		"/**\n * Set the location header to `url`.\n *\n * Examples:\n *\n *    res.location('/foo/bar');\n *    res.location('../login'); // relativeLoginMarker\n *\n * @param {String} url\n * @api public\n */\n\nres.location = function location(url) {\n  return this.set('Location', url);\n};\n\n" +
		strings.Join(jsfuncs[10:], "")
	files := map[string]string{
		"web/context.go":  gosrc,
		"lib/response.js": jssrc,
		"go.mod":          "module example.com/web\n\ngo 1.26\n",
		"README.md":       "# web\n\nContexts and responses.\n",
	}
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	tests := []struct {
		request, file, marker string
	}{
		{"document that RemoteIP checks Engine.TrustedProxies", "web/context.go", "goDocMarker"},
		{"the res.location example with '../login' should say where a relative path leads", "lib/response.js", "relativeLoginMarker"},
	}
	for _, tt := range tests {
		src := files[tt.file]
		n := markerLine(src, tt.marker)
		seen := map[ctxd.View]bool{}
		for _, budget := range []int{1500, 2500, 4000, 6000, 8000, 32000} {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: tt.request, TokenBudget: &BudgetRequest{Total: budget}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if env.Context.TokensUsed > env.Context.Budget {
				t.Errorf("%q at %d: %d tokens over the budget %d", tt.request, budget, env.Context.TokensUsed, env.Context.Budget)
			}
			got, order := targetChunk(t, &env.Context, tt.file)
			if got == nil || got.Truncation == ctxd.ViewOutline {
				continue
			}
			seen[got.Truncation] = true
			if !visibleLine(got, src, n) {
				t.Errorf("%q at %d: %s at %q (%d tokens) hides line %d (elided %v); included %v", tt.request, budget, tt.file, got.Truncation, got.Tokens, n, got.Elided, order)
			}
		}
		t.Logf("%q: views seen %v", tt.request, seen)
		if !seen[ctxd.ViewSignatures] {
			t.Errorf("%q: views %v chosen, no signatures view: the budgets do not exercise the doc's cut", tt.request, seen)
		}
	}
}
