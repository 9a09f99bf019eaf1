package tree_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/gather"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/disk"
	"github.com/ctxd/ctxd/workspace/tree"
)

// TestPrefetch: a Gather after Prefetch gives what a Gather alone gives
// (walk, git history, uncommitted and untracked files), also when the
// prefetch was cancelled; a workspace closed with a prefetch under way or
// unused does not hang; a followed workspace does not prefetch.
func TestPrefetch(t *testing.T) {
	root := testutil.IsolatedRepo(t)
	testutil.WriteFiles(t, root, map[string]string{
		"server/keepalive.go": "package server\n\n// keepAlive holds idle connections open.\nfunc keepAlive() {}\n",
		"server/conn.go":      "package server\n\n// conn is one connection.\ntype conn struct{}\n",
		"README.md":           "# server\n",
	})
	tree.GitCommitAll(t, root, "first", "2024-01-01T00:00:00Z")
	testutil.WriteFiles(t, root, map[string]string{
		"server/conn.go": "package server\n\n// conn is one keep-alive connection.\ntype conn struct{ idle bool }\n",
		"server/new.go":  "package server\n\n// newKeepAlive is untracked.\nfunc newKeepAlive() {}\n",
	})
	req := gather.Request{Task: ctxd.TaskDebug, Query: query.Parse("fix keep-alive of idle connections")}
	view := func(res *gather.Result) []string {
		var out []string
		for _, c := range res.Chunks {
			out = append(out, c.Source+"|"+string(c.ChunkType)+"|"+c.Content+"|"+c.Facts.Role)
		}
		return out
	}
	opts := func() tree.Options {
		return tree.Options{State: disk.New(filepath.Dir(filepath.Join(t.TempDir(), "files.idx")))}
	}
	want := view(gatherOf(t, tree.NewTestWorkspace(t, root, opts()), req))
	if !slices.ContainsFunc(want, func(s string) bool { return strings.Contains(s, "idle bool") && strings.HasPrefix(s, "git") }) ||
		!slices.ContainsFunc(want, func(s string) bool { return strings.HasPrefix(s, "server/new.go|") }) {
		t.Fatalf("the request gathers neither the diff nor the untracked file: %q", want)
	}

	w := tree.NewTestWorkspace(t, root, opts())
	w.Prefetch(t.Context(), req.Commits)
	if d := cmp.Diff(want, view(gatherOf(t, w, req))); d != "" {
		t.Errorf("after Prefetch (-alone +prefetched):\n%s", d)
	}
	// A second Prefetch after the first refresh does nothing.
	w.Prefetch(t.Context(), req.Commits)
	if d := cmp.Diff(want, view(gatherOf(t, w, req))); d != "" {
		t.Errorf("second Gather (-alone +got):\n%s", d)
	}

	w = tree.NewTestWorkspace(t, root, opts())
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	w.Prefetch(ctx, req.Commits)
	if d := cmp.Diff(want, view(gatherOf(t, w, req))); d != "" {
		t.Errorf("after a cancelled Prefetch (-alone +got):\n%s", d)
	}

	// Closed without a Gather (the cleanup closes it).
	tree.NewTestWorkspace(t, root, opts()).Prefetch(t.Context(), req.Commits)

	wf := tree.NewTestWorkspace(t, root, tree.Options{Watch: true})
	wf.Prefetch(t.Context(), req.Commits)
	if tree.Prefetched(wf) {
		t.Error("a followed workspace prefetched")
	}
}
