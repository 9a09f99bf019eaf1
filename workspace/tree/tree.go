package tree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/safefs"
)

// Defaults of [Options] and of the history's length.
const (
	DefaultMaxFileBytes = 1 << 20 // 1 MiB
	DefaultCommits      = 5
)

// Options configure a [Workspace].
type Options struct {
	// Include, when not empty, limits the walk to files matching one of
	// these doublestar globs (root-relative); Exclude globs add to the
	// ignore rules. Explicit paths (open files, literal patterns) are not
	// limited by either.
	Include, Exclude []string
	// MaxFileBytes is the size cap per file; larger files are never read.
	// Zero means DefaultMaxFileBytes (1 MiB).
	MaxFileBytes int64
	// Logger receives debug records (counts and timings, never source
	// text); nil discards them.
	Logger *slog.Logger
	// Watch follows the tree with inotify (a daemon): a request that
	// finds nothing changed does not walk, and git facts are refreshed on
	// changes, off the request path. Without it every Gather walks.
	Watch bool
	// State, when set, is where the file facts, the file graph and the git
	// caches persist between processes (see package index), for a tree of
	// any size: what a run learns beside them (parses, token counts) is
	// kept only once the index directory exists, and on a tree of 200
	// files it is what a second run would otherwise spend its second on.
	State State
	// StateDir is the workspace's state directory (absolute; ctxd's
	// --state-dir). When it lies inside the root (not the root itself)
	// nothing under it is walked, watched or read from an editor's
	// buffer without a name ([Tree.InStateDir]), as under .git/ and
	// .ctxd/: it holds checkpoints (whole conversations) and the index.
	StateDir string
	// MapIndex maps the persisted index instead of reading it (a process
	// that opens one workspace and exits: a CLI run). The mapping lives
	// as long as the process, so a process opening workspace after
	// workspace (eval) must leave it off.
	MapIndex bool
	// MaxWatches caps the directories watched (0: the kernel's limit); a
	// tree with more is walked on every request, as when inotify's limit
	// is hit.
	MaxWatches int
	// Links configure the link signals (the file graph's walk and the
	// co-change history); the zero value is DefaultLinks.
	Links LinkOptions
}

// Workspace caches what it learned about one root between requests: the
// walk, file facts, the lexical index and git facts. A daemon keeps one per
// root, the CLI makes one per run. Gather revalidates on each call: files
// added, removed or changed (by size and mtime) are picked up, unchanged
// files are not read again. Safe for concurrent use; Close releases the
// git repository.
type Tree struct {
	root string
	opts Options
	log  *slog.Logger

	// refreshMu serializes walks; snap is replaced whole under snapMu.
	refreshMu sync.Mutex
	snapMu    sync.Mutex
	snap      *Snapshot
	// updMu guards upd, closed when a new snapshot replaces snap (see
	// Updated).
	updMu sync.Mutex
	upd   chan struct{}

	git *gitState

	// preMu guards pre, the first refresh started ahead (Prefetch).
	preMu sync.Mutex
	pre   *prefetch

	follow follower // watcher, persisted index, background refresh
	// graphs counts the file graphs building beside a request
	// (SnapshotAndGit): Close waits for them, so none logs or saves
	// after it.
	graphs sync.WaitGroup
	// stateRel is the state directory (Options.StateDir), or failing it
	// the persisted index's directory, when it lies inside the root
	// outside .ctxd (a state dir moved into the tree), root-relative with
	// slashes: never walked, never watched (writing the index is not a
	// change), no buffer under it kept (InStateDir).
	stateRel string
}

// NewWorkspace opens the workspace at root (absolute or relative; symlinks
// resolved). Nothing is read until the first Gather.
func Open(root string, opts Options) (*Tree, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", root, err)
	}
	abs, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", root, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("open workspace %s: not a directory: %w", root, ctxd.ErrInvalidParams)
	}
	for _, g := range append(append([]string(nil), opts.Include...), opts.Exclude...) {
		if !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("open workspace %s: bad glob %q: %w", root, g, ctxd.ErrInvalidParams)
		}
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	opts.Links = opts.Links.orDefault()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := &Tree{root: abs, opts: opts, log: log}
	w.git = newGitState(abs, log, w.LinkOptions().Commits)
	if opts.State != nil {
		w.git.state = opts.State
		if r, ok := within(abs, opts.State.Path()); ok && r != "." {
			w.stateRel = filepath.ToSlash(r)
		}
	}
	if opts.StateDir != "" {
		// Resolved as the root is (a state dir given through a symlink
		// of the root's path is still inside it).
		sd, err := evalExisting(opts.StateDir)
		if err != nil {
			sd = opts.StateDir
		}
		if r, ok := within(abs, sd); ok && r != "." {
			w.stateRel = filepath.ToSlash(r)
		}
	}
	w.startFollowing()
	return w, nil
}

// Root returns the workspace's absolute, resolved root.
func (w *Tree) Root() string { return w.root }

// Logger is the workspace's logger (Options.Logger).
func (w *Tree) Logger() *slog.Logger { return w.log }

// Close releases the resources the workspace holds (the open git
// repository). The workspace must not be used after.
func (w *Tree) Close() error {
	w.stopPrefetch()
	w.stopFollowing()
	w.graphs.Wait()
	// Last: the graphs and the background refresher start writes (the
	// file graph, the index) of their own, which end before Close returns.
	w.follow.saveWG.Wait()
	return w.git.close()
}

// Log attribute keys.
const (
	keyFiles   = "files"
	keyIndexed = "indexed"
	keyTook    = "took"
)

// refresh walks the root and indexes new and changed files, and returns
// the current snapshot and the walk's warnings.
func (w *Tree) refresh(ctx context.Context) (*Snapshot, error) {
	s, _, err := w.refreshWarn(ctx)
	return s, err
}

func (w *Tree) refreshWarn(ctx context.Context) (*Snapshot, []string, error) {
	w.refreshMu.Lock()
	defer w.refreshMu.Unlock()
	t0 := time.Now()
	w.snapMu.Lock()
	prev := w.snap
	w.snapMu.Unlock()
	if s, ok := w.followChanges(ctx, prev); ok {
		return s, s.warnings, nil
	}
	rules, err := newIgnoreRules(w.root, w.opts.Exclude)
	if err != nil {
		return nil, nil, err
	}
	var prevByRel map[string]*File
	if prev != nil {
		prevByRel = prev.ByRel
	}
	started := time.Now()
	files, dirs, warnings, err := w.walk(ctx, rules, prevByRel)
	if err != nil {
		w.follow.mustWalk()
		return nil, nil, err
	}
	indexed, err := w.indexFiles(ctx, files)
	if err != nil {
		w.follow.mustWalk()
		return nil, nil, err
	}
	w.follow.walked(dirs)
	blocked := ""
	if len(rules.notRegular) > 0 && gitTop(w.root) != "" {
		blocked = rules.notRegular[0]
	}
	if prev != nil && prev.gitBlocked == blocked && sameFiles(prev.Files, files) {
		w.log.Debug("workspace unchanged", keyFiles, len(files), keyTook, time.Since(t0))
		return prev, warnings, nil
	}
	var prevIndex *Index
	if prev != nil {
		prevIndex = prev.Index
	}
	s := newSnapshot(files, prevIndex, w.opts.Watch)
	s.dirs, s.warnings, s.gitBlocked, s.stateRel = dirs, warnings, blocked, w.stateRel
	w.snapMu.Lock()
	w.snap = s
	w.snapMu.Unlock()
	w.updated()
	w.persist(s, started, indexed)
	w.log.Debug("workspace indexed", keyFiles, len(files), keyIndexed, s.Index.Len(), keyTook, time.Since(t0))
	return s, warnings, nil
}

// current returns the newest snapshot, nil before the first refresh.
func (w *Tree) current() *Snapshot {
	w.snapMu.Lock()
	defer w.snapMu.Unlock()
	return w.snap
}

// blocksGit reports that git must not run for s (see gitBlocked).
func (s *Snapshot) blocksGit() bool { return s != nil && s.gitBlocked != "" }

// relOrAbs shows a path root-relative when it is inside the root.
func (w *Tree) relOrAbs(p string) string {
	if r, ok := within(w.root, p); ok {
		return filepath.ToSlash(r)
	}
	return p
}

// sameFiles reports that a walk found exactly the entries of the previous
// snapshot (same pointers: nothing added, removed or changed).
func sameFiles(old, cur []*File) bool {
	if len(old) != len(cur) {
		return false
	}
	set := make(map[*File]bool, len(old))
	for _, f := range old {
		set[f] = true
	}
	for _, f := range cur {
		if !set[f] {
			return false
		}
	}
	return true
}

// Rank ranks the workspace's files lexically against query (see [Index])
// and returns the best limit hits.
func (w *Tree) Rank(ctx context.Context, q *query.Query, limit int) ([]Hit, error) {
	s, err := w.refresh(ctx)
	if err != nil {
		return nil, fmt.Errorf("rank: %w", err)
	}
	return s.Index.Rank(q, limit), nil
}

// WalkWarnings returns what the walk of the current tree warned about: an
// ignore file it could not read (over its 4 MiB cap, not a regular file),
// an unreadable directory. A pack shows them, as a prompt does.
func (w *Tree) WalkWarnings(ctx context.Context) ([]string, error) {
	_, warns, err := w.refreshWarn(ctx)
	return warns, err
}

// Files returns the root-relative paths of the files the walk keeps (not
// ignored, not secret), sorted.
func (w *Tree) Files(ctx context.Context) ([]string, error) {
	s, err := w.refresh(ctx)
	if err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	return s.paths(), nil
}

// commitsOrDefault is Request.Commits as gathered: 0 means DefaultCommits
// (negative turns history off and stays negative).
func CommitsOrDefault(n int) int {
	if n == 0 {
		return DefaultCommits
	}
	return n
}

// snapshotAndGit refreshes the tree and reads the git facts of the last
// commits commits (CommitsOrDefault) side by side: git runs in its own
// process, so the two overlap; only the untracked-file filter waits for
// the new snapshot. It starts the snapshot's file graph building, and
// returns the walk's warnings, then git's.
func (w *Tree) SnapshotAndGit(ctx context.Context, commits int) (*Snapshot, *GitInfo, []string, error) {
	var snap *Snapshot
	snapReady := make(chan struct{})
	gitDone := make(chan struct{})
	var gi *GitInfo
	var gitWarns []string
	gctx, gcancel := context.WithCancel(ctx)
	defer gcancel()
	prev := w.current()
	pre := w.takePrefetch()
	go func() {
		defer close(gitDone)
		if pre != nil && pre.commits == commits {
			select {
			case <-gctx.Done():
				return
			case <-pre.gitDone:
			}
			if pre.git != nil || len(pre.gitWarns) > 0 || gctx.Err() != nil {
				gi, gitWarns = pre.git, pre.gitWarns
				return
			}
			// Cancelled (git would block, which the snapshot says
			// below) or outside git: as without the prefetch.
		}
		if prev.blocksGit() {
			// Last time git would have blocked: wait for the walk to say
			// whether it still would.
			<-snapReady
			if snap == nil || snap.blocksGit() {
				return
			}
		}
		gi, gitWarns = w.gitFacts(gctx, commits, func() *Snapshot { <-snapReady; return snap })
	}()
	var walkWarnings []string
	var err error
	if pre != nil {
		snap, walkWarnings, err = pre.refreshed(ctx, w)
	} else {
		snap, walkWarnings, err = w.refreshWarn(ctx)
	}
	if err != nil {
		gcancel()
		snap = nil
		close(snapReady)
		<-gitDone
		return nil, nil, nil, err
	}
	close(snapReady)
	if snap.blocksGit() {
		gcancel() // git may be blocked on the file already
	}
	// The file graph (built once per snapshot) builds while git and the
	// lexical ranking run; the link signals wait for it.
	w.graphs.Go(func() { snap.Links(ctx, w) })

	<-gitDone
	if snap.blocksGit() {
		gi, gitWarns = nil, []string{fmt.Sprintf("git skipped: %s is not a regular file, and git would block reading it; no history or uncommitted changes", w.relOrAbs(snap.gitBlocked))}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	return snap, gi, slices.Concat(walkWarnings, gitWarns), nil
}

// Text is a file's text as read for a chunk.
type Text struct {
	Text string
	// Raw is Text's bytes as read, the same memory (counted, sniffed and
	// hashed without a copy): never written.
	Raw     []byte
	ModTime time.Time
	// Minified: the index knows the file, unchanged since, as minified;
	// it was not read, and Size and Lines are the index's.
	Minified bool
	Size     int64
	Lines    int
}

// SizeCapReason says why a file of size bytes is not read under the
// size cap, and the setting that raises it: the words of every door
// (prompt's warnings, ctxd tokens and pack).
func SizeCapReason(size, maxBytes int64) string {
	return fmt.Sprintf("over the size cap (%d bytes, the cap %d): raise gather.max_file_bytes in .ctxd.toml to read it", size, maxBytes)
}

// readText reads the file rel of snapshot s for a chunk. A file that is
// missing, unreadable, a directory, over the size cap, not a regular file
// or binary is not read: why says which, for a warning ("" when read).
func (w *Tree) ReadText(s *Snapshot, rel string) (t Text, why string) {
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	st, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return t, "no such file"
		}
		return t, "cannot read it"
	}
	if st.IsDir() {
		return t, "a directory"
	}
	t.ModTime = st.ModTime()
	if fi := s.ByRel[rel]; fi != nil && fi.minified && fi.sameStat(st) {
		t.Minified, t.Size, t.Lines = true, fi.size, fi.lines
		return t, ""
	}
	b, err := readCapped(abs, w.opts.MaxFileBytes, nil)
	if err != nil {
		switch {
		case errors.Is(err, errTooBig):
			return t, SizeCapReason(st.Size(), w.opts.MaxFileBytes)
		case errors.Is(err, safefs.ErrNotRegular):
			return t, "not a regular file"
		}
		return t, "cannot read it"
	}
	if IsBinary(b) {
		return t, "binary file"
	}
	// Text is b's memory, not a copy of it (a copy of every file read
	// for a request): b is written by nobody after this.
	t.Text, t.Raw = unsafe.String(unsafe.SliceData(b), len(b)), b
	return t, ""
}

// MaxFileBytes is the size cap per file (Options.MaxFileBytes).
func (w *Tree) MaxFileBytes() int64 { return w.opts.MaxFileBytes }

// deps summarizes the dependency manifests of s (see Dependencies), with
// the warnings of reading them.
func (w *Tree) Deps(s *Snapshot) (string, []string) {
	return s.deps(w.root, w.opts.MaxFileBytes)
}

// splitPattern classifies a pattern: a literal path (no glob
// metacharacters) is resolved like an open file; a glob is cleaned and
// checked to stay inside the root.
func (w *Tree) SplitPattern(p string) (literal, glob string, err error) {
	if strings.TrimSpace(p) == "" {
		return "", "", fmt.Errorf("pattern: empty pattern: %w", ctxd.ErrInvalidParams)
	}
	if !strings.ContainsAny(p, "*?[{") {
		abs, rel, err := Resolve(w.root, p)
		if err != nil {
			return "", "", fmt.Errorf("pattern: %w", err)
		}
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
			// A directory means its files: a glob, so not consent for the
			// secret files in it.
			if rel == "." {
				return "", "**", nil
			}
			return "", rel + "/**", nil
		}
		return rel, "", nil
	}
	g := filepath.ToSlash(p)
	if filepath.IsAbs(p) {
		r, ok := within(w.root, filepath.Clean(p))
		if !ok {
			return "", "", fmt.Errorf("pattern %q: outside root %s: %w", p, w.root, ctxd.ErrOutsideRoot)
		}
		g = filepath.ToSlash(r)
	}
	g = strings.TrimPrefix(g, "./")
	if g == ".." || strings.HasPrefix(g, "../") || strings.Contains(g, "/../") || strings.HasSuffix(g, "/..") {
		return "", "", fmt.Errorf("pattern %q: reaches outside root %s: %w", p, w.root, ctxd.ErrOutsideRoot)
	}
	if !doublestar.ValidatePattern(g) {
		return "", "", fmt.Errorf("pattern %q: %w: %w", p, doublestar.ErrBadPattern, ctxd.ErrInvalidParams)
	}
	return "", g, nil
}

// MatchGlob reports that the root-relative path rel matches the glob g of
// a pack's --include or --exclude or a prompt's --pattern (one rule for
// both): g without a slash against rel's name and its directories' names
// (at any depth, as .gitignore does), g with one against rel from the
// root or, when a subtree sub is packed, from sub.
func MatchGlob(g, rel, sub string) bool {
	g = strings.TrimPrefix(g, "./")
	if !strings.Contains(strings.TrimSuffix(g, "/"), "/") {
		ok, _ := doublestar.Match(strings.TrimSuffix(g, "/"), path.Base(rel))
		if ok {
			return true
		}
		// A directory name ("vendor", "docs/") takes the files below it.
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			if ok, _ := doublestar.Match(strings.TrimSuffix(g, "/"), path.Base(d)); ok {
				return true
			}
		}
		return false
	}
	g = strings.TrimPrefix(g, "/")
	if ok, _ := doublestar.Match(g, rel); ok {
		return true
	}
	if sub != "" && strings.HasPrefix(rel, sub+"/") {
		ok, _ := doublestar.Match(g, rel[len(sub)+1:])
		return ok
	}
	return false
}

// byDir lists the snapshot's non-secret files directly in dir.
func (s *Snapshot) ByDir(dir string) []string {
	prefix := ""
	if dir != "." {
		prefix = dir + "/"
	}
	i := sort.Search(len(s.Files), func(i int) bool { return s.Files[i].Rel >= prefix })
	var out []string
	for ; i < len(s.Files) && strings.HasPrefix(s.Files[i].Rel, prefix); i++ {
		f := s.Files[i]
		if !f.Secret && !strings.Contains(f.Rel[len(prefix):], "/") {
			out = append(out, f.Rel)
		}
	}
	return out
}

// InStateDir reports whether rel (root-relative, slashes) lies under
// .git/, .ctxd/ or the workspace's state directory when that is inside the
// root (Options.StateDir): never walked, gathered, or read from a buffer.
func (w *Tree) InStateDir(rel string) bool { return inStateDir(rel, w.stateRel) }

func inStateDir(rel, stateRel string) bool {
	return lang.IsStateDir(rel) || stateRel != "" && (rel == stateRel || strings.HasPrefix(rel, stateRel+"/"))
}

// OverlayKept reports whether an unsaved editor buffer at rel (a
// root-relative path) joins the workspace's files, replacing or adding to
// the file on disk, without the user naming the file: a new file's and an
// ignored file's do (the user is editing it), a secret file's or one under
// a state directory (InStateDir) does not. Gathering (WithOverlay), the
// symbol search (WithOverlayPaths), a pack (pack.Options.Overlay) and
// resume (engine.refusedSource) read the buffers by this one rule.
func (w *Tree) OverlayKept(rel string) bool { return overlayKept(rel, w.stateRel) }

func overlayKept(rel, stateRel string) bool {
	return !lang.IsSecret(rel) && !inStateDir(rel, stateRel)
}

// WithOverlayPaths returns files (sorted, as Files returns them) with the
// paths of the overlay's buffers that OverlayKept and files lacks (a new
// file only open in the editor), still sorted.
func (w *Tree) WithOverlayPaths(files []string, overlay map[string]string) []string {
	return withOverlayPaths(files, overlay, w.stateRel)
}

func withOverlayPaths(files []string, overlay map[string]string, stateRel string) []string {
	var add []string
	for rel := range overlay {
		if _, have := slices.BinarySearch(files, rel); !have && overlayKept(rel, stateRel) {
			add = append(add, rel)
		}
	}
	if len(add) == 0 {
		return files
	}
	out := slices.Concat(files, add)
	slices.Sort(out)
	return out
}

// withOverlay returns an index where unsaved editor buffers replace (or
// add to) the files on disk.
func (s *Snapshot) WithOverlay(overlay map[string]string) *Index {
	c := newTermCounter()
	var add []*indexDoc
	for rel, text := range overlay {
		if !overlayKept(rel, s.stateRel) {
			continue
		}
		add = append(add, newDoc(c, c.defs(), rel, []byte(text)))
	}
	return s.Index.withDocs(func(path string) bool { _, ok := overlay[path]; return ok }, add)
}
