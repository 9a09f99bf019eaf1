package tree_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/gather"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/disk"
	"github.com/ctxd/ctxd/workspace/tree"
)

// TestMinifiedFileIsStub: a 900 KB one-line file is gathered as a
// one-line stub that says why, however it is brought in (lexical match,
// literal pattern, open file, unsaved buffer), with its real size and
// line count in the facts; its flag persists in the index, keyed by
// content hash, so a new process knows it without reading it again.
func TestMinifiedFileIsStub(t *testing.T) {
	root := testutil.IsolatedRepo(t)
	big := testutil.OneLineJS(900<<10, "zebrafish")
	for i := range 30 {
		tree.WriteFile(t, root, fmt.Sprintf("src/f%d.go", i), fmt.Sprintf("package src\n\nfunc Func%d() int { return %d }\n", i, i))
	}
	tree.WriteFile(t, root, "web/app.min.js", big)
	tree.GitCommitAll(t, root, "first commit", "2024-01-01T00:00:00Z")
	tree.AgeTree(t, root)
	idx := filepath.Join(t.TempDir(), "index", "files.idx")
	requests := []struct {
		name string
		req  gather.Request
	}{
		{"lexical", gather.Request{Query: query.Parse("the zebrafish function")}},
		{"pattern", gather.Request{Query: query.Parse("explain"), Patterns: []string{"web/app.min.js"}}},
		{"open", gather.Request{Query: query.Parse("explain"), OpenFiles: []ctxd.OpenFile{{Path: "web/app.min.js", Line: 1, Selection: &ctxd.LineRange{Start: 1, End: 1}}}}},
		{"buffer", gather.Request{Query: query.Parse("explain"), Patterns: []string{"web/app.min.js"}, Overlay: map[string]string{"web/app.min.js": big + "var more=1;"}}},
	}
	for run := range 2 { // the second process reads the flag from the index
		w, err := tree.Open(root, tree.Options{State: disk.New(filepath.Dir(idx))})
		if err != nil {
			t.Fatal(err)
		}
		for i, rq := range requests {
			res := gatherOf(t, w, rq.req)
			if i == 0 && run == 1 && tree.LastReused(w) == 0 {
				t.Error("the second process reused nothing from the index")
			}
			c := chunk(res, "web/app.min.js")
			if c == nil {
				t.Fatalf("run %d, %s: app.min.js not gathered: %v", run, rq.name, sources(res))
			}
			wantSize := int64(len(big))
			if rq.name == "buffer" {
				wantSize += int64(len("var more=1;"))
			}
			if want := stubText(wantSize, 1); c.Content != want {
				t.Errorf("run %d, %s: content %.200q, want the stub %q", run, rq.name, c.Content, want)
			}
			if !c.Facts.Minified || c.Facts.Size != wantSize || c.Facts.Lines != 1 || c.Facts.Selection != nil {
				t.Errorf("run %d, %s: facts minified=%v size=%d lines=%d selection=%v", run, rq.name, c.Facts.Minified, c.Facts.Size, c.Facts.Lines, c.Facts.Selection)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if run == 0 {
			snap, err := index.Load(idx, tree.IndexKey(w))
			if err != nil {
				t.Fatalf("index not written: %v", err)
			}
			found := false
			for _, f := range snap.Files {
				if f.Path == "web/app.min.js" {
					found = f.Content != nil && f.Content.Minified
				}
			}
			if !found {
				t.Error("the index does not mark web/app.min.js minified")
			}
		}
	}
}

// stubText is the content gather gives a minified file.
func stubText(size int64, lines int) string {
	unit := "lines"
	if lines == 1 {
		unit = "line"
	}
	return fmt.Sprintf("[minified or very-long-line file: %d bytes on %d %s; content left out]", size, lines, unit)
}
