package tree

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

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

// TestReadLineHistories: the line histories of every file the last
// commits changed, read once per HEAD: a file's added line that reads
// like a file header in the log ("++ b/evil.py" is "+++ b/evil.py") is a
// line, not a file; documentation has none; the uncommitted diff is the
// newest change over the cached ones; a moved HEAD has none until they
// are read again.
func TestReadLineHistories(t *testing.T) {
	root := testutil.IsolatedRepo(t)
	write := pyWriter(t, root)
	write("a", "b", "c")
	gitCommitAll(t, root, "import", "2024-01-01T10:00:00Z")
	// c1: two hunks, the second after the line that reads like a header.
	write("a", "++ b/evil.py", "b", "c1")
	gitCommitAll(t, root, "c1", "2024-01-02T10:00:00Z")
	write("a", "++ b/evil.py", "b2", "c1")
	gitCommitAll(t, root, "c2", "2024-01-03T10:00:00Z")
	testutil.WriteFiles(t, root, map[string]string{"g.py": "x = 1\n", "g.md": "# g\n", "e.py": "y = 1\n"})
	gitCommitAll(t, root, "other", "2024-01-04T10:00:00Z")

	w := newTestWorkspace(t, root, Options{})
	head := w.Head()
	if head == "" || w.CachedLineHistories(head) != nil {
		t.Fatalf("head %q: line histories before any read", head)
	}
	l, err := w.ReadLineHistories(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if w.CachedLineHistories(head) != l || l.Commits != 4 {
		t.Fatalf("cached %p, read %p (%d commits, want 4)", w.CachedLineHistories(head), l, l.Commits)
	}
	// The root commit's diff (every line) is not read.
	want := &LineHistory{Changes: 2, Runs: []LineRun{{2, 2, 2}, {3, 3, 1}, {4, 4, 2}}}
	if d := cmp.Diff(want, l.Of("f.py")); d != "" {
		t.Errorf("f.py (-want +got):\n%s", d)
	}
	if l.Of("evil.py") != nil || l.Of("g.md") != nil || l.Of("g.py") == nil {
		t.Errorf("evil.py %v, g.md %v: want none; g.py %v: want its commit", l.Of("evil.py"), l.Of("g.md"), l.Of("g.py"))
	}

	// An uncommitted line after line 1 is the newest change.
	write("a", "d", "++ b/evil.py", "b2", "c1")
	got, err := w.DirtyLineHistories(t.Context(), l, []string{"f.py"})
	if err != nil {
		t.Fatal(err)
	}
	want = &LineHistory{Changes: 3, Runs: []LineRun{{2, 2, 1}, {3, 3, 3}, {4, 4, 2}, {5, 5, 3}}}
	if d := cmp.Diff(want, got["f.py"]); d != "" {
		t.Errorf("f.py with its uncommitted line (-want +got):\n%s", d)
	}
	// The same from the request's patch (`git diff HEAD`, with context),
	// through another file's added line that reads like f.py's header.
	testutil.WriteFiles(t, root, map[string]string{"e.py": "y = 1\n++ b/f.py\n"})
	diff, err := GitDiff(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	fromPatch, ok := l.WithPatch("f.py", diff)
	if d := cmp.Diff(want, fromPatch); !ok || d != "" {
		t.Errorf("f.py from the patch (ok %v; -want +got):\n%s\npatch:\n%s", ok, d, diff.Patch)
	}
	if h, ok := l.WithPatch("e.py", diff); !ok || h == nil || h.Newest(2, 2) != 1 {
		t.Errorf("e.py from the patch: %+v, %v; want its added line 2 the newest change", h, ok)
	}
	diff.Cut = true // f.py's section is the patch's last: it may miss hunks
	if _, ok := l.WithPatch("f.py", diff); ok {
		t.Errorf("f.py from a cut patch whose last section is f.py's: ok")
	}
	testutil.WriteFiles(t, root, map[string]string{"e.py": "y = 1\n"})
	if diff.Head != head {
		t.Errorf("the patch is against %q, want HEAD %s", diff.Head, head)
	}

	// HEAD moved: nothing until read again.
	gitCommitAll(t, root, "c3", "2024-01-05T10:00:00Z")
	if h := w.Head(); h == head || w.CachedLineHistories(h) != nil {
		t.Fatalf("head %s after a commit: line histories of %s kept", h, head)
	}
	if l, err = w.ReadLineHistories(t.Context()); err != nil || l.Head != w.Head() || l.Of("f.py").Newest(2, 2) != 1 || l.Of("f.py").Newest(4, 4) != 2 {
		t.Errorf("after the commit: %+v, %v", l, err)
	}
	// A patch read before the commit is against the old HEAD: its hunks
	// do not map onto the new HEAD's lines, so it is refused (the caller
	// reads the file's diff against l.Head instead).
	diff.Cut = false
	if h, ok := l.WithPatch("f.py", diff); ok {
		t.Errorf("a patch against %s mapped onto the histories of %s: %+v", diff.Head, l.Head, h)
	}
}

// BenchmarkLineHistoriesOf: the background analysis's mapping of one
// line-history log (the last LineHistCommits commits) onto every code
// file's current lines: compacting the log and mapping each file's
// changes. The repository is CTXD_LINEHIST_REPO, else this module's own
// (skipped outside git); the log is read once, before the timing.
func BenchmarkLineHistoriesOf(b *testing.B) {
	root := os.Getenv("CTXD_LINEHIST_REPO")
	if root == "" {
		if abs, err := filepath.Abs("."); err == nil {
			root = gitTop(abs)
		}
	}
	if root == "" {
		b.Skip("not in a git repository")
	}
	out, total, err := runGitFor(b.Context(), root, maxLineLogBytes, lineLogTimeout, "-c", "log.showRoot=false", "log", "--no-merges", "--no-renames", "--relative", "-U0",
		"--no-ext-diff", "--format=%x01", fmt.Sprintf("-n%d", LineHistCommits), "HEAD")
	if err != nil {
		b.Fatal(err)
	}
	var l *LineHistories
	var body []byte
	b.ReportAllocs()
	for b.Loop() {
		body = compactLog(out, total > len(out))
		l = lineHistoriesOf("HEAD", body, false)
	}
	// What the histories keep: their runs and hunks (map overhead left out).
	held := 0
	for f, cs := range l.changes {
		held += len(l.mapped[f].Runs) * int(unsafe.Sizeof(LineRun{}))
		for _, hs := range cs {
			held += len(hs) * int(unsafe.Sizeof(hunk{}))
		}
	}
	b.ReportMetric(float64(held), "held-B")
	b.ReportMetric(float64(len(body)), "kept-B")
	b.ReportMetric(float64(len(l.mapped)), "files")
	b.ReportMetric(float64(len(out)), "log-B")
}

// TestDirtyLineHistoriesOfTheirHead: the uncommitted diff of a file is
// read against the commit its line histories were read at, not against
// whatever HEAD is now: a request holds the histories of the HEAD it saw,
// and a commit landing before its `git diff` must not map those
// histories through a diff that leaves that commit out (line 2 of the
// read HEAD is line 3 now, under the line the new commit added).
func TestDirtyLineHistoriesOfTheirHead(t *testing.T) {
	root, write := twoCommitPy(t)
	w := newTestWorkspace(t, root, Options{})
	l, err := w.ReadLineHistories(t.Context())
	if err != nil || l == nil {
		t.Fatalf("%+v, %v", l, err)
	}
	// HEAD moves (a line added at the top), then an uncommitted edit.
	write("z", "a", "b1", "c")
	gitCommitAll(t, root, "c2", "2024-01-03T10:00:00Z")
	write("z", "a", "b1", "c3")
	got, err := w.DirtyLineHistories(t.Context(), l, []string{"f.py"})
	if err != nil {
		t.Fatal(err)
	}
	// Against l's HEAD: the new commit's line 1 and the edit's line 4
	// are the newest change, c1's b1 (line 3 now) the one before.
	want := &LineHistory{Changes: 2, Runs: []LineRun{{1, 1, 1}, {3, 3, 2}, {4, 4, 1}}}
	if d := cmp.Diff(want, got["f.py"]); d != "" {
		t.Errorf("f.py (-want +got):\n%s", d)
	}
}

// pyWriter returns a function that writes root's f.py as the lines ls.
func pyWriter(t *testing.T, root string) func(ls ...string) {
	return func(ls ...string) {
		testutil.WriteFiles(t, root, map[string]string{"f.py": strings.Join(ls, "\n") + "\n"})
	}
}

// twoCommitPy returns a repository whose f.py was "a b c" (commit
// import) then "a b1 c" (commit c1), and its f.py writer.
func twoCommitPy(t *testing.T) (string, func(ls ...string)) {
	root := testutil.IsolatedRepo(t)
	write := pyWriter(t, root)
	write("a", "b", "c")
	gitCommitAll(t, root, "import", "2024-01-01T10:00:00Z")
	write("a", "b1", "c")
	gitCommitAll(t, root, "c1", "2024-01-02T10:00:00Z")
	return root, write
}

// TestLineHistoriesReadAgainAfterFailure: a failed read (here: HEAD's
// commit object missing) leaves no line histories at that HEAD, and
// requests do not ask again; lineHistRetry later they do (a timeout under
// load kept the rule off until HEAD moved, however long that took).
func TestLineHistoriesReadAgainAfterFailure(t *testing.T) {
	root := testutil.IsolatedRepo(t)
	write := pyWriter(t, root)
	write("a", "b")
	gitCommitAll(t, root, "import", "2024-01-01T10:00:00Z")
	write("a", "b2")
	gitCommitAll(t, root, "c1", "2024-01-02T10:00:00Z")
	w := newTestWorkspace(t, root, Options{})
	head := w.Head()
	obj := filepath.Join(root, ".git", "objects", head[:2], head[2:])
	if err := os.Rename(obj, obj+".away"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ReadLineHistories(t.Context()); err == nil {
		t.Fatal("read without HEAD's commit: no error")
	}
	failed := w.CachedLineHistories(head)
	if failed == nil || failed.Of("f.py") != nil {
		t.Fatalf("after the failed read: %+v, want an empty marker (requests do not ask again at once)", failed)
	}
	if err := os.Rename(obj+".away", obj); err != nil {
		t.Fatal(err)
	}
	failed.retry = time.Now().Add(-time.Second) // lineHistRetry passed
	if w.CachedLineHistories(head) != nil {
		t.Fatal("the failed read's marker still stands after lineHistRetry")
	}
	l, err := w.ReadLineHistories(t.Context())
	if err != nil || l.Of("f.py") == nil || w.CachedLineHistories(head) != l {
		t.Fatalf("read again: %+v, %v", l, err)
	}
}

// TestHeadWhileLogHeld: Head reads HEAD through its own handle, so a
// request asking for it does not wait while a log walk or the co-change
// log holds the git state's lock (they take seconds on a large history at
// a new HEAD); and it still follows HEAD.
func TestHeadWhileLogHeld(t *testing.T) {
	root := testutil.IsolatedRepo(t)
	write := pyWriter(t, root)
	write("a")
	gitCommitAll(t, root, "import", "2024-01-01T10:00:00Z")
	w := newTestWorkspace(t, root, Options{})
	if _, err := w.git.recent(t.Context(), 5); err != nil {
		t.Fatal(err)
	}
	first := w.Head()
	write("b")
	gitCommitAll(t, root, "c1", "2024-01-02T10:00:00Z")

	w.git.mu.Lock() // what recent and history hold during their log
	got := make(chan string, 1)
	go func() { got <- w.Head() }()
	var second string
	select {
	case second = <-got:
	case <-time.After(time.Minute):
		w.git.mu.Unlock()
		t.Fatal("Head waited for the lock the log walks hold")
	}
	w.git.mu.Unlock()
	if first == "" || second == "" || first == second {
		t.Fatalf("Head %q then %q after a commit", first, second)
	}
}
