package editors_test

import (
	"context"
	"fmt"
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

// onCI reports whether the tests run under CI, where a missing tool is a
// failure rather than a skip.
func onCI() bool { return os.Getenv("CI") == "true" }

// missing skips the test locally and fails it under CI=true.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if onCI() {
		t.Fatalf("%s (a tool a test needs is missing under CI=true; .ci/run installs it)", msg)
	}
	t.Skip(msg)
}

// tool returns the path of an executable, or skips (fails under CI).
func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		missing(t, "%s not found on PATH", name)
	}
	return p
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
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
