package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/tokens"
)

func packTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"main.go":          "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n",
		"lib/util.go":      "package lib\n\n// Add adds.\nfunc Add(a, b int) int {\n\tsum := a\n\tsum += b\n\tif sum < 0 {\n\t\tsum = -sum\n\t}\n\treturn sum\n}\n",
		"lib/util_test.go": "package lib\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {}\n",
		"docs/README.md":   "# Docs\n\nSome words here.\n",
		".env":             "API_KEY=sk-secret\n",
		"build/out.txt":    "generated\n",
		".gitignore":       "build/\n",
		"logo.png":         "\x89PNG\r\n\x1a\n\x00\x00binary",
	}
	testutil.WriteFiles(t, dir, files)
	return dir
}

type packJSON struct {
	Tokens int `json:"tokens"`
	Files  []struct {
		Path    string `json:"path"`
		Tokens  int    `json:"tokens"`
		Content string `json:"content"`
	} `json:"files"`
	Dirs []struct {
		Path   string `json:"path"`
		Tokens int    `json:"tokens"`
	} `json:"dirs"`
	LargestFiles []struct {
		Path string `json:"path"`
	} `json:"largest_files"`
}

func TestPackCommand(t *testing.T) {
	t.Parallel() // a subprocess per case: overlaps on two cores
	dir := packTree(t)
	out, errOut, code := runCtxd(t, dir, "", nil, "pack", "--root", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("pack: exit %d: %s", code, errOut)
	}
	var p packJSON
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	var got []string
	c, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, f := range p.Files {
		got = append(got, f.Path)
		text, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if f.Content != string(text) {
			t.Errorf("%s: content differs from the file", f.Path)
		}
		if want := c.Count(string(text)); f.Tokens != want {
			t.Errorf("%s: %d tokens, want %d", f.Path, f.Tokens, want)
		}
		sum += f.Tokens
	}
	// .env is secret, build/ ignored, logo.png binary.
	want := ".gitignore,docs/README.md,lib/util.go,lib/util_test.go,main.go"
	if strings.Join(got, ",") != want {
		t.Errorf("files %v, want %s", got, want)
	}
	if p.Tokens != sum {
		t.Errorf("total %d, files sum to %d", p.Tokens, sum)
	}
	dirs := map[string]int{}
	for _, d := range p.Dirs {
		dirs[d.Path] = d.Tokens
	}
	if dirs["."] != sum || dirs["lib"] != p.Files[2].Tokens+p.Files[3].Tokens {
		t.Errorf("directory totals %v", dirs)
	}
	if strings.Contains(out, "sk-secret") {
		t.Error("a secret reached the pack")
	}

	// Markdown to a file, a subtree, --exclude and --compress.
	outFile := filepath.Join(t.TempDir(), "pack.md")
	if _, errOut, code := runCtxd(t, dir, "", nil, "pack", "--root", dir, "--output", outFile, "--exclude", "**/*_test.go", "--compress", "lib"); code != 0 {
		t.Fatalf("pack --output: exit %d: %s", code, errOut)
	}
	md, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "### lib/util.go (") || strings.Contains(string(md), "util_test.go") || strings.Contains(string(md), "main.go") {
		t.Errorf("subtree pack:\n%s", md)
	}
	if strings.Contains(string(md), "sum += b") {
		t.Error("--compress kept a function body")
	}

	// tokens: the tree alone.
	out, errOut, code = runCtxd(t, dir, "", nil, "tokens", "--root", dir)
	if code != 0 {
		t.Fatalf("tokens: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "lib/ (2 files)") || !strings.Contains(out, "util.go") || strings.Contains(out, "Add adds") {
		t.Errorf("tokens tree:\n%s", out)
	}

	// PATH may be one file: its count alone.
	out, errOut, code = runCtxd(t, dir, "", nil, "tokens", "--root", dir, filepath.Join(dir, "lib", "util.go"))
	if code != 0 {
		t.Fatalf("tokens FILE: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "util.go") || strings.Contains(out, "main.go") || !strings.Contains(out, "in 1 file\n") {
		t.Errorf("tokens of one file:\n%s", out)
	}

	// A PATH outside any repository is packed as its own workspace, and
	// said so (as prompt says it).
	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, "notes.txt"), []byte("plain notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runCtxd(t, dir, "", nil, "tokens", plain); code != 0 || !strings.Contains(errOut, "not in a git repository") || !strings.Contains(out, "notes.txt") {
		t.Errorf("tokens of a plain directory: exit %d\n%s\n%s", code, errOut, out)
	}

	// Bad input is a usage error.
	if _, _, code := runCtxd(t, dir, "", nil, "pack", "--root", dir, "--format", "yaml"); code != 2 {
		t.Errorf("--format yaml: exit %d, want 2", code)
	}
	// So is an --include that matches nothing (it wrote an empty pack and
	// exited 0): nothing is written.
	none := filepath.Join(t.TempDir(), "none.md")
	if _, errOut, code := runCtxd(t, dir, "", nil, "pack", "--root", dir, "--include", "nosuch/*", "--output", none); code != 2 || !strings.Contains(errOut, "ctxd pack: --include nosuch/* matched no file\nusage: ") {
		t.Errorf("--include nosuch/*: exit %d, want 2:\n%s", code, errOut)
	}
	if _, err := os.Stat(none); !os.IsNotExist(err) {
		t.Errorf("--include nosuch/* wrote %s: %v", none, err)
	}
}

func TestPackOverRPC(t *testing.T) {
	dir := packTree(t)
	d := startDaemon(t, dir)
	if r := d.call("initialize", map[string]any{"root": dir}); r["error"] != nil {
		t.Fatal(r["error"])
	}
	r := d.call("ctx/pack", map[string]any{"format": "xml", "include": []string{"lib/**"}})
	if r["error"] != nil {
		t.Fatal(r["error"])
	}
	res := r["result"].(map[string]any)
	text, _ := res["text"].(string)
	if !strings.Contains(text, `<file path="lib/util.go"`) || strings.Contains(text, "main.go") {
		t.Errorf("ctx/pack text:\n%s", text)
	}
	if res["tokens"].(float64) <= 0 {
		t.Errorf("ctx/pack tokens: %v", res["tokens"])
	}
	if r := d.call("ctx/pack", map[string]any{"format": "yaml"}); r["error"] == nil {
		t.Error("bad format accepted")
	}
	if r := d.call("ctx/pack", map[string]any{"output": "sub/relative.md"}); r["error"] == nil {
		t.Error("output with a directory accepted")
	}
	// An include that matches nothing is bad params, as on the command
	// line, and writes nothing.
	r = d.call("ctx/pack", map[string]any{"include": []string{"nosuch/*"}, "output": "none.md"})
	if e, _ := r["error"].(map[string]any); e == nil || e["code"] != float64(-32602) || !strings.Contains(fmt.Sprint(e["message"]), "--include nosuch/* matched no file") {
		t.Errorf("ctx/pack include nosuch/*: %s, want -32602", testutil.JSON(t, r))
	}
	if _, err := os.Stat(filepath.Join(dir, ".ctxd", "packs", "none.md")); !os.IsNotExist(err) {
		t.Errorf("ctx/pack include nosuch/* wrote a pack: %v", err)
	}
	// A subtree outside the workspace or missing is an error, not an
	// empty pack; one inside packs that subtree.
	for _, tc := range []struct {
		path string
		code float64
	}{{"/etc", -31001}, {filepath.Join(filepath.Dir(dir), "elsewhere"), -31001}, {"nope", -31002}, {filepath.Join(dir, "nope"), -31002}} {
		r := d.call("ctx/pack", map[string]any{"path": tc.path, "format": "json"})
		e, _ := r["error"].(map[string]any)
		if e == nil || e["code"] != tc.code {
			b := testutil.JSON(t, r)
			t.Errorf("ctx/pack path %q: %s, want error %v", tc.path, b[:min(300, len(b))], tc.code)
		}
	}
	for _, p := range []string{"lib", filepath.Join(dir, "lib")} {
		r := d.call("ctx/pack", map[string]any{"path": p, "format": "json"})
		js := string(testutil.JSON(t, r))
		if r["error"] != nil || !strings.Contains(js, "lib/util.go") || strings.Contains(js, "main.go") {
			t.Errorf("ctx/pack path %q: %s", p, js)
		}
	}
	// The daemon writes a pack only into <state>/packs (TestPackOutputRule
	// tries the paths it refuses).
	r = d.call("ctx/pack", map[string]any{"output": "pack.md"})
	if r["error"] != nil {
		t.Fatal(r["error"])
	}
	out := filepath.Join(dir, ".ctxd", "packs", "pack.md")
	if got := r["result"].(map[string]any)["output"]; got != out {
		t.Errorf("ctx/pack output %v, want %s", got, out)
	}
	if md, err := os.ReadFile(out); err != nil || !strings.Contains(string(md), "### lib/util.go (") {
		t.Errorf("ctx/pack output file: %v\n%s", err, md)
	}
	// The daemon follows the tree: a new file is in the next pack.
	if err := os.WriteFile(filepath.Join(dir, "lib", "more.go"), []byte("package lib\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadlineOK := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		r := d.call("ctx/pack", map[string]any{"format": "json", "include": []string{"lib/**"}})
		if strings.Contains(string(testutil.JSON(t, r)), "lib/more.go") {
			deadlineOK = true
			break
		}
	}
	if !deadlineOK {
		t.Error("a file created on disk never reached ctx/pack")
	}
}

// TestPackBinaryFile: pack and tokens of one binary file say it is binary
// and exit 1, instead of an empty pack of "0 files"; a directory pack
// names the binary files it left out.
func TestPackBinaryFile(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{"a.go": "package a\n", "blob.bin": "\x00\x01\x02binary\x00"})
	for _, cmd := range []string{"pack", "tokens"} {
		out, errOut, code := runCtxd(t, dir, "", nil, cmd, "--output", "-", "blob.bin")
		if cmd == "tokens" {
			out, errOut, code = runCtxd(t, dir, "", nil, cmd, "blob.bin")
		}
		want := "ctxd " + cmd + ": blob.bin is binary (10 bytes): " + cmd + " reads text files only\n"
		if code != 1 || errOut != want || out != "" {
			t.Errorf("ctxd %s blob.bin: exit %d, stdout %q, stderr %q; want exit 1 and %q", cmd, code, out, errOut, want)
		}
	}
	out, errOut, code := runCtxd(t, dir, "", nil, "tokens")
	if code != 0 || !strings.Contains(out, "left out as not text: 1 file: blob.bin (binary)\n") {
		t.Errorf("ctxd tokens: exit %d, stdout %q, stderr %q; want blob.bin named as binary", code, out, errOut)
	}
}

// TestPackOneFile: pack and tokens of one file the whole-tree rules leave
// out: an asset (a lockfile, a large JSON) is the user's choice and is
// counted; a text over the size cap names the cap and the setting that
// raises it (it said "tokens reads text files only" of a text file).
func TestPackOneFile(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		".ctxd.toml":        "[gather]\nmax_file_bytes = 4096\n",
		"a.go":              "package a\n",
		"package-lock.json": `{"lockfileVersion": 3, "packages": {}}` + "\n",
		"big.go":            "package a\n\n" + strings.Repeat("var x = 1\n", 500),
	})
	tests := []struct {
		name string
		args []string
		code int
		out  string // in stdout
		err  string // stderr, whole
	}{
		{"tokens of a lockfile", []string{"tokens", "package-lock.json"}, 0, "total 13 tokens (o200k_base) in 1 file\n", ""},
		{"pack of a lockfile", []string{"pack", "--output", "-", "package-lock.json"}, 0, "### package-lock.json (13 tokens)", ""},
		{"tokens over the cap", []string{"tokens", "big.go"}, 1, "",
			"ctxd tokens: big.go is over the size cap (5011 bytes, the cap 4096): raise gather.max_file_bytes in .ctxd.toml to read it\n"},
		{"pack over the cap", []string{"pack", "--output", "-", "big.go"}, 1, "",
			"ctxd pack: big.go is over the size cap (5011 bytes, the cap 4096): raise gather.max_file_bytes in .ctxd.toml to read it\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCtxd(t, dir, "", nil, tt.args...)
			if code != tt.code || errOut != tt.err || !strings.Contains(out, tt.out) {
				t.Errorf("ctxd %s: exit %d, stdout %q, stderr %q; want exit %d, %q in stdout, stderr %q", strings.Join(tt.args, " "), code, out, errOut, tt.code, tt.out, tt.err)
			}
		})
	}
}

// TestPackSplitOutput: --split-output writes numbered parts beside
// --output, each within the limit, and names them; without --output it is
// a usage error.
func TestPackSplitOutput(t *testing.T) {
	files := map[string]string{}
	for i := range 24 {
		files[fmt.Sprintf("p%d/f%02d.go", i%3, i)] = fmt.Sprintf("package p\n\n// F%d adds.\nfunc F%d(a, b int) int {\n\treturn a + b + %d\n}\n", i, i, i)
	}
	dir := testutil.GitRepo(t, files)
	out := filepath.Join(t.TempDir(), "pack.md")
	_, errOut, code := runCtxd(t, dir, "", nil, "pack", "--split-output", "500", "--output", out)
	if code != 0 || !strings.Contains(errOut, "ctxd: packed 24 files") || !strings.Contains(errOut, "pack.1.md") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	counter, err := tokens.Get("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	parts, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "pack.*.md"))
	if len(parts) < 2 {
		t.Fatalf("parts %v", parts)
	}
	for _, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := counter.Count(string(b)); n > 500 {
			t.Errorf("%s: %d tokens, over 500", p, n)
		}
	}
	if _, errOut, code := runCtxd(t, dir, "", nil, "pack", "--split-output", "500"); code != 2 || !strings.Contains(errOut, "--split-output TOKENS needs") {
		t.Errorf("without --output: exit %d: %s", code, errOut)
	}
	// --output into a directory that does not exist names the directory,
	// whole or split; it named the temporary file (.pack.1.md.tmp-…).
	missing := filepath.Join(t.TempDir(), "nope")
	for _, args := range [][]string{{"--output", filepath.Join(missing, "pack.md")}, {"--split-output", "500", "--output", filepath.Join(missing, "pack.md")}} {
		_, errOut, code := runCtxd(t, dir, "", nil, append([]string{"pack"}, args...)...)
		if code != 1 || !strings.Contains(errOut, ": create its directory first: "+missing+": file does not exist") || strings.Contains(errOut, ".tmp-") {
			t.Errorf("pack %v: exit %d: %s", args, code, errOut)
		}
	}
}
