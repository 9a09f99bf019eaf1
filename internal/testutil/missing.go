package testutil

import (
	"os"
	"os/exec"
	"testing"
)

// MissingMarker starts the skip message of every test skipped because a
// tool it needs is not installed. scripts/test looks for it in the output
// of `go test -json` to list those suites in its summary, so a contributor
// sees what was not tested; keep the two in step.
const MissingMarker = "[missing tool] "

// Missing skips the test because what (a tool, or an npm project's
// node_modules) is not installed, saying how to install it, except under
// CI=true, where it fails the test: CI installs every tool (.ci/run), so a
// skip there would hide an untested suite.
func Missing(t testing.TB, what, install string) {
	t.Helper()
	msg := what + " is not installed (" + install + ")"
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s; CI needs it (.ci/run installs it)", msg)
	}
	t.Skip(MissingMarker + msg)
}

// Tool returns the path of the executable name, or calls [Missing] with
// install (how to get it) when it is not on PATH.
func Tool(t testing.TB, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name, install)
	}
	return p
}
