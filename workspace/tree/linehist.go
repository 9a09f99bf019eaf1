package tree

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/internal/udiff"
)

// LineHistory is where a file's recent commits (and its uncommitted
// changes) landed, mapped onto the file's current lines: each touched
// run of current lines with the rank of the newest change that touched
// it, 1 for the newest change of the file (its uncommitted diff when it
// has one, else the last commit that changed it), 2 for the one before.
// The definitions holding those lines are where the next change most
// often lands (engine's focus ladder).
type LineHistory struct {
	Runs []LineRun // ascending by Start, disjoint
	// Changes is how many changes (commits, and the uncommitted diff)
	// were read.
	Changes int
}

// LineRun is a run of current lines [Start, End] a change touched, and
// the change's rank ([LineHistory]).
type LineRun struct{ Start, End, Rank int }

// Newest returns the rank of the newest change touching a line of
// [from, to], 0 when none did.
func (h *LineHistory) Newest(from, to int) int {
	best := 0
	if h == nil {
		return 0
	}
	for _, r := range h.Runs {
		if r.Start > to {
			break
		}
		if r.End >= from && (best == 0 || r.Rank < best) {
			best = r.Rank
		}
	}
	return best
}

// maxLineHistoryBytes bounds the output of one line-history log.
const maxLineHistoryBytes = 4 << 20

// hunk is one `@@ -a,b +c,d @@` of a unified diff with no context: b
// old lines from a replaced by d new lines from c (a is the line before
// an insertion when b is 0, c the line before a deletion when d is 0).
type hunk struct{ a, b, c, d int }

// LineHistories reads, with one `git log -U0`, the last commits (at most
// commits of them) that changed any of rels (root-relative paths) before
// HEAD, and for each of dirty (rels with uncommitted changes) `git diff
// HEAD -U0`, and maps each change onto the files' current lines. A file
// git does not know, or with no change read, has no entry. Renames are
// not followed.
func (w *Tree) LineHistories(ctx context.Context, rels, dirty []string, commits int) (map[string]*LineHistory, error) {
	if len(rels) == 0 || commits <= 0 || gitTop(w.root) == "" {
		return nil, nil
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, nil
	}
	args := append([]string{"log", "--no-merges", "--no-renames", "--relative", "-U0", "--no-ext-diff", "--format=%x01",
		fmt.Sprintf("-n%d", commits), "HEAD", "--"}, rels...)
	out, total, err := runGit(ctx, w.root, maxLineHistoryBytes, args...)
	if err != nil {
		return nil, err
	}
	changes := logHunks(out, total > len(out))
	for _, rel := range dirty {
		if !slices.Contains(rels, rel) {
			continue
		}
		d, _, err := runGit(ctx, w.root, maxLineHistoryBytes, "diff", "--no-renames", "--relative", "-U0", "--no-ext-diff", "HEAD", "--", rel)
		if err != nil {
			return nil, err
		}
		if hs := parseHunks(d)[rel]; len(hs) > 0 {
			changes[rel] = append([][]hunk{hs}, changes[rel]...)
		}
	}
	res := map[string]*LineHistory{}
	for f, cs := range changes {
		res[f] = mapHistory(cs)
	}
	return res, nil
}

// logHunks returns each file's hunks per commit, newest first, of a
// `git log -U0 --format=%x01` output (cut: its last commit cut short, left
// out).
func logHunks(out []byte, cut bool) map[string][][]hunk {
	changes := map[string][][]hunk{}
	parts := bytes.Split(out, []byte{1})
	for k, part := range parts {
		if k == 0 || cut && k == len(parts)-1 {
			continue // before the first commit; a cut last commit
		}
		for f, hs := range parseHunks(part) {
			changes[f] = append(changes[f], hs)
		}
	}
	return changes
}

// LineHistoriesOfLog is [Tree.LineHistories] of a `git log --no-merges
// --no-renames --relative -U0 --format=%x01` output read elsewhere (an
// offline measurement's, at another commit than HEAD).
func LineHistoriesOfLog(out []byte) map[string]*LineHistory {
	res := map[string]*LineHistory{}
	for f, cs := range logHunks(out, false) {
		res[f] = mapHistory(cs)
	}
	return res
}

// parseHunks returns the hunks of each file of a unified diff with no
// context (`-U0`), by the new side's path; a deleted file has none.
func parseHunks(b []byte) map[string][]hunk {
	out := map[string][]hunk{}
	file := ""
	for len(b) > 0 {
		line := b
		if k := bytes.IndexByte(b, '\n'); k >= 0 {
			line, b = b[:k], b[k+1:]
		} else {
			b = nil
		}
		switch {
		case bytes.HasPrefix(line, []byte("diff --git ")):
			file = ""
		case bytes.HasPrefix(line, []byte("+++ ")):
			name := string(line[4:])
			if strings.HasPrefix(name, "b/") {
				file = name[2:]
			} else {
				file = "" // /dev/null or a quoted name
			}
		case file != "" && bytes.HasPrefix(line, []byte("@@ ")):
			if h, ok := parseHunk(string(line)); ok {
				out[file] = append(out[file], h)
			}
		}
	}
	return out
}

// parseHunk reads a hunk header line (udiff.HunkHeader).
func parseHunk(line string) (hunk, bool) {
	old, new, ok := udiff.HunkHeader(line)
	return hunk{old.Start, old.Lines, new.Start, new.Lines}, ok
}

// mapHistory maps each change's new lines (cs, newest first) onto the
// newest version: through every newer change's hunks, a line outside
// them moved by the lines they added above it, one inside a newer hunk's
// old lines is that change's (already counted newer) and dropped.
func mapHistory(cs [][]hunk) *LineHistory {
	rank := map[int]int{} // current line: its newest change
	for i, hs := range cs {
		for _, x := range hs {
			for l := x.c; l < x.c+x.d; l++ {
				cur, ok := l, true
				for j := i - 1; j >= 0 && ok; j-- {
					cur, ok = through(cs[j], cur)
				}
				if _, seen := rank[cur]; ok && !seen {
					rank[cur] = i + 1
				}
			}
		}
	}
	lines := make([]int, 0, len(rank))
	for l := range rank {
		lines = append(lines, l)
	}
	slices.Sort(lines)
	h := &LineHistory{Changes: len(cs)}
	for _, l := range lines {
		if n := len(h.Runs); n > 0 && h.Runs[n-1].Rank == rank[l] && h.Runs[n-1].End+1 == l {
			h.Runs[n-1].End = l
			continue
		}
		h.Runs = append(h.Runs, LineRun{l, l, rank[l]})
	}
	return h
}

// through maps line l of the version before a change (hs, its hunks in
// order) to the version after it; false when the change replaced or
// removed it.
func through(hs []hunk, l int) (int, bool) {
	shift := 0
	for _, x := range hs {
		if x.b == 0 {
			// An insertion after old line a.
			if x.a < l {
				shift += x.d
				continue
			}
			break
		}
		if l < x.a {
			break
		}
		if l < x.a+x.b {
			return 0, false
		}
		shift += x.d - x.b
	}
	return l + shift, true
}

// Head returns the commit HEAD points at, "" outside git or before the
// first commit: a cheap read of the references (no subprocess), the key of
// what depends on the history (LineHistories). It reads through its own
// handle (gitState.refs), so it never waits for the log walks that hold
// the main one.
func (w *Tree) Head() string {
	s := w.git
	if gitTop(s.root) == "" {
		return ""
	}
	s.refMu.Lock()
	defer s.refMu.Unlock()
	if !s.refsOpened {
		h, err := openRepo(s.root)
		if err != nil {
			return ""
		}
		s.refs, s.refsOpened = h, true
	}
	if s.refs == nil {
		return ""
	}
	ref, err := s.refs.head()
	if err != nil {
		return ""
	}
	return ref.Hash().String()
}
