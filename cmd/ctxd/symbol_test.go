package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

func TestSymbolCLI(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"app.py":        "class Store:\n    def put(self, k):\n        pass\n\nStore().put(1)\n",
		"docs/store.md": "# Store\n\nCall Store.put to add.\n",
		"limits.go":     "package app\n\nconst MaxSize = 10\n",
		"Rw.java":       "class W {\n  void begin() {}\n}\nclass R {\n  void begin() {}\n}\nclass U {\n  void u(W w, R r, Object o) {\n    w.begin();\n    r.begin();\n    o.x().begin();\n  }\n}\n",
	})
	runCases(t, []cliCase{
		{"qualified with #", []string{"symbol", "--root", dir, "Store#put"}, 0, "def app.py:2-3 method def put(self, k)\nref app.py:5 Store().put(1)\n", "", "store.md"},
		{"kind said once", []string{"symbol", "--root", dir, "MaxSize"}, 0, "def limits.go:3-3 const MaxSize = 10\n", "", "const const"},
		{"call form", []string{"symbol", "--root", dir, "put()"}, 0, "ref app.py:5", "", "store.md"},
		{"docs asked", []string{"symbol", "--root", dir, "--docs", "Store.put"}, 0, "ref docs/store.md:3 Call Store.put to add.", "", ""},
		{"json", []string{"symbol", "--root", dir, "--json", "put"}, 0, `"definitions": [`, "", ""},
		{"nothing", []string{"symbol", "--root", dir, "Nowhere"}, 0, "", "nothing found: no code file contains the name", "in 0 files"},
		{"only in docs", []string{"symbol", "--root", dir, "Call"}, 0, "", "nothing found: no code file contains the name (check the spelling, try the bare name, or --docs", ""},
		// The qualifier narrows the uses too: R's is left out, one on an
		// unknown receiver is marked, and stderr says both.
		{"qualified uses", []string{"symbol", "--root", dir, "W#begin"}, 0, "def Rw.java:2-2 method void begin()\nref Rw.java:9 w.begin();\nref? Rw.java:11 o.x().begin();\n", "ctxd: 1 uses on other types that define the name left out; 1 listed as ref? (their receiver's type is not known)\n", "r.begin"},
		{"not a name", []string{"symbol", "--root", dir, "two words"}, 1, "", "want an identifier", ""},
		{"no name", []string{"symbol", "--root", dir}, 2, "", "want one NAME", ""},
	})
}

// TestFindSymbolOverRPC: the daemon answers ctx/findSymbol (it had no
// symbol lookup, though the CLI and MCP had) with what `ctxd symbol
// --json` prints; a bad name is -32602.
func TestFindSymbolOverRPC(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"Rw.java": "class W {\n  void begin() {}\n}\nclass R {\n  void begin() {}\n}\nclass U {\n  void u(W w, R r, Object o) {\n    w.begin();\n    r.begin();\n    o.x().begin();\n  }\n}\n",
	})
	out, errOut, code := runCtxd(t, dir, "", nil, "symbol", "--json", "W#begin")
	if code != 0 {
		t.Fatalf("ctxd symbol: exit %d: %s", code, errOut)
	}
	var cli map[string]any
	if err := json.Unmarshal([]byte(out), &cli); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, dir)
	result(t, d.call("initialize", map[string]any{"root": dir}))
	rpc := result(t, d.call("ctx/findSymbol", map[string]any{"name": "W#begin"}))
	if !reflect.DeepEqual(rpc, cli) {
		t.Errorf("ctx/findSymbol\n%v\nctxd symbol --json\n%v", rpc, cli)
	}
	if refs, _ := rpc["references"].([]any); len(refs) != 2 || rpc["other_receivers"] != float64(1) {
		t.Errorf("ctx/findSymbol W#begin: %v, want two references and R's left out", rpc)
	}
	if e, _ := d.call("ctx/findSymbol", map[string]any{"name": "two words"})["error"].(map[string]any); e == nil || e["code"] != float64(-32602) {
		t.Errorf("ctx/findSymbol of two words: %v, want -32602", e)
	}
}

// TestFindSymbolReadsNewBuffers: a file only open in the editor (never
// saved) is searched as a prompt gathers it: its definition and uses are
// found while it is open and gone once it is closed; a secret file's
// buffer is not searched (tree.OverlayKept, the prompt's rule).
func TestFindSymbolReadsNewBuffers(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"app/app.go": "package app\n\nfunc Run() {}\n",
	})
	d := startDaemon(t, dir)
	result(t, d.call("initialize", map[string]any{"root": dir}))
	d.didOpen(dir, "app/fresh.go", "package app\n\nfunc OnlyInBuffer() int { return 1 }\n\nvar x = OnlyInBuffer()\n")
	d.didOpen(dir, ".env", "ONLY=OnlyInBuffer\n")
	got := result(t, d.call("ctx/findSymbol", map[string]any{"name": "OnlyInBuffer"}))
	b, _ := json.Marshal(got)
	defs, _ := got["definitions"].([]any)
	refs, _ := got["references"].([]any)
	if len(defs) != 1 || defs[0].(map[string]any)["path"] != "app/fresh.go" || defs[0].(map[string]any)["line"] != float64(3) ||
		len(refs) != 1 || refs[0].(map[string]any)["line"] != float64(5) || got["files_searched"] != float64(1) {
		t.Errorf("ctx/findSymbol of a buffer-only file's function: %s, want its definition at app/fresh.go:3 and its use at line 5, one file searched (not .env)", b)
	}
	d.send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didClose", "params": map[string]any{"textDocument": map[string]any{
		"uri": "file://" + filepath.Join(dir, "app/fresh.go")}}})
	got = result(t, d.call("ctx/findSymbol", map[string]any{"name": "OnlyInBuffer"}))
	if defs, _ := got["definitions"].([]any); len(defs) != 0 || got["files_searched"] != float64(0) {
		t.Errorf("ctx/findSymbol after didClose: %v, want nothing (the file was never saved)", got)
	}
}

// TestSymbolBinaryUsersNames: the real binary's `ctxd symbol` finds a
// plugin's hooks (only the Plugin type's field was listed), leaves out a
// docstring's mention (listed as a reference), refuses a chain of more
// than three parts (a.b.c.d.e listed every use of e) saying the two parts
// to ask for, and its help says the grammar.
func TestSymbolBinaryUsersNames(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"plugin.ts":  "export interface Plugin {\n  configureServer?: (s: unknown) => void\n}\n",
		"css.ts":     "export function cssPlugin() {\n  return {\n    name: 'vite:css',\n    configureServer(server) {\n      server.use()\n    },\n  }\n}\n",
		"routing.py": "class Router:\n    def url_path_for(self, name):\n        \"\"\"Router.url_path_for(name) builds it.\"\"\"\n        return name\n\nRouter().url_path_for('x')\n",
	})
	tests := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string
		notInOut       string
	}{
		{"hook", []string{"configureServer"}, 0, "def css.ts:4-6 method configureServer(server)\n", "", ""},
		{"docstring", []string{"Router.url_path_for"}, 0, "def routing.py:2-4 method def url_path_for(self, name)\nref routing.py:6 Router().url_path_for('x')\n", "", "routing.py:3"},
		{"long chain", []string{"a.b.c.Router.url_path_for"}, 1, "", "at most 3 parts", "def "},
		{"long path", []string{"a::b::c::url_path_for"}, 1, "", "(c::url_path_for)", ""},
		{"empty part", []string{"Router..url_path_for"}, 1, "", "every part of a qualified name is an identifier", ""},
		{"help", []string{"--help"}, 0, "", "at most\nthree parts", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCtxd(t, dir, "", nil, append([]string{"symbol"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tt.code, out, errOut)
			}
			if !strings.Contains(out, tt.stdout) || !strings.Contains(out+errOut, tt.stderr) {
				t.Errorf("stdout %q stderr %q, want %q and %q", out, errOut, tt.stdout, tt.stderr)
			}
			if tt.notInOut != "" && strings.Contains(out, tt.notInOut) {
				t.Errorf("stdout %q holds %q", out, tt.notInOut)
			}
		})
	}
}
