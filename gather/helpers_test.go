package gather

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

var update = flag.Bool("update", false, "rewrite golden files")

// isolateGit points git's global and system configuration at empty files
// in a temp dir, so the machine's configuration cannot change a test.
// It returns the global config path.
func isolateGit(t *testing.T) string {
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

// gitCmd runs the git CLI in dir and returns its stdout.
func gitCmd(t *testing.T, dir string, args ...string) string {
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

// gitInit makes dir a repository with main as its branch.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	gitCmd(t, dir, "init", "-q", "-b", "main")
}

// gitCommitAll commits everything in dir with a fixed date.
func gitCommitAll(t *testing.T, dir, msg, date string) {
	t.Helper()
	t.Setenv("GIT_AUTHOR_DATE", date)
	t.Setenv("GIT_COMMITTER_DATE", date)
	gitCmd(t, dir, "add", "-A")
	gitCmd(t, dir, "commit", "-q", "-m", msg)
}

func newTestWorkspace(t *testing.T, root string, opts Options) *Workspace {
	t.Helper()
	w, err := NewWorkspace(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	return w
}

func gather(t *testing.T, w *Workspace, r Request) *Result {
	t.Helper()
	if r.Task == "" {
		r.Task = ctxd.TaskImplement
	}
	res, err := w.Gather(t.Context(), r)
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	return res
}

// sources returns the sorted sources of the file chunks of a result.
func sources(res *Result) []string {
	var out []string
	for _, c := range res.Chunks {
		if c.ChunkType == ctxd.ChunkFile {
			out = append(out, c.Source)
		}
	}
	sort.Strings(out)
	return out
}

func chunk(res *Result, source string) *ctxd.Chunk {
	for i := range res.Chunks {
		if res.Chunks[i].Source == source {
			return &res.Chunks[i]
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// runGitStdin runs git in dir with stdin; git's exit status 1 (as
// check-ignore gives when nothing matches) is not an error here.
func runGitStdin(dir, stdin string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil
	}
	return string(out), err
}
