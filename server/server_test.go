package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/jsonrpc"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/internal/testutil"
)

// A method that panics, registered for tests only.
func init() {
	register(method{name: "test/panic", async: true, handle: func(context.Context, *client, json.RawMessage) (any, error) {
		var m map[string]int
		m["boom"]++ // nil map write
		return nil, nil
	}})
}

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// readFrames reads every frame from r until EOF.
func readFrames(t *testing.T, r io.Reader) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, body := range readBodies(t, r) {
		if strings.HasPrefix(body, "[") {
			// A batch answer: one response per item.
			var ms []map[string]any
			if err := json.Unmarshal([]byte(body), &ms); err != nil {
				t.Fatalf("response is not JSON: %s", body)
			}
			out = append(out, ms...)
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatalf("response is not JSON: %s", body)
		}
		out = append(out, m)
	}
	return out
}

type rwc struct {
	io.Reader
	io.Writer
}

func (rwc) Close() error { return nil }

func TestStreamReadFrame(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":1,"method":"x"}`
	tests := []struct {
		name      string
		input     string
		wantGood  int
		wantCodes []int
	}{
		{"one good frame", frame(good), 1, nil},
		{"bad body then good", frame(`{"jsonrpc":`) + frame(good), 1, []int{-32700}},
		{"bad header then good", "Content-Length: banana\r\n\r\n{}" + frame(good), 1, []int{-32700}},
		{"garbage without newline then good", "Contnt-Lngth 5\r\n\r\nxxxxx" + frame(good), 1, []int{-32700}},
		{"no content length", "X-Foo: 1\r\n\r\n" + frame(good), 1, []int{-32700}},
		{"not an object", frame(`"hi"`) + frame(good), 1, []int{-32600}},
		{"wrong version", frame(`{"jsonrpc":"1.0","id":7,"method":"x"}`) + frame(good), 1, []int{-32600}},
		{"no method", frame(`{"jsonrpc":"2.0","id":7}`) + frame(good), 1, []int{-32600}},
		{"batch passes through", frame(`[` + good + `]`), 1, nil},
		{"blank lines between frames", "\r\n" + frame(good) + "\r\n\r\n" + frame(good), 2, nil},
		{"lower-case header", "content-length: " + strconv.Itoa(len(good)) + "\r\n\r\n" + good, 1, nil},
		{"too large", "Content-Length: 999999999999\r\n\r\n" + frame(good), 1, []int{-32700}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			s := newStream(rwc{strings.NewReader(tt.input), &out}, slog.New(slog.DiscardHandler))
			got := 0
			for {
				_, _, err := s.ReadFrame(context.Background())
				if err != nil {
					if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
						t.Fatalf("ReadFrame: %v", err)
					}
					break
				}
				got++
			}
			if got != tt.wantGood {
				t.Errorf("good frames %d, want %d", got, tt.wantGood)
			}
			var codes []int
			for _, m := range readFrames(t, &out) {
				codes = append(codes, int(m["error"].(map[string]any)["code"].(float64)))
			}
			if fmt.Sprint(codes) != fmt.Sprint(tt.wantCodes) && !(len(codes) == 0 && len(tt.wantCodes) == 0) {
				t.Errorf("error codes %v, want %v", codes, tt.wantCodes)
			}
		})
	}
}

// FuzzStream: the framing reader never panics, never loops forever, and
// everything it writes back is a valid frame of valid JSON.
func FuzzStream(f *testing.F) {
	f.Add([]byte(frame(`{"jsonrpc":"2.0","id":1,"method":"x"}`)))
	f.Add([]byte("Content-Length: 3\r\n\r\n{}}"))
	f.Add([]byte("Content-Length: -1\r\n\r\n"))
	f.Add([]byte("garbage\ncontent-length: 2\r\n\r\n[]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		s := newStream(rwc{bytes.NewReader(data), &out}, slog.New(slog.DiscardHandler))
		for i := 0; ; i++ {
			body, _, err := s.ReadFrame(context.Background())
			if err != nil {
				break
			}
			if !json.Valid(body) {
				t.Fatalf("ReadFrame returned invalid JSON %q", body)
			}
			if i > len(data) {
				t.Fatal("more frames than input bytes")
			}
		}
		readFrames(t, &out)
	})
}

// pipeClient serves one connection over net.Pipe and returns the client
// end.
func pipeClient(t *testing.T, opts Options) (net.Conn, *bufio.Reader) {
	t.Helper()
	srvEnd, cliEnd := net.Pipe()
	s := New(opts)
	done := make(chan struct{})
	go func() {
		s.ServeConn(t.Context(), srvEnd)
		srvEnd.Close()
		close(done)
	}()
	t.Cleanup(func() {
		cliEnd.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("server did not stop")
		}
		// As ctxd serve does at exit: the engines' background writes to
		// the workspace's state directory end before t.TempDir's removal.
		s.Close()
	})
	return cliEnd, bufio.NewReader(cliEnd)
}

func roundTrip(t *testing.T, c net.Conn, r *bufio.Reader, id int, method string, params any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := io.WriteString(c, frame(string(b))); err != nil {
		t.Fatal(err)
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Content-Length:")))
		r.ReadString('\n')
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		if m["id"] == float64(id) {
			return m
		}
	}
}

func notify(t *testing.T, c net.Conn, method string, params any) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if _, err := io.WriteString(c, frame(string(b))); err != nil {
		t.Fatal(err)
	}
}

func TestPanicBecomesInternalError(t *testing.T) {
	c, r := pipeClient(t, Options{Root: t.TempDir()})
	if m := roundTrip(t, c, r, 1, "initialize", map[string]any{}); m["error"] != nil {
		t.Fatal(m)
	}
	m := roundTrip(t, c, r, 2, "test/panic", nil)
	e, _ := m["error"].(map[string]any)
	if e == nil || e["code"].(float64) != float64(jsonrpc.InternalError) || !strings.Contains(e["message"].(string), "still running") {
		t.Fatalf("panic answered with %v", m)
	}
	m = roundTrip(t, c, r, 3, "ctx/countTokens", map[string]any{"text": "alive"})
	if m["error"] != nil {
		t.Fatalf("after panic: %v", m)
	}
}

// TestUnsavedBufferWins: a didOpen buffer's text is what the prompt shows,
// not the file on disk.
func TestUnsavedBufferWins(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "main.go")
	if err := os.WriteFile(path, []byte("package main\n\n// ON DISK\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CTXD_CONFIG", filepath.Join(dir, "none.toml"))
	c, r := pipeClient(t, Options{})
	if m := roundTrip(t, c, r, 1, "initialize", map[string]any{"root": dir}); m["error"] != nil {
		t.Fatal(m)
	}
	uri := "file://" + path
	notify(t, c, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": "package main\n\n// FIRST EDIT\n"}})
	notify(t, c, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 2, "character": 3}, "end": map[string]any{"line": 2, "character": 8}}, "text": "SECOND"}},
	})
	m := roundTrip(t, c, r, 2, "ctx/buildPrompt", map[string]any{"user_request": "explain main", "open_files": []any{map[string]any{"path": "main.go"}}})
	res, _ := m["result"].(map[string]any)
	p, _ := res["prompt"].(string)
	if !strings.Contains(p, "// SECOND EDIT") || strings.Contains(p, "ON DISK") {
		t.Errorf("prompt does not show the unsaved buffer:\n%s", p)
	}
	notify(t, c, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	m = roundTrip(t, c, r, 3, "ctx/buildPrompt", map[string]any{"user_request": "explain main", "open_files": []any{map[string]any{"path": "main.go"}}})
	res, _ = m["result"].(map[string]any)
	if p, _ := res["prompt"].(string); !strings.Contains(p, "ON DISK") {
		t.Errorf("after didClose the prompt should read the disk:\n%s", p)
	}
}

// TestDidChangeNotOpen: an incremental didChange of a document that was
// never opened is refused (logged: a notification has no answer), and the
// prompt keeps reading the file on disk; a whole-document change still
// holds the whole text.
func TestDidChangeNotOpen(t *testing.T) {
	edit := map[string]any{"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}}, "text": "FRAGMENT"}
	tests := []struct {
		name     string
		changes  []any
		want     string // in the prompt
		wantLog  string // in the log, "" for none
		wantGone string // not in the prompt
	}{
		{"incremental", []any{edit}, "ON DISK", "not open", "FRAGMENT"},
		{"whole then incremental", []any{map[string]any{"text": "package main\n\n// WHOLE\n"}, edit}, "FRAGMENTpackage main", "", "ON DISK"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "main.go")
			if err := os.WriteFile(path, []byte("package main\n\n// ON DISK\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("CTXD_CONFIG", filepath.Join(dir, "none.toml"))
			var logs testutil.SyncBuffer
			c, r := pipeClient(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if m := roundTrip(t, c, r, 1, "initialize", map[string]any{"root": dir}); m["error"] != nil {
				t.Fatal(m)
			}
			notify(t, c, "textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": "file://" + path, "version": 2},
				"contentChanges": tt.changes,
			})
			m := roundTrip(t, c, r, 2, "ctx/buildPrompt", map[string]any{"user_request": "explain main", "open_files": []any{map[string]any{"path": "main.go"}}})
			res, _ := m["result"].(map[string]any)
			p, _ := res["prompt"].(string)
			if !strings.Contains(p, tt.want) || strings.Contains(p, tt.wantGone) {
				t.Errorf("prompt should show %q and not %q:\n%s", tt.want, tt.wantGone, p)
			}
			if got := logs.String(); (tt.wantLog == "") != !strings.Contains(got, "notification failed") || !strings.Contains(got, tt.wantLog) {
				t.Errorf("log = %q, want %q", got, tt.wantLog)
			}
		})
	}
}

func TestApplyEdit(t *testing.T) {
	pos := func(l, c uint32) lspPosition { return lspPosition{Line: l, Character: c} }
	tests := []struct {
		name, text string
		start, end lspPosition
		repl, want string
		wantErr    bool
	}{
		{"insert", "abc\ndef\n", pos(1, 1), pos(1, 1), "X", "abc\ndXef\n", false},
		{"replace across lines", "abc\ndef\n", pos(0, 2), pos(1, 1), "-", "ab-ef\n", false},
		{"utf16 surrogate", "a😀b\n", pos(0, 3), pos(0, 4), "c", "a😀c\n", false},
		{"clamp past line end", "ab\ncd", pos(0, 99), pos(0, 99), "!", "ab!\ncd", false},
		{"line past end", "ab", pos(5, 0), pos(5, 0), "x", "", true},
		{"end before start", "abcdef", pos(0, 4), pos(0, 2), "x", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyEdit(tt.text, lspRange{Start: tt.start, End: tt.end}, tt.repl)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDecodeNamesField(t *testing.T) {
	var v struct {
		Budget struct {
			Total int `json:"total"`
		} `json:"token_budget"`
	}
	tests := []struct{ params, want string }{
		{`{"token_budget":{"total":"x"}}`, "token_budget.total"},
		{`{"tokenBudget":1}`, `unknown field "tokenBudget" (did you mean "token_budget"? params use snake_case names)`},
		{`{"token_budgte":1}`, `unknown field "token_budgte" (did you mean "token_budget"?)`},
		{`{"size":1}`, `unknown field "size" (this method takes: token_budget; docs/protocol.md)`},
		{`[1]`, "must be an object"},
	}
	for _, tt := range tests {
		err := decode(json.RawMessage(tt.params), &v)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("decode(%s) = %v, want %q", tt.params, err, tt.want)
		}
	}
	if err := decode(json.RawMessage("null"), &v); err != nil {
		t.Errorf("null params: %v", err)
	}
}

// TestDecodeNamesNestedField: an unknown field inside a nested object
// says where it is and what that object takes; one at the top level
// lists the method's fields as before.
func TestDecodeNamesNestedField(t *testing.T) {
	tests := []struct{ params, want string }{
		{`{"user_request":"x","open_files":[{"path":"a.go","cursor":3}]}`, `unknown field "cursor" in open_files[0] (it takes: path, line, selection, text; docs/protocol.md)`},
		{`{"user_request":"x","open_files":[{"path":"a.go"},{"path":"b.go","lien":3}]}`, `unknown field "lien" in open_files[1] (did you mean "line"?)`},
		{`{"user_request":"x","open_files":[{"path":"a.go","selection":{"start":1,"stop":2}}]}`, `unknown field "stop" in open_files[0].selection (it takes: start, end; docs/protocol.md)`},
		{`{"user_request":"x","token_budget":{"totl":100}}`, `unknown field "totl" in token_budget (did you mean "total"?)`},
		{`{"user_request":"x","Open_Files":[{"Path":"a.go","cursor":3}]}`, `unknown field "cursor" in Open_Files[0]`},
		{`{"user_request":"x","cursor":3}`, `unknown field "cursor" (this method takes: user_request, task_type`},
	}
	for _, tt := range tests {
		var p PromptParams
		err := decode(json.RawMessage(tt.params), &p)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("decode(%s) = %v, want %q", tt.params, err, tt.want)
		}
	}
}

// TestPromptParamsNames checks the names ctx/buildPrompt and ctx/gather
// accept for the request and the task: the CLI's and MCP's (request,
// task) and the editors' (user_request, task_type), never both with
// different values.
func TestPromptParamsNames(t *testing.T) {
	tests := []struct {
		params, wantReq, wantTask, wantErr string
	}{
		{params: `{"request":"fix it","task":"debug"}`, wantReq: "fix it", wantTask: "debug"},
		{params: `{"user_request":"fix it","task_type":"debug"}`, wantReq: "fix it", wantTask: "debug"},
		{params: `{"request":"a","user_request":"b"}`, wantErr: "request and user_request name the same field: give one"},
		{params: `{"request":"a","user_request":"a"}`, wantReq: "a"},
		{params: `{"user_request":"a","task":"test","task_type":"debug"}`, wantErr: "task and task_type name the same field"},
		{params: `{"task":"debug"}`, wantErr: "request is required"},
		{params: `{"requests":"x"}`, wantErr: `unknown field "requests" (did you mean "request"?)`},
		{params: `{"userRequest":"x"}`, wantErr: `unknown field "userRequest" (did you mean "user_request"? params use snake_case names)`},
	}
	for _, tt := range tests {
		t.Run(tt.params, func(t *testing.T) {
			var p PromptParams
			err := decode(json.RawMessage(tt.params), &p)
			var req engine.PromptRequest
			if err == nil {
				req, err = p.resolve()
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ctxd.ErrInvalidParams) {
					t.Fatalf("err %v, want %q (invalid params)", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if req.UserRequest != tt.wantReq || req.TaskType != tt.wantTask {
				t.Errorf("request %q task %q, want %q %q", req.UserRequest, req.TaskType, tt.wantReq, tt.wantTask)
			}
		})
	}
}

func TestListenRefusesNonLoopback(t *testing.T) {
	s := New(Options{})
	for _, spec := range []string{"tcp:0.0.0.0:0", "tcp:8.8.8.8:1", "udp:x", "unix:"} {
		if err := s.Listen(t.Context(), spec); err == nil {
			t.Errorf("Listen(%q) succeeded", spec)
		}
	}
}

func TestListenUnixServesClients(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "ctxd.sock")
	t.Setenv("CTXD_CONFIG", filepath.Join(t.TempDir(), "none.toml"))
	ctx, cancel := context.WithCancel(t.Context())
	s := New(Options{Root: t.TempDir()})
	errc := make(chan error, 1)
	go func() { errc <- s.Listen(ctx, "unix:"+sock) }()
	var c net.Conn
	var err error
	for range 100 {
		if c, err = net.Dial("unix", sock); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	if m := roundTrip(t, c, r, 1, "initialize", map[string]any{}); m["error"] != nil {
		t.Fatal(m)
	}
	if m := roundTrip(t, c, r, 2, "ctx/countTokens", map[string]any{"text": "hi"}); m["error"] != nil {
		t.Fatal(m)
	}
	c.Close()
	cancel()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func TestCountTokensMessages(t *testing.T) {
	t.Setenv("CTXD_CONFIG", filepath.Join(t.TempDir(), "none.toml"))
	c, r := pipeClient(t, Options{Root: t.TempDir()})
	if m := roundTrip(t, c, r, 1, "initialize", map[string]any{}); m["error"] != nil {
		t.Fatal(m)
	}
	text := roundTrip(t, c, r, 2, "ctx/countTokens", map[string]any{"text": "hello world", "model": "gpt-4o"})
	msgs := roundTrip(t, c, r, 3, "ctx/countTokens", map[string]any{"model": "gpt-4o", "messages": []any{
		map[string]any{"role": "system", "content": "hello world"},
		map[string]any{"role": "user", "content": "hello world"},
	}})
	tn := text["result"].(map[string]any)["tokens"].(float64)
	res, _ := msgs["result"].(map[string]any)
	if res == nil {
		t.Fatalf("messages: %v", msgs)
	}
	// Two messages of the text, each with its role overhead, and the
	// reply priming: strictly more than twice the text.
	if mn := res["tokens"].(float64); mn <= 2*tn {
		t.Errorf("messages counted %v, text %v", mn, tn)
	}
	both := roundTrip(t, c, r, 4, "ctx/countTokens", map[string]any{"text": "x", "messages": []any{}})
	if e, _ := both["error"].(map[string]any); e == nil || e["code"].(float64) != -32602 {
		t.Errorf("text and messages: %v", both)
	}
	notArray := roundTrip(t, c, r, 5, "ctx/countTokens", map[string]any{"messages": map[string]any{"role": "user"}})
	if e, _ := notArray["error"].(map[string]any); e == nil || e["code"].(float64) != -32602 {
		t.Errorf("messages not an array: %v", notArray)
	}
}
