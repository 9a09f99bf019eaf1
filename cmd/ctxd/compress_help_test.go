package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestCompressHelpSaysWhatFits: compress condenses older long outputs of a
// request that fits once it fills half its budget (docs/compaction.md,
// step 5), and leaves one under half as it is; its help said "a request
// that fits is left as it is", so a new user's 61k-token request with a
// 111k budget came back at 16k.
func TestCompressHelpSaysWhatFits(t *testing.T) {
	t.Parallel()
	// Eight reads of distinct files, each about 1,000 tokens of distinct
	// lines: about 8,000 tokens in all.
	msgs := []string{`{"role":"system","content":"You are a coding agent."}`, `{"role":"user","content":"Fix the test."}`}
	for i := range 8 {
		var b strings.Builder
		for l := range 120 {
			fmt.Fprintf(&b, "func f%d_%d() int { return %d * %d }\n", i, l, i, l)
		}
		msgs = append(msgs,
			fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"f%d.go\"}"}}]}`, i, i),
			fmt.Sprintf(`{"role":"tool","tool_call_id":"call_%d","content":%q}`, i, b.String()))
	}
	msgs = append(msgs, `{"role":"user","content":"And now?"}`)
	req := `{"model":"gpt-4o","messages":[` + strings.Join(msgs, ",") + `]}`
	dir := t.TempDir()
	for _, tt := range []struct {
		budget  string
		changed bool
	}{
		{"40000", false}, // under half the budget: as it is
		{"12000", true},  // two thirds of it: older outputs condensed, still fits
	} {
		out, errOut, code := runCtxd(t, dir, req, nil, "compress", "--state-dir", dir, "--budget", tt.budget, "--report", "-")
		if code != 0 {
			t.Fatalf("budget %s: exit %d: %s", tt.budget, code, errOut)
		}
		var rep struct {
			Before int  `json:"tokens_before"`
			After  int  `json:"tokens_after"`
			Fits   bool `json:"fits"`
		}
		if err := json.Unmarshal([]byte(errOut), &rep); err != nil {
			t.Fatalf("budget %s: report: %v\n%s", tt.budget, err, errOut)
		}
		if (out != req) != tt.changed || !rep.Fits {
			t.Errorf("budget %s: changed %v (tokens %d -> %d, fits %v), want changed %v", tt.budget, out != req, rep.Before, rep.After, rep.Fits, tt.changed)
		}
	}
	help, _, code := runCtxd(t, dir, "", nil, "help", "compress")
	if code != 0 || strings.Contains(help, "A request that fits is left as it") || !strings.Contains(strings.Join(strings.Fields(help), " "), "under half its budget is left as it is") {
		t.Errorf("ctxd help compress does not say what happens to a request that fits:\n%s", help)
	}
}
