package pack

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/tokens"
	"github.com/ctxd/ctxd/workspace/tree"
)

// packed packs ws with opts, failing the test on an error.
func packed(t *testing.T, ws *tree.Tree, opts Options) *Result {
	t.Helper()
	r, err := PackCached(t.Context(), ws, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func workspace(t *testing.T, files map[string]string) *tree.Tree {
	t.Helper()
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, files)
	ws, err := tree.Open(dir, tree.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

func TestPack(t *testing.T) {
	ws := workspace(t, map[string]string{
		"a/x.go":       "package a\n\nvar X = 1\n",
		"a/b/y.go":     "package b\n\nvar Y = \"<tag>&\"\n",
		"a/b/long.txt": strings.Repeat("many words here ", 200),
		"z.md":         "# Z\n",
		"id_rsa":       "-----BEGIN OPENSSH PRIVATE KEY-----\n",
	})
	c, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		opts  Options
		paths string
	}{
		{"all", Options{}, "a/b/long.txt a/b/y.go a/x.go z.md"},
		{"subtree", Options{Path: "a/b"}, "a/b/long.txt a/b/y.go"},
		{"subtree with ./ and slash", Options{Path: "./a/b/"}, "a/b/long.txt a/b/y.go"},
		{"include", Options{Include: []string{"**/*.go"}}, "a/b/y.go a/x.go"},
		{"exclude", Options{Exclude: []string{"a/b/**"}}, "a/x.go z.md"},
		// As in .gitignore: a glob without a slash matches names at any
		// depth, one with a slash paths from the root or the subtree.
		{"include name at any depth", Options{Include: []string{"*.go"}}, "a/b/y.go a/x.go"},
		{"include name in subtree", Options{Path: "a", Include: []string{"*.go"}}, "a/b/y.go a/x.go"},
		{"include path from subtree", Options{Path: "a", Include: []string{"b/*.go"}}, "a/b/y.go"},
		{"include path from root in subtree", Options{Path: "a", Include: []string{"a/b/*"}}, "a/b/long.txt a/b/y.go"},
		{"include path from root only", Options{Include: []string{"b/*.go", "z.md"}}, "z.md"},
		{"exclude directory name", Options{Exclude: []string{"b"}}, "a/x.go z.md"},
		{"exclude name at any depth", Options{Exclude: []string{"*.txt", "z.md"}}, "a/b/y.go a/x.go"},
		{"exclude rooted", Options{Exclude: []string{"/a/x.go"}}, "a/b/long.txt a/b/y.go z.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := packed(t, ws, tt.opts)
			var paths []string
			sum := 0
			for _, f := range r.Files {
				paths = append(paths, f.Path)
				if f.Tokens != c.Count(f.Content) {
					t.Errorf("%s: %d tokens, want %d", f.Path, f.Tokens, c.Count(f.Content))
				}
				sum += f.Tokens
			}
			if got := strings.Join(paths, " "); got != tt.paths {
				t.Errorf("files %q, want %q", got, tt.paths)
			}
			if r.Tokens != sum || r.Dirs[0].Path != "." || r.Dirs[0].Tokens != sum {
				t.Errorf("total %d, root dir %+v, files sum to %d", r.Tokens, r.Dirs[0], sum)
			}
		})
	}

	r := packed(t, ws, Options{Top: 1, NoContent: true})
	// a/ holds 617 tokens, 611 of them in a/b/: a/b/ is listed for both.
	if len(r.LargestFiles) != 1 || r.LargestFiles[0].Path != "a/b/long.txt" || len(r.LargestDirs) != 1 || r.LargestDirs[0].Path != "a/b" {
		t.Errorf("largest: %+v %+v", r.LargestFiles, r.LargestDirs)
	}
	for _, f := range r.Files {
		if f.Content != "" {
			t.Errorf("%s: content with NoContent", f.Path)
		}
	}

	r, err = PackCached(t.Context(), ws, Options{Include: []string{"a/b/y.go"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.Write(&b, ctxd.FormatXML); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "&lt;tag&gt;&amp;") || strings.Contains(b.String(), "<tag>") {
		t.Errorf("xml not escaped:\n%s", b.String())
	}
	b.Reset()
	if err := r.WriteTree(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "y.go") || !strings.Contains(b.String(), "total ") ||
		!strings.Contains(b.String(), "largest files: a/b/y.go (") || !strings.Contains(b.String(), "(1 file)") {
		t.Errorf("tree:\n%s", b.String())
	}

	if _, err := PackCached(t.Context(), ws, Options{Include: []string{"a/[b"}}, nil); !errors.Is(err, ctxd.ErrInvalidParams) {
		t.Errorf("bad glob: %v", err)
	}
	if _, err := ParseFormat("yaml"); !errors.Is(err, ctxd.ErrInvalidParams) {
		t.Errorf("bad format: %v", err)
	}
	// The prompt formats and json, by one table.
	for in, want := range map[string]ctxd.Format{"": ctxd.FormatMarkdown, " MD ": ctxd.FormatMarkdown, "xml": ctxd.FormatXML, "JSON": FormatJSON} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// FuzzWriteEscaped: any text comes back from an XML parser as it went in
// (invalid UTF-8 and characters XML cannot hold as U+FFFD).
func FuzzWriteEscaped(f *testing.F) {
	for _, s := range []string{"", "plain", "<a href=\"x\">&amp;</a>", "a\r\nb\tc\x00d\x1fe", "\xff\xfe bad", "日本語 ]]> 'q'", "\uFFFE\uFFFF"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b strings.Builder
		bw := bufio.NewWriter(&b)
		bw.WriteString("<a>")
		writeEscaped(bw, s)
		bw.WriteString("</a>")
		bw.Flush()
		var got struct {
			Text string `xml:",chardata"`
		}
		if err := xml.Unmarshal([]byte(b.String()), &got); err != nil {
			t.Fatalf("%q: not XML: %v\n%s", s, err, b.String())
		}
		want := strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r != 0xFFFE && r != 0xFFFF && !(r >= 0xD800 && r <= 0xDFFF) {
				return r
			}
			return '\uFFFD'
		}, strings.ToValidUTF8(s, "\uFFFD"))
		if got.Text != want {
			t.Errorf("%q: round trip gave %q, want %q", s, got.Text, want)
		}
	})
}

// Counts persist: a fresh cache loaded from the file counts nothing again
// on an unchanged tree; a corrupt file is refused and counting starts over.
// largest never yields nil, so a pack with no directories lists
// largest_dirs as [] in JSON (ctx/pack, ctxd pack --json), not null.
func TestLargestEmptyIsArray(t *testing.T) {
	got := largest([]Dir(nil), 10, func(d Dir) int { return d.Tokens }, func(d Dir) string { return d.Path })
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "[]" {
		t.Errorf("largest of none encodes as %s, want []", b)
	}
}

func TestCachePersisted(t *testing.T) {
	ws := workspace(t, map[string]string{"a.go": "package a\n", "b/c.txt": "some text here\n"})
	path := filepath.Join(t.TempDir(), "idx", "pack-counts.bin")
	c := NewCache()
	first, err := PackCached(t.Context(), ws, Options{}, c)
	if err != nil {
		t.Fatal(err)
	}
	if c.added != 2 {
		t.Fatalf("first pack counted %d files, want 2", c.added)
	}
	if err := c.saveFile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), ".gitignore")); err != nil {
		t.Errorf("no .gitignore beside the counts: %v", err)
	}
	c2 := NewCache()
	if err := c2.loadFile(path); err != nil {
		t.Fatal(err)
	}
	second, err := PackCached(t.Context(), ws, Options{}, c2)
	if err != nil {
		t.Fatal(err)
	}
	if c2.added != 0 {
		t.Errorf("a loaded cache counted %d files again", c2.added)
	}
	if first.Tokens != second.Tokens || first.Tokens == 0 {
		t.Errorf("totals %d then %d", first.Tokens, second.Tokens)
	}
	b, _ := os.ReadFile(path)
	for _, bad := range [][]byte{b[:len(b)-1], append([]byte("X"), b[1:]...), {}} {
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := NewCache().loadFile(path); err == nil {
			t.Errorf("corrupt cache (%d bytes) loaded", len(bad))
		}
	}
}

func FuzzCacheLoad(f *testing.F) {
	f.Add([]byte(cacheMagic))
	f.Fuzz(func(t *testing.T, body []byte) {
		sum := sha256.Sum256(body)
		path := filepath.Join(t.TempDir(), "c.bin")
		os.WriteFile(path, append(append([]byte(nil), body...), sum[:]...), 0o644)
		NewCache().loadFile(path) // must not panic or allocate without bound
	})
}

// Secrets inside packed files are replaced by markers, as in prompts, and
// a cached text is redacted again on every pack.
func TestPackRedacts(t *testing.T) {
	src, err := os.ReadFile("../secrets/testdata/config.py")
	if err != nil {
		t.Fatal(err)
	}
	ws := workspace(t, map[string]string{"app/config.py": string(src), "app/main.py": "print('hi')\n"})
	c := NewCache()
	for pass := range 2 {
		r, err := PackCached(t.Context(), ws, Options{}, c)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := r.Write(&b, ctxd.FormatMarkdown); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"AKIA454ML6LG4TJFCZ4K", "ghp_AeKOmXRrvftva9AW7hipTgadDZFlRJmCGmUX"} {
			if strings.Contains(b.String(), s) {
				t.Errorf("pass %d: secret %s in the pack", pass, s)
			}
		}
		if !strings.Contains(b.String(), "[REDACTED aws-access-token]") || r.Redacted == 0 || r.Files[0].Redacted == 0 || r.Files[1].Redacted != 0 {
			t.Errorf("pass %d: redactions %d, files %+v", pass, r.Redacted, r.Files)
		}
	}
}

// TestPackKinds: each file gets a kind and the pack totals them, largest
// first, in the result, the summary and the token tree.
func TestPackKinds(t *testing.T) {
	ws := workspace(t, map[string]string{
		"app/main.go":         "package main\n\nfunc main() {}\n",
		"app/main_test.go":    "package main\n\nimport \"testing\"\n\nfunc TestMain(t *testing.T) {}\n",
		"app/api.pb.go":       "package main\n",
		"app/zz_deepcopy.go":  "// Code generated by deepcopy-gen. DO NOT EDIT.\n\npackage main\n",
		"README.md":           "# app\n\nIt runs.\n",
		"deploy/values.yaml":  "replicas: 2\n",
		"web/src/app.test.ts": "test('x', () => {})\n",
	})
	r := packed(t, ws, Options{NoContent: true})
	want := map[string]string{"app/main.go": KindSource, "app/main_test.go": KindTest, "app/api.pb.go": KindGenerated, "app/zz_deepcopy.go": KindGenerated,
		"README.md": KindDocs, "deploy/values.yaml": KindData, "web/src/app.test.ts": KindTest}
	for _, f := range r.Files {
		if f.Kind != want[f.Path] {
			t.Errorf("%s: kind %q, want %q", f.Path, f.Kind, want[f.Path])
		}
	}
	sum, files := 0, 0
	for i, k := range r.Kinds {
		sum += k.Tokens
		files += k.Files
		if i > 0 && k.Tokens > r.Kinds[i-1].Tokens {
			t.Errorf("kinds not largest first: %+v", r.Kinds)
		}
	}
	if sum != r.Tokens || files != len(r.Files) || len(r.Kinds) != 5 {
		t.Errorf("kinds %+v: %d tokens in %d files, pack %d in %d", r.Kinds, sum, files, r.Tokens, len(r.Files))
	}
	md, tree := rendered(t, r)
	if !strings.Contains(md, "## By kind\n\n") || !strings.Contains(tree, "by kind: ") || !strings.Contains(tree, "generated ") {
		t.Errorf("no kinds line:\n%s\n%s", md, tree)
	}
}

// TestPackSecretFiles: secret files are left out and listed (result,
// summary, token tree); an Include naming one packs it, secrets inside
// redacted; a glob never does; an Include matching nothing beside one
// that matches is warned about.
func TestPackSecretFiles(t *testing.T) {
	ws := workspace(t, map[string]string{
		"app/main.py":     "print('hi')\n",
		".env":            "DB_PASSWORD=Zx8#kq2LmN\nPORT=8080\n",
		"deploy/id_rsa":   "-----BEGIN OPENSSH PRIVATE KEY-----\n",
		"deploy/notes.md": "# deploy\n",
	})
	tests := []struct {
		name     string
		opts     Options
		paths    string
		secret   string
		warnings string
	}{
		{"default", Options{}, "app/main.py deploy/notes.md", ".env deploy/id_rsa", ""},
		{"named", Options{Include: []string{".env", "app/*"}}, ".env app/main.py", "", ""},
		{"glob is not consent", Options{Include: []string{".*"}}, "", ".env", ""},
		{"subtree", Options{Path: "deploy"}, "deploy/notes.md", "deploy/id_rsa", ""},
		// A Path naming the file consents as an Include of its path does
		// (it packed nothing, exit 0).
		{"path names it", Options{Path: ".env"}, ".env", "", ""},
		{"path names a key", Options{Path: "deploy/id_rsa"}, "deploy/id_rsa", "", ""},
		{"no match", Options{Include: []string{"*.rb", "app/*"}}, "app/main.py", "", "--include *.rb matched no file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := packed(t, ws, tt.opts)
			var paths []string
			for _, f := range r.Files {
				paths = append(paths, f.Path)
				if strings.Contains(f.Content, "Zx8#kq2LmN") {
					t.Errorf("%s holds the password:\n%s", f.Path, f.Content)
				}
			}
			if got := strings.Join(paths, " "); got != tt.paths {
				t.Errorf("files %q, want %q", got, tt.paths)
			}
			if got := strings.Join(r.Secret, " "); got != tt.secret {
				t.Errorf("secret files %q, want %q", got, tt.secret)
			}
			if got := strings.Join(r.Warnings, "; "); got != tt.warnings {
				t.Errorf("warnings %q, want %q", got, tt.warnings)
			}
			md, tree := rendered(t, r)
			for _, p := range r.Secret {
				if !strings.Contains(md, "- "+p+"\n") || !strings.Contains(tree, " "+p) {
					t.Errorf("secret file %s not listed:\n%s\n%s", p, md, tree)
				}
			}
		})
	}
}

// TestPackIncludeMatchesNothing: when no Include matches a file the pack
// is refused as a bad parameter (an empty pack is a mistyped glob, and
// the command line wrote one and exited 0), naming the globs and the
// subtree; a glob that matches only a secret file is not refused (the
// secret file is listed).
func TestPackIncludeMatchesNothing(t *testing.T) {
	ws := workspace(t, map[string]string{
		"app/main.py": "print('hi')\n",
		".env":        "PORT=8080\n",
	})
	tests := []struct {
		name string
		opts Options
		want string // "" for no error
	}{
		{"glob", Options{Include: []string{"nosuch/*"}}, "pack: --include nosuch/* matched no file"},
		{"every glob", Options{Include: []string{"*.rb", "lib/**"}}, "pack: --include *.rb, --include lib/** matched no file"},
		{"subtree", Options{Path: "app", Include: []string{"lib/**"}}, "pack: --include lib/** matched no file under app"},
		{"one matches", Options{Include: []string{"*.rb", "app/*"}}, ""},
		{"a secret file only", Options{Include: []string{".*"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := PackCached(t.Context(), ws, tt.opts, nil)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("error %v, want a pack", err)
				}
				return
			}
			if !errors.Is(err, ctxd.ErrInvalidParams) || ctxd.Message(err) != tt.want {
				t.Fatalf("got %v (%v), want %q (invalid params)", r, err, tt.want)
			}
		})
	}
}

// TestPackAssets: lockfiles, minified bundles and large data files are
// left out by default and named in the result and the summary; the
// option (or an Include glob naming them) packs them.
func TestPackAssets(t *testing.T) {
	big := strings.Repeat(`{"k": "v"},`+"\n", AssetMinBytes/10)
	ws := workspace(t, map[string]string{
		"main.go":            "package main\n\nfunc main() {}\n",
		"package-lock.json":  `{"lockfileVersion": 3}`,
		"go.sum":             "example.com/x v1.0.0 h1:abc=\n",
		"web/app.min.js":     "function a(){}",
		"web/logo.svg":       "<svg>" + strings.Repeat("<path d=\"M0 0\"/>", AssetMinBytes/16) + "</svg>",
		"web/icon.svg":       "<svg></svg>",
		"data/big.json":      big,
		"data/small.json":    `{"small": true}`,
		"config/large.yaml":  strings.Repeat("key: value\n", AssetMinBytes/10),
		"testdata/huge.txt":  strings.Repeat("words ", AssetMinBytes/5),
		"src/generated.go":   "package src\n\n" + strings.Repeat("var x = 1\n", AssetMinBytes/10),
		"docs/README.md":     "# Docs\n",
		"web/app.js.map":     `{"version":3}`,
		"notes/lockfile.txt": "not a lockfile\n",
		"web/bundle.js":      "var a=1;" + strings.Repeat("b=a+1;", AssetMinBytes/4) + "\n",
	})
	paths := func(r *Result) (packed, left string) {
		var p, l []string
		for _, f := range r.Files {
			p = append(p, f.Path)
		}
		for _, x := range r.Excluded {
			l = append(l, x.Path+"="+x.Reason)
		}
		return strings.Join(p, " "), strings.Join(l, " ")
	}
	tests := []struct {
		name         string
		opts         Options
		packed, left string
	}{
		{"default", Options{},
			"config/large.yaml data/small.json docs/README.md main.go notes/lockfile.txt src/generated.go web/icon.svg",
			"data/big.json=large data file go.sum=lockfile package-lock.json=lockfile testdata/huge.txt=large data file " +
				"web/app.js.map=minified or source map web/app.min.js=minified or source map web/bundle.js=minified or source map " +
				"web/logo.svg=large data file"},
		{"include assets", Options{IncludeAssets: true},
			"config/large.yaml data/big.json data/small.json docs/README.md go.sum main.go notes/lockfile.txt package-lock.json " +
				"src/generated.go testdata/huge.txt web/app.js.map web/app.min.js web/bundle.js web/icon.svg web/logo.svg", ""},
		{"include glob names them", Options{Include: []string{"web/**"}},
			"web/app.js.map web/app.min.js web/bundle.js web/icon.svg web/logo.svg", ""},
		{"path names one", Options{Path: "package-lock.json"}, "package-lock.json", ""},
		{"path names a large data file", Options{Path: "./data/big.json"}, "data/big.json", ""},
		{"path a directory of them", Options{Path: "data"}, "data/small.json", "data/big.json=large data file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := packed(t, ws, tt.opts)
			packed, left := paths(r)
			if packed != tt.packed {
				t.Errorf("packed\n%s\nwant\n%s", packed, tt.packed)
			}
			if left != tt.left {
				t.Errorf("left out\n%s\nwant\n%s", left, tt.left)
			}
			md, tree := rendered(t, r)
			named := strings.Contains(md, "Left out as assets") && strings.Contains(tree, "left out as assets")
			if named != (tt.left != "") {
				t.Errorf("summary names the assets: %v, want %v", named, tt.left != "")
			}
			for _, x := range r.Excluded {
				if !strings.Contains(md, "- "+x.Path+":") {
					t.Errorf("summary does not name %s", x.Path)
				}
			}
		})
	}
}

// failingWriter fails every write after the first n bytes.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n < len(p) {
		return 0, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

// TestWriteOrdered: batches rendered on several workers come out in the
// files' order, as one pass would write them, and a failed write is
// returned once every worker is done.
func TestWriteOrdered(t *testing.T) {
	var files []File
	for i := range 300 {
		files = append(files, File{Path: fmt.Sprint("f", i), Content: strings.Repeat(fmt.Sprint(i, " "), 1+i*37%9000)})
	}
	render := func(b *bytes.Buffer, f File) { fmt.Fprintf(b, "<%s>%s</%s>\n", f.Path, f.Content, f.Path) }
	var want bytes.Buffer
	for _, f := range files {
		render(&want, f)
	}
	if want.Len() < 3*writeBatchBytes {
		t.Fatalf("%d bytes: want several batches", want.Len())
	}
	var got bytes.Buffer
	if err := writeOrdered(&got, files, render); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("writeOrdered wrote %d bytes, not the %d of one pass in order", got.Len(), want.Len())
	}
	if err := writeOrdered(&failingWriter{n: writeBatchBytes}, files, render); err == nil {
		t.Error("a failing writer: want an error")
	}
	if err := writeOrdered(&got, nil, render); err != nil {
		t.Errorf("no files: %v", err)
	}
}

// TestWriteTreeDepth: --depth N prints N levels below the root; deeper
// directories show as their totals only.
func TestWriteTreeDepth(t *testing.T) {
	ws := workspace(t, map[string]string{"a/b/c/x.go": "package c\n", "a/y.go": "package a\n", "z.go": "package z\n"})
	r := packed(t, ws, Options{NoContent: true})
	tests := []struct {
		depth      int
		has, lacks []string
	}{
		{0, []string{"a/", "b/", "c/", "x.go", "y.go", "z.go"}, nil},
		{1, []string{"a/ (2 files)", "z.go"}, []string{"b/", "y.go"}},
		{2, []string{"a/", "b/ (1 file)", "y.go", "z.go"}, []string{"c/", "x.go"}},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := r.WriteTreeDepth(&b, tt.depth); err != nil {
			t.Fatal(err)
		}
		tree, _, _ := strings.Cut(b.String(), "total ") // the summary lines name deeper paths
		for _, s := range tt.has {
			if !strings.Contains(tree, s) {
				t.Errorf("depth %d: no %q in\n%s", tt.depth, s, tree)
			}
		}
		for _, s := range tt.lacks {
			if strings.Contains(tree, s) {
				t.Errorf("depth %d: %q in\n%s", tt.depth, s, tree)
			}
		}
	}
}

// rendered is r as a Markdown pack and as a token tree.
func rendered(t *testing.T, r *Result) (md, tree string) {
	t.Helper()
	var m, tr strings.Builder
	if err := r.Write(&m, ctxd.FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteTree(&tr); err != nil {
		t.Fatal(err)
	}
	return m.String(), tr.String()
}

// TestPackNotText: binary files are left out and named with the reason in
// the result, the summary, the XML summary and the token tree, never
// dropped silently.
func TestPackNotText(t *testing.T) {
	ws := workspace(t, map[string]string{
		"app/main.py":  "print('hi')\n",
		"img/logo.png": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00",
		"data.bin":     "\x00\x01\x02\x03binary\x00",
	})
	tests := []struct {
		name    string
		opts    Options
		paths   string
		notText string
	}{
		{"whole tree", Options{}, "app/main.py", "data.bin (binary, 11 bytes) img/logo.png (binary, 18 bytes)"},
		{"one binary file", Options{Path: "data.bin"}, "", "data.bin (binary, 11 bytes)"},
		{"subtree", Options{Path: "app"}, "app/main.py", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := packed(t, ws, tt.opts)
			var paths, notText []string
			for _, f := range r.Files {
				paths = append(paths, f.Path)
			}
			for _, x := range r.NotText {
				notText = append(notText, fmt.Sprintf("%s (%s, %d bytes)", x.Path, x.Reason, x.Bytes))
			}
			if got := strings.Join(paths, " "); got != tt.paths {
				t.Errorf("files %q, want %q", got, tt.paths)
			}
			if got := strings.Join(notText, " "); got != tt.notText {
				t.Errorf("not text %q, want %q", got, tt.notText)
			}
			md, tree := rendered(t, r)
			var xml strings.Builder
			if err := r.Write(&xml, ctxd.FormatXML); err != nil {
				t.Fatal(err)
			}
			for _, x := range r.NotText {
				if !strings.Contains(md, fmt.Sprintf("- %s: %d bytes, binary\n", x.Path, x.Bytes)) ||
					!strings.Contains(tree, " "+x.Path+" (binary)") ||
					!strings.Contains(xml.String(), `<excluded path="`+x.Path+`" bytes="`) {
					t.Errorf("%s not named:\n%s\n%s\n%s", x.Path, md, tree, xml.String())
				}
			}
		})
	}
}

// TestPackDirTree: the markdown and XML packs carry a directory structure
// section, each directory once above what it holds.
func TestPackDirTree(t *testing.T) {
	ws := workspace(t, map[string]string{
		"main.go":          "package main\n",
		"lib/util.go":      "package lib\n",
		"lib/deep/x.go":    "package deep\n",
		"lib/z.go":         "package lib\n",
		"lib2/a.go":        "package lib2\n",
		"docs/guide.md":    "# guide\n",
		"docs/img/logo.md": "logo\n",
	})
	r := packed(t, ws, Options{})
	want := "docs/\n  guide.md\n  img/\n    logo.md\nlib/\n  deep/\n    x.go\n  util.go\n  z.go\nlib2/\n  a.go\nmain.go\n"
	var md, xml strings.Builder
	if err := r.Write(&md, ctxd.FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	if err := r.Write(&xml, ctxd.FormatXML); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "## Directory structure\n\n```\n"+want+"```\n\n## Files\n") {
		t.Errorf("markdown has no directory structure %q:\n%s", want, md.String())
	}
	if !strings.Contains(xml.String(), "<directory_structure>\n"+want+"</directory_structure>\n") {
		t.Errorf("XML has no directory structure %q:\n%s", want, xml.String())
	}
}

// TestSplit: each part of a split pack counts at most the limit as
// rendered, the parts hold every file once in path order, the first one
// the summary and the tree; a file too large alone is an error naming it.
func TestSplit(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("pkg%d/file%02d.go", i%4, i)] = fmt.Sprintf("package pkg\n\n// F%d adds.\nfunc F%d(a, b int) int {\n\treturn a + b + %d\n}\n", i, i, i)
	}
	files["big/huge.go"] = "package big\n\n" + strings.Repeat("var x = \"the quick brown fox jumps over the lazy dog\"\n", 60)
	ws := workspace(t, files)
	counter, err := tokens.Get(DefaultEncoding)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []ctxd.Format{ctxd.FormatMarkdown, ctxd.FormatXML} {
		t.Run(string(format), func(t *testing.T) {
			r, err := PackCached(t.Context(), ws, Options{Exclude: []string{"big"}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			const limit = 600
			parts, err := r.Split(limit, format)
			if err != nil {
				t.Fatal(err)
			}
			if len(parts) < 3 {
				t.Fatalf("%d parts of a %d-token pack at %d tokens each", len(parts), r.Tokens, limit)
			}
			var paths []string
			for i, p := range parts {
				var b strings.Builder
				if err := p.Write(&b, format); err != nil {
					t.Fatal(err)
				}
				if n := counter.Count(b.String()); n > limit {
					t.Errorf("part %d: %d tokens, over %d", i+1, n, limit)
				}
				if p.Part != i+1 || p.Parts != len(parts) {
					t.Errorf("part %d numbered %d of %d", i+1, p.Part, p.Parts)
				}
				hasTree := strings.Contains(b.String(), "Directory structure") || strings.Contains(b.String(), "<directory_structure>")
				if hasTree != (i == 0) {
					t.Errorf("part %d: directory structure %v", i+1, hasTree)
				}
				for _, f := range p.Files {
					paths = append(paths, f.Path)
				}
			}
			var want []string
			for _, f := range r.Files {
				want = append(want, f.Path)
			}
			if fmt.Sprint(paths) != fmt.Sprint(want) {
				t.Errorf("parts hold %v, want %v", paths, want)
			}
		})
	}
	r := packed(t, ws, Options{})
	if _, err := r.Split(600, ctxd.FormatMarkdown); err == nil || !strings.Contains(err.Error(), "big/huge.go") {
		t.Errorf("a file over the limit: %v, want an error naming big/huge.go", err)
	}
	if _, err := r.Split(600, FormatJSON); err == nil {
		t.Errorf("json split: no error")
	}
}

// saveFile writes c to path when it learned counts, as the workspace store
// does.
func (c *Cache) saveFile(path string) error {
	b, ok := c.AppendBinary(nil)
	if !ok {
		return nil
	}
	return index.WriteAtomic(path, b)
}

// loadFile reads the counts at path into c, as the workspace store does.
func (c *Cache) loadFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return c.Decode(b)
}

// TestSummaryLeavesOutEmptySections: a flat tree's pack has no "Largest
// directories" heading standing alone with nothing under it (a new user's
// one-file pack showed it), and an empty pack no "Largest files" one.
func TestSummaryLeavesOutEmptySections(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string
		opts  Options
		not   []string
		want  []string
	}{
		{"flat", map[string]string{"a.py": "def f():\n    pass\n"}, Options{}, []string{"Largest directories"}, []string{"## Largest files\n\n- a.py: "}},
		{"nested", map[string]string{"a.py": "x = 1\n", "pkg/b.py": "y = 2\n"}, Options{}, nil, []string{"## Largest files\n\n", "## Largest directories\n\n- pkg/: "}},
		{"empty", map[string]string{"a.py": "x = 1\n"}, Options{Exclude: []string{"*.py"}}, []string{"Largest files", "Largest directories"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := packed(t, workspace(t, tt.files), tt.opts).Write(&b, ctxd.FormatMarkdown); err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.not {
				if strings.Contains(b.String(), s) {
					t.Errorf("pack has %q:\n%s", s, b.String())
				}
			}
			for _, s := range tt.want {
				if !strings.Contains(b.String(), s) {
					t.Errorf("pack lacks %q:\n%s", s, b.String())
				}
			}
		})
	}
}

// TestPackOverlay: a pack reads an editor's unsaved buffers as gathering
// does (Options.Overlay): a buffer's text replaces the file on disk, a
// buffer of a file not on disk or ignored joins the pack, a secret file's
// buffer only when named, one under the state directory never, and the
// selection and asset rules apply to buffers as to files.
func TestPackOverlay(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		".gitignore":   "scratch/\n",
		"a/x.go":       "package a\n\nfunc X() int { return 1 }\n",
		"a/y.go":       "package a\n\nvar Y = 2\n",
		"scratch/n.go": "package scratch\n\nvar Disk = 0\n",
	})
	overlay := map[string]string{
		"a/x.go":              "package a\n\nfunc X() int { return 42 } // edited\n",
		"a/new.go":            "package a\n\nfunc New() {} // only in the editor\n",
		"scratch/n.go":        "package scratch\n\nvar Buffer = 1 // ignored, being edited\n",
		".env":                "GITHUB_TOKEN=ghp_Zq8xW3mN5vB7kL2pR9tY4uH6jF1dS0aQ3eXc\n",
		".ctxd/notes.txt":     "state dir\n",
		"b/package-lock.json": `{"lockfileVersion": 3}` + "\n",
	}
	tests := []struct {
		name   string
		opts   Options
		want   map[string]string // path: text its content holds
		absent []string
		secret []string
		assets []string
	}{
		{
			name:   "whole",
			opts:   Options{},
			want:   map[string]string{"a/x.go": "return 42", "a/new.go": "only in the editor", "a/y.go": "var Y = 2", "scratch/n.go": "var Buffer = 1"},
			absent: []string{".env", ".ctxd/notes.txt", "b/package-lock.json"},
			secret: []string{".env"},
			assets: []string{"b/package-lock.json"},
		},
		{
			name:   "subtree",
			opts:   Options{Path: "scratch"},
			want:   map[string]string{"scratch/n.go": "var Buffer = 1"},
			absent: []string{"a/x.go", "a/new.go", ".env"},
		},
		{
			name:   "exclude",
			opts:   Options{Exclude: []string{"new.go", "scratch"}},
			want:   map[string]string{"a/x.go": "return 42"},
			absent: []string{"a/new.go", "scratch/n.go"},
			secret: []string{".env"},
			assets: []string{"b/package-lock.json"},
		},
		{
			name:   "secret named",
			opts:   Options{Include: []string{".env", "*.go"}},
			want:   map[string]string{".env": "GITHUB_TOKEN=[REDACTED", "a/new.go": "only in the editor"},
			absent: []string{".ctxd/notes.txt"},
		},
		{
			name: "secret named by path",
			opts: Options{Path: ".env"},
			want: map[string]string{".env": "GITHUB_TOKEN=[REDACTED"},
		},
		{
			name:   "assets included",
			opts:   Options{IncludeAssets: true},
			want:   map[string]string{"b/package-lock.json": "lockfileVersion"},
			secret: []string{".env"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := tree.Open(dir, tree.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			tt.opts.Overlay = overlay
			r := packed(t, ws, tt.opts)
			got := map[string]string{}
			var paths []string
			for _, f := range r.Files {
				got[f.Path] = f.Content
				paths = append(paths, f.Path)
			}
			if !slices.IsSorted(paths) {
				t.Errorf("files not in path order: %v", paths)
			}
			for p, text := range tt.want {
				if c, ok := got[p]; !ok || !strings.Contains(c, text) {
					t.Errorf("%s: packed %v, content %q, want it holding %q", p, ok, c, text)
				}
			}
			for _, p := range tt.absent {
				if _, ok := got[p]; ok {
					t.Errorf("%s packed: %q", p, got[p])
				}
			}
			if c := got["a/x.go"]; strings.Contains(c, "return 1 ") {
				t.Errorf("a/x.go packed from disk: %q", c)
			}
			if c := got[".env"]; strings.Contains(c, "ghp_Zq8") {
				t.Errorf(".env packed unredacted: %q", c)
			}
			if !slices.Equal(r.Secret, tt.secret) {
				t.Errorf("secret files %v, want %v", r.Secret, tt.secret)
			}
			var assets []string
			for _, x := range r.Excluded {
				assets = append(assets, x.Path)
			}
			if !slices.Equal(assets, tt.assets) {
				t.Errorf("assets %v, want %v", assets, tt.assets)
			}
			var b strings.Builder
			if err := r.Write(&b, ctxd.FormatMarkdown); err != nil {
				t.Fatal(err)
			}
			for p := range tt.want {
				if !strings.Contains(b.String(), "### "+p+" (") {
					t.Errorf("the rendered pack has no section for %s", p)
				}
			}
		})
	}
}
