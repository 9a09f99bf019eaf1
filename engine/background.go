package engine

import (
	"context"
	"errors"
	"hash/maphash"
	"math"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/gather"
	"github.com/ctxd/ctxd/internal/cmem"
	"github.com/ctxd/ctxd/prompt"
	"github.com/ctxd/ctxd/tokens"
	"github.com/ctxd/ctxd/treesitter"
)

// Background analysis (the daemon's, never the CLI's): once the file
// index is built, one goroutine does for every source file what a request
// that gathers it would do and that does not depend on the request, so a
// request the daemon has never seen finds its files analysed:
//
//   - one tree-sitter parse per content, feeding the symbol index (its
//     definitions and references) and the tree-sitter store (the analysis
//     the views render from);
//   - the standard views (no function kept whole), whose check parses'
//     verdicts the store keeps;
//   - the secret scan of the file (the scanner caches clean texts);
//   - the token counts of the file and of its sections at each standard
//     view, with the configured model and format.
//
// Every result goes into a cache keyed by content, so a request's output
// is the same whether the analysis ran or not; only its time differs. The
// worker stays out of requests' way: it waits while any request runs
// (Engine.Busy), and a request that starts mid-file makes it drop that
// file's remaining steps and take the file again afterwards. Source files
// go first, tests and test data last, so a partly analysed tree already
// helps.

// AnalysisStatus is the progress of the background analysis.
type AnalysisStatus struct {
	// Enabled is false when the configuration turned it off (or nothing
	// started it: the CLI).
	Enabled bool `json:"enabled"`
	// Analysed counts the source files done (analysed, or skipped as
	// binary or unreadable) of Total.
	Analysed int `json:"analysed"`
	Total    int `json:"total"`
	// Done is set when every file was visited.
	Done bool `json:"done"`
	// TookMS is how long the first pass took, once done.
	TookMS int64 `json:"took_ms,omitempty"`
	// Passes counts the passes that ended: the first, then one per
	// follow-up on files created or edited on disk. A follow-up can end
	// between two polls, so "analysing" may never be seen; a client that
	// edited files waits for Passes to pass the value it read before the
	// edit (an edit of no source file starts no pass).
	Passes int `json:"passes"`
	// Error says why the analysis stopped early (Done is then set, so a
	// client waiting for it does not wait forever).
	Error string `json:"error,omitempty"`
	// Phase names the state for a progress display: "off", "indexing"
	// (the file index is being built or loaded: Total is not known yet),
	// "analysing", "done" or "failed".
	Phase string `json:"phase"`
}

// background is the engine's background analysis.
type background struct {
	// mu guards the fields below; idle is signalled when busy drops to
	// zero or the analysis is stopped.
	mu    sync.Mutex
	idle  *sync.Cond
	busy  int
	abort context.CancelFunc // the current file's, nil between files
	// status is what AnalysisStatus reports.
	status  AnalysisStatus
	started bool
	stop    context.CancelFunc
	wg      sync.WaitGroup
	// ended is closed when the worker returns (done or stopped).
	ended chan struct{}
	// afterFile, when set (tests), runs after each file.
	afterFile func()
}

func (b *background) init() {
	if b.idle == nil {
		b.idle = sync.NewCond(&b.mu)
	}
}

// Busy marks a request in flight until the returned function is called:
// the background analysis waits meanwhile (and drops the file it was in
// the middle of, to take it again). The server calls it around every
// method; it is cheap.
func (e *Engine) Busy() (release func()) {
	b := &e.bg
	b.mu.Lock()
	b.init()
	b.busy++
	if b.abort != nil {
		b.abort()
	}
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.busy--
			if b.busy == 0 {
				b.idle.Broadcast()
			}
			b.mu.Unlock()
		})
	}
}

// AnalysisStatus returns the background analysis's progress.
func (e *Engine) AnalysisStatus() AnalysisStatus {
	e.bg.mu.Lock()
	st := e.bg.status
	e.bg.mu.Unlock()
	switch {
	case !st.Enabled:
		st.Phase = "off"
	case st.Error != "":
		st.Phase = "failed"
	case st.Done:
		st.Phase = "done"
	case st.Total == 0:
		st.Phase = "indexing"
	default:
		st.Phase = "analysing"
	}
	return st
}

// StartAnalysis starts, once, the daemon's background work: reading
// ahead what the first request needs (prepare) and, unless the
// configuration (gather.background_analysis) turned it off, the
// background analysis. It returns at once; Close stops it. The daemon
// calls it when a workspace is first initialized.
func (e *Engine) StartAnalysis() {
	b := &e.bg
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	if b.started {
		return
	}
	b.started = true
	ctx, cancel := context.WithCancel(context.Background())
	b.stop = cancel
	b.wg.Go(func() { e.prepare(ctx) })
	if !e.cfg.Gather.BackgroundAnalysis {
		return
	}
	b.status.Enabled = true
	b.ended = make(chan struct{})
	ended := sync.OnceFunc(func() { close(b.ended) })
	hook := b.afterFile
	b.wg.Go(func() {
		defer ended()
		e.analyseAll(ctx, hook, ended)
	})
}

// prepare loads and starts, right after initialize, what the first
// request would otherwise wait for: the tree's snapshot and git facts
// (the uncommitted diff runs git), the secret scanner's rules (gitleaks
// compiles them in ~0.1 s) and its clean set, and the persisted stores.
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

// stopAnalysis stops the background analysis and waits for it.
func (e *Engine) stopAnalysis() {
	b := &e.bg
	b.mu.Lock()
	if b.stop != nil {
		b.stop()
		b.init()
		b.idle.Broadcast()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

// analyseAll analyses every source file of the tree, then calls
// passEnded and follows the tree (followUp) until ctx ends.
func (e *Engine) analyseAll(ctx context.Context, afterFile, passEnded func()) {
	t0 := time.Now()
	restoreGC := lowerGC()
	defer func() { restoreGC() }()
	// The contents analysed (every file the pass can read), taken before
	// the pass: a change during it is analysed after it.
	upd := e.ws.Updated()
	hashes, err := e.ws.ContentHashes(ctx)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("background analysis not run", "err", err)
			e.analysisFailed(err)
		}
		return
	}
	var srcs, tests []string
	for rel := range hashes {
		if treesitter.Detect(rel, nil) == "" {
			continue
		}
		if gather.IsTestFile(rel) {
			tests = append(tests, rel)
		} else {
			srcs = append(srcs, rel)
		}
	}
	// What followUp compares with, without the map (3.6 MB at 100k files,
	// live for the daemon's life).
	seen := contentSetOf(hashes)
	hashes = nil
	e.bg.mu.Lock()
	e.bg.status.Total = len(srcs) + len(tests)
	e.bg.mu.Unlock()

	a := e.newAnalyser()
	step := func(rel string, text []byte) error {
		for {
			fctx, ok := e.waitIdle(ctx)
			if !ok {
				return ctx.Err()
			}
			err := a.file(fctx, rel, text)
			e.fileDone()
			if err == nil || fctx.Err() == nil || ctx.Err() != nil {
				break
			}
			// A request started mid-file: take the file again once it ends.
		}
		e.bg.mu.Lock()
		e.bg.status.Analysed++
		e.bg.mu.Unlock()
		if afterFile != nil {
			afterFile()
		}
		// As after a request: the store writes at most every
		// workspace.SaveEvery, in the background.
		e.store.Save()
		return ctx.Err()
	}
	for _, list := range [][]string{srcs, tests} {
		slices.Sort(list)
		want := func(rel string) bool {
			_, ok := slices.BinarySearch(list, rel)
			return ok
		}
		err := e.ws.EachText(ctx, want, step)
		if err != nil {
			if ctx.Err() == nil {
				e.log.Warn("background analysis stopped", "err", err)
				e.analysisFailed(err)
			}
			return
		}
	}
	e.analysed(time.Since(t0))
	e.log.Debug("background analysis done", "files", e.AnalysisStatus().Total, "took", time.Since(t0))
	restoreGC()
	restoreGC = func() {}
	passEnded()
	e.followUp(ctx, upd, seen, step)
}

// analysed saves what a pass learned and reports it done; took, when
// not zero, is the first pass's time.
func (e *Engine) analysed(took time.Duration) {
	e.saveAnalysed()
	e.bg.mu.Lock()
	defer e.bg.mu.Unlock()
	e.bg.status.Done = true
	e.bg.status.Analysed = e.bg.status.Total
	e.bg.status.Passes++
	if took > 0 {
		e.bg.status.TookMS = took.Milliseconds()
	}
}

// followUp analyses, after the first pass, the source files whose content
// changes later (an edit, a new file, a checkout), once the workspace has
// taken the change in (its watcher lets a burst of events settle first),
// so the first request after an edit finds the file analysed. seen are
// the contents analysed, with their paths; upd fires on the next change.
// It returns when ctx ends.
func (e *Engine) followUp(ctx context.Context, upd <-chan struct{}, seen contentSet, step func(rel string, text []byte) error) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-upd:
		}
		upd = e.ws.Updated()
		now, err := e.ws.ContentHashes(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			continue // the next change tries again
		}
		want := map[string]bool{}
		for rel, h := range now {
			if !seen.has(rel, h) && treesitter.Detect(rel, nil) != "" {
				want[rel] = true
			}
		}
		seen = contentSetOf(now)
		if len(want) == 0 {
			continue
		}
		e.bg.mu.Lock()
		e.bg.status.Done = false
		e.bg.status.Total += len(want)
		e.bg.mu.Unlock()
		err = e.ws.EachText(ctx, func(rel string) bool { return want[rel] }, step)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			e.log.Warn("background analysis of changed files stopped", "err", err)
		}
		e.analysed(0)
		e.log.Debug("background analysis of changed files done", "files", len(want))
	}
}

// contentSet is a set of (path, content hash) pairs of ContentHashes, as
// sorted 64-bit fingerprints: 8 bytes a file instead of a map entry
// (~36). Two pairs share a fingerprint with a chance of about 2^-64
// (then a changed file is not analysed ahead of a request, which
// analyses it then).
type contentSet []uint64

var contentSeed = maphash.MakeSeed()

// fingerprint mixes the path's hash with the content's.
func fingerprint(rel string, h uint64) uint64 {
	return maphash.String(contentSeed, rel) ^ (h * 0x9E3779B97F4A7C15)
}

func contentSetOf(m map[string]uint64) contentSet {
	s := make(contentSet, 0, len(m))
	for rel, h := range m {
		s = append(s, fingerprint(rel, h))
	}
	slices.Sort(s)
	return s
}

// has reports whether the set holds rel with content hash h.
func (s contentSet) has(rel string, h uint64) bool {
	_, ok := slices.BinarySearch(s, fingerprint(rel, h))
	return ok
}

// analysisFailed records why the analysis stopped, as done.
func (e *Engine) analysisFailed(err error) {
	e.bg.mu.Lock()
	defer e.bg.mu.Unlock()
	e.bg.status.Done = true
	e.bg.status.Error = err.Error()
}

// waitIdle waits until no request runs and returns the context of the
// next file, which a request starting cancels; false when ctx ended.
func (e *Engine) waitIdle(ctx context.Context) (context.Context, bool) {
	b := &e.bg
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.busy > 0 && ctx.Err() == nil {
		b.idle.Wait()
	}
	if ctx.Err() != nil {
		return nil, false
	}
	fctx, cancel := context.WithCancel(ctx)
	b.abort = cancel
	return fctx, true
}

// fileDone releases the current file's context.
func (e *Engine) fileDone() {
	b := &e.bg
	b.mu.Lock()
	if b.abort != nil {
		b.abort()
		b.abort = nil
	}
	b.mu.Unlock()
}

// saveAnalysed writes what a pass of the worker learned (the end of a
// pass is a flush point of the store, as Close is).
func (e *Engine) saveAnalysed() {
	e.store.Compact()
	e.store.Flush()
}

// analyser is the per-file work of the background analysis.
type analyser struct {
	e       *Engine
	counter tokens.Counter
	format  string
}

func (e *Engine) newAnalyser() *analyser {
	a := &analyser{e: e, format: e.cfg.Format}
	c, _ := tokens.ForModel(e.cfg.Model, e.cfg.ContextWindow)
	a.counter = tokens.Stored(c, e.store.Counts())
	if f, err := ctxd.ParseFormat(a.format); err == nil {
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
	cs := []ctxd.Chunk{{Source: rel, ChunkType: ctxd.ChunkFile, Content: string(text), Facts: ctxd.Facts{Language: gather.Language(rel)}}}
	sc, err := a.e.store.Secrets()
	if err != nil {
		return err
	}
	if _, _, err := sanitizeChunks(sc, cs); err != nil {
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

// analysisGCPercent is the collector's heap growth while a background
// analysis runs: the parse garbage of every file of the tree would
// otherwise let the heap grow by the whole default 100% of what the index
// holds (stdlib-10k from scratch: peak RSS 438-459 MB at 100, 364 MB at
// 50; the analysis took 102 s instead of 76-79).
const analysisGCPercent = 50

var gcLowered struct {
	sync.Mutex
	n   int // analyses running
	old int // the percentage before the first
}

// lowerGC sets the collector's percentage to analysisGCPercent, unless it
// is already lower or off (GOGC set by the user), while any analysis runs,
// and returns the function that ends this one's claim.
func lowerGC() (restore func()) {
	g := &gcLowered
	g.Lock()
	defer g.Unlock()
	if g.n == 0 {
		g.old = debug.SetGCPercent(analysisGCPercent)
		if g.old < 0 || g.old <= analysisGCPercent {
			debug.SetGCPercent(g.old)
		}
	}
	g.n++
	return func() {
		g.Lock()
		defer g.Unlock()
		if g.n--; g.n == 0 {
			debug.SetGCPercent(g.old)
		}
	}
}
