package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// ctxdJSON runs the binary and decodes its JSON output; it fails the test
// unless the exit code is 0.
func ctxdJSON(t *testing.T, dir string, v any, args ...string) {
	t.Helper()
	out, errOut, code := runCtxd(t, dir, "", nil, args...)
	if code != 0 {
		t.Fatalf("ctxd %v: exit %d\n%s%s", args, code, out, errOut)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("ctxd %v: %v\n%s", args, err, out)
	}
}

func TestSessionsCLI(t *testing.T) {
	t.Parallel() // a subprocess per case: overlaps on two cores
	dir := testutil.GitRepo(t, sampleRepo)
	if out, errOut, code := runCtxd(t, dir, "", nil, "prompt", "--session", "s1", "--open", "cart/cart.go:10", "--pattern", "README.md", "fix Total in cart/cart.go"); code != 0 {
		t.Fatalf("prompt: %d\n%s%s", code, out, errOut)
	}

	var list struct {
		Sessions []struct {
			SessionID string `json:"session_id"`
			State     string `json:"state"`
			LatestSeq int    `json:"latest_seq"`
		} `json:"sessions"`
		Problems []any `json:"problems"`
	}
	ctxdJSON(t, dir, &list, "sessions", "list", "--json")
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != "s1" || list.Sessions[0].State != "running" || len(list.Problems) != 0 {
		t.Fatalf("list: %+v", list)
	}
	out, _, code := runCtxd(t, dir, "", nil, "sessions", "list")
	if code != 0 || !strings.Contains(out, "SESSION") || !strings.Contains(out, "fix Total in cart/cart.go") || !strings.Contains(out, "STATE is the task's, not a process's") {
		t.Errorf("list table (with the legend of a running session):\n%s", out)
	}
	out, _, code = runCtxd(t, dir, "", nil, "sessions", "show", "s1")
	if code != 0 || !strings.Contains(out, "cart/cart.go") || !strings.Contains(out, "checkpoint  1") {
		t.Errorf("show:\n%s", out)
	}
	out, _, code = runCtxd(t, dir, "", nil, "sessions", "timeline", "s1")
	if code != 0 || !strings.Contains(out, "SEQ") {
		t.Errorf("timeline:\n%s", out)
	}

	// The editor closes; a file changes and another goes away.
	if err := os.WriteFile(filepath.Join(dir, "cart", "cart.go"), []byte("package cart\n\n// Total is being rewritten.\nfunc Total() int { return 0 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "README.md")); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Resumed   bool   `json:"resumed"`
		SessionID string `json:"session_id"`
		Sources   []struct {
			Source, Status string
		} `json:"sources"`
		Envelope struct {
			Prompt string `json:"prompt"`
		} `json:"envelope"`
	}
	ctxdJSON(t, dir, &res, "sessions", "resume", "--json")
	status := map[string]string{}
	for _, s := range res.Sources {
		status[s.Source] = s.Status
	}
	if !res.Resumed || res.SessionID != "s1" || status["cart/cart.go"] != "changed" || status["README.md"] != "missing" {
		t.Fatalf("resume: %+v", res)
	}
	if !strings.Contains(res.Envelope.Prompt, "being rewritten") {
		t.Error("the rebuilt prompt does not hold the changed file")
	}
	out, _, code = runCtxd(t, dir, "", nil, "sessions", "resume")
	if code != 0 || !strings.Contains(out, "1 changed, 1 missing") {
		t.Errorf("resume text:\n%s", out)
	}

	var fork struct {
		SessionID  string `json:"session_id"`
		Checkpoint struct {
			ConversationHistory []map[string]any `json:"conversation_history"`
		} `json:"checkpoint"`
	}
	ctxdJSON(t, dir, &fork, "sessions", "fork", "s1", "--error", "panic: index out of range", "--id", "s1-retry", "--json")
	h := fork.Checkpoint.ConversationHistory
	if fork.SessionID != "s1-retry" || len(h) == 0 || !strings.Contains(fmt.Sprint(h[len(h)-1]["content"]), "panic: index out of range") {
		t.Errorf("fork: %+v", fork)
	}

	out, _, code = runCtxd(t, dir, "", nil, "sessions", "gc", "--dry-run", "--max-age", "0", "--max-size", "1B")
	if code != 0 || !strings.Contains(out, "2 sessions kept") {
		t.Errorf("gc dry run of running sessions:\n%s", out)
	}
	if _, _, code := runCtxd(t, dir, "", nil, "sessions", "rm", "s1", "s1-retry"); code != 0 {
		t.Errorf("rm: exit %d", code)
	}
	ctxdJSON(t, dir, &list, "sessions", "list", "--json")
	if len(list.Sessions) != 0 {
		t.Errorf("after rm: %+v", list.Sessions)
	}
	if out, _, _ := runCtxd(t, dir, "", nil, "sessions", "resume"); !strings.Contains(out, "nothing to resume") {
		t.Errorf("resume with nothing running:\n%s", out)
	}

	runFailures(t, dir, []cliFailure{
		{"no subcommand", []string{"sessions"}, 2, "missing subcommand"},
		{"unknown subcommand", []string{"sessions", "frob"}, 2, "unknown subcommand"},
		{"show without id", []string{"sessions", "show"}, 2, "one session id"},
		{"show missing", []string{"sessions", "show", "nope"}, 1, `no session "nope" (ctxd sessions list shows the saved sessions`},
		{"fork without error", []string{"sessions", "fork", "nope"}, 2, "--error"},
		{"bad age", []string{"sessions", "gc", "--max-age", "soon"}, 2, "--max-age"},
		{"bad size", []string{"sessions", "gc", "--max-size", "big"}, 2, "--max-size"},
		{"bad state", []string{"sessions", "list", "--state", "paused"}, 1, "unknown state"},
		{"rm nothing", []string{"sessions", "rm"}, 2, "at least one"},
	})
}

func TestSessionsStateDirFlag(t *testing.T) {
	t.Parallel() // a subprocess per case: overlaps on two cores
	dir := testutil.GitRepo(t, sampleRepo)
	state := filepath.Join(t.TempDir(), "elsewhere")
	if _, errOut, code := runCtxd(t, dir, "", []string{"CTXD_STATE_DIR=" + state}, "prompt", "--session", "moved", "explain the cart"); code != 0 {
		t.Fatalf("prompt: %s", errOut)
	}
	if _, err := os.Stat(filepath.Join(state, "sessions", "moved", "000001.json")); err != nil {
		t.Fatalf("CTXD_STATE_DIR was not used: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".ctxd")); !os.IsNotExist(err) {
		t.Errorf("the default state directory was created: %v", err)
	}
	out, _, code := runCtxd(t, dir, "", nil, "sessions", "list", "--state-dir", state)
	if code != 0 || !strings.Contains(out, "moved") {
		t.Errorf("list --state-dir:\n%s", out)
	}
	if out, _, _ := runCtxd(t, dir, "", nil, "sessions", "list"); !strings.Contains(out, "no sessions") {
		t.Errorf("list without the flag:\n%s", out)
	}

	// ctxd serve --state-dir: the daemon saves there.
	served := filepath.Join(t.TempDir(), "served")
	d := startDaemon(t, dir, "--state-dir", served)
	result(t, d.call("initialize", map[string]any{"root": dir}))
	result(t, d.call("ctx/checkpoint/save", map[string]any{"session_id": "daemon", "user_request": "x"}))
	if _, err := os.Stat(filepath.Join(served, "sessions", "daemon", "000001.json")); err != nil {
		t.Errorf("serve --state-dir was not used: %v", err)
	}
	result(t, d.call("shutdown", nil))
	d.send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
}

// TestTwoDaemonsOneSession runs two `ctxd serve` processes on one
// workspace and has each save N checkpoints to the same session at once,
// pipelined: none may be lost or overwritten.
func TestTwoDaemonsOneSession(t *testing.T) {
	const n = 25
	dir := testutil.GitRepo(t, sampleRepo)
	var ds []*daemon
	for range 2 {
		d := startDaemon(t, dir)
		result(t, d.call("initialize", map[string]any{"root": dir}))
		ds = append(ds, d)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 2*n)
	for i, d := range ds {
		wg.Go(func() {
			var chans []chan map[string]any
			for j := range n {
				_, ch := d.callAsync("ctx/checkpoint/save", map[string]any{
					"session_id":           "shared",
					"user_request":         fmt.Sprintf("daemon %d save %d", i, j),
					"conversation_history": []any{map[string]any{"role": "user", "content": fmt.Sprintf("d%d-%d", i, j)}},
				})
				chans = append(chans, ch)
			}
			for _, ch := range chans {
				select {
				case m := <-ch:
					if m["error"] != nil {
						errs <- fmt.Sprint(m["error"])
					}
				case <-time.After(60 * time.Second):
					errs <- "no answer in 60s"
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	tl := result(t, ds[0].call("ctx/sessions/timeline", map[string]any{"session_id": "shared"}))
	entries := tl["entries"].([]any)
	if len(entries) != 2*n || len(tl["problems"].([]any)) != 0 {
		t.Fatalf("%d checkpoints, want %d: %v", len(entries), 2*n, tl["problems"])
	}
	seen := map[string]bool{}
	turns, prev := 0, ""
	for i, e := range entries {
		m := e.(map[string]any)
		if m["seq"] != float64(i+1) || m["problem"] != nil {
			t.Errorf("entry %d: %v", i, m)
		}
		req := m["user_request"].(string)
		seen[req] = true
		if who := req[:len("daemon 0")]; prev != "" && who != prev {
			turns++
		}
		prev = req[:len("daemon 0")]
	}
	if len(seen) != 2*n {
		t.Errorf("%d distinct saves, want %d", len(seen), 2*n)
	}
	if turns == 0 {
		t.Error("the daemons' saves never interleaved: they did not run concurrently")
	}
	t.Logf("the daemons took turns %d times", turns)
	for _, d := range ds {
		result(t, d.call("shutdown", nil))
		d.send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	}
}
