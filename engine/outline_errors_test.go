package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/treesitter"
)

// TestOutlineParseTimeout: a parse that ran out of its time limit is
// named for what it is, a file too large to parse in time, with what to
// do instead, and is a bad parameter (the file), still a deadline for
// callers that tell timeouts apart; it said "outline a.rs: parse rust:
// timed out after 1.874426602s", and MCP added "the call was cancelled".
func TestOutlineParseTimeout(t *testing.T) {
	err := outlineError("src/huge.rs", &treesitter.TimeoutError{Language: "rust", Timeout: 1874426602 * time.Nanosecond})
	want := "src/huge.rs: parse rust: timed out after 1.874s (the file is too large to parse in time; read a range of its lines instead)"
	if got := ctxd.Message(err); got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if !errors.Is(err, ctxd.ErrInvalidParams) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v: want ErrInvalidParams and DeadlineExceeded", err)
	}
}
