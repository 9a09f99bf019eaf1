package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/tokens"
)

// TestModelsCommand: `ctxd models` lists every registry model, with its
// window, in a table and as JSON.
func TestModelsCommand(t *testing.T) {
	out, errOut, code := runCtxd(t, t.TempDir(), "", nil, "models")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, m := range tokens.Models() {
		if !strings.Contains(out, m.Name+" ") {
			t.Errorf("table lacks %s", m.Name)
		}
	}
	if !strings.Contains(out, "claude-sonnet-4.5") || !strings.Contains(out, "(estimate)") || !strings.Contains(out, "(exact)") {
		t.Errorf("table:\n%s", out)
	}
	out, errOut, code = runCtxd(t, t.TempDir(), "", nil, "models", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var specs []struct {
		Name          string `json:"name"`
		ContextWindow int    `json:"context_window"`
	}
	if err := json.Unmarshal([]byte(out), &specs); err != nil {
		t.Fatal(err)
	}
	if len(specs) != len(tokens.Models()) || specs[0].ContextWindow <= 0 {
		t.Errorf("json: %d models, first %+v", len(specs), specs[0])
	}
	if _, errOut, code := runCtxd(t, t.TempDir(), "", nil, "models", "extra"); code != 2 || !strings.Contains(errOut, "no arguments") {
		t.Errorf("extra argument: exit %d, %s", code, errOut)
	}
}
