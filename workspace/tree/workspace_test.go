package tree

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/query"
)

// TestWorkspaceRevalidates: files added, changed and removed between
// requests are picked up; unchanged files are not read again.
func TestWorkspaceRevalidates(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"alpha.go": "package p\n// alpha widget\n", "beta.go": "package p\n// beta gadget\n"})
	w := newTestWorkspace(t, root, Options{})
	s1, err := w.refresh(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	s2, err := w.refresh(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if s1 != s2 {
		t.Error("unchanged tree gave a new snapshot")
	}
	testutil.WriteFiles(t, root, map[string]string{"gamma.go": "package p\n// gamma sprocket\n", "alpha.go": "package p\n// alpha sprocket changed\n"})
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(root, "alpha.go"), future, future); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "beta.go")); err != nil {
		t.Fatal(err)
	}
	s3, err := w.refresh(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"alpha.go", "gamma.go"}, s3.paths()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if s3.ByRel["alpha.go"] == s1.ByRel["alpha.go"] {
		t.Error("changed alpha.go kept its old entry")
	}
	hits := s3.Index.Rank(query.Parse("sprocket"), 0)
	if len(hits) != 2 {
		t.Errorf("sprocket hits = %v, want alpha.go and gamma.go", hits)
	}
}

func TestStructure(t *testing.T) {
	var paths []string
	for _, p := range []string{"go.mod", "README.md", "cmd/ctxd/main.go", "gather/doc.go", "gather/walk.go",
		"gather/testdata/a.golden", "gather/testdata/deep/b.golden", "net/http/server.go", "net/http/client.go",
		"net/http/internal/chunked.go", "net/url/url.go", "net/ip.go"} {
		paths = append(paths, p)
	}
	for i := range 25 {
		paths = append(paths, "many/f"+string(rune('a'+i))+".txt")
	}
	testutil.GoldenFile(t, "structure_depth2", []byte(Structure(paths, 2)), *update)
	testutil.GoldenFile(t, "structure_depth3", []byte(Structure(paths, 3)), *update)
}

// TestStructureLocales: three or more locale folders are one line beside
// the English one; two folders named like languages are not a set.
func TestStructureLocales(t *testing.T) {
	paths := []string{"docs/en/index.md", "docs/en/guide/a.md", "docs/zh/index.md", "docs/pt-BR/index.md",
		"docs/ja/index.md", "docs/ja/guide/a.md", "docs/assets/logo.svg", "src/es/index.js", "src/ca/x.js", "src/main.js"}
	want := `./  (10 files, 11 dirs)
  docs/
    assets/
      logo.svg
    {ja,pt-BR,zh}/  (3 other locales of en/: 4 files, 4 dirs not shown)
    en/
      guide/
        a.md
      index.md
  src/
    ca/
      x.js
    es/
      index.js
    main.js
`
	if got := Structure(paths, 4); got != want {
		t.Errorf("Structure (-want +got):\n%s", cmp.Diff(want, got))
	}
}
