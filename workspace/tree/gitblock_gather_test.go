//go:build unix

package tree_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxd/ctxd/gather"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/workspace/tree"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/query"
)

// TestGitSkippedForNonRegularIgnoreFile: a FIFO where git reads an ignore
// file (.gitignore at the root or below, .git/info/exclude,
// core.excludesFile) would block git until ctxd's 10 s timeout ends it.
// The walk sees it, no git runs for that snapshot, the request answers
// well under the timeout (cold and warm, with and without the watcher)
// and a warning says why there is no git information.
func TestGitSkippedForNonRegularIgnoreFile(t *testing.T) {
	tests := []struct {
		name string
		fifo string // root-relative; "global" is core.excludesFile
	}{
		{"none", ""},
		{"root .gitignore", ".gitignore"},
		{"sub/.gitignore", "sub/.gitignore"},
		{"info/exclude", ".git/info/exclude"},
		{"core.excludesFile", "global"},
	}
	for _, tt := range tests {
		for _, watch := range []bool{false, true} {
			t.Run(tt.name+map[bool]string{false: "", true: "/watch"}[watch], func(t *testing.T) {
				global := tree.IsolateGit(t)
				root := t.TempDir()
				tree.GitInit(t, root)
				testutil.WriteFiles(t, root, map[string]string{"a.go": "package a\n\nfunc A() {}\n", "sub/b.go": "package sub\n"})
				tree.GitCommitAll(t, root, "initial import", "2024-01-01T10:00:00Z")
				testutil.WriteFiles(t, root, map[string]string{"a.go": "package a\n\nfunc A() { changed() }\n"})
				switch tt.fifo {
				case "":
				case "global":
					fifo := filepath.Join(t.TempDir(), "excludes")
					if err := syscall.Mkfifo(fifo, 0o644); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(global, []byte("[core]\n\texcludesFile = "+fifo+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				default:
					p := filepath.Join(root, filepath.FromSlash(tt.fifo))
					os.Remove(p)
					if err := syscall.Mkfifo(p, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				w := tree.NewTestWorkspace(t, root, tree.Options{Watch: watch})
				for i := range 2 { // cold, then warm
					t0 := time.Now()
					res := gatherOf(t, w, gather.Request{Task: ctxd.TaskDebug, Query: query.Parse("A panics"), Commits: 2})
					took := time.Since(t0)
					if took > 3*time.Second {
						t.Errorf("request %d took %v: git blocked on the FIFO", i, took)
					}
					skipped := false
					for _, w := range res.Warnings {
						skipped = skipped || strings.HasPrefix(w, "git skipped: ")
					}
					diff := chunk(res, "git:diff")
					if tt.fifo == "" {
						if skipped || diff == nil {
							t.Errorf("request %d: no FIFO, yet git skipped=%v, diff=%v; warnings %q", i, skipped, diff != nil, res.Warnings)
						}
						continue
					}
					if !skipped || diff != nil || chunk(res, "git:log") != nil {
						t.Errorf("request %d: skipped=%v, diff=%v; warnings %q", i, skipped, diff != nil, res.Warnings)
					}
				}
			})
		}
	}
}
