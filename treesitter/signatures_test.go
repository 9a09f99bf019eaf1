//go:build cgo && !notreesitter

package treesitter

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestSignaturesKeepEveryFunction: on Go standard library packages, the
// signatures view names every top-level function and method, exported or
// not (private methods used to fold into "... N private members").
func TestSignaturesKeepEveryFunction(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the Go standard library")
	}
	var files []string
	for _, dir := range []string{"net/http", "strings", "encoding/json", "go/parser"} {
		m, err := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			if !strings.HasSuffix(f, "_test.go") {
				files = append(files, f)
			}
		}
	}
	if len(files) < 50 {
		t.Fatalf("only %d files", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		views, err := Views(t.Context(), "go", src, Options{Timeout: time.Minute}) // not a test of the time limit: no flake under -race on a loaded machine
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var sig string
		for _, v := range views {
			if v.Level == Signatures {
				sig = v.Text
			}
		}
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Name.Name == "_" {
				continue
			}
			if !strings.Contains(sig, " "+fd.Name.Name+"(") && !strings.Contains(sig, " "+fd.Name.Name+"[") {
				t.Errorf("%s: the signatures view lost func %s", f, fd.Name.Name)
			}
		}
	}
}
