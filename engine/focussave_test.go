package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
)

// TestFocusLinesSymbolsPersisted: a request without code identifiers
// (nothing for matchSymbols) still saves the symbol entries focusLines
// parsed for its large files, so the next process parses none of them.
func TestFocusLinesSymbolsPersisted(t *testing.T) {
	var b strings.Builder
	b.WriteString("import time\n\n")
	for i := range 60 {
		fmt.Fprintf(&b, "def backoff_step_%d(attempt, base):\n    \"\"\"Compute the retry delay of step %d.\"\"\"\n    delay = base * (2 ** attempt) + %d\n    time.sleep(delay / 1000.0)\n    return delay\n\n\n", i, i, i)
	}
	dir := testutil.GitRepo(t, map[string]string{"pkg/retry.py": b.String(), "pkg/other.py": "def other():\n    return 1\n"})
	open := reopener(t, dir, stateWithIndex(t))
	req := PromptRequest{UserRequest: "how are retry delays computed between attempts"}
	if ids := query.Parse(req.UserRequest).Idents; len(ids) > 0 {
		t.Fatalf("request has code identifiers %q", ids)
	}
	e1 := open()
	if _, err := e1.BuildPrompt(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	if e1.store.Symbols().Parses() == 0 {
		t.Fatal("focus lines parsed nothing")
	}
	e2 := open()
	if _, err := e2.BuildPrompt(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	if n := e2.store.Symbols().Parses(); n != 0 {
		t.Errorf("second process parsed %d files, want 0", n)
	}
}
