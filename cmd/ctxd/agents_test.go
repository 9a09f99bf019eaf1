package main

import (
	"path/filepath"
	"testing"
)

// TestAgentCommandsUsage: ctxd mcp and ctxd proxy refuse bad flags with
// exit code 2 and a message naming the fix. (mcp/ and proxy/ drive the
// two commands end to end.)
func TestAgentCommandsUsage(t *testing.T) {
	dir := t.TempDir()
	runFailures(t, dir, []cliFailure{
		{"proxy needs an upstream", []string{"proxy"}, 2, "--upstream is required"},
		{"proxy upstream must be http", []string{"proxy", "--upstream", "ftp://x"}, 2, "want an http or https URL"},
		{"proxy stays on loopback", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--listen", "0.0.0.0:8787"}, 2, "not a loopback address"},
		{"proxy mode", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--mode", "fast"}, 2, "unknown mode"},
		{"proxy canary", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--canary-percent", "101"}, 2, "want 0 to 100"},
		{"mcp takes no arguments", []string{"mcp", "extra"}, 2, "unexpected arguments"},
		// The daemon's --listen mistakes exited 1, the proxy's 2.
		{"serve listen spec", []string{"serve", "--listen", "foo"}, 2, `--listen "foo": want unix:PATH or tcp:127.0.0.1:PORT`},
		{"serve stays on loopback", []string{"serve", "--listen", "tcp:0.0.0.0:8787"}, 2, "only loopback addresses are allowed"},
		// A --root that does not exist stops serve at start, as it stops
		// mcp; it failed only at initialize (on stdio it served on).
		{"serve root missing", []string{"serve", "--root", filepath.Join(dir, "nope")}, 1, "ctxd serve: workspace root: " + filepath.Join(dir, "nope") + ": no such file or directory"},
		{"mcp root missing", []string{"mcp", "--root", filepath.Join(dir, "nope")}, 1, "ctxd mcp: workspace root: " + filepath.Join(dir, "nope") + ": no such file or directory"},
	})
}
