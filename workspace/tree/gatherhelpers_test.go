package tree_test

import (
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/gather"
	"github.com/ctxd/ctxd/workspace/tree"
	"github.com/ctxd/ctxd/workspace/tree/treetest"
)

// The tests of this external package gather (package gather asks the
// tree for its snapshots): they check what the tree keeps, persists and
// follows as a request sees it. export_test.go lends them the tree's
// internals.

// gatherOf gathers r from w, failing the test on an error.
func gatherOf(t *testing.T, w *tree.Tree, r gather.Request) *gather.Result {
	t.Helper()
	if r.Task == "" {
		r.Task = ctxd.TaskImplement
	}
	res, err := gather.Gather(t.Context(), w, r)
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	return res
}

// sources are the file chunks' sources, sorted.
func sources(res *gather.Result) []string { return treetest.Sources(res.Chunks) }

// chunk returns the chunk of source, nil when none.
func chunk(res *gather.Result, source string) *ctxd.Chunk { return treetest.Chunk(res.Chunks, source) }
