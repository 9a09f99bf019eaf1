package tree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/lang"
)

// termsVersion names the lexical term extractor; a persisted index made
// by another one is stale. Bump it when term extraction changes.
const termsVersion = 6 // 2: definitions field and generated marker; 3: minified files indexed from their head; 4: members assigned a function are definitions; 5: one generated-file rule (lang.GeneratedHead: 2 KiB, any-case generator notes); 6: a Python `from m import (` over lines yields m.a for every name (lang.ImportsAt), not those of its first line alone

// Timings of the background work of a followed workspace.
const (
	settleDelay    = 50 * time.Millisecond // events are let settle before refreshing
	reconcileEvery = 2 * time.Minute       // a full walk catches events the watcher missed
)

// follower is the state a workspace keeps to avoid work between requests:
// the watcher, the persisted index loaded for the first walk, the git
// facts cache and the background refresher.
type follower struct {
	watcher *index.Watcher // nil: no watching (CLI, or it failed to start)

	mu        sync.Mutex
	forceWalk bool            // the last walk failed, or reconciliation is due
	loaded    *index.Snapshot // the persisted index, until the first walk
	loadTried bool
	gitCache  map[int]*gitCached // by commits asked for
	lastN     int                // commits of the last request, for the background refresh
	// gitFlights are the git facts being read, by commits asked for.
	gitFlights map[int]*gitFlight

	saveMu  sync.Mutex // serializes index writes
	saveWG  sync.WaitGroup
	kick    chan struct{}
	cancel  context.CancelFunc
	bgWG    sync.WaitGroup
	started bool

	reused, lastReused int // files whose persisted facts the current / last walk reused
}

// gitCached is git facts valid while the watcher's generation is gen.
type gitCached struct {
	gen   uint64
	info  *GitInfo
	warns []string
}

// gitFlight is a read of git facts in progress for the watcher's
// generation gen; done is closed when it ends, got then holds what it
// read (nil: it was cancelled).
type gitFlight struct {
	gen  uint64
	done chan struct{}
	got  *gitCached
}

func (f *follower) mustWalk() {
	f.mu.Lock()
	f.forceWalk = true
	f.mu.Unlock()
}

// walked records a successful walk: the watcher now watches exactly the
// directories it entered, and the persisted index is no longer needed.
func (f *follower) walked(dirs []string) {
	f.mu.Lock()
	f.forceWalk = false
	f.loaded = nil
	f.mu.Unlock()
	// The next walk starts a new count.
	defer func() { f.mu.Lock(); f.lastReused, f.reused = f.reused, 0; f.mu.Unlock() }()
	if f.watcher != nil && f.watcher.Sync(dirs) > 0 {
		// What changed in the new directories before they were watched is
		// caught by one more walk, in the background.
		f.mustWalk()
		select {
		case f.kick <- struct{}{}:
		default:
		}
	}
}

// watchDir watches a directory the walk is about to list.
func (f *follower) watchDir(abs string) {
	if f.watcher != nil {
		f.watcher.Add(abs)
	}
}

// usable reports a watcher that sees every change.
func (f *follower) usable() bool {
	return f.watcher != nil && f.watcher.Degraded() == ""
}

// startFollowing starts the watcher and the background refresher when the
// options ask for them. A watcher that cannot start is logged; the
// workspace then walks on every request.
func (w *Tree) startFollowing() {
	f := &w.follow
	if !w.opts.Watch {
		return
	}
	gitDir := ""
	if top := gitTop(w.root); top != "" {
		if d, _ := findGitDir(top); d != "" {
			gitDir = d
		}
	}
	f.kick = make(chan struct{}, 1)
	wa, err := index.Watch(w.root, index.WatchOptions{
		GitDir: gitDir,
		Skip: func(rel string) bool {
			return w.InStateDir(rel)
		},
		OnChange: func() {
			select {
			case f.kick <- struct{}{}:
			default:
			}
		},
		MaxWatches: w.opts.MaxWatches,
		Logger:     w.log,
	})
	if err != nil {
		w.log.Warn("file watching unavailable: every request walks the tree", "err", err)
		return
	}
	f.watcher = wa
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	f.started = true
	f.bgWG.Go(func() { w.background(ctx) })
}

// stopFollowing stops the background work; the writes it started are
// Close's to wait for, after the file graphs' (which start writes too).
func (w *Tree) stopFollowing() {
	f := &w.follow
	if f.started {
		f.cancel()
		f.bgWG.Wait()
		f.watcher.Close()
		f.started = false
	}
}

// background refreshes the snapshot, the git facts and the file graph
// after changes settle, so the next request finds them ready, and reconciles with a full walk
// now and then.
func (w *Tree) background(ctx context.Context) {
	f := &w.follow
	tick := time.NewTicker(reconcileEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			f.mustWalk()
		case <-f.kick:
			// Let a burst of events (a checkout, a save) settle.
			for settled := false; !settled; {
				select {
				case <-ctx.Done():
					return
				case <-f.kick:
				case <-time.After(settleDelay):
					settled = true
				}
			}
		}
		w.snapMu.Lock()
		have := w.snap != nil
		w.snapMu.Unlock()
		if !have {
			continue // nothing requested yet: nothing to keep warm
		}
		s, err := w.refresh(ctx)
		if err != nil {
			continue
		}
		f.mu.Lock()
		n := f.lastN
		f.mu.Unlock()
		if n != 0 && !s.blocksGit() {
			w.gitFacts(ctx, n, func() *Snapshot { return s })
		}
		// The file graph of the new snapshot, off the request path too.
		s.Links(ctx, w)
	}
}

// followChanges answers a refresh from the watcher when it can: nothing
// changed gives prev again; only known files changed are restated and
// re-read. It returns false when a full walk is needed.
func (w *Tree) followChanges(ctx context.Context, prev *Snapshot) (*Snapshot, bool) {
	f := &w.follow
	if prev == nil || !f.usable() {
		return nil, false
	}
	f.mu.Lock()
	force := f.forceWalk
	f.mu.Unlock()
	ch := f.watcher.Take()
	if force || ch.Rescan {
		return nil, false
	}
	if len(ch.Paths) == 0 {
		return prev, true
	}
	started := time.Now()
	files := make([]*File, 0, len(prev.Files))
	changed := map[string]*File{}
	gone := map[string]bool{}
	for _, rel := range ch.Paths {
		old := prev.ByRel[rel]
		abs := filepath.Join(w.root, filepath.FromSlash(rel))
		st, err := os.Lstat(abs)
		switch {
		case old == nil && errors.Is(err, fs.ErrNotExist):
			// Created and removed again, or an ignored file: nothing to do.
		case old == nil:
			// A new file: only a walk knows whether ignore rules keep it.
			f.mustWalk()
			return nil, false
		case errors.Is(err, fs.ErrNotExist):
			gone[rel] = true
		case err != nil || !st.Mode().IsRegular():
			f.mustWalk()
			return nil, false
		case !old.sameStat(st):
			changed[rel] = w.newFileInfo(rel, st)
		}
	}
	if len(changed) == 0 && len(gone) == 0 {
		return prev, true
	}
	var fresh []*File
	for _, fi := range prev.Files {
		if gone[fi.Rel] {
			continue
		}
		if c := changed[fi.Rel]; c != nil {
			fi = c
			fresh = append(fresh, c)
		}
		files = append(files, fi)
	}
	if _, err := w.indexFiles(ctx, fresh); err != nil {
		f.mustWalk()
		return nil, false
	}
	s := newSnapshot(files, prev.Index, w.opts.Watch)
	s.dirs, s.warnings, s.gitBlocked, s.stateRel = prev.dirs, prev.warnings, prev.gitBlocked, prev.stateRel
	w.snapMu.Lock()
	w.snap = s
	w.snapMu.Unlock()
	w.updated()
	w.persist(s, started, len(fresh))
	w.log.Debug("workspace updated from events", keyFiles, len(files), "changed", len(changed), "removed", len(gone))
	return s, true
}

// gitFacts returns the git facts for a request, from the cache when the
// watcher has seen no change since they were read; a request arriving
// while the same facts are being read (by Prepare or another request)
// waits for that read instead of running git again.
// snap returns the snapshot the untracked files are filtered by; it may
// block until the snapshot is ready.
func (w *Tree) gitFacts(ctx context.Context, n int, snap func() *Snapshot) (*GitInfo, []string) {
	f := &w.follow
	keep := func(rel string) bool {
		s := snap()
		return s != nil && s.ByRel[rel] != nil
	}
	if !f.usable() {
		return w.git.facts(ctx, n, keep)
	}
	gen := f.watcher.Gen()
	f.mu.Lock()
	f.lastN = n
	if c := f.gitCache[n]; c != nil && c.gen == gen {
		f.mu.Unlock()
		return c.info, c.warns
	}
	if fl := f.gitFlights[n]; fl != nil && fl.gen == gen {
		f.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, nil
		case <-fl.done:
		}
		if fl.got != nil {
			return fl.got.info, fl.got.warns
		}
		// That read was cancelled: read them here.
		return w.git.facts(ctx, n, keep)
	}
	fl := &gitFlight{gen: gen, done: make(chan struct{})}
	if f.gitFlights == nil {
		f.gitFlights = map[int]*gitFlight{}
	}
	f.gitFlights[n] = fl
	f.mu.Unlock()
	defer close(fl.done)

	info, warns := w.git.facts(ctx, n, keep)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gitFlights[n] == fl {
		delete(f.gitFlights, n)
	}
	if ctx.Err() != nil {
		return info, warns
	}
	if f.gitCache == nil {
		f.gitCache = map[int]*gitCached{}
	}
	fl.got = &gitCached{gen: gen, info: info, warns: warns}
	f.gitCache[n] = fl.got
	return info, warns
}

// Prepare reads ahead, in a followed workspace (a daemon's), what the
// first request needs: the snapshot (the walk, or the persisted index
// checked against the tree) and the git facts of commits recent commits
// (as Request.Commits), read while the tree is walked unless the walk
// finds that git would block. A request arriving meanwhile waits for
// them rather than doing the work again. It does nothing elsewhere.
func (w *Tree) Prepare(ctx context.Context, commits int) {
	if !w.follow.usable() {
		return
	}
	commits = CommitsOrDefault(commits)
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var snap *Snapshot
	ready := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		w.gitFacts(gctx, commits, func() *Snapshot { <-ready; return snap })
	})
	s, err := w.refresh(ctx)
	if err != nil || s.blocksGit() {
		cancel()
	} else {
		snap = s
	}
	close(ready)
	wg.Wait()
}

// contentBags and setContentBags map a document's content-derived term
// bags (every field but the path, which is recomputed from the path) to
// the persisted index and back. A ranking that adds a field adds its bag
// here, in both, and bumps termsVersion.
func contentBags(d *indexDoc) []index.Terms {
	return []index.Terms{toIndexTerms(d.content), toIndexTerms(d.defs)}
}

func setContentBags(d *indexDoc, bags []index.Terms) bool {
	if len(bags) != 2 {
		return false
	}
	d.docBags = &docBags{content: fromIndexTerms(bags[0]), defs: fromIndexTerms(bags[1])}
	return true
}

func toIndexTerms(t terms) index.Terms   { return index.Terms{Hash: t.hash, TF: t.tf, N: t.n} }
func fromIndexTerms(t index.Terms) terms { return terms{hash: t.Hash, tf: t.TF, n: t.N} }

// indexKey names what a persisted index holds: this root, these options
// and this term extractor.
func (w *Tree) indexKey() string {
	return fmt.Sprintf("root=%s max=%d include=%q exclude=%q terms=%d", w.root, w.opts.MaxFileBytes, w.opts.Include, w.opts.Exclude, termsVersion)
}

// reuse is the persisted index during the first walk (nil: none).
type reuse struct {
	snap *index.Snapshot
	f    *follower
	mu   sync.Mutex
	bags map[*index.Content]*docBags // see bagsOf
}

// persisted loads the persisted index for the first walk: nil when there
// is none, after the first walk, or when it does not verify (then it is
// rebuilt and written again).
func (w *Tree) persisted() *reuse {
	f := &w.follow
	if w.opts.State == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.loadTried {
		if f.loaded == nil {
			return nil
		}
		return &reuse{snap: f.loaded, f: f}
	}
	f.loadTried = true
	t0 := time.Now()
	// One walk per process (a CLI run): mapped, not read and copied. A
	// daemon reads it, so its memory is the collector's.
	s, err := w.opts.State.LoadIndex(w.indexKey(), w.opts.MapIndex && !w.opts.Watch)
	if err != nil {
		switch {
		case errors.Is(err, index.ErrStale):
			// Another version of ctxd, root or options wrote it: expected
			// after an upgrade, not worth a warning.
			w.log.Info("persisted index not used: rebuilding it", "err", err)
		case !errors.Is(err, fs.ErrNotExist):
			w.log.Warn("persisted index not used: rebuilding it", "err", err)
		}
		return nil
	}
	w.log.Debug("persisted index loaded", keyFiles, len(s.Files), keyTook, time.Since(t0))
	f.loaded = s
	return &reuse{snap: s, f: f}
}

// fileInfo returns the persisted facts of rel when they still hold for
// the file the walk found, else nil. c is the caller's term counter (one
// per goroutine); next is where in the persisted files the caller expects
// rel (see index.Snapshot.Find), updated to follow it. Safe for
// concurrent use.
func (r *reuse) fileInfo(w *Tree, c *termCounter, rel string, info fs.FileInfo, next *int) *File {
	if r == nil {
		return nil
	}
	i := r.snap.Find(rel, *next)
	if i < 0 {
		return nil
	}
	*next = i + 1
	lf := &r.snap.Files[i]
	if lf.Flags&index.FlagReadErr != 0 || !r.snap.Trusted(lf, info.Size(), info.ModTime().UnixNano()) {
		return nil
	}
	fi := w.newFileInfo(rel, info)
	if fi.Secret {
		return fi // never read, never indexed
	}
	switch {
	case lf.Flags&index.FlagBinary != 0:
		fi.binary, fi.indexed = true, true
	case lf.Flags&index.FlagTooBig != 0:
		fi.tooBig, fi.indexed = true, true
	case lf.Content != nil:
		lc := lf.Content
		doc := &indexDoc{path: rel, test: lang.IsTest(rel), name: c.pathTerms(rel)}
		if doc.docBags = r.bagsOf(lc); doc.docBags == nil {
			if !setContentBags(doc, lc.Bags) {
				return nil
			}
			r.keepBags(lc, doc.docBags)
		}
		fi.lines, fi.InlineTests, fi.Imports, fi.hash, fi.minified = lc.Lines, lc.InlineTests, lc.Imports, lc.Hash, lc.Minified
		if lc.GoModule != "" {
			fi.rare = &rareFacts{goModule: lc.GoModule}
		}
		doc.role, doc.generated = lang.RoleOf(rel, lc.Generated), lc.Generated
		fi.doc = doc
		fi.indexed = true
	default:
		return nil
	}
	return fi
}

// bagsOf returns the bags made for the persisted content lc, nil before
// its first file: the files of one content share them.
func (r *reuse) bagsOf(lc *index.Content) *docBags {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bags[lc]
}

func (r *reuse) keepBags(lc *index.Content, b *docBags) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bags == nil {
		r.bags = map[*index.Content]*docBags{}
	}
	r.bags[lc] = b
}

// count adds n files whose persisted facts the walk reused.
func (r *reuse) count(n int) {
	if r == nil {
		return
	}
	r.f.mu.Lock()
	r.f.reused += n
	r.f.mu.Unlock()
}

// persist writes the snapshot's facts to the index file in the
// background when files were (re)indexed; Close waits for it.
func (w *Tree) persist(s *Snapshot, started time.Time, indexed int) {
	if w.opts.State == nil || indexed == 0 {
		return
	}
	f := &w.follow
	f.saveWG.Go(func() {
		f.saveMu.Lock()
		defer f.saveMu.Unlock()
		w.snapMu.Lock()
		latest := w.snap == s
		w.snapMu.Unlock()
		if !latest {
			return // a newer snapshot's write follows
		}
		t0 := time.Now()
		out := &index.Snapshot{Key: w.indexKey(), Written: started.UnixNano(), Files: make([]index.File, 0, len(s.Files))}
		contents := map[[32]byte]*index.Content{}
		for _, fi := range s.Files {
			if fi.Secret || !fi.indexed {
				continue
			}
			lf := index.File{Path: fi.Rel, Size: fi.size, ModTime: fi.modTime}
			switch {
			case fi.readError() != "":
				lf.Flags = index.FlagReadErr
			case fi.binary:
				lf.Flags = index.FlagBinary
			case fi.tooBig:
				lf.Flags = index.FlagTooBig
			case fi.doc != nil:
				c := contents[fi.hash]
				if c == nil {
					c = &index.Content{Hash: fi.hash, Lines: fi.lines, InlineTests: fi.InlineTests, Imports: fi.Imports, GoModule: fi.goModule(),
						Bags: contentBags(fi.doc), Generated: fi.doc.generated, Minified: fi.minified}
					contents[fi.hash] = c
				}
				lf.Content = c
			default:
				continue
			}
			out.Files = append(out.Files, lf)
		}
		if err := w.opts.State.SaveIndex(out); err != nil {
			w.log.Warn("persisting the index failed", "err", err)
			return
		}
		w.log.Debug("index persisted", keyFiles, len(out.Files), keyTook, time.Since(t0))
	})
}

// EachText calls fn, in path order, with every file of the current tree
// that a whole-repository pack may hold: not ignored, not secret, not
// binary, not over the size cap; keep, when not nil, filters paths first.
// It refreshes the tree first (a followed workspace does not walk when
// nothing changed) and reads each file.
func (w *Tree) EachText(ctx context.Context, keep func(rel string) bool, fn func(rel string, text []byte) error) error {
	return w.EachTextOr(ctx, keep, fn, nil)
}

// Reasons EachTextOr gives for a file it passes over.
const (
	SkipSecret = "secret file"
	SkipBinary = "binary"
	SkipTooBig = "over the size cap"
	SkipRead   = "unreadable"
)

// EachTextOr is EachText that also calls other, when not nil, with each
// file keep accepts but EachText passes over, and why (SkipSecret,
// SkipBinary, SkipTooBig, SkipRead): a pack lists the secret files it left
// out. A secret file for which other returns true (the user named it) is
// read and passed to fn like the others.
func (w *Tree) EachTextOr(ctx context.Context, keep func(rel string) bool, fn func(rel string, text []byte) error, other func(rel, why string) bool) error {
	files, err := w.textFiles(ctx)
	if err != nil {
		return fmt.Errorf("list files: %w", err)
	}
	buf := make([]byte, 0, 64<<10)
	for i, f := range files {
		if i%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if keep != nil && !keep(f.Rel) {
			continue
		}
		if why := f.skipReason(); why != "" {
			if other == nil || !other(f.Rel, why) || why != SkipSecret {
				continue
			}
		}
		b, err := readCapped(filepath.Join(w.root, filepath.FromSlash(f.Rel)), w.opts.MaxFileBytes, buf)
		if err != nil || IsBinary(b) {
			continue // changed since the walk; the next refresh sees it
		}
		buf = b
		if err := fn(f.Rel, b); err != nil {
			return err
		}
	}
	return nil
}

// skipReason says why a pack passes over f ("" when it holds it).
func (f *File) skipReason() string {
	switch {
	case f.Secret:
		return SkipSecret
	case f.binary:
		return SkipBinary
	case f.tooBig:
		return SkipTooBig
	case f.readError() != "":
		return SkipRead
	}
	return ""
}

// textFiles returns the files of the current tree in path order. A
// workspace that neither follows the tree nor has a snapshot yet (a CLI
// pack) walks without indexing and keeps nothing: EachText reads every
// file anyway and needs no terms, so indexing would read each file a
// second time for nothing.
func (w *Tree) textFiles(ctx context.Context) ([]*File, error) {
	if w.opts.Watch || w.current() != nil {
		s, err := w.refresh(ctx)
		if err != nil {
			return nil, err
		}
		return s.Files, nil
	}
	rules, err := newIgnoreRules(w.root, w.opts.Exclude)
	if err != nil {
		return nil, err
	}
	w.refreshMu.Lock()
	files, _, _, err := w.walk(ctx, rules, nil)
	w.refreshMu.Unlock()
	if err != nil {
		return nil, err
	}
	slices.SortFunc(files, func(a, b *File) int { return strings.Compare(a.Rel, b.Rel) })
	return files, nil
}
