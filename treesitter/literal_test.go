//go:build cgo && !notreesitter

package treesitter

import (
	"fmt"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestBodiesShortenDataLiterals: a long table keeps its first elements at
// the bodies level, the rest collapse into a count, and the view still
// parses; short literals stay whole.
func TestBodiesShortenDataLiterals(t *testing.T) {
	var rows []string
	for i := range 200 {
		rows = append(rows, fmt.Sprintf("\t{%q, %d},", fmt.Sprint("name", i), i))
	}
	long := "package x\n\nvar table = []struct {\n\tname string\n\tn    int\n}{\n" + strings.Join(rows, "\n") + "\n}\n\nvar short = []int{\n\t1,\n\t2,\n}\n\n// F looks up a row.\nfunc F(i int) string {\n\treturn table[i].name\n}\n"
	py := "TABLE = [\n" + strings.Repeat("    (1, 'a'),\n", 120) + "]\n\n\ndef f(i):\n    return TABLE[i]\n"
	ts := "export const TABLE = [\n" + strings.Repeat("  [1, 'a'],\n", 120) + "];\n\nexport function f(i: number) {\n  return TABLE[i];\n}\n"
	tests := []struct {
		lang, src, keep, cut string
	}{
		{"go", long, `{"name2", 2},`, `{"name3", 3},`},
		{"python", py, "    (1, 'a'),\n    (1, 'a'),\n    (1, 'a'),\n    # ... 117 lines\n]", ""},
		{"typescript", ts, "  [1, 'a'],\n  /* ... 117 lines */\n];", ""},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			views, err := Views(t.Context(), tt.lang, []byte(tt.src), Options{})
			if err != nil {
				t.Fatal(err)
			}
			var bodies string
			for _, v := range views {
				if v.Level == Bodies {
					bodies = v.Text
				}
			}
			if !strings.Contains(bodies, tt.keep) || tt.cut != "" && strings.Contains(bodies, tt.cut) {
				t.Fatalf("bodies view:\n%s", bodies)
			}
			if len(bodies) > len(tt.src)/4 {
				t.Errorf("bodies view is %d of %d bytes", len(bodies), len(tt.src))
			}
			if tt.lang == "go" {
				if _, err := parser.ParseFile(token.NewFileSet(), "x.go", bodies, 0); err != nil {
					t.Errorf("the bodies view does not parse: %v\n%s", err, bodies)
				}
				if !strings.Contains(bodies, "var short = []int{\n\t1,\n\t2,\n}") || !strings.Contains(bodies, "/* ... 197 lines */") {
					t.Errorf("bodies view:\n%s", bodies)
				}
			}
		})
	}
}
