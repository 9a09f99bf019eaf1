package main

import (
	"strings"
	"testing"
)

// TestAgentCommandsUsage: ctxd mcp and ctxd proxy refuse bad flags with
// exit code 2 and a message naming the fix. (mcp/ and proxy/ drive the
// two commands end to end.)
func TestAgentCommandsUsage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"proxy needs an upstream", []string{"proxy"}, "--upstream is required"},
		{"proxy upstream must be http", []string{"proxy", "--upstream", "ftp://x"}, "want an http or https URL"},
		{"proxy stays on loopback", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--listen", "0.0.0.0:8787"}, "not a loopback address"},
		{"proxy mode", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--mode", "fast"}, "unknown mode"},
		{"proxy canary", []string{"proxy", "--upstream", "http://127.0.0.1:1", "--canary-percent", "101"}, "want 0 to 100"},
		{"mcp takes no arguments", []string{"mcp", "extra"}, "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCtxd(t, dir, "", nil, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("ctxd %v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
			}
		})
	}
}
