package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/procstat"
	"github.com/ctxd/ctxd/internal/testutil"
)

// vmHWM returns a process's peak RSS in KiB from /proc.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	n := procstat.KiB(strconv.Itoa(pid), "VmHWM")
	if n == 0 {
		t.Fatalf("no VmHWM in /proc/%d/status", pid)
	}
	return int64(n)
}

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

func countReq(id int) string {
	return frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ctx/countTokens","params":{"text":"good frame %d"}}`, id, id))
}

// TestBadFramesThenGood is failures 7 and 8 of issue 11 over stdio: after
// each bad frame, the valid request written right behind it is answered;
// huge header lines and bodies are refused without being held, and the
// daemon's peak RSS stays under rssLimitKB.
func TestBadFramesThenGood(t *testing.T) {
	dir := testutil.GitRepo(t, sampleRepo)
	d := startDaemon(t, dir, "--max-body-bytes", strconv.Itoa(4<<20))
	result(t, d.call("initialize", map[string]any{"root": dir}))
	good := `{"jsonrpc":"2.0","id":1000,"method":"ctx/countTokens","params":{"text":"x"}}`
	tests := []struct {
		name string
		bad  string
	}{
		{"too-short length", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(good)-10, good)},
		{"too-long length", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(good)+40, good)},
		{"header-less body", good},
		{"header-less body with newline", good + "\r\n"},
		{"garbage without newline", "garbage garbage garbage"},
		{"line over the header cap", strings.Repeat("A", 1<<20)},
		{"body over the limit", "Content-Length: 268435462\r\n\r\n{\"a\":1}"},
		{"body over the limit, sent", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", 5<<20, strings.Repeat(" ", 5<<20))},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := 2000 + i
			d.writeRaw(tt.bad + countReq(id))
			r := result(t, d.waitForID(id))
			if r["tokens"].(float64) <= 0 {
				t.Errorf("after %s: %v", tt.name, r)
			}
		})
	}
	// Twice in a row, as in the report.
	d.writeRaw(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(good)+40, good) + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(good)+40, good) + countReq(3000))
	result(t, d.waitForID(3000))
	if hwm := vmHWM(t, d.cmd.Process.Pid); hwm > rssLimitKB {
		t.Errorf("daemon peak RSS %d KiB, over %d KiB", hwm, rssLimitKB)
	}
}

// TestProtocolCorrectness is failure 10 of issue 11.
func TestProtocolCorrectness(t *testing.T) {
	dir := testutil.GitRepo(t, sampleRepo)
	os.Symlink("loop", filepath.Join(dir, "loop"))
	d := startDaemon(t, dir)
	result(t, d.call("initialize", map[string]any{"root": dir}))

	for _, tc := range []struct{ id, kind string }{{"null", "null"}, {"1.5", "fractional"}, {`{"a":1}`, "object"}, {"true", "boolean"}, {"[1]", "array"}} {
		d.writeRaw(frame(`{"jsonrpc":"2.0","id":` + tc.id + `,"method":"ctx/countTokens","params":{"text":"x"}}`))
		code, msg := testutil.RPCError(t, d.waitNullID())
		if code != -32600 || !strings.Contains(msg, tc.kind) {
			t.Errorf("id %s: %d %q", tc.id, code, msg)
		}
	}

	tests := []rpcCase{
		{"symlink loop", "ctx/outline", map[string]any{"path": "loop"}, -32602, "loop"},
		{"5000-char path", "ctx/outline", map[string]any{"path": strings.Repeat("a", 5000) + ".go"}, -32602, "name too long"},
		{"5000-char open file", "ctx/buildPrompt", map[string]any{"user_request": "x", "open_files": []any{map[string]any{"path": strings.Repeat("b", 5000)}}}, 0, ""},
		{"model field name", "ctx/pruneForRetry", map[string]any{"request": map[string]any{"messages": []any{}}, "model": 5, "error": "x"}, -32602, "field model"},
		{"countTokens non-messages", "ctx/countTokens", map[string]any{"messages": []any{1, "x", nil}}, -32602, "messages[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := d.call(tt.method, tt.params)
			if tt.code == 0 {
				if r["error"] != nil {
					if c, _ := testutil.RPCError(t, r); c == -32603 {
						t.Errorf("internal error: %v", r)
					}
				}
				return
			}
			code, msg := testutil.RPCError(t, r)
			if code != tt.code || !strings.Contains(msg, tt.contains) || strings.Contains(msg, "compressParams") {
				t.Errorf("got %d %q, want %d containing %q", code, msg, tt.code, tt.contains)
			}
		})
	}

	// A failing buildPrompt pipelined with countTokens, many times: every
	// error names its own method and no other request's bytes.
	var b strings.Builder
	for i := 0; i < 30; i++ {
		b.WriteString(frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ctx/buildPrompt","params":{"user_request":"x","open_files":[{"path":"/etc/passwd"}]}}`, 5000+2*i)))
		b.WriteString(frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ctx/countTokens","params":{"text":"padding padding padding %d"}}`, 5001+2*i, i)))
	}
	d.writeRaw(b.String())
	for i := 0; i < 30; i++ {
		code, msg := testutil.RPCError(t, d.waitForID(5000+2*i))
		if code != -31001 || !strings.HasPrefix(msg, "ctx/buildPrompt: ") {
			t.Errorf("pipelined buildPrompt %d: %d %q", i, code, msg)
		}
		result(t, d.waitForID(5001+2*i))
	}
}

// rawConn is a connection to a listening daemon that reads frames raw (a
// batch answer is an array).
type rawConn struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

func dialRaw(t *testing.T, network, addr string) *rawConn {
	t.Helper()
	var nc net.Conn
	var err error
	for i := 0; i < 100; i++ {
		if nc, err = net.Dial(network, addr); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawConn{t: t, nc: nc, r: bufio.NewReader(nc)}
}

func (c *rawConn) send(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.nc, s); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawConn) next() (string, error) {
	c.nc.SetReadDeadline(time.Now().Add(60 * time.Second))
	n := -1
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			return "", err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	b := make([]byte, n)
	_, err := io.ReadFull(c.r, b)
	return string(b), err
}

func (c *rawConn) call(id int, method string, params any) map[string]any {
	c.t.Helper()
	p, _ := json.Marshal(params)
	c.send(frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, p)))
	body, err := c.next()
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		c.t.Fatalf("%s: %s", method, body)
	}
	return m
}

// startListening runs `ctxd serve --listen spec` through sh (so a test can
// lower limits with ulimit first) and returns the process.
func startListening(t *testing.T, dir, prefix string, args ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	var q []string
	for _, a := range append([]string{binary, "serve", "--log-level", "debug"}, args...) {
		q = append(q, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	cmd := exec.Command("sh", "-c", prefix+"exec "+strings.Join(q, " "))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CTXD_CONFIG="+filepath.Join(t.TempDir(), "none.toml"), "CTXD_STATE_DIR="+filepath.Join(dir, ".state"))
	var stderr strings.Builder
	cmd.Stderr = &syncWriter{b: &stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		waitOrKill(t, cmd, "daemon", stderr.String)
	})
	return cmd, &stderr
}

type syncWriter struct {
	mu chan struct{}
	b  *strings.Builder
}

var stderrMu = make(chan struct{}, 1)

func (w *syncWriter) Write(p []byte) (int, error) {
	stderrMu <- struct{}{}
	defer func() { <-stderrMu }()
	return w.b.Write(p)
}

func readStderr(b *strings.Builder) string {
	stderrMu <- struct{}{}
	defer func() { <-stderrMu }()
	return b.String()
}

// TestUnixSocketPeer: the socket is 0600; a batch of non-objects gets one
// -32600 per item; descriptor exhaustion under a lowered RLIMIT_NOFILE
// (failure 4) does not end the daemon; the connection cap and the idle
// timeout close connections; the daemon keeps serving.
func TestUnixSocketPeer(t *testing.T) {
	dir := testutil.GitRepo(t, sampleRepo)
	sock := filepath.Join(t.TempDir(), "ctxd.sock")
	cmd, stderr := startListening(t, dir, "ulimit -n 40; ", "--listen", "unix:"+sock, "--max-conns", "64", "--idle-timeout", "3s")
	c := dialRaw(t, "unix", sock)
	fi, err := os.Stat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want 0600", fi.Mode().Perm())
	}
	result(t, c.call(1, "initialize", map[string]any{"root": dir}))

	c.send(frame(`[1,2,3]`))
	body, err := c.next()
	if err != nil {
		t.Fatal(err)
	}
	var batch []map[string]any
	if err := json.Unmarshal([]byte(body), &batch); err != nil || len(batch) != 3 {
		t.Fatalf("batch answer %s", body)
	}
	for _, m := range batch {
		if code, _ := testutil.RPCError(t, m); code != -32600 {
			t.Errorf("batch item: %v", m)
		}
	}

	// Exhaust descriptors: 60 idle connections against a limit of 40.
	var extra []net.Conn
	for i := 0; i < 60; i++ {
		nc, err := net.Dial("unix", sock)
		if err != nil {
			break
		}
		extra = append(extra, nc)
	}
	time.Sleep(500 * time.Millisecond)
	if cmd.ProcessState != nil {
		t.Fatal("daemon exited under descriptor exhaustion")
	}
	if !strings.Contains(readStderr(stderr), "accept failed; retrying") {
		t.Errorf("60 connections did not exhaust 40 descriptors: the test did not test EMFILE")
	}
	for _, nc := range extra {
		nc.Close()
	}
	// The idle connections are gone; a new client is served.
	var c2 *rawConn
	deadline := time.Now().Add(20 * time.Second)
	for {
		c2 = dialRaw(t, "unix", sock)
		c2.send(frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"root":` + strconv.Quote(dir) + `}}`))
		if _, err := c2.next(); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no new client served after descriptor exhaustion")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if r := result(t, c2.call(2, "ctx/countTokens", map[string]any{"text": "after EMFILE"})); r["tokens"].(float64) <= 0 {
		t.Errorf("countTokens: %v", r)
	}
	// The idle timeout closes a silent connection.
	idle := dialRaw(t, "unix", sock)
	idle.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := idle.r.ReadByte(); err == nil {
		t.Error("idle connection got bytes instead of being closed")
	}
	if hwm := vmHWM(t, cmd.Process.Pid); hwm > rssLimitKB {
		t.Errorf("daemon peak RSS %d KiB, over %d KiB", hwm, rssLimitKB)
	}
}

// TestTCPPeer is failure 2 of issue 11: a TCP client needs the daemon's
// token (a 0600 file beside the state) and may initialize only the roots
// given at start; a second client naming another root is refused.
func TestTCPPeer(t *testing.T) {
	dir := testutil.GitRepo(t, sampleRepo)
	_, stderr := startListening(t, dir, "", "--listen", "tcp:127.0.0.1:0", "--root", dir)
	var addr, tokenFile string
	deadline := time.Now().Add(30 * time.Second)
	for addr == "" || tokenFile == "" {
		s := readStderr(stderr)
		if m := regexp.MustCompile(`actual=(127\.0\.0\.1:\d+)`).FindStringSubmatch(s); m != nil {
			addr = m[1]
		}
		if m := regexp.MustCompile(`token_file=(\S+)`).FindStringSubmatch(s); m != nil {
			tokenFile = m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no address in the log:\n%s", s)
		}
		time.Sleep(50 * time.Millisecond)
	}
	fi, err := os.Stat(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v", fi.Mode().Perm())
	}
	tok, _ := os.ReadFile(tokenFile)
	token := strings.TrimSpace(string(tok))

	noToken := dialRaw(t, "tcp", addr)
	if code, _ := testutil.RPCError(t, noToken.call(1, "initialize", map[string]any{"root": dir})); code != -31010 {
		t.Errorf("initialize without token: %d", code)
	}
	if code, _ := testutil.RPCError(t, noToken.call(2, "ctx/buildPrompt", map[string]any{"user_request": "x", "patterns": []string{"shadow"}})); code != -32002 {
		t.Errorf("buildPrompt without initialize: %d", code)
	}
	wrong := dialRaw(t, "tcp", addr)
	if code, _ := testutil.RPCError(t, wrong.call(1, "initialize", map[string]any{"root": dir, "token": strings.Repeat("0", len(token))})); code != -31010 {
		t.Errorf("initialize with a wrong token: %d", code)
	}
	other := dialRaw(t, "tcp", addr)
	code, msg := testutil.RPCError(t, other.call(1, "initialize", map[string]any{"root": "/etc", "token": token}))
	if code != -31001 || !strings.Contains(msg, "not one of the workspaces") {
		t.Errorf("initialize /etc: %d %q", code, msg)
	}
	if code, _ := testutil.RPCError(t, other.call(2, "ctx/buildPrompt", map[string]any{"user_request": "x", "patterns": []string{"shadow"}})); code != -32002 {
		t.Errorf("buildPrompt after a refused initialize: %d", code)
	}
	good := dialRaw(t, "tcp", addr)
	result(t, good.call(1, "initialize", map[string]any{"root": dir, "initializationOptions": map[string]any{"token": token}}))
	result(t, good.call(2, "ctx/buildPrompt", map[string]any{"user_request": "explain the cart"}))
}

// TestStdinClosedWithRequestInFlight: the requests written before stdin
// closes are all answered before the daemon exits.
func TestStdinClosedWithRequestInFlight(t *testing.T) {
	dir := testutil.GitRepo(t, sampleRepo)
	in := frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"root":`+strconv.Quote(dir)+`}}`) +
		frame(`{"jsonrpc":"2.0","id":2,"method":"ctx/buildPrompt","params":{"user_request":"explain the cart total"}}`) +
		frame(`{"jsonrpc":"2.0","id":3,"method":"ctx/countTokens","params":{"text":"last"}}`)
	out, _, _ := runCtxd(t, dir, in, nil, "serve")
	for _, id := range []string{`"id":1`, `"id":2`, `"id":3`} {
		if !strings.Contains(out, id) {
			t.Errorf("no reply with %s before exit:\n%.500s", id, out)
		}
	}
}
