package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestTypeScriptClient drives `ctxd mcp` with the official TypeScript SDK
// client (@modelcontextprotocol/sdk from npm, test/interop) over stdio.
func TestTypeScriptClient(t *testing.T) {
	node, dir := testutil.Interop(t, "../test/interop")
	repo := testutil.GitRepo(t, repoFiles)
	reqFile := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(reqFile, testutil.JSON(t, chatRequest()), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout := testutil.RunInterop(t, node, dir, []string{"CTXD_TEST_REQUEST_FILE=" + reqFile},
		"mcp-client.mjs", ctxdBin, repo, filepath.Join(t.TempDir(), "state"))
	type result struct {
		IsError    bool            `json:"isError"`
		Text       string          `json:"text"`
		Structured json.RawMessage `json:"structured"`
	}
	var out struct {
		Server struct {
			Name string `json:"name"`
		} `json:"server"`
		Tools []struct {
			Name           string `json:"name"`
			HasSchema      bool   `json:"hasSchema"`
			HasDescription bool   `json:"hasDescription"`
		} `json:"tools"`
		Calls    map[string]result `json:"calls"`
		Progress int               `json:"progress"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("client output %q: %v", stdout, err)
	}
	if out.Server.Name != "ctxd" {
		t.Errorf("server name %q", out.Server.Name)
	}
	var names []string
	for _, tl := range out.Tools {
		names = append(names, tl.Name)
		if !tl.HasSchema || !tl.HasDescription {
			t.Errorf("tool %+v lacks a schema or description", tl)
		}
	}
	slices.Sort(names)
	if got := strings.Join(names, " "); got != "build_context compact_history count_tokens find_symbol outline rehydrate" {
		t.Errorf("tools = %s", got)
	}
	for _, name := range []string{"build_context", "find_symbol", "outline", "count_tokens", "compact_history", "rehydrate", "after_bad"} {
		if c := out.Calls[name]; c.IsError || c.Text == "" {
			t.Errorf("%s: isError=%v text=%.200q", name, c.IsError, c.Text)
		}
	}
	checks := []struct{ call, want string }{
		{"build_context", "func (s *Store) Put"},
		{"find_symbol", "def store/store.go:19"},
		{"outline", "method func (s *Store) Put(cart, item string) error"},
		{"count_tokens", "2 tokens (exact"},
		{"compact_history", "[ctxd:ref sha256="},
		{"rehydrate", strings.Join(strings.SplitAfter(testutil.ToolOutput(0), "\n")[:2], "")},
		{"after_bad", "tokens"},
	}
	for _, c := range checks {
		if got := out.Calls[c.call].Text; !strings.Contains(got, c.want) {
			t.Errorf("%s text does not contain %q:\n%.600s", c.call, c.want, got)
		}
	}
	if bad := out.Calls["bad"]; !bad.IsError || !strings.Contains(bad.Text, "outside root") {
		t.Errorf("bad call = %+v, want a tool error naming the root", bad)
	}
	if len(out.Calls["build_context"].Structured) == 0 {
		t.Errorf("build_context has no structured content")
	}
	if out.Progress == 0 {
		t.Errorf("no progress notifications reached the TypeScript client")
	}
}
