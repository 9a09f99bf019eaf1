package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestDaemonPackSeesBuffers: the daemon's ctx/pack packs the workspace
// ctx/buildPrompt gathers, over stdio on the real binary: an edit held
// by the daemon (didOpen) or given in the request (open_files) replaces
// the file on disk, a file only open in the editor and an ignored one
// being edited are packed from their buffers, a secret file's buffer is
// not packed unnamed.
func TestDaemonPackSeesBuffers(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		".gitignore":   "gen/\n",
		"app/app.go":   "package app\n\n// Run starts the app.\nfunc Run() int { return 1 }\n",
		"app/util.go":  "package app\n\nfunc helper() int { return 2 }\n",
		"gen/rates.go": "package gen\n\nvar Rate = 19 // on disk\n",
	})
	d := startDaemon(t, dir)
	result(t, d.call("initialize", map[string]any{"root": dir}))
	d.didOpen(dir, "app/app.go", "package app\n\n// Run starts the app.\nfunc Run() int { return EDITED_IN_BUFFER }\n")
	d.didOpen(dir, "app/fresh.go", "package app\n\nconst EDITED_IN_BUFFER = 7 // only in the editor\n")
	d.didOpen(dir, "gen/rates.go", "package gen\n\nvar Rate = 21 // ignored, being edited\n")
	d.didOpen(dir, ".env", "GITHUB_TOKEN=ghp_Zq8xW3mN5vB7kL2pR9tY4uH6jF1dS0aQ3eXc\n")

	// ctx/buildPrompt gathers the buffers; ctx/pack must show the same.
	env := result(t, d.call("ctx/buildPrompt", map[string]any{"user_request": "make Run in app/app.go return EDITED_IN_BUFFER", "patterns": []any{"app/app.go"}}))
	if b, _ := json.Marshal(env); !strings.Contains(string(b), "return EDITED_IN_BUFFER") {
		t.Fatalf("ctx/buildPrompt does not show the buffer of app/app.go:\n%.600s", b)
	}
	for _, format := range []string{"markdown", "xml", "json"} {
		r := result(t, d.call("ctx/pack", map[string]any{"format": format}))
		b, _ := json.Marshal(r)
		out := string(b)
		for _, want := range []string{"return EDITED_IN_BUFFER", "only in the editor", "app/fresh.go", "ignored, being edited"} {
			if !strings.Contains(out, want) {
				t.Errorf("ctx/pack %s: %q missing:\n%.800s", format, want, out)
			}
		}
		for _, not := range []string{"return 1 }", "on disk", "ghp_Zq8"} {
			if strings.Contains(out, not) {
				t.Errorf("ctx/pack %s: %q (the disk's text or a secret) in the pack", format, not)
			}
		}
	}
	// A request's open file wins over the daemon's buffer.
	r := result(t, d.call("ctx/pack", map[string]any{"path": "app", "open_files": []any{map[string]any{"path": filepath.Join(dir, "app/util.go"), "text": "package app\n\nfunc helper() int { return FROM_REQUEST }\n"}}}))
	if text, _ := r["text"].(string); !strings.Contains(text, "FROM_REQUEST") || !strings.Contains(text, "EDITED_IN_BUFFER") || strings.Contains(text, "return 2 }") {
		t.Errorf("ctx/pack with open_files:\n%.800s", text)
	}
	// A file only in the editor can be the pack's path.
	r = result(t, d.call("ctx/pack", map[string]any{"path": "app/fresh.go"}))
	if text, _ := r["text"].(string); !strings.Contains(text, "only in the editor") {
		t.Errorf("ctx/pack of a buffer-only file:\n%.800s", text)
	}
	if code, msg := testutil.RPCError(t, d.call("ctx/pack", map[string]any{"open_files": []any{map[string]any{"path": "/etc/passwd", "text": "x"}}})); code != -31001 {
		t.Errorf("ctx/pack with an open file outside the root: %d %s, want -31001", code, msg)
	}
}

// TestDaemonStateDirBuffers: with --state-dir inside the workspace, an
// editor's buffer of a file under it is neither gathered, packed nor
// searched, as one under .ctxd/ is not (the one rule, Tree.OverlayKept),
// and its files on disk are not walked; a new file's buffer beside it is
// read at every one of these doors (the test can see a buffer).
func TestDaemonStateDirBuffers(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"app/app.go": "package app\n\nfunc Run() int { return 1 }\n",
	})
	state := filepath.Join(dir, "state")
	testutil.WriteFiles(t, dir, map[string]string{"state/sessions/s1/000001.json": `{"messages": [{"role": "user", "content": "ZebraOnDisk conversation"}]}` + "\n"})
	d := startDaemon(t, dir, "--state-dir", state)
	result(t, d.call("initialize", map[string]any{"root": dir}))
	d.didOpen(dir, "state/notes.go", "package notes\n\n// ZebraFrobnicate is only in a buffer under the state directory.\nfunc ZebraFrobnicate() int { return 2 }\n")
	d.didOpen(dir, "app/fresh.go", "package app\n\n// ZebraFresh is only in a buffer beside it.\nfunc ZebraFresh() int { return ZebraFrobnicate() }\n")

	env := result(t, d.call("ctx/buildPrompt", map[string]any{"user_request": "what do ZebraFrobnicate, ZebraFresh and ZebraOnDisk do"}))
	var sources []string // what was fitted and what was left out
	cc, _ := env["context"].(map[string]any)
	for _, part := range []string{"chunks", "skipped"} {
		list, _ := cc[part].([]any)
		for _, c := range list {
			sources = append(sources, c.(map[string]any)["source"].(string))
		}
	}
	if !slices.Contains(sources, "app/fresh.go") || slices.ContainsFunc(sources, func(s string) bool { return strings.HasPrefix(s, "state/") }) {
		t.Errorf("ctx/buildPrompt gathered %v: want app/fresh.go (a new file's buffer), nothing under state/", sources)
	}
	r := result(t, d.call("ctx/pack", map[string]any{}))
	if text, _ := r["text"].(string); !strings.Contains(text, "ZebraFresh is only") || strings.Contains(text, "state/") || strings.Contains(text, "under the state directory") || strings.Contains(text, "ZebraOnDisk") {
		t.Errorf("ctx/pack: want app/fresh.go's buffer, nothing under state/:\n%.1200s", text)
	}
	got := result(t, d.call("ctx/findSymbol", map[string]any{"name": "ZebraFrobnicate"}))
	if defs, _ := got["definitions"].([]any); len(defs) != 0 || got["files_searched"] != float64(1) {
		b, _ := json.Marshal(got)
		t.Errorf("ctx/findSymbol ZebraFrobnicate: %s, want no definition (state/notes.go is not searched) and one file searched (app/fresh.go)", b)
	}
}
