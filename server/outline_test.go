package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/jsonrpc"
)

// TestOutline: ctx/outline answers a file's symbols and, with a level, its
// view; the editor's buffer wins over the disk; bad input gets
// invalid-params.
func TestOutline(t *testing.T) {
	dir := t.TempDir()
	src := "package a\n\n// Serve serves. It blocks.\nfunc Serve() error {\n\ta()\n\tb()\n\tc()\n\td()\n\treturn nil\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CTXD_CONFIG", filepath.Join(dir, "none.toml"))
	c, r := pipeClient(t, Options{})
	if m := roundTrip(t, c, r, 1, "initialize", map[string]any{"root": dir}); m["error"] != nil {
		t.Fatal(m)
	}

	m := roundTrip(t, c, r, 2, "ctx/outline", map[string]any{"path": "a.go", "level": "bodies"})
	res, _ := m["result"].(map[string]any)
	if res == nil {
		t.Fatalf("ctx/outline: %v", m)
	}
	syms, _ := res["symbols"].([]any)
	if len(syms) != 1 || syms[0].(map[string]any)["name"] != "Serve" || syms[0].(map[string]any)["signature"] != "func Serve() error" {
		t.Errorf("symbols = %v", syms)
	}
	view, _ := res["view"].(map[string]any)
	if text, _ := view["text"].(string); !strings.Contains(text, "func Serve() error { /* ... 5 lines */ }") {
		t.Errorf("bodies view = %v", view)
	}
	if res["truncation"] != "bodies" {
		t.Errorf("truncation = %v", res["truncation"])
	}

	notify(t, c, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "file://" + filepath.Join(dir, "a.go"), "languageId": "go", "version": 1, "text": "package a\n\nfunc Unsaved() {}\n"}})
	m = roundTrip(t, c, r, 3, "ctx/outline", map[string]any{"path": "a.go"})
	res, _ = m["result"].(map[string]any)
	if syms, _ := res["symbols"].([]any); len(syms) != 1 || syms[0].(map[string]any)["name"] != "Unsaved" {
		t.Errorf("outline of the unsaved buffer: %v", m)
	}

	for i, params := range []map[string]any{
		{"path": "notes.txt"},
		{"path": "a.go", "level": "tiny"},
		{"path": "a.go", "text": "package a\nfunc (", "level": "signatures"},
		{"path": "a.go", "lvl": "bodies"},
	} {
		m := roundTrip(t, c, r, 10+i, "ctx/outline", params)
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"].(float64) != float64(jsonrpc.InvalidParams) {
			t.Errorf("ctx/outline %v: got %v, want invalid params", params, m)
		}
	}
	// A focus level with no function to keep is refused by the engine's
	// rule, not rendered as an unsupported view (it was a command-line
	// check only).
	m = roundTrip(t, c, r, 19, "ctx/outline", map[string]any{"path": "a.go", "level": "focus"})
	if e, _ := m["error"].(map[string]any); e == nil || e["code"].(float64) != float64(jsonrpc.InvalidParams) || !strings.Contains(e["message"].(string), "need functions to keep") {
		t.Errorf("ctx/outline at level focus without keep_lines: %v", m)
	}
	if m := roundTrip(t, c, r, 21, "ctx/outline", map[string]any{"path": "a.go", "level": "focus", "keep_lines": []int{3}}); m["error"] != nil {
		t.Errorf("ctx/outline at level focus with keep_lines: %v", m)
	}
	m = roundTrip(t, c, r, 20, "ctx/outline", map[string]any{"path": "../outside.go"})
	if e, _ := m["error"].(map[string]any); e == nil || e["code"].(float64) != float64(CodeOutsideWorkspace) {
		t.Errorf("path outside the root: %v", m)
	}
}
