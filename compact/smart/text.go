package smart

import "github.com/ctxd/ctxd/compact/signal"

// The line classifier is compact/signal's, shared with the conversation
// pruner; these names keep the optimizer's code short.
var (
	cleanLine    = signal.CleanLine
	splitLines   = signal.SplitLines
	classifyLine = signal.ClassifyLine
	isBlobLine   = signal.IsBlobLine
	locations    = signal.Locations
	normalized   = signal.Normalized
)

const (
	maxViewLineBytes = signal.MaxViewLineBytes
	lineError        = signal.LineError
	lineDiffHead     = signal.LineDiffHead
	lineRepo         = signal.LineRepo
	lineLocation     = signal.LineLocation
)

// Signals returns the critical signals of a text (see signal.Signals).
func Signals(text string) []string { return signal.Signals(text) }

// info is what the optimizer learns of a payload text once (its hash,
// size, kinds of lines and signals); the shared cache keeps it by
// content (request.Cache.Info).
type info = signal.Info
