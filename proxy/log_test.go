package proxy_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/proxy"
)

// lineShape is the short line logged per request by default.
var lineShape = regexp.MustCompile(`^(\d{3}|upstream unreachable \(502\)|refused \d{3} \S+) \S+ \S+ (tokens \d+ -> \d+ saved -?\d+%|bytes \d+ \(\S+\)) \d+ms( cache-stable (yes|no|new-session))?( window (none|\d+ \(\w+\)))?( upstream-error \S+)?( session \S+)?$`)

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
