package proxy_test

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"github.com/ctxd/ctxd/tokens"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// received is one request the fake upstream got.
type received struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
}

// upstream is a fake model provider on loopback: it records every request
// and answers like the OpenAI Chat, OpenAI Responses and Anthropic
// Messages APIs, as JSON or, when the body asks for "stream": true, as
// server-sent events. A request with X-Test-Status answers that status
// with an error body in the route's shape. Streams pause between events
// for gap, or until release is signalled when gate is set.
type upstream struct {
	srv *httptest.Server
	gap time.Duration
	// gzip compresses JSON answers for clients that accept it (as the
	// real APIs do).
	gzip bool
	// bytesPerToken, when set, is how many body bytes the fake provider
	// counts as one input token in the usage it reports; 0 counts the
	// whole body with the model's tokenizer (ctxd's tokens package), as
	// a provider's own accounting would, JSON syntax included.
	bytesPerToken int

	mu   sync.Mutex
	reqs []received
	gate chan struct{} // when set, each event after the first waits for a receive
}

func newUpstream(t testing.TB) *upstream {
	t.Helper()
	u := &upstream{}
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstream) requests() []received {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]received(nil), u.reqs...)
}

func (u *upstream) last(t testing.TB) received {
	t.Helper()
	rs := u.requests()
	if len(rs) == 0 {
		t.Fatal("the upstream received nothing")
	}
	return rs[len(rs)-1]
}

// errorBodies are the error bodies of the two API families.
func errorBody(path string, status int) string {
	if path == "/v1/messages" {
		return fmt.Sprintf(`{"type":"error","error":{"type":"rate_limit_error","message":"upstream says %d"}}`, status)
	}
	return fmt.Sprintf(`{"error":{"message":"upstream says %d","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, status)
}

func (u *upstream) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.reqs = append(u.reqs, received{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
	gate := u.gate
	u.mu.Unlock()

	if s := r.Header.Get("X-Test-Status"); s != "" {
		status, _ := strconv.Atoi(s)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req_upstream_error")
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(status)
		if m := r.Header.Get("X-Test-Error"); m != "" {
			io.WriteString(w, m)
			return
		}
		io.WriteString(w, errorBody(r.URL.Path, status))
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"gpt-4o","object":"model","created":1,"owned_by":"test"}]}`)
		return
	}
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"invalid JSON body","type":"invalid_request_error"}}`)
		return
	}
	input := u.usageOf(req.Model, body)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req_upstream_ok")
		if u.gzip && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			io.WriteString(zw, jsonAnswer(r.URL.Path, req.Model, input))
			zw.Close()
			return
		}
		io.WriteString(w, jsonAnswer(r.URL.Path, req.Model, input))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	for i, ev := range sseAnswer(r.URL.Path, req.Model, input) {
		if i > 0 {
			if gate != nil {
				select {
				case <-gate:
				case <-r.Context().Done():
					return
				case <-time.After(10 * time.Second):
					return
				}
			} else if u.gap > 0 {
				time.Sleep(u.gap)
			}
		}
		io.WriteString(w, ev)
		fl.Flush()
	}
}

// usageOf is the input tokens the fake provider reports for body.
func (u *upstream) usageOf(model string, body []byte) int {
	if u.bytesPerToken > 0 {
		return len(body) / u.bytesPerToken
	}
	c, _ := tokens.ForModel(model, 0)
	return c.Count(string(body))
}

func jsonAnswer(path, model string, input int) string {
	switch path {
	case "/v1/messages":
		return fmt.Sprintf(`{"id":"msg_01","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":1}}`, model, input)
	case "/v1/responses":
		return fmt.Sprintf(`{"id":"resp_01","object":"response","created_at":1,"status":"completed","model":%q,"output":[{"type":"message","id":"msg_01","status":"completed","role":"assistant","content":[{"type":"output_text","text":"ok","annotations":[]}]}],"usage":{"input_tokens":%d,"output_tokens":1,"total_tokens":%d}}`, model, input, input+1)
	}
	return fmt.Sprintf(`{"id":"chatcmpl-01","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop","logprobs":null}],"usage":{"prompt_tokens":%d,"completion_tokens":1,"total_tokens":%d}}`, model, input, input+1)
}

// sseAnswer is a streamed answer of "o", "k", "!" in the route's events.
func sseAnswer(path, model string, input int) []string {
	words := []string{"o", "k", "!"}
	var evs []string
	ev := func(name, data string) {
		if name != "" {
			evs = append(evs, "event: "+name+"\ndata: "+data+"\n\n")
		} else {
			evs = append(evs, "data: "+data+"\n\n")
		}
	}
	switch path {
	case "/v1/messages":
		ev("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":1}}}`, model, input))
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		for _, w := range words {
			ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, w))
		}
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}`)
		ev("message_stop", `{"type":"message_stop"}`)
	case "/v1/responses":
		resp := func(status, text string, usage string) string {
			out := `[]`
			if text != "" {
				out = fmt.Sprintf(`[{"type":"message","id":"msg_01","status":"completed","role":"assistant","content":[{"type":"output_text","text":%q,"annotations":[]}]}]`, text)
			}
			return fmt.Sprintf(`{"id":"resp_01","object":"response","created_at":1,"status":%q,"model":%q,"output":%s,"usage":%s}`, status, model, out, usage)
		}
		seq := 0
		next := func() int { seq++; return seq }
		ev("response.created", fmt.Sprintf(`{"type":"response.created","sequence_number":%d,"response":%s}`, next(), resp("in_progress", "", "null")))
		for _, w := range words {
			ev("response.output_text.delta", fmt.Sprintf(`{"type":"response.output_text.delta","sequence_number":%d,"item_id":"msg_01","output_index":0,"content_index":0,"delta":%q}`, next(), w))
		}
		ev("response.completed", fmt.Sprintf(`{"type":"response.completed","sequence_number":%d,"response":%s}`, next(), resp("completed", "ok!", fmt.Sprintf(`{"input_tokens":%d,"output_tokens":3,"total_tokens":%d}`, input, input+3))))
	default:
		for i, w := range words {
			role := ""
			if i == 0 {
				role = `"role":"assistant",`
			}
			ev("", fmt.Sprintf(`{"id":"chatcmpl-01","object":"chat.completion.chunk","created":1,"model":%q,"choices":[{"index":0,"delta":{%s"content":%q},"finish_reason":null}]}`, model, role, w))
		}
		ev("", fmt.Sprintf(`{"id":"chatcmpl-01","object":"chat.completion.chunk","created":1,"model":%q,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":3,"total_tokens":%d}}`, model, input, input+3))
		ev("", "[DONE]")
	}
	return evs
}
