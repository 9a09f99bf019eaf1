// Package treetest holds the helpers that the tests of gather and of
// workspace/tree share: opening a real tree over a test directory and
// reading the chunks a request gathered. It imports neither, so that the
// tree's internal tests can use it.
package treetest

import (
	"io"
	"sort"
	"testing"

	"github.com/ctxd/ctxd"
)

// Open opens what open opens (a tree over a test directory), failing the
// test on an error, and closes it when the test ends. It takes the
// opener rather than importing the tree, so that the tree's own tests can
// use it too.
func Open[T io.Closer](t testing.TB, open func() (T, error)) T {
	t.Helper()
	w, err := open()
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

// Sources returns the sorted sources of the file chunks among chunks.
func Sources(chunks []ctxd.Chunk) []string {
	return SourcesWhere(chunks, func(c *ctxd.Chunk) bool { return c.ChunkType == ctxd.ChunkFile })
}

// SourcesWhere returns the sorted sources of the chunks among chunks that
// keep accepts, nil when none.
func SourcesWhere(chunks []ctxd.Chunk, keep func(*ctxd.Chunk) bool) []string {
	var out []string
	for i := range chunks {
		if keep(&chunks[i]) {
			out = append(out, chunks[i].Source)
		}
	}
	sort.Strings(out)
	return out
}

// Chunk returns the chunk of source among chunks, nil when none.
func Chunk(chunks []ctxd.Chunk, source string) *ctxd.Chunk {
	for i := range chunks {
		if chunks[i].Source == source {
			return &chunks[i]
		}
	}
	return nil
}
