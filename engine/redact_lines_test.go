package engine

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestRedactionLinesAreSourceLines: a secret deep in a file that is shown
// as a truncated view (here the function around the cursor kept whole, the
// rest elided) is listed in the envelope's redactions at its line in the
// SOURCE file, never at its line inside the view.
func TestRedactionLinesAreSourceLines(t *testing.T) {
	var b strings.Builder
	b.WriteString("package big\n\n")
	for i := range 120 {
		fmt.Fprintf(&b, "// F%d does step %d of the pipeline.\nfunc F%d(x int) int {\n\ty := x * %d\n\treturn y + %d\n}\n\n", i, i, i, i, i)
	}
	b.WriteString("// Upload sends the report to the bucket.\nfunc Upload() string {\n")
	secretLine := strings.Count(b.String(), "\n") + 1
	b.WriteString("\tkey := \"AKIA454ML6LG4TJFCZ4K\"\n\treturn key\n}\n")
	for i := 120; i < 160; i++ {
		fmt.Fprintf(&b, "// F%d does step %d of the pipeline.\nfunc F%d(x int) int {\n\treturn x + %d\n}\n\n", i, i, i, i)
	}
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{"big.go": b.String()})
	e := newEngine(t, dir)
	env, err := e.BuildPrompt(t.Context(), PromptRequest{
		UserRequest: "fix Upload",
		OpenFiles:   []ctxd.OpenFile{{Path: filepath.Join(dir, "big.go"), Line: secretLine}},
		TokenBudget: &BudgetRequest{Context: 1500},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := chunkOf(env, "big.go")
	if c == nil {
		t.Fatalf("big.go not in the context: %+v", env.Context.Skipped)
	}
	if c.Truncation == "" || c.Truncation == ctxd.ViewFull {
		t.Fatalf("big.go is whole (%q); the test needs a truncated view", c.Truncation)
	}
	if strings.Contains(env.Prompt, "AKIA454ML6LG4TJFCZ4K") {
		t.Fatal("the secret reached the prompt")
	}
	viewLine := 0
	for i, l := range strings.Split(c.Content, "\n") {
		if strings.Contains(l, "[REDACTED ") {
			viewLine = i + 1
		}
	}
	if viewLine == 0 {
		t.Fatalf("the view does not show the redacted line:\n%s", c.Content)
	}
	if viewLine == secretLine {
		t.Fatalf("the view keeps the secret at its source line %d; the test needs a view that moves it", secretLine)
	}
	t.Logf("level %s, secret at source line %d, view line %d", c.Truncation, secretLine, viewLine)
	var got []ctxd.Redaction
	for _, r := range env.Redactions {
		if r.Source == "big.go" {
			got = append(got, r)
		}
	}
	if len(got) != 1 || got[0].Line != secretLine {
		t.Errorf("redactions of big.go = %+v, want one at source line %d (the view shows it at line %d)", got, secretLine, viewLine)
	}
}
