package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// callbacks returns n callbacks (closures, nested defs) of lang at a
// function body's indent, each of size lines, the k-th marked
// "cbMarker<k>" on its first body line and "cbEnd<k>" on its last.
func callbacks(lang string, n, size int) string {
	var b strings.Builder
	for k := range n {
		switch lang {
		case "js":
			fmt.Fprintf(&b, "    proc.on('event%d', (value) => {\n      const first%d = value; // cbMarker%d\n", k, k, k)
			for i := range size {
				fmt.Fprintf(&b, "      const v%d_%d = first%d + %d;\n", k, i, k, i)
			}
			fmt.Fprintf(&b, "      exitCallback(v%d_%d); // cbEnd%d\n    });\n", k, size-1, k)
		case "python":
			fmt.Fprintf(&b, "    def on_event%d(value):\n        first_%d = value  # cbMarker%d\n", k, k, k)
			for i := range size {
				fmt.Fprintf(&b, "        v%d_%d = first_%d + %d\n", k, i, k, i)
			}
			fmt.Fprintf(&b, "        return v%d_%d  # cbEnd%d\n\n", k, size-1, k)
		case "go":
			fmt.Fprintf(&b, "\ton%d := func(value int) int {\n\t\tfirst%d := value // cbMarker%d\n", k, k, k)
			for i := range size {
				fmt.Fprintf(&b, "\t\tv%d_%d := first%d + %d\n\t\t_ = v%d_%d\n", k, i, k, i, k, i)
			}
			fmt.Fprintf(&b, "\t\treturn first%d // cbEnd%d\n\t}\n\t_ = on%d\n", k, k, k)
		}
	}
	return b.String()
}

// outlinedRepo holds, in a file too large to show whole, a function of
// more than largeBody lines that is mostly callbacks (vite's server
// setup, a Python decorator factory, a Go server loop).
func outlinedRepo() map[string]string {
	js := "const childProcess = require('node:child_process');\n\nclass Command {\n" + jsMethods("option", 60) +
		"\n  _executeSubCommand(subcommand, args) {\n    const proc = childProcess.spawn(subcommand, args); // ownMarker\n    const exitCallback = this._exitCallback;\n" +
		callbacks("js", 8, 22) + "    this.runningCommand = proc; // ownEnd\n  }\n" + jsMethods("argument", 60) + "}\n\nexports.Command = Command;\n"
	py := "\"\"\"Routing.\"\"\"\n" + filler("python", 40) +
		"\n\ndef build_handler(route, dependant):\n    \"\"\"Build the handler of a route.\"\"\"\n    charset = route.charset  # ownMarker\n\n" +
		callbacks("python", 8, 22) + "    return on_event0  # ownEnd\n" + strings.ReplaceAll(filler("python", 40), "_helper", "_mixer")
	goSrc := "package server\n\n// Options configure a server.\ntype Options struct{ Port, Size int }\n" + filler("go", 40) +
		"\n// serve runs the server.\nfunc serve(opts Options) error {\n\tport := opts.Port // ownMarker\n" +
		callbacks("go", 6, 16) + "\treturn listen(port) // ownEnd\n}\n" + strings.ReplaceAll(filler("go", 40), "helper", "mixer")
	return map[string]string{
		"package.json":     `{"name": "commander", "main": "index.js"}` + "\n",
		"index.js":         "const { Command } = require('./lib/command.js');\nexports.Command = Command;\n",
		"lib/command.js":   js,
		"api/routing.py":   py,
		"server/serve.go":  goSrc,
		"server/listen.go": "package server\n\nfunc listen(port int) error { return nil }\n",
		"go.mod":           "module example.com/srv\n\ngo 1.26\n",
	}
}

// TestCursorFunctionOutlined: when the function at the cursor (more than
// largeBody lines, mostly callbacks, closures or nested defs) does not fit
// the budget whole, it is shown alone outlined: its own lines and the
// callback at the cursor verbatim, every other callback as its first and
// last lines around a "... (N lines)" line. Main showed the file's outline
// (the cursor's line and the function's own lines hidden), or, for a
// nested def or closure at the cursor, that def alone. Never over budget
// (targetChunk).
func TestCursorFunctionOutlined(t *testing.T) {
	files := outlinedRepo()
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	line := func(file, s string) int { return fileLine(t, files, file, s) }
	requireLargeUnits(t, files, []unitSpan{
		{"lib/command.js", "_executeSubCommand(", "ownEnd"},
		{"api/routing.py", "def build_handler(", "ownEnd"},
		{"server/serve.go", "func serve(", "ownEnd"},
	})
	tests := []struct {
		name, request, target, cursor string
		budget                        int
		visible, collapsed            []string
	}{
		{"js callback at the cursor", "the subcommand exits with the wrong code", "lib/command.js", "const v5_3 =", 2200,
			[]string{"ownMarker", "ownEnd", "cbMarker5", "cbEnd5", "proc.on('event2'", "proc.on('event7'"}, []string{"cbMarker2", "cbEnd7"}},
		{"js cursor in the method's own lines", "the subcommand exits with the wrong code", "lib/command.js", "ownMarker", 1800,
			[]string{"ownMarker", "ownEnd", "proc.on('event0'", "proc.on('event7'"}, []string{"cbMarker0", "cbEnd7"}},
		{"python nested def at the cursor", "the handler returns the wrong status", "api/routing.py", "v3_10 =", 2200,
			[]string{"ownMarker", "ownEnd", "cbMarker3", "cbEnd3", "def on_event0(", "def on_event7("}, []string{"cbMarker0", "cbEnd7"}},
		{"go closure at the cursor", "connections are not closed", "server/serve.go", "v4_7 :=", 2200,
			[]string{"ownMarker", "ownEnd", "cbMarker4", "cbEnd4", "on0 := func(", "on5 := func("}, []string{"cbMarker0", "cbEnd5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := PromptRequest{UserRequest: tt.request, OpenFiles: []ctxd.OpenFile{{Path: tt.target, Line: line(tt.target, tt.cursor)}}}
			req.TokenBudget = &BudgetRequest{Total: tt.budget}
			env, err := e.BuildPrompt(t.Context(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, order := targetChunk(t, &env.Context, tt.target)
			if got == nil {
				t.Fatalf("target %s not in the envelope; included %v", tt.target, order)
			}
			if !got.Truncated {
				t.Fatalf("%s is whole (%d tokens): the file must need a view, or the test tests nothing", tt.target, got.Tokens)
			}
			lines := strings.Split(files[tt.target], "\n")
			for _, m := range tt.visible {
				l := line(tt.target, m)
				if !strings.Contains(got.Content, strings.TrimSpace(lines[l-1])) || ctxd.InRanges(got.Elided, l) {
					t.Errorf("%s at view %q (%d tokens) hides line %d (%q); included %v\n%s", tt.target, got.Truncation, got.Tokens, l, m, order, got.Content)
				}
			}
			for _, m := range tt.collapsed {
				// The budget must be too small for the function whole,
				// or the test tests nothing.
				if l := line(tt.target, m); !ctxd.InRanges(got.Elided, l) {
					t.Errorf("%s at view %q (%d tokens) shows line %d (%q): the function fits whole, the test tests nothing", tt.target, got.Truncation, got.Tokens, l, m)
				}
			}
		})
	}
}
