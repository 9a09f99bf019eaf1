package symbols

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/treesitter"
)

// TestOpenRecords: an index opened on a directory persists each entry as
// it is made; a second process reads them one at a time without parsing,
// also past the memory bound; a corrupt record is parsed again.
func TestOpenRecords(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { memEntries = n }(memEntries)
	memEntries = 4
	src := func(i int) []byte {
		return fmt.Appendf(nil, "package a\n\ntype T%d struct{}\n\nfunc (T%d) Run%d() int { return %d }\n", i, i, i, i)
	}
	ctx := t.Context()
	x, err := openRecords(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []*index.Symbols
	for i := range 12 {
		e, err := x.File(ctx, fmt.Sprintf("f%d.go", i), src(i))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, e)
	}
	if err := x.persist(dir); err != nil {
		t.Fatal(err)
	}
	x.close()

	// reopen opens the records as another process would and reads every
	// entry back, which must be the one made.
	reopen := func(what string) *Index {
		t.Helper()
		y, err := openRecords(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { y.close() })
		for i := range 12 {
			e, err := y.File(ctx, fmt.Sprintf("f%d.go", i), src(i))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want[i], e); d != "" {
				t.Errorf("entry %d %s (-made +read):\n%s", i, what, d)
			}
		}
		return y
	}
	y := reopen("read back")
	if n := y.Parses(); n != 0 {
		t.Errorf("second process parsed %d files, want 0", n)
	}
	if n := y.Len(); n > memEntries {
		t.Errorf("%d entries in memory, bound %d", n, memEntries)
	}

	// Corrupt every record: a third process parses again, with the same
	// result.
	ms, _ := filepath.Glob(filepath.Join(dir, "symbols"+".*.dat"))
	b, _ := os.ReadFile(ms[0])
	for i := range b {
		b[i] ^= 0x33
	}
	os.WriteFile(ms[0], b, 0o600)
	z := reopen("after corruption")
	if n := z.Parses(); n != 12 {
		t.Errorf("after corruption %d parses, want 12", n)
	}
}

// TestAddMatchesFile: an entry added from treesitter.Prepare's tags is
// the one File makes, and File then parses nothing.
func TestAddMatchesFile(t *testing.T) {
	src := []byte("package a\n\n// Server serves.\ntype Server struct{}\n\nfunc (s *Server) Shutdown() error { return nil }\n")
	ctx := t.Context()
	want, err := New().File(ctx, "a.go", src)
	if err != nil {
		t.Fatal(err)
	}
	x := New()
	if x.Has("go", src) {
		t.Fatal("empty index has an entry")
	}
	tags, _, err := treesitter.Prepare(ctx, "go", src, treesitter.NewStore(), true)
	if err != nil {
		t.Fatal(err)
	}
	x.Add("go", src, tags)
	if !x.Has("go", src) {
		t.Fatal("added entry missing")
	}
	got, err := x.File(ctx, "a.go", src)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("added entry (-parsed +added):\n%s", d)
	}
	if x.Parses() != 0 {
		t.Error("File parsed an added content")
	}
}

// TestFileWithoutCaches: under treesitter.WithoutCaches an index backed
// by a record file returns the same entries, keeps none in memory, and
// parses each content once (the record file has it afterwards).
func TestFileWithoutCaches(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	x, err := openRecords(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer x.close()
	ctx := treesitter.WithoutCaches(t.Context())
	src := func(i int) []byte {
		return fmt.Appendf(nil, "package a\n\nfunc Run%d() int { return %d }\n", i, i)
	}
	for i := range 3 {
		for range 2 { // parsed, then read from the record file
			e, err := x.File(ctx, fmt.Sprintf("f%d.go", i), src(i))
			if err != nil || e == nil {
				t.Fatalf("file %d: %v %v", i, e, err)
			}
			if len(e.Defs) != 1 || e.Defs[0].Name != fmt.Sprintf("Run%d", i) {
				t.Errorf("file %d: defs %+v", i, e.Defs)
			}
		}
	}
	if n := x.Len(); n != 0 {
		t.Errorf("%d entries in memory, want 0", n)
	}
	if n := x.Parses(); n != 3 {
		t.Errorf("%d parses, want 3", n)
	}
	if _, err := x.File(t.Context(), "f0.go", src(0)); err != nil || x.Len() != 1 || x.Parses() != 3 {
		t.Errorf("a request's File: %v, %d in memory, %d parses; want 1 and 3", err, x.Len(), x.Parses())
	}
}

// TestFileUseStore: with a store (UseStore), File's parses put their
// analyses there, so the views of the file need no parse of their own;
// without one, nothing goes to a store.
func TestFileUseStore(t *testing.T) {
	s := treesitter.NewStore()
	x := New()
	x.UseStore(func() *treesitter.Store { return s })
	src := []byte("package a\n\n// Run runs.\nfunc Run() int {\n\tx := 1\n\tx++\n\tx++\n\treturn x\n}\n")
	if e, err := x.File(t.Context(), "a.go", src); err != nil || e == nil || len(e.Defs) != 1 {
		t.Fatalf("File: %+v %v", e, err)
	}
	if st := s.Stats(); st.Analyses != 1 {
		t.Errorf("%d analyses in the store, want 1", st.Analyses)
	}
	x2 := New()
	x2.UseStore(nil)
	if _, err := x2.File(t.Context(), "a.go", src); err != nil {
		t.Fatalf("File without a store: %v", err)
	}
}
