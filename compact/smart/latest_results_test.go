package smart

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestLatestToolResultsFit: in Anthropic Messages the newest tool results
// ride in the latest user-role item; that item's results are outputs like
// a Chat tool message, so a large newest output is condensed under
// pressure instead of keeping the request over the window, while the
// user's own latest text stays exact. Chat is the reference: its newest
// tool message was already condensable.
func TestLatestToolResultsFit(t *testing.T) {
	var out strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&out, "tests/test_case_%d.py:%d: assertion %d failed with value %d\n", i%37, i, i*7, i*13)
	}
	big := out.String()
	msg := func(role string, content any) map[string]any { return map[string]any{"role": role, "content": content} }
	anthropic := map[string]any{
		"model":      "claude-sonnet-4",
		"max_tokens": 1024,
		"system":     "You are a coding agent.",
		"messages": []any{
			msg("user", "Fix the failing parser tests in tests/; keep this exact."),
			msg("assistant", []any{map[string]any{"type": "tool_use", "id": "t1", "name": "bash", "input": map[string]any{"command": "pytest -q"}}}),
			msg("user", []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": big}}),
		},
	}
	// The same newest output after 150 older rounds: with every older
	// output behind its reference the request is still over, so older
	// rounds are evicted; what no eviction removes counts the newest
	// output as reduced, not as sent (it counted whole, and the proxy
	// stepped aside with the request 47-87k tokens over a 16k window).
	var long []any
	long = append(long, msg("user", "Fix the failing parser tests in tests/; keep this exact."))
	for i := range 150 {
		id := fmt.Sprintf("r%d", i)
		long = append(long,
			msg("assistant", []any{map[string]any{"type": "tool_use", "id": id, "name": "bash", "input": map[string]any{"command": fmt.Sprintf("ls -la src/module_%d", i)}}}),
			msg("user", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": strings.Repeat(fmt.Sprintf("-rw-r--r-- 1 dev dev %d src/module_%d/file.py\n", i*31, i), 40)}}))
	}
	long = append(long, anthropic["messages"].([]any)[1:]...)
	withRounds := map[string]any{"model": anthropic["model"], "max_tokens": 1024, "system": anthropic["system"], "messages": long}
	for _, tc := range []struct {
		name string
		req  map[string]any
	}{{"newest output alone", anthropic}, {"after 150 older rounds", withRounds}} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := json.Marshal(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			o := New(Options{Store: newStore(t)})
			res := optimize(t, o, body, Call{ContextWindow: 16000})
			if !res.Report.Fits {
				t.Fatalf("the request does not fit a 16k window: %+v", res.Report.Telemetry)
			}
			if !strings.Contains(string(res.Body), "Fix the failing parser tests in tests/; keep this exact.") {
				t.Error("the user's latest text was changed")
			}
			if !strings.Contains(string(res.Body), `"tool_use_id":"t1"`) {
				t.Error("the tool result lost its pairing")
			}
			if len(res.Body) >= len(body)/2 {
				t.Errorf("body %d bytes of %d: the newest output was not condensed", len(res.Body), len(body))
			}
		})
	}
}
