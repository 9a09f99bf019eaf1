package symbols

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite golden files")

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
			testutil.GoldenFile(t, tt.file, []byte(render(e)), *update)
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
	testutil.WriteFiles(t, root, files)
	return root, func(rel string) ([]byte, error) { return os.ReadFile(filepath.Join(root, rel)) }
}

// TestIncrementalAndPersisted: an index opened before the state
// directory exists parses each content once, Persist writes what it
// learned once the directory exists, a later process (another Open)
// parses nothing, an edit parses only the edited file, and Persist with
// nothing new writes nothing.
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
	dir := filepath.Join(t.TempDir(), "index")

	// update updates x from the files and checks how many it has parsed
	// in all.
	update := func(x *Index, when string, parses int64) []*index.Symbols {
		t.Helper()
		es, err := x.Update(ctx, paths, read)
		if err != nil {
			t.Fatal(err)
		}
		if got := x.Parses(); got != parses {
			t.Errorf("%s: %d parses, want %d", when, got, parses)
		}
		return es
	}

	x, err := openRecords(dir)
	if err != nil {
		t.Fatalf("Open without a state directory: %v", err)
	}
	// 7 source files, two with the same bytes: 6 parses.
	es := update(x, "cold", 6)
	for i, p := range paths {
		if (es[i] == nil) != (p == "README.md" || p == "notes.txt") {
			t.Errorf("%s: entry %v", p, es[i])
		}
	}
	if err := x.persist(dir); err != nil {
		t.Fatalf("Persist without a state directory: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := x.persist(dir); err != nil {
		t.Fatal(err)
	}
	x.close()

	// A warm process: every entry is listed, nothing is parsed again.
	y := openIndex(t, dir)
	for i, p := range paths {
		if es[i] == nil {
			continue
		}
		src, _ := read(p)
		if !y.Has(es[i].Language, src) {
			t.Errorf("%s: no persisted entry", p)
		}
	}
	es2 := update(y, "warm", 0)
	if d := cmp.Diff(es, es2); d != "" {
		t.Errorf("reread entries differ (-persisted +reread):\n%s", d)
	}

	// Edit one file: only it is parsed.
	if err := os.WriteFile(filepath.Join(root, "b.go"), []byte("package a\n\nfunc beta() int { return 2 }\n\nfunc Omega() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	es3 := update(y, "after one edit", 1)
	i := sort.SearchStrings(paths, "b.go")
	if len(es3[i].Defs) != 2 || es3[i].Defs[1].Name != "Omega" {
		t.Errorf("edited b.go: defs %+v", es3[i].Defs)
	}
	// The edit's entry was written when it was parsed: Persist has
	// nothing to write.
	before := recordFiles(t, dir)
	if err := y.persist(dir); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, recordFiles(t, dir)); d != "" {
		t.Errorf("Persist with nothing new changed the files (-before +after):\n%s", d)
	}
	y.close()
	z := openIndex(t, dir)
	if _, err := z.Update(ctx, paths, read); err != nil || z.Parses() != 0 {
		t.Errorf("after the edit, a third process parsed %d files (%v), want 0", z.Parses(), err)
	}
}

// openIndex opens the index persisted in dir, closed with the test.
func openIndex(t *testing.T, dir string) *Index {
	t.Helper()
	x, err := openRecords(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.close() })
	return x
}

// recordFiles lists the record files in dir with their sizes and times.
func recordFiles(t *testing.T, dir string) []string {
	t.Helper()
	ms, err := filepath.Glob(filepath.Join(dir, "symbols"+".*"))
	if err != nil || len(ms) == 0 {
		t.Fatalf("no record files in %s (%v)", dir, err)
	}
	var out []string
	for _, m := range ms {
		st, err := os.Stat(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %d %s", filepath.Base(m), st.Size(), st.ModTime()))
	}
	return out
}

// TestCorruptRebuilt: a damaged record file, one of another version and
// a record that does not decode are never trusted: the file is parsed
// again, with the same entry, and the next process reads that entry.
func TestCorruptRebuilt(t *testing.T) {
	_, read := writeTree(t, map[string]string{"a.go": "package a\n\nfunc Alpha() {}\n"})
	src, _ := read("a.go")
	want, err := New().File(t.Context(), "a.go", src)
	if err != nil {
		t.Fatal(err)
	}
	keys := func(dir string) string { return filepath.Join(dir, "symbols"+".keys") }
	data := func(t *testing.T, dir string) string {
		ms, _ := filepath.Glob(filepath.Join(dir, "symbols"+".*.dat"))
		if len(ms) != 1 {
			t.Fatalf("data files %v, want one", ms)
		}
		return ms[0]
	}
	rewrite := func(t *testing.T, p string, f func([]byte) []byte) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// replace writes rec as a.go's record in a record file of key.
	replace := func(t *testing.T, dir, key string, rec []byte) {
		for _, m := range []string{keys(dir), data(t, dir)} {
			os.Remove(m)
		}
		r, err := index.OpenRecords(dir, "symbols", key)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if err := r.Put(want.Hash, rec); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string)
	}{
		{"flipped record byte", func(t *testing.T, dir string) {
			rewrite(t, data(t, dir), func(b []byte) []byte { return flip(b, len(b)/2) })
		}},
		{"truncated data", func(t *testing.T, dir string) {
			rewrite(t, data(t, dir), func(b []byte) []byte { return b[:len(b)-5] })
		}},
		{"missing data", func(t *testing.T, dir string) { os.Remove(data(t, dir)) }},
		{"flipped entry byte", func(t *testing.T, dir string) {
			rewrite(t, keys(dir), func(b []byte) []byte { return flip(b, len(b)-10) })
		}},
		{"flipped header byte", func(t *testing.T, dir string) {
			rewrite(t, keys(dir), func(b []byte) []byte { return flip(b, 12) })
		}},
		{"empty keys", func(t *testing.T, dir string) {
			rewrite(t, keys(dir), func([]byte) []byte { return nil })
		}},
		{"other format", func(t *testing.T, dir string) {
			rewrite(t, keys(dir), func([]byte) []byte {
				return []byte("CTXDIDX\nsomething else entirely, long enough for a checksum")
			})
		}},
		{"another parser's records", func(t *testing.T, dir string) {
			replace(t, dir, "symbols/1 another-parser", index.EncodeSymbols(&index.Symbols{Language: "go"}))
		}},
		{"record that does not decode", func(t *testing.T, dir string) {
			replace(t, dir, recordsKey(), append(index.EncodeSymbols(want), 0))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			x := openIndex(t, dir)
			if _, err := x.File(t.Context(), "a.go", src); err != nil {
				t.Fatal(err)
			}
			x.close()
			tt.damage(t, dir)

			y := openIndex(t, dir)
			got, err := y.File(t.Context(), "a.go", src)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("entry after the damage (-parsed +got):\n%s", d)
			}
			if y.Parses() != 1 {
				t.Errorf("rebuild parsed %d files, want 1", y.Parses())
			}
			if err := y.persist(dir); err != nil {
				t.Fatal(err)
			}
			y.close()
			// Rebuilt: the next process reads the entry.
			z := openIndex(t, dir)
			if got, err := z.File(t.Context(), "a.go", src); err != nil || z.Parses() != 0 || !cmp.Equal(want, got) {
				t.Errorf("after the rebuild: %d parses, %v", z.Parses(), err)
			}
		})
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0xff
	return c
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

// TestPersistDropsUnused: over the record file's bound, Persist's
// compaction keeps the entries this process used (the old contents of
// edited files go); under it, every entry stays.
func TestPersistDropsUnused(t *testing.T) {
	_, read := writeTree(t, map[string]string{"a.go": "package a\n\nfunc A() {}\n", "b.go": "package a\n\nfunc B() {}\n"})
	dir := t.TempDir()
	x := openIndex(t, dir)
	es, err := x.Update(t.Context(), []string{"a.go", "b.go"}, read)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.persist(dir); err != nil {
		t.Fatal(err)
	}
	x.close()
	srcA, _ := read("a.go")
	srcB, _ := read("b.go")
	if y := openIndex(t, dir); !y.Has("go", srcA) || !y.Has("go", srcB) {
		t.Fatal("under the bound, Persist dropped an entry")
	}

	// Room for b.go's entry only: a process that used b.go alone keeps it.
	defer func(n int64) { maxRecordBytes = n }(maxRecordBytes)
	maxRecordBytes = int64(len(index.EncodeSymbols(es[1])))
	y := openIndex(t, dir)
	if _, err := y.Update(t.Context(), []string{"b.go"}, read); err != nil || y.Parses() != 0 {
		t.Fatalf("b.go: %d parses, %v", y.Parses(), err)
	}
	if err := y.persist(dir); err != nil {
		t.Fatal(err)
	}
	y.close()
	z := openIndex(t, dir)
	if z.Has("go", srcA) {
		t.Error("a.go (not used) was kept over the bound")
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

// TestFileSum: FileSum finds the entry File finds, under the same key
// (the persisted records' own), parsing a content once; it looks the key
// up by the sum it is given (a wrong sum finds the content it was given
// with before: the caller's promise), by language too, and within
// maxSumKeys.
func TestFileSum(t *testing.T) {
	defer func(n int) { maxSumKeys = n }(maxSumKeys)
	maxSumKeys = 2
	ctx := t.Context()
	a, b := []byte("def a():\n    return 1\n"), []byte("def b():\n    return 2\n")
	sa, sb := sha256.Sum256(a), sha256.Sum256(b)
	x := New()
	ea, err := x.FileSum(ctx, "a.py", a, sa)
	if err != nil || ea == nil || ea.Hash != Key("python", a) || ea.Defs[0].Name != "a" {
		t.Fatalf("FileSum a.py: %+v, %v; want a's entry under Key(python, a)", ea, err)
	}
	if e, err := x.File(ctx, "a.py", a); err != nil || e != ea {
		t.Errorf("File a.py after FileSum: %p %v, want the same entry %p", e, err, ea)
	}
	if e, _ := x.FileSum(ctx, "b.py", b, sa); e == nil || e.Defs[0].Name != "a" {
		t.Errorf("FileSum(b, a's sum) = %+v, want a's entry: the key is looked up by the sum", e)
	}
	if e, _ := x.FileSum(ctx, "a.js", a, sa); e == nil || e.Hash != Key("javascript", a) {
		t.Errorf("FileSum a.js: %+v, want the JavaScript key of the same content", e)
	}
	// Full at two: b's sum clears the table, and a's key is hashed again.
	if e, _ := x.FileSum(ctx, "b.py", b, sb); e == nil || e.Defs[0].Name != "b" {
		t.Errorf("FileSum b.py: %+v, want b's entry", e)
	}
	if len(x.keys) > maxSumKeys {
		t.Errorf("%d sum keys, want at most %d", len(x.keys), maxSumKeys)
	}
	if e, _ := x.FileSum(ctx, "b.py", b, sa); e == nil || e.Defs[0].Name != "b" {
		t.Errorf("FileSum(b, a's sum) after the table cleared = %+v, want b's entry (hashed)", e)
	}
	if n := x.Parses(); n != 3 {
		t.Errorf("%d parses, want 3 (a as Python and JavaScript, b)", n)
	}
}
