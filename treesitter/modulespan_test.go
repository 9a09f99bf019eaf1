//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

// TestModuleLinesInFocus: at both focus levels, a module-level line of
// DeclLines or MatchLines shows the module-level statement, declaration
// or import group it belongs to whole, a line inside a function only
// itself, and a focused function keeps both blank lines on each side
// (Python's two between top-level definitions: the line a function added
// below it follows). Each line named in want is outside every elided
// range, each in hidden inside one.
func TestModuleLinesInFocus(t *testing.T) {
	py := `"""Adapters."""

import os
from ._helpers import (
    to_native,
    parse_header,
)

SCHEMES = (
    "http",
    "socks5",
)  # end of schemes
_ctx = make_context()
_ctx.load(
    where(),
)


def first(a):
    return a


def second(b):
    x = os.path.join(b, "socks5")
    return x


def third(c):
    return c
`
	noqa := "from .models import (  # noqa: F401\n    Request,\n    Response,\n)\nimport os\n\n\ndef send(r):\n    return os.fspath(r)\n"
	js := "import { readFileSync,\n  existsSync,\n} from './fsutils'\nimport { join } from 'node:path'\n\nexport function load(p) {\n  return readFileSync(join(p))\n}\n"
	goSrc := "package c\n\nvar (\n\tdefaultTimeout = 30\n\tdefaultRetries = 3\n)\n\ntype Config struct {\n\tTimeout int\n\tMaxRedirects int\n}\n\nfunc run() int {\n\treturn defaultRetries\n}\n"
	line := func(src, text string) int {
		for i, l := range strings.Split(src, "\n") {
			if strings.Contains(l, text) {
				return i + 1
			}
		}
		t.Fatalf("no line %q", text)
		return 0
	}
	tests := []struct {
		name, lang, src string
		opts            Options
		want, hidden    []string
	}{
		{"constant tuple whole", "python", py, Options{DeclLines: []int{line(py, `"socks5",`)}},
			[]string{"SCHEMES = (", `    "http",`, ")  # end of schemes"}, []string{"return a"}},
		{"module-level call whole", "python", py, Options{DeclLines: []int{line(py, "_ctx.load(")}},
			// _ctx's own line shows too: the shown code uses it (withUsed).
			[]string{"_ctx.load(", "    where(),", "_ctx = make_context()"}, []string{"SCHEMES = ("}},
		{"import group whole", "python", py, Options{MatchLines: []int{line(py, "parse_header,")}},
			[]string{"from ._helpers import (", "    to_native,", "    parse_header,"}, []string{"import os"}},
		{"a line in a function alone", "python", py, Options{MatchLines: []int{line(py, `x = os.path.join`)}},
			[]string{`x = os.path.join(b, "socks5")`}, []string{"return x"}},
		{"two blank lines after a focused function", "python", py, Options{KeepLines: []int{line(py, "return a")}},
			[]string{"def first(a):", "return a"}, []string{"return x"}},
		// A group whose opening line has a comment after its bracket, or
		// names, was read by that line alone (issue 25).
		{"python import group with a comment after its bracket", "python", noqa, Options{MatchLines: []int{line(noqa, "    Response,")}},
			[]string{"from .models import (  # noqa: F401", "    Request,", "    Response,"}, []string{"return os.fspath(r)"}},
		{"javascript import group with names on its first line", "javascript", js, Options{DeclLines: []int{line(js, "} from './fsutils'")}},
			[]string{"import { readFileSync,", "  existsSync,", "} from './fsutils'"}, []string{"return readFileSync(join(p))"}},
		{"go var block whole", "go", goSrc, Options{DeclLines: []int{line(goSrc, "defaultRetries = 3")}},
			[]string{"var (", "\tdefaultTimeout = 30"}, []string{"return defaultRetries"}},
		{"go struct whole", "go", goSrc, Options{DeclLines: []int{line(goSrc, "MaxRedirects")}},
			[]string{"type Config struct {", "\tTimeout int"}, []string{"return defaultRetries"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs, err := FocusViews(context.Background(), tt.lang, []byte(tt.src), tt.opts)
			if err != nil || len(vs) == 0 {
				t.Fatalf("no focus views: %v", err)
			}
			for _, v := range vs {
				for _, w := range tt.want {
					n := line(tt.src, strings.Split(w, "\n")[0])
					if elided(v.Elided, n) || !strings.Contains(v.Text, w) {
						t.Errorf("%s hides %q (line %d; elided %v):\n%s", v.Level, w, n, v.Elided, v.Text)
					}
				}
				for _, h := range tt.hidden {
					if n := line(tt.src, h); !elided(v.Elided, n) {
						t.Errorf("%s shows %q (line %d), outside what the rule keeps", v.Level, h, n)
					}
				}
			}
		})
	}
	// The blank lines between first and second: both shown with first.
	vs, err := FocusViews(context.Background(), "python", []byte(py), Options{KeepLines: []int{line(py, "return a")}})
	if err != nil || len(vs) == 0 {
		t.Fatalf("no focus views: %v", err)
	}
	end := line(py, "return a")
	for _, v := range vs {
		for _, n := range []int{end + 1, end + 2} {
			if elided(v.Elided, n) {
				t.Errorf("%s elides blank line %d below the focused function (elided %v)", v.Level, n, v.Elided)
			}
		}
	}
}

func elided(rs []ctxd.LineRange, n int) bool {
	return slices.ContainsFunc(rs, func(r ctxd.LineRange) bool { return r.Start <= n && n <= r.End })
}
