package eval

import (
	"context"
	"slices"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compress"
)

// FitCase is the fitter's input of one case at one budget, and what eval
// measures its output against: scripts/fitalloc runs compress.Fit on it
// again with other value constants (compress.Values) and counts the
// changed lines shown (VisibleLines), without gathering again.
type FitCase struct {
	Case   int // 1-based, as FeatureCase's
	Commit string
	Budget int // the request's total budget
	// Answer and Changed are the case's answer files and their changed
	// lines (ChangedLines).
	Answer  []string
	Changed map[string][]int
	// ContextBudget, Task and Format are the fitter's options: its
	// budget, the request's task, and the format its chunks render in
	// (prompt.Section).
	ContextBudget int
	Task          ctxd.TaskType
	Format        ctxd.Format
	// Chunks are the fitter's input in score order, Views each one's
	// structural views as the engine gave them (compress.ViewsFunc).
	Chunks []ctxd.Chunk
	Views  [][]compress.View
	// Seen and Total are the changed lines the engine's own fit showed,
	// Found the answer files it placed: a run again at the same
	// constants must give the same.
	Seen, Total, Found int
}

// fittingHook returns the engine's Fitting callback that records the
// fitter's input into fc, each chunk's views computed as the fitter
// would (ctx: the case's).
func fittingHook(ctx context.Context, fc *FitCase) func([]ctxd.Chunk, compress.Options) {
	return func(cs []ctxd.Chunk, o compress.Options) {
		fc.Chunks = slices.Clone(cs)
		fc.ContextBudget, fc.Task = o.Budget, o.Task
		fc.Views = make([][]compress.View, len(cs))
		if o.Views == nil {
			return
		}
		for i := range fc.Chunks {
			fc.Views[i] = o.Views(ctx, &fc.Chunks[i])
		}
	}
}
