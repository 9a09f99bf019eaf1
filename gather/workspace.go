package gather

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/safefs"
)

// Defaults of [Options] and [Request].
const (
	DefaultMaxFileBytes   = 1 << 20 // 1 MiB
	DefaultMaxFiles       = 50
	DefaultStructureDepth = 3
	DefaultCommits        = 5
	DefaultDepth          = 10
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
	// caches persist between processes (see package index); a tree of
	// fewer than PersistMinFiles files is not persisted.
	State State
	// MapIndex maps the persisted index instead of reading it (a process
	// that opens one workspace and exits: a CLI run). The mapping lives
	// as long as the process, so a process opening workspace after
	// workspace (eval) must leave it off.
	MapIndex bool
	// MaxWatches caps the directories watched (0: the kernel's limit); a
	// tree with more is walked on every request, as when inotify's limit
	// is hit.
	MaxWatches int
}

// PersistMinFiles is the smallest tree whose index is persisted: below
// it, reading the files again costs less than the index file.
const PersistMinFiles = 256

// Request is one gathering request.
type Request struct {
	// Query is the user's request, read: its stack frames, the files it
	// mentions and the words of the lexical ranking. Nil is an empty
	// request.
	Query *query.Query
	// Task is the task type, already resolved by the caller (never "").
	Task ctxd.TaskType
	// Patterns are doublestar globs relative to the root. A pattern
	// without wildcards names a file explicitly: that is consent to gather
	// it even when it is secret-like or ignored.
	Patterns []string
	// MaxFiles caps the files gathered from patterns, relevance and
	// task-specific sources (open files are not counted). Zero means
	// DefaultMaxFiles.
	MaxFiles int
	// OpenFiles are the files open in the editor; an OpenFile's Text wins
	// over disk. Opening a file is consent to gather it.
	OpenFiles []ctxd.OpenFile
	// RefuseSecretFiles makes a name no consent: a secret file named by
	// an open file or a literal pattern is skipped with a warning. The
	// MCP server sets it (its caller is an agent, not the user).
	RefuseSecretFiles bool
	// Overlay holds unsaved editor buffers by root-relative path; they win
	// over disk wherever the file is gathered.
	Overlay map[string]string
	// StructureDepth is the depth of the structure tree; zero means
	// DefaultStructureDepth.
	StructureDepth int
	// Commits is how many recent commits the history covers; zero means
	// DefaultCommits, negative turns history off.
	Commits int
	// Depth bounds each task-specific list (related files, dependents,
	// tests, lexical matches); zero means DefaultDepth.
	Depth int
	// ContextBudget is the token budget the context will be fit into, when
	// known (0: unknown); the link signals add fewer files to a small one
	// (see links.go).
	ContextBudget int
}

// Result is what [Workspace.Gather] found.
type Result struct {
	// Chunks are the candidates, unsorted: Content is the whole text,
	// Facts are filled, Priority is the base priority and Source is set;
	// Tokens and Score are left for the engine.
	Chunks []ctxd.Chunk
	// FilesScanned counts the files the walk saw (not ignored).
	FilesScanned int
	// Warnings are non-fatal problems a person can act on (an unreadable
	// file, git unavailable, a capped list); they never hold source text.
	Warnings []string
}

// Workspace caches what it learned about one root between requests: the
// walk, file facts, the lexical index and git facts. A daemon keeps one per
// root, the CLI makes one per run. Gather revalidates on each call: files
// added, removed or changed (by size and mtime) are picked up, unchanged
// files are not read again. Safe for concurrent use; Close releases the
// git repository.
type Workspace struct {
	root string
	opts Options
	log  *slog.Logger

	// refreshMu serializes walks; snap is replaced whole under snapMu.
	refreshMu sync.Mutex
	snapMu    sync.Mutex
	snap      *snapshot
	// updMu guards upd, closed when a new snapshot replaces snap (see
	// Updated).
	updMu sync.Mutex
	upd   chan struct{}

	git *gitState

	// preMu guards pre, the first refresh started ahead (Prefetch).
	preMu sync.Mutex
	pre   *prefetch

	follow follower // watcher, persisted index, background refresh
	// indexDirRel is the persisted index's directory when it lies inside
	// the root outside .ctxd (a state dir moved into the tree): never
	// walked, never watched, so writing the index is not a change.
	indexDirRel string
}

// NewWorkspace opens the workspace at root (absolute or relative; symlinks
// resolved). Nothing is read until the first Gather.
func NewWorkspace(root string, opts Options) (*Workspace, error) {
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
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := &Workspace{root: abs, opts: opts, log: log}
	w.git = newGitState(abs, log)
	if opts.State != nil {
		w.git.state = opts.State
		if r, ok := within(abs, opts.State.Path()); ok && r != "." {
			w.indexDirRel = filepath.ToSlash(r)
		}
	}
	w.startFollowing()
	return w, nil
}

// Root returns the workspace's absolute, resolved root.
func (w *Workspace) Root() string { return w.root }

// Close releases the resources the workspace holds (the open git
// repository). The workspace must not be used after.
func (w *Workspace) Close() error {
	w.stopPrefetch()
	w.stopFollowing()
	return w.git.close()
}

// Log attribute keys.
const (
	keyFiles   = "files"
	keyIndexed = "indexed"
	keyTook    = "took"
	keyChunks  = "chunks"
)

// refresh walks the root and indexes new and changed files, and returns
// the current snapshot and the walk's warnings.
func (w *Workspace) refresh(ctx context.Context) (*snapshot, error) {
	s, _, err := w.refreshWarn(ctx)
	return s, err
}

func (w *Workspace) refreshWarn(ctx context.Context) (*snapshot, []string, error) {
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
	var prevByRel map[string]*fileInfo
	if prev != nil {
		prevByRel = prev.byRel
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
	if prev != nil && prev.gitBlocked == blocked && sameFiles(prev.files, files) {
		w.log.Debug("workspace unchanged", keyFiles, len(files), keyTook, time.Since(t0))
		return prev, warnings, nil
	}
	var prevIndex *Index
	if prev != nil {
		prevIndex = prev.index
	}
	s := newSnapshot(files, prevIndex, w.opts.Watch)
	s.dirs, s.warnings, s.gitBlocked = dirs, warnings, blocked
	w.snapMu.Lock()
	w.snap = s
	w.snapMu.Unlock()
	w.updated()
	w.persist(s, started, indexed)
	w.log.Debug("workspace indexed", keyFiles, len(files), keyIndexed, s.index.Len(), keyTook, time.Since(t0))
	return s, warnings, nil
}

// current returns the newest snapshot, nil before the first refresh.
func (w *Workspace) current() *snapshot {
	w.snapMu.Lock()
	defer w.snapMu.Unlock()
	return w.snap
}

// blocksGit reports that git must not run for s (see gitBlocked).
func (s *snapshot) blocksGit() bool { return s != nil && s.gitBlocked != "" }

// relOrAbs shows a path root-relative when it is inside the root.
func (w *Workspace) relOrAbs(p string) string {
	if r, ok := within(w.root, p); ok {
		return filepath.ToSlash(r)
	}
	return p
}

// sameFiles reports that a walk found exactly the entries of the previous
// snapshot (same pointers: nothing added, removed or changed).
func sameFiles(old, cur []*fileInfo) bool {
	if len(old) != len(cur) {
		return false
	}
	set := make(map[*fileInfo]bool, len(old))
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
func (w *Workspace) Rank(ctx context.Context, q *query.Query, limit int) ([]Hit, error) {
	s, err := w.refresh(ctx)
	if err != nil {
		return nil, fmt.Errorf("rank: %w", err)
	}
	return s.index.Rank(q, limit), nil
}

// WalkWarnings returns what the walk of the current tree warned about: an
// ignore file it could not read (over its 4 MiB cap, not a regular file),
// an unreadable directory. A pack shows them, as a prompt does.
func (w *Workspace) WalkWarnings(ctx context.Context) ([]string, error) {
	_, warns, err := w.refreshWarn(ctx)
	return warns, err
}

// Files returns the root-relative paths of the files the walk keeps (not
// ignored, not secret), sorted.
func (w *Workspace) Files(ctx context.Context) ([]string, error) {
	s, err := w.refresh(ctx)
	if err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	return s.paths(), nil
}

// candidate is a file on its way to becoming a chunk.
type candidate struct {
	rel   string
	facts ctxd.Facts
	order int
	text  *string // editor text (open file or overlay); nil reads disk
	// relScore is the raw lexical score, relevance the normalized one
	// (Hit.Relevance).
	relScore, relevance float64
	lexRank             int // 1-based place in the lexical ranking, 0 when none
}

// roleRank orders roles: a file keeps the strongest role it was given.
var roleRank = map[string]int{
	"":                 0,
	ctxd.RoleRelated:   1,
	ctxd.RoleDependent: 2,
	ctxd.RoleTest:      3,
	ctxd.RoleTarget:    4,
	ctxd.RoleError:     5,
}

// gathering is the state of one Gather call.
type gathering struct {
	w        *Workspace
	req      Request
	snap     *snapshot
	cands    map[string]*candidate
	lexical  *ranking // the request's lexical ranking
	git      *gitInfo // nil outside git
	warnings []string
	// named are the targets the user pointed at (named, open, in a
	// stack trace), not the best lexical matches.
	named []string
}

// add records that rel is gathered for reason in role. Non-explicit
// sources never add secret files; nothing under .git/ or .ctxd/ is ever
// added. It returns the candidate, or nil when refused.
func (g *gathering) add(rel, reason, role string, explicit bool) *candidate {
	if lang.IsStateDir(rel) {
		if explicit {
			g.warnings = append(g.warnings, fmt.Sprintf("skipped %s: files under .git/ and .ctxd/ are never gathered", rel))
		}
		return nil
	}
	if (!explicit || g.req.RefuseSecretFiles) && lang.IsSecret(rel) {
		if explicit {
			g.warnings = append(g.warnings, fmt.Sprintf("skipped %s: a secret file, not gathered for an agent (start ctxd mcp with --allow-secret-files to allow it)", rel))
		}
		return nil
	}
	c := g.cands[rel]
	if c == nil {
		c = &candidate{rel: rel, order: len(g.cands)}
		g.cands[rel] = c
	}
	if !containsString(c.facts.Reasons, reason) {
		c.facts.Reasons = append(c.facts.Reasons, reason)
	}
	if roleRank[role] > roleRank[c.facts.Role] {
		c.facts.Role = role
	}
	if explicit {
		c.facts.Explicit = true
	}
	return c
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Gather collects candidate chunks for a request. An OpenFile or Pattern
// outside the root is an error wrapping [ctxd.ErrOutsideRoot]; a bad
// parameter wraps [ctxd.ErrInvalidParams]. Cancelling ctx stops the walk
// promptly and returns ctx.Err() wrapped. Safe for concurrent use.
func (w *Workspace) Gather(ctx context.Context, r Request) (*Result, error) {
	t0 := time.Now()
	if r.Task == "" {
		return nil, fmt.Errorf("gather: task type not set: %w", ctxd.ErrInvalidParams)
	}
	if _, err := ctxd.ParseTaskType(string(r.Task)); err != nil {
		return nil, fmt.Errorf("gather: %w", err)
	}
	if r.Query == nil {
		r.Query = query.Parse("")
	}
	if r.MaxFiles <= 0 {
		r.MaxFiles = DefaultMaxFiles
	}
	if r.StructureDepth <= 0 {
		r.StructureDepth = DefaultStructureDepth
	}
	r.Commits = commitsOrDefault(r.Commits)
	if r.Depth <= 0 {
		r.Depth = DefaultDepth
	}
	g := &gathering{w: w, req: r, cands: map[string]*candidate{}}

	// Explicit paths are checked before any work, so a path outside the
	// root fails fast.
	type openRel struct {
		of  ctxd.OpenFile
		rel string
	}
	var opens []openRel
	for _, of := range r.OpenFiles {
		_, rel, err := Resolve(w.root, of.Path)
		if err != nil {
			return nil, fmt.Errorf("gather: open file: %w", err)
		}
		opens = append(opens, openRel{of, rel})
	}
	var literal, globs []string
	for _, p := range r.Patterns {
		lit, glob, err := w.splitPattern(p)
		if err != nil {
			return nil, fmt.Errorf("gather: %w", err)
		}
		if lit != "" {
			literal = append(literal, lit)
		}
		if glob != "" {
			globs = append(globs, glob)
		}
	}
	overlay := map[string]string{}
	for p, text := range r.Overlay {
		_, rel, err := Resolve(w.root, p)
		if err != nil {
			return nil, fmt.Errorf("gather: overlay: %w", err)
		}
		overlay[rel] = text
	}

	// Git facts are read while the tree is refreshed (git runs in its own
	// process, so the two overlap); only the untracked-file filter waits
	// for the new snapshot.
	var snap *snapshot
	snapReady := make(chan struct{})
	gitDone := make(chan struct{})
	var gi *gitInfo
	var gitWarns []string
	gctx, gcancel := context.WithCancel(ctx)
	defer gcancel()
	prev := w.current()
	pre := w.takePrefetch()
	go func() {
		defer close(gitDone)
		if pre != nil && pre.commits == r.Commits {
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
		gi, gitWarns = w.gitFacts(gctx, r.Commits, func() *snapshot { <-snapReady; return snap })
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
		return nil, fmt.Errorf("gather: %w", err)
	}
	close(snapReady)
	if snap.blocksGit() {
		gcancel() // git may be blocked on the file already
	}
	g.snap = snap
	g.warnings = append(g.warnings, walkWarnings...)
	// The file graph (built once per snapshot) builds while git and the
	// lexical ranking run; the link signals wait for it.
	go snap.links(ctx, w)

	// Git facts first: DEBUG gathers the files with uncommitted changes.
	<-gitDone
	if snap.blocksGit() {
		gi, gitWarns = nil, []string{fmt.Sprintf("git skipped: %s is not a regular file, and git would block reading it; no history or uncommitted changes", w.relOrAbs(snap.gitBlocked))}
	}
	g.warnings = append(g.warnings, gitWarns...)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("gather: %w", err)
	}
	g.git = gi

	// 1. Open files: critical, explicit.
	for _, o := range opens {
		c := g.add(o.rel, "open file", ctxd.RoleTarget, true)
		if c == nil {
			continue
		}
		c.facts.Open = true
		c.facts.Cursor = max(o.of.Line, 0)
		if o.of.Selection != nil {
			sel := *o.of.Selection
			c.facts.Selection = &sel
		}
		if o.of.Text != nil {
			t := *o.of.Text
			c.text = &t
			c.facts.Unsaved = true
		}
	}
	// 2. Patterns: a literal path is explicit; a glob matches walked,
	// non-secret files.
	for _, p := range literal {
		g.add(p, "pattern "+p, ctxd.RoleTarget, true)
	}
	if err := g.matchGlobs(ctx, globs); err != nil {
		return nil, fmt.Errorf("gather: %w", err)
	}
	// 3. Files named in the request.
	for _, rel := range snap.mentions(w.root, r.Query.Paths) {
		if c := g.add(rel, "mentioned in request", ctxd.RoleTarget, false); c != nil {
			c.facts.Mentioned = true
		}
	}
	// 4. Task-specific sources, with lexical relevance.
	if err := g.taskSources(ctx, overlay); err != nil {
		return nil, fmt.Errorf("gather: %w", err)
	}
	var extra []ctxd.Chunk
	if gi != nil {
		for rel, c := range g.cands {
			c.facts.CommitRank = gi.commitRank[rel]
			c.facts.Dirty = gi.dirty[rel]
		}
		extra = append(extra, gi.chunks(r.Task)...)
	}

	// 6. Cap, read and build the chunks.
	g.capFiles()
	chunks := g.fileChunks(ctx, overlay)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("gather: %w", err)
	}
	chunks = append(chunks, g.structureChunk())
	if d := g.depsChunk(); d != nil {
		chunks = append(chunks, *d)
	}
	chunks = append(chunks, extra...)
	w.log.Debug("gathered", keyChunks, len(chunks), keyFiles, snap.scanned, keyTook, time.Since(t0))
	return &Result{Chunks: chunks, FilesScanned: snap.scanned, Warnings: g.warnings}, nil
}

// splitPattern classifies a pattern: a literal path (no glob
// metacharacters) is resolved like an open file; a glob is cleaned and
// checked to stay inside the root.
func (w *Workspace) splitPattern(p string) (literal, glob string, err error) {
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

// matchGlobs adds the walked files matching each glob, best lexical match
// first when a glob matches more than MaxFiles.
func (g *gathering) matchGlobs(ctx context.Context, globs []string) error {
	for _, pat := range globs {
		var matched []string
		for i, f := range g.snap.files {
			if i%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if f.secret {
				continue // a glob is not consent
			}
			if ok, _ := doublestar.Match(pat, f.rel); ok {
				matched = append(matched, f.rel)
			}
		}
		if len(matched) > g.req.MaxFiles {
			g.warnings = append(g.warnings, fmt.Sprintf("pattern %s matched %d files; kept the %d that best match the request", pat, len(matched), g.req.MaxFiles))
			set := map[string]bool{}
			for _, m := range matched {
				set[m] = true
			}
			var keep []string
			for _, h := range g.snap.index.rank(newRankQuery(g.req.Query, g.req.Query.AboutTests), 0, func(p string) bool { return set[p] }) {
				keep = append(keep, h.Path)
				delete(set, h.Path)
			}
			rest := make([]string, 0, len(set))
			for m := range set {
				rest = append(rest, m)
			}
			sort.Strings(rest)
			matched = append(keep, rest...)[:g.req.MaxFiles]
		}
		for _, m := range matched {
			g.add(m, "pattern "+pat, ctxd.RoleRelated, false)
		}
	}
	return nil
}

// capFiles keeps at most MaxFiles candidates besides open files, the most
// important first (priority, then the order they were found in).
func (g *gathering) capFiles() {
	var rest []*candidate
	for _, c := range g.cands {
		if !c.facts.Open {
			rest = append(rest, c)
		}
	}
	if len(rest) <= g.req.MaxFiles {
		return
	}
	sort.Slice(rest, func(i, j int) bool {
		pi, pj := g.priority(rest[i]), g.priority(rest[j])
		if pi != pj {
			return pi > pj
		}
		return rest[i].order < rest[j].order
	})
	for _, c := range rest[g.req.MaxFiles:] {
		delete(g.cands, c.rel)
	}
	g.warnings = append(g.warnings, fmt.Sprintf("gathered %d files; kept %d (max_files)", len(rest), g.req.MaxFiles))
}

// fileChunks reads each candidate and builds its chunk. Binary, oversized,
// missing and unreadable files are dropped; explicit ones with a warning.
func (g *gathering) fileChunks(ctx context.Context, overlay map[string]string) []ctxd.Chunk {
	rels := make([]string, 0, len(g.cands))
	for rel := range g.cands {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	idents := g.req.Query.Idents
	chunks := make([]ctxd.Chunk, 0, len(rels))
	for _, rel := range rels {
		if ctx.Err() != nil {
			return nil
		}
		c := g.cands[rel]
		explicit := c.facts.Explicit || c.facts.Open
		var text string
		// raw is text's bytes when they were read from disk (nil
		// otherwise): counted, sniffed and hashed without a copy each.
		var raw []byte
		// stub is set for a minified file known from the index: it is
		// not read at all.
		var stub *fileInfo
		switch {
		case c.text != nil:
			text = *c.text
		case overlay[rel] != "" || hasKey(overlay, rel):
			text = overlay[rel]
			c.facts.Unsaved = true
		default:
			abs := filepath.Join(g.w.root, filepath.FromSlash(rel))
			st, err := os.Stat(abs)
			if err != nil {
				if explicit {
					why := "cannot read it"
					if errors.Is(err, fs.ErrNotExist) {
						why = "no such file"
					}
					g.warnings = append(g.warnings, fmt.Sprintf("skipped %s: %s", rel, why))
				}
				continue
			}
			if st.IsDir() {
				if explicit {
					g.warnings = append(g.warnings, fmt.Sprintf("skipped %s: a directory", rel))
				}
				continue
			}
			if fi := g.snap.byRel[rel]; fi != nil && fi.minified && fi.sameStat(st) {
				stub = fi
				c.facts.ModTime = st.ModTime()
				break
			}
			b, err := readCapped(abs, g.w.opts.MaxFileBytes, nil)
			if err != nil {
				if explicit {
					why := "cannot read it"
					if errors.Is(err, errTooBig) {
						why = fmt.Sprintf("over the size cap of %d bytes", g.w.opts.MaxFileBytes)
					} else if errors.Is(err, safefs.ErrNotRegular) {
						why = "not a regular file"
					}
					g.warnings = append(g.warnings, fmt.Sprintf("skipped %s: %s", rel, why))
				}
				continue
			}
			if isBinary(b) {
				if explicit {
					g.warnings = append(g.warnings, fmt.Sprintf("skipped %s: binary file", rel))
				}
				continue
			}
			text, raw = string(b), b
			c.facts.ModTime = st.ModTime()
		}
		if int64(len(text)) > g.w.opts.MaxFileBytes {
			if explicit {
				g.warnings = append(g.warnings, fmt.Sprintf("skipped %s: over the size cap of %d bytes", rel, g.w.opts.MaxFileBytes))
			}
			continue
		}
		if raw == nil {
			raw = []byte(text)
		}
		f := &c.facts
		f.Language = lang.Of(rel)
		f.Size = int64(len(text))
		f.Lines = countLines(raw)
		switch {
		case stub != nil:
			f.Size, f.Lines, f.Minified = stub.size, stub.lines, true
		case lang.Minified(raw):
			f.Minified = true
		}
		if f.Minified {
			// One line that says why, never the text: see minified.go.
			text = minifiedStub(f.Size, f.Lines)
			raw = []byte(text)
			f.Selection = nil
		}
		if f.Open && !f.Minified {
			// An editor's cursor or selection past the end (a stale
			// position, a typo in --open file:LINE) is dropped, and said. An
			// editor puts the cursor on the line after a final newline.
			if f.Cursor > f.Lines+1 {
				g.warnings = append(g.warnings, fmt.Sprintf("%s: line %d is past its end (%d lines); the cursor is ignored", rel, f.Cursor, f.Lines))
				f.Cursor = 0
			}
			if f.Selection != nil && f.Selection.Start > f.Lines+1 {
				g.warnings = append(g.warnings, fmt.Sprintf("%s: the selection starts past its end (line %d of %d); it is ignored", rel, f.Selection.Start, f.Lines))
				f.Selection = nil
			}
		}
		f.Test = lang.IsTest(rel)
		f.Relevance = c.relevance
		f.LexicalRank = c.lexRank
		if h, place := g.lexical.hit(rel); h != nil {
			m := g.lexical.match(place - 1)
			f.Lexical = &m
		}
		f.SelectedText = selectedText(text, f.Selection)
		for _, id := range idents {
			if strings.Contains(text, id) {
				f.MentionedSymbols = append(f.MentionedSymbols, id)
			}
		}
		sum := sha256.Sum256(raw)
		prio := g.priority(c)
		if prio > ctxd.PriorityMedium && !f.Explicit && !f.Open && f.Role != ctxd.RoleError {
			// Generated files and test data are never the code a task is
			// about: at most MEDIUM, whatever brought them in ("fixture
			// for utils.go" made test.pb.go HIGH for a test task).
			if r := lang.RoleOf(rel, lang.GeneratedHead([]byte(text[:min(len(text), 4096)]))); r == lang.RoleGenerated || r == lang.RoleFixture {
				prio = ctxd.PriorityMedium
			}
		}
		chunks = append(chunks, ctxd.Chunk{
			Source:    rel,
			ChunkType: ctxd.ChunkFile,
			Priority:  prio,
			Hash:      hex.EncodeToString(sum[:]),
			Facts:     *f,
			Content:   text,
		})
	}
	return chunks
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// priority is a candidate's base priority; the table is in
// docs/gathering.md.
func (g *gathering) priority(c *candidate) ctxd.Priority {
	f := &c.facts
	task := g.req.Task
	if f.Open || f.Role == ctxd.RoleError {
		return ctxd.PriorityCritical
	}
	if f.Explicit || f.Mentioned || f.Role == ctxd.RoleTarget {
		return ctxd.PriorityHigh
	}
	p := ctxd.PriorityMedium
	switch f.Role {
	case ctxd.RoleTest:
		if task == ctxd.TaskTest {
			p = ctxd.PriorityHigh
		}
	case ctxd.RoleDependent:
		if task == ctxd.TaskRefactor {
			p = ctxd.PriorityHigh
		}
	case ctxd.RoleRelated:
		switch {
		case containsPrefix(f.Reasons, "same package as") || containsPrefix(f.Reasons, "imported by"):
			p = ctxd.PriorityHigh
		case len(f.Reasons) == 1 && f.Reasons[0] == reasonLexical:
			// A lexical match alone is at most MEDIUM: its strength is
			// scored by the relevance term, so a HIGH base would count it
			// twice and let it overtake the files the user pointed at.
			switch {
			case c.relevance >= 0.5:
				p = ctxd.PriorityMedium
			case c.relevance >= 0.2:
				p = ctxd.PriorityLow
			default:
				p = ctxd.PriorityMinimal // indirect
			}
		}
	}
	switch lang.KindOf(c.rel) {
	case lang.KindDoc, lang.KindExample:
		if p > ctxd.PriorityLow {
			p = ctxd.PriorityLow
		}
	case lang.KindConfig:
		if p > ctxd.PriorityMedium {
			p = ctxd.PriorityMedium
		}
	case lang.KindCode:
		if (f.Dirty || f.CommitRank > 0) && p < ctxd.PriorityHigh {
			p = ctxd.PriorityHigh // recently changed
		}
	}
	return p
}

func containsPrefix(ss []string, prefix string) bool {
	for _, s := range ss {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// structureChunk renders the workspace tree (ignored and secret files
// left out).
func (g *gathering) structureChunk() ctxd.Chunk {
	text := g.snap.structure(g.req.StructureDepth)
	p := ctxd.PriorityMedium
	switch g.req.Task {
	case ctxd.TaskAnalyze:
		p = ctxd.PriorityHigh
	case ctxd.TaskDebug:
		p = ctxd.PriorityLow
	}
	sum := sha256.Sum256([]byte(text))
	return ctxd.Chunk{
		Source:    "structure",
		ChunkType: ctxd.ChunkStructure,
		Priority:  p,
		Hash:      hex.EncodeToString(sum[:]),
		Facts: ctxd.Facts{
			Reasons: []string{fmt.Sprintf("workspace tree to depth %d", g.req.StructureDepth)},
			Lines:   countLines([]byte(text)),
			Size:    int64(len(text)),
		},
		Content: text,
	}
}

// depsChunk summarizes the dependency manifests, or returns nil when the
// workspace has none.
func (g *gathering) depsChunk() *ctxd.Chunk {
	text, warns := g.snap.deps(g.w.root, g.w.opts.MaxFileBytes)
	g.warnings = append(g.warnings, warns...)
	if text == "" {
		return nil
	}
	p := ctxd.PriorityLow
	switch g.req.Task {
	case ctxd.TaskAnalyze:
		p = ctxd.PriorityHigh
	case ctxd.TaskImplement, ctxd.TaskRefactor:
		p = ctxd.PriorityMedium
	}
	c := metaChunk("deps", ctxd.ChunkDependency, p, text, "dependency manifests")
	return &c
}

// commitsOrDefault is Request.Commits as gathered: 0 means DefaultCommits
// (negative turns history off and stays negative).
func commitsOrDefault(n int) int {
	if n == 0 {
		return DefaultCommits
	}
	return n
}

// maxSelectedLines bounds the selected text a chunk carries.
const maxSelectedLines = 80

// selectedText returns the lines of text that sel covers (1-based,
// inclusive), at most maxSelectedLines of them; "" without a selection.
func selectedText(text string, sel *ctxd.LineRange) string {
	if sel == nil || sel.Start < 1 || sel.End < sel.Start {
		return ""
	}
	lines := strings.SplitAfter(text, "\n")
	if sel.Start > len(lines) {
		return ""
	}
	end := min(sel.End, len(lines), sel.Start+maxSelectedLines-1)
	return strings.Join(lines[sel.Start-1:end], "")
}
