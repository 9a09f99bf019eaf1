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

// NoRaceMarker starts the skip message of a test [NoRace] defers to
// scripts/test's second pass without -race.
const NoRaceMarker = "[norace] "

// EnvDriver is set to 1 by scripts/test for the tests it runs.
const EnvDriver = "CTXD_TEST_DRIVER"

// NoRace marks a long test of single-goroutine code, where the race
// detector finds nothing and only multiplies the time (a property test
// replaying hundreds of random inputs): under -race, when scripts/test
// runs the suite, it skips with [NoRaceMarker] and the driver runs it
// again in a second `go test` without -race, so it still runs once. Run
// any other way (plain `go test -race`), it runs as usual.
func NoRace(t testing.TB) {
	t.Helper()
	if RaceEnabled && os.Getenv(EnvDriver) == "1" {
		t.Skip(NoRaceMarker + "single-goroutine code: scripts/test runs it again without -race")
	}
}
