package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/config"
)

// TestStateDirNotADirectory: a state directory that is a file, or below
// one, is one clear error (not a warning from every store); a missing one
// is created when needed.
func TestStateDirNotADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, dir := range []string{file, filepath.Join(file, "sub")} {
		_, err := New(root, Options{Config: config.Default(), StateDir: dir})
		if !errors.Is(err, ctxd.ErrInvalidParams) || !strings.Contains(err.Error(), dir+" is not a directory") {
			t.Errorf("state dir %s: %v", dir, err)
		}
	}
	e, err := New(root, Options{Config: config.Default(), StateDir: filepath.Join(t.TempDir(), "new", "state")})
	if err != nil {
		t.Fatalf("missing state dir: %v", err)
	}
	e.Close()
}
