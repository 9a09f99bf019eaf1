package editors_test

import (
	"archive/zip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestVSCode checks the VS Code extension with its own tools: eslint, tsc
// in strict mode, the client layer's node tests against the real daemon
// (built by TestMain, handed over in CTXD_BIN), and vsce packaging. VS
// Code itself cannot be downloaded here, so extension-host tests are out
// of reach; the client layer holds everything but the thin adapter.
func TestVSCode(t *testing.T) {
	dir, err := filepath.Abs("vscode")
	if err != nil {
		t.Fatal(err)
	}
	node := tool(t, "node")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err != nil {
		testutil.Missing(t, "editors/vscode/node_modules", "run: cd editors/vscode && npm ci")
	}
	bin := func(name string) string { return filepath.Join(dir, "node_modules", ".bin", name) }
	env := []string{
		"CTXD_BIN=" + ctxdBin,
		"CTXD_SLOW_ROOT=" + filepath.Join(runtime.GOROOT(), "src"),
		"NO_COLOR=1",
	}

	t.Run("lint", func(t *testing.T) {
		run(t, dir, env, 10*time.Minute, bin("eslint"), "--max-warnings", "0", ".")
	})
	// The node tests and the package need the compiled output.
	if !t.Run("tsc", func(t *testing.T) {
		if err := os.RemoveAll(filepath.Join(dir, "out")); err != nil {
			t.Fatal(err)
		}
		run(t, dir, env, 10*time.Minute, bin("tsc"), "-p", ".")
	}) {
		return
	}
	t.Run("node-test", func(t *testing.T) {
		files, err := filepath.Glob(filepath.Join(dir, "out", "test", "*.test.js"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no compiled tests in out/test (%v)", err)
		}
		out := run(t, dir, env, 10*time.Minute, node, append([]string{"--test", "--test-timeout=300000"}, files...)...)
		if !strings.Contains(out, "# fail 0") || strings.Contains(out, "# pass 0\n") {
			t.Fatalf("node --test did not pass cleanly:\n%s", out)
		}
		t.Logf("node --test: %s", summary(out))
	})
	t.Run("vsce-package", func(t *testing.T) {
		vsix := filepath.Join(t.TempDir(), "ctxd.vsix")
		run(t, dir, env, 10*time.Minute, bin("vsce"), "package", "--skip-license", "--out", vsix)
		zr, err := zip.OpenReader(vsix)
		if err != nil {
			t.Fatalf("open the .vsix: %v", err)
		}
		defer zr.Close()
		have := map[string]bool{}
		for _, f := range zr.File {
			have[f.Name] = true
		}
		for _, want := range []string{
			"extension/package.json",
			"extension/out/src/extension.js",
			"extension/out/src/client/daemon.js",
			"extension/node_modules/vscode-jsonrpc/package.json",
		} {
			if !have[want] {
				t.Errorf("the .vsix lacks %s", want)
			}
		}
		for name := range have {
			if strings.HasPrefix(name, "extension/src/") || strings.HasPrefix(name, "extension/out/test/") || strings.Contains(name, "node_modules/typescript/") {
				t.Errorf("the .vsix holds %s, which .vscodeignore leaves out", name)
			}
		}
	})
}

// summary is the counting lines of node's TAP output.
func summary(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		for _, p := range []string{"# tests", "# pass", "# fail", "# skipped"} {
			if strings.HasPrefix(line, p) {
				keep = append(keep, strings.TrimPrefix(line, "# "))
			}
		}
	}
	return strings.Join(keep, ", ")
}
