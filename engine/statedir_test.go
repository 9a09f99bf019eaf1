package engine

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestStateDirNotADirectory: a state directory that is a file, or below
// one, is one clear error (not a warning from every store); a missing one
// is created when needed.
func TestStateDirNotADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, dir := range []string{file, filepath.Join(file, "sub")} {
		_, err := New(root, Options{Config: config.Default(), StateDir: dir})
		if !errors.Is(err, ctxd.ErrInvalidParams) || !strings.Contains(err.Error(), dir+" is not a directory") {
			t.Errorf("state dir %s: %v", dir, err)
		}
	}
	e, err := New(root, Options{Config: config.Default(), StateDir: filepath.Join(t.TempDir(), "new", "state")})
	if err != nil {
		t.Fatalf("missing state dir: %v", err)
	}
	e.Close()
}

// TestConfigChangedWarns: a daemon's engine keeps the configuration it
// started with and says so once .ctxd.toml is created or edited; a CLI's
// engine (which reads it fresh each run) does not check.
func TestConfigChangedWarns(t *testing.T) {
	t.Setenv("CTXD_CONFIG", filepath.Join(t.TempDir(), "none.toml"))
	dir := testutil.GitRepo(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	open := func(watch bool) *Engine { return openEngine(t, dir, Options{StateDir: t.TempDir(), Watch: watch}) }
	warned := func(e *Engine) bool {
		env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: "explain main"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(env.Warnings, func(w string) bool { return strings.Contains(w, ".ctxd.toml changed") })
	}
	daemon, cli := open(true), open(false)
	if warned(daemon) || warned(cli) {
		t.Fatal("warned before any change")
	}
	if err := os.WriteFile(filepath.Join(dir, ".ctxd.toml"), []byte("[gather]\nexclude = [\"main.go\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !warned(daemon) {
		t.Error("daemon: no warning after .ctxd.toml was created")
	}
	if warned(cli) {
		t.Error("CLI engine warned")
	}
}
