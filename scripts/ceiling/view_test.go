package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/prompt"
	"github.com/ctxd/ctxd/tokens"
	"github.com/ctxd/ctxd/treesitter"
)

// goSrc is a Go file of many functions: one holds a closure (a nested
// function), and a module-level var block sits outside every function.
func goSrc() string {
	var b strings.Builder
	b.WriteString("package p\n\nimport \"fmt\"\n\nvar limits = map[string]int{\n\t\"a\": 1,\n\t\"b\": 2,\n}\n\n")
	for i := range 30 {
		fmt.Fprintf(&b, "// F%d does step %d.\nfunc F%d(x int) int {\n\ty := x * %d\n\tfor i := 0; i < y; i++ {\n\t\ty += i\n\t}\n\treturn y\n}\n\n", i, i, i, i)
	}
	b.WriteString("func Long(x int) int {\n")
	for i := range 40 {
		fmt.Fprintf(&b, "\tx = x*%d + 1\n", i+100)
	}
	b.WriteString("\treturn x\n}\n\n")
	b.WriteString("func Outer(xs []int) func() int {\n\ttotal := 0\n\tadd := func(v int) int {\n\t\ttotal += v * 2\n\t\treturn total\n\t}\n\tfor _, x := range xs {\n\t\tadd(x)\n\t}\n\treturn func() int { return total }\n}\n")
	return b.String()
}

// pySrc is a Python file of many functions: a method holds an inner
// function, and a module-level constant sits outside every function.
func pySrc() string {
	var b strings.Builder
	b.WriteString("import os\n\nTIMEOUT = 30\nRETRIES = 3\n\nif os.name == \"nt\":\n    print(\"windows\")\n\n")
	for i := range 30 {
		fmt.Fprintf(&b, "def f%d(x):\n    \"\"\"Step %d.\"\"\"\n    y = x * %d\n    for i in range(y):\n        y += i\n    return y\n\n\n", i, i, i)
	}
	b.WriteString("class Client:\n    def send(self, items):\n        total = 0\n\n        def add(v):\n            nonlocal total\n            total += v * 2\n\n        for v in items:\n            add(v)\n        return total\n")
	return b.String()
}

func lineOf(t *testing.T, src, text string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.TrimSpace(l) == text {
			return i + 1
		}
	}
	t.Fatalf("no line %q", text)
	return 0
}

func TestCheapest(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	counter, _ := tokens.ForModel(cfg.Model, 0)
	gs, ps := goSrc(), pySrc()
	for _, tc := range []struct {
		name, path, src string
		lines           []string // the changed lines' text
		view            string   // the cheapest view expected
	}{
		{"go nested function", "p.go", gs, []string{"total += v * 2"}, "focus-only"},
		{"go outside every function", "p.go", gs, []string{`"b": 2,`}, "focus-only"},
		{"go both", "p.go", gs, []string{"total += v * 2", `"b": 2,`, "y := x * 7"}, "focus-only"},
		{"go long function", "p.go", gs, []string{"x = x*120 + 1"}, "focus-only"},
		{"python statement outside every definition", "p.py", ps, []string{`print("windows")`}, "focus-only"},
		{"python nested function", "p.py", ps, []string{"total += v * 2"}, "focus-only"},
		{"python outside every function", "p.py", ps, []string{"RETRIES = 3"}, "focus-only"},
		{"python both", "p.py", ps, []string{"total += v * 2", "RETRIES = 3", "y = x * 7"}, "focus-only"},
		{"no language", "p.txt", gs, []string{"total += v * 2"}, "whole"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lines []int
			for _, l := range tc.lines {
				lines = append(lines, lineOf(t, tc.src, l))
			}
			c := cheapest(ctx, counter, cfg.Format, tc.path, []byte(tc.src), lines)
			if c.View != tc.view {
				t.Errorf("view %s, want %s", c.View, tc.view)
			}
			if c.View != "whole" && c.Tokens >= c.Whole {
				t.Errorf("view %s costs %d, the file whole %d", c.View, c.Tokens, c.Whole)
			}
			if c.Defs > c.Tokens || c.Lines > c.Tokens {
				t.Errorf("looser bounds defs %d lines %d over the view's %d", c.Defs, c.Lines, c.Tokens)
			}
			// The view it costs shows every changed line: rendered again
			// (the definitions' focus views), each line is in its text.
			if c.View == "whole" {
				return
			}
			lang := treesitter.Detect(tc.path, []byte(tc.src))
			vs, err := treesitter.FocusViews(ctx, lang, []byte(tc.src), treesitter.Options{KeepLines: lines, DeclLines: lines})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, v := range vs {
				ch := ctxd.Chunk{Source: tc.path, ChunkType: ctxd.ChunkFile, Content: v.Text, Truncated: true, Truncation: v.Level, Elided: v.Elided}
				if string(v.Level) != c.View || counter.Count(prompt.Section(ch, cfg.Format)) != c.Tokens {
					continue
				}
				found = true
				for _, l := range tc.lines {
					if !strings.Contains(v.Text, l) {
						t.Errorf("the %s view does not show %q:\n%s", v.Level, l, v.Text)
					}
				}
			}
			if !found {
				t.Errorf("no definitions view of %d tokens at %s", c.Tokens, c.View)
			}
		})
	}
}
