package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart"
)

// rehydrateAll rehydrates every reference in a rewritten request (what
// names it in a failure), keyed by hash; a request with none fails.
func rehydrateAll(t *testing.T, r *Requests, session string, rewritten json.RawMessage, what string) map[string]*artifacts.Lines {
	t.Helper()
	ms := request.ParseMarkers(string(rewritten))
	if len(ms) == 0 {
		t.Fatalf("no reference in the %s request", what)
	}
	out := make(map[string]*artifacts.Lines, len(ms))
	for _, m := range ms {
		l, err := r.Rehydrate(t.Context(), RehydrateRequest{SessionID: session, Hash: m.Hash})
		if err != nil {
			t.Fatalf("rehydrate %s: %v", m.Hash, err)
		}
		out[m.Hash] = l
	}
	return out
}

// chatWithBigOutput is a Chat request whose older tool output is far
// larger than a small window.
func chatWithBigOutput(t *testing.T) []byte {
	t.Helper()
	var sb strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&sb, "pkg/file%d.go:%d: line %d of a long listing with some words in it\n", i%50, i, i)
	}
	msgs := []map[string]any{
		{"role": "system", "content": "You are a coding agent."},
		{"role": "user", "content": "Find the bug."},
		{"role": "assistant", "content": nil, "tool_calls": []map[string]any{{"id": "call_1", "type": "function", "function": map[string]any{"name": "bash", "arguments": `{"cmd":"grep -rn x"}`}}}},
		{"role": "tool", "tool_call_id": "call_1", "content": sb.String()},
		{"role": "assistant", "content": "I looked at the listing."},
		{"role": "user", "content": "Now fix it."},
	}
	b, err := json.Marshal(map[string]any{"model": "gpt-4o", "messages": msgs})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRequestsSeam drives the request flow the CLI and the server call:
// Optimize stores what it removes under the state directory, and every
// reference it emits rehydrates from there.
func TestRequestsSeam(t *testing.T) {
	dir := t.TempDir()
	shadow := smart.Rollout{}
	r, err := NewRequests(RequestsOptions{StateDir: dir, Rollout: &shadow})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	body := chatWithBigOutput(t)
	res, err := r.Optimize(ctx, OptimizeRequest{Request: body, Call: smart.Call{Session: "s1", ContextWindow: 16000}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Request) >= len(body) {
		t.Fatalf("optimize did not shrink the request: %d >= %d bytes", len(res.Request), len(body))
	}
	for hash, l := range rehydrateAll(t, r, "s1", res.Request, "optimized") {
		if !strings.Contains(string(body), strings.ReplaceAll(strings.TrimSpace(l.Text), "\n", `\n`)) {
			t.Errorf("artifact %s is not a part of the original request", hash)
		}
	}
	if _, err := r.Rehydrate(ctx, RehydrateRequest{SessionID: "s1", Hash: strings.Repeat("0", 64)}); !errors.Is(err, ctxd.ErrNotFound) {
		t.Errorf("rehydrate of a missing artifact: %v, want not found", err)
	}
	// Compress over a small budget: what it removes is stored, and each
	// reference rehydrates to the text it replaced.
	cres, err := r.Compress(ctx, CompressRequest{Request: body, SessionID: "s2", Budget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if cres.Report.TokensAfter > 2000 || cres.Report.Session != "s2" {
		t.Fatalf("compress: %d tokens, session %q", cres.Report.TokensAfter, cres.Report.Session)
	}
	for hash, l := range rehydrateAll(t, r, "s2", cres.Request, "compressed") {
		if l.TotalLines < 100 {
			t.Errorf("artifact %s has %d lines, want the whole listing", hash, l.TotalLines)
		}
	}
	for _, bad := range []string{"", "[]", "nope"} {
		if _, err := r.Compress(ctx, CompressRequest{Request: json.RawMessage(bad)}); !errors.Is(err, ctxd.ErrInvalidParams) {
			t.Errorf("compress %q: %v, want invalid params", bad, err)
		}
	}
	n, err := r.CountMessages(ctx, CountRequest{Messages: json.RawMessage(`[{"role":"user","content":"hello"}]`)})
	if err != nil || n.Tokens <= 0 {
		t.Errorf("count messages: %+v, %v", n, err)
	}
}

// TestRequestsWithoutStore: without a state directory Rehydrate fails
// with not found instead of reading anywhere.
func TestRequestsWithoutStore(t *testing.T) {
	r, err := NewRequests(RequestsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Rehydrate(t.Context(), RehydrateRequest{SessionID: "s", Hash: strings.Repeat("a", 64)}); !errors.Is(err, ErrNoStore) {
		t.Errorf("got %v, want ErrNoStore", err)
	}
}

// TestStateDirOption: the engine's state directory comes from its
// options (a relative one under the root), not from the process.
func TestStateDirOption(t *testing.T) {
	t.Setenv(EnvStateDir, "")
	root := t.TempDir()
	e, err := New(root, Options{StateDir: "agent-state"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got, want := e.StateDir(), filepath.Join(root, "agent-state"); got != want {
		t.Errorf("state dir %s, want %s", got, want)
	}
	r, err := e.Requests()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Store().Dir(), filepath.Join(root, "agent-state", "artifacts"); got != want {
		t.Errorf("artifact store %s, want %s", got, want)
	}
}
