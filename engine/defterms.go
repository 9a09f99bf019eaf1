package engine

import (
	"context"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace/tree"
)

// The terms of a large file's definitions (tree.DefTerms, what focus
// lines rank a file's functions by) are read once per content through the
// workspace store (workspace.Store.DefTerms: in memory for the contents a
// process used last, and in a record file beside the symbol index), which
// the daemon's background analysis fills for every large source file, so
// a request on a file it has not seen in this process reads the terms
// instead of scanning the file's definitions again.

// recordDefTerms writes the terms of the focus candidates of a large file
// rel, whose symbol-index entry is ent, to the store unless it has them
// (the background analysis: the memory cache is left to requests).
func (e *Engine) recordDefTerms(ctx context.Context, rel string, content []byte, ent *index.Symbols) {
	if ent == nil {
		return
	}
	e.store.RecordDefTerms(ctx, ent.Hash, content, func() []tree.DefSpan {
		return e.focusCandidates(ctx, rel, content, ent).spans()
	})
}
