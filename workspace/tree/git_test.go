package tree

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"

	"github.com/google/go-cmp/cmp"
)

// historyRepo builds a repository with four commits by two authors.
func historyRepo(t *testing.T) string {
	t.Helper()
	root := testutil.IsolatedRepo(t)
	testutil.WriteFiles(t, root, map[string]string{"go.mod": "module example.com/h\n\ngo 1.22\n", "a.go": "package h\n", "b.go": "package h\n"})
	gitCommitAll(t, root, "initial import", "2024-01-01T10:00:00Z")
	testutil.WriteFiles(t, root, map[string]string{"a.go": "package h\n\nfunc A() {}\n", "sub/c.go": "package sub\n"})
	gitCommitAll(t, root, "add A and sub\n\nLonger body.", "2024-01-02T10:00:00Z")
	t.Setenv("GIT_AUTHOR_NAME", "Grace Hopper")
	t.Setenv("GIT_AUTHOR_EMAIL", "grace@example.com")
	testutil.WriteFiles(t, root, map[string]string{"b.go": "package h\n\nfunc B() {}\n", ".env": "TOKEN=hunter2\n"})
	gitCommitAll(t, root, "add B", "2024-01-03T10:00:00Z")
	if err := os.Remove(filepath.Join(root, "sub", "c.go")); err != nil {
		t.Fatal(err)
	}
	gitCommitAll(t, root, "remove sub", "2024-01-04T10:00:00Z")
	return root
}

func TestGitLog(t *testing.T) {
	root := historyRepo(t)
	commits, err := gitLog(t.Context(), root, 3)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Author, Subject, Date string
		Files                 []string
	}
	var got []row
	for _, c := range commits {
		got = append(got, row{c.Author, c.Subject, c.Date.UTC().Format(time.DateOnly), c.Files})
		if len(c.Hash) != 40 {
			t.Errorf("hash %q", c.Hash)
		}
	}
	want := []row{
		{"Grace Hopper", "remove sub", "2024-01-04", []string{"sub/c.go"}},
		{"Grace Hopper", "add B", "2024-01-03", []string{".env", "b.go"}},
		{"Ada Lovelace", "add A and sub", "2024-01-02", []string{"a.go", "sub/c.go"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("GitLog (-want +got):\n%s", d)
	}
	all, err := gitLog(t.Context(), root, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4 || !slices.Equal(all[3].Files, []string{"a.go", "b.go", "go.mod"}) {
		t.Errorf("root commit: %+v", all[len(all)-1])
	}
	// Not a repository: no commits, no error.
	if cs, err := gitLog(t.Context(), t.TempDir(), 5); err != nil || len(cs) != 0 {
		t.Errorf("outside git: %v, %v", cs, err)
	}
	// A repository without commits.
	empty := t.TempDir()
	gitInit(t, empty)
	if cs, err := gitLog(t.Context(), empty, 5); err != nil || len(cs) != 0 {
		t.Errorf("empty repo: %v, %v", cs, err)
	}
}

func TestGitDiffCut(t *testing.T) {
	root := testutil.IsolatedRepo(t)
	testutil.WriteFiles(t, root, map[string]string{"big.txt": strings.Repeat("old line\n", 10000)})
	gitCommitAll(t, root, "big", "2024-01-01T10:00:00Z")
	testutil.WriteFiles(t, root, map[string]string{"big.txt": strings.Repeat("new line\n", 10000)})
	d, err := GitDiff(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Cut || len(d.Patch) > maxDiffBytes || d.Total <= maxDiffBytes {
		t.Errorf("Cut=%v len=%d Total=%d", d.Cut, len(d.Patch), d.Total)
	}
	if !strings.Contains(FormatDiff(d), "[diff cut at") {
		t.Error("cut not said")
	}
}

func TestGitFallback(t *testing.T) {
	root := historyRepo(t)
	testutil.WriteFiles(t, root, map[string]string{"a.go": "package h\n// changed\n", "new.go": "package h\n", ".env": "x"})
	t.Setenv("PATH", t.TempDir()) // no git CLI
	d, err := GitDiff(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Via != "go-git" || d.Patch != "" {
		t.Errorf("Via=%q patch=%q", d.Via, d.Patch)
	}
	var paths []string
	for _, c := range d.Changes {
		paths = append(paths, c.Path)
	}
	if !slices.Equal(paths, []string{"a.go", "new.go"}) || d.SecretsLeftOut != 1 {
		t.Errorf("changes %v, secrets %d", paths, d.SecretsLeftOut)
	}
	if s := FormatDiff(d); !strings.Contains(s, "go-git status") || !strings.Contains(s, "new.go") {
		t.Errorf("formatted:\n%s", s)
	}
}

// TestGitLogLinkedWorktree reads history inside a worktree made by
// git worktree add, whose .git file points to a gitdir holding only a
// "commondir" link to the main repository's objects and refs.
func TestGitLogLinkedWorktree(t *testing.T) {
	root := historyRepo(t)
	wt := filepath.Join(t.TempDir(), "linked")
	gitCmd(t, root, "worktree", "add", "-q", "-b", "side", wt)
	testutil.WriteFiles(t, wt, map[string]string{"side.go": "package h\n\nfunc Side() {}\n"})
	gitCommitAll(t, wt, "side work", "2024-01-05T10:00:00Z")
	commits, err := gitLog(t.Context(), wt, 2)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range commits {
		got = append(got, c.Subject)
	}
	if d := cmp.Diff([]string{"side work", "remove sub"}, got); d != "" {
		t.Errorf("GitLog in a linked worktree (-want +got):\n%s", d)
	}
	// The main checkout still sees its own branch only.
	main, err := gitLog(t.Context(), root, 1)
	if err != nil || len(main) != 1 || main[0].Subject != "remove sub" {
		t.Errorf("main checkout: %+v, %v", main, err)
	}
}

// TestGitDiffSkipsTheDiffOfACleanTree: GitDiff runs `git diff HEAD` only
// when status lists a tracked change; in every state its patch is what
// the diff prints (less secret sections).
func TestGitDiffSkipsTheDiffOfACleanTree(t *testing.T) {
	tests := []struct {
		name      string
		change    func(t *testing.T, root string)
		wantPatch bool
	}{
		{"clean", func(t *testing.T, root string) {}, false},
		{"untracked only", func(t *testing.T, root string) {
			testutil.WriteFiles(t, root, map[string]string{"new.go": "package h\n", "sub/x/y.go": "package y\n"})
		}, false},
		{"modified", func(t *testing.T, root string) {
			testutil.WriteFiles(t, root, map[string]string{"a.go": "package h\n\nfunc A() { edited() }\n"})
		}, true},
		{"deleted", func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, "b.go")); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"staged new file", func(t *testing.T, root string) {
			testutil.WriteFiles(t, root, map[string]string{"staged.go": "package h\n"})
			gitCmd(t, root, "add", "staged.go")
		}, true},
		{"intent to add", func(t *testing.T, root string) {
			testutil.WriteFiles(t, root, map[string]string{"later.go": "package h\n"})
			gitCmd(t, root, "add", "-N", "later.go")
		}, true},
		{"mode change", func(t *testing.T, root string) {
			if err := os.Chmod(filepath.Join(root, "a.go"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"staged rename", func(t *testing.T, root string) {
			gitCmd(t, root, "mv", "b.go", "renamed.go")
		}, true},
		{"secret only", func(t *testing.T, root string) {
			testutil.WriteFiles(t, root, map[string]string{".env": "TOKEN=rotated\n"})
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := historyRepo(t)
			tt.change(t, root)
			d, err := GitDiff(t.Context(), root, nil)
			if err != nil {
				t.Fatal(err)
			}
			full := gitCmd(t, root, "--no-optional-locks", "-c", "core.quotePath=false", "-c", "color.ui=false",
				"diff", "HEAD", "--no-ext-diff", "--no-textconv", "--relative", "--", ".")
			want, _ := dropSecretSections(full)
			if d.Patch != want {
				t.Errorf("patch %q, want %q (git diff HEAD)", d.Patch, want)
			}
			if (d.Patch != "") != tt.wantPatch {
				t.Errorf("patch %q, want one: %v", d.Patch, tt.wantPatch)
			}
			if d.Total != len(full) {
				t.Errorf("Total = %d, want %d", d.Total, len(full))
			}
		})
	}
}

// TestGitLogManyFiles: a commit of more files than a commit lists keeps
// the first maxCommitFiles (sorted) and the total, in a list of its own:
// the full list (every name) is not kept live behind it.
func TestGitLogManyFiles(t *testing.T) {
	root := testutil.IsolatedRepo(t)
	files := map[string]string{}
	var names []string
	for i := range maxCommitFiles + 30 {
		n := fmt.Sprintf("f%03d.go", i)
		files[n] = "package p\n"
		names = append(names, n)
	}
	testutil.WriteFiles(t, root, files)
	gitCommitAll(t, root, "import", "2024-01-01T10:00:00Z")
	cs, err := gitLog(t.Context(), root, 1)
	if err != nil || len(cs) != 1 {
		t.Fatalf("GitLog: %v, %v", cs, err)
	}
	c := cs[0]
	if c.FilesTotal != len(names) || !slices.Equal(c.Files, names[:maxCommitFiles]) {
		t.Errorf("files %v (total %d), want the first %d of %d", c.Files, c.FilesTotal, maxCommitFiles, len(names))
	}
	if cap(c.Files) >= c.FilesTotal {
		t.Errorf("the list has room for %d names: the full list stays live", cap(c.Files))
	}
}
