package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

func init() {
	register(
		// test/echo answers its params, in order (not async).
		method{name: "test/echo", beforeInit: true, handle: func(_ context.Context, _ *client, p json.RawMessage) (any, error) {
			return p, nil
		}},
		// test/wait runs until it is cancelled, or for the milliseconds
		// its params give, then answers "done".
		method{name: "test/wait", beforeInit: true, async: true, handle: func(ctx context.Context, _ *client, p json.RawMessage) (any, error) {
			ms, _ := strconv.Atoi(string(p))
			if ms == 0 {
				ms = 60_000
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(ms) * time.Millisecond):
				return "done", nil
			}
		}},
	)
}

// rawFrames returns the bodies of the frames in out, as written.
func rawFrames(t *testing.T, out []byte) []string {
	t.Helper()
	return readBodies(t, bytes.NewReader(out))
}

// readBodies reads the bodies of every frame from r until EOF.
func readBodies(t *testing.T, r io.Reader) []string {
	t.Helper()
	br := bufio.NewReader(r)
	var bodies []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return bodies
		}
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Content-Length:")))
		if err != nil {
			t.Fatalf("bad header %q", line)
		}
		br.ReadString('\n')
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, string(body))
	}
}

// TestConnMessages: what the connection answers to each kind of message,
// byte for byte, the whole input read at once and then its end (so the
// calls still running are answered before ServeConn returns).
func TestConnMessages(t *testing.T) {
	call := func(id, method, params string) string {
		s := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
		if params != "" {
			s += `,"params":` + params
		}
		return s + `}`
	}
	note := func(method, params string) string {
		return `{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `}`
	}
	tests := []struct {
		name  string
		input []string // frame bodies
		want  []string // reply bodies, in order
	}{
		{"calls answered in order", []string{call("1", "test/echo", `{"a":1}`), call("2", "test/echo", `[1,2]`), call("3", "test/echo", "")},
			[]string{`{"jsonrpc":"2.0","id":1,"result":{"a":1}}`, `{"jsonrpc":"2.0","id":2,"result":[1,2]}`, `{"jsonrpc":"2.0","id":3,"result":null}`}},
		{"string id as sent", []string{call(`"a\"b<"`, "test/echo", `"<&>"`)},
			[]string{`{"jsonrpc":"2.0","id":"a\"b<","result":"<&>"}`}},
		{"notification: no reply", []string{note("test/echo", "{}"), note("no/such", "{}")}, nil},
		{"unknown method", []string{call("4", "no/such", "")},
			[]string{`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"method \"no/such\" not found; ctxd serves: ` + strings.Join(MethodNames(), ", ") + `"}}`}},
		{"not initialized", []string{call("5", "ctx/status", "")},
			[]string{`{"jsonrpc":"2.0","id":5,"error":{"code":-32002,"message":"server not initialized: send initialize before ctx/status"}}`}},
		{"a response is dropped", []string{`{"jsonrpc":"2.0","id":9,"result":1}`, `{"jsonrpc":"2.0","id":9,"error":{"code":1,"message":"x"}}`}, nil},
		{"method and result", []string{`{"jsonrpc":"2.0","id":6,"method":"test/echo","result":1}`},
			[]string{`{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"invalid request: a message has a \"method\" (a request) or a \"result\" or \"error\" (a response), not both"}}`}},
		{"method not a string", []string{`{"jsonrpc":"2.0","id":7,"method":7}`},
			[]string{`{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"invalid request: \"method\" must be a string"}}`}},
		{"id out of int64", []string{call("99999999999999999999", "test/echo", "")},
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: \"id\" must be a string or an integer, not an integer out of range 99999999999999999999 (omit \"id\" for a notification)"}}`}},
		{"bad error object", []string{`{"jsonrpc":"2.0","id":8,"error":null}`},
			[]string{`{"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"invalid request: a response's \"error\" must be an object with an integer \"code\" and a \"message\" string"}}`}},
		{"cancel as a call", []string{call("10", "$/cancelRequest", `{"id":99}`)},
			[]string{`{"jsonrpc":"2.0","id":10,"result":{}}`}},
		{"cancel a running call", []string{call("11", "test/wait", ""), note("$/cancelRequest", `{"id":11}`)},
			[]string{`{"jsonrpc":"2.0","id":11,"error":{"code":-32800,"message":"test/wait: request cancelled"}}`}},
		{"cancel by string id", []string{call(`"w"`, "test/wait", ""), note("$/cancelRequest", `{"id":"w"}`)},
			[]string{`{"jsonrpc":"2.0","id":"w","error":{"code":-32800,"message":"test/wait: request cancelled"}}`}},
		{"an id in use", []string{call("20", "test/wait", ""), call("20", "test/echo", "1"), note("$/cancelRequest", `{"id":20}`)},
			[]string{`{"jsonrpc":"2.0","id":20,"error":{"code":-32600,"message":"invalid request: id 20 is already in use by a running call"}}`, `{"jsonrpc":"2.0","id":20,"error":{"code":-32800,"message":"test/wait: request cancelled"}}`}},
		{"cancel names another id", []string{call("12", "test/wait", "30"), note("$/cancelRequest", `{"id":"12"}`), note("$/cancelRequest", `{"id":{}}`)},
			[]string{`{"jsonrpc":"2.0","id":12,"result":"done"}`}},
		{"async call overtaken, answered at end of input", []string{call("13", "test/wait", "300"), call("14", "test/echo", "1")},
			[]string{`{"jsonrpc":"2.0","id":14,"result":1}`, `{"jsonrpc":"2.0","id":13,"result":"done"}`}},
		{"batch", []string{`[` + call("1", "test/echo", "1") + `,` + note("test/echo", "2") + `,5,{"jsonrpc":"1.0","id":2,"method":"x"},` + call(`"x"`, "no/such", "") + `,{"jsonrpc":"2.0","id":null,"method":"test/echo"}]`},
			[]string{`[{"jsonrpc":"2.0","id":1,"result":1},` +
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a batch item must be a JSON-RPC request object"}},` +
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""}},` +
				`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"method \"no/such\" not found; ctxd serves: ` + strings.Join(MethodNames(), ", ") + `"}}]`}},
		{"batch waits for its async calls", []string{`[` + call("1", "test/wait", "300") + `,` + call("2", "test/echo", "2") + `]`, call("3", "test/echo", "3")},
			[]string{`{"jsonrpc":"2.0","id":3,"result":3}`, `[{"jsonrpc":"2.0","id":1,"result":"done"},{"jsonrpc":"2.0","id":2,"result":2}]`}},
		{"batch with a cancel", []string{call("1", "test/wait", ""), `[` + call("2", "$/cancelRequest", `{"id":1}`) + `]`},
			[]string{`[{"jsonrpc":"2.0","id":2,"result":{}}]`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"test/wait: request cancelled"}}`}},
		{"batch of notifications", []string{`[` + note("test/echo", "1") + `,` + note("no/such", "2") + `]`}, nil},
		{"empty batch", []string{`[]`},
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: an empty batch"}}`}},
		{"batch of non-objects", []string{`[1,2]`},
			[]string{`[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a batch item must be a JSON-RPC request object"}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a batch item must be a JSON-RPC request object"}}]`}},
	}
	// The replies of these race (a cancelled call's and its batch's): they
	// are compared as a set.
	anyOrder := map[string]bool{"batch with a cancel": true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in strings.Builder
			for _, b := range tt.input {
				in.WriteString(frame(b))
			}
			var out bytes.Buffer
			New(Options{Root: t.TempDir()}).ServeConn(t.Context(), rwc{strings.NewReader(in.String()), &out})
			got := rawFrames(t, out.Bytes())
			if anyOrder[tt.name] {
				slices.Sort(got)
				tt.want = slices.Sorted(slices.Values(tt.want))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("replies:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			for _, b := range got {
				if !json.Valid([]byte(b)) {
					t.Errorf("reply is not JSON: %s", b)
				}
			}
		})
	}
}

// FuzzConn feeds any bytes to a whole connection (stream, dispatch,
// batches, cancellation; test/echo and test/wait as the methods) and
// checks that it returns, and that everything it writes is a frame of
// JSON-RPC responses: objects (or arrays of them) with "jsonrpc": "2.0",
// an id and exactly one of result and error.
func FuzzConn(f *testing.F) {
	for _, seed := range []string{
		frame(`{"jsonrpc":"2.0","id":1,"method":"test/echo","params":{"a":1}}`),
		frame(`{"jsonrpc":"2.0","id":"w","method":"test/wait","params":5}`) + frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"w"}}`),
		frame(`[{"jsonrpc":"2.0","id":1,"method":"test/echo"},{"jsonrpc":"2.0","method":"test/echo"},7,{"jsonrpc":"2.0","id":2,"method":"$/cancelRequest","params":{"id":1}}]`),
		frame(`[]`) + frame(`[1]`) + frame(`{"jsonrpc":"2.0","id":3,"result":1}`),
		frame(`{"jsonrpc":"2.0","id":4,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","id":5,"method":"test/echo"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`),
		"Content-Length: 5\r\n\r\n{}" + frame(`{"jsonrpc":"2.0","id":6,"method":"no/such"}`),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		defer cancel()
		var out testutil.SyncBuffer
		srv := New(Options{Root: t.TempDir(), MaxBodyBytes: 1 << 12})
		srv.ServeConn(ctx, rwc{bytes.NewReader(data), &out})
		cancel()
		for i, body := range rawFrames(t, []byte(out.String())) {
			if i > len(data) {
				t.Fatal("more replies than input bytes")
			}
			var one map[string]json.RawMessage
			var many []map[string]json.RawMessage
			switch {
			case json.Unmarshal([]byte(body), &one) == nil:
				many = append(many, one)
			case json.Unmarshal([]byte(body), &many) == nil && len(many) > 0:
			default:
				t.Fatalf("reply is not a response or a batch of them: %s", body)
			}
			for _, m := range many {
				_, hasResult := m["result"]
				_, hasError := m["error"]
				if string(m["jsonrpc"]) != `"2.0"` || m["id"] == nil || hasResult == hasError {
					t.Fatalf("not a response: %s", body)
				}
			}
		}
	})
}

// pipeRWC reads from a pipe (blocking, as stdin does), writes to w, and
// records its Close, which ends the pipe's reads.
type pipeRWC struct {
	*io.PipeReader
	w      io.Writer
	closed chan struct{}
	once   sync.Once
}

func (p *pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }

func (p *pipeRWC) Close() error {
	p.once.Do(func() { close(p.closed) })
	return p.PipeReader.Close()
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// TestConnEnds: a connection ends when a reply cannot be written (the
// peer is gone: the transport is closed, which ends the read loop), and
// on its context (a running call is cancelled and the transport closed).
func TestConnEnds(t *testing.T) {
	t.Run("write fails", func(t *testing.T) {
		pr, pw := io.Pipe()
		p := &pipeRWC{PipeReader: pr, w: failingWriter{}, closed: make(chan struct{})}
		done := make(chan int)
		go func() { done <- New(Options{Root: t.TempDir()}).ServeConn(t.Context(), p) }()
		go io.WriteString(pw, frame(`{"jsonrpc":"2.0","id":1,"method":"test/echo","params":1}`))
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the connection did not end when its reply could not be written")
		}
		<-p.closed
	})
	t.Run("context ends", func(t *testing.T) {
		pr, pw := io.Pipe()
		var out testutil.SyncBuffer
		p := &pipeRWC{PipeReader: pr, w: &out, closed: make(chan struct{})}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan int)
		go func() { done <- New(Options{Root: t.TempDir()}).ServeConn(ctx, p) }()
		io.WriteString(pw, frame(`{"jsonrpc":"2.0","id":1,"method":"test/wait"}`))
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("ServeConn did not return on its context")
		}
		select {
		case <-p.closed:
		case <-time.After(10 * time.Second):
			t.Fatal("the transport was not closed once the running call returned")
		}
	})
}
