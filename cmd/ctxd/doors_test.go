package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// This file drives every door of ctxd (the CLI, the daemon over stdio,
// the MCP server over stdio) with hostile input: the real binary, a real
// git repository built in the test. docs/security.md's table names each
// test here by door and threat.

// mcpClient speaks MCP to `ctxd mcp` over stdio, one JSON message a line.
type mcpClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	nextID int
}

func startMCP(t *testing.T, dir string, env ...string) *mcpClient {
	t.Helper()
	cmd := exec.Command(binary, "mcp")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CTXD_CONFIG="+filepath.Join(t.TempDir(), "none.toml"), "CTXD_STATE_DIR=")
	cmd.Env = append(cmd.Env, env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr testutil.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &mcpClient{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("mcp stderr:\n%s", stderr.String())
		}
	})
	c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "doors-test", "version": "1"}})
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized", "params": map[string]any{}})
	return c
}

func (c *mcpClient) send(v any) {
	c.t.Helper()
	b, _ := json.Marshal(v)
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
}

// request sends a request and returns its response line, raw (the test
// looks for secrets in every byte the server wrote).
func (c *mcpClient) request(method string, params any) string {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			c.t.Fatalf("%s: %v", method, err)
		}
		var m struct {
			ID *int `json:"id"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.ID != nil && *m.ID == id {
			return line
		}
	}
}

// tool calls a tool and returns the raw response line.
func (c *mcpClient) tool(name string, args map[string]any) string {
	c.t.Helper()
	return c.request("tools/call", map[string]any{"name": name, "arguments": args})
}

// toolError reports the error a tool call answered, "" when it succeeded.
func toolError(t *testing.T, line string) string {
	t.Helper()
	var m struct {
		Error  *struct{ Message string }
		Result struct {
			IsError bool `json:"isError"`
			Content []struct{ Text string }
		}
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("response %q: %v", line, err)
	}
	if m.Error != nil {
		return m.Error.Message
	}
	if m.Result.IsError {
		var b strings.Builder
		for _, c := range m.Result.Content {
			b.WriteString(c.Text)
		}
		return b.String()
	}
	return ""
}

// structureRepo is a repository holding the fake keys of secrets/testdata
// in Python and Go, and a Go constant named like the token it holds.
func structureRepo(t *testing.T) (string, []string) {
	t.Helper()
	files := map[string]string{}
	for name, dst := range map[string]string{"config.py": "app/config.py", "signing.go": "signing/signing.go"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "secrets", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		files[dst] = string(b)
	}
	// A fake token (random characters behind GitHub's prefix).
	files["ci/token.go"] = "package ci\n\n// GITHUB_TOKEN is a fake token of the test.\nconst GITHUB_TOKEN = \"ghp_Zq8xW3mN5vB7kL2pR9tY4uH6jF1dS0aQ3eXc\"\n\nfunc Header() string { return \"token \" + GITHUB_TOKEN }\n"
	secrets := []string{"AKIA454ML6LG4TJFCZ4K", "biheyEd7P4zDL+ak6J0kGODKdinZnLXicaBAg8WY", "ghp_AeKOmXRrvftva9AW7hipTgadDZFlRJmCGmUX",
		"Vq8rT2mZ9xKp4LwNe7Hs", "uUbmqUcRCfO3nxEKJvYin6NFJSbnvBZCrrQr8ifVD", "ghp_Zq8xW3mN5vB7kL2pR9tY4uH6jF1dS0aQ3eXc"}
	return testutil.GitRepo(t, files), secrets
}

func assertNoSecret(t *testing.T, door, out string, secrets []string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(out, s) {
			t.Errorf("%s: the answer holds secret %q", door, s)
		}
	}
}

// TestStructureToolsRedact: outline, truncate and find_symbol cut their
// answers from file text, and a secret in that text reaches none of them
// (CLI, daemon, MCP), while the symbols around it, with their own line
// numbers, still do.
func TestStructureToolsRedact(t *testing.T) {
	dir, secrets := structureRepo(t)
	outs := map[string]string{}
	for _, args := range [][]string{
		{"outline", "--json", "app/config.py"},
		{"outline", "signing/signing.go"},
		{"outline", "ci/token.go"},
		{"truncate", "--level", "full", "app/config.py"},
		{"truncate", "--level", "full", "--json", "signing/signing.go"},
		{"truncate", "--level", "signatures", "ci/token.go"},
	} {
		out, errOut, code := runCtxd(t, dir, "", nil, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		door := "cli " + strings.Join(args, " ")
		assertNoSecret(t, door, out+errOut, secrets)
		outs[door] = out
	}
	if out := outs["cli truncate --level full --json signing/signing.go"]; !strings.Contains(out, `"rule": "private-key"`) || !strings.Contains(out, "VerifyWebhook") {
		t.Errorf("truncate --json lists no private-key redaction or lost the function:\n%s", out)
	}
	// The PEM key spans 6 lines: VerifyWebhook stays on line 12.
	if out := outs["cli outline signing/signing.go"]; !strings.Contains(out, "12: func VerifyWebhook") {
		t.Errorf("outline lost VerifyWebhook's line 12:\n%s", out)
	}

	d := startDaemon(t, dir)
	result(t, d.call("initialize", map[string]any{"root": dir}))
	for _, p := range []string{"app/config.py", "signing/signing.go", "ci/token.go"} {
		for _, level := range []string{"", "full", "bodies"} {
			msg := d.call("ctx/outline", map[string]any{"path": p, "level": level})
			b, _ := json.Marshal(result(t, msg))
			assertNoSecret(t, "daemon ctx/outline "+p+" "+level, string(b), secrets)
		}
	}

	m := startMCP(t, dir)
	for _, p := range []string{"app/config.py", "signing/signing.go", "ci/token.go"} {
		for _, level := range []string{"", "full"} {
			line := m.tool("outline", map[string]any{"path": p, "level": level})
			if e := toolError(t, line); e != "" {
				t.Fatalf("mcp outline %s: %s", p, e)
			}
			assertNoSecret(t, "mcp outline "+p+" "+level, line, secrets)
		}
	}
	for _, name := range []string{"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "signingKey", "DATABASE_URL"} {
		line := m.tool("find_symbol", map[string]any{"name": name})
		if e := toolError(t, line); e != "" {
			t.Fatalf("mcp find_symbol %s: %s", name, e)
		}
		assertNoSecret(t, "mcp find_symbol "+name, line, secrets)
		if name == "GITHUB_TOKEN" && (!strings.Contains(line, "[REDACTED github-pat]") || !strings.Contains(line, "ci/token.go")) {
			t.Errorf("find_symbol GITHUB_TOKEN: no marker or no hit in ci/token.go:\n%s", line)
		}
	}
}
