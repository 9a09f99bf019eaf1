package tree

import (
	"flag"
	"os/exec"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/workspace/tree/treetest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The git helpers are testutil's (shared with workspace/tree's tests).
var (
	isolateGit   = testutil.IsolateGit
	gitCmd       = testutil.GitIn
	gitInit      = testutil.GitInit
	gitCommitAll = testutil.GitCommitDated
)

// writeFile writes one file under root (a slash path), making its
// directories.
func writeFile(t *testing.T, root, rel, text string) {
	t.Helper()
	testutil.WriteFiles(t, root, map[string]string{rel: text})
}

func newTestWorkspace(t *testing.T, root string, opts Options) *Tree {
	t.Helper()
	return treetest.Open(t, func() (*Tree, error) { return Open(root, opts) })
}

// treeSnapshot walks and indexes the tree at src (a warm workspace's
// snapshot); the workspace closes when the test ends.
func treeSnapshot(tb testing.TB, src string) *Snapshot {
	tb.Helper()
	w := treetest.Open(tb, func() (*Tree, error) { return Open(src, Options{}) })
	s, err := w.refresh(tb.Context())
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// runGitStdin runs git in dir with stdin; git's exit status 1 (as
// check-ignore gives when nothing matches) is not an error here.
func runGitStdin(dir, stdin string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil
	}
	return string(out), err
}
