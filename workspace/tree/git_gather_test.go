package tree_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/gather"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/workspace/tree"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/query"
)

func TestGitDiffAndFacts(t *testing.T) {
	root := tree.HistoryRepo(t)
	testutil.WriteFiles(t, root, map[string]string{
		"a.go":          "package h\n\nfunc A() { changed() }\n",
		".env":          "TOKEN=changed-hunter2\n",
		"new.go":        "package h\n",
		".gitignore":    "*.tmp\n",
		"junk.tmp":      "x",
		".ctxdignore":   "private.go\n",
		"private.go":    "package h\n",
		"sub/d/deep.go": "package d\n",
	})
	testutil.WriteFiles(t, root, map[string]string{".git/info/exclude": "local.go\n", "local.go": "package h\n"})

	d, err := tree.GitDiff(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Via != "git" {
		t.Errorf("Via = %q", d.Via)
	}
	if !strings.Contains(d.Patch, "+func A() { changed() }") || strings.Contains(d.Patch, "hunter2") {
		t.Errorf("patch:\n%s", d.Patch)
	}
	if d.SecretsLeftOut != 1 {
		t.Errorf("SecretsLeftOut = %d, want 1", d.SecretsLeftOut)
	}
	var paths []string
	for _, c := range d.Changes {
		paths = append(paths, c.Status+" "+c.Path)
	}
	wantPaths := []string{" M a.go", "?? .ctxdignore", "?? .gitignore", "?? new.go", "?? private.go", "?? sub/d/deep.go"}
	slices.Sort(paths)
	if d := cmp.Diff(wantPaths, paths); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}

	w := tree.NewTestWorkspace(t, root, tree.Options{})
	res := gatherOf(t, w, gather.Request{Task: ctxd.TaskDebug, Query: query.Parse("A panics"), Commits: 2})
	diff := chunk(res, "git:diff")
	if diff == nil || diff.ChunkType != ctxd.ChunkDiff || diff.Priority != ctxd.PriorityHigh {
		t.Fatalf("git:diff chunk: %+v", diff)
	}
	if strings.Contains(diff.Content, "private.go") || strings.Contains(diff.Content, "hunter2") || strings.Contains(diff.Content, "local.go") {
		t.Errorf("diff shows ignored or secret files:\n%s", diff.Content)
	}
	log := chunk(res, "git:log")
	if log == nil || log.ChunkType != ctxd.ChunkHistory || !strings.Contains(log.Content, "remove sub") || strings.Contains(log.Content, "add A and sub") {
		t.Fatalf("git:log chunk (2 commits): %+v", log)
	}
	a := chunk(res, "a.go")
	if a == nil || !a.Facts.Dirty {
		t.Fatalf("a.go not gathered as dirty: %v", sources(res))
	}
	if !slices.Contains(a.Facts.Reasons, "uncommitted changes") {
		t.Errorf("a.go reasons %v", a.Facts.Reasons)
	}
	res = gatherOf(t, w, gather.Request{Task: ctxd.TaskImplement, Patterns: []string{"*.go"}, Commits: 3})
	for src, rank := range map[string]int{"b.go": 2, "a.go": 3, "go.mod": 0} {
		if c := chunk(res, src); c != nil && c.Facts.CommitRank != rank {
			t.Errorf("%s: CommitRank = %d, want %d", src, c.Facts.CommitRank, rank)
		}
	}
	if c := chunk(res, "b.go"); c == nil || c.Priority != ctxd.PriorityHigh {
		t.Errorf("recently changed b.go: %+v", c)
	}
}
