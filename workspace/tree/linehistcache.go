package tree

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/lang"
)

// The line histories of every file the last commits changed, read once
// per HEAD off the request path (the daemon's background analysis, eval
// before each replayed commit) with one `git log -U0` of the whole root,
// kept in memory and, beside a persisted index, on disk (the log's hunk
// headers only), like the co-change log. A request reads what is there
// for its HEAD and never waits for the log: before it is read, or after
// HEAD moved, the request has no line history (CachedLineHistories nil).

const (
	// LineHistCommits is how many of the last non-merge commits (of the
	// whole root) the line histories read.
	LineHistCommits = 200
	// lineHistKeep is how many changes of one file are kept, newest first
	// (the rank LineHistory gives reaches this).
	lineHistKeep = 40
	// maxLineLogBytes bounds the output of the line-history log (fastapi's
	// last 200 commits: 2.4 MB, most of it its documentation's).
	maxLineLogBytes = 16 << 20
	// lineLogTimeout bounds the log: it runs in the background, and at a
	// load of 28 on two cores this module's own last 200 commits took
	// 14 s, over gitTimeout.
	lineLogTimeout = 2 * time.Minute
	// lineHistRetry is how long after a failed read (a timeout under
	// load) the line histories of the same HEAD are read again.
	lineHistRetry = 10 * time.Minute
	lineHistMagic = "CTXDLHI1"
	lineHistFile  = "linehist.bin"
)

// LineHistories are the line histories of the files the last
// LineHistCommits commits before Head changed.
type LineHistories struct {
	Head string
	// Commits is how many commits the log read (fewer than asked in a
	// short history; its last one left out when the log was cut).
	Commits int
	changes map[string][][]hunk // per file, newest first
	mapped  map[string]*LineHistory
	// retry, set when the read failed, is when it may be tried again.
	retry time.Time
}

// Of returns the line history of rel (root-relative) at HEAD's content,
// nil when none of the commits read changed it.
func (l *LineHistories) Of(rel string) *LineHistory {
	if l == nil {
		return nil
	}
	return l.mapped[rel]
}

// withDiff returns rel's line history with its uncommitted diff (hunks
// of `git diff HEAD -U0`) as the newest change.
func (l *LineHistories) withDiff(rel string, diff []hunk) *LineHistory {
	var cs [][]hunk
	if l != nil {
		cs = l.changes[rel]
	}
	if len(diff) == 0 {
		return l.Of(rel)
	}
	return mapHistory(append([][]hunk{diff}, cs[:min(len(cs), lineHistKeep-1)]...))
}

// lineHistState is a tree's line histories: the last read (nil before
// one) and the read under way.
type lineHistState struct {
	cur atomic.Pointer[LineHistories]
	mu  sync.Mutex // one read at a time
}

// CachedLineHistories returns the line histories read at head, nil when
// they are not read yet (or were read at another HEAD, or their read
// failed lineHistRetry ago: a request's Kick then reads them again). It
// never runs git.
func (w *Tree) CachedLineHistories(head string) *LineHistories {
	if l := w.git.lineHist.cur.Load(); l != nil && head != "" && l.Head == head && (l.retry.IsZero() || time.Now().Before(l.retry)) {
		return l
	}
	return nil
}

// ReadLineHistories reads, unless it already has them, the line histories
// at the current HEAD: from disk beside a persisted index, else with one
// `git log --no-merges --no-renames --relative -U0 -n LineHistCommits`
// (root commits without their diff).
// Nil outside git or before the first commit. It is for the background
// (the log takes 0.4-2.3 s on the development repositories).
func (w *Tree) ReadLineHistories(ctx context.Context) (*LineHistories, error) {
	head := w.Head()
	if head == "" {
		return nil, nil
	}
	if l := w.CachedLineHistories(head); l != nil {
		return l, nil
	}
	s := w.git
	lh := &s.lineHist
	lh.mu.Lock()
	defer lh.mu.Unlock()
	if l := w.CachedLineHistories(head); l != nil {
		return l, nil
	}
	key := s.gitCacheKey(head, LineHistCommits)
	if body, ok := s.loadLineLog(key); ok {
		l := lineHistoriesOf(head, body, false)
		lh.cur.Store(l)
		return l, nil
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, nil
	}
	// A root commit's diff (the import of the whole tree, every line of
	// every file: 10k files of the Go standard library in one commit)
	// is not read, as co-change leaves it out; its marker stays.
	out, total, err := runGitFor(ctx, w.root, maxLineLogBytes, lineLogTimeout, "-c", "log.showRoot=false", "log", "--no-merges", "--no-renames", "--relative", "-U0",
		"--no-ext-diff", "--format=%x01", fmt.Sprintf("-n%d", LineHistCommits), head)
	if err != nil {
		if ctx.Err() == nil {
			// Not read again at this HEAD for lineHistRetry (every
			// request would ask): the requests rank without line
			// histories.
			lh.cur.Store(&LineHistories{Head: head, retry: time.Now().Add(lineHistRetry)})
		}
		return nil, err
	}
	cut := total > len(out)
	body := compactLog(out, cut)
	l := lineHistoriesOf(head, body, false)
	lh.cur.Store(l)
	s.saveLineLog(key, body)
	return l, nil
}

// DirtyLineHistories returns the line histories of rels (files with
// uncommitted changes) with their uncommitted diff (one `git diff
// <l.Head> -U0` for all of them) as the newest change over l's. The diff
// is against l's HEAD, not the current one: a commit made since l was
// read is then part of the newest change, where a diff against the new
// HEAD would leave it out and map l's lines to the wrong places.
func (w *Tree) DirtyLineHistories(ctx context.Context, l *LineHistories, rels []string) (map[string]*LineHistory, error) {
	if len(rels) == 0 {
		return nil, nil
	}
	base := "HEAD"
	if l != nil && l.Head != "" {
		base = l.Head
	}
	d, _, err := runGit(ctx, w.root, maxLineHistoryBytes, append([]string{"diff", "--no-renames", "--relative", "-U0", "--no-ext-diff", base, "--"}, rels...)...)
	if err != nil {
		return nil, err
	}
	hs := parseHunks(d)
	out := make(map[string]*LineHistory, len(rels))
	for _, rel := range rels {
		if h := l.withDiff(rel, hs[rel]); h != nil {
			out[rel] = h
		}
	}
	return out, nil
}

// lineHistoriesOf maps a compacted log (compactLog) onto each code file's
// current lines.
func lineHistoriesOf(head string, body []byte, cut bool) *LineHistories {
	l := &LineHistories{Head: head, changes: map[string][][]hunk{}, mapped: map[string]*LineHistory{}}
	l.Commits = bytes.Count(body, []byte{1})
	for f, cs := range logHunks(body, cut) {
		switch lang.Of(f) {
		case "", "markdown", "text", "json", "yaml", "toml":
			continue // no definitions to rank
		}
		cs = cs[:min(len(cs), lineHistKeep)]
		l.changes[f] = slices.Clip(cs)
		l.mapped[f] = mapHistory(cs)
	}
	return l
}

// compactLog keeps of a `git log -U0 --format=%x01` output what the line
// histories read: the commit markers, each file's "+++ " line and its
// hunk headers, skipping the hunks' lines by their counts (an added line
// "++ x" reads "+++ x"). A cut last commit is left out.
func compactLog(out []byte, cut bool) []byte {
	if cut {
		if k := bytes.LastIndexByte(out, 1); k >= 0 {
			out = out[:k]
		}
	}
	var b bytes.Buffer
	skip := 0
	for len(out) > 0 {
		line := out
		if k := bytes.IndexByte(out, '\n'); k >= 0 {
			line, out = out[:k], out[k+1:]
		} else {
			out = nil
		}
		if len(line) > 0 && line[0] == '\\' {
			continue // "\ No newline at end of file"
		}
		if skip > 0 {
			skip--
			continue
		}
		switch {
		case len(line) > 0 && line[0] == 1:
			b.WriteString("\x01\n")
		case bytes.HasPrefix(line, []byte("diff --git ")):
			b.WriteString("diff --git \n") // a file's start: its path is the "+++ " line's
		case bytes.HasPrefix(line, []byte("+++ ")):
			b.Write(line)
			b.WriteByte('\n')
		case bytes.HasPrefix(line, []byte("@@ ")):
			if h, ok := parseHunk(string(line)); ok {
				if k := bytes.Index(line[2:], []byte("@@")); k >= 0 {
					line = line[:k+4]
				}
				b.Write(line)
				b.WriteByte('\n')
				skip = h.b + h.d
			}
		}
	}
	return b.Bytes()
}

// loadLineLog returns the persisted compacted line-history log for key.
func (s *gitState) loadLineLog(key string) ([]byte, bool) {
	if s.state == nil {
		return nil, false
	}
	body, err := s.state.ReadSealed(lineHistFile, lineHistMagic, key, maxLineLogBytes)
	if err == nil && !plausibleLineLog(body) {
		err = fmt.Errorf("%s: hunks of more lines than a log of %d bytes holds", lineHistFile, maxLineLogBytes)
	}
	if err == nil {
		return body, true
	}
	if !index.IsRebuild(err) {
		s.log.Warn("persisted line histories not used: reading them again", "err", err)
	}
	return nil, false
}

// plausibleLineLog reports whether a compacted log could come from a log
// of at most maxLineLogBytes: every line of its hunks took at least two
// bytes there ("+" or "-" and the newline). A sealed file that is not
// (written by hand) would have mapHistory take each of its lines into
// memory, up to 2^31 of them.
func plausibleLineLog(body []byte) bool {
	lines := 0
	for line := range bytes.Lines(body) {
		if !bytes.HasPrefix(line, []byte("@@ ")) {
			continue
		}
		if h, ok := parseHunk(string(bytes.TrimSuffix(line, []byte("\n")))); ok {
			if lines += h.b + h.d; lines > maxLineLogBytes/2 {
				return false
			}
		}
	}
	return true
}

func (s *gitState) saveLineLog(key string, body []byte) {
	if !s.saving() {
		return
	}
	if err := s.state.WriteSealed(lineHistFile, lineHistMagic, key, body); err != nil {
		s.log.Warn("persisting the line histories failed", "err", err)
	}
}

// WithPatch returns rel's line history with its uncommitted changes as
// the newest change, their hunks read from d's patch (`git diff HEAD`,
// with context) instead of running git: nil and true when neither they
// nor the commits read touched it; ok false when the patch does not hold
// rel's changes whole (no patch, cut inside rel's section, a quoted
// name) or is against another commit than l's (HEAD moved between the
// request's diff and the read of l): then DirtyLineHistories reads them.
func (l *LineHistories) WithPatch(rel string, d *Diff) (h *LineHistory, ok bool) {
	if d == nil || d.Patch == "" || d.Head != l.Head {
		return nil, false
	}
	hs, closed, ok := patchHunks(d.Patch, rel)
	if !ok || d.Cut && !closed {
		return nil, false // a cut patch's last section may miss hunks
	}
	return l.withDiff(rel, hs), true
}

// patchHunks returns the changes of rel in a unified diff with context as
// `-U0` hunks would give them (runs of removed and added lines; a is the
// line before an insertion, c the line before a deletion); false when
// rel has no section or its last hunk is cut short; closed when another
// file's section follows rel's.
func patchHunks(patch, rel string) (hs []hunk, closed, ok bool) {
	header := "+++ b/" + rel
	var out []hunk
	in, found := false, false
	var old, cur, remOld, remNew int // positions and the hunk's lines left
	run := hunk{}
	open := false
	flush := func() {
		if !open {
			return
		}
		if run.b == 0 {
			run.a--
		}
		if run.d == 0 {
			run.c--
		}
		out = append(out, run)
		open = false
	}
	for len(patch) > 0 {
		line := patch
		if k := strings.IndexByte(patch, '\n'); k >= 0 {
			line, patch = patch[:k], patch[k+1:]
		} else {
			patch = ""
		}
		if remOld > 0 || remNew > 0 {
			if line == "" {
				return nil, false, false
			}
			switch line[0] {
			case ' ':
				flush()
				old, cur = old+1, cur+1
				remOld, remNew = remOld-1, remNew-1
			case '-':
				if !open {
					run, open = hunk{a: old, c: cur}, true
				}
				run.b++
				old, remOld = old+1, remOld-1
			case '+':
				if !open {
					run, open = hunk{a: old, c: cur}, true
				}
				run.d++
				cur, remNew = cur+1, remNew-1
			case '\\':
			default:
				return nil, false, false
			}
			if !in {
				open = false
			}
			if remOld <= 0 && remNew <= 0 {
				flush()
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "diff --git "):
			if in {
				return out, true, true
			}
		case line == header:
			in, found = true, true
		case strings.HasPrefix(line, "@@ "):
			// Every file's hunks are counted through (an added line
			// "++ b/x" reads "+++ b/x"); rel's are kept.
			x, ok := parseHunk(line)
			if !ok {
				return nil, false, false
			}
			old, cur, remOld, remNew = x.a, x.c, x.b, x.d
			if x.b == 0 {
				old++ // "-a,0": the insertion follows old line a
			}
			if x.d == 0 {
				cur++
			}
		}
	}
	if remOld > 0 || remNew > 0 {
		return nil, false, false // cut inside a hunk
	}
	return out, false, found
}
