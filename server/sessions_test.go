package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/internal/testutil"
)

// sessionClient initializes a connection on a small workspace whose state
// directory is its own .ctxd.
func sessionClient(t *testing.T) (call func(method string, params any) map[string]any, root string) {
	t.Helper()
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{
		"go.mod":       "module example.com/shop\n\ngo 1.26\n",
		"cart/cart.go": "package cart\n\n// Total sums quantities.\nfunc Total(qs []int) int {\n\tn := 0\n\tfor _, q := range qs {\n\t\tn += q\n\t}\n\treturn n\n}\n",
	})
	t.Setenv("CTXD_CONFIG", filepath.Join(dir, "none.toml"))
	t.Setenv(engine.EnvStateDir, "")
	c, r := pipeClient(t, Options{})
	id := 0
	call = func(method string, params any) map[string]any {
		t.Helper()
		id++
		return roundTrip(t, c, r, id, method, params)
	}
	if m := call("initialize", map[string]any{"root": dir}); m["error"] != nil {
		t.Fatal(m)
	}
	root, _ = filepath.EvalSymlinks(dir)
	return call, root
}

func rpcResult(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	if e := m["error"]; e != nil {
		t.Fatalf("error %v", e)
	}
	r, _ := m["result"].(map[string]any)
	return r
}

func TestSessionMethods(t *testing.T) {
	call, root := sessionClient(t)
	hist := []any{
		map[string]any{"role": "user", "content": "make Total skip negative quantities"},
		map[string]any{"role": "assistant", "content": "Editing cart/cart.go."},
	}
	saved := rpcResult(t, call("ctx/checkpoint/save", map[string]any{"session_id": "s1", "user_request": "make Total skip negatives", "task_type": "implement", "conversation_history": hist}))
	if saved["seq"] != 1.0 || saved["state"] != "running" || !strings.HasPrefix(saved["checksum"].(string), "sha256:") {
		t.Errorf("save: %v", saved)
	}
	env := rpcResult(t, call("ctx/buildPrompt", map[string]any{"user_request": "make Total in cart/cart.go skip negative quantities", "session_id": "s1"}))
	if env["session_id"] != "s1" {
		t.Fatalf("envelope: %v", env["session_id"])
	}
	// A save may carry a whole envelope.
	rpcResult(t, call("ctx/checkpoint/save", map[string]any{"session_id": "s2", "envelope": env, "state": "completed"}))

	list := rpcResult(t, call("ctx/sessions/list", nil))
	ss := list["sessions"].([]any)
	if len(ss) != 2 || len(list["problems"].([]any)) != 0 {
		t.Fatalf("list: %v", list)
	}
	if only := rpcResult(t, call("ctx/sessions/list", map[string]any{"state": "running"})); len(only["sessions"].([]any)) != 1 {
		t.Errorf("list running: %v", only)
	}

	rest := rpcResult(t, call("ctx/checkpoint/restore", map[string]any{"session_id": "s1"}))
	cp := rest["checkpoint"].(map[string]any)
	if cp["seq"] != 2.0 || len(cp["conversation_history"].([]any)) != 2 || len(cp["chunks"].([]any)) == 0 {
		t.Errorf("restore: %v", cp)
	}
	if first := rpcResult(t, call("ctx/checkpoint/restore", map[string]any{"session_id": "s1", "seq": 1})); first["checkpoint"].(map[string]any)["seq"] != 1.0 {
		t.Errorf("restore 1: %v", first)
	}
	tl := rpcResult(t, call("ctx/sessions/timeline", map[string]any{"session_id": "s1"}))
	if n := len(tl["entries"].([]any)); n != 2 {
		t.Errorf("timeline: %d entries", n)
	}

	res := rpcResult(t, call("ctx/sessions/resume", map[string]any{}))
	if res["resumed"] != true || res["session_id"] != "s1" || res["envelope"] == nil {
		t.Errorf("resume: %v", res)
	}
	src := res["sources"].([]any)[0].(map[string]any)
	if src["status"] == "" {
		t.Errorf("resume sources: %v", res["sources"])
	}

	fork := rpcResult(t, call("ctx/sessions/fork", map[string]any{"session_id": "s1", "error": "TypeError: cannot read qs", "new_session_id": "s1-retry"}))
	fcp := fork["checkpoint"].(map[string]any)
	h := fcp["conversation_history"].([]any)
	last := h[len(h)-1].(map[string]any)["content"].(string)
	if fork["session_id"] != "s1-retry" || fork["parent"].(map[string]any)["seq"] != 1.0 || !strings.Contains(last, "TypeError: cannot read qs") {
		t.Errorf("fork: %v", fork)
	}

	del := rpcResult(t, call("ctx/sessions/delete", map[string]any{"session_id": "s2"}))
	if del["removed"] != 1.0 {
		t.Errorf("delete: %v", del)
	}
	if _, err := os.Stat(filepath.Join(root, ".ctxd", "sessions", "s2")); !os.IsNotExist(err) {
		t.Errorf("s2 still on disk: %v", err)
	}
}

func TestSessionErrors(t *testing.T) {
	call, root := sessionClient(t)
	rpcResult(t, call("ctx/checkpoint/save", map[string]any{"session_id": "s", "user_request": "x"}))
	rpcResult(t, call("ctx/checkpoint/save", map[string]any{"session_id": "s", "state": "failed"}))
	bad := filepath.Join(root, ".ctxd", "sessions", "s", "000002.json")
	data, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		method string
		params any
		code   int
		says   string
	}{
		{"missing session", "ctx/checkpoint/restore", map[string]any{"session_id": "nope"}, int(CodeNotFound), "nope"},
		{"missing checkpoint", "ctx/checkpoint/restore", map[string]any{"session_id": "s", "seq": 7}, int(CodeNotFound), "checkpoints 1..2"},
		{"corrupt checkpoint", "ctx/checkpoint/restore", map[string]any{"session_id": "s", "seq": 2}, int(CodeCorrupt), "000002.json"},
		{"missing timeline", "ctx/sessions/timeline", map[string]any{"session_id": "nope"}, int(CodeNotFound), "nope"},
		{"missing resume", "ctx/sessions/resume", map[string]any{"session_id": "nope"}, int(CodeNotFound), "nope"},
		{"missing delete", "ctx/sessions/delete", map[string]any{"session_id": "nope"}, int(CodeNotFound), "nope"},
		{"fork without error", "ctx/sessions/fork", map[string]any{"session_id": "s"}, -32602, "error is required"},
		{"save without id", "ctx/checkpoint/save", map[string]any{"state": "running"}, -32602, "session_id is required"},
		{"bad id", "ctx/checkpoint/save", map[string]any{"session_id": "../x"}, -32602, "session id"},
		{"camelCase", "ctx/checkpoint/save", map[string]any{"sessionId": "x"}, -32602, "unknown field"},
		{"bad state", "ctx/sessions/list", map[string]any{"state": "paused"}, -32602, "unknown state"},
		{"history not an array", "ctx/checkpoint/save", map[string]any{"session_id": "s", "conversation_history": "hi"}, -32602, "conversation_history"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, msg := testutil.RPCError(t, call(tt.method, tt.params))
			if c != tt.code || !strings.Contains(msg, tt.says) {
				t.Errorf("got %d %q, want %d saying %q", c, msg, tt.code, tt.says)
			}
		})
	}
	// The corrupt file is reported by list and restore of the latest, and
	// never loaded.
	list := rpcResult(t, call("ctx/sessions/list", nil))
	probs, _ := json.Marshal(list["problems"])
	if len(list["sessions"].([]any)) != 1 || !strings.Contains(string(probs), "000002.json") {
		t.Errorf("list: %v", list)
	}
	rest := rpcResult(t, call("ctx/checkpoint/restore", map[string]any{"session_id": "s"}))
	if rest["checkpoint"].(map[string]any)["seq"] != 1.0 || rest["problems"] == nil {
		t.Errorf("restore latest: %v", rest)
	}
	if _, err := os.Stat(bad); err != nil {
		t.Errorf("the corrupt file is gone: %v", err)
	}
}
