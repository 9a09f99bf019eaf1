package eval

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/udiff"
)

// ChangedLines is changedLines for the offline scripts (scripts/ceiling):
// dir is the repository or a worktree of it (the diff is read between the
// case's commits, not from the checkout).
func ChangedLines(ctx context.Context, dir string, c Case) (map[string][]int, error) {
	return changedLines(ctx, dir, c)
}

// changedLines returns, per answer file, the 1-based lines of the parent's
// text that the commit changed: the removed or replaced lines of each
// hunk, or for a pure insertion the line it follows (the first line when
// it is at the top).
func changedLines(ctx context.Context, dir string, c Case) (map[string][]int, error) {
	args := append([]string{"-C", dir, "diff", "-U0", "--no-color", "--no-renames", "--no-ext-diff", c.Parent, c.Commit, "--"}, c.Answer...)
	out, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("git diff %s: %w", c.Commit, gitErr(err))
	}
	return parseChangedLines(out), nil
}

// parseChangedLines reads the old side of a unified diff whose hunk
// headers are exact (git's own), placing each hunk by its header.
func parseChangedLines(diff []byte) map[string][]int {
	lines, _ := hunkLines(parseHunks(diff), nil)
	return lines
}

// hunk is the old side of one hunk of a unified diff.
type hunk struct {
	file  string
	start int      // the header's old start line
	old   []string // the old side's lines in order: context and removed
	// removed marks the old lines the hunk removes or replaces.
	removed []bool
	// inserts are the indexes in old of the lines that pure insertions
	// follow; -1 is an insertion before the hunk's first old line.
	inserts []int
}

// parseHunks reads the hunks of a unified diff (git's format, any number
// of context lines). A hunk ends when its header's line counts are used
// up, so a removed line that reads "-- x" is not taken for a file header.
// New files (--- /dev/null) have no old side and are left out.
func parseHunks(diff []byte) []hunk {
	var out []hunk
	file := ""
	sc := bufio.NewScanner(bytes.NewReader(diff))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "diff "):
			file = ""
		case strings.HasPrefix(l, "--- "):
			file = strings.TrimPrefix(strings.TrimPrefix(l, "--- "), "a/")
			if file == "/dev/null" {
				file = ""
			}
		case strings.HasPrefix(l, "@@ "):
			old, new, ok := udiff.HunkHeader(l)
			if !ok {
				continue
			}
			h := hunk{file: file, start: old.Start}
			oldLeft, newLeft := old.Lines, new.Lines
			groupStart, minus, plus := -1, false, false
			endGroup := func() {
				if plus && !minus {
					h.inserts = append(h.inserts, groupStart-1)
				}
				groupStart, minus, plus = -1, false, false
			}
			for (oldLeft > 0 || newLeft > 0) && sc.Scan() {
				b := sc.Text()
				op, text := byte(' '), ""
				if b != "" {
					op, text = b[0], b[1:]
				}
				switch op {
				case ' ':
					endGroup()
					h.old = append(h.old, text)
					h.removed = append(h.removed, false)
					oldLeft--
					newLeft--
				case '-', '+':
					if groupStart < 0 {
						groupStart = len(h.old)
					}
					if op == '-' {
						minus = true
						h.old = append(h.old, text)
						h.removed = append(h.removed, true)
						oldLeft--
					} else {
						plus = true
						newLeft--
					}
				case '\\': // "\ No newline at end of file"
				default: // not a hunk line: a malformed diff
					oldLeft, newLeft = 0, 0
				}
			}
			endGroup()
			if file != "" {
				out = append(out, h)
			}
		}
	}
	return out
}

// hunkLines returns, per file, the sorted 1-based lines of the old text
// the hunks change: removed or replaced lines, and for a pure insertion
// the line it follows (the first line when it is at the top). When text
// returns a file's old lines, each hunk is placed where its old side
// occurs verbatim, the occurrence nearest its header (as git apply does:
// some patches' line numbers are off); unplaced counts the hunks that
// were not found and stay at their header. A nil text trusts the headers.
func hunkLines(hunks []hunk, text func(file string) []string) (map[string][]int, int) {
	out := map[string][]int{}
	unplaced := 0
	for _, h := range hunks {
		if len(h.old) == 0 { // an insertion after line start
			out[h.file] = append(out[h.file], max(h.start, 1))
			continue
		}
		p := max(h.start, 1)
		if text != nil {
			if at, ok := locate(h.old, text(h.file), h.start); ok {
				p = at
			} else {
				unplaced++
			}
		}
		for i, r := range h.removed {
			if r {
				out[h.file] = append(out[h.file], p+i)
			}
		}
		for _, k := range h.inserts {
			out[h.file] = append(out[h.file], max(p+k, 1))
		}
	}
	for f, ls := range out {
		slices.Sort(ls)
		out[f] = slices.Compact(ls)
	}
	return out, unplaced
}

// locate returns the 1-based line where old occurs in lines, the
// occurrence nearest to line near.
func locate(old, lines []string, near int) (int, bool) {
	best, found := 0, false
	for j := 0; j+len(old) <= len(lines); j++ {
		if lines[j] != old[0] || !slices.Equal(lines[j:j+len(old)], old) {
			continue
		}
		if !found || abs(j+1-near) < abs(best-near) {
			best, found = j+1, true
		}
	}
	return best, found
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// VisibleLines counts the changed lines (by file) shown verbatim in
// chunks, and all of them: all-lines' rule (the file's chunk is included
// and the line is in none of its elided ranges).
func VisibleLines(chunks []ctxd.Chunk, changed map[string][]int) (seen, total int) {
	by := map[string]*ctxd.Chunk{}
	for i := range chunks {
		if chunks[i].Content != "" {
			by[chunks[i].Source] = &chunks[i]
		}
	}
	for file, lines := range changed {
		total += len(lines)
		c := by[file]
		if c == nil {
			continue
		}
		for _, l := range lines {
			if !elided(c, l) {
				seen++
			}
		}
	}
	return seen, total
}

func elided(c *ctxd.Chunk, line int) bool { return ctxd.InRanges(c.Elided, line) }
