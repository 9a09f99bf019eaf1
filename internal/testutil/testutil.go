// Package testutil holds the helpers ctxd's tests share: golden files and
// real git repositories built in a temporary directory. It is imported by
// _test.go files only.
package testutil

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Golden compares got with the golden file at path, rewriting the file
// first when update is set (each package keeps its own -update flag, so
// the flag's help can say what it rewrites). A difference is reported as
// a diff labelled (-want +got).
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s (-want +got):\n%s", path, d)
	}
}

// GoldenFile is [Golden] on the package's testdata/<name>.golden.
func GoldenFile(t testing.TB, name string, got []byte, update bool) {
	t.Helper()
	Golden(t, filepath.Join("testdata", name+".golden"), got, update)
}

// JSON returns v encoded by encoding/json, failing the test when it cannot
// be encoded.
func JSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// WriteFiles creates files under dir from a map of slash paths to text.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// GitEnv is the environment git runs with in tests: the machine's global
// and system configuration are ignored and the author is fixed.
func GitEnv() []string {
	return append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
	)
}

// Git runs the git CLI in dir with GitEnv and returns its output. A
// missing git skips the test, except under CI=true, where it fails it.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	Tool(t, "git", "apt-get install git")
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = GitEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// GitRepo writes files into a new temporary directory (its path with
// symlinks resolved) and commits them on branch main.
func GitRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	WriteFiles(t, dir, files)
	GitCommitAll(t, dir)
	return dir
}

// GitCommitAll makes dir a repository (on branch main) if it is not one
// yet, and commits everything in it.
func GitCommitAll(t testing.TB, dir string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		Git(t, dir, "init", "-q", "-b", "main")
	}
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "--allow-empty", "-m", "initial commit")
}

// MainWithCtxd is a TestMain body for packages whose tests drive the real
// ctxd binary: it builds the package at cmdDir (a path relative to the test
// package, e.g. "../cmd/ctxd") into a temporary directory, stores the
// binary's path in *bin, runs the tests and exits with their code.
func MainWithCtxd(m *testing.M, cmdDir string, bin *string) {
	dir, err := os.MkdirTemp("", "ctxd-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, "ctxd")
	build := exec.Command("go", "build", "-o", *bin, cmdDir)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build ctxd:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Interop returns the node binary and the directory of the npm interop
// project (test/interop, whose node_modules `npm ci` installs) for tests
// that drive ctxd with official npm SDK clients. rel is the project's
// path relative to the test package. A missing node or node_modules skips
// the test naming what is missing, except under CI=true, where it fails
// it (.ci/run installs both).
func Interop(t testing.TB, rel string) (node, dir string) {
	t.Helper()
	node = Tool(t, "node", "Node.js 18 or newer: apt-get install nodejs npm")
	dir, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		Missing(t, "test/interop/node_modules", "run: cd test/interop && npm ci")
	}
	return node, dir
}

// RunInterop runs script, a file of the interop directory dir from
// [Interop], with node, args and extra environment, and returns its
// standard output; a failure or a hang (ended with the test's context)
// fails the test with its standard error.
func RunInterop(t testing.TB, node, dir string, env []string, script string, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), node, append([]string{filepath.Join(dir, script)}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), env...)
	cmd.WaitDelay = 10 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, stderr.String())
	}
	return stdout
}

// OneLineJS returns about n bytes of minified JavaScript on one line (no
// newline), with word in every statement so a lexical request can find
// it.
func OneLineJS(n int, word string) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "function f%d(a,b){return a+b*%d;}var x%d=\"%s\";", i, i, i, word)
	}
	return b.String()
}

// Env returns the environment variable name, skipping the test when it is
// unset or empty: the checks over fetched data take their paths from the
// environment and are skipped where the data is absent (CI). hint, when
// not empty, says what to set it to.
func Env(t testing.TB, name, hint string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		msg := name + " not set"
		if hint != "" {
			msg += ": " + hint
		}
		t.Skip(msg)
	}
	return v
}

// StartPiped starts cmd with a pipe to its stdin and one from its stdout
// (set cmd.Stderr before), failing the test when it cannot.
func StartPiped(t testing.TB, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser) {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return in, out
}

// GOROOTSrc returns $(go env GOROOT)/src, or skips.
func GOROOTSrc(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(src); err != nil {
		tb.Skipf("no GOROOT source: %v", err)
	}
	return src
}

// IsolateGit points git's global and system configuration at empty files
// in a temp dir, so the machine's configuration cannot change a test.
// It returns the global config path.
func IsolateGit(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	global := filepath.Join(home, "gitconfig")
	if err := os.WriteFile(global, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "Ada Lovelace")
	t.Setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Ada Lovelace")
	t.Setenv("GIT_COMMITTER_EMAIL", "ada@example.com")
	return global
}

// GitIn runs the git CLI in dir, in the process's environment (see
// IsolateGit), and returns its stdout. A missing git skips the test,
// except under CI=true.
func GitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git CLI not installed, and CI needs it")
		}
		t.Skip("git CLI not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return string(out)
}

// GitInit makes dir a repository with main as its branch.
func GitInit(t testing.TB, dir string) {
	t.Helper()
	GitIn(t, dir, "init", "-q", "-b", "main")
}

// IsolatedRepo isolates git's configuration (IsolateGit) and returns a
// new temporary directory made a repository on main.
func IsolatedRepo(t testing.TB) string {
	t.Helper()
	IsolateGit(t)
	dir := t.TempDir()
	GitInit(t, dir)
	return dir
}

// GitCommitDated commits everything in dir with a fixed date.
func GitCommitDated(t testing.TB, dir, msg, date string) {
	t.Helper()
	t.Setenv("GIT_AUTHOR_DATE", date)
	t.Setenv("GIT_COMMITTER_DATE", date)
	GitIn(t, dir, "add", "-A")
	GitIn(t, dir, "commit", "-q", "-m", msg)
}
