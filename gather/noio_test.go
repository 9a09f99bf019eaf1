package gather

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// noIO are the packages gather must not import: it selects candidates
// over a snapshot the workspace tree gives it (workspace/tree owns the
// walk, the ignore rules, watching, git and reading files), so it opens,
// stats, walks and runs nothing itself. index is the persisted formats'
// library and safefs the trust boundary for reading: both are the tree's.
var noIO = map[string]string{
	"os":                          "file I/O",
	"os/exec":                     "runs processes",
	"io/ioutil":                   "file I/O",
	"io/fs":                       "file system access",
	"path/filepath":               "OS paths and walks (slash paths are package path)",
	"syscall":                     "system calls",
	"net":                         "network",
	"net/http":                    "network",
	"github.com/ctxd/ctxd/index":  "the persisted index (workspace/tree and the workspace store)",
	"github.com/ctxd/ctxd/safefs": "reading files (workspace/tree)",
}

// TestGatherDoesNoIO fails when a non-test file of package gather, under
// any build tag, imports a package of noIO or go-git.
func TestGatherDoesNoIO(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if why, ok := noIO[p]; ok {
				t.Errorf("%s imports %s (%s): ask the snapshot (workspace/tree) instead", fset.Position(imp.Pos()), p, why)
			}
			if strings.HasPrefix(p, "github.com/go-git/") {
				t.Errorf("%s imports %s (git): git facts come from workspace/tree", fset.Position(imp.Pos()), p)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files checked")
	}
}
