package gather

import (
	"flag"
	"sort"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/workspace/tree"

	"github.com/ctxd/ctxd"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The git helpers are testutil's (shared with workspace/tree's tests).
var (
	isolateGit   = testutil.IsolateGit
	gitCmd       = testutil.GitIn
	gitInit      = testutil.GitInit
	gitCommitAll = testutil.GitCommitDated
)

func newTestWorkspace(t *testing.T, root string, opts tree.Options) *tree.Tree {
	t.Helper()
	w, err := tree.Open(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	return w
}

func gather(t *testing.T, w *tree.Tree, r Request) *Result {
	t.Helper()
	if r.Task == "" {
		r.Task = ctxd.TaskImplement
	}
	res, err := Gather(t.Context(), w, r)
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	return res
}

// sources returns the sorted sources of the file chunks of a result.
func sources(res *Result) []string {
	var out []string
	for _, c := range res.Chunks {
		if c.ChunkType == ctxd.ChunkFile {
			out = append(out, c.Source)
		}
	}
	sort.Strings(out)
	return out
}

func chunk(res *Result, source string) *ctxd.Chunk {
	for i := range res.Chunks {
		if res.Chunks[i].Source == source {
			return &res.Chunks[i]
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
