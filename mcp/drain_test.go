package mcp_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestStdinClosedAnswersEveryCall: a client that writes its calls and
// closes its end of the pipe at once (a script, `printf ... | ctxd mcp`)
// still gets an answer to each of them; before drain, the SDK's transport
// ended the session at EOF and the calls still running were never answered.
func TestStdinClosedAnswersEveryCall(t *testing.T) {
	repo := testutil.GitRepo(t, repoFiles)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count_tokens","arguments":{"text":"hello world","model":"gpt-4o"}}}`,
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"build_context","arguments":{"request":"how does Put fail when the cart is full","budget":4000}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"outline","arguments":{"path":"store/store.go"}}}`,
	}, "\n") + "\n"
	for run := range 3 {
		cmd := exec.Command(ctxdBin, "mcp", "--root", repo, "--state-dir", t.TempDir())
		cmd.Stdin = strings.NewReader(in)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, errb.String())
		}
		for _, id := range []string{`"id":1,`, `"id":2,`, `"id":"three",`, `"id":4,`} {
			if !strings.Contains(out.String(), id) {
				t.Errorf("run %d: no answer with %s:\n%s", run, id, out.String())
			}
		}
	}
}
