package gather

import (
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/workspace/tree"
	"github.com/ctxd/ctxd/workspace/tree/treetest"

	"github.com/ctxd/ctxd"
)

var update = flag.Bool("update", false, "rewrite golden files")

func newTestWorkspace(t *testing.T, root string, opts tree.Options) *tree.Tree {
	t.Helper()
	return treetest.Open(t, func() (*tree.Tree, error) { return tree.Open(root, opts) })
}

// workspaceOf writes files into a new temporary directory and opens it
// as a workspace with the default options.
func workspaceOf(t *testing.T, files map[string]string) *tree.Tree {
	t.Helper()
	root := t.TempDir()
	testutil.WriteFiles(t, root, files)
	return newTestWorkspace(t, root, tree.Options{})
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
func sources(res *Result) []string { return treetest.Sources(res.Chunks) }

func chunk(res *Result, source string) *ctxd.Chunk { return treetest.Chunk(res.Chunks, source) }

// sourcesWhere returns the sorted sources of res's chunks that keep
// accepts.
func sourcesWhere(res *Result, keep func(*ctxd.Chunk) bool) []string {
	return treetest.SourcesWhere(res.Chunks, keep)
}

// hasReason reports a reason of c that starts with prefix.
func hasReason(c *ctxd.Chunk, prefix string) bool {
	return slices.ContainsFunc(c.Facts.Reasons, func(r string) bool { return strings.HasPrefix(r, prefix) })
}

func ptr[T any](v T) *T { return &v }
