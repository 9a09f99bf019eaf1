package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// importRunRepo is a repository with a large Python client module whose
// imports are one run (single lines and a group) and whose functions
// each use a name of it; the request is about one of them.
func importRunRepo() map[string]string {
	var py strings.Builder
	py.WriteString("\"\"\"HTTP client helpers.\"\"\"\n\nimport os\nimport json  # zqa\nfrom ._compat import (\n    urlparse,\n    urlunparse,\n)\nfrom ._auth import basic_auth  # zqb\n\nTIMEOUT = 5\n\n\n")
	for i := range 50 {
		fmt.Fprintf(&py, "def build_%d(base, path=None):\n    \"\"\"Build URL number %d.\"\"\"\n    parts = urlparse(base)\n    if path is None:\n        path = '/%d'\n    return urlunparse(parts._replace(path=path))\n\n\n", i, i, i)
	}
	py.WriteString("def fetch_token(session, user, secret):\n    \"\"\"Fetch an OAuth token with the user's credentials.\"\"\"\n    header = basic_auth(user, secret)\n    return session.post('/token', headers={'Authorization': header})\n")
	return map[string]string{
		"web/client.py":   py.String(),
		"web/_compat.py":  "from urllib.parse import urlparse, urlunparse\n",
		"web/_auth.py":    "import base64\n\n\ndef basic_auth(user, secret):\n    return 'Basic ' + base64.b64encode(f'{user}:{secret}'.encode()).decode()\n",
		"web/__init__.py": "",
		"README.md":       "# w\n\nHTTP client helpers.\n",
	}
}

// TestImportRunVisible: a request about a function whose fix adds an
// import (fetch_token reading the credentials from ~/.netrc: `import
// netrc` after `import json`) sees the file's run of imports whole
// wherever the file is at a focus view, within budget: the function uses
// a name of the run (basic_auth), and the line the new import follows is
// in it. Before, the focus views showed the import lines the function
// uses alone, and the insertion point was hidden (BENCHMARKS.md "hmod").
func TestImportRunVisible(t *testing.T) {
	files := importRunRepo()
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	const file = "web/client.py"
	request := "read the credentials from the netrc file when fetching an OAuth token for a user without a secret"
	src := files[file]
	from, to := markerLine(src, "zqa"), markerLine(src, "zqb")
	focused := 0
	for _, budget := range []int{1500, 2500, 4000, 8000} {
		env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: request, TokenBudget: &BudgetRequest{Total: budget}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if env.Context.TokensUsed > env.Context.Budget {
			t.Errorf("at %d: %d tokens used of %d", budget, env.Context.TokensUsed, env.Context.Budget)
		}
		got, order := targetChunk(t, &env.Context, file)
		if got == nil || got.Truncation != ctxd.ViewFocus && got.Truncation != ctxd.ViewFocusOnly {
			continue
		}
		focused++
		if n := slices.IndexFunc(lineNumbers(from, to), func(n int) bool { return !visibleLine(got, src, n) }); n >= 0 {
			t.Errorf("at %d: %s at %q (%d tokens) hides import line %d (elided %v); included %v", budget, file, got.Truncation, got.Tokens, from+n, got.Elided, order)
		}
	}
	if focused == 0 {
		t.Error("no budget put the file at a focus view: the budgets do not exercise the rule")
	}
}
