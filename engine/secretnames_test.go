package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
)

// TestNamedSecretsResolved: the secret files a request names are those
// opening them would read: a path resolved as the doors resolve an open
// file (tree.Resolve), so a secret name that is a symlink out of the root
// is not offered ("--open cfg/.env" would fail outside the root), and an
// absolute path written with the root's real spelling, when the root was
// given through a symlink, is the root's file.
func TestNamedSecretsResolved(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	outside := filepath.Join(base, "outside")
	testutil.WriteFiles(t, real, map[string]string{".env": "API_KEY=x\n", "app.py": "x = 1\n"})
	testutil.WriteFiles(t, outside, map[string]string{".env": "OTHER_KEY=y\n"})
	if err := os.MkdirAll(filepath.Join(real, "cfg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, ".env"), filepath.Join(real, "cfg", ".env")); err != nil {
		t.Skip("no symlinks:", err)
	}
	root := filepath.Join(base, "link")
	if err := os.Symlink(real, root); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		request string
		want    []string
	}{
		{"why is the key in .env wrong", []string{".env"}},
		{"why is the key in cfg/.env wrong", nil},
		{"why is the key in " + filepath.ToSlash(filepath.Join(real, ".env")) + " wrong", []string{".env"}},
		{"why is the key in " + filepath.ToSlash(filepath.Join(root, ".env")) + " wrong", []string{".env"}},
		{"why is the key in ../outside/.env wrong", nil},
	} {
		if got := namedSecrets(query.Parse(tc.request), root, nil); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.request, got, tc.want)
		}
	}
}
