package engine

import (
	"context"
	"errors"
	"math"
	"runtime/debug"
	"sync"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/cmem"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/prompt"
	"github.com/ctxd/ctxd/tokens"
	"github.com/ctxd/ctxd/treesitter"
	"github.com/ctxd/ctxd/workspace"
)

// The per-file work of the daemon's background analysis (workspace.Analysis
// schedules it): for every source file, what a request that gathers it
// would do and that does not depend on the request:
//
//   - one tree-sitter parse per content, feeding the symbol index (its
//     definitions and references) and the tree-sitter store (the analysis
//     the views render from);
//   - the standard views (no function kept whole), whose check parses'
//     verdicts the store keeps;
//   - the secret scan of the file (the scanner caches clean texts);
//   - the token counts of the file and of its sections at each standard
//     view, with the configured model and format.

// StartAnalysis starts, once, the daemon's background work: reading
// ahead what the first request needs (prepare) and, unless the
// configuration (gather.background_analysis) turned it off, the
// background analysis. It returns at once; Close stops it. The daemon
// calls it when a workspace is first initialized.
func (e *Engine) StartAnalysis() {
	analyser := sync.OnceValue(e.newAnalyser) // on the first file
	e.bg.Start(workspace.AnalysisOptions{
		Prepare: e.prepare,
		Enabled: e.cfg.Gather.BackgroundAnalysis,
		Tree:    e.ws,
		Store:   e.store,
		File: func(ctx context.Context, rel string, text []byte) error {
			return analyser().file(ctx, rel, text)
		},
		History: e.ReadLineHistories,
		Logger:  e.log,
	})
}

// Busy marks a request in flight until the returned function is called:
// the background analysis waits meanwhile (and drops the file it was in
// the middle of, to take it again). The server calls it around every
// method; it is cheap.
func (e *Engine) Busy() (release func()) { return e.bg.Busy() }

// AnalysisStatus returns the background analysis's progress.
func (e *Engine) AnalysisStatus() workspace.AnalysisStatus { return e.bg.Status() }

// prepare loads and starts, right after initialize, what the first
// request would otherwise wait for: the tree's snapshot and git facts
// (the uncommitted diff runs git), the secret scanner's rules (compiled
// in ~0.1 s) and its clean set, and the persisted stores.
// A restarted daemon's first request at 10k files waited over a second
// for these.
func (e *Engine) prepare(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { e.ws.Prepare(ctx, commitsParam(e.cfg.Gather.Commits)) })
	if sc, err := e.store.Secrets(); err == nil {
		sc.Prepare()
	}
	e.store.Symbols()
	e.store.Views()
	e.store.Counts()
	wg.Wait()
}

// analyser is the per-file work of the background analysis.
type analyser struct {
	e       *Engine
	counter tokens.Counter
	format  ctxd.Format
}

func (e *Engine) newAnalyser() *analyser {
	a := &analyser{e: e, format: e.cfg.Format}
	c, _ := tokens.ForModel(e.cfg.Model, e.cfg.ContextWindow)
	a.counter = tokens.Stored(c, e.store.Counts())
	if f, err := ctxd.ParseFormat(string(a.format)); err == nil {
		a.format = f
	}
	return a
}

// errAborted marks a file whose analysis a request interrupted.
var errAborted = errors.New("analysis interrupted")

// file analyses one file as a request gathering it would see it: the
// same text, made safe by sanitizeChunks as a request's chunks are.
func (a *analyser) file(ctx context.Context, rel string, text []byte) error {
	// What the pass parses stays out of the process's caches: requests
	// fill them with what they use.
	ctx = treesitter.WithoutCaches(ctx)
	cs := []ctxd.Chunk{{Source: rel, ChunkType: ctxd.ChunkFile, Content: string(text), Facts: ctxd.Facts{Language: lang.Of(rel)}}}
	sc, err := a.e.store.Secrets()
	if err != nil {
		return err
	}
	if _, _, err := sanitizeChunks(sc, cs, nil); err != nil {
		return err
	}
	c := cs[0]
	content := c.Content
	// The content's block vector too: the views a request makes of it
	// are counted from its blocks (tokens.Prime in compress).
	n := tokens.CountBase(a.counter, content)
	a.counter.Count(prompt.Section(c, a.format))
	if ctx.Err() != nil {
		return errAborted
	}
	src := []byte(content)
	lang := treesitter.Detect(rel, src)
	if lang == "" {
		return nil
	}
	if len(src) >= bigParse {
		// A content whose parse ran out of time (in this pass, for another
		// copy, or before) is not parsed again: the store keeps the
		// verdict (treesitter's timeoutVerdict), and Prepare returns at
		// once.
		defer makeRoom(int64(len(src)) * cTreeBytes)()
	}
	// One parse for the symbol index and the views (none when both have
	// the content already).
	x := a.e.store.Symbols()
	need := !x.Has(lang, src)
	tags, vs, err := treesitter.Prepare(ctx, lang, src, a.e.store.Views(), need)
	if ctx.Err() != nil {
		return errAborted
	}
	if need && tags != nil && err == nil {
		x.Add(lang, src, tags)
	}
	if n >= focusMinTokens && err == nil {
		// What focus lines read of a large file.
		if ent, ferr := x.File(ctx, rel, src); ferr == nil {
			a.e.recordDefTerms(ctx, rel, src, ent)
		}
	}
	for _, v := range orderViews(vs, nil) {
		if ctx.Err() != nil {
			return errAborted
		}
		r := c
		r.Content = v.Text
		r.Truncated, r.Truncation, r.Elided = true, v.Level, v.Elided
		a.counter.Count(prompt.Section(r, a.format))
	}
	if ctx.Err() != nil {
		return errAborted
	}
	return nil
}

// bigParse is the size from which a file's parse makes room for its C
// tree first (makeRoom): tree-sitter's tree of a 3 MB Go file (the Go
// tree's largest) held ~35-70 MB of C heap for seconds, on top of a Go
// heap near its limit (stdlib-100k from scratch: RSS +100 MB).
const bigParse = 512 << 10

// cTreeBytes is about what tree-sitter's C heap takes per source byte
// while a parse's tree lives.
const cTreeBytes = 16

// roomMade is the Go memory limit before makeRoom lowered it, and what
// the parses under way lowered it by.
var roomMade struct {
	sync.Mutex
	n     int   // claims
	base  int64 // the limit before the first
	bytes int64 // the claims' total
}

// makeRoom lowers the Go runtime's soft memory limit (when one is set) by
// n bytes, at most by half, for memory the runtime does not see (a large
// parse's C tree), and returns the function that gives it back and
// returns the C heap's free pages to the system (cmem.Trim).
func makeRoom(n int64) (done func()) {
	r := &roomMade
	set := func() {
		if r.base != math.MaxInt64 {
			debug.SetMemoryLimit(max(r.base-r.bytes, r.base/2))
		}
	}
	r.Lock()
	defer r.Unlock()
	if r.n == 0 {
		r.base = debug.SetMemoryLimit(-1)
	}
	r.n++
	r.bytes += n
	set()
	return func() {
		r.Lock()
		r.n--
		r.bytes -= n
		set()
		r.Unlock()
		cmem.Trim()
	}
}
