package proxy_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestNPMClients drives the proxy with the official `openai` and
// `@anthropic-ai/sdk` npm clients (test/interop/proxy-client.mjs)
// pointed at its base URL, against the fake upstream.
func TestNPMClients(t *testing.T) {
	node, dir := testutil.Interop(t, "../test/interop")
	up := newUpstream(t)
	up.gap = 100 * time.Millisecond
	px, logs := startProxy(t, up, setup{})

	reqDir := t.TempDir()
	for _, f := range formats {
		if err := os.WriteFile(filepath.Join(reqDir, f.name+".json"), convo(t, f.name, paysRounds, false), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout := testutil.RunInterop(t, node, dir, nil, "proxy-client.mjs", px.URL, reqDir)
	type stream struct {
		Events   []string `json:"events"`
		SpreadMs int      `json:"spreadMs"`
	}
	var out struct {
		ChatLast, ResponsesLast, AnthropicLast string
		Chat                                   struct{ Content string }
		Responses                              struct{ Content string }
		Anthropic                              struct{ Content string }
		ChatStream                             stream `json:"chat_stream"`
		ResponsesStream                        stream `json:"responses_stream"`
		AnthropicStream                        stream `json:"anthropic_stream"`
		OpenAIError                            struct {
			Status    int
			Message   string
			RequestID string
		} `json:"openai_error"`
		AnthropicError struct {
			Status  int
			Message string
		} `json:"anthropic_error"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("client output %q: %v", stdout, err)
	}
	raw := map[string]json.RawMessage{}
	json.Unmarshal(stdout, &raw)
	json.Unmarshal(raw["chat_last"], &out.ChatLast)
	json.Unmarshal(raw["responses_last"], &out.ResponsesLast)
	json.Unmarshal(raw["anthropic_last"], &out.AnthropicLast)

	if out.Chat.Content != "ok" || out.Responses.Content != "ok" || out.Anthropic.Content != "ok" {
		t.Errorf("answers through the proxy: %+v %+v %+v", out.Chat, out.Responses, out.Anthropic)
	}
	// Every model request reached the upstream smaller, valid, with its
	// tool pairs and its latest user turn as the client sent it.
	last := map[string]string{"/v1/chat/completions": out.ChatLast, "/v1/responses": out.ResponsesLast, "/v1/messages": out.AnthropicLast}
	sizes := map[string]int{}
	for _, f := range formats {
		sizes[f.path] = len(convo(t, f.name, paysRounds, false))
	}
	n := 0
	for _, r := range up.requests() {
		if r.Header.Get("X-Test-Status") != "" {
			continue
		}
		n++
		if len(r.Body) >= sizes[r.Path]*3/4 {
			t.Errorf("%s: upstream got %d bytes of about %d", r.Path, len(r.Body), sizes[r.Path])
		}
		checkPairs(t, r.Body)
		its := items(t, r.Body)
		if got := string(its[len(its)-1]); got != last[r.Path] {
			t.Errorf("%s: latest user turn changed:\n got %s\nwant %s", r.Path, got, last[r.Path])
		}
		switch r.Path {
		case "/v1/messages":
			// @anthropic-ai/sdk 1.x sends the key as a bearer token; 0.x
			// sent X-Api-Key.
			key := r.Header.Get("X-Api-Key")
			if key == "" {
				key = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			}
			if key != "sk-ant-interop-SECRET" || r.Header.Get("Anthropic-Version") == "" {
				t.Errorf("anthropic headers did not reach the upstream: %v", r.Header)
			}
		default:
			if r.Header.Get("Authorization") != "Bearer sk-interop-SECRET-openai" {
				t.Errorf("%s: Authorization did not reach the upstream", r.Path)
			}
		}
	}
	if n != 6 {
		t.Errorf("upstream got %d model requests, want 6", n)
	}
	// Streams arrive event by event: the upstream waits 100ms between
	// events, and the client saw them spread over that time.
	for name, s := range map[string]stream{"chat": out.ChatStream, "responses": out.ResponsesStream, "anthropic": out.AnthropicStream} {
		if len(s.Events) < 4 || s.SpreadMs < 200 {
			t.Errorf("%s stream: %d events over %dms; want them as the upstream sent them, 100ms apart", name, len(s.Events), s.SpreadMs)
		}
	}
	if out.OpenAIError.Status != 429 || !strings.Contains(out.OpenAIError.Message, "upstream says 429") || out.OpenAIError.RequestID != "req_upstream_error" {
		t.Errorf("openai error = %+v, want the upstream's 429", out.OpenAIError)
	}
	if out.AnthropicError.Status != 429 || !strings.Contains(out.AnthropicError.Message, "upstream says 429") {
		t.Errorf("anthropic error = %+v, want the upstream's 429", out.AnthropicError)
	}
	recs := records(t, logs, 8)
	if len(recs) != 8 {
		t.Errorf("%d records, want 8", len(recs))
	}
	if bytes.Contains([]byte(logs.String()), []byte("SECRET")) {
		t.Errorf("the log holds a credential")
	}
}
