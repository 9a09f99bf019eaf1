package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestOptimizeCLI(t *testing.T) {
	t.Parallel() // a subprocess per case: overlaps on two cores
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	in := chatHistory(12)
	out, errOut, code := runCtxd(t, dir, in, nil, "optimize", "--report", "-", "--session", "agent-7", "--state-dir", state)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var req map[string]any
	if err := json.Unmarshal([]byte(out), &req); err != nil {
		t.Fatalf("stdout is not a request: %v\n%.300s", err, out)
	}
	if len(out) >= len(in) || !strings.Contains(out, "[ctxd:") {
		t.Errorf("not rewritten (%d -> %d bytes)", len(in), len(out))
	}
	var rep struct {
		Applied   bool   `json:"applied"`
		Session   string `json:"session_id"`
		Artifacts []struct {
			Hash string `json:"sha256"`
		} `json:"artifacts"`
	}
	if err := json.Unmarshal([]byte(errOut), &rep); err != nil {
		t.Fatalf("stderr is not the report: %v\n%s", err, errOut)
	}
	if !rep.Applied || rep.Session != "agent-7" || len(rep.Artifacts) == 0 {
		t.Fatalf("report: %+v", rep)
	}
	// A new process reads the artifact back, exactly.
	hash := rep.Artifacts[0].Hash
	lines, errOut, code := runCtxd(t, dir, "", nil, "rehydrate", "--session", "agent-7", "--state-dir", state, hash[:16], "2-3")
	if code != 0 {
		t.Fatalf("rehydrate: exit %d: %s", code, errOut)
	}
	if strings.Count(lines, "\n") != 2 || !strings.Contains(in, strings.ReplaceAll(lines, "\n", `\n`)) {
		t.Errorf("rehydrated lines %q are not lines of the input", lines)
	}
	js, _, code := runCtxd(t, dir, "", nil, "rehydrate", "--json", "--session", "agent-7", "--state-dir", state, hash)
	var l struct {
		Hash  string `json:"sha256"`
		Total int    `json:"total_lines"`
		Text  string `json:"text"`
	}
	if code != 0 || json.Unmarshal([]byte(js), &l) != nil || l.Hash != hash || l.Total != 200 {
		t.Errorf("rehydrate --json: %d %s", code, js)
	}
	// The hint's placeholder range, copied as written, is a usage error
	// that says what stands for it (it said "want a-b").
	if _, errOut, code := runCtxd(t, dir, "", nil, "rehydrate", "--session", "agent-7", "--state-dir", state, hash[:16], "a-b"); code != 2 || !strings.Contains(errOut, `lines "a-b": want line numbers counting from 1, as 10-20`) || strings.Contains(errOut, "invalid params") {
		t.Errorf("rehydrate HASH a-b: exit %d %s", code, errOut)
	}
	// Another session cannot read it.
	if _, errOut, code := runCtxd(t, dir, "", nil, "rehydrate", "--session", "agent-8", "--state-dir", state, hash); code != 1 || !strings.Contains(errOut, "not stored") {
		t.Errorf("other session: exit %d %s", code, errOut)
	}
	// Every reference carries the command that reads it back (as
	// compress's do), and the command, run as written, works.
	refs := strings.Count(out, "[ctxd:ref ")
	hints := regexp.MustCompile(`or run: ctxd rehydrate ([^\]]*) a-b\]`).FindAllStringSubmatch(out, -1)
	if refs == 0 || len(hints) != refs {
		t.Errorf("%d of %d references carry a ctxd rehydrate hint", len(hints), refs)
	}
	for _, h := range hints {
		args := append([]string{"rehydrate"}, strings.Fields(h[1])...)
		if text, errOut, code := runCtxd(t, dir, "", nil, append(args, "1-1")...); code != 0 || text == "" {
			t.Errorf("hint %q: exit %d: %s", h[1], code, errOut)
		}
	}
}

func TestOptimizePassThrough(t *testing.T) {
	in := chatHistory(12)
	tests := []struct {
		name string
		args []string
		env  []string
		mode string
	}{
		{"exact", []string{"--mode", "exact"}, nil, `"rollout_mode": "exact"`},
		{"shadow flag", []string{"--mode", "shadow"}, nil, `"rollout_mode": "shadow"`},
		{"shadow env", nil, []string{"CTXD_SMART_CONTEXT_SHADOW=1"}, `"rollout_mode": "shadow"`},
		{"canary out", nil, []string{"CTXD_SMART_CONTEXT_CANARY_PERCENT=0"}, `"rollout_reason": "rollout_canary_out"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			state := filepath.Join(dir, "state")
			args := append([]string{"optimize", "--report", "-", "--session", "s", "--state-dir", state}, tt.args...)
			out, errOut, code := runCtxd(t, dir, in, tt.env, args...)
			if code != 0 || out != in {
				t.Fatalf("exit %d, output differs from the input: %s", code, errOut)
			}
			if !strings.Contains(errOut, tt.mode) {
				t.Errorf("report lacks %s", tt.mode)
			}
			if _, err := os.Stat(filepath.Join(state, "artifacts")); !os.IsNotExist(err) {
				t.Errorf("state written: %v", err)
			}
		})
	}
}

func TestOptimizeCLIErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		args  []string
		stdin string
		env   []string
		code  int
		want  string
	}{
		{"bad mode", []string{"optimize", "--mode", "fast"}, "{}", nil, 2, "unknown mode"},
		{"bad session", []string{"optimize", "--session", "a/b"}, "{}", nil, 2, "session id"},
		{"bad items", []string{"optimize", "--exact-items", "x"}, "{}", nil, 2, "not an item index"},
		{"not a request", []string{"optimize", "--state-dir", dir}, `{"hello":1}`, nil, 1, "not a chat, anthropic or responses request"},
		// Invalid JSON: one line saying where and what was expected,
		// not the parser's chain of operations.
		{"not json", []string{"optimize", "--state-dir", dir}, "{\"model\": \"gpt-4o\",\n \"messages\": [{\"role\":\"user\" \"content\":\"x\"}]}", nil, 1,
			"ctxd optimize: the request body is not valid JSON at line 2, column 30, byte 49: invalid character '\"' after object key:value pair; want a JSON object: a Chat Completions, Anthropic Messages or Responses request\n"},
		{"bad canary", []string{"optimize", "--state-dir", dir}, chatHistory(1), []string{"CTXD_SMART_CONTEXT_CANARY_PERCENT=150"}, 1, "CTXD_SMART_CONTEXT_CANARY_PERCENT"},
		{"rehydrate without session", []string{"rehydrate", "0123456789abcdef"}, "", nil, 2, "--session is required"},
		{"rehydrate bad lines", []string{"rehydrate", "--session", "s", "0123456789abcdef", "5-2"}, "", nil, 2, "b >= a"},
		{"rehydrate unknown", []string{"rehydrate", "--session", "s", "--state-dir", dir, "0123456789abcdef"}, "", nil, 1, "not stored"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCtxd(t, dir, tt.stdin, tt.env, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d mentioning %q", code, errOut, tt.code, tt.want)
			}
			if out != "" {
				t.Errorf("stdout on error: %q", out)
			}
		})
	}
}

// seedMetrics are the names of the seed's replay result block.
var seedMetrics = strings.Fields(`eligible_long_sessions current_comparison_sessions
median_input_token_reduction_percent_vs_exact current_median_input_token_reduction_percent_vs_exact
median_additional_input_token_reduction_percent_vs_current long_sessions_with_at_least_20_percent_reduction_percent
exact_median_total_tokens_until_completion current_median_total_tokens_until_completion
optimized_median_total_tokens_until_completion exact_success_rate_percent current_success_rate_percent
optimized_success_rate_percent optimized_missing_context_recovery_turns success_regression_basis_points
continuation_integrity_percent tool_call_integrity_percent critical_signal_recall_percent
unresolved_mandatory_artifact_refs corrupted_json_count p95_rewrite_overhead_ms
continuation_fallback_rate_percent required_replay_coverage passed`)

// TestReplayReportStrict is the CI run of the replay benchmark over the
// checked-in corpus, with the real binary.
func TestReplayReportStrict(t *testing.T) {
	t.Parallel() // a subprocess per case: overlaps on two cores
	corpus, err := filepath.Abs("../../compact/smart/replay/testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, errOut, code := runCtxd(t, dir, "", nil, "replay-report", "--strict", corpus)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, m := range seedMetrics {
		if !strings.Contains(out, "\n"+m+": ") && !strings.HasPrefix(out, m+": ") {
			t.Errorf("metric %s missing from the report", m)
		}
	}
	for _, want := range []string{"passed: true", "required_replay_coverage: complete", "continuation_integrity_percent: 100", "critical_signal_recall_percent: 100", "corrupted_json_count: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	js, _, code := runCtxd(t, dir, "", nil, "replay-report", "--json", corpus)
	var rep struct {
		Metrics map[string]any `json:"metrics"`
	}
	if code != 0 || json.Unmarshal([]byte(js), &rep) != nil || len(rep.Metrics) != len(seedMetrics) {
		t.Errorf("--json: exit %d, %d metrics", code, len(rep.Metrics))
	}
	// One session alone cannot cover every hard case: strict fails.
	one := filepath.Join(corpus, "04-multi-file-refactor.json")
	out, errOut, code = runCtxd(t, dir, "", nil, "replay-report", "--strict", one)
	if code != 1 || !strings.Contains(out, "required_replay_coverage: missing") || !strings.Contains(errOut, "strict gates failed") {
		t.Errorf("one session: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, errOut, code := runCtxd(t, dir, "", nil, "replay-report", filepath.Join(dir, "none")); code != 1 || !strings.Contains(errOut, "load corpus") {
		t.Errorf("missing corpus: exit %d %s", code, errOut)
	}
}

// TestDaemonRestartKeepsArtifacts optimizes a turn in one `ctxd serve`
// process, stops it, and rehydrates and optimizes the next turn in a new
// one over the same workspace.
func TestDaemonRestartKeepsArtifacts(t *testing.T) {
	dir := t.TempDir()
	var req map[string]any
	if err := json.Unmarshal([]byte(chatHistory(12)), &req); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, dir)
	result(t, d.call("initialize", map[string]any{"root": dir}))
	rep := result(t, d.call("ctx/optimizeRequest", map[string]any{"request": req, "session_id": "turns"}))["report"].(map[string]any)
	arts, _ := rep["artifacts"].([]any)
	if rep["applied"] != true || len(arts) == 0 || rep["artifacts_stored"].(float64) == 0 {
		t.Fatalf("first daemon: %v", rep)
	}
	hash := arts[0].(map[string]any)["sha256"].(string)
	result(t, d.call("shutdown", nil))
	d.send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	if err := waitExit(d, 10*time.Second); err != nil {
		t.Fatal(err)
	}

	d2 := startDaemon(t, dir)
	result(t, d2.call("initialize", map[string]any{"root": dir}))
	l := result(t, d2.call("ctx/rehydrate", map[string]any{"session_id": "turns", "hash": hash[:16], "start_line": 1, "end_line": 2}))
	if l["sha256"] != hash || strings.Count(l["text"].(string), "\n") != 2 {
		t.Errorf("rehydrate after restart: %v", l)
	}
	rep = result(t, d2.call("ctx/optimizeRequest", map[string]any{"request": req, "session_id": "turns"}))["report"].(map[string]any)
	if rep["applied"] != true || rep["artifacts_stored"].(float64) != 0 {
		t.Errorf("second daemon stored %v artifacts again", rep["artifacts_stored"])
	}
}
