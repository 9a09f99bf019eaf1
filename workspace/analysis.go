package workspace

import (
	"context"
	"hash/maphash"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/treesitter"
	"github.com/ctxd/ctxd/workspace/tree"
)

// The daemon's background analysis (never the CLI's): once the file index
// is built, one worker does for every source file what a request that
// gathers it would do and that does not depend on the request (the
// engine's per-file work: engine/background.go), so a request the daemon
// has never seen finds its files analysed. Every result goes into the
// store, keyed by content, so a request's output is the same whether the
// analysis ran or not; only its time differs. The worker stays out of
// requests' way: it waits while any request runs ([Analysis.Busy]), and a
// request that starts mid-file makes it drop that file's remaining steps
// and take the file again afterwards. Source files go first, tests and
// test data last, so a partly analysed tree already helps. After the
// first pass it follows the tree: contents created or edited later are
// analysed once the walk took the change in. Before the files, and again
// after each change the walk took in or when a request asks for it
// (Kick: it found HEAD moved; during a pass, before the pass's next
// file), it reads what depends on HEAD alone
// (AnalysisOptions.History: the line histories), which requests use
// once read and never wait for; a request stops that read at most
// historyInterrupts times, then it runs to its end beside them.

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

// Analysis schedules a workspace's background analysis. The zero value is
// ready; it is safe for concurrent use.
type Analysis struct {
	// mu guards the fields below; idle is signalled when busy drops to
	// zero or the analysis is stopped.
	mu    sync.Mutex
	idle  *sync.Cond
	busy  int
	abort context.CancelFunc // the current file's, nil between files
	// status is what Status reports.
	status  AnalysisStatus
	started bool
	stop    context.CancelFunc
	wg      sync.WaitGroup
	// ended is closed when the worker returns (done or stopped).
	ended chan struct{}
	// afterFile, when set, runs after each file (see SetAfterFile).
	afterFile func()
	// kick asks the started analysis to run History (Kick).
	kick chan struct{}
}

func (b *Analysis) init() {
	if b.idle == nil {
		b.idle = sync.NewCond(&b.mu)
	}
	if b.kick == nil {
		b.kick = make(chan struct{}, 1)
	}
}

// AnalysisOptions are what an analysis runs.
type AnalysisOptions struct {
	// Prepare runs first, beside the analysis (reading ahead what the
	// first request needs); nil: nothing.
	Prepare func(ctx context.Context)
	// Enabled starts the analysis itself; without it only Prepare runs
	// and the status says "off".
	Enabled bool
	// Tree is the workspace's walk, Store its facts.
	Tree  *tree.Tree
	Store *Store
	// File analyses one file (its text as a request would read it); an
	// error stops the analysis, unless ctx ended (a request started: the
	// file is taken again).
	File func(ctx context.Context, rel string, text []byte) error
	// History reads what depends on HEAD alone (cheap when it has it
	// already); nil: nothing. An error is logged, nothing else.
	History func(ctx context.Context) error
	Logger  *slog.Logger
}

// run is one started analysis.
type run struct {
	tree      *tree.Tree
	store     *Store
	file      func(ctx context.Context, rel string, text []byte) error
	history   func(ctx context.Context) error
	log       *slog.Logger
	afterFile func()
	passEnded func()
}

// SetAfterFile makes f run after each file the analysis visits (a
// progress display; tests wait on it). Call it before Start.
func (b *Analysis) SetAfterFile(f func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.afterFile = f
}

// Start starts, once, opts.Prepare and, when opts.Enabled, the analysis,
// and returns at once; Stop stops them.
func (b *Analysis) Start(opts AnalysisOptions) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	if b.started {
		return
	}
	b.started = true
	ctx, cancel := context.WithCancel(context.Background())
	b.stop = cancel
	if opts.Prepare != nil {
		b.wg.Go(func() { opts.Prepare(ctx) })
	}
	if !opts.Enabled {
		return
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b.status.Enabled = true
	b.ended = make(chan struct{})
	ended := sync.OnceFunc(func() { close(b.ended) })
	r := run{tree: opts.Tree, store: opts.Store, file: opts.File, history: opts.History, log: log, afterFile: b.afterFile, passEnded: ended}
	b.wg.Go(func() {
		defer ended()
		b.analyseAll(ctx, r)
	})
}

// Ended returns a channel closed when the analysis returned (its first
// pass and follow-ups done, or stopped); nil when it was not started.
func (b *Analysis) Ended() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ended
}

// Stop stops the analysis and waits for it.
func (b *Analysis) Stop() {
	b.mu.Lock()
	if b.stop != nil {
		b.stop()
		b.init()
		b.idle.Broadcast()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

// Busy marks a request in flight until the returned function is called:
// the background analysis waits meanwhile (and drops the file it was in
// the middle of, to take it again). It is cheap.
func (b *Analysis) Busy() (release func()) {
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

// Kick asks the analysis, once no request runs, to run its History step
// (a request found HEAD moved and the line histories not read for it);
// it returns at once and does nothing when no analysis runs.
func (b *Analysis) Kick() {
	b.mu.Lock()
	b.init()
	on := b.status.Enabled
	b.mu.Unlock()
	if !on {
		return
	}
	select {
	case b.kick <- struct{}{}:
	default: // one is pending
	}
}

// historyInterrupts is how many times a request starting stops a
// history read; the next attempt runs to its end beside requests (a
// 0.4-2.3 s log that every request restarted never ended under an
// agent's constant requests).
const historyInterrupts = 1

// history runs r.history when no request runs, again when a request
// starting interrupted it.
func (b *Analysis) history(ctx context.Context, r run) {
	if r.history == nil {
		return
	}
	for tries := 0; ; tries++ {
		fctx, ok := b.waitIdle(ctx)
		if !ok {
			return
		}
		var keep context.CancelFunc // set: no request stops this attempt
		if tries >= historyInterrupts {
			b.mu.Lock()
			keep, b.abort = b.abort, nil
			b.mu.Unlock()
		}
		t0 := time.Now()
		err := r.history(fctx)
		b.fileDone()
		if keep != nil {
			keep()
		}
		if err == nil || fctx.Err() == nil || ctx.Err() != nil {
			if err != nil && ctx.Err() == nil {
				r.log.Debug("background history read failed", "err", err)
			} else if d := time.Since(t0); d > 100*time.Millisecond {
				r.log.Debug("background history read", "took", d)
			}
			return
		}
		// A request started: read it again once it ends.
	}
}

// Status returns the background analysis's progress.
func (b *Analysis) Status() AnalysisStatus {
	b.mu.Lock()
	st := b.status
	b.mu.Unlock()
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

// analyseAll analyses every source file of the tree, then calls
// passEnded and follows the tree (followUp) until ctx ends.
func (b *Analysis) analyseAll(ctx context.Context, r run) {
	t0 := time.Now()
	restoreGC := lowerGC()
	defer func() { restoreGC() }()
	// The contents analysed (every file the pass can read), taken before
	// the pass: a change during it is analysed after it.
	upd := r.tree.Updated()
	hashes, err := r.tree.ContentHashes(ctx)
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("background analysis not run", "err", err)
			b.failed(err)
		}
		return
	}
	var srcs, tests []string
	for rel := range hashes {
		if treesitter.Detect(rel, nil) == "" {
			continue
		}
		if lang.IsTest(rel) {
			tests = append(tests, rel)
		} else {
			srcs = append(srcs, rel)
		}
	}
	// What followUp compares with, without the map (3.6 MB at 100k files,
	// live for the daemon's life).
	seen := contentSetOf(hashes)
	hashes = nil
	b.mu.Lock()
	b.status.Total = len(srcs) + len(tests)
	b.mu.Unlock()
	b.history(ctx, r)

	step := func(rel string, text []byte) error {
		select {
		case <-b.kick:
			// A request found HEAD moved: its line histories before the
			// next file, not after the pass (minutes on a large tree).
			b.history(ctx, r)
		default:
		}
		for {
			fctx, ok := b.waitIdle(ctx)
			if !ok {
				return ctx.Err()
			}
			err := r.file(fctx, rel, text)
			b.fileDone()
			if err == nil || fctx.Err() == nil || ctx.Err() != nil {
				break
			}
			// A request started mid-file: take the file again once it ends.
		}
		b.mu.Lock()
		b.status.Analysed++
		b.mu.Unlock()
		if r.afterFile != nil {
			r.afterFile()
		}
		// As after a request: the store writes at most every
		// workspace.SaveEvery, in the background.
		r.store.Save()
		return ctx.Err()
	}
	for _, list := range [][]string{srcs, tests} {
		slices.Sort(list)
		want := func(rel string) bool {
			_, ok := slices.BinarySearch(list, rel)
			return ok
		}
		err := r.tree.EachText(ctx, want, step)
		if err != nil {
			if ctx.Err() == nil {
				r.log.Warn("background analysis stopped", "err", err)
				b.failed(err)
			}
			return
		}
	}
	b.analysed(r, time.Since(t0))
	r.log.Debug("background analysis done", "files", b.Status().Total, "took", time.Since(t0))
	restoreGC()
	restoreGC = func() {}
	r.passEnded()
	b.followUp(ctx, r, upd, seen, step)
}

// analysed flushes what a pass learned (the end of a pass is a flush
// point of the store, as Close is) and reports it done; took, when
// not zero, is the first pass's time.
func (b *Analysis) analysed(r run, took time.Duration) {
	r.store.Compact()
	r.store.Flush()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.status.Done = true
	b.status.Analysed = b.status.Total
	b.status.Passes++
	if took > 0 {
		b.status.TookMS = took.Milliseconds()
	}
}

// followUp analyses, after the first pass, the source files whose content
// changes later (an edit, a new file, a checkout), once the workspace has
// taken the change in (its watcher lets a burst of events settle first),
// so the first request after an edit finds the file analysed. seen are
// the contents analysed, with their paths; upd fires on the next change.
// It returns when ctx ends.
func (b *Analysis) followUp(ctx context.Context, r run, upd <-chan struct{}, seen contentSet, step func(rel string, text []byte) error) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.kick:
			b.history(ctx, r)
			continue
		case <-upd:
		}
		upd = r.tree.Updated()
		b.history(ctx, r) // a checkout moves HEAD
		now, err := r.tree.ContentHashes(ctx)
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
		b.mu.Lock()
		b.status.Done = false
		b.status.Total += len(want)
		b.mu.Unlock()
		err = r.tree.EachText(ctx, func(rel string) bool { return want[rel] }, step)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			r.log.Warn("background analysis of changed files stopped", "err", err)
		}
		b.analysed(r, 0)
		r.log.Debug("background analysis of changed files done", "files", len(want))
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

// failed records why the analysis stopped, as done.
func (b *Analysis) failed(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.status.Done = true
	b.status.Error = err.Error()
}

// waitIdle waits until no request runs and returns the context of the
// next file, which a request starting cancels; false when ctx ended.
func (b *Analysis) waitIdle(ctx context.Context) (context.Context, bool) {
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
func (b *Analysis) fileDone() {
	b.mu.Lock()
	if b.abort != nil {
		b.abort()
		b.abort = nil
	}
	b.mu.Unlock()
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
