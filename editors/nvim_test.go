package editors_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// sampleRepo is the repository the editor tests work in. Its cart.go,
// testdata/cart.go, is the one the VS Code tests use (test/helpers.ts).
func sampleRepo(t *testing.T) map[string]string {
	t.Helper()
	cart, err := os.ReadFile(filepath.Join("testdata", "cart.go"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"go.mod":            "module example.com/shop\n\ngo 1.22\n",
		"cart/cart.go":      string(cart),
		"cart/cart_test.go": "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif (&Cart{}).Total() != 0 {\n\t\tt.Fatal(\"empty cart\")\n\t}\n}\n",
		"README.md":         "# shop\n\nA tiny shop.\n",
	}
}

// nvimEnv isolates Neovim and the daemon: XDG directories, no user
// configuration, session state in a temp dir.
func nvimEnv(t *testing.T) []string {
	t.Helper()
	home := t.TempDir()
	// A daemon the plugin started may still be saving its index when
	// Neovim has quit (the cancelled GOROOT request's): the temp dir's own
	// removal then fails on a directory not empty. Wait for the state to
	// go quiet first (registered after TempDir, this runs before it).
	t.Cleanup(func() { removeWhenQuiet(t, filepath.Join(home, "state"), 30*time.Second) })
	env := []string{
		"HOME=" + home,
		"CTXD_CONFIG=" + filepath.Join(home, "none.toml"),
		"CTXD_STATE_DIR=" + filepath.Join(home, "state"),
	}
	for _, x := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"} {
		dir := filepath.Join(home, strings.ToLower(x))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		env = append(env, x+"="+dir)
	}
	return env
}

// pluginDir returns the absolute path of the Neovim plugin (editors/nvim),
// where its tests, specs and luacheck run.
func pluginDir(t *testing.T) string {
	t.Helper()
	plugin, err := filepath.Abs("nvim")
	if err != nil {
		t.Fatal(err)
	}
	return plugin
}

// TestNeovim runs the plugin's end-to-end script in a real headless
// Neovim (nvim --headless -u NONE) against the real ctxd binary and a git
// repository built here.
func TestNeovim(t *testing.T) {
	nvim := tool(t, "nvim")
	plugin := pluginDir(t)
	repo := testutil.GitRepo(t, sampleRepo(t))
	env := append(nvimEnv(t),
		"CTXD_BIN="+ctxdBin,
		"CTXD_TEST_REPO="+repo,
		"CTXD_SLOW_ROOT="+filepath.Join(runtime.GOROOT(), "src"),
	)
	out := run(t, plugin, env, 10*time.Minute, nvim,
		"--headless", "-u", "NONE", "-i", "NONE", "-n",
		"--cmd", "set rtp^="+plugin,
		"-c", "luafile test/e2e.lua")
	t.Logf("nvim:\n%s", out)
	if strings.Contains(out, "not ok") || !strings.Contains(out, " passed, 0 failed") {
		t.Fatalf("the Neovim end-to-end tests failed:\n%s", out)
	}
}

// TestNeovimBusted runs the plugin's busted specs (the framing of the
// jobstart transport) outside Neovim.
func TestNeovimBusted(t *testing.T) {
	busted := tool(t, "busted")
	plugin := pluginDir(t)
	out := run(t, plugin, nil, 5*time.Minute, busted, "--lpath=lua/?.lua", "--output=TAP", "spec")
	if strings.Contains(out, "not ok") {
		t.Fatalf("busted:\n%s", out)
	}
	t.Logf("busted:\n%s", out)
}

// TestNeovimLuacheck keeps the plugin luacheck clean.
func TestNeovimLuacheck(t *testing.T) {
	luacheck := tool(t, "luacheck")
	plugin := pluginDir(t)
	run(t, plugin, nil, 5*time.Minute, luacheck, "--no-color", "--formatter=plain", ".")
}

// removeWhenQuiet removes dir, again while a process still writes into
// it, until it stays gone for half a second or the deadline passes.
func removeWhenQuiet(t *testing.T, dir string, deadline time.Duration) {
	t.Helper()
	end := time.Now().Add(deadline)
	for {
		err := os.RemoveAll(dir)
		if err == nil {
			time.Sleep(500 * time.Millisecond)
			if _, statErr := os.Lstat(dir); os.IsNotExist(statErr) {
				return
			}
		}
		if time.Now().After(end) {
			t.Logf("state dir %s still written to after %v: %v", dir, deadline, err)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}
