package mcp

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/treesitter"
)

// TestToolMessageRequest: a body of no known format says so once, with
// what to send in a few words; a body that is not JSON says where, with no
// format hint after it.
func TestToolMessageRequest(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string
	}{
		{"no known format", `{"model":"gpt-4o","prompt":"hi"}`, `compact_history: not a chat, anthropic or responses request (send its "messages" array, or "input" for Responses)`},
		{"not JSON", `{"messages":[}`, `compact_history: the request body is not valid JSON at line 1, column 14, byte 13: invalid character '}' looking for beginning of value; want a JSON object: a Chat Completions, Anthropic Messages or Responses request`},
	}
	for _, tt := range tests {
		_, err := request.Parse([]byte(tt.body), "")
		if err == nil {
			t.Fatalf("%s: parsed", tt.name)
		}
		if got := toolMessage("compact_history", err); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// TestToolMessageTimeout: a parse's own time limit is not reported as the
// call's cancellation; a cancelled or timed-out call still is.
func TestToolMessageTimeout(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"parse time limit", fmt.Errorf("a.rs: %w", &treesitter.TimeoutError{Language: "rust", Timeout: time.Second}), "outline: a.rs: parse rust: timed out after 1s"},
		{"cancelled", fmt.Errorf("a.rs: %w", context.Canceled), "outline: a.rs: context canceled (the call was cancelled)"},
		{"deadline", fmt.Errorf("a.rs: %w", context.DeadlineExceeded), "outline: a.rs: context deadline exceeded (the call was cancelled)"},
	}
	for _, tt := range tests {
		if got := toolMessage("outline", tt.err); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
