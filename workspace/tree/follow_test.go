package tree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/disk"
)

// eventually polls cond (a request against the workspace) until it holds
// or the deadline passes: inotify delivers events asynchronously, so the
// request after a change may come before its event.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok, got := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not seen within 10s; last: %s", what, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// followedRepo is a committed repository of n Go files and its followed
// workspace, with the index persisted under a temp state dir.
func followedRepo(t *testing.T, n int) (string, *Tree, string) {
	t.Helper()
	root := testutil.IsolatedRepo(t)
	for i := range n {
		writeFile(t, root, fmt.Sprintf("pkg%d/file%d.go", i%10, i), fmt.Sprintf("package pkg%d\n\nfunc Func%d() int { return %d }\n", i%10, i, i))
	}
	writeFile(t, root, "main.go", "package main\n\nfunc main() {}\n")
	gitCommitAll(t, root, "first commit", "2024-01-01T00:00:00Z")
	idx := filepath.Join(t.TempDir(), "index", "files.idx")
	w := newTestWorkspace(t, root, Options{Watch: true, State: disk.New(filepath.Dir(idx))})
	return root, w, idx
}

func hasFile(t *testing.T, w *Tree, rel string) (bool, string) {
	files, err := w.Files(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return slices.Contains(files, rel), fmt.Sprintf("%d files", len(files))
}

// topHit is the best lexical match of request.
func topHit(t *testing.T, w *Tree, request string) string {
	hits, err := w.Rank(t.Context(), query.Parse(request), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 {
		return ""
	}
	return hits[0].Path
}

func TestFollowDiskChanges(t *testing.T) {
	root, w, _ := followedRepo(t, 20)
	if ok, got := hasFile(t, w, "main.go"); !ok {
		t.Fatalf("first request: main.go missing (%s)", got)
	}
	if !w.follow.usable() {
		t.Fatalf("watcher not usable: %q", w.follow.watcher.Degraded())
	}
	steps := []struct {
		name   string
		change func()
		check  func() (bool, string)
	}{
		{
			name:   "created",
			change: func() { writeFile(t, root, "pkg1/zebra.go", "package pkg1\n\nfunc Zebracorn() {}\n") },
			check:  func() (bool, string) { return hasFile(t, w, "pkg1/zebra.go") },
		},
		{
			name:   "edited",
			change: func() { writeFile(t, root, "pkg2/file2.go", "package pkg2\n\nfunc Quokkamatic() {}\n") },
			check: func() (bool, string) {
				got := topHit(t, w, "quokkamatic")
				return got == "pkg2/file2.go", got
			},
		},
		{
			name: "deleted",
			change: func() {
				if err := os.Remove(filepath.Join(root, "pkg3", "file3.go")); err != nil {
					t.Fatal(err)
				}
			},
			check: func() (bool, string) { ok, got := hasFile(t, w, "pkg3/file3.go"); return !ok, got },
		},
		{
			name: "renamed",
			change: func() {
				if err := os.Rename(filepath.Join(root, "pkg4", "file4.go"), filepath.Join(root, "pkg4", "moved.go")); err != nil {
					t.Fatal(err)
				}
			},
			check: func() (bool, string) {
				gone, _ := hasFile(t, w, "pkg4/file4.go")
				there, got := hasFile(t, w, "pkg4/moved.go")
				return !gone && there, got
			},
		},
		{
			name:   "new directory",
			change: func() { writeFile(t, root, "fresh/deep/new.go", "package deep\n\nfunc Platypusize() {}\n") },
			check: func() (bool, string) {
				got := topHit(t, w, "platypusize")
				return got == "fresh/deep/new.go", got
			},
		},
		{
			name:   "file in the new directory",
			change: func() { writeFile(t, root, "fresh/deep/second.go", "package deep\n\nfunc Narwhalify() {}\n") },
			check: func() (bool, string) {
				got := topHit(t, w, "narwhalify")
				return got == "fresh/deep/second.go", got
			},
		},
		{
			name:   "ignored by a new .gitignore",
			change: func() { writeFile(t, root, ".gitignore", "pkg5/\n") },
			check:  func() (bool, string) { ok, got := hasFile(t, w, "pkg5/file5.go"); return !ok, got },
		},
	}
	for _, s := range steps {
		s.change()
		eventually(t, s.name, s.check)
	}
}

// ageTree moves every file's mtime an hour back, out of the racy window,
// so a persisted index may be trusted for them.
func ageTree(t *testing.T, root string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.Contains(p, string(filepath.Separator)+".git"+string(filepath.Separator)) {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

// TestPersistedIndex: a second process loads the index the first wrote
// (read, or mapped as a CLI run does) and sees what changed while no
// process ran.
func TestPersistedIndex(t *testing.T) {
	for _, mapped := range []bool{false, true} {
		t.Run(fmt.Sprintf("mapped=%v", mapped), func(t *testing.T) { testPersistedIndex(t, mapped) })
	}
}

func testPersistedIndex(t *testing.T, mapped bool) {
	root := testutil.IsolatedRepo(t)
	n := 40
	for i := range n {
		writeFile(t, root, fmt.Sprintf("pkg%d/file%d.go", i%10, i), fmt.Sprintf("package pkg%d\n\nfunc Func%d() int { return %d }\n", i%10, i, i))
	}
	gitCommitAll(t, root, "first commit", "2024-01-01T00:00:00Z")
	ageTree(t, root)
	idx := filepath.Join(t.TempDir(), "state", "index", "files.idx")
	open := func() *Tree {
		w, err := Open(root, Options{State: disk.New(filepath.Dir(idx)), MapIndex: mapped})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}

	// First run builds and writes the index (on Close at the latest).
	w := open()
	if _, err := w.Files(t.Context()); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if w.follow.lastReused != 0 {
		t.Fatalf("first run reused %d files from nowhere", w.follow.lastReused)
	}
	if _, err := index.Load(idx, w.indexKey()); err != nil {
		t.Fatalf("index not written: %v", err)
	}

	// Changes while no process ran.
	writeFile(t, root, "pkg1/file1.go", "package pkg1\n\nfunc Capybarista() {}\n")
	if err := os.Remove(filepath.Join(root, "pkg2", "file2.go")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "pkg3/added.go", "package pkg3\n\nfunc Pangolinate() {}\n")

	w = open()
	defer w.Close()
	if got := topHit(t, w, "capybarista"); got != "pkg1/file1.go" {
		t.Errorf("edit while stopped: top hit %q", got)
	}
	// The first walk loaded the unchanged files' facts instead of reading them.
	if r := w.follow.lastReused; r != n-2 {
		t.Errorf("second run reused %d files, want the %d unchanged", r, n-2)
	}
	if got := topHit(t, w, "pangolinate"); got != "pkg3/added.go" {
		t.Errorf("file added while stopped: top hit %q", got)
	}
	if ok, _ := hasFile(t, w, "pkg2/file2.go"); ok {
		t.Error("file removed while stopped is still listed")
	}
	if got := topHit(t, w, "func7"); got != "pkg7/file7.go" {
		t.Errorf("unchanged file: top hit %q", got)
	}
}

func TestCorruptIndexRebuilt(t *testing.T) {
	isolateGit(t)
	root := t.TempDir()
	for i := range 50 {
		writeFile(t, root, fmt.Sprintf("d%d/f%d.txt", i%7, i), fmt.Sprintf("word%d lemur%d\n", i, i))
	}
	ageTree(t, root)
	idx := filepath.Join(t.TempDir(), "files.idx")
	w, err := Open(root, Options{State: disk.New(filepath.Dir(idx))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Files(t.Context()); err != nil {
		t.Fatal(err)
	}
	w.Close()
	good, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	corruptions := map[string][]byte{
		"flipped byte": func() []byte { b := slices.Clone(good); b[len(b)/2] ^= 0x40; return b }(),
		"truncated":    good[:len(good)/3],
		"empty":        {},
		"garbage":      []byte("not an index at all"),
	}
	for name, bad := range corruptions {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(idx, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			w, err := Open(root, Options{State: disk.New(filepath.Dir(idx))})
			if err != nil {
				t.Fatal(err)
			}
			got := topHit(t, w, "lemur42")
			w.Close()
			if got != "d0/f42.txt" {
				t.Errorf("top hit %q, want d0/f42.txt", got)
			}
			if w.follow.lastReused != 0 {
				t.Errorf("reused %d files from a corrupt index", w.follow.lastReused)
			}
			if _, err := index.Load(idx, w.indexKey()); err != nil {
				t.Errorf("index not rebuilt: %v", err)
			}
		})
	}
}

// A state dir moved inside the tree: the index written there is neither
// walked nor a change the watcher reports (no refresh loop).
func TestIndexInsideRoot(t *testing.T) {
	root := t.TempDir()
	for i := range 30 {
		writeFile(t, root, fmt.Sprintf("d%d/f%d.txt", i%7, i), fmt.Sprintf("word%d\n", i))
	}
	idx := filepath.Join(root, "state", "index", "files.idx")
	w := newTestWorkspace(t, root, Options{Watch: true, State: disk.New(filepath.Dir(idx))})
	if w.follow.watcher == nil {
		t.Skip("no file watching here")
	}
	// Only this test's requests write the index: the background refresher
	// also starts writes (the index, the file graph), and waiting for
	// the writes while it may start one is a WaitGroup misuse (the race
	// detector caught it once, at a file graph write).
	w.follow.cancel()
	w.follow.bgWG.Wait()
	if ok, _ := hasFile(t, w, "d0/f0.txt"); !ok {
		t.Fatal("d0/f0.txt missing")
	}
	w.follow.saveWG.Wait()
	if _, err := os.Stat(idx); err != nil {
		t.Fatalf("index not written: %v", err)
	}
	// A file written after the index: once its event is seen, nothing
	// from the index write may be pending beside it.
	writeFile(t, root, "d1/marker.txt", "marker\n")
	eventually(t, "marker", func() (bool, string) { return hasFile(t, w, "d1/marker.txt") })
	w.follow.saveWG.Wait()
	if ok, _ := hasFile(t, w, "state/index/files.idx"); ok {
		t.Error("the index file was walked")
	}
	if ch := w.follow.watcher.Take(); len(ch.Paths) != 0 || ch.Rescan {
		t.Errorf("writing the index was reported as a change: %+v", ch)
	}
}

// Past the watch limit the workspace says so and walks on every request,
// so changes are still seen.
func TestFollowWatchLimit(t *testing.T) {
	isolateGit(t)
	root := t.TempDir()
	for i := range 6 {
		writeFile(t, root, fmt.Sprintf("d%d/f.go", i), "package d\n")
	}
	w := newTestWorkspace(t, root, Options{Watch: true, MaxWatches: 3})
	if ok, _ := hasFile(t, w, "d0/f.go"); !ok {
		t.Fatal("d0/f.go missing")
	}
	if why := w.follow.watcher.Degraded(); !strings.Contains(why, "watch limit") {
		t.Fatalf("Degraded() = %q, want the watch limit", why)
	}
	if w.follow.usable() {
		t.Fatal("a degraded watcher is trusted")
	}
	// No polling: without a usable watcher the very next request walks.
	writeFile(t, root, "d5/new.go", "package d\n")
	if ok, got := hasFile(t, w, "d5/new.go"); !ok {
		t.Fatalf("created file not seen by the next request (%s)", got)
	}
	if err := os.Remove(filepath.Join(root, "d4", "f.go")); err != nil {
		t.Fatal(err)
	}
	if ok, _ := hasFile(t, w, "d4/f.go"); ok {
		t.Fatal("deleted file still listed by the next request")
	}
}

// The persisted index under the workspace's .ctxd is invisible to git.
func TestIndexIgnoredByGit(t *testing.T) {
	root := testutil.IsolatedRepo(t)
	for i := range 30 {
		writeFile(t, root, fmt.Sprintf("d%d/f%d.txt", i%7, i), fmt.Sprintf("word%d\n", i))
	}
	gitCommitAll(t, root, "files", "2024-01-01T00:00:00Z")
	w, err := Open(root, Options{State: disk.New(filepath.Dir(filepath.Join(root, ".ctxd", "index", "files.idx")))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Files(t.Context()); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := os.Stat(filepath.Join(root, ".ctxd", "index", "files.idx")); err != nil {
		t.Fatal(err)
	}
	if st := gitCmd(t, root, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("git status lists the index:\n%s", st)
	}
}

// countGit puts a git on PATH that counts its runs (each appends a line
// to the returned file) and then runs the real git.
func countGit(t *testing.T) string {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	count := filepath.Join(dir, "runs")
	script := "#!/bin/sh\necho \"$*\" >> " + count + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return count
}

func gitRuns(t *testing.T, count string) int {
	t.Helper()
	b, err := os.ReadFile(count)
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}
