//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/lang"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// slow is the time limit of tests that are not about time limits: the
// machine is shared, and a parse that takes a millisecond alone can be
// starved for seconds.
const slow = time.Minute

var slowOpts = Options{Timeout: slow}

// testCtx has a deadline far enough not to matter (it bounds Symbols
// instead of DefaultTimeout); the process ends before it.
var testCtx, _ = context.WithTimeout(context.Background(), time.Hour)

func slowCtx() context.Context { return testCtx }

// TestImportsTable holds tree-sitter's import readers to lang's table of
// which languages have imports: a language's syntax tree is read for
// imports exactly when it has a row there, and on the golden sources the
// tree's imports are the ones the row's reader finds ([lang.ImportsAt],
// a Python `from m import a` read as m alone; the build without
// tree-sitter reads imports with it). One difference is known:
// the tree keeps a PHP use's alias ("X as Y"), the line pattern stops
// before it.
func TestImportsTable(t *testing.T) {
	for _, in := range goldenInputs(t) {
		t.Run(filepath.Base(in.path), func(t *testing.T) {
			l, src := in.lang, in.src
			if tree, table := specs[l].imports != nil, lang.HasImports(l); tree != table {
				t.Fatalf("%s: tree-sitter reads imports %v, lang's table has a row %v", l, tree, table)
			}
			syms, err := Symbols(t.Context(), l, src)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, im := range lang.ImportsAt(l, src) {
				if !im.Name {
					lines = append(lines, im.Spec)
				}
			}
			tree := syms.Imports
			if l == "php" {
				tree = slices.Clone(tree)
				for i, s := range tree {
					tree[i], _, _ = strings.Cut(s, " as ")
				}
			}
			if len(lines) == 0 || !slices.Equal(tree, lines) {
				t.Errorf("imports: tree-sitter %q, lang's reader %q", syms.Imports, lines)
			}
		})
	}
}

// TestGolden renders every level of one file per language and compares
// with testdata/golden/<file>.golden (update with -update).
func TestGolden(t *testing.T) {
	inputs := goldenInputs(t)
	langs := map[string]bool{}
	for _, in := range inputs {
		t.Run(filepath.Base(in.path), func(t *testing.T) {
			lang, src := in.lang, in.src
			if lang == "" {
				t.Fatalf("no language for %s", in.path)
			}
			langs[lang] = true
			vs, err := Views(t.Context(), lang, src, slowOpts)
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != len(Levels) {
				t.Fatalf("got %d views, want all %d levels", len(vs), len(Levels))
			}
			checkInvariants(t, lang, src, vs)
			syms, err := Symbols(slowCtx(), lang, src)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, in.path+".golden", goldenText(vs, syms))
		})
	}
	for _, l := range Languages {
		if !langs[l] {
			t.Errorf("no golden input for %s", l)
		}
	}
}

func goldenText(vs []View, syms *FileSymbols) []byte {
	var b strings.Builder
	for _, v := range vs[1:] {
		fmt.Fprintf(&b, "-- %s --\n%s", v.Level, v.Text)
		if !strings.HasSuffix(v.Text, "\n") {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "-- %s elided --\n", v.Level)
		for _, r := range v.Elided {
			fmt.Fprintf(&b, "%d-%d\n", r.Start, r.End)
		}
	}
	b.WriteString("-- symbols --\n")
	for _, s := range syms.Symbols {
		exp := "private"
		if s.Exported {
			exp = "exported"
		}
		name := s.Name
		if s.Parent != "" {
			name = s.Parent + "." + s.Name
		}
		fmt.Fprintf(&b, "%d-%d %s%s %s %s | %s | %s\n", s.Start, s.End, strings.Repeat("  ", s.Depth), s.Kind, name, exp, s.Signature, s.Doc)
	}
	b.WriteString("-- imports --\n")
	for _, imp := range syms.Imports {
		b.WriteString(imp + "\n")
	}
	return []byte(b.String())
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	testutil.Golden(t, path, got, *update)
}

// checkInvariants asserts what every rendering promises: sizes never grow
// from one level to the next, elided ranges are sorted, disjoint and inside
// the file, the bodies and signatures views parse whenever the original does
// and keep every top-level symbol.
func checkInvariants(t testing.TB, lang string, src []byte, vs []View) {
	t.Helper()
	lines := newLineIndex(src).count(len(src))
	for i, v := range vs {
		if i > 0 && len(v.Text) > len(vs[i-1].Text) {
			t.Errorf("%s view is %d bytes, larger than %s (%d)", v.Level, len(v.Text), vs[i-1].Level, len(vs[i-1].Text))
		}
		if v.Language != lang {
			t.Errorf("%s view language %q, want %q", v.Level, v.Language, lang)
		}
		prev := 0
		for _, r := range v.Elided {
			if r.Start < 1 || r.End < r.Start || r.End > lines || r.Start <= prev {
				t.Errorf("%s view: elided ranges not sorted, disjoint and inside 1..%d: %v", v.Level, lines, v.Elided)
				break
			}
			prev = r.End
		}
	}
	orig, err := Symbols(slowCtx(), lang, src)
	if err != nil {
		t.Fatalf("symbols of the original: %v", err)
	}
	g, _ := grammarFor(lang)
	for _, v := range vs {
		if v.Level != Bodies && v.Level != Signatures {
			continue
		}
		errs, err := g.errors(context.Background(), []byte(v.Text), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(errs) > 0 {
			t.Errorf("%s view has syntax errors at %v:\n%s", v.Level, errs, v.Text)
		}
		if lang == "go" {
			if msg := goValid(src, []byte(v.Text)); msg != "" {
				t.Errorf("%s view: %s", v.Level, msg)
			}
		}
		got, err := Symbols(slowCtx(), lang, []byte(v.Text))
		if err != nil {
			t.Fatal(err)
		}
		if missing := missingTopLevel(orig.Symbols, got.Symbols); len(missing) > 0 {
			t.Errorf("%s view lost top-level symbols %v", v.Level, missing)
		}
	}
}

// missingTopLevel lists the top-level symbols of want that got lacks.
// Members (Go methods included: they have a Parent) may fold.
func missingTopLevel(want, got []Symbol) []string {
	have := map[string]bool{}
	for _, s := range got {
		if s.Depth == 0 {
			have[s.Kind+" "+s.Name] = true
		}
	}
	var missing []string
	for _, s := range want {
		if s.Depth == 0 && s.Parent == "" && !have[s.Kind+" "+s.Name] {
			missing = append(missing, s.Kind+" "+s.Name)
		}
	}
	return missing
}

// goValid checks a Go view with go/parser: it parses when the original
// does, and declares every package-scope identifier the original declares
// (methods belong to their type and may be folded at Signatures).
func goValid(orig, view []byte) string {
	fo, err := parser.ParseFile(token.NewFileSet(), "orig.go", orig, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil {
		return "" // nothing is promised for a file Go does not parse
	}
	fv, err := parser.ParseFile(token.NewFileSet(), "view.go", view, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil {
		return fmt.Sprintf("go/parser: %v", err)
	}
	have := map[string]bool{}
	for _, n := range packageNames(fv) {
		have[n] = true
	}
	var missing []string
	for _, n := range packageNames(fo) {
		if !have[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("lost package-scope identifiers %v", missing)
	}
	return ""
}

func packageNames(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					out = append(out, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						out = append(out, n.Name)
					}
				}
			}
		}
	}
	return out
}

func TestRenderLevels(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "golden", "server.go"))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := Views(t.Context(), "go", src, slowOpts)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		got, err := Render(t.Context(), "go", src, v.Level, slowOpts)
		if err != nil {
			t.Fatalf("Render(%s): %v", v.Level, err)
		}
		if d := cmp.Diff(v, got); d != "" {
			t.Errorf("Render(%s) differs from Views (-views +render):\n%s", v.Level, d)
		}
	}
	if _, err := Render(t.Context(), "go", src, "tiny", slowOpts); err == nil {
		t.Error("Render with an unknown level: no error")
	}
}

func TestUnsupported(t *testing.T) {
	tests := []struct {
		name string
		lang string
		src  string
	}{
		{"unknown language", "cobol", "IDENTIFICATION DIVISION."},
		{"empty language", "", "x"},
		{"syntax error", "go", "package a\nfunc f( {\n"},
		{"python syntax error", "python", "def f(:\n  pass\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Views(t.Context(), tt.lang, []byte(tt.src), slowOpts)
			if !errors.Is(err, ErrUnsupported) {
				t.Errorf("Views: got %v, want ErrUnsupported", err)
			}
			_, err = Render(t.Context(), tt.lang, []byte(tt.src), Bodies, slowOpts)
			if !errors.Is(err, ErrUnsupported) {
				t.Errorf("Render: got %v, want ErrUnsupported", err)
			}
		})
	}
	big := make([]byte, MaxSize+1)
	if _, err := Views(t.Context(), "go", big, slowOpts); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Views of %d bytes: got %v, want ErrUnsupported", len(big), err)
	}
}

func TestSymbolsWithSyntaxErrors(t *testing.T) {
	src := []byte("package a\n\nfunc Good() {}\n\nfunc Bad( {\n")
	o, err := Symbols(slowCtx(), "go", src)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(o.Symbols, func(s Symbol) bool { return s.Name == "Good" }) {
		t.Errorf("symbols of a file with a syntax error lost Good: %+v", o.Symbols)
	}
}

func TestEmpty(t *testing.T) {
	for _, lang := range Languages {
		vs, err := Views(t.Context(), lang, nil, slowOpts)
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		for _, v := range vs {
			if v.Text != "" || len(v.Elided) != 0 {
				t.Errorf("%s %s view of an empty file: %q %v", lang, v.Level, v.Text, v.Elided)
			}
		}
	}
}
