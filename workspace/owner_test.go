package workspace

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writers are package index's functions that create or write files under
// <state>/index/ (index is the format library; it writes only where its
// caller points it).
var writers = map[string]bool{
	"Save": true, "WriteSealed": true, "WriteAtomic": true, "MakeDir": true, "OpenRecords": true,
}

// TestOneWriter: no package but workspace/ (and its disk layout) calls
// index's writers, so every file under <state>/index/ is written by the
// workspace store. Tests are exempt (they corrupt and plant files).
func TestOneWriter(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var found int
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." || rel == "index" || rel == "workspace" || rel == "workspace/disk" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		name := "" // what the file calls package index
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == "github.com/ctxd/ctxd/index" {
				name = "index"
				if im.Name != nil {
					name = im.Name.Name
				}
			}
		}
		if name == "" {
			return nil
		}
		found++
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && writers[sel.Sel.Name] {
				t.Errorf("%s: %s.%s: only the workspace store writes under <state>/index", fset.Position(sel.Pos()), name, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no file outside workspace/ imports index: the walk looked in the wrong place")
	}
}
