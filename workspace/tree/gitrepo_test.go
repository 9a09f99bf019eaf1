package tree

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/internal/testutil"
)

// goGitStatus is go-git's own Worktree.Status of the repository at top,
// the changed entries only, as "XY" codes.
func goGitStatus(t *testing.T, top string) (map[string]string, error) {
	t.Helper()
	repo, err := git.PlainOpen(top)
	if err != nil {
		return nil, err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, err
	}
	st, err := wt.Status()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for p, fs := range st {
		if fs.Staging == git.Unmodified && fs.Worktree == git.Unmodified {
			continue
		}
		out[p] = string([]byte{byte(fs.Staging), byte(fs.Worktree)})
	}
	return out, nil
}

// ourStatus is gitrepo.go's status of the repository at top, the same way.
func ourStatus(t *testing.T, top string) (map[string]string, error) {
	t.Helper()
	h, err := openRepo(top)
	if err != nil {
		return nil, err
	}
	defer h.close()
	st, err := h.status()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for p, fs := range st {
		if fs.Staging == stUnmodified && fs.Worktree == stUnmodified {
			continue
		}
		out[p] = string([]byte{fs.Staging, fs.Worktree})
	}
	return out, nil
}

// withSubmodules is a repository with one commit that adds a library
// repository as a submodule at each of paths.
func withSubmodules(t *testing.T, paths ...string) string {
	t.Helper()
	sub := testutil.GitRepo(t, map[string]string{"lib.go": "package lib\n"})
	dir := testutil.GitRepo(t, map[string]string{"main.go": "package main\n"})
	for _, p := range paths {
		testutil.Git(t, dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, p)
	}
	testutil.Git(t, dir, "commit", "-q", "-m", "add submodules")
	return dir
}

// TestStatusMatchesGoGit: the worktree status read without go-git's root
// package is go-git's Worktree.Status, on repositories in every state the
// status distinguishes: staged, modified, deleted both ways, untracked
// files and directories, ignored ones (tracked and not), a submodule
// moved to another commit, one not initialized, no commit yet, and an
// extension go-git refuses.
func TestStatusMatchesGoGit(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T) string
		some  map[string]string // entries the status must have ("": none)
	}{
		{"clean", func(t *testing.T) string {
			return testutil.GitRepo(t, map[string]string{"a.go": "package a\n", "d/b.go": "package d\n"})
		}, map[string]string{"a.go": ""}},
		{"every change", func(t *testing.T) string {
			dir := testutil.GitRepo(t, map[string]string{
				"a.go": "package a\n", "b.go": "package b\n", "c.go": "package c\n", "d/e.go": "package d\n",
				".gitignore": "*.log\nbuild/\n", "kept.log": "tracked though ignored\n", "s.go": "package s\n",
			})
			testutil.Git(t, dir, "add", "-f", "kept.log")
			testutil.Git(t, dir, "commit", "-q", "-m", "track an ignored file")
			testutil.WriteFiles(t, dir, map[string]string{"a.go": "package a // changed\n"})
			os.Remove(filepath.Join(dir, "b.go"))
			testutil.Git(t, dir, "rm", "-q", "c.go")
			testutil.WriteFiles(t, dir, map[string]string{"new.go": "package n\n"})
			testutil.Git(t, dir, "add", "new.go")
			testutil.WriteFiles(t, dir, map[string]string{"s.go": "package s // staged\n"})
			testutil.Git(t, dir, "add", "s.go")
			testutil.WriteFiles(t, dir, map[string]string{"s.go": "package s // staged, then changed again\n"})
			testutil.WriteFiles(t, dir, map[string]string{"untracked.txt": "u\n"})
			testutil.WriteFiles(t, dir, map[string]string{"newdir/x.go": "package x\n"})
			testutil.WriteFiles(t, dir, map[string]string{"debug.log": "ignored\n"})
			testutil.WriteFiles(t, dir, map[string]string{"build/out.bin": "ignored dir\n"})
			testutil.WriteFiles(t, dir, map[string]string{"kept.log": "tracked, ignored, changed\n"})
			testutil.WriteFiles(t, dir, map[string]string{"d/e.go": "package d // changed\n"})
			return dir
		}, map[string]string{"a.go": " M", "b.go": " D", "c.go": "D ", "new.go": "A ", "s.go": "MM", "untracked.txt": "??",
			"newdir/x.go": "??", "kept.log": " M", "d/e.go": " M", "debug.log": "", "build/out.bin": ""}},
		{"no commit yet", func(t *testing.T) string {
			dir := t.TempDir()
			testutil.Git(t, dir, "init", "-q", "-b", "main")
			testutil.WriteFiles(t, dir, map[string]string{"a.go": "package a\n"})
			testutil.WriteFiles(t, dir, map[string]string{"b.go": "package b\n"})
			testutil.Git(t, dir, "add", "a.go")
			return dir
		}, map[string]string{"a.go": "A ", "b.go": "??"}},
		{"submodules", func(t *testing.T) string {
			dir := withSubmodules(t, "lib", "lib2")
			// lib moves to a new commit; lib2 is left as recorded.
			testutil.WriteFiles(t, filepath.Join(dir, "lib"), map[string]string{"more.go": "package lib\n"})
			testutil.Git(t, filepath.Join(dir, "lib"), "add", "-A")
			testutil.Git(t, filepath.Join(dir, "lib"), "commit", "-q", "-m", "more")
			return dir
		}, map[string]string{"lib": " M", "lib2": ""}},
		{"uninitialized submodule", func(t *testing.T) string {
			dir := withSubmodules(t, "lib")
			clone := filepath.Join(t.TempDir(), "clone")
			testutil.Git(t, dir, "clone", "-q", dir, clone)
			testutil.WriteFiles(t, clone, map[string]string{"main.go": "package main // changed\n"})
			return clone
		}, map[string]string{"main.go": " M"}},
		{"unknown extension", func(t *testing.T) string {
			dir := testutil.GitRepo(t, map[string]string{"a.go": "package a\n"})
			testutil.Git(t, dir, "config", "core.repositoryformatversion", "1")
			testutil.Git(t, dir, "config", "extensions.madeUp", "true")
			return dir
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.setup(t)
			want, wantErr := goGitStatus(t, dir)
			got, gotErr := ourStatus(t, dir)
			if (wantErr != nil) != (gotErr != nil) {
				t.Fatalf("error: got %v, go-git %v", gotErr, wantErr)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("status (-go-git +ours):\n%s", d)
			}
			for p, code := range tt.some {
				if got[p] != code {
					t.Errorf("%s: %q, want %q (status %v)", p, got[p], code, got)
				}
			}
		})
	}
}

// TestLogMatchesGoGit: the log walk is go-git's Log in committer-time
// order, merges included.
func TestLogMatchesGoGit(t *testing.T) {
	dir := t.TempDir()
	testutil.GitInit(t, dir)
	for i, date := range []string{"2024-01-01T10:00:00Z", "2024-01-02T10:00:00Z", "2024-01-03T10:00:00Z"} {
		if err := os.WriteFile(filepath.Join(dir, "f.go"), []byte("package f // "+date+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		testutil.GitCommitDated(t, dir, "commit "+itoaTest(i), date)
	}
	testutil.GitIn(t, dir, "checkout", "-q", "-b", "side", "HEAD~1")
	if err := os.WriteFile(filepath.Join(dir, "g.go"), []byte("package g\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.GitCommitDated(t, dir, "side", "2024-01-04T10:00:00Z")
	testutil.GitIn(t, dir, "checkout", "-q", "main")
	t.Setenv("GIT_COMMITTER_DATE", "2024-01-05T10:00:00Z")
	testutil.GitIn(t, dir, "merge", "-q", "--no-edit", "side")

	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	it, err := repo.Log(&git.LogOptions{From: head.Hash(), Order: git.LogOrderCommitterTime})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for c, err := it.Next(); err == nil; c, err = it.Next() {
		want = append(want, c.Hash.String())
	}
	h, err := openRepo(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer h.close()
	cs, err := h.log(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, c.Hash)
	}
	if len(want) != 5 {
		t.Fatalf("go-git walked %d commits, want 5", len(want))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("log (-go-git +ours):\n%s", d)
	}
}

func itoaTest(i int) string { return string(rune('0' + i)) }
