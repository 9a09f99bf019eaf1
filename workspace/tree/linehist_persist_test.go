package tree_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ctxd/ctxd/workspace/disk"
	"github.com/ctxd/ctxd/workspace/tree"
)

// TestLineHistoriesPersisted: beside a persisted index the line histories
// are written once per HEAD, and a fresh workspace at the same HEAD reads
// them from disk, without git (PATH emptied), the same as those read.
func TestLineHistoriesPersisted(t *testing.T) {
	root := tree.LinksRepo(t)
	dir := filepath.Join(t.TempDir(), "state", "index")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	read := func(t *testing.T) *tree.LineHistories {
		t.Helper()
		w, err := tree.Open(root, tree.Options{State: disk.New(dir)})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		l, err := w.ReadLineHistories(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	first := read(t)
	if first == nil || first.Commits == 0 {
		t.Fatalf("no line histories read: %+v", first)
	}
	if _, err := os.Stat(filepath.Join(dir, "linehist.bin")); err != nil {
		t.Fatalf("line histories not written: %v", err)
	}
	t.Setenv("PATH", "")
	if again := read(t); !reflect.DeepEqual(again, first) {
		t.Errorf("read from disk without git: %+v, want %+v", again, first)
	}
}
