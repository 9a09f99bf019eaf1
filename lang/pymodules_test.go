package lang

import (
	"slices"
	"testing"
)

func TestPyModulesResolve(t *testing.T) {
	paths := []string{
		"a/__init__.py",
		"a/b/__init__.py",
		"a/b/models.py",
		"a/b/views.py",
		"a/b/sub/__init__.py",
		"a/b/sub/deep.py",
		"a/util.py",
		"c/__init__.py",
		"c/models.py",
		"d/__init__.py",
		"d/b/__init__.py", // d.b: defines names, no models.py
		"e/__init__.py",
		"e/db/__init__.py",
		"e/db/models/__init__.py",
		"e/db/models/deletion.py",
		"f/__init__.py",
		"f/gis/__init__.py",
		"f/gis/db/__init__.py",
		"f/gis/db/models/__init__.py",
		"src/pkg/__init__.py",
		"src/pkg/core.py",
		"src/pkg/api.py",
		"src/ns/mod.py", // a namespace package under src/
		"scripts/run.py",
		"scripts/helper.py",
		"tests/helper.py",
		"tests/test_x.py",
		"vendor/lib/only/thing.py",
		"p1/q/r.py",
		"p2/q/r.py",
		"README.md",
		"",
	}
	tests := []struct {
		name, importer, spec string
		want                 []string
	}{
		{"full name to its module", "c/models.py", "a.b.models", []string{"a/b/models.py"}},
		{"package is its __init__", "c/models.py", "a.b", []string{"a/b/__init__.py"}},
		{"from a.b import models: not c/models.py", "x.py", "a.b.models", []string{"a/b/models.py"}},
		{"a name inside a package is no file", "x.py", "d.b.models", nil},
		{"a name inside a module is no file", "x.py", "a.b.models.Model", nil},
		{"django: e.db.models, not f/gis/db/models", "e/db/models/deletion.py", "e.db.models", []string{"e/db/models/__init__.py"}},
		{"bare name resolves only exactly", "x.py", "models", nil},
		{"stdlib name is nothing", "x.py", "os.path", nil},
		{"relative sibling", "a/b/views.py", ".models", []string{"a/b/models.py"}},
		{"relative package", "a/b/views.py", ".", []string{"a/b/__init__.py"}},
		{"relative from package init", "a/b/__init__.py", ".models", []string{"a/b/models.py"}},
		{"relative parent", "a/b/sub/deep.py", "..models", []string{"a/b/models.py"}},
		{"relative two up", "a/b/sub/deep.py", "...util", []string{"a/util.py"}},
		{"relative name inside package", "a/b/views.py", ".Thing", nil},
		{"src layout absolute", "tests/test_x.py", "pkg.core", []string{"src/pkg/core.py"}},
		{"src layout relative", "src/pkg/api.py", ".core", []string{"src/pkg/core.py"}},
		{"src namespace package", "x.py", "ns.mod", []string{"src/ns/mod.py"}},
		{"script beside its helper", "scripts/run.py", "helper", []string{"scripts/helper.py"}},
		{"test beside its helper", "tests/test_x.py", "helper", []string{"tests/helper.py"}},
		{"unique suffix fallback", "x.py", "lib.only.thing", []string{"vendor/lib/only/thing.py"}},
		{"ambiguous suffix: none", "x.py", "z.q.r", nil},
		{"empty", "x.py", "", nil},
	}
	m := NewPyModules(paths)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, i := range m.Resolve(tt.importer, tt.spec) {
				got = append(got, paths[i])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Resolve(%q, %q) = %q, want %q", tt.importer, tt.spec, got, tt.want)
			}
		})
	}
}

// TestImportTestPython holds the resolver behind gathering (who imports a
// file, what a file imports) to the module the import names.
func TestImportTestPython(t *testing.T) {
	paths := []string{"a/__init__.py", "a/b/__init__.py", "a/b/models.py", "c/__init__.py", "c/models.py", "a/b/views.py"}
	r := ImportResolver{Py: NewPyModules(paths)}
	src := []byte("from a.b import models\nfrom . import views\n")
	specs := Imports("python", src)
	for _, tt := range []struct {
		importer, target string
		want             bool
	}{
		{"x/run.py", "a/b/models.py", true},
		{"x/run.py", "a/b/__init__.py", true},
		{"x/run.py", "c/models.py", false},
		{"a/b/models.py", "a/b/views.py", true},
		{"x/run.py", "a/b/views.py", false},
	} {
		if got := r.Imports(tt.importer, "python", specs, tt.target); got != tt.want {
			t.Errorf("%s imports %s = %v, want %v (specs %q)", tt.importer, tt.target, got, tt.want, specs)
		}
	}
	if (ImportResolver{}).Imports("x.py", "python", specs, "a/b/models.py") {
		t.Error("without a module index nothing resolves")
	}
}
