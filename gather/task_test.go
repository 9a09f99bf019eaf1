package gather

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd"
)

// polyRepo has importers in Go (through the module path), Python and
// JS/TS, plus tests by each convention.
var polyRepo = map[string]string{
	"go.mod":                       "module example.com/poly\n\ngo 1.22\n",
	"internal/money/money.go":      "package money\n\n// Amount is cents.\ntype Amount int64\n",
	"internal/money/money_test.go": "package money\n",
	"internal/money/format.go":     "package money\n\nfunc (a Amount) String() string { return \"\" }\n",
	"internal/cart/cart.go":        "package cart\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/poly/internal/money\"\n)\n\nvar _ money.Amount\nvar _ = fmt.Sprint\n",
	"internal/cart/cart_test.go":   "package cart\n\nimport (\n\t\"testing\"\n\n\tm \"example.com/poly/internal/money\"\n)\n\nvar _ m.Amount\nfunc TestX(t *testing.T) {}\n",
	"cmd/poly/main.go":             "package main\n\nimport \"example.com/poly/internal/money\"\n\nfunc main() { _ = money.Amount(1) }\n",
	"internal/other/other.go":      "package other\n\nimport \"example.com/poly/internal/moneyx\"\n",
	"tools/go.mod":                 "module example.com/tools\n\ngo 1.22\n",
	"tools/lint/lint.go":           "package lint\n\nimport \"example.com/tools/report\"\n",
	"tools/report/report.go":       "package report\n",

	"app/__init__.py":                    "",
	"app/db.py":                          "def connect():\n    pass\n",
	"app/models.py":                      "from . import db\n\nclass User: pass\n",
	"app/api/views.py":                   "from ..db import connect\n",
	"app/api/__init__.py":                "",
	"scripts/seed.py":                    "import app.db as database\n",
	"scripts/unrelated.py":               "import os\nfrom collections import dbm\n",
	"tests/test_db.py":                   "from app.db import connect\n",
	"tests/test_models.py":               "from app import models\n",
	"web/src/lib/format.ts":              "export function format(n: number) { return String(n) }\n",
	"web/src/lib/format.test.ts":         "import { format } from './format'\n",
	"web/src/lib/index.ts":               "export * from './format'\n",
	"web/src/App.tsx":                    "import { format } from './lib/format.js'\nimport x from 'react'\n",
	"web/src/pages/Home.tsx":             "import { format } from '../lib'\nconst f = require('../lib/format')\n",
	"web/src/pages/About.tsx":            "import { other } from '../lib/other'\n",
	"src/lexer.rs":                       "pub fn lex() {}\n\n#[cfg(test)]\nmod tests {}\n",
	"tests/lexer.rs":                     "#[test]\nfn t() {}\n",
	"internal/money/testdata/rates.json": "{}",
}

func refactorDependents(res *Result) []string {
	var out []string
	for _, c := range res.Chunks {
		if c.Facts.Role == ctxd.RoleDependent {
			out = append(out, c.Source)
		}
	}
	slices.Sort(out)
	return out
}

func TestRefactorImporters(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, polyRepo)
	w := newTestWorkspace(t, root, Options{})
	tests := []struct {
		target string
		want   []string
	}{
		{"internal/money/money.go", []string{"cmd/poly/main.go", "internal/cart/cart.go", "internal/cart/cart_test.go"}},
		{"tools/report/report.go", []string{"tools/lint/lint.go"}},
		{"app/db.py", []string{"app/api/views.py", "app/models.py", "scripts/seed.py", "tests/test_db.py"}},
		{"web/src/lib/format.ts", []string{"web/src/App.tsx", "web/src/lib/format.test.ts", "web/src/lib/index.ts", "web/src/pages/Home.tsx"}},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			res := gather(t, w, Request{Task: ctxd.TaskRefactor, Text: "rename things in " + tt.target})
			got := refactorDependents(res)
			// Tests of the target also come as tests; a test that imports
			// it may carry either role.
			for _, c := range res.Chunks {
				if c.Facts.Role == ctxd.RoleTest && slices.ContainsFunc(c.Facts.Reasons, func(r string) bool { return strings.HasPrefix(r, "imports ") }) {
					got = append(got, c.Source)
				}
			}
			slices.Sort(got)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("dependents (-want +got):\n%s", d)
			}
			for _, dep := range got {
				c := chunk(res, dep)
				if !slices.Contains(c.Facts.Reasons, "imports "+tt.target) {
					t.Errorf("%s reasons %v", dep, c.Facts.Reasons)
				}
			}
		})
	}
}

func TestTaskSpecific(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, polyRepo)
	w := newTestWorkspace(t, root, Options{})

	t.Run("test pairs", func(t *testing.T) {
		res := gather(t, w, Request{Task: ctxd.TaskTest, Text: "write tests for internal/money/money.go"})
		tc := chunk(res, "internal/money/money_test.go")
		if tc == nil || tc.Facts.Role != ctxd.RoleTest || tc.Priority != ctxd.PriorityHigh || !tc.Facts.Test {
			t.Fatalf("money_test.go: %+v", tc)
		}
		if f := chunk(res, "internal/money/testdata/rates.json"); f == nil || !slices.Contains(f.Facts.Reasons, "fixture for internal/money/money.go") {
			t.Errorf("fixture not gathered: %v", sources(res))
		}
	})
	t.Run("test of a test", func(t *testing.T) {
		res := gather(t, w, Request{Task: ctxd.TaskTest, OpenFiles: []ctxd.OpenFile{{Path: "tests/lexer.rs"}}})
		c := chunk(res, "src/lexer.rs")
		if c == nil || !slices.Contains(c.Facts.Reasons, "tested by tests/lexer.rs") {
			t.Fatalf("source of the open test: %v", sources(res))
		}
	})
	t.Run("rust inline tests", func(t *testing.T) {
		res := gather(t, w, Request{Task: ctxd.TaskTest, Text: "cover src/lexer.rs"})
		c := chunk(res, "src/lexer.rs")
		if c == nil || !slices.Contains(c.Facts.Reasons, "has inline tests (#[cfg(test)])") {
			t.Fatalf("lexer.rs: %+v", c)
		}
		if chunk(res, "tests/lexer.rs") == nil {
			t.Errorf("tests/lexer.rs missing: %v", sources(res))
		}
	})
	t.Run("implement", func(t *testing.T) {
		res := gather(t, w, Request{Task: ctxd.TaskImplement, Text: "add rounding to internal/money/money.go"})
		for _, want := range []string{"internal/money/money.go", "internal/money/money_test.go", "internal/money/format.go"} {
			if chunk(res, want) == nil {
				t.Errorf("%s missing: %v", want, sources(res))
			}
		}
		if c := chunk(res, "internal/money/format.go"); c != nil && !slices.Contains(c.Facts.Reasons, "same package as internal/money/money.go") {
			t.Errorf("format.go reasons: %v", c.Facts.Reasons)
		}
		res = gather(t, w, Request{Task: ctxd.TaskImplement, Text: "extend app/models.py"})
		if c := chunk(res, "app/db.py"); c == nil || !slices.Contains(c.Facts.Reasons, "imported by app/models.py") {
			t.Errorf("app/db.py as imported file: %v", sources(res))
		}
	})
	t.Run("analyze", func(t *testing.T) {
		res := gather(t, w, Request{Task: ctxd.TaskAnalyze, Text: "give an overview"})
		st, deps := chunk(res, "structure"), chunk(res, "deps")
		if st == nil || st.Priority != ctxd.PriorityHigh || deps == nil || deps.Priority != ctxd.PriorityHigh {
			t.Fatalf("structure %v deps %v", st, deps)
		}
		if !strings.Contains(deps.Content, "example.com/poly") || !strings.Contains(deps.Content, "tools/go.mod") {
			t.Errorf("deps:\n%s", deps.Content)
		}
	})
	t.Run("debug", func(t *testing.T) {
		trace := "panic: boom\n\ngoroutine 1 [running]:\nexample.com/poly/internal/cart.Add()\n\t/home/ci/work/poly/internal/cart/cart.go:9 +0x1d\n" +
			"Traceback (most recent call last):\n  File \"/srv/app/api/views.py\", line 1, in <module>\n"
		res := gather(t, w, Request{Task: ctxd.TaskDebug, Text: trace})
		for src, line := range map[string]int{"internal/cart/cart.go": 9, "app/api/views.py": 1} {
			c := chunk(res, src)
			if c == nil {
				t.Errorf("%s missing: %v", src, sources(res))
				continue
			}
			if c.Facts.Role != ctxd.RoleError || c.Priority != ctxd.PriorityCritical || !slices.Equal(c.Facts.ErrorLines, []int{line}) || !slices.Contains(c.Facts.Reasons, reasonStackTrace) {
				t.Errorf("%s: priority %v facts %+v", src, c.Priority, c.Facts)
			}
		}
		if c := chunk(res, "internal/cart/cart_test.go"); c == nil {
			t.Errorf("test of the error file missing: %v", sources(res))
		}
	})
	t.Run("mentioned symbols", func(t *testing.T) {
		res := gather(t, w, Request{Task: ctxd.TaskImplement, Text: "make Amount print with a currency sign"})
		c := chunk(res, "internal/money/money.go")
		if c == nil || !slices.Contains(c.Facts.MentionedSymbols, "Amount") {
			t.Errorf("money.go: %+v", c)
		}
	})
}

func TestImports(t *testing.T) {
	tests := []struct {
		lang, src string
		want      []string
	}{
		{"go", "package a\n\nimport \"fmt\"\nimport m \"x/y\"\nimport (\n\t\"os\"\n\t_ \"embed\"\n\t. `z`\n)\n\nfunc f() { _ = \"import \\\"no\\\"\" }\n", []string{"fmt", "x/y", "os", "embed", "z"}},
		{"python", "import os, sys as system\nfrom . import db, models as m\nfrom ..x.y import (a,\n  b)\nfrom pkg.mod import *\n", []string{"os", "sys", ".", ".db", ".models", "..x.y", "..x.y.a", "pkg.mod"}},
		{"typescript", "import a from './a'\nimport type { B } from \"../b\"\nexport * from './c'\nimport './side'\nconst d = require('./d')\nconst e = await import('./e')\n", []string{"./a", "../b", "./c", "./side", "./d", "./e"}},
		{"java", "package x;\nimport com.acme.Foo;\nimport static com.acme.Util.max;\nimport com.acme.sub.*;\n", []string{"com.acme.Foo", "com.acme.Util.max", "com.acme.sub.*"}},
		{"rust", "use std::io;", nil},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			if d := cmp.Diff(tt.want, Imports(tt.lang, []byte(tt.src))); d != "" {
				t.Errorf("Imports (-want +got):\n%s", d)
			}
		})
	}
}

// TestTraceLibraryFrames: frames in runtimes and installed libraries do
// not map to workspace files that share their name; a base name shared by
// several files is ambiguous for a multi-segment path.
func TestTraceLibraryFrames(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"web/server.go":  "package web\n",
		"client/api.py":  "def get(): pass\n",
		"a/util.go":      "package a\n",
		"b/util.go":      "package b\n",
		"pkg/handler.go": "package pkg\n",
	})
	w := newTestWorkspace(t, root, Options{})
	trace := "goroutine 1 [running]:\nnet/http.(*conn).serve()\n\t/usr/local/go/src/net/http/server.go:2009 +0x1d\n" +
		"example.com/x/pkg.Handle()\n\t/home/ci/build/x/pkg/handler.go:12 +0x3\n" +
		"x.Util()\n\t/home/ci/build/x/c/util.go:3 +0x3\n" +
		"  File \"/usr/lib/python3/site-packages/requests/api.py\", line 59, in get\n"
	res := gather(t, w, Request{Task: ctxd.TaskDebug, Text: trace, Commits: -1})
	var errs []string
	for _, c := range res.Chunks {
		if c.Facts.Role == ctxd.RoleError {
			errs = append(errs, c.Source)
		}
	}
	if d := cmp.Diff([]string{"pkg/handler.go"}, errs); d != "" {
		t.Errorf("error files (-want +got):\n%s", d)
	}
}

// go test -fuzz=FuzzImports ./gather
func FuzzImports(f *testing.F) {
	langs := []string{"go", "python", "typescript", "java"}
	for _, s := range []string{"import (\n\"a\"\n", "from . import (x,\n", "import x from './y'", "import static a.*;", polyRepo["internal/cart/cart.go"]} {
		for i := range langs {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, lang uint8, src string) {
		l := langs[int(lang)%len(langs)]
		a := Imports(l, []byte(src))
		b := Imports(l, []byte(src))
		if !slices.Equal(a, b) {
			t.Fatal("not deterministic")
		}
		for _, s := range a {
			if strings.ContainsAny(s, "\n") {
				t.Fatalf("import spec %q spans lines", s)
			}
		}
	})
}

// TestTraceInstalledCopy: a frame in site-packages maps to the workspace
// file when the installed package is the workspace itself (a traceback
// from an installed copy of the project), and the innermost workspace
// frame is marked; a frame in another installed package maps to nothing.
func TestTraceInstalledCopy(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"src/shop/models.py": "def total(lines):\n    return sum(lines) / len(lines)\n",
		"src/shop/api.py":    "from shop.models import total\n\ndef checkout(lines):\n    return total(lines)\n",
		"app.py":             "from shop.api import checkout\ncheckout([])\n",
	})
	w := newTestWorkspace(t, root, Options{})
	trace := "Traceback (most recent call last):\n" +
		"  File \"/home/dev/proj/app.py\", line 2, in <module>\n" +
		"  File \"/usr/lib/python3.12/site-packages/shop/api.py\", line 4, in checkout\n" +
		"  File \"/usr/lib/python3.12/site-packages/shop/models.py\", line 2, in total\n" +
		"  File \"/usr/lib/python3.12/site-packages/requests/api.py\", line 59, in get\n" +
		"ZeroDivisionError: division by zero\n"
	res := gather(t, w, Request{Task: ctxd.TaskDebug, Text: trace, Commits: -1})
	errs, innermost := errorFiles(res)
	if d := cmp.Diff([]string{"app.py", "src/shop/api.py", "src/shop/models.py"}, errs); d != "" {
		t.Errorf("error files (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"src/shop/models.py"}, innermost); d != "" {
		t.Errorf("innermost frame (-want +got):\n%s", d)
	}
}

// TestTraceModuleCacheCopy: a Go frame in the module cache maps to the
// workspace file when the module is the workspace's own (a panic from a
// program that depends on the project), with or without the version in
// the directory name; a frame in another module maps to nothing.
func TestTraceModuleCacheCopy(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"go.mod":  "module github.com/acme/router\n\ngo 1.22\n",
		"tree.go": "package router\n\nfunc (n *node) getValue(path string) int {\n\treturn n.params[3]\n}\n",
		"gin.go":  "package router\n\nfunc (e *Engine) handle(path string) int {\n\treturn e.root.getValue(path)\n}\n",
		"util.go": "package router\n",
	})
	w := newTestWorkspace(t, root, Options{})
	trace := "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\n" +
		"github.com/acme/router.(*node).getValue(...)\n" +
		"\t/home/me/go/pkg/mod/github.com/acme/router@v1.4.0/tree.go:4 +0x1d\n" +
		"github.com/acme/router.(*Engine).handle(...)\n" +
		"\t/home/me/go/pkg/mod/github.com/acme/router/gin.go:4 +0x2a\n" +
		"github.com/other/lib.Do(...)\n" +
		"\t/home/me/go/pkg/mod/github.com/other/lib@v0.1.0/util.go:9 +0x11\n"
	res := gather(t, w, Request{Task: ctxd.TaskDebug, Text: trace, Commits: -1})
	errs, innermost := errorFiles(res)
	if d := cmp.Diff([]string{"gin.go", "tree.go"}, errs); d != "" {
		t.Errorf("error files (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"tree.go"}, innermost); d != "" {
		t.Errorf("innermost frame (-want +got):\n%s", d)
	}
}

// errorFiles returns the sorted sources of res's error chunks and those
// marked as the innermost frame.
func errorFiles(res *Result) (errs, innermost []string) {
	for _, c := range res.Chunks {
		if c.Facts.Role == ctxd.RoleError {
			errs = append(errs, c.Source)
		}
		if c.Facts.InnermostFrame {
			innermost = append(innermost, c.Source)
		}
	}
	slices.Sort(errs)
	return errs, innermost
}
