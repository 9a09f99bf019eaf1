package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

// TestFocusLadderTypeBodies: the changed lines sit in no function: a Go
// struct's fields, a TypeScript interface's members, a Python class's
// docstring, a function assigned to a computed member inside a
// module-level forEach (Express's `app[method] = function`). A large
// file told as open, whose functions do not hold the request's words
// (or hold one each): without those as focus candidates the file had no
// ladder that held the lines and the fitter bought a view that hid them
// (outline, signatures, focus-only on other definitions); with them the
// lines are shown within the budget (BENCHMARKS.md "htype").
func TestFocusLadderTypeBodies(t *testing.T) {
	for _, tc := range []struct {
		name, path, first string
		n                 int // lines from first
		src, request      string
	}{
		{"go struct fields", "web/engine.go", "type Engine struct {", 9,
			"package web\n" + filler("go", 40) +
				"\n// Engine is the framework's instance.\ntype Engine struct {\n\t// RedirectTrailingSlash redirects a path with a trailing slash.\n\tRedirectTrailingSlash bool\n\t// UseRawPath reads the raw path.\n\tUseRawPath bool\n\t// ContextWithFallback enables the fallback of the request's deadline\n\t// and values when no context is set.\n\tContextWithFallback bool\n" + goFields(8) + "}\n" +
				"\n// deadline returns the request's deadline, the fallback's when none is set.\nfunc (e *Engine) deadline(r *Request) time.Time {\n\tif d, ok := r.Deadline(); ok {\n\t\treturn d\n\t}\n\treturn e.fallbackDeadline\n}\n" +
				strings.ReplaceAll(filler("go", 30), "helper", "mixer"),
			"add a fallback feature flag for the request's deadline"},
		{"ts interface members", "src/server.ts", "export interface ServeOptions {", 8,
			"// Serving.\n" + filler("ts", 40) +
				"\nexport interface ServeOptions {\n  root: string\n  /**\n   * Files denied to the dev server.\n   * @default ['.env', '.env.*', '*.{crt,pem}']\n   */\n  deny?: string[]\n" + strings.ReplaceAll(strings.ReplaceAll(goFields(8), "\t", "  "), " bool", "?: boolean") + "}\n" +
				"\n/** Starts the dev server, serving files of the root. */\nexport function serve(opts: ServeOptions): void {\n  const server = listen(opts.root);\n  server.files(opts.root);\n}\n" +
				strings.ReplaceAll(filler("ts", 30), "helper", "mixer"),
			"deny certificate files by default on the dev server"},
		{"python class docstring", "net/client.py", "class Transport:", 8,
			"\"\"\"Clients.\"\"\"\n" + filler("python", 40) +
				"\n\n\nclass Transport:\n    \"\"\"A connection pool.\n\n    * **pool_limits** - *(optional)* The connection pool configuration to use\n    when determining the maximum number of concurrently open HTTP connections.\n    * **retries** - *(optional)* How many times to retry a failed connect.\n    \"\"\"\n\n    def send(self, request):\n        return self._send(request)\n" +
				strings.ReplaceAll(filler("python", 30), "_helper", "_mixer"),
			"document the pool limits as the maximum of concurrently open connections"},
		{"js computed member", "lib/application.js", "  app[method] = function (path) {", 9,
			"'use strict';\n" + jsFiller(40, "helper") +
				"\nmethods.forEach(function (method) {\n  app[method] = function (path) {\n    if (method === 'get' && arguments.length === 1) {\n      // app.get(setting)\n      return this.set(path);\n    }\n    var route = this.route(path);\n    route[method].apply(route, slice.call(arguments, 1));\n    return this;\n  };\n" + strings.Repeat("  // (no verb of its own)\n", 12) + "});\n" +
				jsFiller(30, "mixer"),
			"apply the route's arguments for each verb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkLinesShown(t, tc.path, tc.first, tc.n, tc.src, tc.request)
		})
	}
}

// goFields returns n fields of a Go struct, each with its comment,
// holding no request word of the tests.
func goFields(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "\t// Knob%d tunes part %d.\n\tKnob%d bool\n", i, i, i)
	}
	return b.String()
}

// jsFiller returns 3n small JavaScript functions assigned to app's
// members named by prefix, holding no request word of the tests.
func jsFiller(n int, prefix string) string {
	var b strings.Builder
	for i := range 3 * n {
		fmt.Fprintf(&b, "\n/**\n * %s%d mixes a value.\n */\napp.%s%d = function %s%d(x) {\n  var a = x * %d;\n  if (a > 100) {\n    return a - %d;\n  }\n  return a + %d;\n};\n", prefix, i, prefix, i, prefix, i, i+3, i, i*7)
	}
	return b.String()
}

// checkLinesShown builds a repository holding path (src), tells the file
// as open with request at 2,000 and 3,000 tokens, and fails unless the
// file is placed truncated with the n lines from the line first visible.
func checkLinesShown(t *testing.T, path, first string, n int, src, request string) {
	t.Helper()
	repo, e := payEngine(t, map[string]string{path: src})
	lines := strings.Split(repo[path], "\n")
	from := slices.Index(lines, first) + 1
	if from == 0 {
		t.Fatal("no such line")
	}
	for _, total := range []int{2000, 3000} {
		t.Run(fmt.Sprint(total), func(t *testing.T) {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: request, OpenFiles: []ctxd.OpenFile{{Path: path}}, TokenBudget: &BudgetRequest{Total: total}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, order := targetChunk(t, &env.Context, path)
			if got == nil {
				t.Fatalf("%s not placed: %v", path, order)
			}
			if !got.Truncated {
				t.Fatalf("%s whole (%d tokens): the budget tests nothing", path, got.Tokens)
			}
			for l := from; l < from+n; l++ {
				if ctxd.InRanges(got.Elided, l) || !strings.Contains(got.Content, lines[l-1]) {
					t.Fatalf("%s at %q (%d tokens, focus %v) hides line %d %q; included %v", path, got.Truncation, got.Tokens, got.Facts.FocusLines, l, lines[l-1], order)
				}
			}
		})
	}
}
