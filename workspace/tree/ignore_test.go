package tree

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"

	"github.com/google/go-cmp/cmp"
)

// ignoreTree is a repository with ignore rules of every kind git reads.
var ignoreTree = map[string]string{
	".gitignore": strings.Join([]string{
		"# comment line",
		"*.log",
		"!keep.log",
		"/build/",
		"node_modules/",
		"docs/**/*.tmp",
		`\#hash.txt`,
		"*.o",
		"foo/**/bar",
		"tmp*",
		"!tmp_keep.txt",
		"/rooted.txt",
		"onlydir/",
		"spaced.txt   ",
		"a/b/",
		"*.[ab]ak",
		"**/generated/**",
		"",
	}, "\n"),
	"keep.log":                        "",
	"app.log":                         "",
	"build/out.txt":                   "",
	"src/build/in_src.go":             "",
	"node_modules/x/index.js":         "",
	"src/node_modules/y/index.js":     "",
	"docs/a/b/c.tmp":                  "",
	"docs/a/b/c.md":                   "",
	"other/x.tmp":                     "",
	"#hash.txt":                       "",
	"lib.o":                           "",
	"foo/bar":                         "",
	"foo/x/y/bar":                     "",
	"foo/x/bar.txt":                   "",
	"tmpfile":                         "",
	"tmp_keep.txt":                    "",
	"rooted.txt":                      "",
	"sub/rooted.txt":                  "",
	"onlydir/file.go":                 "",
	"x/onlydir":                       "",
	"spaced.txt":                      "",
	"a/b/c.go":                        "",
	"z/a/b/c.go":                      "",
	"backup.aak":                      "",
	"backup.cak":                      "",
	"pkg/generated/gen.go":            "",
	"generated.go":                    "",
	"main.go":                         "",
	"sub/.gitignore":                  "*.txt\n!important.txt\n/local-only.md\ndeep/\n",
	"sub/notes.txt":                   "",
	"sub/important.txt":               "",
	"sub/local-only.md":               "",
	"sub/inner/local-only.md":         "",
	"sub/inner/more.txt":              "",
	"sub/deep/d.go":                   "",
	"sub/code.go":                     "",
	"sub/inner/.gitignore":            "!more.txt\n",
	"excluded-by-info.go":             "",
	"sub/excluded-by-info.go":         "",
	"x.swp":                           "",
	"globally-ignored/g.go":           "",
	"nested/globally-ignored/h.go":    "",
	"vendor/mod/.gitignore":           "*.c\n",
	"vendor/mod/a.c":                  "",
	"vendor/mod/a.h":                  "",
	"unicode/ünï.go":                  "",
	"with space/file name.go":         "",
	"dir.with.dots/file":              "",
	"deep/er/still/included/file.go":  "",
	"deep/er/still/excluded/file.log": "",
}

// TestIgnoreMatchesGit checks the walk against git's own answer (git
// ls-files --others --exclude-standard, which reads nested .gitignore,
// .git/info/exclude and core.excludesFile) on a tree of many rules.
func TestIgnoreMatchesGit(t *testing.T) {
	global := isolateGit(t)
	excludes := filepath.Join(filepath.Dir(global), "global-excludes")
	testutil.WriteFiles(t, filepath.Dir(excludes), map[string]string{"global-excludes": "*.swp\nglobally-ignored/\n"})
	if err := os.WriteFile(global, []byte("[core]\n\texcludesFile = "+excludes+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	gitInit(t, root)
	testutil.WriteFiles(t, root, ignoreTree)
	testutil.WriteFiles(t, root, map[string]string{".git/info/exclude": "# git's own\nexcluded-by-info.go\n"})

	want := splitNUL(gitCmd(t, root, "-c", "core.quotePath=false", "ls-files", "-z", "--others", "--exclude-standard"))
	sort.Strings(want)

	w := newTestWorkspace(t, root, Options{})
	s, err := w.refresh(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Files {
		got = append(got, f.Rel)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("walk differs from git ls-files --others --exclude-standard (-git +walk):\n%s", d)
	}
	t.Logf("git keeps %d of %d files", len(want), len(ignoreTree))
	if s.Scanned != len(want) {
		t.Errorf("FilesScanned = %d, want %d", s.Scanned, len(want))
	}
	// And file by file against git check-ignore, for the files git keeps
	// and the ones it drops.
	var all []string
	for p := range ignoreTree {
		all = append(all, p)
	}
	sort.Strings(all)
	kept := map[string]bool{}
	for _, p := range got {
		kept[p] = true
	}
	ignored := map[string]bool{}
	for _, p := range splitNUL(checkIgnore(t, root, all)) {
		ignored[p] = true
	}
	for _, p := range all {
		if kept[p] == ignored[p] {
			t.Errorf("%s: walk kept=%v, git check-ignore ignored=%v", p, kept[p], ignored[p])
		}
	}
}

// checkIgnore runs git check-ignore on paths and returns the ignored ones.
func checkIgnore(t *testing.T, root string, paths []string) string {
	t.Helper()
	out, err := runGitStdin(root, strings.Join(paths, "\x00")+"\x00", "check-ignore", "-z", "--stdin")
	if err != nil && out == "" {
		return ""
	}
	return out
}

func splitNUL(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\x00") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

func TestCtxdIgnoreAndExclude(t *testing.T) {
	root := testutil.IsolatedRepo(t)
	testutil.WriteFiles(t, root, map[string]string{
		".gitignore":             "*.log\n",
		".ctxdignore":            "fixtures/\n*.snap\n!keep.log\n",
		"keep.log":               "",
		"other.log":              "",
		"fixtures/big.json":      "{}",
		"a.snap":                 "",
		"src/main.go":            "package main",
		"src/.ctxdignore":        "gen_*.go\n",
		"src/gen_x.go":           "package main",
		"vendor/dep/x.go":        "package dep",
		"third_party/y/z.go":     "package y",
		".ctxd/sessions/s1.json": "{}",
		"tools/.git/config":      "[core]",
		"tools/tool.go":          "package tools",
	})
	checkFiles(t, root, Options{Exclude: []string{"vendor/**", "third_party"}},
		[]string{".ctxdignore", ".gitignore", "keep.log", "src/.ctxdignore", "src/main.go", "tools/tool.go"})
}

// checkFiles opens a workspace at root and checks the files it lists.
func checkFiles(t *testing.T, root string, opts Options, want []string) {
	t.Helper()
	got, err := newTestWorkspace(t, root, opts).Files(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
}

func TestIgnoreOutsideGitAndSubdirRoot(t *testing.T) {
	isolateGit(t)
	t.Run("no repository", func(t *testing.T) {
		root := t.TempDir()
		testutil.WriteFiles(t, root, map[string]string{".gitignore": "out/\n", "out/x.go": "", "a.go": ""})
		checkFiles(t, root, Options{}, []string{".gitignore", "a.go"})
	})
	t.Run("root below the top-level", func(t *testing.T) {
		top := t.TempDir()
		gitInit(t, top)
		testutil.WriteFiles(t, top, map[string]string{
			".gitignore":        "*.gen.go\n/svc/tmp/\n",
			".git/info/exclude": "local.go\n",
			"svc/.gitignore":    "!keep.gen.go\n",
			"svc/a.go":          "",
			"svc/a.gen.go":      "",
			"svc/keep.gen.go":   "",
			"svc/local.go":      "",
			"svc/tmp/t.go":      "",
			"svc/sub/b.go":      "",
		})
		checkFiles(t, filepath.Join(top, "svc"), Options{}, []string{".gitignore", "a.go", "keep.gen.go", "sub/b.go"})
	})
}
