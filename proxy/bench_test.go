package proxy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/compact/smart"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/proxy"
)

// benchConvo is a chat request of about 150k tokens for gpt-5 (a 400k
// window): fifteen tool rounds of ~10k tokens each. salt changes the
// conversation's first request (a new session); fresh, when positive,
// makes the last round's output new (a new turn of a running agent) or,
// with every set, every output new (nothing cached).
func benchConvo(b *testing.B, salt string, fresh int, every bool) []byte {
	b.Helper()
	msgs := []any{map[string]any{"role": "system", "content": "You are a coding agent."}, map[string]any{"role": "user", "content": "Run the tests and fix the failures. " + salt}}
	const rounds = 15
	for i := range rounds {
		id := fmt.Sprintf("call_%d", i)
		out := testutil.ToolOutput(i)
		if fresh > 0 && (every || i == rounds-1) {
			out = fmt.Sprintf("run %d\n", fresh) + out
		}
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "run_shell", "arguments": fmt.Sprintf(`{"cmd":"cat pkg%d/big.go"}`, i)}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": out})
	}
	msgs = append(msgs, map[string]any{"role": "user", "content": "Now fix pkg3."})
	body, err := json.Marshal(map[string]any{"model": "gpt-5", "messages": msgs})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkProxyLatency measures the latency a request of ~150k tokens
// sees, client to loopback fake upstream and back, directly and through
// the proxy, and reports its p50 and p95:
//
//	go test -run XXX -bench ProxyLatency -benchtime 40x ./proxy
//
// direct: no proxy. exact: the proxy forwards the bytes. optimize-turn:
// Smart Context on a running conversation whose newest tool output is
// new each request (the agent's steady state: earlier outputs are in the
// content caches). optimize-cold: every output new (a first request).
func BenchmarkProxyLatency(b *testing.B) {
	up := newUpstream(b)
	// Usage by bytes: the fake provider's own tokenizing of a 533 KB
	// body would be most of every path's latency. A token per 3 bytes
	// is about 1.15 times ctxd's estimate of these bodies (3.46 bytes a
	// token), a provider that counts the JSON syntax too; the proxy
	// calibrates the later requests' pressure by it.
	up.bytesPerToken = 3
	cases := []struct {
		name string
		mode smart.Mode
		via  bool
		body func(i int) []byte
	}{
		{"direct", "", false, func(int) []byte { return benchConvo(b, "", 0, false) }},
		{"exact", smart.ModeExact, true, func(int) []byte { return benchConvo(b, "", 0, false) }},
		{"optimize-turn", smart.ModeOptimize, true, func(i int) []byte { return benchConvo(b, "", i+1, false) }},
		{"optimize-cold", smart.ModeOptimize, true, func(i int) []byte { return benchConvo(b, fmt.Sprint(i), i+1, true) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			base := up.srv.URL
			if c.via {
				flow, err := proxy.NewFlowWith(engine.RequestsOptions{StateDir: filepath.Join(b.TempDir(), "state")}, -1)
				if err != nil {
					b.Fatal(err)
				}
				u, _ := url.Parse(up.srv.URL)
				p, err := proxy.New(proxy.Options{Upstream: u, Mode: c.mode, Flow: flow, Logger: slog.New(slog.DiscardHandler)})
				if err != nil {
					b.Fatal(err)
				}
				srv := httptest.NewServer(p)
				defer srv.Close()
				p.SetPublicURL(srv.URL) // references carry the GET hint, as with ctxd proxy
				base = srv.URL
			}
			// A warm-up request (connections, tokenizer tables, the
			// earlier turns of the conversation).
			send(b, base, c.body(-1))
			bodies := make([][]byte, b.N)
			for i := range bodies {
				bodies[i] = c.body(i)
			}
			lat := make([]time.Duration, 0, b.N)
			b.SetBytes(int64(len(bodies[0])))
			b.ResetTimer()
			for i := range b.N {
				t0 := time.Now()
				send(b, base, bodies[i])
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[(len(lat)*95)/100].Microseconds())/1000, "p95-ms")
			if c.via && c.mode == smart.ModeOptimize {
				if n := len(up.last(b).Body); n >= len(bodies[0]) {
					b.Errorf("optimize sent %d bytes of %d", n, len(bodies[0]))
				}
			}
		})
	}
}

// send posts body as a chat completion to the proxy at base and fails
// unless it is answered with one.
func send(b testing.TB, base string, body []byte) {
	b.Helper()
	resp, err := http.Post(base+"/v1/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(out), "chat.completion") {
		b.Fatalf("status %d: %s", resp.StatusCode, out)
	}
}

// manySmall is the chat request of scripts/proxy-mem.py's SHAPE=many: a
// system prompt, then n alternating user and assistant messages of
// about forty bytes (about 67 bytes a message in JSON).
func manySmall(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"model": "gpt-4o", "messages": [{"role": "system", "content": "You are helpful. 0"}`)
	for i := range n {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		fmt.Fprintf(&b, `, {"role": %q, "content": "message %d says a few words"}`, role, i)
	}
	b.WriteString("]}")
	return b.Bytes()
}

// BenchmarkProxyManySmall sends 30,000 small chat messages (2 MB)
// through the proxy in optimize mode, a new session each time: most of
// them are evicted. Profile what the proxy allocates per message with
//
//	go test -run '^$' -bench ProxyManySmall -benchtime 3x -memprofile /tmp/mem.out ./proxy
func BenchmarkProxyManySmall(b *testing.B) {
	up := newUpstream(b)
	flow, err := proxy.NewFlowWith(engine.RequestsOptions{StateDir: filepath.Join(b.TempDir(), "state")}, -1)
	if err != nil {
		b.Fatal(err)
	}
	u, _ := url.Parse(up.srv.URL)
	p, err := proxy.New(proxy.Options{Upstream: u, Flow: flow, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	send(b, srv.URL, manySmall(10)) // tokenizer tables
	body := manySmall(30000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		send(b, srv.URL, body)
	}
	b.StopTimer()
	if n := len(up.last(b).Body); n >= len(body) {
		b.Errorf("the proxy sent %d bytes of %d", n, len(body))
	}
}
