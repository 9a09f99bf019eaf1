package tree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/graph"
	"github.com/ctxd/ctxd/internal/patience"
	"github.com/ctxd/ctxd/lang"
)

// Bounds of the git work.
const (
	gitTimeout       = 10 * time.Second // per git CLI command and per log walk
	maxDiffBytes     = 32 << 10         // the diff chunk is cut here
	maxCommitFiles   = 50               // files listed per commit
	maxUntrackedList = 100              // untracked names listed
	objectCacheSize  = 32 * cache.MiByte
)

// Commit is one commit of the recent history.
type Commit struct {
	Hash    string
	Author  string
	Email   string
	Date    time.Time
	Subject string
	// Files are the root-relative paths the commit changed against its
	// first parent (all files for a root commit), sorted, at most 50;
	// FilesTotal counts them all. Files outside the workspace root are
	// left out.
	Files      []string
	FilesTotal int
}

// Change is one uncommitted change.
type Change struct {
	// Path is root-relative.
	Path string
	// Status is git's two-letter porcelain status ("M ", " M", "A ",
	// "??", "D ", "R ", ...), or a go-git status code in the fallback.
	Status string
}

// Diff is the uncommitted state of a workspace.
type Diff struct {
	// Patch is `git diff HEAD` limited to the root, with the sections of
	// secret files left out, cut at 32 KiB (Cut reports that). Empty in the
	// go-git fallback, which lists changes only.
	Patch string
	Cut   bool
	// Total is the patch's full size in bytes, before the cut.
	Total int
	// Changes are every changed or untracked (not ignored) file.
	Changes []Change
	// SecretsLeftOut counts the changes to secret files dropped.
	SecretsLeftOut int
	// Via is "git" (the CLI) or "go-git" (fallback).
	Via string
	// Head is the commit Patch is against (empty without a patch).
	Head string
}

// repoHandle is a repository's go-git storage opened with kept
// descriptors and an object LRU, and its worktree, the workspace's git
// top-level (gitrepo.go reads them).
type repoHandle struct {
	storage  *filesystem.Storage
	worktree billy.Filesystem
	top      string // git top-level
	prefix   string // root below top, slash-separated, "" at the top
}

// openRepo opens the repository holding root, or returns (nil, nil) when
// there is none.
func openRepo(root string) (*repoHandle, error) {
	top := gitTop(root)
	if top == "" {
		return nil, nil
	}
	gitDir, warns := findGitDir(top)
	if gitDir == "" {
		return nil, fmt.Errorf("open repository at %s: %s", top, strings.Join(warns, "; "))
	}
	dot, err := repoFilesystem(gitDir)
	if err != nil {
		return nil, fmt.Errorf("open repository at %s: %w", top, err)
	}
	st := filesystem.NewStorageWithOptions(dot, cache.NewObjectLRU(objectCacheSize), filesystem.Options{KeepDescriptors: true})
	if err := checkRepo(st); err != nil {
		st.Close()
		return nil, fmt.Errorf("open repository at %s: %w", top, err)
	}
	h := &repoHandle{storage: st, worktree: osfs.New(top), top: top}
	if r, ok := within(top, root); ok && r != "." {
		h.prefix = filepath.ToSlash(r)
	}
	return h, nil
}

// repoFilesystem returns the filesystem of gitDir. In a linked worktree
// (created by git worktree add) gitDir holds only HEAD, the index and a
// "commondir" file naming the main repository's .git, where the objects and
// refs live; the result then reads from both, as go-git's PlainOpenOptions
// EnableDotGitCommonDir does (done by hand here to keep the object cache
// and descriptor options above).
func repoFilesystem(gitDir string) (billy.Filesystem, error) {
	dot := osfs.New(gitDir)
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if errors.Is(err, fs.ErrNotExist) {
		return dot, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read commondir: %w", err)
	}
	common := strings.TrimSpace(string(b))
	if common == "" {
		return dot, nil
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	if _, err := os.Stat(common); err != nil {
		return nil, fmt.Errorf("common git directory: %w", err)
	}
	return dotgit.NewRepositoryFilesystem(dot, osfs.New(common)), nil
}

func (h *repoHandle) close() error {
	if h == nil {
		return nil
	}
	return h.storage.Close()
}

// toRoot maps a top-relative git path to a root-relative one.
func (h *repoHandle) toRoot(p string) (string, bool) {
	if h.prefix == "" {
		return p, true
	}
	return strings.CutPrefix(p, h.prefix+"/")
}

// log walks the last n commits.
func (h *repoHandle) log(ctx context.Context, n int) ([]Commit, error) {
	if n <= 0 {
		return nil, nil
	}
	head, err := h.head()
	if err != nil {
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return nil, nil // no commits yet
		}
		return nil, fmt.Errorf("read HEAD: %w", err)
	}
	iter, err := h.logFrom(head.Hash())
	if err != nil {
		return nil, fmt.Errorf("read log: %w", err)
	}
	defer iter.Close()
	var out []Commit
	for len(out) < n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := iter.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			// A missing object (a shallow clone's boundary) ends the
			// walk: the commits read so far are returned with the error.
			return out, fmt.Errorf("read log: %w", err)
		}
		files, err := h.changedFiles(ctx, c)
		if err != nil {
			return out, fmt.Errorf("read commit %s: %w", c.Hash.String()[:12], err)
		}
		subject, _, _ := strings.Cut(strings.TrimSpace(c.Message), "\n")
		cm := Commit{
			Hash:       c.Hash.String(),
			Author:     c.Author.Name,
			Email:      c.Author.Email,
			Date:       c.Author.When,
			Subject:    strings.TrimSpace(subject),
			FilesTotal: len(files),
		}
		if len(files) > maxCommitFiles {
			// A copy: the whole list's array (and so every name in it)
			// would stay live behind the first few otherwise, as long as
			// the commits are cached (a first commit of a 100k-file tree:
			// ~7 MB).
			files = slices.Clone(files[:maxCommitFiles])
		}
		cm.Files = files
		out = append(out, cm)
	}
	return out, nil
}

// changedFiles lists the root-relative files a commit changed against its
// first parent.
func (h *repoHandle) changedFiles(ctx context.Context, c *object.Commit) ([]string, error) {
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	var names []string
	if c.NumParents() == 0 {
		// A tree walk reads tree objects only; Files would load every
		// blob.
		tw := object.NewTreeWalker(tree, true, nil)
		defer tw.Close()
		for i := 0; ; i++ {
			if i%1024 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			name, entry, err := tw.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			if entry.Mode.IsFile() {
				names = append(names, name)
			}
		}
	} else {
		parent, err := c.Parent(0)
		if err != nil {
			return nil, err
		}
		ptree, err := parent.Tree()
		if err != nil {
			return nil, err
		}
		changes, err := object.DiffTreeWithOptions(ctx, ptree, tree, &object.DiffTreeOptions{})
		if err != nil {
			return nil, err
		}
		for _, ch := range changes {
			name := ch.To.Name
			if name == "" {
				name = ch.From.Name
			}
			names = append(names, name)
		}
	}
	var out []string
	for _, n := range names {
		if r, ok := h.toRoot(n); ok {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out, nil
}

// GitDiff returns the uncommitted changes of the repository holding root,
// limited to root: with the git CLI when it is installed (`git status
// --porcelain` and `git diff HEAD`), else with go-git's worktree status
// (names only). keep, when not nil, filters the listed files (the
// workspace passes its walk, which also honors .ctxdignore); secret files
// are always left out, their diff sections too. A root outside any
// repository has no changes.
func GitDiff(ctx context.Context, root string, keep func(rel string) bool) (*Diff, error) {
	top := gitTop(root)
	if top == "" {
		return &Diff{}, nil
	}
	if _, err := exec.LookPath("git"); err == nil {
		return cliDiff(ctx, root, top, keep)
	}
	h, err := openRepo(root)
	if err != nil || h == nil {
		return &Diff{}, err
	}
	defer h.close()
	return h.goGitDiff(keep)
}

// gitEnv is the environment ctxd's git commands run with, after the
// user's: no optional locks, no prompt, the C locale, and no network. In
// a partial clone git fetches a missing object from the promisor remote
// on its own (a lazy fetch: `git log -U0` over old commits needs their
// blobs); ctxd makes no network call, so the read fails instead
// (GIT_NO_LAZY_FETCH, git >= 2.44, says so at once; an empty
// GIT_ALLOW_PROTOCOL refuses every transport on any git, file:// too).
var gitEnv = []string{"GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_NO_LAZY_FETCH=1", "GIT_ALLOW_PROTOCOL="}

// runGit runs the git CLI in dir with a timeout, without optional locks
// (a status must never take the index lock from the user's git).
func runGit(ctx context.Context, dir string, limit int, args ...string) (out []byte, total int, err error) {
	return runGitFor(ctx, dir, limit, gitTimeout, args...)
}

// runGitFor is runGit with another timeout than gitTimeout (a background
// read). The timeout is lifted under a patience.Unbounded ctx (ctxd eval),
// which counts the commands that run out of it anyway.
func runGitFor(ctx context.Context, dir string, limit int, timeout time.Duration, args ...string) (out []byte, total int, err error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, patience.Limit(ctx, timeout))
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"--no-optional-locks", "-c", "core.quotePath=false", "-c", "color.ui=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), gitEnv...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	lw := &limitWriter{limit: limit}
	cmd.Stdout = lw
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			if parent.Err() == nil {
				patience.GitTimedOut(parent)
			}
			return nil, 0, fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return nil, 0, fmt.Errorf("git %s: %w: %s", args[0], err, msg)
	}
	return lw.buf.Bytes(), lw.total, nil
}

// limitWriter keeps the first limit bytes (all when limit <= 0) and counts
// the rest.
type limitWriter struct {
	buf   bytes.Buffer
	limit int
	total int
}

func (w *limitWriter) Write(p []byte) (int, error) {
	w.total += len(p)
	if w.limit <= 0 {
		return w.buf.Write(p)
	}
	if room := w.limit - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func cliDiff(ctx context.Context, root, top string, keep func(string) bool) (*Diff, error) {
	d := &Diff{Via: "git"}
	prefix := ""
	if r, ok := within(top, root); ok && r != "." {
		prefix = filepath.ToSlash(r) + "/"
	}
	status, _, err := runGit(ctx, root, 0, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
	if err != nil {
		return nil, fmt.Errorf("read status: %w", err)
	}
	fields := strings.Split(string(status), "\x00")
	// tracked: status lists a change to a tracked file (anything but an
	// untracked one, secret or not, in the root or not). Without one,
	// `git diff HEAD` has nothing to print, and neither it nor rev-parse
	// runs: on a clean tree that spares a second stat of every file.
	tracked := false
	for i := 0; i < len(fields); i++ {
		e := fields[i]
		if len(e) < 4 {
			continue
		}
		st, p := e[:2], e[3:]
		if st != "??" {
			tracked = true
		}
		if st[0] == 'R' || st[0] == 'C' {
			i++ // the source path follows
		}
		rel, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		if lang.IsSecret(rel) {
			d.SecretsLeftOut++
			continue
		}
		if st != "??" || keep == nil || keep(rel) {
			d.Changes = append(d.Changes, Change{Path: rel, Status: st})
		}
	}
	if !tracked {
		return d, nil
	}
	head, _, err := runGit(ctx, root, 0, "rev-parse", "-q", "--verify", "HEAD")
	if err != nil {
		return d, nil // no commit yet: nothing to diff against
	}
	// The diff is against that commit, not the name HEAD, so Head is what
	// the patch is against even when a commit lands in between.
	d.Head = strings.TrimSpace(string(head))
	// Read a little more than the cap so dropped secret sections do not
	// leave the chunk short.
	patch, total, err := runGit(ctx, root, 4*maxDiffBytes, "diff", d.Head, "--no-ext-diff", "--no-textconv", "--relative", "--", ".")
	if err != nil {
		return nil, fmt.Errorf("read diff: %w", err)
	}
	kept, _ := dropSecretSections(string(patch))
	d.Total = total
	if total > len(patch) || len(kept) > maxDiffBytes {
		d.Cut = true
		if len(kept) > maxDiffBytes {
			kept = kept[:maxDiffBytes]
			if i := strings.LastIndexByte(kept, '\n'); i > 0 {
				kept = kept[:i+1]
			}
		}
	}
	d.Patch = kept
	return d, nil
}

// dropSecretSections removes the per-file sections of a unified diff whose
// file is secret, and returns how many it dropped.
func dropSecretSections(patch string) (string, int) {
	if patch == "" {
		return "", 0
	}
	var b strings.Builder
	dropped := 0
	skip := false
	for line := range strings.Lines(patch) {
		if rest, ok := strings.CutPrefix(line, "diff --git "); ok {
			skip = false
			for _, f := range strings.Fields(rest) {
				f = strings.TrimPrefix(strings.TrimPrefix(f, "a/"), "b/")
				if lang.IsSecret(strings.Trim(f, "\"")) {
					skip = true
				}
			}
			if skip {
				dropped++
			}
		}
		if !skip {
			b.WriteString(line)
		}
	}
	return b.String(), dropped
}

// goGitDiff lists changes with go-git's worktree status. It is much slower
// than git's and ignores .git/info/exclude, so keep (the walk) filters the
// untracked files.
func (h *repoHandle) goGitDiff(keep func(string) bool) (*Diff, error) {
	d := &Diff{Via: "go-git"}
	st, err := h.status()
	if err != nil {
		return nil, fmt.Errorf("read status: %w", err)
	}
	for p, fs := range st {
		rel, ok := h.toRoot(p)
		if !ok {
			continue
		}
		if fs.Staging == stUnmodified && fs.Worktree == stUnmodified {
			continue
		}
		if lang.IsSecret(rel) {
			d.SecretsLeftOut++
			continue
		}
		code := string([]byte{fs.Staging, fs.Worktree})
		if fs.Worktree == stUntracked && keep != nil && !keep(rel) {
			continue
		}
		d.Changes = append(d.Changes, Change{Path: rel, Status: code})
	}
	sort.Slice(d.Changes, func(i, j int) bool { return d.Changes[i].Path < d.Changes[j].Path })
	return d, nil
}

// gitState is a workspace's git facts, cached by HEAD: the log is read
// again only when HEAD moves; the status and diff are read on every Gather
// (they change with every edit).
type gitState struct {
	root string
	log  *slog.Logger
	// state, when set, is where the facts that depend on HEAD alone
	// persist (gitcache.go).
	state State
	// histCommits is how many commits the co-change history reads
	// (LinkOptions.Commits).
	histCommits int

	// mu guards everything below; go-git's repository is not safe for
	// concurrent use.
	mu      sync.Mutex
	handle  *repoHandle
	opened  bool
	headKey string
	Commits []Commit

	// histKey is the HEAD the co-change history was read at; msgs is
	// the same commits' subjects (messages.go).
	histKey string
	hist    *graph.History
	msgs    *Messages

	// lineHist is the line histories read per HEAD (linehistcache.go).
	lineHist lineHistState

	// refMu guards refs, a second handle of the same repository that
	// reads HEAD only (Head), so that a request asking which commit HEAD
	// is never waits behind a log walk or a co-change log holding mu.
	refMu      sync.Mutex
	refs       *repoHandle
	refsOpened bool
}

func newGitState(root string, log *slog.Logger, commits int) *gitState {
	return &gitState{root: root, log: log, histCommits: commits}
}

func (s *gitState) close() error {
	s.mu.Lock()
	err := s.handle.close()
	s.handle = nil
	s.opened = false
	s.mu.Unlock()
	s.refMu.Lock()
	defer s.refMu.Unlock()
	err = errors.Join(err, s.refs.close())
	s.refs = nil
	s.refsOpened = false
	return err
}

// gitInfo is what one Gather learned from git.
type GitInfo struct {
	Commits    []Commit
	CommitRank map[string]int // 1 = changed in the newest commit
	Dirty      map[string]bool
	Diff       *Diff
	// history is the co-change history (links.go), nil without git.
	History *graph.History
	// Messages is the same commits' subjects and files (messages.go),
	// nil without git.
	Messages *Messages
}

// facts reads the recent history (n commits; none when n < 0) and the
// uncommitted changes. Problems are warnings: a workspace without git
// still gathers.
// shallow reports a shallow clone (asked only when the history walk met
// a missing object).
func (s *gitState) shallow(ctx context.Context) bool {
	out, _, err := runGit(ctx, s.root, 64, "rev-parse", "--is-shallow-repository")
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

func (s *gitState) facts(ctx context.Context, n int, keep func(string) bool) (*GitInfo, []string) {
	if gitTop(s.root) == "" {
		return nil, nil
	}
	var warnings []string
	gi := &GitInfo{CommitRank: map[string]int{}, Dirty: map[string]bool{}}
	if n > 0 {
		commits, err := s.recent(ctx, n)
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return nil, nil
		case errors.Is(err, plumbing.ErrObjectNotFound) && s.shallow(ctx):
			warnings = append(warnings, fmt.Sprintf("git history is shallow (a shallow clone: %d commits read before its boundary): recency and co-change cover only those; git fetch --unshallow brings the rest", len(commits)))
		default:
			warnings = append(warnings, fmt.Sprintf("git history unavailable: %v", err))
			commits = nil
		}
		gi.Commits = commits
		gi.History, gi.Messages = s.history(ctx)
		for i, c := range commits {
			for _, f := range c.Files {
				if _, ok := gi.CommitRank[f]; !ok {
					gi.CommitRank[f] = i + 1
				}
			}
		}
	}
	d, err := GitDiff(ctx, s.root, keep)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil
		}
		warnings = append(warnings, fmt.Sprintf("uncommitted changes unavailable: %v", err))
	} else {
		gi.Diff = d
		for _, c := range d.Changes {
			gi.Dirty[c.Path] = true
		}
	}
	return gi, warnings
}

// recent returns the last n commits, from the cache when HEAD has not
// moved.
func (s *gitState) recent(ctx context.Context, n int) ([]Commit, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.opened {
		h, err := openRepo(s.root)
		if err != nil {
			return nil, err
		}
		s.handle, s.opened = h, true
	}
	if s.handle == nil {
		return nil, nil
	}
	head, err := s.handle.head()
	if err != nil {
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return nil, nil
		}
		return nil, fmt.Errorf("read HEAD: %w", err)
	}
	key := fmt.Sprintf("%s/%d", head.Hash(), n)
	if key == s.headKey {
		return s.Commits, nil
	}
	ckey := s.gitCacheKey(head.Hash().String(), n)
	if commits, ok := s.loadCommits(ckey); ok {
		s.headKey, s.Commits = key, commits
		return commits, nil
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, patience.Limit(ctx, gitTimeout))
	defer cancel()
	commits, err := s.handle.log(ctx, n)
	if err != nil {
		if ctx.Err() != nil && parent.Err() == nil {
			patience.GitTimedOut(parent)
		}
		return commits, err // not cached: what it read, and why it stopped
	}
	s.headKey, s.Commits = key, commits
	s.saveCommits(ckey, commits)
	return commits, nil
}

// maxHistoryBytes bounds the output of the co-change log.
const maxHistoryBytes = 8 << 20

// history returns the co-change history (the last LinkOptions.Commits non-merge
// commits' changed files, root-relative) and the same commits' subjects,
// read with the git CLI once per HEAD; nil when git or the log is
// unavailable (co-change and the messages' signal are then left out,
// nothing else changes).
func (s *gitState) history(ctx context.Context) (*graph.History, *Messages) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handle == nil {
		return nil, nil
	}
	head, err := s.handle.head()
	if err != nil {
		return nil, nil
	}
	key := fmt.Sprintf("%s/%d", head.Hash(), s.histCommits)
	if key == s.histKey {
		return s.hist, s.msgs
	}
	ckey := s.gitCacheKey(head.Hash().String(), s.histCommits)
	if out, cut, ok := s.loadHistory(ckey); ok {
		s.setHistory(key, out, cut)
		return s.hist, s.msgs
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, nil
	}
	// --relative limits the log to the root and makes paths relative to it.
	out, total, err := runGit(ctx, s.root, maxHistoryBytes, "log", "--no-merges", "--no-renames", "--relative",
		"--name-only", "--format=%x01%P%x02%s", fmt.Sprintf("-n%d", s.histCommits), head.Hash().String())
	if err != nil {
		s.log.Debug("co-change history unavailable", "error", err)
		return nil, nil
	}
	cut := total > len(out)
	s.setHistory(key, out, cut)
	s.saveHistory(ckey, out, cut)
	return s.hist, s.msgs
}

// setHistory reads the history log's output into the co-change history
// and the messages, for key.
func (s *gitState) setHistory(key string, out []byte, cut bool) {
	commits, subjects := parseLog(out, cut)
	s.histKey, s.hist, s.msgs = key, graph.NewHistory(commits, 0), NewMessages(subjects, commits)
}

// parseLog splits `git log --name-only --format=%x01%P%x02%s` output into
// the files and the subject of each commit. Root commits (no parents: an
// import of the whole tree, not a change) and a cut last commit are
// dropped.
func parseLog(out []byte, cut bool) (commits [][]string, subjects []string) {
	parts := strings.Split(string(out), "\x01")
	for k, part := range parts {
		if k == 0 {
			continue // before the first marker
		}
		if k == len(parts)-1 && cut {
			break
		}
		first, names, _ := strings.Cut(part, "\n")
		parents, subject, _ := strings.Cut(first, "\x02")
		if strings.TrimSpace(parents) == "" {
			continue
		}
		var files []string
		for _, line := range strings.Split(names, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				files = append(files, line)
			}
		}
		commits = append(commits, files)
		subjects = append(subjects, subject)
	}
	return commits, subjects
}

// FormatLog renders commits one per line with their files below.
func FormatLog(cs []Commit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Recent commits, newest first:\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "%s %s %s: %s\n", c.Hash[:min(10, len(c.Hash))], c.Date.UTC().Format("2006-01-02"), c.Author, c.Subject)
		if len(c.Files) > 0 {
			b.WriteString("  files: ")
			for i, f := range c.Files {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(ctxd.EscapeName(f)) // names are data
			}
			if c.FilesTotal > len(c.Files) {
				fmt.Fprintf(&b, " (+%d more)", c.FilesTotal-len(c.Files))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// FormatDiff renders the uncommitted changes: the patch, then the files
// git does not track yet.
func FormatDiff(d *Diff) string {
	var b strings.Builder
	var untracked []string
	var changed []string
	for _, c := range d.Changes {
		if c.Status == "??" || d.Via == "go-git" && strings.Contains(c.Status, "?") {
			untracked = append(untracked, c.Path)
		} else {
			changed = append(changed, fmt.Sprintf("%s %s", strings.TrimSpace(c.Status), c.Path))
		}
	}
	if d.Patch != "" {
		b.WriteString("Uncommitted changes (git diff HEAD):\n")
		b.WriteString(d.Patch)
		if d.Cut {
			fmt.Fprintf(&b, "[diff cut at %d of %d bytes]\n", len(d.Patch), d.Total)
		}
	} else if len(changed) > 0 {
		fmt.Fprintf(&b, "Uncommitted changes (%s status; no patch):\n", d.Via)
		for _, c := range changed {
			fmt.Fprintf(&b, "  %s\n", c)
		}
	}
	if len(untracked) > 0 {
		b.WriteString("Untracked files:\n")
		for i, u := range untracked {
			if i == maxUntrackedList {
				fmt.Fprintf(&b, "  … %d more\n", len(untracked)-i)
				break
			}
			fmt.Fprintf(&b, "  %s\n", u)
		}
	}
	if d.SecretsLeftOut > 0 {
		fmt.Fprintf(&b, "(%s left out)\n", ctxd.Plural(d.SecretsLeftOut, "change to a secret file", "changes to secret files"))
	}
	return b.String()
}
