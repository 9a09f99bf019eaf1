package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// binary is the ctxd binary built once for the integration tests.
var binary string

func TestMain(m *testing.M) { testutil.MainWithCtxd(m, ".", &binary) }

var sampleRepo = map[string]string{
	"go.mod":            "module example.com/shop\n\ngo 1.26\n",
	"cart/cart.go":      "package cart\n\n// Cart holds items.\ntype Cart struct{ Items []Item }\n\n// Item is a line.\ntype Item struct{ SKU string; Qty int }\n\n// Total sums quantities.\nfunc (c *Cart) Total() int {\n\tn := 0\n\tfor _, it := range c.Items {\n\t\tn += it.Qty\n\t}\n\treturn n\n}\n",
	"cart/cart_test.go": "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif (&Cart{}).Total() != 0 {\n\t\tt.Fatal()\n\t}\n}\n",
	"README.md":         "# shop\n",
	".env":              "API_KEY=super-secret-value\n",
	".gitignore":        "build/\n",
}

// daemon is a running `ctxd serve` driven over stdio.
type daemon struct {
	t      testing.TB
	cmd    *exec.Cmd
	in     io.WriteCloser
	stderr bytes.Buffer

	mu      sync.Mutex
	pending map[string]chan map[string]any
	stray   []map[string]any
	nextID  int
	done    chan struct{}
	readErr error
}

func startDaemon(t testing.TB, dir string, extra ...string) *daemon {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--log-level", "debug"}, extra...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CTXD_CONFIG="+filepath.Join(t.TempDir(), "none.toml"))
	d := &daemon{t: t, cmd: cmd, pending: map[string]chan map[string]any{}, done: make(chan struct{})}
	cmd.Stderr = &d.stderr
	var out io.ReadCloser
	d.in, out = testutil.StartPiped(t, cmd)
	go d.readLoop(out)
	t.Cleanup(func() {
		d.in.Close()
		select {
		case <-d.done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-d.done
		}
		if cmd.ProcessState == nil {
			cmd.Wait()
		}
		if t.Failed() {
			t.Logf("daemon stderr:\n%s", d.stderr.String())
		}
	})
	return d
}

// readLoop reads frames from stdout. Anything that is not a well-formed
// frame is a test failure: stdout must carry only protocol.
func (d *daemon) readLoop(out io.Reader) {
	defer close(d.done)
	r := bufio.NewReader(out)
	for {
		length := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				if !(err == io.EOF && line == "" && length < 0) {
					d.readErr = fmt.Errorf("stdout: %q: %w", line, err)
				}
				return
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			v, ok := strings.CutPrefix(line, "Content-Length: ")
			if !ok {
				d.readErr = fmt.Errorf("stray output on stdout: %q", line)
				return
			}
			length, _ = strconv.Atoi(v)
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(r, body); err != nil {
			d.readErr = err
			return
		}
		var msg map[string]any
		if err := json.Unmarshal(body, &msg); err != nil {
			d.readErr = fmt.Errorf("bad JSON on stdout: %s", body)
			return
		}
		id, _ := json.Marshal(msg["id"])
		d.mu.Lock()
		if ch, ok := d.pending[string(id)]; ok {
			ch <- msg
			delete(d.pending, string(id))
		} else {
			d.stray = append(d.stray, msg)
		}
		d.mu.Unlock()
	}
}

func (d *daemon) writeRaw(s string) {
	d.t.Helper()
	if _, err := io.WriteString(d.in, s); err != nil {
		d.t.Fatalf("write to daemon: %v", err)
	}
}

func (d *daemon) send(v any) {
	d.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		d.t.Fatal(err)
	}
	d.writeRaw(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(b), b))
}

// didOpen opens rel's buffer in the editor, Go text: the daemon reads
// text for it from now on.
func (d *daemon) didOpen(dir, rel, text string) {
	d.t.Helper()
	d.send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{
		"uri": "file://" + filepath.Join(dir, rel), "languageId": "go", "version": 1, "text": text}}})
}

// call sends a request and returns the channel its response arrives on.
func (d *daemon) callAsync(method string, params any) (int, chan map[string]any) {
	d.mu.Lock()
	d.nextID++
	id := d.nextID
	ch := make(chan map[string]any, 1)
	d.pending[strconv.Itoa(id)] = ch
	d.mu.Unlock()
	d.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return id, ch
}

func (d *daemon) wait(ch chan map[string]any, what string) map[string]any {
	d.t.Helper()
	select {
	case msg := <-ch:
		return msg
	case <-d.done:
		d.t.Fatalf("%s: daemon stdout ended: %v", what, d.readErr)
	case <-time.After(60 * time.Second):
		d.t.Fatalf("%s: no response in 60s", what)
	}
	return nil
}

func (d *daemon) call(method string, params any) map[string]any {
	d.t.Helper()
	_, ch := d.callAsync(method, params)
	return d.wait(ch, method)
}

// waitNullID waits for the next response without an id (a rejected frame).
func (d *daemon) waitNullID() map[string]any {
	d.t.Helper()
	ch := make(chan map[string]any, 1)
	d.mu.Lock()
	d.pending["null"] = ch
	for i, m := range d.stray {
		if m["id"] == nil {
			d.stray = append(d.stray[:i], d.stray[i+1:]...)
			delete(d.pending, "null")
			d.mu.Unlock()
			return m
		}
	}
	d.mu.Unlock()
	return d.wait(ch, "null-id response")
}

func result(t *testing.T, msg map[string]any) map[string]any {
	t.Helper()
	if e, ok := msg["error"]; ok {
		t.Fatalf("want a result, got error %v", e)
	}
	r, _ := msg["result"].(map[string]any)
	return r
}

// TestServeLifecycle drives the real binary over stdio: initialize,
// buildPrompt, shutdown, exit; the exit code is 0 and stdout held only
// protocol.
func TestServeLifecycle(t *testing.T) {
	dir := testutil.GitRepo(t, sampleRepo)
	d := startDaemon(t, dir)
	init := result(t, d.call("initialize", map[string]any{"processId": os.Getpid(), "rootUri": "file://" + dir, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test"}}))
	if root, _ := init["root"].(string); !strings.HasSuffix(root, filepath.Base(dir)) {
		t.Errorf("root %v", init["root"])
	}
	if ms := fmt.Sprint(init["methods"]); !strings.Contains(ms, "ctx/buildPrompt") || !strings.Contains(ms, "ctx/countTokens") {
		t.Errorf("methods %s", ms)
	}
	d.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})

	env := result(t, d.call("ctx/buildPrompt", map[string]any{"user_request": "the cart total is wrong when quantities are negative", "token_budget": map[string]any{"total": 4000}}))
	prompt, _ := env["prompt"].(string)
	if !strings.Contains(prompt, "cart/cart.go") || !strings.Contains(prompt, "## Request") {
		t.Errorf("prompt lacks the cart file or the request:\n%s", prompt)
	}
	if strings.Contains(prompt, "super-secret-value") {
		t.Error("a secret file reached the prompt")
	}
	if env["task_type"] != "debug" || env["task_type_source"] != "detected" {
		t.Errorf("task %v (%v)", env["task_type"], env["task_type_source"])
	}
	ctxPart := env["context"].(map[string]any)
	if ctxPart["tokens_used"].(float64) > ctxPart["budget"].(float64) {
		t.Errorf("over budget: %v > %v", ctxPart["tokens_used"], ctxPart["budget"])
	}

	count := result(t, d.call("ctx/countTokens", map[string]any{"text": "hello world", "model": "gpt-4"}))
	if count["tokens"].(float64) != 2 || count["encoding"] != "cl100k_base" || count["exact"] != true {
		t.Errorf("countTokens: %v", count)
	}

	if r := d.call("shutdown", nil); r["error"] != nil {
		t.Fatalf("shutdown: %v", r)
	}
	d.send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	if err := waitExit(d, 10*time.Second); err != nil {
		t.Fatalf("exit: %v", err)
	}
	if d.readErr != nil {
		t.Errorf("stdout: %v", d.readErr)
	}
	if d.cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("exit code %d, want 0", d.cmd.ProcessState.ExitCode())
	}
}

// waitExit waits for the daemon's stdout to end (it exits), then reaps it;
// Wait must not run before reads from the pipe have finished.
func waitExit(d *daemon, timeout time.Duration) error {
	ch := make(chan error, 1)
	go func() {
		<-d.done
		ch <- d.cmd.Wait()
	}()
	select {
	case err := <-ch:
		if _, ok := err.(*exec.ExitError); ok {
			return nil
		}
		return err
	case <-time.After(timeout):
		return fmt.Errorf("daemon did not exit within %s", timeout)
	}
}

// TestLogsNeverHoldSourceText runs every method that handles text with
// debug logging on and checks that no source text, request, buffer or
// message reached the log.
func TestLogsNeverHoldSourceText(t *testing.T) {
	files := map[string]string{}
	for k, v := range sampleRepo {
		files[k] = v
	}
	files["cart/secret_logic.go"] = "package cart\n\n// SENTINEL_SOURCE_TEXT_42 explains the pricing rule.\nfunc Discount() int { return 42 }\n"
	dir := testutil.GitRepo(t, files)
	d := startDaemon(t, dir)
	result(t, d.call("initialize", map[string]any{"root": dir}))
	d.didOpen(dir, "cart/cart.go", "package cart\n// SENTINEL_BUFFER_7\n")
	result(t, d.call("ctx/buildPrompt", map[string]any{"user_request": "SENTINEL_REQUEST_99: explain the discount pricing rule", "open_files": []any{map[string]any{"path": "cart/cart.go"}}}))
	chat := map[string]any{"model": "gpt-4o", "messages": []any{
		map[string]any{"role": "system", "content": "You code."},
		map[string]any{"role": "user", "content": "SENTINEL_MESSAGE_5 please"},
	}}
	result(t, d.call("ctx/compressMessages", map[string]any{"request": chat}))
	result(t, d.call("ctx/optimizeRequest", map[string]any{"request": chat, "session_id": "privacy"}))
	result(t, d.call("ctx/countTokens", map[string]any{"text": "SENTINEL_COUNT_3"}))
	d.call("ctx/outline", map[string]any{"path": "cart/secret_logic.go"})
	if r := d.call("shutdown", nil); r["error"] != nil {
		t.Fatal(r)
	}
	d.send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	if err := waitExit(d, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	log := d.stderr.String()
	if !strings.Contains(log, "level=DEBUG") {
		t.Fatalf("debug logging was not on:\n%s", log)
	}
	for _, s := range []string{"SENTINEL_SOURCE_TEXT_42", "SENTINEL_BUFFER_7", "SENTINEL_REQUEST_99", "SENTINEL_MESSAGE_5", "SENTINEL_COUNT_3", "pricing rule"} {
		if strings.Contains(log, s) {
			t.Errorf("the log holds %q:\n%s", s, log)
		}
	}
}

// TestServeStopsOnSIGTERM: a daemon on stdio exits promptly on SIGTERM
// even while its stdin stays open.
func TestServeStopsOnSIGTERM(t *testing.T) {
	d := startDaemon(t, t.TempDir())
	init := result(t, d.call("initialize", map[string]any{"root": t.TempDir(), "client_info": map[string]any{"name": "test", "version": "1.2"}}))
	if ms := fmt.Sprint(init["methods"]); !strings.Contains(ms, "$/cancelRequest") {
		t.Errorf("methods %s lack $/cancelRequest", ms)
	}
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := waitExit(d, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if c := d.cmd.ProcessState.ExitCode(); c != 0 {
		t.Errorf("exit code %d after SIGTERM", c)
	}
}

// TestServeErrors sends each kind of bad input and checks the code, and
// that the daemon keeps serving afterwards.
func TestServeErrors(t *testing.T) {
	dir := testutil.GitRepo(t, sampleRepo)
	d := startDaemon(t, dir)
	alive := func(what string) {
		t.Helper()
		r := d.call("ctx/countTokens", map[string]any{"text": "still here"})
		if r["error"] != nil {
			if c, _ := testutil.RPCError(t, r); c != -32002 {
				t.Fatalf("daemon not serving after %s: %v", what, r)
			}
		}
	}

	// Before initialize.
	code, msg := testutil.RPCError(t, d.call("ctx/buildPrompt", map[string]any{"user_request": "x"}))
	if code != -32002 || !strings.Contains(msg, "initialize") {
		t.Errorf("before initialize: %d %q", code, msg)
	}
	result(t, d.call("initialize", map[string]any{"root": dir}))

	// Malformed body: invalid JSON.
	d.writeRaw("Content-Length: 12\r\n\r\n{\"jsonrpc\":,")
	code, msg = testutil.RPCError(t, d.waitNullID())
	if want := "parse error: the message body is not valid JSON at line 1, column 12, byte 11: invalid character ',' looking for beginning of value; want one JSON-RPC 2.0 object"; code != -32700 || msg != want {
		t.Errorf("malformed body: %d %q, want -32700 %q", code, msg, want)
	}
	alive("malformed body")
	// A compaction request cut short on its second line: the message
	// says where, as `ctxd compress` does.
	body := "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ctx/compressMessages\",\n\"params\":{\"request\":{\"messages\":["
	d.writeRaw(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
	code, msg = testutil.RPCError(t, d.waitNullID())
	if want := "at line 2, column 34, byte 90: unexpected end of JSON input"; code != -32700 || !strings.Contains(msg, want) {
		t.Errorf("a compaction request cut short: %d %q, want -32700 with %q", code, msg, want)
	}
	alive("a compaction request cut short")

	// Malformed header.
	d.writeRaw("Content-Length: banana\r\n\r\n{}")
	code, _ = testutil.RPCError(t, d.waitNullID())
	if code != -32700 {
		t.Errorf("malformed header: %d", code)
	}
	alive("malformed header")

	// Not a request object.
	d.send(map[string]any{"jsonrpc": "2.0", "id": 99})
	code, msg = testutil.RPCError(t, d.waitForID(99))
	if code != -32600 {
		t.Errorf("invalid request: %d %q", code, msg)
	}
	alive("invalid request")

	tests := []rpcCase{
		{"unknown method", "ctx/nope", map[string]any{}, -32601, "ctx/buildPrompt"},
		{"wrong type", "ctx/buildPrompt", map[string]any{"user_request": "x", "token_budget": map[string]any{"total": "big"}}, -32602, "token_budget.total"},
		{"unknown field", "ctx/buildPrompt", map[string]any{"user_request": "x", "tokenBudget": 5}, -32602, "tokenBudget"},
		{"missing request", "ctx/buildPrompt", map[string]any{}, -32602, "user_request"},
		{"bad task", "ctx/buildPrompt", map[string]any{"user_request": "x", "task_type": "deploy"}, -32602, "deploy"},
		{"negative budget", "ctx/buildPrompt", map[string]any{"user_request": "x", "token_budget": map[string]any{"total": -5}}, -32602, "token_budget.total"},
		{"bare number budget", "ctx/buildPrompt", map[string]any{"user_request": "x", "token_budget": 8000}, -32602, `{"total": 16000}`},
		{"outside root", "ctx/buildPrompt", map[string]any{"user_request": "x", "open_files": []any{map[string]any{"path": "/etc/passwd"}}}, -31001, "outside"},
		{"dotdot outside root", "ctx/gather", map[string]any{"user_request": "x", "open_files": []any{map[string]any{"path": "../../etc/passwd"}}}, -31001, "outside"},
		{"format on gather", "ctx/gather", map[string]any{"user_request": "x", "format": "xml"}, -32602, "format"},
		{"params not an object", "ctx/buildPrompt", []any{"x"}, -32602, "object"},
		{"request under both names", "ctx/buildPrompt", map[string]any{"request": "x", "user_request": "y"}, -32602, "request and user_request name the same field: give one"},
		{"a typo of request", "ctx/buildPrompt", map[string]any{"reqest": "x"}, -32602, `did you mean "request"?`},
		// An unknown field inside an object is named with where it is
		// and what that object takes, not the method's own fields.
		{"unknown field in an open file", "ctx/buildPrompt", map[string]any{"user_request": "x", "open_files": []any{map[string]any{"path": "cart/cart.go", "cursor": 3}}}, -32602, `unknown field "cursor" in open_files[0] (it takes: path, line, selection, text; docs/protocol.md)`},
		{"a typo in an open file", "ctx/gather", map[string]any{"user_request": "x", "open_files": []any{map[string]any{"path": "cart/cart.go"}, map[string]any{"path": "README.md", "lien": 1}}}, -32602, `unknown field "lien" in open_files[1] (did you mean "line"?)`},
		// A position that names no line is refused, as the CLI's
		// --open FILE:-4 is, not silently dropped (a line past the end
		// is a stale position: a warning).
		{"negative cursor line", "ctx/buildPrompt", map[string]any{"user_request": "x", "open_files": []any{map[string]any{"path": "cart/cart.go", "line": -4}}}, -32602, "open_files[0] cart/cart.go: line -4: line numbers start at 1"},
		{"selection before line 1", "ctx/gather", map[string]any{"user_request": "x", "open_files": []any{map[string]any{"path": "README.md"}, map[string]any{"path": "cart/cart.go", "selection": map[string]any{"start": 0, "end": 3}}}}, -32602, "open_files[1] cart/cart.go: selection start 0, end 3: want 1 <= start <= end"},
		{"negative max_references", "ctx/findSymbol", map[string]any{"name": "Total", "max_references": -1}, -32602, "max_references must not be negative, got -1"},
		{"selection ending before it starts", "ctx/buildPrompt", map[string]any{"user_request": "x", "open_files": []any{map[string]any{"path": "cart/cart.go", "line": 2, "selection": map[string]any{"start": 9, "end": 3}}}}, -32602, "selection start 9, end 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, msg := testutil.RPCError(t, d.call(tt.method, tt.params))
			if code != tt.code || !strings.Contains(msg, tt.contains) {
				t.Errorf("got %d %q, want %d containing %q", code, msg, tt.code, tt.contains)
			}
			alive(tt.name)
		})
	}
	// The CLI's and MCP's names work over JSON-RPC too.
	env := result(t, d.call("ctx/buildPrompt", map[string]any{"request": "explain the sample", "task": "analyze"}))
	if env["task_type"] != "analyze" || env["user_request"] != "explain the sample" {
		t.Errorf(`{"request", "task"}: task_type %v, user_request %v`, env["task_type"], env["user_request"])
	}
}

// rpcCase is a call to the daemon and the error code it must answer,
// with a substring of the message (code 0: no error code is expected).
type rpcCase struct {
	name     string
	method   string
	params   any
	code     int
	contains string
}

func (d *daemon) waitForID(id int) map[string]any {
	d.t.Helper()
	ch := make(chan map[string]any, 1)
	key := strconv.Itoa(id)
	d.mu.Lock()
	for i, m := range d.stray {
		if b, _ := json.Marshal(m["id"]); string(b) == key {
			d.stray = append(d.stray[:i], d.stray[i+1:]...)
			d.mu.Unlock()
			return m
		}
	}
	d.pending[key] = ch
	d.mu.Unlock()
	return d.wait(ch, "response "+key)
}

// TestServeCancel cancels a buildPrompt over the Go standard library (a
// cold gather takes long enough to be caught mid-way) and expects -32800,
// then a normal answer to the next request.
func TestServeCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("gathers the Go standard library")
	}
	goroot := filepath.Join(runtime.GOROOT(), "src")
	d := startDaemon(t, t.TempDir())
	result(t, d.call("initialize", map[string]any{"root": goroot}))
	id, ch := d.callAsync("ctx/buildPrompt", map[string]any{"user_request": "how does the http server handle keep-alive connections"})
	d.send(map[string]any{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": map[string]any{"id": id}})
	code, msg := testutil.RPCError(t, d.wait(ch, "cancelled buildPrompt"))
	if code != -32800 {
		t.Fatalf("cancelled request: %d %q", code, msg)
	}
	r := result(t, d.call("ctx/countTokens", map[string]any{"text": "after cancel"}))
	if r["tokens"].(float64) <= 0 {
		t.Errorf("after cancel: %v", r)
	}
}

// TestPromptCLI runs `ctxd prompt` the way the README's first command
// does.
func TestPromptCLI(t *testing.T) {
	t.Parallel() // a subprocess per case: overlaps on two cores
	dir := testutil.GitRepo(t, sampleRepo)
	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		contains []string
		absent   []string
	}{
		{"markdown", []string{"prompt", "add a discount to the cart total"}, "", 0, []string{"## cart/cart.go", "## Request\nadd a discount"}, []string{"super-secret-value"}},
		{"xml", []string{"prompt", "--format", "xml", "add a discount to the cart total"}, "", 0, []string{"<file path=\"cart/cart.go\"", "<request>"}, nil},
		{"flags after request", []string{"prompt", "write tests for Total", "--task", "test", "--json"}, "", 0, []string{"\"task_type\": \"test\"", "\"task_type_source\": \"explicit\""}, nil},
		{"stdin", []string{"prompt", "-"}, "explain the cart package", 0, []string{"## Request\nexplain the cart package"}, nil},
		{"missing request", []string{"prompt"}, "", 2, []string{"missing REQUEST"}, nil},
		// A compiler's location FILE:LINE:COL opens FILE at LINE; it was
		// skipped as the file "cart/cart.go:12", "no such file".
		{"open at a compiler's location", []string{"prompt", "--open", "cart/cart.go:12:3", "fix the total"}, "", 0, []string{"## cart/cart.go\nCursor: line 12"}, []string{"no such file"}},
		// "-" with nothing piped in (a test run that printed nothing)
		// names the empty input, not a missing REQUEST.
		{"empty stdin", []string{"prompt", "--task", "debug", "-"}, "", 2, []string{"ctxd prompt: standard input is empty (0 bytes): REQUEST '-' reads the task from it"}, []string{"missing REQUEST"}},
		{"blank stdin", []string{"prompt", "-"}, " \n\t\n", 2, []string{"standard input is empty (4 bytes)"}, nil},
		{"bad flag", []string{"prompt", "--budget", "x", "y"}, "", 2, []string{"invalid value"}, nil},
		{"bad task", []string{"prompt", "--task", "deploy", "y"}, "", 2, []string{"deploy"}, nil},
		{"outside root", []string{"prompt", "--open", "/etc/passwd", "y"}, "", 2, []string{"--open /etc/passwd: outside the workspace"}, nil},
		{"estimate notice hidden", []string{"prompt", "--model", "claude-sonnet-4.5", "explain the cart package"}, "", 0, []string{"## Request"}, []string{"are estimates"}},
		{"estimate notice with --explain", []string{"prompt", "--explain", "--model", "claude-sonnet-4.5", "explain the cart package"}, "", 0, []string{"are estimates"}, nil},
		{"budget below the request", []string{"prompt", "--budget", "50", "explain how the cart total is computed with the discount and the tax rules"}, "", 1, []string{"token budget too small for the request", "minimum total budget"}, []string{"## Request", "over token budget"}},
		{"explicit secret", []string{"prompt", "--open", ".env", "--json", "what is in the env file"}, "", 0, []string{"super-secret-value"}, nil},
		{"unknown command", []string{"frobnicate"}, "", 2, []string{"unknown command"}, nil},
		{"version", []string{"version"}, "", 0, []string{"ctxd "}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCtxd(t, dir, tt.stdin, nil, tt.args...)
			all := out + errOut
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s", code, tt.code, all)
			}
			for _, s := range tt.contains {
				if !strings.Contains(all, s) {
					t.Errorf("output lacks %q:\n%s", s, all)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(all, s) {
					t.Errorf("output has %q", s)
				}
			}
		})
	}
}

// runCtxd runs the binary in dir with stdin and extra environment, isolated
// from the user's configuration, state directory and rollout variables, and
// returns its stdout, stderr and exit code.
func runCtxd(t *testing.T, dir, stdin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	return runCtxdTimeout(t, dir, stdin, env, 0, args...)
}

// runInProcess calls Run with args, an empty stdin, and returns its exit
// code, stdout and stderr.
func runInProcess(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, &IO{In: strings.NewReader(""), Out: &out, Err: &errOut})
	return code, out.String(), errOut.String()
}

// cliCase is one call of [runInProcess]: the exit code it must return,
// substrings its stdout and stderr must hold, and one stdout must not
// (when not empty).
type cliCase struct {
	name           string
	args           []string
	code           int
	stdout, stderr string
	notInOut       string
}

// runCases runs each case as a subtest.
func runCases(t *testing.T, tests []cliCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runInProcess(tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.code, errOut)
			}
			if !strings.Contains(out, tt.stdout) {
				t.Errorf("stdout %q lacks %q", out, tt.stdout)
			}
			if !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr %q lacks %q", errOut, tt.stderr)
			}
			if tt.notInOut != "" && strings.Contains(out, tt.notInOut) {
				t.Errorf("stdout shows %q:\n%s", tt.notInOut, out)
			}
		})
	}
}

// cliFailure is one call of the binary that must fail: the exit code it
// must return and a text its standard error must hold.
type cliFailure struct {
	name string
	args []string
	code int
	want string
}

// runFailures runs each call of the binary in dir as a subtest: it exits
// with its code, names the mistake on standard error, prints nothing on
// standard output and uses no JSON-RPC term ("invalid params") on the
// command line.
func runFailures(t *testing.T, dir string, tests []cliFailure) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCtxd(t, dir, "", nil, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("ctxd %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tt.args, " "), code, errOut, tt.code, tt.want)
			}
			if out != "" {
				t.Errorf("stdout on an error: %q", out)
			}
			if strings.Contains(errOut, "invalid params") {
				t.Errorf("a JSON-RPC term on the command line: %q", errOut)
			}
		})
	}
}

// TestRunInProcess covers Run's dispatch without a subprocess.
func TestRunInProcess(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"help"}, &IO{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != 0 || !strings.Contains(out.String(), "prompt") {
		t.Errorf("help: %d %s", code, out.String())
	}
	if code := Run(context.Background(), nil, &IO{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != 2 {
		t.Errorf("no args: %d", code)
	}
}

// TestConfigShowsEffectiveBudget: `ctxd config` prints the budget a prompt
// uses: model-relative when nothing sets it, the configured one otherwise.
func TestConfigShowsEffectiveBudget(t *testing.T) {
	t.Setenv("CTXD_CONFIG", filepath.Join(t.TempDir(), "none.toml"))
	for _, tc := range []struct {
		name, toml, want string
	}{
		{"default gpt-4o", "", `"value": 16000`},
		{"claude window", "model = \"claude-sonnet-4-5\"\n", `"value": 25000`},
		{"configured", "[budget]\ntotal = 12000\n", `"value": 12000`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.toml != "" {
				if err := os.WriteFile(filepath.Join(dir, ".ctxd.toml"), []byte(tc.toml), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var out, errOut bytes.Buffer
			if code := Run(context.Background(), []string{"config", "--root", dir, "--json"}, &IO{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != 0 {
				t.Fatalf("config: %d %s", code, errOut.String())
			}
			var got struct {
				Entries []map[string]any `json:"entries"`
			}
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			for _, e := range got.Entries {
				if e["key"] == "budget.total" {
					b, _ := json.MarshalIndent(e, "", "  ")
					if !strings.Contains(string(b), tc.want) {
						t.Errorf("budget.total entry %s, want %s", b, tc.want)
					}
					return
				}
			}
			t.Error("no budget.total entry")
		})
	}
}

// TestConfiguredLog: log.level and log.file from the configuration apply
// where the command line sets neither flag; a flag wins; nothing set
// keeps the command's default. configuredLog (a command that loads no
// configuration otherwise) and configAndLog (one that does: one read for
// both) agree, and configAndLog's logger has the level and file chosen;
// without a --log-file (file nil) the configured file is not used.
func TestConfiguredLog(t *testing.T) {
	t.Setenv("CTXD_CONFIG", filepath.Join(t.TempDir(), "none.toml"))
	t.Chdir(t.TempDir()) // the log files configAndLog opens
	withCfg := t.TempDir()
	if err := os.WriteFile(filepath.Join(withCfg, ".ctxd.toml"), []byte("[log]\nlevel = \"debug\"\nfile = \"ctxd.log\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, root             string
		args                   []string
		wantLevel, wantLogFile string
	}{
		{"configured", withCfg, nil, "debug", "ctxd.log"},
		{"flag wins", withCfg, []string{"--log-level", "error"}, "error", "ctxd.log"},
		{"both flags", withCfg, []string{"--log-level", "error", "--log-file", "other.log"}, "error", "other.log"},
		{"nothing configured", t.TempDir(), nil, "warn", ""},
	} {
		setup := func(t *testing.T) (*flag.FlagSet, *string, *string) {
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			level := fs.String("log-level", "warn", "")
			file := fs.String("log-file", "", "")
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			return fs, level, file
		}
		t.Run(tc.name, func(t *testing.T) {
			fs, level, file := setup(t)
			if _, err := configuredLog(fs, tc.root, level, file); err != nil {
				t.Fatal(err)
			}
			if *level != tc.wantLevel || *file != tc.wantLogFile {
				t.Errorf("configuredLog: level %q file %q, want %q %q", *level, *file, tc.wantLevel, tc.wantLogFile)
			}

			var stderr bytes.Buffer
			fs, level, file = setup(t)
			cfg, log, closeLog, err := configAndLog(&stderr, fs, tc.root, level, file)
			if err != nil {
				t.Fatal(err)
			}
			if *level != tc.wantLevel || *file != tc.wantLogFile || cfg == nil {
				t.Errorf("configAndLog: level %q file %q (config %v), want %q %q", *level, *file, cfg, tc.wantLevel, tc.wantLogFile)
			}
			log.Debug("probe")
			log.Error("probe")
			closeLog()
			want := stderr.String()
			if tc.wantLogFile != "" {
				b, err := os.ReadFile(tc.wantLogFile)
				if err != nil {
					t.Fatal(err)
				}
				want = string(b)
				os.Remove(tc.wantLogFile)
			}
			if n := strings.Count(want, "msg=probe"); n != map[string]int{"debug": 2, "warn": 1, "error": 1}[tc.wantLevel] {
				t.Errorf("configAndLog's logger wrote %d of a debug and an error record at level %s:\n%s", n, tc.wantLevel, want)
			}

			stderr.Reset()
			fs, level, _ = setup(t)
			_, log, closeLog, err = configAndLog(&stderr, fs, tc.root, level, nil)
			if err != nil {
				t.Fatal(err)
			}
			log.Error("probe")
			closeLog()
			if !strings.Contains(stderr.String(), "msg=probe") {
				t.Errorf("without --log-file the log went elsewhere than stderr: %q", stderr.String())
			}
		})
	}
}
