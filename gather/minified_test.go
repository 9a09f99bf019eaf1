package gather

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/disk"
)

// TestMinifiedFileIsStub: a 900 KB one-line file is gathered as a
// one-line stub that says why, however it is brought in (lexical match,
// literal pattern, open file, unsaved buffer), with its real size and
// line count in the facts; its flag persists in the index, keyed by
// content hash, so a new process knows it without reading it again.
func TestMinifiedFileIsStub(t *testing.T) {
	isolateGit(t)
	root := t.TempDir()
	gitInit(t, root)
	big := testutil.OneLineJS(900<<10, "zebrafish")
	for i := range PersistMinFiles + 5 {
		writeFile(t, root, fmt.Sprintf("src/f%d.go", i), fmt.Sprintf("package src\n\nfunc Func%d() int { return %d }\n", i, i))
	}
	writeFile(t, root, "web/app.min.js", big)
	gitCommitAll(t, root, "first commit", "2024-01-01T00:00:00Z")
	ageTree(t, root)
	idx := filepath.Join(t.TempDir(), "index", "files.idx")
	requests := []struct {
		name string
		req  Request
	}{
		{"lexical", Request{Query: query.Parse("the zebrafish function")}},
		{"pattern", Request{Query: query.Parse("explain"), Patterns: []string{"web/app.min.js"}}},
		{"open", Request{Query: query.Parse("explain"), OpenFiles: []ctxd.OpenFile{{Path: "web/app.min.js", Line: 1, Selection: &ctxd.LineRange{Start: 1, End: 1}}}}},
		{"buffer", Request{Query: query.Parse("explain"), Patterns: []string{"web/app.min.js"}, Overlay: map[string]string{"web/app.min.js": big + "var more=1;"}}},
	}
	for run := range 2 { // the second process reads the flag from the index
		w, err := NewWorkspace(root, Options{State: disk.New(filepath.Dir(idx))})
		if err != nil {
			t.Fatal(err)
		}
		for i, rq := range requests {
			res := gather(t, w, rq.req)
			if i == 0 && run == 1 && w.follow.lastReused == 0 {
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
			if want := minifiedStub(wantSize, 1); c.Content != want {
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
			snap, err := index.Load(idx, w.indexKey())
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
