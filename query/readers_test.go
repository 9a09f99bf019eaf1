package query

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// requestFields are the fields that hold a user's request text.
var requestFields = []string{
	"github.com/ctxd/ctxd.Envelope.UserRequest",
	"github.com/ctxd/ctxd.Envelope.OriginalInput",
	"github.com/ctxd/ctxd/engine.PromptRequest.UserRequest",
}

// requestReaders are the functions allowed to use a request field, and
// why: the query parser's caller, prompt rendering, and the front ends and
// stores that copy, store or show the text without reading it.
var requestReaders = map[string]string{
	"github.com/ctxd/ctxd/engine.(Engine).plan":          "parses the request (query.Parse), renders it (prompt.Request) and cuts an over-long one",
	"github.com/ctxd/ctxd/engine.(Engine).resumeRequest": "replays a checkpoint's stored request",
	"github.com/ctxd/ctxd/engine.applyEnvelope":          "stores the request with a checkpoint",
	"github.com/ctxd/ctxd/engine.sanitizeEnvelope":       "makes the request valid UTF-8 for output",
	"github.com/ctxd/ctxd/prompt.Build":                  "prompt rendering",
	"github.com/ctxd/ctxd/server.(PromptParams).resolve": "folds the field's two names (request, user_request) into one and refuses an empty one",
}

// TestRequestReadOnce type-checks every package of the module (its
// non-test files, against the build's export data) and fails on a use of
// a request field outside requestReaders: the request is read once, by
// Parse, and everything else asks the Query.
func TestRequestReadOnce(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	exports := goList(t, root, "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", "./...")
	exportOf := map[string]string{}
	for _, l := range exports {
		p, e, _ := strings.Cut(l, "\t")
		exportOf[p] = e
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		e := exportOf[path]
		if e == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(e)
	})
	var uses []string
	seen := map[string]bool{}
	for _, l := range goList(t, root, "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \"|\"}}", "./...") {
		f := strings.Split(l, "\t")
		if f[2] == "" {
			continue
		}
		var files []*ast.File
		for _, name := range strings.Split(f[2], "|") {
			af, err := parser.ParseFile(fset, filepath.Join(f[1], name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, af)
		}
		info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: imp, FakeImportC: true, Error: func(error) {}}
		conf.Check(f[0], fset, files, info) // cgo files aside, the packages check clean
		for _, af := range files {
			for _, d := range af.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok {
					continue
				}
				ast.Inspect(fd, func(n ast.Node) bool {
					se, ok := n.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					sel := info.Selections[se]
					if sel == nil || sel.Kind() != types.FieldVal {
						return true
					}
					named := namedOf(sel.Recv())
					if named == nil || named.Obj().Pkg() == nil {
						return true
					}
					field := named.Obj().Pkg().Path() + "." + named.Obj().Name() + "." + sel.Obj().Name()
					if !slices.Contains(requestFields, field) {
						return true
					}
					fn := f[0] + "." + funcName(fd)
					seen[fn] = true
					if _, ok := requestReaders[fn]; !ok {
						uses = append(uses, fmt.Sprintf("%s: %s reads %s", fset.Position(se.Pos()), fn, field))
					}
					return true
				})
			}
		}
	}
	for fn := range requestReaders {
		if !seen[fn] {
			t.Errorf("%s is listed as a request reader but reads no request field: drop it from requestReaders", fn)
		}
	}
	for _, u := range uses {
		t.Errorf("%s: the request is read once, by query.Parse; ask the query.Query instead (or list the function in requestReaders with its reason when it only copies, stores, shows or renders the text)", u)
	}
}

// namedOf returns the named type of a field's receiver, through a pointer.
func namedOf(t types.Type) *types.Named {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := t.(*types.Named)
	return n
}

// funcName is a function's name, a method's as "(Recv).Name".
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return "(" + id.Name + ")." + fd.Name.Name
	}
	return fd.Name.Name
}

// goList runs go list in dir and returns its output lines.
func goList(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "go", append([]string{"list"}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}
