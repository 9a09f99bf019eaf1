package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// importRepo is a repository whose large files import over lines, the
// first line of the statement holding names too (`from m import (a,`,
// `import { a,`), among many functions a request's words do not name.
func importRepo() map[string]string {
	var py strings.Builder
	py.WriteString("\"\"\"URL helpers.\"\"\"\n\nimport os\n\nfrom ._compat import (urlparse,\n    urlunparse,\n    quote_plus,\n)  # zqg\n\n\n")
	for i := range 50 {
		fmt.Fprintf(&py, "def build_%d(base, path=None):\n    \"\"\"Build URL number %d.\"\"\"\n    parts = urlparse(base)\n    if path is None:\n        path = '/%d'\n    return urlunparse(parts._replace(path=path))\n\n\n", i, i, i)
	}
	var ts strings.Builder
	ts.WriteString("import { readFileSync,\n  existsSync,\n  statSync,\n} from './fsutils' // zqh\n\n")
	for i := range 60 {
		fmt.Fprintf(&ts, "export function loader%d(root: string): string {\n  const file = root + '/l%d'\n  if (!existsSync(file)) {\n    return ''\n  }\n  return readFileSync(file, 'utf8')\n}\n\n", i, i)
	}
	return map[string]string{
		"web/urls.py":         py.String(),
		"web/_compat.py":      "from urllib.parse import urlparse, urlunparse, quote_plus\n",
		"web/__init__.py":     "",
		"server/loaders.ts":   ts.String(),
		"server/fsutils.ts":   "export { readFileSync, existsSync, statSync } from 'node:fs'\n",
		"server/package.json": "{\"name\": \"server\"}\n",
		"README.md":           "# w\n\nURL helpers and loaders.\n",
	}
}

// TestImportGroupVisible: a request naming the module a file imports
// over lines, whose first line binds names too, sees the whole statement
// whenever the file's view shows a source line, within budget. Before,
// the statement was read by its first line: the Python and JavaScript
// statement showed its first line (or its last) alone.
func TestImportGroupVisible(t *testing.T) {
	files := importRepo()
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	tests := []struct {
		request, file string
		from, to      string // markers of the first and last lines that must show
	}{
		{"stop importing from the _compat shim now that python 2 is gone", "web/urls.py", "from ._compat import (", "zqg"},
		{"import these from node:fs directly, not from fsutils", "server/loaders.ts", "import { readFileSync,", "zqh"},
	}
	for _, tt := range tests {
		src := files[tt.file]
		from, to := markerLine(src, tt.from), markerLine(src, tt.to)
		if from == 0 || to < from {
			t.Fatalf("%q: markers %q..%q not found in order", tt.request, tt.from, tt.to)
		}
		seen := map[ctxd.View]bool{}
		for _, budget := range []int{1500, 2500, 4000, 8000, 32000} {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: tt.request, TokenBudget: &BudgetRequest{Total: budget}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if env.Context.TokensUsed > env.Context.Budget {
				t.Errorf("%q at %d: %d tokens used of %d", tt.request, budget, env.Context.TokensUsed, env.Context.Budget)
			}
			if got, order := targetChunk(t, &env.Context, tt.file); got != nil && got.Truncation != ctxd.ViewOutline {
				seen[got.Truncation] = true
				if n := slices.IndexFunc(lineNumbers(from, to), func(n int) bool { return !visibleLine(got, src, n) }); n >= 0 {
					t.Errorf("%q at %d: %s at %q (%d tokens) hides line %d (elided %v); included %v", tt.request, budget, tt.file, got.Truncation, got.Tokens, from+n, got.Elided, order)
				}
			}
		}
		t.Logf("%q: views seen %v", tt.request, seen)
		if !seen[ctxd.ViewFocus] && !seen[ctxd.ViewFocusOnly] {
			t.Errorf("%q: no focus view chosen (%v): the budgets do not exercise the rule", tt.request, seen)
		}
	}
}
