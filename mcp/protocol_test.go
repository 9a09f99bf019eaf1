package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// pipeServer runs s over pipes and returns the client's ends: write lines
// to w, read answers from r. The session ends when the test does.
func pipeServer(t *testing.T, s *Server) (io.WriteCloser, *bufio.Reader) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Run(t.Context(), inR, outW); outW.Close() }()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		<-done
	})
	return inW, bufio.NewReader(outR)
}

// TestProtocol: the answers to the protocol's messages, good and bad, in
// one session over pipes: version negotiation, the initialization gate,
// a notification with no id gets no answer, bad messages and a line over
// the limit are answered with errors and the session goes on.
func TestProtocol(t *testing.T) {
	s := New(nil, Options{Version: "test", MaxMessageBytes: 1 << 10})
	w, r := pipeServer(t, s)
	exchange := func(line string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(w, line+"\n"); err != nil {
			t.Fatal(err)
		}
		got, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("%s: no answer: %v", line, err)
		}
		var m map[string]any
		if err := json.Unmarshal(got, &m); err != nil {
			t.Fatalf("%s: answer %q: %v", line, got, err)
		}
		return m
	}
	over := `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"count_tokens","arguments":{"text":"` + strings.Repeat("x", 2000) + `"}}}`
	steps := []struct {
		send string
		want string // a JSON object the answer must contain (members compared as JSON)
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"id":1,"error":{"code":-32600,"message":"method \"tools/list\" is invalid during session initialization"}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"}`, `{"id":2,"result":{}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{}}`, `{"id":3,"error":{"code":-32601,"message":"method not found: \"server/discover\""}}`},
		{`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"id":"i","result":{"protocolVersion":"2025-03-26","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"ctxd","title":"ctxd context daemon","version":"test"}}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`, `{"id":4,"error":{"code":-32600,"message":"duplicate \"initialize\" received"}}`},
		// Notifications get no answer: the next line read is the ping's.
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}` + "\n" + `{"jsonrpc":"2.0","id":null,"method":"ping"}` + "\n" +
			`{"jsonrpc":"2.0","id":5,"method":"ping"}`, `{"id":5,"result":{}}`},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`, `{"id":6}`},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nosuch","arguments":{}}}`, `{"id":7,"error":{"code":-32602,"message":"unknown tool \"nosuch\""}}`},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/call"}`, `{"id":8,"error":{"code":-32600,"message":"invalid request: missing required \"params\""}}`},
		{`{"jsonrpc":"2.0","id":9,"method":"no/such"}`, `{"id":9,"error":{"code":-32601,"message":"method not found: \"no/such\""}}`},
		{`{"jsonrpc":"2.0","id":10,"method":"logging/setLevel","params":{"level":"debug"}}`, `{"id":10,"result":{}}`},
		{`{bad json`, `{"id":null,"error":{"code":-32700,"message":"parse error: the line is not valid JSON at line 1, column 2, byte 1: invalid character 'b' looking for beginning of object key string; send one JSON-RPC 2.0 object per line"}}`},
		{`[{"jsonrpc":"2.0","id":11,"method":"ping"}]`, `{"id":null,"error":{"code":-32600,"message":"invalid request: JSON-RPC batches are not supported: send one message per line"}}`},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, `{"id":null,"error":{"code":-32600}}`},
		{`{"jsonrpc":"1.0","id":12,"method":"ping"}`, `{"id":12,"error":{"code":-32600,"message":"invalid request: jsonrpc is \"1.0\", want \"2.0\""}}`},
		{over, `{"id":13,"error":{"code":-32600,"message":"invalid request: message of ` + strconv.Itoa(len(over)+1) + ` bytes or more is over the limit of 1024 bytes (one JSON-RPC message per line; ` + "`ctxd mcp --max-body-bytes`" + ` raises it): not read"}}`},
		{`{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"count_tokens","arguments":{"text":42}}}`,
			`{"id":14,"result":{"isError":true,"content":[{"type":"text","text":"validating \"arguments\": validating root: validating /properties/text: type: 42 has type \"integer\", want \"string\""}]}}`},
		{`{"jsonrpc":"2.0","id":15,"method":"ping"}`, `{"id":15,"result":{}}`},
	}
	for _, st := range steps {
		got := exchange(st.send)
		var want map[string]any
		if err := json.Unmarshal([]byte(st.want), &want); err != nil {
			t.Fatal(err)
		}
		if got["jsonrpc"] != "2.0" {
			t.Errorf("%.80s: answer %v lacks jsonrpc 2.0", st.send, got)
		}
		for k, v := range want {
			if !contains(got[k], v) {
				t.Errorf("%.80s: %s = %v, want %v", st.send, k, got[k], v)
			}
		}
	}
}

// contains reports whether got holds want: equal scalars, and for objects
// every member of want, recursively.
func contains(got, want any) bool {
	wm, ok := want.(map[string]any)
	if !ok {
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		return string(gb) == string(wb)
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range wm {
		if !contains(gm[k], v) {
			return false
		}
	}
	return true
}

// TestCancel: the Go SDK's client cancelling a call (its context ends, it
// sends notifications/cancelled) cancels the tool's context, and the
// session goes on.
func TestCancel(t *testing.T) {
	s := New(nil, Options{})
	started, cancelled := make(chan struct{}), make(chan struct{})
	s.tools["count_tokens"] = func(ctx context.Context, _ *call, _ raw) *toolResult {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return toolError("count_tokens: context canceled (the call was cancelled)")
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { _ = s.Run(t.Context(), inR, outW); outW.Close() }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(t.Context(), &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "count_tokens", Arguments: map[string]any{"text": "x"}}); err == nil {
		t.Fatal("a cancelled call returned no error")
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the tool's context was not cancelled within 10 s of notifications/cancelled")
	}
	if err := cs.Ping(t.Context(), nil); err != nil {
		t.Errorf("ping after a cancelled call: %v", err)
	}
}
