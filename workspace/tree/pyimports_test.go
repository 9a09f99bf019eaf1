package tree

import (
	"slices"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestPythonImportEdges: the import graph links a Python file to the module
// its import names, not to every file of that name (issue 25: "from
// django.db import models" linked each models.py of the repository).
func TestPythonImportEdges(t *testing.T) {
	root := testutil.IsolatedRepo(t)
	testutil.WriteFiles(t, root, map[string]string{
		"a/__init__.py":         "",
		"a/b/__init__.py":       "from .helpers import shared\n",
		"a/b/helpers.py":        "def shared():\n    return 1\n",
		"a/b/models.py":         "class Model:\n    pass\n",
		"a/b/deletion.py":       "from a.b import models\nfrom . import helpers\n\n\ndef delete(o):\n    return models.Model()\n",
		"c/__init__.py":         "",
		"c/models.py":           "class Other:\n    pass\n",
		"c/db/__init__.py":      "",
		"c/db/models.py":        "class Deep:\n    pass\n",
		"src/pkg/__init__.py":   "",
		"src/pkg/core.py":       "def run():\n    return 2\n",
		"src/pkg/api.py":        "from .core import run\n\n\ndef call():\n    return run()\n",
		"tests/test_api.py":     "from pkg.api import call\nimport os.path\nimport models\n\n\ndef test_call():\n    assert call()\n",
		"scripts/cleanup.py":    "from a.b.models import Model\n\n\ndef main():\n    return Model\n",
		"scripts/unrelated.txt": "models\n",
	})
	s := treeSnapshot(t, root)
	ie := newImportEdges(s, DefaultLinks().Reverse)
	for _, tt := range []struct {
		importer string
		want     []string
	}{
		{"a/b/deletion.py", []string{"a/b/__init__.py", "a/b/helpers.py", "a/b/models.py"}},
		{"a/b/__init__.py", []string{"a/b/helpers.py"}},
		{"src/pkg/api.py", []string{"src/pkg/core.py"}},
		{"tests/test_api.py", []string{"src/pkg/api.py"}},
		{"scripts/cleanup.py", []string{"a/b/models.py"}},
	} {
		i, ok := s.FileIndex(tt.importer)
		if !ok {
			t.Fatalf("%s not in the snapshot", tt.importer)
		}
		var got []string
		for _, to := range ie.py[int32(i)] {
			got = append(got, s.Files[to].Rel)
		}
		slices.Sort(got)
		got = slices.Compact(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s links %q, want %q", tt.importer, got, tt.want)
		}
	}
}
