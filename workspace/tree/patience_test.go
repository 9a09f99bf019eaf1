package tree

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/patience"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestGitUnbounded: under a patience.Unbounded context (ctxd eval) a git
// command is not bounded by the limit a request chooses, so the git facts
// a measurement ranks with do not depend on the machine's load; a request
// keeps its limit.
func TestGitUnbounded(t *testing.T) {
	root := testutil.GitRepo(t, map[string]string{"a.go": "package a\n"})
	const tiny = time.Nanosecond // no git command runs in that
	if _, _, err := runGitFor(t.Context(), root, 0, tiny, "rev-parse", "HEAD"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("request: got %v, want a timeout", err)
	}
	var tl patience.Tally
	ctx := patience.Unbounded(t.Context(), &tl)
	out, _, err := runGitFor(ctx, root, 0, tiny, "rev-parse", "HEAD")
	if err != nil || len(strings.TrimSpace(string(out))) != 40 {
		t.Fatalf("eval: got %q, %v, want HEAD's hash", out, err)
	}
	if n := tl.GitTimeouts(); n != 0 {
		t.Errorf("%d git commands counted as timed out, want 0", n)
	}
}
