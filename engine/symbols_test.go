package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

func TestFindSymbol(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"store/store.go": "package store\n\ntype Store struct{}\n\n// Put adds.\nfunc (s *Store) Put(k string) error {\n\treturn nil\n}\n\nfunc Put(k string) {}\n",
		"cache/cache.go": "package cache\n\ntype Cache struct{}\n\nfunc (c *Cache) Put(k string) {}\n",
		"main.go":        "package main\n\nfunc main() {\n\tvar s store.Store\n\ts.Put(\"a\") // Put\n\tPutter()\n}\n",
		"app.py":         "class Store:\n    def put(self, k):\n        pass\n\nStore().put(1)\n",
		"docs/store.md":  "# Store\n\nCall Store.put to add, or Put in Go.\n",
		"web/render.js":  "function createRenderer() {\n" + strings.Repeat("  // filler\n", 30) + "  function mountChildren(c) {\n    return c;\n  }\n  return mountChildren;\n}\n",
		// A definition that starts at its annotation or decorator: the
		// line naming it is not a reference to it.
		"Builder.java": "class Builder {\n  @Deprecated\n  // setFormat sets it.\n  public Builder setFormat(String p) {\n    return this;\n  }\n  void use() { setFormat(\"x\"); }\n}\n",
		"tasks.py":     "@cache\ndef load_all(k):\n    return k\n\nload_all(1)\n",
		// A JavaScript private method: its name keeps the # (ky's
		// Ky.#retry found only the unrelated public retry).
		"web/ky.ts": "class Ky {\n  #retryCount = 0;\n  async #retry(f) {\n    this.#retryCount++;\n    return f();\n  }\n  run() {\n    return this.#retry(() => 1);\n  }\n}\nexport const retry = 1;\n",
		// Definitions inside short function bodies, which the symbol
		// index leaves out (the views show such a body whole): found all
		// the same, not listed as references to themselves.
		"nest.py":      "import click\n\ndef outer():\n    @click.command()\n    def deco_inner(ctx):\n        return ctx\n\n    class Local:\n        def meth(self):\n            return 1\n\n    return deco_inner, Local\n",
		"web/small.js": "function makeRenderer(o) {\n  const patchSmall = (n) => n + 1\n  return { render(v) { return patchSmall(v) } }\n}\n",
		"lit/lit.go":   "package lit\n\nfunc Outer() int {\n\thelperLit := func() int { return 1 }\n\treturn helperLit()\n}\n",
		// A function assigned to a computed member, named by its text in
		// the symbol index and the outline (Express's verb methods):
		// `ctxd symbol "app[method]"` refused the name.
		"lib/app.js": "var methods = ['get', 'post'];\nmethods.forEach(function (method) {\n  app[method] = function (path) {\n    return this.route(path);\n  };\n});\n\nfunction delegate(method) {\n  return app[method];\n}\n",
	})
	e := newEngine(t, dir)
	tests := []struct {
		name      string
		defs      []string // path:line
		refs      []string
		wantError bool
		docs      bool
	}{
		{name: "put()", defs: []string{"app.py:2"}, refs: []string{"app.py:5"}},
		{name: "Store.put(k)", defs: []string{"app.py:2"}, refs: []string{"app.py:5"}},
		{name: "Store.put", defs: []string{"app.py:2"}, refs: []string{"app.py:5", "docs/store.md:3"}, docs: true},
		{name: "mountChildren", defs: []string{"web/render.js:32"}, refs: []string{"web/render.js:35"}},
		{name: "createRenderer.mountChildren", defs: []string{"web/render.js:32"}, refs: []string{"web/render.js:35"}},
		{"Put", []string{"cache/cache.go:5", "store/store.go:6", "store/store.go:10"}, []string{"main.go:5"}, false, false},
		{"Store.Put", []string{"store/store.go:6"}, []string{"main.go:5"}, false, false},
		// main.go's s is a store.Store, which defines Put: not a use of
		// cache's Put (TestFindSymbolReceivers).
		{"cache.Put", []string{"cache/cache.go:5"}, nil, false, false},
		{"Store.put", []string{"app.py:2"}, []string{"app.py:5"}, false, false},
		// One splitter (query.SplitQualified): the qualifier is the last
		// part before the name, and # and a trailing () split as in requests.
		{"x/cache.Put", []string{"cache/cache.go:5"}, nil, false, false},
		{"store.Store.Put", []string{"store/store.go:6"}, []string{"main.go:5"}, false, false},
		{"Store#put", []string{"app.py:2"}, []string{"app.py:5"}, false, false},
		{"Store.Put()", []string{"store/store.go:6"}, []string{"main.go:5"}, false, false},
		{"setFormat", []string{"Builder.java:2"}, []string{"Builder.java:7"}, false, false},
		{"load_all", []string{"tasks.py:2"}, []string{"tasks.py:5"}, false, false},
		{"Ky.#retry", []string{"web/ky.ts:3"}, []string{"web/ky.ts:8"}, false, false},
		{"#retry", []string{"web/ky.ts:3"}, []string{"web/ky.ts:8"}, false, false},
		{"deco_inner", []string{"nest.py:5"}, []string{"nest.py:12"}, false, false},
		{"Local.meth", []string{"nest.py:9"}, nil, false, false},
		{"patchSmall", []string{"web/small.js:2"}, []string{"web/small.js:3"}, false, false},
		{"helperLit", []string{"lit/lit.go:4"}, []string{"lit/lit.go:5"}, false, false},
		{"app[method]", []string{"lib/app.js:3"}, []string{"lib/app.js:9"}, false, false},
		{" app[method] ", []string{"lib/app.js:3"}, []string{"lib/app.js:9"}, false, false},
		{"Nowhere", nil, nil, false, false},
		{"app[method", nil, nil, true, false},
		{"[method]", nil, nil, true, false},
		{"app[a; b]", nil, nil, true, false},
		{"two words", nil, nil, true, false},
		{"", nil, nil, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.FindSymbol(t.Context(), SymbolRequest{Name: tt.name, IncludeDocs: tt.docs})
			if tt.wantError {
				if err == nil {
					t.Fatal("want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var defs, refs []string
			for _, d := range res.Definitions {
				defs = append(defs, d.Path+":"+strconv.Itoa(d.Line))
			}
			for _, r := range res.References {
				refs = append(refs, r.Path+":"+strconv.Itoa(r.Line))
			}
			if !slices.Equal(defs, tt.defs) || !slices.Equal(refs, tt.refs) {
				t.Errorf("defs %v refs %v, want %v %v", defs, refs, tt.defs, tt.refs)
			}
		})
	}
}

// TestFindSymbolReceivers: a qualifier narrows the uses where the file
// tells the receiver's type (`ctxd symbol JsonWriter#beginObject` listed
// JsonReader's uses): a variable declared of the type (parameter, local,
// field; Java, Go, TypeScript, Python), the type itself or a constructor
// call's result, a method of the type calling it bare or on this/self. A use on another type that
// defines the name is left out and counted; one whose receiver's type
// the file does not say is listed and marked unknown.
func TestFindSymbolReceivers(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"JsonWriter.java": "class JsonWriter {\n  JsonWriter beginObject() {\n    return this;\n  }\n  void nested() {\n    beginObject();\n    this.beginObject();\n  }\n}\n",
		"JsonReader.java": "class JsonReader {\n  void beginObject() {\n  }\n  void skip() {\n    beginObject();\n  }\n}\n",
		"Adapter.java": "class Adapter {\n  private final JsonWriter sink;\n" +
			"  void write(JsonWriter out, int v) {\n    out.beginObject();\n  }\n" +
			"  Object read(JsonReader in) {\n    in.beginObject();\n    return null;\n  }\n" +
			"  void both(JsonReader in, JsonWriter out) {\n    in.beginObject(); out.beginObject();\n  }\n" +
			"  void field() {\n    sink.beginObject();\n  }\n" +
			"  void unknown(Object o) {\n    make().beginObject();\n    other.beginObject();\n  }\n}\n",
		"writer.go":   "package w\n\ntype Writer struct{}\n\nfunc (w *Writer) Flush() {}\n\ntype Pipe struct{}\n\nfunc (p *Pipe) Flush() {}\n\nfunc use(w *Writer, p *Pipe) {\n\tw.Flush()\n\tp.Flush()\n\tq := &Pipe{}\n\tq.Flush()\n}\n\ntype Flusher interface {\n\tFlush()\n}\n\nfunc viaIface(f Flusher, h io.Writer) {\n\tf.Flush()\n\th.Flush()\n}\n",
		"app.ts":      "class Conn { close(): void {} }\nclass File { close(): void {} }\nfunction f(c: Conn, g: File) {\n  c.close();\n  g.close();\n}\n",
		"src/walk.rs": "struct WorkerState {}\n\nimpl WorkerState {\n    fn scan(&self) {}\n}\n\npub fn scan() {\n    WorkerState {}.scan()\n}\n",
		"src/main.rs": "mod walk;\n\nfn main() {\n    walk::scan();\n    crate::walk::scan();\n    state.scan();\n}\n",
		"app.py":      "class Conn:\n    def close(self):\n        pass\n\nclass File:\n    def close(self):\n        self.close()\n\ndef f(c: Conn):\n    c.close()\n    x = File()\n    x.close()\n    File().close()\n",
	})
	e := newEngine(t, dir)
	tests := []receiverCase{
		{"JsonWriter#beginObject", []string{"Adapter.java:4", "Adapter.java:11", "Adapter.java:14", "Adapter.java:17?", "Adapter.java:18?", "JsonWriter.java:6", "JsonWriter.java:7"}, 2, 2},
		{"JsonReader.beginObject", []string{"Adapter.java:7", "Adapter.java:11", "Adapter.java:17?", "Adapter.java:18?", "JsonReader.java:5"}, 4, 2},
		// A call on an interface may reach either type; io.Writer is not
		// the local Writer.
		{"Writer.Flush", []string{"writer.go:12", "writer.go:23?", "writer.go:24?"}, 2, 2},
		{"Pipe.Flush", []string{"writer.go:13", "writer.go:15", "writer.go:23?", "writer.go:24?"}, 1, 2},
		{"Conn.close", []string{"app.py:10", "app.ts:4"}, 4, 0},
		{"File.close", []string{"app.py:7", "app.py:12", "app.py:13", "app.ts:5"}, 2, 0},
		// walk::scan is module walk's function, not the method: it was
		// listed as an unknown receiver's use.
		{"WorkerState::scan", []string{"src/main.rs:6?", "src/walk.rs:8?"}, 2, 2},
		{"walk::scan", []string{"src/main.rs:4", "src/main.rs:5", "src/main.rs:6?", "src/walk.rs:8?"}, 0, 2},
		// Without a qualifier every use is listed, none marked.
		{"beginObject", []string{"Adapter.java:4", "Adapter.java:7", "Adapter.java:11", "Adapter.java:14", "Adapter.java:17", "Adapter.java:18", "JsonReader.java:5", "JsonWriter.java:6", "JsonWriter.java:7"}, 0, 0},
	}
	checkReceivers(t, e, tests)
	// A module qualifier finds the module's top-level definition.
	res, err := e.FindSymbol(t.Context(), SymbolRequest{Name: "walk::scan"})
	if err != nil || len(res.Definitions) != 1 || res.Definitions[0].Path != "src/walk.rs" || res.Definitions[0].Line != 7 {
		t.Errorf("walk::scan definitions %+v, %v; want src/walk.rs:7", res.Definitions, err)
	}
}

// TestFindSymbolPythonReceivers: a test's parameter that names a pytest
// fixture of a conftest.py in its directory or above (or of its own
// file) is of the class the fixture constructs, when its every return
// constructs one; super() in a class of one base is that base. Unsure
// stays unknown (ref?): a fixture returning anything else, a nearer
// conftest's fixture hiding a known one, no fixture in sight, a name
// that is not a parameter, a class of two bases. A class constructed
// through its module (app.testing.Runner()) is the class. A parameter is
// typed within its function only.
func TestFindSymbolPythonReceivers(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"app/core.py": "class Context:\n    def invoke(self, f):\n        return f()\n\n\n" +
			"class Command:\n    def invoke(self, ctx):\n        return ctx.invoke(self.cb)\n\n\n" + // 8: ctx unknown
			"class Group(Command):\n    def invoke(self, ctx):\n        return super().invoke(ctx)\n\n\n" + // 13: Command's
			"class Sub(Context):\n    def invoke(self, f):\n        return super().invoke(f)\n\n\n" + // 18: Context's
			"class Mixed(Command, Context):\n    def invoke(self, ctx):\n        return super().invoke(ctx)\n", // 23: either
		"app/testing.py": "class Runner:\n    def invoke(self, cli):\n        pass\n",
		"tests/conftest.py": "import pytest\n\nfrom app.testing import Runner\nfrom app import core\n\n\n" +
			"@pytest.fixture(scope=\"function\")\ndef runner(request):\n    return Runner()\n\n\n" +
			"@pytest.fixture(name=\"ctx\")\ndef make_ctx():\n    return core.Context()\n\n\n" +
			"@pytest.fixture\ndef maybe(request):\n    if request.param:\n        return Runner()\n    return None\n\n\n" +
			"def helper():\n    return Runner()\n",
		"tests/test_cli.py": "def test_a(runner):\n    runner.invoke(cli)\n\n\n" + // 2: Runner's
			"def test_b(ctx):\n    ctx.invoke(f)\n\n\n" + // 6: Context's
			"def test_c(maybe):\n    maybe.invoke(cli)\n\n\n" + // 10: not one constructor
			"def test_d():\n    runner.invoke(cli)\n\n\n" + // 14: not a parameter
			"def test_e(helper):\n    helper.invoke(cli)\n\n\n" + // 18: not a fixture
			"class TestK:\n    def test_f(self, runner):\n        def inner():\n            runner.invoke(cli)\n        inner()\n", // 24: the outer's parameter
		"tests/test_mod.py": "import app.testing\n\n\ndef test_m():\n    r = app.testing.Runner()\n    r.invoke(cli)\n", // 6: Runner's
		// A parameter is typed within its function only: not by the
		// declaration of another function's variable of its name.
		"tests/test_scope.py": "def test_p(ctx):\n    ctx.invoke(f)\n\n\n" + // 2: the fixture's Context
			"def test_q():\n    ctx = app.testing.Runner()\n    ctx.invoke(cli)\n\n\n" + // 7: Runner's
			"def helper(cmd):\n    cmd.invoke(x)\n\n\ncmd = app.testing.Runner()\n\n\n" + // 11: unknown
			"def test_r(\n    tmp, runner\n):\n    @command()\n    def cli(ctx):\n        ctx.invoke(f)\n    runner.invoke(cli)\n", // 22: not the fixture ctx; 23: Runner's
		"tests/sub/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef runner(tmp_path):\n    r = Runner()\n    yield r\n",
		"tests/sub/test_sub.py": "def test_g(runner):\n    runner.invoke(cli)\n", // 2: the nearer fixture, unknown
		"other/test_other.py":   "def test_h(runner):\n    runner.invoke(cli)\n", // 2: no conftest above
	})
	e := newEngine(t, dir)
	tests := []receiverCase{
		{"Context.invoke", []string{"app/core.py:8?", "app/core.py:18", "app/core.py:23?", "other/test_other.py:2?", "tests/sub/test_sub.py:2?",
			"tests/test_cli.py:6", "tests/test_cli.py:10?", "tests/test_cli.py:14?", "tests/test_cli.py:18?", "tests/test_scope.py:2", "tests/test_scope.py:11?", "tests/test_scope.py:22?"}, 6, 9},
		{"Runner.invoke", []string{"app/core.py:8?", "app/core.py:23?", "other/test_other.py:2?", "tests/sub/test_sub.py:2?", "tests/test_cli.py:2",
			"tests/test_cli.py:10?", "tests/test_cli.py:14?", "tests/test_cli.py:18?", "tests/test_cli.py:24", "tests/test_mod.py:6",
			"tests/test_scope.py:7", "tests/test_scope.py:11?", "tests/test_scope.py:22?", "tests/test_scope.py:23"}, 4, 9},
		{"Command.invoke", []string{"app/core.py:8?", "app/core.py:13", "app/core.py:23?", "other/test_other.py:2?", "tests/sub/test_sub.py:2?",
			"tests/test_cli.py:10?", "tests/test_cli.py:14?", "tests/test_cli.py:18?", "tests/test_scope.py:11?", "tests/test_scope.py:22?"}, 8, 9},
	}
	checkReceivers(t, e, tests)
}

// receiverCase is a qualified name's references as FindSymbol lists
// them: path:line, "?" after one whose receiver is unknown; the uses on
// other types left out, and the unknown ones.
type receiverCase struct {
	name    string
	refs    []string
	other   int
	unknown int
}

// checkReceivers runs FindSymbol for each case.
func checkReceivers(t *testing.T, e *Engine, tests []receiverCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.FindSymbol(t.Context(), SymbolRequest{Name: tt.name})
			if err != nil {
				t.Fatal(err)
			}
			var refs []string
			for _, r := range res.References {
				ref := r.Path + ":" + strconv.Itoa(r.Line)
				if r.ReceiverUnknown {
					ref += "?"
				}
				refs = append(refs, ref)
			}
			if !slices.Equal(refs, tt.refs) || res.OtherReceivers != tt.other || res.ReceiverUnknown != tt.unknown {
				t.Errorf("refs %v, %d other, %d unknown; want %v, %d, %d", refs, res.OtherReceivers, res.ReceiverUnknown, tt.refs, tt.other, tt.unknown)
			}
		})
	}
}

// TestFindSymbolStoresCleanSet: find_symbol redacts every file holding the
// name through the workspace store's scanner, so the texts it found clean
// are saved in the state directory for the next process (`ctxd symbol`
// scanned them all again in each run); a symlink out of the root, which
// the tree never lists, is not read, and a secret in a listed file stays
// redacted.
func TestFindSymbolStoresCleanSet(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "leak.go"), []byte("package leak\n\nfunc Render() string { return \"outside\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The scanner's cache is process-wide: a text unique to this run is
	// clean news to it (-count=N runs the test again in one process).
	dir := testutil.GitRepo(t, map[string]string{
		"a.go":   "package a\n\n// Render draws (" + t.TempDir() + ").\nfunc Render() {}\n",
		"b.go":   "package a\n\nfunc use() { Render() }\n",
		"key.go": "package a\n\nconst token = \"ghp_Zq8xW3mN5vB7kL2pR9tY4uH6jF1dS0aQ3eXc\"\n\nfunc other() { Render() }\n",
	})
	if err := os.Symlink(filepath.Join(outside, "leak.go"), filepath.Join(dir, "leak.go")); err != nil {
		t.Skip("no symlinks:", err)
	}
	// Two processes: the first creates the state directory (its store
	// finds none to write to when it closes), the second saves.
	state := filepath.Join(t.TempDir(), "state")
	var e *Engine
	var res *SymbolResult
	for range 2 {
		e = openEngine(t, dir, Options{StateDir: state})
		var err error
		if res, err = e.FindSymbol(t.Context(), SymbolRequest{Name: "Render"}); err != nil {
			t.Fatal(err)
		}
		e.Close()
	}
	for _, h := range append(res.Definitions, res.References...) {
		if h.Path == "leak.go" || strings.Contains(h.Text, "outside") {
			t.Errorf("read through a symlink out of the root: %+v", h)
		}
	}
	if len(res.Definitions) != 1 || res.Definitions[0].Path != "a.go" || len(res.References) != 2 {
		t.Errorf("definitions %+v, references %+v: want a.go's Render and the uses in b.go and key.go", res.Definitions, res.References)
	}
	if len(res.Redactions) == 0 {
		t.Errorf("no redaction listed for key.go's token")
	}
	var found []string
	filepath.WalkDir(state, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "secrets-clean.bin" {
			found = append(found, p)
		}
		return nil
	})
	if len(found) == 0 {
		t.Errorf("no clean set saved under %s after find_symbol", state)
	}
}
