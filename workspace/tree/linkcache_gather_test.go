package tree_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/gather"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/disk"
	"github.com/ctxd/ctxd/workspace/tree"
)

// TestLinksPersisted: the file graph and the git history persist beside
// the index; a fresh workspace on the unchanged tree loads them and
// gathers the same; a corrupt or stale cache is rebuilt, never trusted.
func TestLinksPersisted(t *testing.T) {
	root := tree.LinksRepo(t)
	more := map[string]string{}
	for i := range 40 {
		more[fmt.Sprintf("filler/f%03d.go", i)] = fmt.Sprintf("package filler\n\n// Filler%d fills.\nfunc Filler%d() int { return Widget%d() }\n", i, i, i%40)
	}
	testutil.WriteFiles(t, root, more)
	tree.GitCommitAll(t, root, "filler", "2024-01-10T10:00:00Z")
	// The co-change pair (billing, audit) is older than the filler commit.
	dir := filepath.Join(t.TempDir(), "state", "index")
	idx := filepath.Join(dir, "files.idx")
	req := gather.Request{Query: query.Parse("charge card declined raises for a valid card"), Task: ctxd.TaskImplement, Depth: 1}

	type run struct {
		res    *gather.Result
		lg     *tree.LinkGraph
		hist   int
		commit int
	}
	gatherOnce := func(t *testing.T) run {
		t.Helper()
		w, err := tree.Open(root, tree.Options{State: disk.New(filepath.Dir(idx))})
		if err != nil {
			t.Fatal(err)
		}
		res := gatherOf(t, w, req)
		s := tree.Current(w)
		lg := tree.BuiltLinks(s)
		hist, commits := tree.GitCounts(w)
		r := run{res: res, lg: lg, hist: hist, commit: commits}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if lg == nil {
			t.Fatal("no file graph")
		}
		return r
	}
	facts := func(res *gather.Result) map[string][2]int {
		m := map[string][2]int{}
		for _, c := range res.Chunks {
			m[c.Source] = [2]int{c.Facts.GraphRank, c.Facts.CoChangeRank}
		}
		return m
	}

	first := gatherOnce(t)
	if tree.Loaded(first.lg) {
		t.Fatal("first run loaded a graph from nowhere")
	}
	// The git caches go beside a persisted index only: the first run
	// writes the index (in the background) and, when it came first, the
	// git caches; the second writes what is missing.
	if r := gatherOnce(t); !tree.Loaded(r.lg) {
		t.Error("second run rebuilt the graph")
	}
	if c := chunk(first.res, "audit/trail.py"); c == nil || c.Facts.CoChangeRank == 0 {
		t.Fatalf("co-change answer missing: %v", sources(first.res))
	}
	for _, name := range []string{tree.LinksFile, tree.CommitsFile, tree.HistoryFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Fatalf("%s not written: %v", name, err)
		}
	}

	same := func(t *testing.T, r run, wantLoaded bool) {
		t.Helper()
		if tree.Loaded(r.lg) != wantLoaded {
			t.Errorf("graph loaded %v, want %v", tree.Loaded(r.lg), wantLoaded)
		}
		if !reflect.DeepEqual(r.lg.Graph, first.lg.Graph) || r.lg.FileNodes != first.lg.FileNodes {
			t.Error("graph differs from the one built")
		}
		if r.hist != first.hist || r.commit != first.commit {
			t.Errorf("history %d commits %d, want %d and %d", r.hist, r.commit, first.hist, first.commit)
		}
		if got, want := facts(r.res), facts(first.res); !reflect.DeepEqual(got, want) {
			t.Errorf("link facts %v, want %v", got, want)
		}
	}
	t.Run("loaded", func(t *testing.T) { same(t, gatherOnce(t), true) })

	corrupt := func(t *testing.T, name string, edit func([]byte) []byte) {
		t.Helper()
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, edit(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	flip := func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b }
	tests := []struct {
		name string
		edit func([]byte) []byte
	}{
		{"flipped byte", flip},
		{"truncated", func(b []byte) []byte { return b[:len(b)-7] }},
		{"empty", func([]byte) []byte { return nil }},
		{"other magic", func(b []byte) []byte { copy(b, "CTXDXXX1"); return b }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, name := range []string{tree.LinksFile, tree.CommitsFile, tree.HistoryFile} {
				corrupt(t, name, tt.edit)
			}
			same(t, gatherOnce(t), false)
			// Rewritten: the next run loads again.
			same(t, gatherOnce(t), true)
		})
	}

	t.Run("stale", func(t *testing.T) {
		// A content change makes another graph; a new commit another history.
		testutil.WriteFiles(t, root, map[string]string{"store/extra.go": "package store\n\nfunc Extra() {}\n",
			"billing/charge.py": "\"\"\"Charges.\"\"\"\n\n\ndef charge_card(card):\n    raise ValueError(\"card declined\")\n",
			"filler/f000.go":    "package filler\n\nfunc Filler0() {}\n"})
		tree.GitCommitAll(t, root, "pair charge with filler", "2024-01-11T10:00:00Z")
		r := gatherOnce(t)
		if tree.Loaded(r.lg) {
			t.Error("changed tree loaded the old graph")
		}
		if r.lg.FileNodes != first.lg.FileNodes+1 {
			t.Errorf("graph of %d files, want %d", r.lg.FileNodes, first.lg.FileNodes+1)
		}
		if r.hist != first.hist+1 {
			t.Errorf("history of %d commits after a new one, want %d", r.hist, first.hist+1)
		}
		if c := chunk(r.res, "filler/f000.go"); c == nil || c.Facts.CoChangeRank == 0 {
			t.Errorf("the new commit's pair is not co-changed: %v", facts(r.res))
		}
	})
}

// TestSmallTreePersisted: a tree of four files persists its file index
// and file graph as a large one does (there is no size
// threshold: the parses and counts kept beside them are what a second
// run on a small tree would otherwise spend its time on).
func TestSmallTreePersisted(t *testing.T) {
	root := tree.LinksRepo(t)
	dir := filepath.Join(t.TempDir(), "state", "index")
	w, err := tree.Open(root, tree.Options{State: disk.New(dir)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gather.Gather(t.Context(), w, gather.Request{Query: query.Parse("charge card declined"), Task: ctxd.TaskImplement, Depth: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// (The git caches are written only once index/ exists, which the
	// background index write may not have made yet when they are ready:
	// on any tree; not asserted here.)
	for _, name := range []string{"files.idx", "links.bin"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("a small tree did not persist %s: %v", name, err)
		}
	}
}
