package proxy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/compact/smart"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/proxy"
)

// lineShape is the short line logged per request by default.
var lineShape = regexp.MustCompile(`^(\d{3}|upstream unreachable \(502\)|client gone \(499\)|refused \d{3} \S+) \S+ \S+ (tokens \d+ -> \d+ saved -?\d+%( \(shadow: would be \d+, saved -?\d+%\))?|bytes \d+ \(\S+\)) \d+ms( cache-stable (yes|no|new-session))?( window (none|\d+ \(\w+\)))?( upstream-error \S+)?( client-gone mid-response)?( session \S+)?$`)

// logLines returns the messages of the log's records at level (JSON).
func logLines(t *testing.T, logs string, level string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(logs), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if m["level"] == level {
			out = append(out, m["msg"].(string))
		}
	}
	return out
}

// waitLines returns the messages at level once want are there (a record
// is written after the response is relayed), or after a few seconds.
func waitLines(t *testing.T, logs *testutil.SyncBuffer, level string, want int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := logLines(t, logs.String(), level)
		if len(got) >= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// nextTurn is a chat body with an assistant answer and a new user
// message appended: the agent's next request.
func nextTurn(t *testing.T, body []byte, answer, ask string) []byte {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	v["messages"] = append(v["messages"].([]any), map[string]any{"role": "assistant", "content": answer}, map[string]any{"role": "user", "content": ask})
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// One short line per request by default, of a fixed shape; a model with
// no known window is logged once per session, and its requests are not
// cut for pressure (a session within the masking horizon, which masking
// leaves whole too); the second turn's forwarded prefix is the first's.
func TestLogLine(t *testing.T) {
	up := newUpstream(t)
	px, logs := startProxy(t, up, setup{lines: true})
	turn1 := bytes.Replace(convo(t, "chat", proxy.DefaultMaskHorizon, false), []byte(`"gpt-4o"`), []byte(`"acme-gateway-alias"`), 1)
	turn2 := nextTurn(t, turn1, "Fixed.", "Now run the whole suite.")
	for _, b := range [][]byte{turn1, turn2} {
		if resp, answer := post(t, px.URL, "/v1/chat/completions", b, nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, answer)
		}
	}
	info := waitLines(t, logs, "INFO", 2)
	if len(info) != 2 {
		t.Fatalf("%d info lines, want one per request: %q", len(info), info)
	}
	for i, l := range info {
		if !lineShape.MatchString(l) {
			t.Errorf("line %q is not of the shape %s", l, lineShape)
		}
		if !strings.HasPrefix(l, "200 chat/completions acme-gateway-alias tokens ") || !strings.Contains(l, " window none ") {
			t.Errorf("line %d: %q", i, l)
		}
	}
	if !strings.Contains(info[0], "cache-stable new-session") || !strings.Contains(info[1], "cache-stable yes") {
		t.Errorf("cache verdicts: %q", info)
	}
	if warn := logLines(t, logs.String(), "WARN"); len(warn) != 1 || !strings.Contains(warn[0], "no context window known") {
		t.Errorf("no-window warnings %q, want one per session", warn)
	}
	if got := up.requests()[0].Body; !bytes.Equal(got, turn1) {
		t.Errorf("a request of a model with no known window was rewritten (%d -> %d bytes)", len(turn1), len(got))
	}
}

// An upstream that cannot be reached is said so, not "status 0".
func TestLogLineUnreachable(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	px, logs := startProxy(t, &upstream{srv: dead}, setup{lines: true})
	if resp, _ := post(t, px.URL, "/v1/chat/completions", convo(t, "chat", 1, false), nil); resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("status %d, want 502", resp.StatusCode)
	}
	if info := waitLines(t, logs, "INFO", 1); len(info) != 1 || !strings.HasPrefix(info[0], "upstream unreachable (502) chat/completions gpt-4o ") || !lineShape.MatchString(info[0]) {
		t.Errorf("lines %q", info)
	}
}

// The window an upstream's context-length error names is the window of
// the model's later requests when the registry does not know it.
func TestReportedWindow(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		w.Header().Set("Content-Type", "application/json")
		if n == 1 {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"message":"This model's maximum context length is 16000 tokens. However, your messages resulted in 30000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`))
			return
		}
		w.Write([]byte(`{"id":"x","object":"chat.completion","choices":[],"usage":{"prompt_tokens":10}}`))
	}))
	t.Cleanup(srv.Close)
	px, logs := startProxy(t, &upstream{srv: srv}, setup{})
	body := bytes.Replace(convo(t, "chat", 6, false), []byte(`"gpt-4o"`), []byte(`"acme-gateway-alias"`), 1)
	post(t, px.URL, "/v1/chat/completions", body, nil)
	post(t, px.URL, "/v1/chat/completions", body, nil)
	recs := records(t, logs, 2)
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	if recs[0]["model_context_window_source"] != "none" || recs[1]["model_context_window_source"] != "observed" || recs[1]["model_context_window_tokens"] != 16000.0 {
		t.Errorf("windows: %v (%v), then %v (%v); want none, then 16000 observed", recs[0]["model_context_window_tokens"], recs[0]["model_context_window_source"], recs[1]["model_context_window_tokens"], recs[1]["model_context_window_source"])
	}
	if recs[1]["applied"] != true {
		t.Errorf("the request over the reported window was not rewritten")
	}
}

// With secrets.redact_conversation the proxy forwards no secret: the
// redaction is the request flow's, as in the CLI, the daemon and MCP.
func TestProxyRedacts(t *testing.T) {
	const pat = "ghp_AeKOmXRrvftva9AW7hipTgadDZFlRJmCGmUX"
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			up := newUpstream(t)
			px, _ := startProxy(t, up, setup{redact: true})
			body := bytes.Replace(convo(t, f.name, 2, false), []byte("Run the tests and fix the failures."), []byte("Push with the token "+pat+"."), 1)
			if !bytes.Contains(body, []byte(pat)) {
				t.Fatal("no secret in the request")
			}
			if resp, answer := post(t, px.URL, f.path, body, nil); resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, answer)
			}
			if got := up.last(t).Body; bytes.Contains(got, []byte(pat)) || !bytes.Contains(got, []byte("[REDACTED github-pat]")) {
				t.Errorf("the upstream got the secret unredacted")
			}
		})
	}
}

// TestStepAsideRedacts: with redaction on, a request the proxy steps
// aside from (over the window, not a request of the route's format, a
// state directory it cannot write) is forwarded redacted and still valid
// JSON, as in shadow mode and outside a canary; a body that is not JSON
// and holds a secret cannot be redacted, so it is refused (400
// ctxd_unredactable_request) and nothing is forwarded; one that is not
// JSON and holds none is forwarded as sent.
func TestStepAsideRedacts(t *testing.T) {
	const pat, akid = "ghp_AeKOmXRrvftva9AW7hipTgadDZFlRJmCGmUX", "AKIA454ML6LG4TJFCZ4K" // fakes
	secret := "push with " + pat + " and key " + akid
	big := strings.Repeat("the quick brown fox jumps over the lazy dog ", 2000)
	overWindow, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": []any{map[string]any{"role": "user", "content": secret + "\n" + big}}})
	notRequest, _ := json.Marshal([]any{"not", "a", "request", secret})
	small, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": []any{map[string]any{"role": "user", "content": secret}}})
	// Outputs the optimizer condenses and stores (as TestStepsAside's).
	msgs := []map[string]any{{"role": "user", "content": "run the build, " + secret}}
	for i := range 6 {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "sh", "arguments": `{"cmd":"make"}`}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": strings.Repeat("line of build output that goes on\n", 400)})
	}
	msgs = append(msgs, map[string]any{"role": "user", "content": "what failed?"})
	withTools, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": msgs})
	zero := 0
	tests := []struct {
		name string
		s    setup
		body []byte
		prep func(state string)
	}{
		{"over the window", setup{budget: 300}, overWindow, nil},
		{"not a request", setup{}, notRequest, nil},
		{"state dir unwritable", setup{budget: 300}, withTools, func(state string) {
			if err := os.MkdirAll(state, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(state, "artifacts"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"shadow", setup{mode: smart.ModeShadow}, small, nil},
		{"canary out", setup{canary: &zero}, small, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up := newUpstream(t)
			tt.s.redact, tt.s.stateDir = true, filepath.Join(t.TempDir(), "state")
			if tt.prep != nil {
				tt.prep(tt.s.stateDir)
			}
			px, logs := startProxy(t, up, tt.s)
			if resp, answer := post(t, px.URL, "/v1/chat/completions", tt.body, nil); resp.Header.Get("X-Ctxd-Error") != "" {
				t.Fatalf("the proxy answered itself: %d %s", resp.StatusCode, answer)
			}
			got := up.last(t).Body
			if bytes.Contains(got, []byte(pat)) || bytes.Contains(got, []byte(akid)) || !bytes.Contains(got, []byte("[REDACTED github-pat]")) {
				t.Errorf("the upstream got a secret unredacted:\n%.300s", got)
			}
			if !json.Valid(got) {
				t.Errorf("the redacted body is not JSON:\n%.300s", got)
			}
			r := records(t, logs, 1)[0]
			if reason, _ := r["proxy_reason"].(string); tt.s.mode == "" && tt.s.canary == nil && !strings.HasPrefix(reason, "stepped_aside_") {
				t.Errorf("record %v: not stepped aside", r)
			}
		})
	}
	t.Run("not JSON", func(t *testing.T) {
		up := newUpstream(t)
		px, _ := startProxy(t, up, setup{redact: true})
		withSecret := []byte(`{"model":"gpt-4o","messages":[{"role":"user","content":"` + secret + `"}`)
		resp, answer := post(t, px.URL, "/v1/chat/completions", withSecret, nil)
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("X-Ctxd-Error") != "ctxd_unredactable_request" || !bytes.Contains(answer, []byte("--redact-secrets")) {
			t.Errorf("status %d %q: %s; want 400 ctxd_unredactable_request", resp.StatusCode, resp.Header.Get("X-Ctxd-Error"), answer)
		}
		if bytes.Contains(answer, []byte(pat)) {
			t.Error("the refusal quotes the secret")
		}
		if n := len(up.requests()); n != 0 {
			t.Errorf("%d requests forwarded, want none", n)
		}
		// A compressed body cannot be read, so it is refused too.
		gz := []byte("\x1f\x8b not really gzip " + secret)
		resp, answer = post(t, px.URL, "/v1/chat/completions", gz, map[string]string{"Content-Encoding": "gzip"})
		if resp.StatusCode != http.StatusUnsupportedMediaType || resp.Header.Get("X-Ctxd-Error") != "ctxd_unredactable_request" {
			t.Errorf("a compressed body: status %d %q: %s; want 415 ctxd_unredactable_request", resp.StatusCode, resp.Header.Get("X-Ctxd-Error"), answer)
		}
		if n := len(up.requests()); n != 0 {
			t.Errorf("%d requests forwarded, want none", n)
		}
		clean := []byte(`{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}`)
		if resp, answer := post(t, px.URL, "/v1/chat/completions", clean, nil); resp.Header.Get("X-Ctxd-Error") != "" || !bytes.Equal(up.last(t).Body, clean) {
			t.Errorf("a body without a secret: status %d %s, not forwarded as sent", resp.StatusCode, answer)
		}
	})
	// A route the proxy does not rewrite carries conversations too
	// (Anthropic's count_tokens): its body is redacted the same way, a
	// body it cannot redact refused; without redaction it streams as sent.
	t.Run("passthrough route", func(t *testing.T) {
		const route = "/v1/messages/count_tokens"
		up := newUpstream(t)
		px, _ := startProxy(t, up, setup{redact: true})
		if resp, answer := post(t, px.URL, route, small, nil); resp.Header.Get("X-Ctxd-Error") != "" {
			t.Fatalf("the proxy answered itself: %d %s", resp.StatusCode, answer)
		}
		got := up.last(t).Body
		if bytes.Contains(got, []byte(pat)) || bytes.Contains(got, []byte(akid)) || !bytes.Contains(got, []byte("[REDACTED github-pat]")) || !json.Valid(got) {
			t.Errorf("%s: the upstream got %.300s, want the body redacted, valid JSON", route, got)
		}
		n := len(up.requests())
		withSecret := []byte(`{"messages":[{"role":"user","content":"` + secret + `"}`)
		if resp, answer := post(t, px.URL, route, withSecret, nil); resp.StatusCode != http.StatusBadRequest || resp.Header.Get("X-Ctxd-Error") != "ctxd_unredactable_request" {
			t.Errorf("%s, not JSON: status %d %q: %s; want 400 ctxd_unredactable_request", route, resp.StatusCode, resp.Header.Get("X-Ctxd-Error"), answer)
		}
		if len(up.requests()) != n {
			t.Error("a body that could not be redacted was forwarded")
		}
		plain := newUpstream(t)
		px2, _ := startProxy(t, plain, setup{})
		post(t, px2.URL, route, small, nil)
		if got := plain.last(t).Body; !bytes.Equal(got, small) {
			t.Errorf("without redaction %s's body changed: %.300s", route, got)
		}
	})
}

// TestExactModeCannotRedact: exact mode streams bodies unread, so a
// proxy asked to redact refuses to start in it, with a message naming
// the mode that can (shadow).
func TestExactModeCannotRedact(t *testing.T) {
	flow, err := proxy.NewFlowWith(engine.RequestsOptions{StateDir: t.TempDir(), RedactConversation: true}, -1)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("http://127.0.0.1:1")
	if _, err := proxy.New(proxy.Options{Upstream: u, Mode: smart.ModeExact, Flow: flow}); err == nil || !strings.Contains(err.Error(), "--mode shadow") {
		t.Errorf("exact mode with redaction: %v, want a refusal naming --mode shadow", err)
	}
	if _, err := proxy.New(proxy.Options{Upstream: u, Mode: smart.ModeShadow, Flow: flow}); err != nil {
		t.Errorf("shadow mode with redaction: %v", err)
	}
}
