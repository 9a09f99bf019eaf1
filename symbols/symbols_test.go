package symbols

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/graph"
	"github.com/ctxd/ctxd/index"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s (-want +got):\n%s", name, d)
	}
}

// render prints an entry for a golden file: one definition a line with
// its qualified name, then the references.
func render(e *index.Symbols) string {
	var b strings.Builder
	fmt.Fprintf(&b, "language %s\n", e.Language)
	for _, d := range e.Defs {
		q := d.Name
		if d.Parent != "" {
			q = d.Parent + "." + d.Name
		}
		fmt.Fprintf(&b, "def %s %s %d-%d\n", d.Kind, q, d.Line, d.End)
	}
	fmt.Fprintf(&b, "refs %s\n", strings.Join(e.Refs, " "))
	return b.String()
}

// TestExtract runs the real grammars over one file per language.
func TestExtract(t *testing.T) {
	tests := []struct {
		file string
		// defs that must be found, qualified; refs that must be there and
		// words that must not (comments, strings).
		defs    []string
		refs    []string
		notRefs []string
	}{
		{"server.go", []string{"MaxConns", "Server", "Server.Shutdown", "closeListeners"}, []string{"closeListeners", "addr", "Context"}, []string{"Serve", "bounds"}},
		{"sessions.py", []string{"DEFAULT_RETRIES", "Session", "Session.merge_environment_settings", "get_environ_proxies"}, []string{"get_environ_proxies", "proxies"}, []string{"documented", "A"}},
		{"router.js", []string{"Router", "Router.route", "createRouter"}, []string{"Route", "Router"}, []string{"get", "post"}},
		{"client.ts", []string{"ClientOptions", "Method", "HttpClient", "HttpClient.request"}, []string{"fetch", "baseURL"}, []string{"GET"}},
		{"Cache.java", []string{"Cache", "Cache.lookup"}, []string{"entries", "Map"}, nil},
		{"lexer.rs", []string{"Lexer", "Token", "Lexer.next_token", "MAX_DEPTH"}, []string{"Eof", "String"}, nil},
		{"order.rb", []string{"Shop", "Order", "Order.total"}, []string{"TAX_RATE", "items"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", "src", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			x := New()
			e, err := x.File(t.Context(), tt.file, src)
			if err != nil || e == nil {
				t.Fatalf("File: %v, %v", e, err)
			}
			golden(t, tt.file, []byte(render(e)))
			got := map[string]bool{}
			for _, d := range e.Defs {
				got[d.Name] = true
				if d.Parent != "" {
					got[d.Parent+"."+d.Name] = true
				}
			}
			for _, d := range tt.defs {
				if !got[d] {
					t.Errorf("definition %s not found", d)
				}
			}
			refs := map[string]bool{}
			for _, r := range e.Refs {
				refs[r] = true
			}
			for _, r := range tt.refs {
				if !refs[r] {
					t.Errorf("reference %s not found", r)
				}
			}
			for _, r := range tt.notRefs {
				if refs[r] {
					t.Errorf("%s is in a comment or string, not a reference", r)
				}
			}
			if !sort.StringsAreSorted(e.Refs) {
				t.Error("refs not sorted")
			}
		})
	}
}

func TestMatches(t *testing.T) {
	read := func(name string) *index.Symbols {
		t.Helper()
		src, err := os.ReadFile(filepath.Join("testdata", "src", name))
		if err != nil {
			t.Fatal(err)
		}
		e, err := New().File(t.Context(), name, src)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	goFile, pyFile := read("server.go"), read("sessions.py")
	tests := []struct {
		name string
		e    *index.Symbols
		ids  []string
		want []string // Query how Parent.Name
	}{
		{"qualified method", goFile, []string{"Server.Shutdown"}, []string{"Server.Shutdown qualified Server.Shutdown"}},
		{"qualified with a package", goFile, []string{"server.Server.Shutdown"}, []string{"server.Server.Shutdown qualified Server.Shutdown"}},
		{"qualified, other type", goFile, []string{"Client.Shutdown"}, nil},
		{"qualified top-level by package", goFile, []string{"server.MaxConns"}, []string{"server.MaxConns exact .MaxConns"}},
		{"bare name", goFile, []string{"Shutdown", "closeListeners"}, []string{"Shutdown exact Server.Shutdown", "closeListeners exact .closeListeners"}},
		{"camel to snake", pyFile, []string{"mergeEnvironmentSettings"}, []string{"mergeEnvironmentSettings variant Session.merge_environment_settings"}},
		{"python qualified", pyFile, []string{"Session.merge_environment_settings"}, []string{"Session.merge_environment_settings qualified Session.merge_environment_settings"}},
		{"call syntax", pyFile, []string{"get_environ_proxies()"}, []string{"get_environ_proxies() exact .get_environ_proxies"}},
		{"no match", pyFile, []string{"Adapter"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, m := range Matches(tt.e, tt.ids) {
				got = append(got, m.Query+" "+m.How+" "+m.Def.Parent+"."+m.Def.Name)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Matches(%v) (-want +got):\n%s", tt.ids, d)
			}
		})
	}
}

// writeTree writes files under a temporary root and returns a reader.
func writeTree(t *testing.T, files map[string]string) (string, func(string) ([]byte, error)) {
	t.Helper()
	root := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, func(rel string) ([]byte, error) { return os.ReadFile(filepath.Join(root, rel)) }
}

func TestIncrementalAndPersisted(t *testing.T) {
	files := map[string]string{
		"a.go":       "package a\n\nfunc Alpha() int { return beta() }\n",
		"b.go":       "package a\n\nfunc beta() int { return 1 }\n",
		"copy/b.go":  "package a\n\nfunc beta() int { return 1 }\n", // same bytes as b.go
		"c.py":       "def gamma():\n    return 1\n",
		"README.md":  "# not source\n",
		"notes.txt":  "func Fake() {}\n",
		"web/x.ts":   "export function delta(): number { return 1 }\n",
		"web/y.tsx":  "export const Epsilon = () => <div/>;\n",
		"lib/z.java": "class Z { void zeta() {} }\n",
	}
	root, read := writeTree(t, files)
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	ctx := t.Context()
	state := filepath.Join(t.TempDir(), "index", "symbols.idx")

	x, err := Load(state)
	if err != nil {
		t.Fatalf("Load of a missing index: %v", err)
	}
	es, err := x.Update(ctx, paths, read)
	if err != nil {
		t.Fatal(err)
	}
	// 7 source files, two with the same bytes: 6 parses.
	if got := x.Parses(); got != 6 {
		t.Errorf("cold: %d parses, want 6", got)
	}
	for i, p := range paths {
		if (es[i] == nil) != (p == "README.md" || p == "notes.txt") {
			t.Errorf("%s: entry %v", p, es[i])
		}
	}
	if err := x.Save(state); err != nil {
		t.Fatal(err)
	}

	// A warm process: nothing parsed again.
	y, err := Load(state)
	if err != nil {
		t.Fatal(err)
	}
	if y.Len() != x.Len() {
		t.Errorf("reloaded %d entries, want %d", y.Len(), x.Len())
	}
	es2, err := y.Update(ctx, paths, read)
	if err != nil {
		t.Fatal(err)
	}
	if got := y.Parses(); got != 0 {
		t.Errorf("warm: %d parses, want 0", got)
	}
	if d := cmp.Diff(es, es2); d != "" {
		t.Errorf("reloaded entries differ (-saved +loaded):\n%s", d)
	}

	// Edit one file: only it is parsed.
	if err := os.WriteFile(filepath.Join(root, "b.go"), []byte("package a\n\nfunc beta() int { return 2 }\n\nfunc Omega() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	es3, err := y.Update(ctx, paths, read)
	if err != nil {
		t.Fatal(err)
	}
	if got := y.Parses(); got != 1 {
		t.Errorf("after one edit: %d parses, want 1", got)
	}
	i := sort.SearchStrings(paths, "b.go")
	if len(es3[i].Defs) != 2 || es3[i].Defs[1].Name != "Omega" {
		t.Errorf("edited b.go: defs %+v", es3[i].Defs)
	}
	// Nothing changed since the load but the edit: Save writes, a second
	// Save has nothing to write.
	if err := y.Save(state); err != nil {
		t.Fatal(err)
	}
	st1, _ := os.Stat(state)
	if err := y.Save(state); err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(state)
	if !st1.ModTime().Equal(st2.ModTime()) {
		t.Error("a clean index was written again")
	}
}

func TestCorruptRebuilt(t *testing.T) {
	_, read := writeTree(t, map[string]string{"a.go": "package a\n\nfunc Alpha() {}\n"})
	state := filepath.Join(t.TempDir(), "symbols.idx")
	x := New()
	if _, err := x.Update(t.Context(), []string{"a.go"}, read); err != nil {
		t.Fatal(err)
	}
	if err := x.Save(state); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"flipped byte", flip(good, len(good)/2), index.ErrCorrupt},
		{"truncated", good[:len(good)-5], index.ErrCorrupt},
		{"empty", nil, index.ErrCorrupt},
		{"other format", []byte("CTXDIDX\nsomething else entirely, long enough for a checksum"), index.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(state, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			y, err := Load(state)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Load: %v, want %v", err, tt.want)
			}
			if y == nil || y.Len() != 0 {
				t.Fatalf("a corrupt index must load empty, got %v", y)
			}
			// Rebuilt: parsed again and saved, then it loads.
			if _, err := y.Update(t.Context(), []string{"a.go"}, read); err != nil {
				t.Fatal(err)
			}
			if y.Parses() != 1 {
				t.Errorf("rebuild parsed %d files, want 1", y.Parses())
			}
			if err := y.Save(state); err != nil {
				t.Fatal(err)
			}
			if z, err := Load(state); err != nil || z.Len() != 1 {
				t.Errorf("after the rebuild: %v entries, %v", z.Len(), err)
			}
		})
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0xff
	return c
}

// TestTableReferences builds reference edges from the index: a file that
// uses a name another file defines links to it, across languages never.
func TestTableReferences(t *testing.T) {
	files := map[string]string{
		"handler.go": "package a\n\nfunc handle() { parseRequest(); shared() }\n",
		"parse.go":   "package a\n\nfunc parseRequest() {}\n",
		"other.go":   "package a\n\nfunc unrelated() {}\n",
		"shared.py":  "def shared():\n    pass\n",
	}
	_, read := writeTree(t, files)
	paths := []string{"handler.go", "other.go", "parse.go", "shared.py"}
	es, err := New().Update(t.Context(), paths, read)
	if err != nil {
		t.Fatal(err)
	}
	tab := NewTable(es)
	type edge struct{ from, to string }
	var got []edge
	graph.References(tab, graph.RefOptions{}).Edges(func(from, to int32, w float32) {
		got = append(got, edge{paths[from], paths[to]})
	})
	want := []edge{{"handler.go", "parse.go"}}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(edge{})); d != "" {
		t.Errorf("edges (-want +got):\n%s", d)
	}
}

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"merge_environment_settings", "mergeenvironmentsettings"},
		{"mergeEnvironmentSettings", "mergeenvironmentsettings"},
		{"HTTPServer", "httpserver"},
		{"x-forwarded-for", "xforwardedfor"},
	}
	for _, tt := range tests {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSaveDropsUnused: over the entry cap, Save keeps the entries this
// process used (the old contents of edited files go).
func TestSaveDropsUnused(t *testing.T) {
	old := maxEntries
	maxEntries = 1
	t.Cleanup(func() { maxEntries = old })
	_, read := writeTree(t, map[string]string{"a.go": "package a\n\nfunc A() {}\n", "b.go": "package a\n\nfunc B() {}\n"})
	state := filepath.Join(t.TempDir(), "symbols.idx")
	x := New()
	if _, err := x.Update(t.Context(), []string{"a.go", "b.go"}, read); err != nil {
		t.Fatal(err)
	}
	if err := x.Save(state); err != nil {
		t.Fatal(err)
	}
	y, err := Load(state)
	if err != nil || y.Len() != 2 {
		t.Fatalf("reloaded %d entries, %v; want 2 (all used by the process that saved)", y.Len(), err)
	}
	if _, err := y.Update(t.Context(), []string{"b.go"}, read); err != nil {
		t.Fatal(err)
	}
	y.dirty = true // force a write; nothing new was parsed
	if err := y.Save(state); err != nil {
		t.Fatal(err)
	}
	z, err := Load(state)
	if err != nil || z.Len() != 1 {
		t.Fatalf("after the capped save %d entries, %v; want 1", z.Len(), err)
	}
	if _, err := z.Update(t.Context(), []string{"b.go"}, read); err != nil || z.Parses() != 0 {
		t.Errorf("b.go (used) was dropped: %d parses, %v", z.Parses(), err)
	}
}

// TestSameContentParsedOnce: files with one content asked for at once are
// parsed once; the others wait for that parse.
func TestSameContentParsedOnce(t *testing.T) {
	x := New()
	src := []byte("package p\n\nfunc A() int { return 1 }\n\nfunc B() int { return A() }\n")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := x.File(t.Context(), fmt.Sprintf("p%d/a.go", i), src)
			if err != nil || e == nil || len(e.Defs) != 2 {
				t.Errorf("file %d: %v, %v", i, e, err)
			}
		}()
	}
	wg.Wait()
	if n := x.Parses(); n != 1 {
		t.Errorf("%d parses of one content, want 1", n)
	}
}
