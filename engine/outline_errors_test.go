package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
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

// TestOutlineRefusesStateDirs: ctx/outline, MCP outline and `ctxd outline`
// read a workspace file by path, but never one under .git/, .ctxd/ or a
// state directory set inside the root (checkpoints hold whole
// conversations): they read a full checkpoint before. Text given by the
// client is its own and is outlined.
func TestOutlineRefusesStateDirs(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	for _, f := range []string{".ctxd/sessions/s1.json", "state/sessions/s1.json"} {
		testutil.WriteFiles(t, dir, map[string]string{f: `{"messages": [{"role": "user", "content": "my conversation"}]}` + "\n"})
	}
	e := openEngine(t, dir, Options{StateDir: filepath.Join(dir, "state")})
	for _, p := range []string{".git/config", ".ctxd/sessions/s1.json", "state/sessions/s1.json", "state"} {
		_, err := e.Outline(t.Context(), OutlineRequest{Path: p, Language: "python", Level: "full"})
		if !errors.Is(err, ctxd.ErrInvalidParams) || !strings.Contains(ctxd.Message(err), "state directory") {
			t.Errorf("outline %s: %v, want a refusal naming the state directory", p, err)
		}
	}
	if _, err := e.Outline(t.Context(), OutlineRequest{Path: "main.go", Level: "full"}); err != nil {
		t.Errorf("outline main.go: %v", err)
	}
	text := "package x\n"
	if _, err := e.Outline(t.Context(), OutlineRequest{Path: ".ctxd/x.go", Text: &text, Level: "full"}); err != nil {
		t.Errorf("outline of given text: %v", err)
	}
}
