package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// TestRunIsStages fails when Engine.run reaches the workspace store
// (e.store: a load or a save) itself: run plans and calls the pass's
// stages, which load what they need, and the pass saves when it ends.
func TestRunIsStages(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "prompt.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var run *ast.FuncDecl
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "run" && fd.Recv != nil {
			run = fd
		}
	}
	if run == nil {
		t.Fatal("Engine.run not found in prompt.go")
	}
	stages := map[string]bool{}
	ast.Inspect(run.Body, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.SelectorExpr); ok && x.Sel.Name == "store" {
			t.Errorf("%s: run calls e.store.%s: let a stage load and the pass save", fset.Position(sel.Pos()), sel.Sel.Name)
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == "r" {
			stages[sel.Sel.Name] = true
		}
		return true
	})
	for _, s := range []string{"gather", "view", "rank", "fit", "render", "say"} {
		if !stages[s] {
			t.Errorf("run does not call the %s stage", s)
		}
	}
}
