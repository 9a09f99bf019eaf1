package server

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/jsonrpc"

	"github.com/ctxd/ctxd/artifacts"
)

func initialized(t *testing.T, root string) func(id int, method string, params any) map[string]any {
	t.Helper()
	c, r := pipeClient(t, Options{Root: root})
	if m := roundTrip(t, c, r, 1, "initialize", map[string]any{}); m["error"] != nil {
		t.Fatal(m)
	}
	return func(id int, method string, params any) map[string]any {
		t.Helper()
		return roundTrip(t, c, r, id, method, params)
	}
}

// optimized initializes a server over a new workspace and sends it
// ctx/optimizeRequest (id 2) for history(12) in session, failing the test
// on an error reply. It returns the workspace, the call function for
// what follows and the result.
func optimized(t *testing.T, session string) (string, func(id int, method string, params any) map[string]any, map[string]any) {
	t.Helper()
	root := t.TempDir()
	call := initialized(t, root)
	m := call(2, "ctx/optimizeRequest", map[string]any{"request": history(12), "session_id": session})
	if m["error"] != nil {
		t.Fatal(m["error"])
	}
	return root, call, m["result"].(map[string]any)
}

func TestOptimizeRequestAndRehydrate(t *testing.T) {
	root, call, res := optimized(t, "agent-1")
	rep := res["report"].(map[string]any)
	if rep["applied"] != true || rep["estimated_tokens_after"].(float64) >= rep["estimated_tokens_before"].(float64) {
		t.Fatalf("report: %v", rep)
	}
	if rep["session_id"] != "agent-1" || rep["rollout_mode"] != "optimize" || rep["format"] != "openai-chat" {
		t.Errorf("report: session %v mode %v format %v", rep["session_id"], rep["rollout_mode"], rep["format"])
	}
	msgs := res["request"].(map[string]any)["messages"].([]any)
	if len(msgs) != len(history(12)["messages"].([]any)) {
		t.Fatalf("%d messages", len(msgs))
	}
	arts, _ := rep["artifacts"].([]any)
	if len(arts) == 0 {
		t.Fatal("no artifacts")
	}
	// Artifacts live under the workspace's state directory.
	if files, _ := filepath.Glob(filepath.Join(root, ".ctxd", "artifacts", "*", "*")); len(files) == 0 {
		t.Error("no artifact files under .ctxd/artifacts")
	}
	hash := arts[0].(map[string]any)["sha256"].(string)
	m := call(3, "ctx/rehydrate", map[string]any{"session_id": "agent-1", "hash": hash[:16], "start_line": 2, "end_line": 3})
	if m["error"] != nil {
		t.Fatal(m["error"])
	}
	l := m["result"].(map[string]any)
	if l["sha256"] != hash || l["start_line"] != 2.0 || l["end_line"] != 3.0 || strings.Count(l["text"].(string), "\n") != 2 {
		t.Errorf("rehydrate: %v", l)
	}
	// The same hash is not readable from another session.
	m = call(4, "ctx/rehydrate", map[string]any{"session_id": "agent-2", "hash": hash})
	if e, _ := m["error"].(map[string]any); e == nil || e["code"].(float64) != float64(CodeNotFound) {
		t.Errorf("other session: %v", m)
	}
	// Exact mode returns the same request.
	m = call(5, "ctx/optimizeRequest", map[string]any{"request": history(12), "session_id": "agent-1", "mode": "exact"})
	got, _ := json.Marshal(m["result"].(map[string]any)["request"])
	want, _ := json.Marshal(history(12))
	if string(got) != string(want) {
		t.Error("exact mode changed the request")
	}
}

func TestRestartKeepsArtifactsOverRPC(t *testing.T) {
	root, _, res := optimized(t, "s")
	hash := res["report"].(map[string]any)["artifacts"].([]any)[0].(map[string]any)["sha256"].(string)
	second := initialized(t, root) // a new server over the same state directory
	m := second(2, "ctx/rehydrate", map[string]any{"session_id": "s", "hash": hash})
	if m["error"] != nil {
		t.Fatalf("after restart: %v", m["error"])
	}
	if text := m["result"].(map[string]any)["text"].(string); artifacts.Hash([]byte(text)) != hash {
		t.Error("rehydrated text does not match its hash")
	}
}

func TestShadowFromEnvironment(t *testing.T) {
	t.Setenv("CTXD_SMART_CONTEXT_SHADOW", "1")
	root, _, res := optimized(t, "s")
	rep := res["report"].(map[string]any)
	if rep["rollout_mode"] != "shadow" || rep["applied"] != false {
		t.Errorf("report: %v", rep)
	}
	if _, err := os.Stat(filepath.Join(root, ".ctxd", "artifacts")); !os.IsNotExist(err) {
		t.Errorf("shadow mode wrote artifacts: %v", err)
	}
}

func TestOptimizeBadParams(t *testing.T) {
	root, call, res := optimized(t, "s")
	arts := res["report"].(map[string]any)["artifacts"].([]any)
	if len(arts) < 2 {
		t.Fatalf("%d artifacts", len(arts))
	}
	hash := arts[0].(map[string]any)["sha256"].(string)
	bad := arts[1].(map[string]any)["sha256"].(string)
	// Flip a byte of bad's content in the session's pack.
	pack := artifacts.PackPath(filepath.Join(root, ".ctxd", "artifacts"), "s")
	b, err := os.ReadFile(pack)
	raw, _ := hex.DecodeString(bad)
	i := bytes.Index(b, raw)
	if err != nil || i < 4 {
		t.Fatalf("record of the artifact not found: %v", err)
	}
	b[i-4+artifacts.RecordHeaderSize] ^= 1
	if err := os.WriteFile(pack, b, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		method string
		params any
		code   jsonrpc.Code
		want   string
	}{
		{"no request", "ctx/optimizeRequest", map[string]any{"session_id": "s"}, jsonrpc.InvalidParams, "request is required"},
		{"bad mode", "ctx/optimizeRequest", map[string]any{"request": history(1), "mode": "fast"}, jsonrpc.InvalidParams, "unknown mode"},
		{"bad session", "ctx/optimizeRequest", map[string]any{"request": history(1), "session_id": "../x"}, jsonrpc.InvalidParams, "session id"},
		{"typo", "ctx/optimizeRequest", map[string]any{"request": history(1), "sessionId": "s"}, jsonrpc.InvalidParams, "unknown field"},
		{"not a request", "ctx/optimizeRequest", map[string]any{"request": map[string]any{"x": 1}}, jsonrpc.InvalidParams, "not a chat"},
		{"no hash", "ctx/rehydrate", map[string]any{"session_id": "s"}, jsonrpc.InvalidParams, "hash are required"},
		{"short hash", "ctx/rehydrate", map[string]any{"session_id": "s", "hash": "abc"}, jsonrpc.InvalidParams, "prefix of at least 12"},
		{"bad range", "ctx/rehydrate", map[string]any{"session_id": "s", "hash": hash, "start_line": 5, "end_line": 2}, jsonrpc.InvalidParams, "before start_line"},
		{"past the end", "ctx/rehydrate", map[string]any{"session_id": "s", "hash": hash, "start_line": 100000}, jsonrpc.InvalidParams, "past the end"},
		{"unknown hash", "ctx/rehydrate", map[string]any{"session_id": "s", "hash": strings.Repeat("0", 64)}, CodeNotFound, "not stored"},
		{"corrupt", "ctx/rehydrate", map[string]any{"session_id": "s", "hash": bad}, CodeCorrupt, "does not verify"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := call(10+i, tt.method, tt.params)
			e, _ := m["error"].(map[string]any)
			if e == nil || e["code"].(float64) != float64(tt.code) || !strings.Contains(e["message"].(string), tt.want) {
				b, _ := json.Marshal(m)
				t.Errorf("got %s, want code %d mentioning %q", b, tt.code, tt.want)
			}
		})
	}
}

func TestOptimizeUsesConnectionModel(t *testing.T) {
	c, r := pipeClient(t, Options{Root: t.TempDir()})
	if m := roundTrip(t, c, r, 1, "initialize", map[string]any{"model": "claude-sonnet-4.5"}); m["error"] != nil {
		t.Fatal(m)
	}
	req := history(4)
	delete(req, "model")
	m := roundTrip(t, c, r, 2, "ctx/optimizeRequest", map[string]any{"request": req, "session_id": "s"})
	if m["error"] != nil {
		t.Fatal(m["error"])
	}
	rep := m["result"].(map[string]any)["report"].(map[string]any)
	if rep["model"] != "claude-sonnet-4.5" || rep["model_context_window_tokens"] != 200000.0 {
		t.Errorf("model %v window %v, want the connection's claude-sonnet-4.5", rep["model"], rep["model_context_window_tokens"])
	}
}
