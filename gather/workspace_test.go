package gather

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/workspace/tree"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/query"
)

// secretTree holds secret-like files in many forms next to ordinary code.
var secretTree = map[string]string{
	"main.go":                  "package main\n\n// main loads the token from the environment.\nfunc main() { loadToken() }\n",
	"token.go":                 "package main\n\nfunc loadToken() string { return \"\" }\n",
	".env":                     "TOKEN=hunter2\n",
	".env.production":          "TOKEN=prod-hunter2\n",
	".env.example":             "TOKEN=\n",
	".envrc":                   "export TOKEN=hunter2\n",
	"certs/server.pem":         "-----BEGIN PRIVATE KEY-----\n",
	"certs/server.key":         "-----BEGIN PRIVATE KEY-----\n",
	"deploy/id_rsa":            "-----BEGIN OPENSSH PRIVATE KEY-----\n",
	"deploy/id_ed25519":        "-----BEGIN OPENSSH PRIVATE KEY-----\n",
	".npmrc":                   "//registry.npmjs.org/:_authToken=hunter2\n",
	".netrc":                   "machine example.com password hunter2\n",
	".git-credentials":         "https://u:hunter2@example.com\n",
	"config/credentials.json":  "{\"token\": \"hunter2\"}\n",
	"config/secrets.yaml":      "token: hunter2\n",
	".aws/credentials":         "[default]\naws_secret_access_key=hunter2\n",
	"android/release.keystore": "hunter2",
}

func secretSources(res *Result) []string {
	var out []string
	for _, c := range res.Chunks {
		if c.ChunkType == ctxd.ChunkFile && lang.IsSecret(c.Source) {
			out = append(out, c.Source)
		}
		if strings.Contains(c.Content, "hunter2") {
			out = append(out, "content of "+c.Source)
		}
	}
	return out
}

// TestSecretsNeverGathered: no broad source (walk, glob, relevance, task,
// mention, stack trace, structure) ever yields a secret file or its text.
func TestSecretsNeverGathered(t *testing.T) {
	testutil.IsolateGit(t)
	root := t.TempDir()
	testutil.GitInit(t, root)
	testutil.WriteFiles(t, root, secretTree)
	w := newTestWorkspace(t, root, tree.Options{})
	requests := []Request{
		{Task: ctxd.TaskAnalyze, Query: query.Parse("explain the token environment credentials secrets keystore")},
		{Task: ctxd.TaskImplement, Query: query.Parse("use the token from .env and .env.production and config/credentials.json"), Patterns: []string{"**", "**/*", ".env*", "certs/*", "config/**"}},
		{Task: ctxd.TaskDebug, Query: query.Parse("panic at .env:1:1\n  File \"config/secrets.yaml\", line 1, in load\n\t" + filepath.Join(root, "certs", "server.key") + ":1 +0x1\n")},
		{Task: ctxd.TaskRefactor, Query: query.Parse("rename TOKEN in .npmrc .netrc .git-credentials id_rsa id_ed25519 server.pem .aws/credentials release.keystore .envrc")},
		{Task: ctxd.TaskTest, Query: query.Parse("hunter2 token")},
	}
	for _, r := range requests {
		t.Run(string(r.Task), func(t *testing.T) {
			res := gather(t, w, r)
			if got := secretSources(res); len(got) > 0 {
				t.Errorf("secret files gathered: %v", got)
			}
			st := chunk(res, "structure")
			if st == nil {
				t.Fatal("no structure chunk")
			}
			for p := range secretTree {
				if lang.IsSecret(p) && strings.Contains(st.Content, filepath.Base(p)+"\n") {
					t.Errorf("structure lists secret file %s:\n%s", p, st.Content)
				}
			}
		})
	}
	// .env.example documents variables and is not secret.
	res := gather(t, w, Request{Task: ctxd.TaskImplement, Query: query.Parse("fill in .env.example")})
	if chunk(res, ".env.example") == nil {
		t.Errorf(".env.example not gathered from a mention; got %v", sources(res))
	}
}

// TestSecretsExplicit: naming a secret file as an open file or a literal
// pattern is consent.
func TestSecretsExplicit(t *testing.T) {
	testutil.IsolateGit(t)
	root := t.TempDir()
	testutil.WriteFiles(t, root, secretTree)
	w := newTestWorkspace(t, root, tree.Options{})
	res := gather(t, w, Request{
		Task:      ctxd.TaskDebug,
		OpenFiles: []ctxd.OpenFile{{Path: ".env", Line: 1}},
		Patterns:  []string{"config/credentials.json", filepath.Join(root, "certs", "server.pem")},
	})
	for _, want := range []string{".env", "config/credentials.json", "certs/server.pem"} {
		c := chunk(res, want)
		if c == nil {
			t.Errorf("%s not gathered though named explicitly; got %v", want, sources(res))
			continue
		}
		if !c.Facts.Explicit {
			t.Errorf("%s: Facts.Explicit not set", want)
		}
	}
	if c := chunk(res, ".env.production"); c != nil {
		t.Error(".env.production gathered but only .env was named")
	}
}

// TestIgnoredNeverGathered: .gitignored, excluded and .ctxdignored files
// do not appear through any broad source, nor in the structure.
func TestIgnoredNeverGathered(t *testing.T) {
	testutil.IsolateGit(t)
	root := t.TempDir()
	testutil.GitInit(t, root)
	testutil.WriteFiles(t, root, map[string]string{
		".gitignore":             "dist/\n*.gen.go\n",
		".ctxdignore":            "private/\n",
		"src/parser.go":          "package src\n\n// Parse parses the widget grammar.\nfunc Parse() {}\n",
		"dist/parser.js":         "// Parse parses the widget grammar (bundled)\n",
		"src/parser.gen.go":      "package src\n\n// Parse parses the widget grammar (generated).\n",
		"private/parser_note.md": "the widget grammar parser notes\n",
		".git/parser.txt":        "widget grammar parser",
		".ctxd/cache/parser.txt": "widget grammar parser",
	})
	w := newTestWorkspace(t, root, tree.Options{})
	for _, task := range ctxd.TaskTypes {
		res := gather(t, w, Request{Task: task, Query: query.Parse("the widget grammar parser in dist/parser.js and src/parser.gen.go"), Patterns: []string{"**/*parser*"}})
		for _, s := range sources(res) {
			switch s {
			case "src/parser.go", ".gitignore", ".ctxdignore":
			default:
				t.Errorf("%s: gathered ignored file %s", task, s)
			}
		}
		if chunk(res, "src/parser.go") == nil {
			t.Errorf("%s: src/parser.go missing", task)
		}
		st := chunk(res, "structure").Content
		for _, bad := range []string{"dist", "gen.go", "private", ".git/", ".ctxd/", "cache"} {
			if strings.Contains(st, bad) {
				t.Errorf("%s: structure shows %q:\n%s", task, bad, st)
			}
		}
	}
	// An ignored file opened in the editor is explicit: gathered.
	res := gather(t, w, Request{Task: ctxd.TaskDebug, OpenFiles: []ctxd.OpenFile{{Path: "dist/parser.js"}}})
	if chunk(res, "dist/parser.js") == nil {
		t.Errorf("open ignored file not gathered: %v", sources(res))
	}
	// Nothing under .git or .ctxd, even when named.
	res = gather(t, w, Request{Task: ctxd.TaskDebug, Patterns: []string{".git/parser.txt"}, OpenFiles: []ctxd.OpenFile{{Path: ".ctxd/cache/parser.txt"}}})
	if s := sources(res); slices.Contains(s, ".git/parser.txt") || slices.Contains(s, ".ctxd/cache/parser.txt") {
		t.Errorf("state dirs gathered: %v", s)
	}
	if len(res.Warnings) < 2 {
		t.Errorf("want warnings for the refused state files, got %q", res.Warnings)
	}
}

func TestGatherOpenFilesAndOverlay(t *testing.T) {
	w := workspaceOf(t, map[string]string{
		"a.go":   "package a\n\nfunc A() {}\n",
		"b.go":   "package a\n\nfunc B() {}\n",
		"c.py":   "def c():\n    pass\n",
		"img.go": "package a\x00\x01binary",
	})
	buffer := "package a\n\nfunc A() { unsaved() }\n"
	res := gather(t, w, Request{
		Task: ctxd.TaskImplement,
		OpenFiles: []ctxd.OpenFile{
			{Path: "a.go", Line: 3, Selection: &ctxd.LineRange{Start: 3, End: 3}, Text: &buffer},
			{Path: "file://" + filepath.ToSlash(w.Root()) + "/b.go", Line: 2},
			{Path: "img.go"},
			{Path: "new.go", Text: ptr("package a\n")},
			{Path: "gone.go"},
		},
		Overlay: map[string]string{"c.py": "def c():\n    return 1\n"},
		Query:   query.Parse("look at c.py"),
	})
	a := chunk(res, "a.go")
	if a == nil {
		t.Fatalf("a.go missing: %v", sources(res))
	}
	if a.Content != buffer || !a.Facts.Unsaved || !a.Facts.Open || a.Facts.Cursor != 3 || a.Facts.Selection == nil || a.Priority != ctxd.PriorityCritical {
		t.Errorf("a.go: editor text and facts not kept: %+v", a.Facts)
	}
	sum := sha256.Sum256([]byte(buffer))
	if a.Hash != hex.EncodeToString(sum[:]) {
		t.Errorf("a.go hash = %s, want the hash of the buffer", a.Hash)
	}
	if b := chunk(res, "b.go"); b == nil || b.Facts.Unsaved || b.Content != "package a\n\nfunc B() {}\n" || b.Facts.ModTime.IsZero() {
		t.Errorf("b.go (file URI): %+v", b)
	}
	if c := chunk(res, "c.py"); c == nil || c.Content != "def c():\n    return 1\n" || !c.Facts.Unsaved || !c.Facts.Mentioned {
		t.Errorf("c.py overlay not used: %+v", c)
	}
	if chunk(res, "img.go") != nil {
		t.Error("binary file gathered")
	}
	if chunk(res, "new.go") == nil {
		t.Error("unsaved new buffer not gathered")
	}
	for _, want := range []string{"img.go: binary", "gone.go: no such file"} {
		if !slices.ContainsFunc(res.Warnings, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("no warning %q in %q", want, res.Warnings)
		}
	}
}

// TestStructureShowsBufferOnlyFiles: a file only open in the editor (an
// unsaved buffer, no file on disk) is gathered, so the workspace tree
// lists it too (it did not: the prompt held a file its layout lacked); a
// secret buffer is in neither; the tree without the buffer is as before.
func TestStructureShowsBufferOnlyFiles(t *testing.T) {
	w := workspaceOf(t, map[string]string{
		"a.go":     "package a\n\nfunc A() {}\n",
		"pkg/b.go": "package pkg\n\nfunc B() {}\n",
	})
	overlay := map[string]string{"pkg/tax.go": "package pkg\n\nfunc Tax() {}\n", "pkg/.env": "TOKEN=x\n"}
	for _, tt := range []struct {
		name    string
		overlay map[string]string
		want    string
	}{
		{"buffers", overlay, "./  (3 files, 1 dir)\n  pkg/\n    b.go\n    tax.go\n  a.go\n"},
		{"none", nil, "./  (2 files, 1 dir)\n  pkg/\n    b.go\n  a.go\n"},
	} {
		res := gather(t, w, Request{Task: ctxd.TaskImplement, Overlay: tt.overlay, Query: query.Parse("tax")})
		s := chunk(res, "structure")
		if s == nil {
			t.Fatalf("%s: no structure chunk: %v", tt.name, sources(res))
		}
		if s.Content != tt.want {
			t.Errorf("%s: structure %q, want %q", tt.name, s.Content, tt.want)
		}
		if tt.overlay != nil && chunk(res, "pkg/tax.go") == nil {
			t.Errorf("%s: the buffer-only file was not gathered: %v", tt.name, sources(res))
		}
	}
}

// TestStructureFitsTheBudget: a tree larger than a tenth of a known
// context budget is rendered shallower, to the deepest level that fits,
// so every top-level directory stays listed with its counts (the fitter
// cut a deep tree to its head and tail: `./`, the first directory and
// nothing else); an unknown or large budget keeps the request's depth.
func TestStructureFitsTheBudget(t *testing.T) {
	files := map[string]string{"main.go": "package main\n"}
	for _, top := range []string{"api", "core", "web"} {
		for _, mid := range []string{"alpha", "beta", "gamma", "delta"} {
			for i := range 6 {
				files[fmt.Sprintf("%s/%s/file_with_a_long_name_%d.go", top, mid, i)] = "package x\n"
			}
		}
	}
	w := workspaceOf(t, files)
	for _, tt := range []struct {
		name   string
		budget int
		depth  int // the depth the tree should have
	}{
		{"unknown budget", 0, 3},
		{"large budget", 100000, 3},
		{"middling budget", 2000, 2},
		{"small budget", 500, 1},
		{"tiny budget, depth 1 at least", 10, 1},
	} {
		res := gather(t, w, Request{Task: ctxd.TaskImplement, Query: query.Parse("alpha"), ContextBudget: tt.budget, StructureDepth: 3})
		s := chunk(res, "structure")
		if s == nil {
			t.Fatalf("%s: no structure chunk", tt.name)
		}
		for _, top := range []string{"api/", "core/", "web/", "main.go"} {
			if !strings.Contains(s.Content, top) {
				t.Errorf("%s: the tree lacks %s:\n%s", tt.name, top, s.Content)
			}
		}
		// Depth d lists the d-th level's names (indented 2d spaces) and
		// nothing deeper.
		deepest := 0
		for _, l := range strings.Split(strings.TrimSpace(s.Content), "\n")[1:] {
			deepest = max(deepest, (len(l)-len(strings.TrimLeft(l, " ")))/2)
		}
		if deepest != tt.depth {
			t.Errorf("%s: tree of depth %d, want %d:\n%s", tt.name, deepest, tt.depth, s.Content)
		}
		if want := fmt.Sprintf("workspace tree to depth %d", tt.depth); !strings.HasPrefix(s.Facts.Reasons[0], want) {
			t.Errorf("%s: reason %q, want it to start %q", tt.name, s.Facts.Reasons[0], want)
		}
		if tt.depth < 3 && tt.budget > 10 && len(s.Content) > tt.budget*4/10 {
			t.Errorf("%s: tree of %d bytes, over a tenth of %d tokens", tt.name, len(s.Content), tt.budget)
		}
	}
}

func TestGatherOutsideRoot(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"a.go": "package a\n"})
	testutil.WriteFiles(t, outside, map[string]string{"x.go": "package x\n"})
	if err := os.Symlink(filepath.Join(outside, "x.go"), filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	w := newTestWorkspace(t, root, tree.Options{})
	tests := []struct {
		name string
		req  Request
	}{
		{"open file dotdot", Request{OpenFiles: []ctxd.OpenFile{{Path: "../x.go"}}}},
		{"open file absolute", Request{OpenFiles: []ctxd.OpenFile{{Path: filepath.Join(outside, "x.go")}}}},
		{"open file symlink", Request{OpenFiles: []ctxd.OpenFile{{Path: "link.go"}}}},
		{"literal pattern", Request{Patterns: []string{"../" + filepath.Base(outside) + "/x.go"}}},
		{"glob pattern", Request{Patterns: []string{"../**/*.go"}}},
		{"absolute glob", Request{Patterns: []string{filepath.Join(outside, "*.go")}}},
		{"overlay", Request{Overlay: map[string]string{"../x.go": "package x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Task = ctxd.TaskImplement
			_, err := Gather(t.Context(), w, tt.req)
			if !errors.Is(err, ctxd.ErrOutsideRoot) {
				t.Fatalf("err = %v, want ErrOutsideRoot", err)
			}
		})
	}
	// The walk never follows the symlink either.
	res := gather(t, w, Request{Task: ctxd.TaskAnalyze, Patterns: []string{"**/*.go"}})
	if d := cmp.Diff([]string{"a.go"}, sources(res)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestGatherPatternsAndCaps(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"big.txt": strings.Repeat("x", 2000)}
	for i := range 30 {
		files[filepath.ToSlash(filepath.Join("pkg", string(rune('a'+i%26))+strings.Repeat("x", i/26), "f.go"))] = "package p\n"
	}
	testutil.WriteFiles(t, root, files)
	w := newTestWorkspace(t, root, tree.Options{MaxFileBytes: 1000})
	res := gather(t, w, Request{Task: ctxd.TaskImplement, Patterns: []string{"pkg/**/*.go", "big.txt"}, MaxFiles: 10})
	// big.txt takes one of the 10 places and is then dropped for its size.
	n := len(sources(res))
	if n != 9 {
		t.Errorf("gathered %d files, want 9 (MaxFiles=10, one over the size cap): %v", n, sources(res))
	}
	for _, want := range []string{"matched 30 files", "big.txt: over the size cap"} {
		if !slices.ContainsFunc(res.Warnings, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("no warning %q in %q", want, res.Warnings)
		}
	}
	// A directory named without wildcards means its files.
	res = gather(t, w, Request{Task: ctxd.TaskImplement, Patterns: []string{"pkg/a"}})
	if d := cmp.Diff([]string{"pkg/a/f.go"}, sources(res)); d != "" {
		t.Errorf("directory pattern (-want +got):\n%s", d)
	}
	if res.FilesScanned != 31 {
		t.Errorf("FilesScanned = %d, want 31", res.FilesScanned)
	}
	for _, bad := range []string{"pkg/[", ""} {
		if _, err := Gather(t.Context(), w, Request{Task: ctxd.TaskImplement, Patterns: []string{bad}}); !errors.Is(err, ctxd.ErrInvalidParams) {
			t.Errorf("pattern %q: err = %v, want ErrInvalidParams", bad, err)
		}
	}
	if _, err := Gather(t.Context(), w, Request{}); !errors.Is(err, ctxd.ErrInvalidParams) {
		t.Errorf("no task: err = %v, want ErrInvalidParams", err)
	}
}

// TestGatherPatternNames: a glob without a slash matches a name at any
// depth, as pack's --include and .gitignore read it (--pattern '*.go'
// gathered nothing below the root, silently); a glob that matches no file,
// or only secret files, says so.
func TestGatherPatternNames(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"main.go": "package main\n", "pkg/a/f.go": "package a\n", "pkg/a/f.py": "x = 1\n",
		"tests/unit/t.py": "x = 2\n", ".env": "TOKEN=x\n", "docs/a.md": "# a\n",
	})
	w := newTestWorkspace(t, root, tree.Options{})
	tests := []struct {
		pattern string
		want    []string
		warning string
	}{
		{"*.go", []string{"main.go", "pkg/a/f.go"}, ""},
		{"tests", []string{"tests/unit/t.py"}, ""},
		{"test*", []string{"tests/unit/t.py"}, ""},
		{"pkg/*/*.py", []string{"pkg/a/f.py"}, ""},
		{"*.rs", nil, "pattern *.rs matched no file (a glob with a slash is read from the root, one without matches a name at any depth)"},
		{".env*", nil, "pattern .env* matched only secret files (1), which a glob never gathers: name one by its path"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			res := gather(t, w, Request{Task: ctxd.TaskImplement, Patterns: []string{tt.pattern}})
			var got []string
			for _, c := range res.Chunks {
				if slices.ContainsFunc(c.Facts.Reasons, func(r string) bool { return strings.HasPrefix(r, "pattern ") }) {
					got = append(got, c.Source)
				}
			}
			slices.Sort(got)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("gathered by the pattern (-want +got):\n%s", d)
			}
			if tt.warning != "" && !slices.Contains(res.Warnings, tt.warning) {
				t.Errorf("warnings %q lack %q", res.Warnings, tt.warning)
			}
		})
	}
}

// TestGatherPatternTwice: a pattern given twice is matched once, so its
// warning is said once (1,000 copies of a glob over the daemon gave 1,000
// equal warnings, each copy a walk of every file).
func TestGatherPatternTwice(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"main.go": "package main\n", "pkg/a/f.go": "package a\n"})
	w := newTestWorkspace(t, root, tree.Options{})
	res := gather(t, w, Request{Task: ctxd.TaskImplement, MaxFiles: 1, Patterns: []string{"*.rs", "*.go", "*.rs", "main.go", "*.go", "main.go"}})
	for _, want := range []string{
		"pattern *.rs matched no file (a glob with a slash is read from the root, one without matches a name at any depth)",
		"pattern *.go matched 2 files; kept the 1 that best match the request",
	} {
		if n := slices.Index(res.Warnings, want); n < 0 || slices.Contains(res.Warnings[n+1:], want) {
			t.Errorf("warnings %q: want %q once", res.Warnings, want)
		}
	}
	n := 0
	for _, c := range res.Chunks {
		if c.Source == "main.go" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("main.go gathered %d times, want once", n)
	}
}

func TestGatherCancelled(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 2000 {
		files[filepath.ToSlash(filepath.Join("d"+string(rune('a'+i%20)), "f"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+".go"))+string(rune('0'+i%10))] = "package p\n"
	}
	testutil.WriteFiles(t, root, files)
	w := newTestWorkspace(t, root, tree.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	t0 := time.Now()
	_, err := Gather(ctx, w, Request{Task: ctxd.TaskAnalyze, Query: query.Parse("anything")})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("cancelled Gather took %v", d)
	}
	// A deadline in the middle of the walk stops it too.
	ctx, cancel = context.WithTimeout(t.Context(), time.Millisecond)
	defer cancel()
	time.Sleep(2 * time.Millisecond)
	if _, err := Gather(ctx, w, Request{Task: ctxd.TaskAnalyze}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want DeadlineExceeded", err)
	}
}

// TestGatherConcurrent runs Gathers in parallel on one workspace while
// files change (run with -race).
func TestGatherConcurrent(t *testing.T) {
	testutil.IsolateGit(t)
	root := t.TempDir()
	testutil.GitInit(t, root)
	testutil.WriteFiles(t, root, shopRepo)
	testutil.GitCommitDated(t, root, "shop", "2024-01-01T10:00:00Z")
	w := newTestWorkspace(t, root, tree.Options{})
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			if i%2 == 0 {
				name := filepath.Join(root, "internal", "extra"+string(rune('a'+i))+".go")
				if err := os.WriteFile(name, []byte("package internal\n// coupon helper\n"), 0o644); err != nil {
					errs <- err
					return
				}
			}
			res, err := Gather(t.Context(), w, Request{Task: relevanceTests[i].task, Query: query.Parse(relevanceTests[i].request)})
			if err == nil && chunk(res, relevanceTests[i].answer) == nil {
				err = errors.New(relevanceTests[i].answer + " missing")
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// A cursor or selection past the end of an open file is dropped with a
// warning; the line after a final newline is a real cursor position.
func TestOpenFilePositionPastEnd(t *testing.T) {
	w := workspaceOf(t, map[string]string{
		"a.go": "package a\n\nfunc A() {}\n", // 3 lines
	})
	tests := []struct {
		name    string
		of      ctxd.OpenFile
		cursor  int
		sel     bool
		warning string
	}{
		{"in range", ctxd.OpenFile{Path: "a.go", Line: 3, Selection: &ctxd.LineRange{Start: 2, End: 3}}, 3, true, ""},
		{"after the final newline", ctxd.OpenFile{Path: "a.go", Line: 4}, 4, false, ""},
		{"cursor past the end", ctxd.OpenFile{Path: "a.go", Line: 99999}, 0, false, "line 99999 is past its end (3 lines)"},
		{"selection past the end", ctxd.OpenFile{Path: "a.go", Line: 1, Selection: &ctxd.LineRange{Start: 50, End: 60}}, 1, false, "the selection starts past its end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := gather(t, w, Request{Query: query.Parse("explain"), OpenFiles: []ctxd.OpenFile{tt.of}})
			a := chunk(res, "a.go")
			if a == nil {
				t.Fatal("a.go missing")
			}
			if a.Facts.Cursor != tt.cursor || (a.Facts.Selection != nil) != tt.sel {
				t.Errorf("cursor %d selection %v, want %d %v", a.Facts.Cursor, a.Facts.Selection, tt.cursor, tt.sel)
			}
			got := strings.Join(res.Warnings, "\n")
			if tt.warning == "" && strings.Contains(got, "past its end") || tt.warning != "" && !strings.Contains(got, tt.warning) {
				t.Errorf("warnings %q, want %q", got, tt.warning)
			}
		})
	}
}
