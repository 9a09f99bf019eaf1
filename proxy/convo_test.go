package proxy_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// The routes and their conversations.
var formats = []struct {
	name, path string
}{
	{"chat", "/v1/chat/completions"},
	{"responses", "/v1/responses"},
	{"anthropic", "/v1/messages"},
}

// paysRounds is the length of a convo whose first request the proxy
// masks: its reads (about 9,000 tokens each) all name big.go, so they
// stay in play until the horizon (4), and a step pays when what it
// saves over 15 turns at a tenth beats re-sending the four whole reads
// after its cut; with 6 rounds two masked reads do not (nothing cached
// is lost by forwarding them whole), with 8 four do.
const paysRounds = 8

// convo returns a request of the format with rounds tool calls and their
// outputs, ending with a user turn; stream sets "stream": true.
func convo(t testing.TB, format string, rounds int, stream bool) []byte {
	t.Helper()
	const system, first, last = "You are a coding agent.", "Run the tests and fix the failures.", "Now fix pkg3 & keep <the> API."
	cmd := func(i int) string { return fmt.Sprintf(`{"cmd":"cat pkg%d/big.go"}`, i) }
	var v map[string]any
	switch format {
	case "chat":
		msgs := []any{map[string]any{"role": "system", "content": system}, map[string]any{"role": "user", "content": first}}
		for i := range rounds {
			id := fmt.Sprintf("call_%d", i)
			msgs = append(msgs,
				map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "run_shell", "arguments": cmd(i)}}}},
				map[string]any{"role": "tool", "tool_call_id": id, "content": testutil.ToolOutput(i)})
		}
		msgs = append(msgs, map[string]any{"role": "user", "content": last})
		v = map[string]any{"model": "gpt-4o", "messages": msgs}
	case "responses":
		items := []any{map[string]any{"role": "user", "content": first}}
		for i := range rounds {
			id := fmt.Sprintf("call_%d", i)
			items = append(items,
				map[string]any{"type": "function_call", "call_id": id, "name": "run_shell", "arguments": cmd(i)},
				map[string]any{"type": "function_call_output", "call_id": id, "output": testutil.ToolOutput(i)})
		}
		items = append(items, map[string]any{"role": "user", "content": last})
		v = map[string]any{"model": "gpt-4o", "instructions": system, "input": items}
	case "anthropic":
		msgs := []any{map[string]any{"role": "user", "content": first}}
		for i := range rounds {
			id := fmt.Sprintf("toolu_%d", i)
			msgs = append(msgs,
				map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": id, "name": "run_shell", "input": map[string]any{"cmd": fmt.Sprintf("cat pkg%d/big.go", i)}}}},
				map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": testutil.ToolOutput(i)}}})
		}
		msgs = append(msgs, map[string]any{"role": "user", "content": last})
		v = map[string]any{"model": "claude-sonnet-4-20250514", "max_tokens": 1024, "system": system, "messages": msgs}
	default:
		t.Fatalf("unknown format %q", format)
	}
	if stream {
		v["stream"] = true
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// items returns a request's message list (messages, or input), each
// element's bytes exactly as in body.
func items(t testing.TB, body []byte) []json.RawMessage {
	t.Helper()
	var v struct {
		Messages []json.RawMessage `json:"messages"`
		Input    []json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("body is not a valid request: %v", err)
	}
	if v.Messages != nil {
		return v.Messages
	}
	return v.Input
}

// checkPairs fails unless every tool call of the request has exactly one
// result and every result follows its call.
func checkPairs(t testing.TB, body []byte) {
	t.Helper()
	calls, results := map[string]int{}, map[string]int{}
	for i, raw := range items(t, body) {
		var m struct {
			Type       string `json:"type"`
			CallID     string `json:"call_id"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		for _, c := range m.ToolCalls {
			calls[c.ID] = i
		}
		switch m.Type {
		case "function_call":
			calls[m.CallID] = i
		case "function_call_output":
			results[m.CallID] = i
		}
		if m.ToolCallID != "" {
			results[m.ToolCallID] = i
		}
		var blocks []struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			ToolUseID string `json:"tool_use_id"`
		}
		if json.Unmarshal(m.Content, &blocks) == nil {
			for _, b := range blocks {
				switch b.Type {
				case "tool_use":
					calls[b.ID] = i
				case "tool_result":
					results[b.ToolUseID] = i
				}
			}
		}
	}
	if len(calls) == 0 || len(calls) != len(results) {
		t.Errorf("%d tool calls, %d results", len(calls), len(results))
	}
	for id, at := range calls {
		if r, ok := results[id]; !ok || r <= at {
			t.Errorf("tool call %s (item %d) has no result after it", id, at)
		}
	}
}
