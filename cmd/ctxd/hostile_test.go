//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// rssLimitKB is the peak-RSS bound the hostile-workspace and hostile-peer
// tests state (docs/security.md): a ctxd process that reads a /dev/zero
// link or a FIFO as a file, or holds an oversized frame, would pass it in
// seconds; one that refuses them stays far below.
const rssLimitKB = 400 << 10

// hostileWorkspace builds a git repository whose ignore files, config and
// sources are links to devices and FIFOs, as a cloned repository can hold
// them (a symlinked .gitignore survives git clone).
func hostileWorkspace(t *testing.T, configLink bool) string {
	t.Helper()
	dir := testutil.GitRepo(t, sampleRepo)
	link := func(target, name string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.Remove(p)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	link("/dev/zero", "sub/.gitignore")
	link("/dev/urandom", ".ctxdignore")
	link("/dev/zero", ".git/info/exclude")
	link("/dev/zero", "zero.go")
	if configLink {
		link("/dev/zero", ".ctxd.toml")
	}
	for _, name := range []string{"pipe.py", "other/.gitignore"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testutil.WriteFiles(t, dir, map[string]string{"sub/ok.go": "package sub\n\n// Fine is a fine function.\nfunc Fine() {}\n"})
	return dir
}

// runBounded runs the binary with a deadline and returns its output, exit
// code and peak RSS in KiB.
func runBounded(t *testing.T, dir string, args ...string) (string, int, int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CTXD_CONFIG="+filepath.Join(t.TempDir(), "none.toml"), "CTXD_STATE_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("ctxd %v hung (killed after 60s):\n%s", args, out)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	return string(out), code, rss
}

// TestHostileWorkspaceCLI is failures 1, 3 and 9 of issue 11 for the CLI:
// links to /dev/zero and /dev/urandom as ignore files, exclude file and
// source, FIFOs as a source and an ignore file, named explicitly too. ctxd
// answers, stays under rssLimitKB, and says why it skipped them.
func TestHostileWorkspaceCLI(t *testing.T) {
	t.Parallel() // a subprocess per case: overlaps on two cores
	dir := hostileWorkspace(t, false)
	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"prompt", []string{"prompt", "--json", "what does Fine do"}, 0, []string{"sub/ok.go"}},
		{"open fifo", []string{"prompt", "--open", "pipe.py", "--json", "explain"}, 0, []string{"skipped pipe.py: not a regular file"}},
		{"open dev zero link", []string{"prompt", "--open", "zero.go", "--json", "explain"}, 2, []string{"--open zero.go (it resolves to /dev/zero): outside the workspace"}},
		{"pattern fifo", []string{"prompt", "--pattern", "pipe.py", "--json", "explain"}, 0, nil},
		{"outline fifo", []string{"outline", "pipe.py"}, 1, []string{"not a regular file"}},
		{"outline dev zero", []string{"outline", "zero.go"}, 1, []string{"not a regular file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code, rss := runBounded(t, dir, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d:\n%s", code, tt.code, out)
			}
			for _, s := range tt.contains {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			if rss > rssLimitKB {
				t.Errorf("peak RSS %d KiB, over the bound of %d KiB", rss, rssLimitKB)
			}
		})
	}
	// A .ctxd.toml that is a link to /dev/zero is refused with a clear
	// error instead of read.
	dir = hostileWorkspace(t, true)
	out, code, rss := runBounded(t, dir, "prompt", "--json", "what does Fine do")
	if code == 0 || !strings.Contains(out, "not a regular file") {
		t.Errorf("config link to /dev/zero: exit %d:\n%s", code, out)
	}
	if rss > rssLimitKB {
		t.Errorf("peak RSS %d KiB, over the bound of %d KiB", rss, rssLimitKB)
	}
}

// TestHostileWorkspaceDaemon is the same workspace served by one daemon:
// initialize and every request naming the FIFO or device link answer, and
// the daemon keeps serving.
func TestHostileWorkspaceDaemon(t *testing.T) {
	dir := hostileWorkspace(t, false)
	d := startDaemon(t, dir)
	result(t, d.call("initialize", map[string]any{"processId": os.Getpid(), "rootUri": "file://" + dir, "capabilities": map[string]any{}}))
	for i := 0; i < 3; i++ {
		env := result(t, d.call("ctx/buildPrompt", map[string]any{"user_request": "explain Fine", "open_files": []any{map[string]any{"path": "pipe.py"}}, "patterns": []string{"pipe.py"}}))
		if env == nil {
			t.Fatal("no envelope")
		}
		code, msg := testutil.RPCError(t, d.call("ctx/outline", map[string]any{"path": "pipe.py"}))
		if code != -32602 || !strings.Contains(msg, "not a regular file") {
			t.Errorf("outline of a FIFO: %d %s", code, msg)
		}
	}
	if code, msg := testutil.RPCError(t, d.call("ctx/buildPrompt", map[string]any{"user_request": "x", "open_files": []any{map[string]any{"path": "zero.go"}}})); code != -31001 || !strings.Contains(msg, "/dev/zero") {
		t.Errorf("open file linked to /dev/zero: %d %s", code, msg)
	}
	r := result(t, d.call("ctx/countTokens", map[string]any{"text": "still serving"}))
	if r["tokens"].(float64) <= 0 {
		t.Errorf("countTokens after hostile requests: %v", r)
	}
}

// TestLatin1Workspace is failure 5 of issue 11: a Latin-1 file name and
// Latin-1 bytes in a comment. buildPrompt and gather answer (the daemon
// and the CLI alike), the chunk says its invalid bytes were replaced, and
// the daemon keeps serving.
func TestLatin1Workspace(t *testing.T) {
	dir := testutil.GitRepo(t, sampleRepo)
	if err := os.WriteFile(filepath.Join(dir, "cart", "caf\xe9.go"), []byte("package cart\n\n// Caf\xe9 cr\xe8me prices the discount.\nfunc Discount() int { return 5 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, dir)
	result(t, d.call("initialize", map[string]any{"processId": os.Getpid(), "rootUri": "file://" + dir, "capabilities": map[string]any{}}))
	for _, method := range []string{"ctx/buildPrompt", "ctx/gather"} {
		env := result(t, d.call(method, map[string]any{"user_request": "explain the Discount function", "patterns": []string{"cart/**"}, "session_id": "latin1"}))
		chunks := env["context"].(map[string]any)["chunks"].([]any)
		found := false
		for _, c := range chunks {
			c := c.(map[string]any)
			if strings.Contains(c["content"].(string), "func Discount") {
				found = true
				if c["facts"].(map[string]any)["invalid_utf8"] != true || !strings.Contains(c["content"].(string), "Caf\uFFFD") {
					t.Errorf("%s: chunk does not say it replaced bytes: %v", method, c)
				}
			}
		}
		if !found {
			t.Errorf("%s: the Latin-1 file is missing", method)
		}
	}
	out, errOut, code := runCtxd(t, dir, "", nil, "prompt", "--pattern", "cart/**", "explain the Discount function")
	if code != 0 || !strings.Contains(out, "Caf\uFFFD cr\uFFFDme") {
		t.Errorf("CLI: exit %d %s\n%s", code, errOut, out)
	}
	result(t, d.call("ctx/countTokens", map[string]any{"text": "still serving"}))
}
