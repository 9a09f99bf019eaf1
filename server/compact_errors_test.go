package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompactionFailsClosedOverRPC: a request carrying a reference whose
// artifact is gone gets CodeUnresolvedReference from both compactors, and
// one that cannot fit at its minimum gets CodeOverBudget.
func TestCompactionFailsClosedOverRPC(t *testing.T) {
	root, call, res := optimized(t, "s")
	rewritten := res["request"]
	if err := os.RemoveAll(filepath.Join(root, ".ctxd", "artifacts")); err != nil {
		t.Fatal(err)
	}
	for i, method := range []string{"ctx/optimizeRequest", "ctx/compressMessages"} {
		m := call(3+i, method, map[string]any{"request": rewritten, "session_id": "s"})
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"].(float64) != float64(CodeUnresolvedReference) {
			b, _ := json.Marshal(m)
			t.Errorf("%s with a missing artifact: %.400s, want code %d", method, b, CodeUnresolvedReference)
		}
	}
	m := call(5, "ctx/compressMessages", map[string]any{"request": history(2), "budget": 5})
	if e, _ := m["error"].(map[string]any); e == nil || e["code"].(float64) != float64(CodeOverBudget) {
		t.Errorf("over budget: %v, want code %d", m, CodeOverBudget)
	}
}

// TestBuildPromptTooSmallForRequest: a budget whose request and context
// parts cannot hold even a cut of the request gets CodeOverBudget with the
// minimum total, not a prompt with an empty request (the new-user trial).
func TestBuildPromptTooSmallForRequest(t *testing.T) {
	root := t.TempDir()
	call := initialized(t, root)
	req := "explain how the router matches a path with parameters and why the wildcard wins"
	m := call(2, "ctx/buildPrompt", map[string]any{"user_request": req, "token_budget": map[string]any{"total": 50}})
	e, _ := m["error"].(map[string]any)
	if e == nil || e["code"].(float64) != float64(CodeOverBudget) {
		t.Fatalf("total 50: %v, want code %d", m, CodeOverBudget)
	}
	if msg, _ := e["message"].(string); !strings.Contains(msg, "minimum total budget") || strings.HasSuffix(msg, "over token budget") {
		t.Errorf("message %q, want the minimum total budget and no sentinel suffix", msg)
	}
	m = call(3, "ctx/buildPrompt", map[string]any{"user_request": req, "token_budget": map[string]any{"total": 2000}})
	if m["error"] != nil {
		t.Errorf("total 2000: %v", m["error"])
	}
}
