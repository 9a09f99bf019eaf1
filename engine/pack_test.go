package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/pack"
)

// TestPackCompressUsesViewStore: a compressed pack teaches the engine's
// tree-sitter store what it parses, and the store persists, so the next
// process's compressed pack parses nothing (its store learns nothing) and
// gives the same result.
func TestPackCompressUsesViewStore(t *testing.T) {
	files := map[string]string{}
	for i := range 6 {
		var b strings.Builder
		fmt.Fprintf(&b, "package p\n\n// Step%d computes one step.\nfunc Step%d(x int) int {\n", i, i)
		for j := range 20 {
			fmt.Fprintf(&b, "\tx = x*%d + %d\n", j+2, i)
		}
		b.WriteString("\treturn x\n}\n")
		files[fmt.Sprintf("p/step%d.go", i)] = b.String()
	}
	dir := testutil.GitRepo(t, files)
	open := reopener(t, dir, stateWithIndex(t))
	opts := pack.Options{Compress: true}
	e1 := open()
	r1, err := e1.Pack(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r1.Files {
		if !f.Compressed || strings.Contains(f.Content, "x*3") {
			t.Fatalf("%s not compressed:\n%s", f.Path, f.Content)
		}
	}
	// Pack saves in the background (Store.Save), which clears the dirty
	// mark at its own moment: count what the store holds instead.
	if st := e1.store.Views().Stats(); st.Analyses == 0 || st.Misses == 0 {
		t.Fatalf("the first pack taught the store nothing: %+v", st)
	}
	e1.store.Flush()
	e2 := open()
	r2, err := e2.Pack(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if st := e2.store.Views().Stats(); st.Misses != 0 || st.Hits == 0 {
		t.Errorf("the second process parsed files the first had stored: %+v", st)
	}
	if fmt.Sprint(r1.Files) != fmt.Sprint(r2.Files) || r1.Tokens != r2.Tokens {
		t.Errorf("packs differ: %d vs %d tokens", r1.Tokens, r2.Tokens)
	}
}

// TestSmallTreePersists: a tree of a few files keeps its state as a
// large one does (there was a 256-file threshold: a second `ctxd prompt`
// on a 237-file repository parsed every file it showed again, 1.4 s each
// run): a second process's prompt parses nothing, and a pack of the tree
// persists its token counts.
func TestSmallTreePersists(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"a.go": "package a\n\n// Parse reads the input.\nfunc Parse(s string) (int, error) {\n\tif s == \"\" {\n\t\treturn 0, nil\n\t}\n\treturn len(s), nil\n}\n",
		"b.go": "package a\n\nvar B = 1\n",
	})
	state := t.TempDir() // no index directory yet: the walk makes it
	open := reopener(t, dir, state)
	req := PromptRequest{UserRequest: "fix Parse on empty input"}
	e1 := open()
	if _, err := e1.BuildPrompt(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	if e1.store.Symbols().Parses() == 0 {
		t.Fatal("the first prompt parsed nothing")
	}
	if err := e1.Close(); err != nil {
		t.Fatal(err)
	}
	e2 := open()
	if _, err := e2.BuildPrompt(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	if n := e2.store.Symbols().Parses(); n != 0 {
		t.Errorf("the second process parsed %d files for the symbol index", n)
	}
	if st := e2.store.Views().Stats(); st.Misses != 0 {
		t.Errorf("the second process parsed views the first had stored: %+v", st)
	}
	if _, err := e2.Pack(t.Context(), pack.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := e2.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(state, "index", "pack-counts.bin")); err != nil {
		t.Errorf("a 2-file pack did not persist its counts: %v", err)
	}
}
