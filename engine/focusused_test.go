package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
)

// startLine returns the 1-based line of src that starts with prefix.
func startLine(t *testing.T, src, prefix string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.HasPrefix(l, prefix) {
			return i + 1
		}
	}
	t.Fatalf("no line %q", prefix)
	return 0
}

// TestFocusLinesNamedAndUsed: a file that defines a word of the request
// (a named type, a function that shares a word) still gets focus lines,
// chosen among its other functions by their text, so the function that
// answers is kept whole; in a test file, the short table and the setup
// helper the focused tests use are focused with them (real tree-sitter,
// a git repository built here).
func TestFocusLinesNamedAndUsed(t *testing.T) {
	var client strings.Builder
	client.WriteString("package web\n\n// Client sends requests.\ntype Client struct {\n\tJar int\n}\n\n")
	for i := range 40 {
		fmt.Fprintf(&client, "// Pad%d pads.\nfunc Pad%d(n int) int {\n\tx := n + %d\n\tx *= 2\n\treturn x\n}\n\n", i, i, i)
	}
	client.WriteString("// Post posts a form.\nfunc Post(url string) error {\n\treturn nil\n}\n\n")
	client.WriteString("func redirectBehavior(method string, code int, getBody func() error) (redirect, includeBody bool) {\n\tswitch code {\n\tcase 307, 308:\n\t\tredirect, includeBody = true, true\n\t\tif getBody == nil {\n\t\t\tredirect = false // without GetBody the body cannot be sent again\n\t\t}\n\t}\n\treturn redirect, includeBody\n}\n")
	var test strings.Builder
	test.WriteString("package web\n\nimport \"testing\"\n\n")
	for i := range 30 {
		fmt.Fprintf(&test, "func TestPad%d(t *testing.T) {\n\tif Pad%d(1) == 0 {\n\t\tt.Fatal(\"zero\")\n\t}\n}\n\n", i, i)
	}
	test.WriteString("var cutTests = []struct{ s, sep, before string }{\n\t{\"a,b\", \",\", \"a\"},\n\t{\"ab\", \"\", \"\"},\n}\n\n")
	test.WriteString("func resetForCutTests(s *string) {\n\t*s = \"40.40.40.40\"\n}\n\n")
	test.WriteString("func TestCut(t *testing.T) {\n\tvar s string\n\tresetForCutTests(&s)\n\tfor _, tt := range cutTests {\n\t\tif before := Cut(tt.s, tt.sep); before != tt.before {\n\t\t\tt.Errorf(\"Cut separator %q: %q\", tt.sep, before)\n\t\t}\n\t}\n}\n")
	files := map[string]string{"web/client.go": client.String(), "web/cut_test.go": test.String()}
	dir := testutil.GitRepo(t, files)
	e := reopener(t, dir, stateWithIndex(t))()

	for _, tc := range []struct {
		name, file, request string
		task                ctxd.TaskType
		named               []string
		want, not           []string // lines (by prefix) among / not among the focus lines
	}{
		{
			name: "named type and function", file: "web/client.go",
			request: "why does http.Client not follow a 307 redirect for a POST request with a body that has no GetBody?",
			task:    ctxd.TaskAnalyze, named: []string{"Client", "Post"},
			want: []string{"func redirectBehavior("}, not: []string{"func Post(", "type Client"},
		},
		{
			name: "table and helper of a focused test", file: "web/cut_test.go",
			request: "add a test for Cut with an empty separator", task: ctxd.TaskTest,
			want: []string{"func TestCut(", "var cutTests", "func resetForCutTests("},
			not:  []string{"func TestPad1("},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := files[tc.file]
			cs := []ctxd.Chunk{{Source: tc.file, ChunkType: ctxd.ChunkFile, Content: src, Tokens: 5000, Facts: ctxd.Facts{MentionedSymbols: tc.named}}}
			e.focusLines(t.Context(), query.Parse(tc.request), tc.task, cs, nil, nil, 0)
			got := cs[0].Facts.FocusLines
			for _, p := range tc.want {
				if !slices.Contains(got, startLine(t, src, p)) {
					t.Errorf("focus lines %v lack %q (line %d)", got, p, startLine(t, src, p))
				}
			}
			for _, p := range tc.not {
				if slices.Contains(got, startLine(t, src, p)) {
					t.Errorf("focus lines %v hold %q", got, p)
				}
			}
		})
	}
}

func TestUsedDefsLimits(t *testing.T) {
	long := "var bigTable = []int{\n" + strings.Repeat("\t1,\n", 70) + "}\n"
	src := "package p\n\n" + long + "func helper() int {\n\treturn 1\n}\n\nfunc TestX(t *testing.T) {\n\t_ = bigTable\n\t_ = helper()\n\tTestY(t)\n}\n\nfunc TestY(t *testing.T) {}\n"
	dir := testutil.GitRepo(t, map[string]string{"p/x_test.go": src})
	e := reopener(t, dir, stateWithIndex(t))()
	ent, err := e.store.Symbols().File(t.Context(), "p/x_test.go", []byte(src))
	if err != nil || ent == nil {
		t.Fatalf("symbols: %v", err)
	}
	got := usedDefs(src, ent.Defs, []int{startLine(t, src, "func TestX(")})
	if want := []int{startLine(t, src, "func helper(")}; !slices.Equal(got, want) {
		t.Errorf("usedDefs = %v, want %v (a 70-line table and a test are not helpers)", got, want)
	}
	if got := usedDefs(src, ent.Defs, nil); got != nil {
		t.Errorf("usedDefs without focus = %v", got)
	}
}
