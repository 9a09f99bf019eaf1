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

// info is what the optimizer learns of a payload text once and caches by
// content: its hash, size, kinds of lines and signals.
type info struct {
	hash     string
	bytes    int
	lines    int
	signals  []string
	isError  bool // error lines near its head or tail
	isDiff   bool
	isBuild  bool // build or test output
	noisy    bool // ANSI escapes, carriage returns, trailing blanks or repeats
	hasBlob  bool
	errLines int
	repo     int // git status lines
	locs     int // lines with locations
	paths    []string
}

// analyze scans a text once (signal.Analyze).
func analyze(text string) *info {
	a := signal.Analyze(text)
	return &info{
		bytes: a.Bytes, lines: a.Lines, signals: a.Signals, isError: a.IsError, isDiff: a.IsDiff, isBuild: a.IsBuild,
		noisy: a.Noisy, hasBlob: a.HasBlob, errLines: a.ErrLines, repo: a.Repo, locs: a.Locs, paths: a.Paths,
	}
}
