package eval

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd"
)

// hunkHeader matches a unified diff hunk header's old side: "@@ -12,3 ...".
var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? `)

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

// parseChangedLines reads the old side of a -U0 unified diff.
func parseChangedLines(diff []byte) map[string][]int {
	out := map[string][]int{}
	file := ""
	sc := bufio.NewScanner(bytes.NewReader(diff))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "--- "):
			file = strings.TrimPrefix(strings.TrimPrefix(l, "--- "), "a/")
		case strings.HasPrefix(l, "@@ ") && file != "":
			m := hunkHeader.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			start, _ := strconv.Atoi(m[1])
			n := 1
			if m[2] != "" {
				n, _ = strconv.Atoi(m[2])
			}
			if n == 0 { // an insertion after line start
				out[file] = append(out[file], max(start, 1))
				continue
			}
			for l := start; l < start+n; l++ {
				out[file] = append(out[file], l)
			}
		}
	}
	return out
}

// visibleLines counts the changed lines shown verbatim in chunks: the
// file's chunk is included and the line is in none of its elided ranges.
func visibleLines(chunks []ctxd.Chunk, changed map[string][]int) (seen, total int) {
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

func elided(c *ctxd.Chunk, line int) bool {
	for _, r := range c.Elided {
		if r.Start <= line && line <= r.End {
			return true
		}
	}
	return false
}
