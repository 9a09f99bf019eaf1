package editors_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// ctxdBin is the ctxd binary built once for the editor tests.
var ctxdBin string

func TestMain(m *testing.M) { testutil.MainWithCtxd(m, "../cmd/ctxd", &ctxdBin) }

// tool returns the path of an executable, or skips the test (fails it
// under CI=true) saying how to install it.
func tool(t *testing.T, name string) string {
	t.Helper()
	return testutil.Tool(t, name, installHint[name])
}

// installHint says how to get each tool the editor tests run (.ci/run
// installs them all).
var installHint = map[string]string{
	"nvim":     "Neovim 0.7 or newer: apt-get install neovim",
	"busted":   "apt-get install lua-busted",
	"luacheck": "apt-get install lua-check",
	"node":     "Node.js 18 or newer: apt-get install nodejs npm",
}

// run runs a command with a deadline and fails the test with its output
// when it fails.
func run(t *testing.T, dir string, env []string, timeout time.Duration, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() == context.DeadlineExceeded {
		// The limit only guards against a hang: say so instead of
		// "signal: killed".
		t.Fatalf("%s %s: still running after %v (hung, or the machine is very loaded): %v\n%s", name, strings.Join(args, " "), timeout, err, out)
	}
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
