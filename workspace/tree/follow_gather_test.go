package tree_test

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/gather"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/tree"
)

func TestFollowGit(t *testing.T) {
	root, w, _ := tree.FollowedRepo(t, 5)
	// gitChunk gathers again and returns the content of the chunk id.
	gitChunk := func(id string) func() string {
		return func() string {
			res := gatherOf(t, w, gather.Request{Query: query.Parse("x"), Task: ctxd.TaskDebug})
			if c := chunk(res, id); c != nil {
				return c.Content
			}
			return ""
		}
	}
	log, diff := gitChunk("git:log"), gitChunk("git:diff")
	if !strings.Contains(log(), "first commit") {
		t.Fatal("no first commit in the log")
	}
	if d := diff(); d != "" {
		t.Fatalf("clean tree has a diff chunk:\n%s", d)
	}
	// A tracked file edited: the diff follows without a new commit.
	tree.WriteFile(t, root, "main.go", "package main\n\nfunc main() { println(\"wombat\") }\n")
	tree.Eventually(t, "uncommitted edit", func() (bool, string) { d := diff(); return strings.Contains(d, "wombat"), d })

	// A commit moves HEAD: the log follows, the diff empties.
	tree.GitCmd(t, root, "commit", "-qam", "second commit")
	tree.Eventually(t, "commit", func() (bool, string) {
		l := log()
		return strings.Contains(l, "second commit") && diff() == "", l
	})

	// A branch switch changes HEAD and the files.
	tree.GitCmd(t, root, "checkout", "-q", "-b", "feature")
	tree.WriteFile(t, root, "feature.go", "package main\n\nfunc Featurette() {}\n")
	tree.GitCmd(t, root, "add", "feature.go")
	tree.GitCmd(t, root, "commit", "-qm", "feature commit")
	tree.Eventually(t, "feature branch", func() (bool, string) {
		ok, got := tree.HasFile(t, w, "feature.go")
		return ok && strings.Contains(log(), "feature commit"), got
	})
	tree.GitCmd(t, root, "checkout", "-q", "main")
	tree.Eventually(t, "back on main", func() (bool, string) {
		ok, got := tree.HasFile(t, w, "feature.go")
		l := log()
		return !ok && !strings.Contains(l, "feature commit"), got
	})
}

// An unsaved buffer wins over disk in the next request, in ranking and in
// the chunk, without touching the index.
func TestFollowUnsavedBuffer(t *testing.T) {
	_, w, _ := tree.FollowedRepo(t, 5)
	gatherOf(t, w, gather.Request{Query: query.Parse("x")})
	overlay := map[string]string{"pkg1/file1.go": "package pkg1\n\nfunc Axolotlish() {}\n"}
	res := gatherOf(t, w, gather.Request{Query: query.Parse("where is axolotlish"), Task: ctxd.TaskImplement, Overlay: overlay})
	c := chunk(res, "pkg1/file1.go")
	if c == nil || !strings.Contains(c.Content, "Axolotlish") || !c.Facts.Unsaved {
		t.Fatalf("unsaved buffer not gathered: %v", sources(res))
	}
	// Without the overlay the disk text is back.
	res = gatherOf(t, w, gather.Request{Query: query.Parse("where is axolotlish"), Task: ctxd.TaskImplement})
	if c := chunk(res, "pkg1/file1.go"); c != nil && strings.Contains(c.Content, "Axolotlish") {
		t.Fatal("buffer text outlived its request")
	}
}

// Prepare reads the git facts ahead: requests arriving during or after
// it get them without running git again, and see the uncommitted change.
func TestPrepareReadsGitAhead(t *testing.T) {
	root, w, _ := tree.FollowedRepo(t, 20)
	tree.WriteFile(t, root, "pkg3/file3.go", "package pkg3\n\nfunc Changed() {}\n")
	count := tree.CountGit(t)

	var wg sync.WaitGroup
	wg.Go(func() { w.Prepare(t.Context(), 0) })
	res := make([]*gather.Result, 3)
	for i := range res {
		wg.Go(func() {
			r, err := gather.Gather(t.Context(), w, gather.Request{Query: query.Parse("explain Changed"), Task: ctxd.TaskAnalyze})
			if err != nil {
				t.Error(err)
				return
			}
			res[i] = r
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for i, r := range res {
		if c := chunk(r, "git:diff"); c == nil || !strings.Contains(c.Content, "pkg3/file3.go") {
			t.Errorf("request %d: no git:diff chunk naming the changed file", i)
		}
	}
	// One read for all four (the watcher's generation did not move):
	// each git command (status, rev-parse, diff, the history's log) ran
	// once.
	b, err := os.ReadFile(count)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for line := range strings.Lines(string(b)) {
		if seen[line] {
			t.Errorf("git ran twice for a Prepare and 3 requests: %s", line)
		}
		seen[line] = true
	}
	runs := tree.GitRuns(t, count)
	if _, err := gather.Gather(t.Context(), w, gather.Request{Query: query.Parse("explain Changed"), Task: ctxd.TaskAnalyze}); err != nil {
		t.Fatal(err)
	}
	if again := tree.GitRuns(t, count); again != runs {
		t.Errorf("a request after Prepare ran git %d more times, want 0", again-runs)
	}
}
