package tree_test

import (
	"sort"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/gather"
	"github.com/ctxd/ctxd/workspace/tree"
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
func sources(res *gather.Result) []string {
	var out []string
	for _, c := range res.Chunks {
		if c.ChunkType == ctxd.ChunkFile {
			out = append(out, c.Source)
		}
	}
	sort.Strings(out)
	return out
}

// chunk returns the chunk of source, nil when none.
func chunk(res *gather.Result, source string) *ctxd.Chunk {
	for i := range res.Chunks {
		if res.Chunks[i].Source == source {
			return &res.Chunks[i]
		}
	}
	return nil
}
