package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// chatHistory is a Chat request with n long tool outputs.
func chatHistory(n int) string {
	msgs := []string{`{"role":"system","content":"You are a coding agent."}`, `{"role":"user","content":"Fix the test."}`}
	for i := range n {
		msgs = append(msgs,
			fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.go\"}"}}]}`, i),
			fmt.Sprintf(`{"role":"tool","tool_call_id":"call_%d","content":%q}`, i, strings.Repeat(fmt.Sprintf("line %d of a long file\n", i), 200)))
	}
	msgs = append(msgs, `{"role":"user","content":"And now?"}`)
	return `{"model":"gpt-4o", "messages":[` + strings.Join(msgs, ",\n ") + `]}`
}

func TestCompressCLI(t *testing.T) {
	t.Parallel() // a subprocess per case: overlaps on two cores
	small := `{"model": "gpt-4o",  "messages": [{"role":"user","content":"hi \u00e9"}], "x": 1.0}`
	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		stdout   func(t *testing.T, out string)
		contains []string // in stderr
	}{
		{name: "untouched request is byte-identical", args: []string{"compress", "--report", "-"}, stdin: small,
			stdout: func(t *testing.T, out string) {
				if out != small {
					t.Errorf("stdout %q, want the input", out)
				}
			}, contains: []string{`"ratio": 1`, `"fits": true`}},
		{name: "budget", args: []string{"compress", "--report", "-", "--budget", "3000", "--window-size", "2"}, stdin: chatHistory(12),
			stdout: func(t *testing.T, out string) {
				var v map[string]any
				if err := json.Unmarshal([]byte(out), &v); err != nil {
					t.Fatalf("stdout is not JSON: %v", err)
				}
				if !strings.Contains(out, "chars hidden to save context") || !strings.HasSuffix(out, `{"role":"user","content":"And now?"}]}`) {
					t.Errorf("not compressed as expected:\n%.500s", out)
				}
			}, contains: []string{`"decision": "condensed"`, `"budget": 3000`, `"fits": true`}},
		{name: "retry", args: []string{"compress", "--report", "-", "--retry-error", "ValueError: invalid input", "--budget", "3000", "-"}, stdin: chatHistory(3),
			stdout: func(t *testing.T, out string) {
				if !strings.Contains(out, `[AUTO-FIX RECOVERY]\nPrevious attempt failed: ValueError: invalid input`) {
					t.Errorf("no retry note:\n%.2000s", out)
				}
			}, contains: []string{`"kind": "retry_note"`}},
		{name: "a request that cannot fit at its minimum fails", args: []string{"compress", "--budget", "5"}, stdin: chatHistory(1), code: 1,
			stdout: func(t *testing.T, out string) {
				if out != "" {
					t.Errorf("an oversize request was written: %.200s", out)
				}
			}, contains: []string{"over token budget", "protocol-exact minimum", "the budget is 5"}},
		{name: "not a request", args: []string{"compress"}, stdin: `{"hello":1}`, code: 1, contains: []string{"not a chat, anthropic or responses request"}},
		{name: "not json", args: []string{"compress"}, stdin: `{"messages":[`, code: 1, contains: []string{"ctxd compress: the request body is not valid JSON at line 1, column 14, byte 13: unexpected end of JSON input; want a JSON object: a Chat Completions, Anthropic Messages or Responses request\n"}},
		{name: "bad format flag", args: []string{"compress", "--format", "xml"}, stdin: small, code: 2, contains: []string{"unknown request format"}},
		{name: "negative budget", args: []string{"compress", "--budget", "-1"}, stdin: small, code: 2, contains: []string{"must not be negative"}},
		{name: "two files", args: []string{"compress", "a", "b"}, code: 2, contains: []string{"at most one FILE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCtxd(t, t.TempDir(), tt.stdin, nil, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s", code, tt.code, errOut)
			}
			if tt.stdout != nil {
				tt.stdout(t, out)
			}
			for _, s := range tt.contains {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr lacks %q:\n%.3000s", s, errOut)
				}
			}
		})
	}
}

func TestCompressCLIReportFile(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "req.json")
	if err := os.WriteFile(in, []byte(chatHistory(4)), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report.json")
	_, errOut, code := runCtxd(t, dir, "", nil, "compress", "--report", report, "--model", "gpt-4", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// With --report the report is not on stderr; what is there is the
	// note that no git repository holds the directory (references are
	// stored under it).
	if strings.Contains(errOut, `"tokens_before"`) || errOut != "" && !strings.HasPrefix(errOut, "ctxd: not in a git repository: references are stored under ") {
		t.Errorf("stderr with --report: %s", errOut)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Model    string `json:"model"`
		Budget   int    `json:"budget"`
		Messages []any  `json:"messages"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Model != "gpt-4" || rep.Budget != 8192-2048 || len(rep.Messages) != 11 {
		t.Errorf("report = %+v", rep)
	}
}

// TestCompressReferencesRehydrate: every reference ctxd compress --session
// emits resolves with ctxd rehydrate to the text it replaced, byte for
// byte; and a request carrying a reference the session cannot resolve
// fails closed, in compress and in optimize.
func TestCompressReferencesRehydrate(t *testing.T) {
	dir := t.TempDir()
	in := chatHistory(12)
	out, errOut, code := runCtxd(t, dir, in, nil, "compress", "--session", "s1", "--budget", "3000", "--window-size", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var req struct {
		Messages []struct {
			Content *string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(in), &req); err != nil {
		t.Fatal(err)
	}
	originals := map[string]bool{}
	for _, m := range req.Messages {
		if m.Content != nil {
			originals[*m.Content] = true
		}
	}
	hashes := markerHashes(out)
	if len(hashes) == 0 {
		t.Fatalf("no reference in the compressed request:\n%.1000s", out)
	}
	for _, h := range hashes {
		text, errOut, code := runCtxd(t, dir, "", nil, "rehydrate", "--session", "s1", h)
		if code != 0 {
			t.Fatalf("rehydrate %s: exit %d: %s", h, code, errOut)
		}
		if !originals[text] && !strings.Contains(text, "=== message ") {
			t.Errorf("reference %s rehydrates to text that is not a replaced message:\n%.300s", h, text)
		}
	}
	// Every reference carries the command that reads it back, and the
	// command, run as written, works.
	hints := regexp.MustCompile(`or run: ctxd rehydrate ([^\]]*) a-b\]`).FindAllStringSubmatch(out, -1)
	if len(hints) != len(hashes) {
		t.Errorf("%d of %d references carry a ctxd rehydrate hint", len(hints), len(hashes))
	}
	for _, h := range hints {
		args := append([]string{"rehydrate"}, strings.Fields(h[1])...)
		if text, errOut, code := runCtxd(t, dir, "", nil, append(args, "1-1")...); code != 0 || text == "" {
			t.Errorf("hint %q: exit %d: %s", h[1], code, errOut)
		}
	}
	// The compressed request goes back in (the next turn): it resolves.
	if _, errOut, code := runCtxd(t, dir, out, nil, "compress", "--session", "s1", "--budget", "3000"); code != 0 {
		t.Fatalf("second pass: exit %d: %s", code, errOut)
	}
	// The artifacts are gone: both compactors refuse the request.
	if err := os.RemoveAll(filepath.Join(dir, ".ctxd", "artifacts")); err != nil {
		t.Fatal(err)
	}
	// rehydrate says where it looked, so a user who ran compress with
	// another --state-dir knows which one to pass.
	if _, errOut, code := runCtxd(t, dir, "", nil, "rehydrate", "--session", "s1", hashes[0]); code == 0 || !strings.Contains(errOut, "looked in the state directory "+filepath.Join(dir, ".ctxd")) {
		t.Errorf("rehydrate of a missing artifact: exit %d, stderr %q; want it to name the state directory %s", code, errOut, filepath.Join(dir, ".ctxd"))
	}
	for _, args := range [][]string{{"compress", "--session", "s1"}, {"optimize", "--session", "s1"}} {
		got, errOut, code := runCtxd(t, dir, out, nil, args...)
		if code != 1 || got != "" || !strings.Contains(errOut, "unresolvable ctxd reference") {
			t.Errorf("%s with a missing artifact: exit %d, stdout %d bytes, stderr %q; want exit 1 and nothing sent", args[0], code, len(got), errOut)
		}
	}
}

// markerHashes returns the hashes of the ctxd references in text.
func markerHashes(text string) []string {
	var out []string
	for _, part := range strings.Split(text, "[ctxd:")[1:] {
		if i := strings.Index(part, "sha256="); i >= 0 && len(part) >= i+7+16 {
			out = append(out, part[i+7:i+7+16])
		}
	}
	return out
}

// TestRequestReportOnlyWhenAsked: compress and optimize write their JSON
// report only with --report (FILE, or - for stderr); by default stderr
// holds nothing but the workspace note.
func TestRequestReportOnlyWhenAsked(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{"a.go": "package a\n"})
	for _, cmd := range []string{"compress", "optimize"} {
		out, errOut, code := runCtxd(t, dir, chatHistory(12), nil, cmd, "--session", "s", "--budget", "3000")
		if code != 0 || out == "" {
			t.Fatalf("%s: exit %d, stdout %d bytes: %s", cmd, code, len(out), errOut)
		}
		if errOut != "" {
			t.Errorf("%s without --report wrote to stderr:\n%.500s", cmd, errOut)
		}
		_, errOut, _ = runCtxd(t, dir, chatHistory(12), nil, cmd, "--session", "s", "--budget", "3000", "--report", "-")
		var rep map[string]any
		if err := json.Unmarshal([]byte(errOut), &rep); err != nil {
			t.Errorf("%s --report -: stderr is not the JSON report: %v\n%.500s", cmd, err, errOut)
		}
	}
}

// TestRequestUnknownWindowWarns: compress and optimize of a model no
// registry knows, with no window given, say on stderr (one line, even
// without --report) that the window is unknown and how to give it, and
// their report shows no window number (request.NoWindow read 1073741824);
// a known model, or a given window, warns of nothing.
func TestRequestUnknownWindowWarns(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{"a.go": "package a\n"})
	for _, cmd := range []string{"compress", "optimize"} {
		out, errOut, code := runCtxd(t, dir, chatHistory(6), nil, cmd, "--session", "s", "--model", "acme-9000")
		if code != 0 || out == "" {
			t.Fatalf("%s: exit %d, stdout %d bytes: %s", cmd, code, len(out), errOut)
		}
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "ctxd: context window unknown: model \"acme-9000\"") || !strings.Contains(lines[0], "--context-window") {
			t.Errorf("%s: stderr %q, want one line that the window is unknown and how to give it", cmd, errOut)
		}
		_, errOut, _ = runCtxd(t, dir, chatHistory(6), nil, cmd, "--session", "s", "--model", "acme-9000", "--report", "-")
		if strings.Contains(errOut, "1073741824") {
			t.Errorf("%s --report -: the report shows the sentinel window:\n%.800s", cmd, errOut)
		}
		for _, args := range [][]string{{"--model", "gpt-4o"}, {"--model", "acme-9000", "--context-window", "32000"}} {
			_, errOut, _ = runCtxd(t, dir, chatHistory(6), nil, append([]string{cmd, "--session", "s"}, args...)...)
			if errOut != "" {
				t.Errorf("%s %v: stderr %q, want nothing", cmd, args, errOut)
			}
		}
	}
}
