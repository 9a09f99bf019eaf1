package tree

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"

	"github.com/google/go-cmp/cmp"
)

// numbered returns lines "name1".."nameN", one a line.
func numbered(name string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = name + string(rune('a'+i))
	}
	return out
}

// TestLineHistories: four commits and an uncommitted edit of one file,
// mapped onto its current lines: each touched line with the rank of its
// newest change (1 the uncommitted edit), lines moved by the insertions
// above them, a line replaced later counted once (newest), a deletion
// counted as a change with no line, another file's commits not counted.
func TestLineHistories(t *testing.T) {
	root := testutil.IsolatedRepo(t)
	lines := numbered("l", 10) // la..lj
	write := func(ls []string) {
		testutil.WriteFiles(t, root, map[string]string{"f.py": strings.Join(ls, "\n") + "\n"})
	}
	write(lines)
	gitCommitAll(t, root, "import", "2024-01-01T10:00:00Z")
	// c1: line 3 (lc) replaced.
	lines[2] = "lc2"
	write(lines)
	gitCommitAll(t, root, "c1", "2024-01-02T10:00:00Z")
	// c2: two lines inserted at the top; lc2 is now line 5.
	lines = append([]string{"n1", "n2"}, lines...)
	write(lines)
	gitCommitAll(t, root, "c2", "2024-01-03T10:00:00Z")
	// another file's commit is not the file's change.
	testutil.WriteFiles(t, root, map[string]string{"g.py": "x = 1\n"})
	gitCommitAll(t, root, "other", "2024-01-04T10:00:00Z")
	// c3: line 10 (lh) deleted, line 2 (n2) replaced.
	lines = append(lines[:9], lines[10:]...)
	lines[1] = "n2b"
	write(lines)
	gitCommitAll(t, root, "c3", "2024-01-05T10:00:00Z")
	// The uncommitted edit: a line inserted after line 6.
	dirty := append(append(append([]string{}, lines[:6]...), "d1"), lines[6:]...)
	write(dirty)

	w := newTestWorkspace(t, root, Options{})
	got, err := w.LineHistories(t.Context(), []string{"f.py", "g.py"}, []string{"f.py"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	// Ranks: 1 the uncommitted edit (line 7), 2 c3 (line 2), 3 c2 (line
	// 1; its line 2 is c3's), 4 c1 (lc2, line 5), 5 the import (every
	// other line).
	want := &LineHistory{Changes: 5, Runs: []LineRun{{1, 1, 3}, {2, 2, 2}, {3, 4, 5}, {5, 5, 4}, {6, 6, 5}, {7, 7, 1}, {8, 12, 5}}}
	if d := cmp.Diff(want, got["f.py"]); d != "" {
		t.Errorf("f.py (-want +got):\n%s\ncurrent:\n%s", d, strings.Join(dirty, "\n"))
	}
	if h := got["g.py"]; h == nil || h.Changes != 1 {
		t.Errorf("g.py: %+v, want its one commit", h)
	}
	for _, tt := range []struct{ from, to, want int }{{1, 1, 3}, {3, 4, 5}, {4, 6, 4}, {6, 9, 1}, {13, 20, 0}} {
		if n := got["f.py"].Newest(tt.from, tt.to); n != tt.want {
			t.Errorf("Newest(%d, %d) = %d, want %d", tt.from, tt.to, n, tt.want)
		}
	}
	// Only the last commits are read.
	got, err = w.LineHistories(t.Context(), []string{"f.py"}, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	want = &LineHistory{Changes: 2, Runs: []LineRun{{1, 1, 2}, {2, 2, 1}}}
	if d := cmp.Diff(want, got["f.py"]); d != "" {
		t.Errorf("f.py, 2 commits, uncommitted left out (-want +got):\n%s", d)
	}
}

// TestParseHunksHeaders: a -U0 diff's hunks by their headers; a header
// not of git's form (a signed or missing number, a pasted or hostile
// diff) is left out, never read as a negative count.
func TestParseHunksHeaders(t *testing.T) {
	tests := []struct {
		name string
		diff string
		want []hunk
	}{
		{"git's", "diff --git a/f.go b/f.go\n--- a/f.go\n+++ b/f.go\n@@ -3,2 +3 @@ func f() {\n-a\n-b\n+c\n@@ -9,0 +9,2 @@\n+d\n+e\n", []hunk{{3, 2, 3, 1}, {9, 0, 9, 2}}},
		{"signed count", "+++ b/f.go\n@@ -1,-2 +1,3 @@\n+x\n", nil},
		{"signed start", "+++ b/f.go\n@@ -1 ++4,1 @@\n+x\n", nil},
		{"two spaces", "+++ b/f.go\n@@ -1  +4,1 @@\n+x\n", nil},
		{"no closing", "+++ b/f.go\n@@ -1 +4,1\n+x\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseHunks([]byte(tt.diff))["f.go"]; !slices.Equal(got, tt.want) {
				t.Errorf("parseHunks = %v, want %v", got, tt.want)
			}
		})
	}
}
