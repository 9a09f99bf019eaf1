package mcp

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ctxd/ctxd/treesitter"
)

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
