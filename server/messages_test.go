package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/jsonrpc"
)

// history is a Chat request whose old tool outputs are long.
func history(n int) map[string]any {
	msgs := []any{map[string]any{"role": "system", "content": "You are a coding agent."}, map[string]any{"role": "user", "content": "Fix the test."}}
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "read_file", "arguments": `{"path":"a.go"}`}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": strings.Repeat(fmt.Sprintf("line %d of a long file\n", i), 200)})
	}
	msgs = append(msgs, map[string]any{"role": "user", "content": "And now?"})
	return map[string]any{"model": "gpt-4o", "messages": msgs}
}

func TestCompressMessages(t *testing.T) {
	c, r := pipeClient(t, Options{Root: t.TempDir()})
	if m := roundTrip(t, c, r, 1, "initialize", map[string]any{}); m["error"] != nil {
		t.Fatal(m)
	}
	m := roundTrip(t, c, r, 2, "ctx/compressMessages", map[string]any{"request": history(12), "budget": 3000, "window_size": 2})
	if m["error"] != nil {
		t.Fatal(m["error"])
	}
	res := m["result"].(map[string]any)
	rep := res["report"].(map[string]any)
	if rep["fits"] != true || rep["tokens_after"].(float64) > 3000 || rep["format"] != "openai-chat" {
		t.Errorf("report: %v", rep)
	}
	msgs := res["request"].(map[string]any)["messages"].([]any)
	if last := msgs[len(msgs)-1].(map[string]any); last["content"] != "And now?" {
		t.Errorf("latest user turn lost: %v", last)
	}

	m = roundTrip(t, c, r, 3, "ctx/pruneForRetry", map[string]any{"request": history(12), "budget": 3000, "error": "ValueError: invalid input"})
	if m["error"] != nil {
		t.Fatal(m["error"])
	}
	res = m["result"].(map[string]any)
	msgs = res["request"].(map[string]any)["messages"].([]any)
	if last, _ := msgs[len(msgs)-1].(map[string]any)["content"].(string); !strings.Contains(last, "[AUTO-FIX RECOVERY]") || !strings.Contains(last, "ValueError") {
		t.Errorf("no retry note at the end: %v", last)
	}
}

func TestCompressMessagesBadParams(t *testing.T) {
	c, r := pipeClient(t, Options{Root: t.TempDir()})
	if m := roundTrip(t, c, r, 1, "initialize", map[string]any{}); m["error"] != nil {
		t.Fatal(m)
	}
	tests := []struct {
		name   string
		method string
		params any
		want   string
	}{
		{"no request", "ctx/compressMessages", map[string]any{"budget": 10}, "request is required"},
		{"not a request", "ctx/compressMessages", map[string]any{"request": map[string]any{"x": 1}}, "not a chat"},
		{"typo", "ctx/compressMessages", map[string]any{"request": history(1), "windowSize": 2}, "unknown field"},
		{"bad format", "ctx/compressMessages", map[string]any{"request": history(1), "format": "xml"}, "unknown request format"},
		{"negative budget", "ctx/compressMessages", map[string]any{"request": history(1), "budget": -5}, "budget must not be negative"},
		{"empty error", "ctx/pruneForRetry", map[string]any{"request": history(1), "error": " "}, "error text is empty"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := roundTrip(t, c, r, 10+i, tt.method, tt.params)
			e, _ := m["error"].(map[string]any)
			if e == nil || e["code"].(float64) != float64(jsonrpc.InvalidParams) || !strings.Contains(e["message"].(string), tt.want) {
				b, _ := json.Marshal(m)
				t.Errorf("got %s, want invalid params mentioning %q", b, tt.want)
			}
		})
	}
}
