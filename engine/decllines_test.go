package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/query"
)

// declRepo is a repository whose large files hold module-level code a
// request's words point at, among many functions that do not: a Python
// module-level call over lines and a constant tuple, a Go struct's fields
// and var block, a TypeScript exported object literal, a Python import
// group.
func declRepo() map[string]string {
	var py strings.Builder
	py.WriteString("\"\"\"Transport adapters.\"\"\"\n\nimport os\n\nfrom .certs import where, bundle_path\nfrom ._helpers import (\n    to_native,\n    parse_header,\n    guess_filename,\n)  # zqa\n\nDEFAULT_BUNDLE = where()\nPROXY_SCHEMES = (\n    \"http\",\n    \"https\",\n    \"socks5\",\n)  # zqb\n\n_preloaded_ssl_context = create_urllib3_context()\n_preloaded_ssl_context.load_verify_locations(\n    bundle_path(DEFAULT_BUNDLE)\n)  # zqc\n\n\n")
	for i := range 50 {
		fmt.Fprintf(&py, "def send_%d(request, timeout=None):\n    \"\"\"Send a request over connection %d.\"\"\"\n    conn = get_connection(request.url)\n    if timeout is None:\n        timeout = %d\n    return conn.urlopen(request.method, request.url, timeout=timeout)\n\n\n", i, i, i)
	}
	var g strings.Builder
	g.WriteString("package client\n\nimport \"time\"\n\n// Config configures a client.\ntype Config struct {\n\tTimeout time.Duration\n\tMaxRedirects int\n\tUserAgent string\n} // zqd\n\nvar (\n\tdefaultTimeout = 30 * time.Second\n\tdefaultRetries = 3\n) // zqe\n\n")
	for i := range 70 {
		fmt.Fprintf(&g, "// do%d sends a request.\nfunc do%d(c *Config, url string) (string, error) {\n\tif url == \"\" {\n\t\treturn \"%d\", nil\n\t}\n\treturn url, nil\n}\n\n", i, i, i)
	}
	var ts strings.Builder
	ts.WriteString("import { resolve } from 'node:path'\n\nexport const serverDefaults = {\n  host: 'localhost',\n  strictPort: false,\n  port: 5173,\n} // zqf\n\n")
	for i := range 60 {
		fmt.Fprintf(&ts, "export function plugin%d(root: string): string {\n  const dir = resolve(root, 'p%d')\n  if (dir.length === 0) {\n    return ''\n  }\n  return dir\n}\n\n", i, i)
	}
	return map[string]string{
		"net/adapters.py":     py.String(),
		"net/certs.py":        "def where():\n    return '/etc/ssl'\n\n\ndef bundle_path(p):\n    return p\n",
		"client/client.go":    g.String(),
		"server/config.ts":    ts.String(),
		"go.mod":              "module example.com/c\n\ngo 1.26\n",
		"README.md":           "# c\n\nAdapters, a client and a dev server.\n",
		"server/package.json": "{\"name\": \"server\"}\n",
	}
}

// TestDeclLinesVisible: hand-written requests whose change is in
// module-level code (a module-level call over lines, a constant tuple, a
// struct's fields, a Go var block, an exported object literal, an import
// group) named by a plain word of the request, not an identifier. At
// every budget, whenever the fitter shows the file at a view other than
// the outline, every line of the statement, declaration or group is
// visible verbatim outside every elided range, and the context is within
// its budget. Before DeclLines the focus views showed these as outline
// lines (or not at all) and hid them.
func TestDeclLinesVisible(t *testing.T) {
	files := declRepo()
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	tests := []struct {
		request, file string
		from, to      string // markers of the first and last lines that must show
	}{
		{"don't load the default ssl context when the module is imported", "net/adapters.py", "_preloaded_ssl_context = ", "zqc"},
		{"accept socks4 proxies as well as socks5", "net/adapters.py", "PROXY_SCHEMES", "zqb"},
		{"move the helpers imported from _helpers.py into this module", "net/adapters.py", "from ._helpers import (", "zqa"},
		{"limit how many redirects a client follows by default", "client/client.go", "type Config struct", "zqd"},
		{"raise the default number of retries to five", "client/client.go", "var (", "zqe"},
		{"the dev server should pick another port when the default one is taken", "server/config.ts", "export const serverDefaults", "zqf"},
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
			// An outline shows no source line: the rule is for the views
			// that do.
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

// lineNumbers returns from, from+1, ..., to.
func lineNumbers(from, to int) []int {
	out := make([]int, 0, to-from+1)
	for n := from; n <= to; n++ {
		out = append(out, n)
	}
	return out
}

// TestDeclLinesPerContent: declLines reads a content's module-level lines
// once (workspace.Store.LineTerms) and every later request intersects them
// with its own words: one engine answering the requests in a row gives
// every file the DeclLines a fresh engine gives it for that request alone,
// a request's match lines still left out, with one build per content.
func TestDeclLinesPerContent(t *testing.T) {
	files := declRepo()
	dir := testutil.GitRepo(t, files)
	code := []string{"net/adapters.py", "net/certs.py", "client/client.go", "server/config.ts"}
	chunks := func() []ctxd.Chunk {
		var cs []ctxd.Chunk
		for _, rel := range code {
			cs = append(cs, ctxd.Chunk{Source: rel, ChunkType: ctxd.ChunkFile, Content: files[rel], Facts: ctxd.Facts{Language: lang.Of(rel)}})
		}
		return cs
	}
	requests := []string{
		"don't load the default ssl context when the module is imported",
		"accept socks4 proxies as well as socks5",
		"move the helpers imported from _helpers.py into this module",
		"limit how many redirects a client follows by default",
		"raise the default number of retries to five",
		"the dev server should pick another port when the default one is taken",
	}
	warm := newEngine(t, dir)
	chosen := 0
	for _, r := range requests {
		for _, matched := range []bool{false, true} {
			want := chunks()
			cold := newEngine(t, dir)
			cold.declLines(t.Context(), query.Parse(r), want, nil)
			got := chunks()
			if matched {
				// The first line chosen is a match line of the request
				// (shown anyway): not chosen again, by either engine.
				want2 := chunks()
				for i := range want {
					if len(want[i].Facts.DeclLines) > 0 {
						got[i].Facts.MatchLines = want[i].Facts.DeclLines[:1]
						want2[i].Facts.MatchLines = want[i].Facts.DeclLines[:1]
					}
				}
				want = want2
				newEngine(t, dir).declLines(t.Context(), query.Parse(r), want, nil)
			}
			warm.declLines(t.Context(), query.Parse(r), got, nil)
			for i := range got {
				chosen += len(want[i].Facts.DeclLines)
				if !slices.Equal(got[i].Facts.DeclLines, want[i].Facts.DeclLines) {
					t.Errorf("%q (match lines %v) %s: DeclLines %v after the other requests, %v alone", r, got[i].Facts.MatchLines, got[i].Source, got[i].Facts.DeclLines, want[i].Facts.DeclLines)
				}
			}
		}
	}
	if chosen == 0 {
		t.Fatal("no request chose a line: the test exercises nothing")
	}
	if n := warm.store.LineTermsBuilds(); n != int64(len(code)) {
		t.Errorf("%d line terms built over %d requests, want %d (one a content)", n, 2*len(requests), len(code))
	}
}

// TestDeclLinesSkipLicense: a file's leading comment block (its license)
// holds no decl line, though the request's word is on it (a license's
// "use" or "dealings" picked its line for "where is WithField used", and
// the file came as that one line); the word on code after it still does.
func TestDeclLinesSkipLicense(t *testing.T) {
	lic := "// Copyright 2026 The Authors.\n//\n// THE SOFTWARE IS PROVIDED AS IS; IN NO EVENT SHALL THE AUTHORS BE LIABLE\n// FOR THE USE OR OTHER DEALINGS IN THE SOFTWARE.\n\npackage deal\n\n// maxDealings bounds the dealings a ledger keeps.\nvar maxDealings = 10\n\n"
	var b strings.Builder
	b.WriteString(lic)
	for i := range 40 {
		fmt.Fprintf(&b, "func step%d(n int) int {\n\tif n > %d {\n\t\treturn n - 1\n\t}\n\treturn n + 1\n}\n\n", i, i)
	}
	src := b.String()
	dir := testutil.GitRepo(t, map[string]string{"deal/deal.go": src, "go.mod": "module example.com/d\n\ngo 1.26\n"})
	e := newEngine(t, dir)
	env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: "the ledger is liable to overflow", TokenBudget: &BudgetRequest{Total: 8000}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, order := targetChunk(t, &env.Context, "deal/deal.go")
	if c == nil {
		t.Fatalf("deal/deal.go not in the context: %v", order)
	}
	header := markerLine(src, "DEALINGS IN THE SOFTWARE")
	if slices.ContainsFunc(c.Facts.DeclLines, func(l int) bool { return l <= header }) || !slices.ContainsFunc(c.Facts.DeclLines, func(l int) bool { return l > header }) {
		t.Errorf("decl lines %v: want the var's (or its comment's) and none of the license's 1-%d", c.Facts.DeclLines, header)
	}
}
