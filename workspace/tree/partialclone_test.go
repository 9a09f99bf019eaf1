package tree_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/workspace/tree"
)

// TestPartialCloneNotFetched: in a partial clone (blobs left on the
// promisor remote) the line-history log needs old blobs the clone lacks.
// git would fetch them from the remote on its own (a lazy fetch): ctxd
// makes no network call, so its git refuses every transport and the read
// fails instead, and no object arrives in the clone.
func TestPartialCloneNotFetched(t *testing.T) {
	origin := testutil.GitRepo(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	for i := 1; i <= 3; i++ {
		testutil.WriteFiles(t, origin, map[string]string{"main.go": fmt.Sprintf("package main\n\n// version %d\nfunc main() {}\n", i)})
		testutil.GitCommitAll(t, origin)
	}
	testutil.Git(t, origin, "config", "uploadpack.allowFilter", "true")
	clone := filepath.Join(t.TempDir(), "clone")
	testutil.Git(t, t.TempDir(), "clone", "-q", "--filter=blob:none", "file://"+origin, clone)
	missing := func() int {
		// --missing=print lists what the clone lacks without fetching it.
		out := testutil.Git(t, clone, "rev-list", "--objects", "--all", "--missing=print")
		return strings.Count("\n"+out, "\n?")
	}
	before := missing()
	if before == 0 {
		t.Fatal("the partial clone holds every blob: the test cannot tell a fetch")
	}
	w, err := tree.Open(clone, tree.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.ReadLineHistories(t.Context()); err == nil {
		t.Error("line histories read in a partial clone missing their blobs: were they fetched?")
	}
	if after := missing(); after != before {
		t.Errorf("objects missing from the clone: %d before the read, %d after: git fetched from the remote", before, after)
	}
}
