package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/tokens"
)

// TestModelsCommand: `ctxd models` lists every registry model, with its
// window, in a table and as JSON.
func TestModelsCommand(t *testing.T) {
	out, errOut, code := runCtxd(t, t.TempDir(), "", nil, "models")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, m := range tokens.Models() {
		if !strings.Contains(out, m.Name+" ") {
			t.Errorf("table lacks %s", m.Name)
		}
	}
	if !strings.Contains(out, "claude-sonnet-4.5") || !strings.Contains(out, "(estimate)") || !strings.Contains(out, "(exact)") {
		t.Errorf("table:\n%s", out)
	}
	out, errOut, code = runCtxd(t, t.TempDir(), "", nil, "models", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var specs []struct {
		Name          string `json:"name"`
		ContextWindow int    `json:"context_window"`
	}
	if err := json.Unmarshal([]byte(out), &specs); err != nil {
		t.Fatal(err)
	}
	if len(specs) != len(tokens.Models()) || specs[0].ContextWindow <= 0 {
		t.Errorf("json: %d models, first %+v", len(specs), specs[0])
	}
	if _, errOut, code := runCtxd(t, t.TempDir(), "", nil, "models", "extra"); code != 2 || !strings.Contains(errOut, "no arguments") {
		t.Errorf("extra argument: exit %d, %s", code, errOut)
	}
	// --model shows the window compaction uses and where it comes from.
	cfgDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(cfgDir, ".ctxd.toml"), []byte("context_window = 64000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// And how its tokens are counted, as the table says it (it said
	// nothing for an unknown name, and "low" for an estimate).
	const unknown = "counted with cl100k_base (an estimate: ctxd does not know this model's tokenizer)"
	for _, tt := range []struct {
		dir           string
		args          []string
		want, counted string
	}{
		{t.TempDir(), []string{"--model", "gpt-4o"}, "gpt-4o: context window 128000 tokens (source registry)", "counted with o200k_base (exact)"},
		{t.TempDir(), []string{"--model", "claude-sonnet-4.5", "--context-window", "100000"}, "claude-sonnet-4.5: context window 100000 tokens (source explicit)", "counted with estimate/claude (estimate)"},
		{t.TempDir(), []string{"--model", "acme-gateway-alias"}, "acme-gateway-alias: no known context window (source none)", unknown},
		{t.TempDir(), []string{"--model", "acme-gateway-alias", "--context-window", "32000"}, "acme-gateway-alias: context window 32000 tokens (source explicit)", unknown},
		{cfgDir, []string{"--model", "acme-gateway-alias", "--root", cfgDir}, "acme-gateway-alias: context window 64000 tokens (source config)", unknown},
	} {
		out, errOut, code := runCtxd(t, tt.dir, "", nil, append([]string{"models"}, tt.args...)...)
		if code != 0 || !strings.HasPrefix(out, tt.want) || !strings.Contains(out, tt.counted) {
			t.Errorf("models %q: exit %d %q %s, want %q and %q", tt.args, code, out, errOut, tt.want, tt.counted)
		}
	}
}

// TestFlagErrors: a bad flag is one line naming it with two dashes (and
// the nearest flag when one is a typo away) and the usage line, with exit
// code 2; --help prints the whole usage and exits 0.
func TestFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
		code int
	}{
		{[]string{"prompt", "--bugdet", "100", "x"}, "ctxd prompt: unknown flag --bugdet (did you mean --budget?); ctxd help prompt lists the flags\nusage: ctxd prompt", 2},
		{[]string{"pack", "--model", "x"}, "ctxd pack: unknown flag --model; ctxd help pack lists the flags\nusage: ctxd pack", 2},
		{[]string{"prompt", "--budget", "abc", "x"}, "ctxd prompt: invalid value \"abc\" for flag --budget", 2},
		{[]string{"prompt", "--help"}, "flags:\n  --budget", 0},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, errOut, code := runCtxd(t, t.TempDir(), "", nil, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, errOut, tt.code, tt.want)
			}
			if tt.code != 0 && strings.Count(errOut, "\n") > 2 {
				t.Errorf("more than two lines:\n%s", errOut)
			}
		})
	}
}
