package tree

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"

	"github.com/ctxd/ctxd"
)

func TestFindRoot(t *testing.T) {
	repo := testutil.IsolatedRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"a/b/c.txt": "x"})
	plain := t.TempDir()
	realRepo, _ := filepath.EvalSymlinks(repo)
	realPlain, _ := filepath.EvalSymlinks(plain)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Join(repo, "a"), link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, want string
	}{
		{"repo top", repo, realRepo},
		{"nested dir", filepath.Join(repo, "a", "b"), realRepo},
		{"through symlink", link, realRepo},
		{"not a repo", plain, realPlain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FindRoot(tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("FindRoot(%s) = %s, want %s", tt.dir, got, tt.want)
			}
		})
	}
	if _, err := FindRoot(filepath.Join(repo, "missing")); err == nil {
		t.Error("FindRoot of a missing dir: want an error")
	}
	if _, err := FindRoot(filepath.Join(repo, "a", "b", "c.txt")); !errors.Is(err, ctxd.ErrInvalidParams) {
		t.Errorf("FindRoot of a file: got %v, want ErrInvalidParams", err)
	}
}

func TestResolve(t *testing.T) {
	root := t.TempDir()
	realRoot, _ := filepath.EvalSymlinks(root)
	outside := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"src/a.go": "package a", "docs/x.md": "x"})
	testutil.WriteFiles(t, outside, map[string]string{"secret.txt": "s"})
	mustLink := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	mustLink(filepath.Join(outside, "secret.txt"), "escape.txt")
	mustLink(outside, "escapedir")
	mustLink("src/a.go", "inside.go")
	mustLink(filepath.Join(outside, "missing"), "dangling")
	rootLink := filepath.Join(t.TempDir(), "rootlink")
	if err := os.Symlink(root, rootLink); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		root, p string
		wantRel string
		outside bool
		invalid bool
	}{
		{name: "relative", root: root, p: "src/a.go", wantRel: "src/a.go"},
		{name: "dot relative", root: root, p: "./src/../src/a.go", wantRel: "src/a.go"},
		{name: "absolute", root: root, p: filepath.Join(root, "src", "a.go"), wantRel: "src/a.go"},
		{name: "file uri", root: root, p: "file://" + filepath.ToSlash(filepath.Join(realRoot, "docs", "x.md")), wantRel: "docs/x.md"},
		{name: "file uri escaped", root: root, p: "file://" + filepath.ToSlash(realRoot) + "/docs/%78.md", wantRel: "docs/x.md"},
		{name: "missing file inside", root: root, p: "src/new.go", wantRel: "src/new.go"},
		{name: "symlink inside", root: root, p: "inside.go", wantRel: "src/a.go"},
		{name: "root itself", root: root, p: ".", wantRel: "."},
		{name: "root given through symlink", root: rootLink, p: filepath.Join(rootLink, "src", "a.go"), wantRel: "src/a.go"},
		{name: "dotdot", root: root, p: "../x.go", outside: true},
		{name: "dotdot deep", root: root, p: "src/../../etc/passwd", outside: true},
		{name: "absolute outside", root: root, p: "/etc/passwd", outside: true},
		{name: "symlink escape", root: root, p: "escape.txt", outside: true},
		{name: "through symlinked dir", root: root, p: "escapedir/secret.txt", outside: true},
		{name: "dangling symlink out", root: root, p: "dangling", outside: true},
		{name: "file uri outside", root: root, p: "file:///etc/passwd", outside: true},
		{name: "empty", root: root, p: "", invalid: true},
		{name: "remote uri", root: root, p: "file://example.com/x", invalid: true},
		{name: "nul", root: root, p: "a\x00b", invalid: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			abs, rel, err := Resolve(tt.root, tt.p)
			switch {
			case tt.outside:
				if !errors.Is(err, ctxd.ErrOutsideRoot) {
					t.Fatalf("Resolve(%q) error = %v, want ErrOutsideRoot", tt.p, err)
				}
				if !strings.Contains(err.Error(), realRoot) || !strings.Contains(err.Error(), tt.p) {
					t.Errorf("error %q should name the path and the root", err)
				}
				return
			case tt.invalid:
				if !errors.Is(err, ctxd.ErrInvalidParams) {
					t.Fatalf("Resolve(%q) error = %v, want ErrInvalidParams", tt.p, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rel != tt.wantRel {
				t.Errorf("rel = %q, want %q", rel, tt.wantRel)
			}
			if want := filepath.Join(realRoot, filepath.FromSlash(tt.wantRel)); abs != want {
				t.Errorf("abs = %q, want %q", abs, want)
			}
		})
	}
}

// go test -fuzz=FuzzResolve ./workspace/tree
func FuzzResolve(f *testing.F) {
	root := f.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink("..", filepath.Join(root, "src", "up")); err != nil {
		f.Fatal(err)
	}
	realRoot, _ := filepath.EvalSymlinks(root)
	for _, s := range []string{"src/a.go", "../x", "file:///etc/passwd", "file://" + realRoot + "/src/a.go", "src/up/up/x", "/", ".", "a/../../b", "file:%zz", "src/\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		abs, rel, err := Resolve(root, p)
		if err != nil {
			return
		}
		if r, ok := within(realRoot, abs); !ok || filepath.ToSlash(r) != rel {
			t.Fatalf("Resolve(%q) = %q, %q: not inside root %s", p, abs, rel, realRoot)
		}
		if rel == ".." || strings.HasPrefix(rel, "../") {
			t.Fatalf("Resolve(%q) rel = %q", p, rel)
		}
	})
}
